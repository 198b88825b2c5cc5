/* The velocity pass's operator kept from step to step: H (the rows in the bodies' space),
 * the columns C H^T, W's frame blocks and the islands, built for one step's contact set and
 * used again while the sets that follow keep its structure (the same contacts in the same
 * order, rows on the same points with weights within WEIGHT_CHANGE of theirs) and no
 * geometry point has moved by more than the allowed motion since. The sweep order is made
 * again at every step (block_gauss_seidel.c, sort_by_height).
 *
 * What changes with the configuration in that operator are the lever arms and normals of the
 * rows and the world-frame compliances: a motion delta of the points changes them by a
 * relative delta / L (L the bodies' size), and the step's correction, about g h^2 at rest,
 * by as much. The solver allows 1e-6 of the moving bodies' median size, so the error is a
 * hundredth of its automatic tolerance (1e-4 g h^2). The rows' values (the gaps, the free
 * motion's rates) stay the detection's own at every step. A settled stack's set keeps its
 * structure; what it then saves is most of the step's setup (docs/plugins/constraint.md,
 * "The operator kept"). */
#pragma once

#include <cwb/cwb.h>

#include "geometry_points.h"

typedef struct OperatorReuse {
  gboolean kept;           /* an operator was built and its key kept */
  GArray *rows;            /* RowKey per row of the set it was built for */
  GArray *frames;          /* FrameKey per frame */
  GArray *weights;         /* CwbPointWeight, as the set had them */
  GArray *ids;             /* guint64: the frames' identities */
  GArray *skipped;         /* gboolean per frame (the frames left out), empty for none */
  GeometryPoints points;   /* the geometries when it was built */
  double allowed_motion;   /* m */
  GArray *row_start;       /* size_t: a copy of H (CwbDofRows) */
  GArray *entries;         /* CwbDofEntry */
  CwbDofRows h;
  gboolean structure_kept; /* the key of the last operator built is kept, whether or not
                            * the operator still serves */
} OperatorReuse;

void operator_reuse_init (OperatorReuse *reuse);
void operator_reuse_clear (OperatorReuse *reuse);

/* Nothing kept: the next velocity pass builds its operator, of a new structure. */
void operator_reuse_forget (OperatorReuse *reuse);

/* The operator forgotten but its key kept: the next velocity pass builds the operator again,
 * and operator_reuse_match still answers for its structure. */
void operator_reuse_forget_operator (OperatorReuse *reuse);

typedef enum {
  OPERATOR_REUSE_NONE,        /* a new structure: the operator is built for it */
  /* `set` has the structure of the last operator built (the same contacts in the same
   * order, rows on the same points with weights within WEIGHT_CHANGE of its), however far
   * the points have moved since: an operator built for it has the same rows, blocks and
   * islands, in the same order. */
  OPERATOR_REUSE_STRUCTURE,
  /* ... and the operator kept serves it: no point has moved by more than the allowed
   * motion. */
  OPERATOR_REUSE_OPERATOR,
} OperatorReuseMatch;

/* How much of what is kept serves `set`, detected at the geometries' current points, with
 * frames `skipped` left out (may be NULL); the structure is compared once for both. */
OperatorReuseMatch operator_reuse_match (const OperatorReuse *reuse, CwbStepContext *ctx,
                                         const CwbContactSet *set, const gboolean *skipped);

/* Keeps the key of the operator just built for `set` (the geometries' current points, the
 * set's structure, a copy of h), to be used while no point moves by more than
 * `allowed_motion`; 0 keeps only its structure (OPERATOR_REUSE_STRUCTURE). */
void operator_reuse_keep (OperatorReuse *reuse, CwbStepContext *ctx, const CwbContactSet *set,
                          const gboolean *skipped, const CwbDofRows *h, double allowed_motion);

/* The H kept (valid while operator_reuse_match answers OPERATOR_REUSE_OPERATOR). */
const CwbDofRows *operator_reuse_h (const OperatorReuse *reuse);

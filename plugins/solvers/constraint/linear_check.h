/* The post-stabilization's check without a detection: the violation at the step's final
 * positions, measured through the velocity pass's rows where the contact model states that
 * they hold every pair within reach (CwbContactSet.reach) and the corrective motion moves no
 * point by more than half of it.
 *
 * A point row's value is sum_k w_k . p_k (geometry.h); with its weights held, its gap at the
 * final positions is g_free + sum_k w_k . (p_end_k - p_free_k), the gap's first order in
 * the points' displacement, the same linearisation a position pass solves (Allard 2010
 * eq. 18). A pair missing from the set was farther apart than the reach at q_free, so points
 * that each move less than half of it cannot make it touch. A settled stack's step then
 * needs one detection instead of two (docs/plugins/constraint.md, "The check without a
 * detection"). */
#pragma once

#include <cwb/cwb.h>

#include "geometry_points.h"

typedef struct LinearCheck {
  GeometryPoints free_points;   /* the geometries at q_free */
  gboolean kept;                /* free_points hold this step's free configuration */
} LinearCheck;

void linear_check_init (LinearCheck *check);
void linear_check_clear (LinearCheck *check);

/* Whether `set`'s model lets its rows measure a motion (a reach stated, rows that ask for at
 * most one stabilization pass). */
gboolean linear_check_applies (const CwbContactSet *set);

/* Keeps the mapped geometries' points (where the detection of `set` left them) when `set`
 * applies; forgets them otherwise. */
void linear_check_keep (LinearCheck *check, CwbStepContext *ctx, const CwbContactSet *set);

/* Maps the geometries at ctx's final positions and, when the kept points were kept for
 * `set` and no point moved by half its reach or more, writes the largest normal-row
 * violation beyond its tolerance (0 when all hold) and the deepest penetration (0 when none)
 * and returns TRUE. Rows of frames marked in `skip_frame` (may be NULL) are left out. FALSE:
 * only a detection can tell. */
gboolean linear_check_measure (LinearCheck *check, CwbStepContext *ctx,
                               const CwbContactSet *set, const gboolean *skip_frame,
                               double *violation, double *penetration);

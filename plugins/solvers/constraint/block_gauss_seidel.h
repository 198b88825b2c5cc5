/* Projected block Gauss-Seidel for the contact MLCP of Saupin 2008 eq. 19,
 *
 *     delta = W f + delta_free,   W = H C H^T,
 *     0 <= delta_n + tol  perp  f_n >= 0            (Signorini, Saupin eq. 1; Allard eq. 19)
 *     f_t in the friction set of radius mu f_n, delta_t = 0 inside it and delta_t against
 *     f_t on its boundary (Coulomb), the set being either
 *       the cone |f_t| <= mu f_n, delta_t = -s f_t / |f_t| on it (Saupin eq. 2), or
 *       the pyramid |f_t1| + |f_t2| <= mu f_n of Allard 2010 eq. 9-10 (cwb/coulomb.h)
 *
 * solved "unbuilt" (Duriez et al. 2006): W is never assembled. Each row keeps its column
 * C H_i^T (per body, in the body's nv space), the accumulated displacement dq = C H^T f is
 * updated after every local solve, and a row's current value is delta_free_i + H_i dq. Memory
 * and work per sweep are O(rows x DOFs of the bodies they touch), never O(rows^2).
 *
 * Each contact frame is one block: its normal row, then its tangent rows, solved against the
 * frame's own 3x3 block of W with the others fixed. For the cone the tangential step solves
 * the local Coulomb problem exactly (cwb_coulomb_disk_solve, cwb/coulomb.h), so a converged
 * sliding force opposes the slip. For the pyramid it is projected Gauss-Seidel row by row in
 * the pyramid's face coordinates, where the set is a box: each face coordinate is a scalar
 * Newton step clamped to +-mu f_n / sqrt 2.
 *
 * What stays constant during a solve is computed once in it: the columns C H_i^T, each
 * frame's 3x3 block of W and, for the cone, the eigen decomposition of its 2x2 tangential
 * block (cwb_coulomb_disk_factor). Frames given as islands (sets of frames that share no
 * body) are swept island by island, each until it reaches the tolerance. */
#pragma once

#include <cwb/cwb.h>

#include "island_direct.h"

G_BEGIN_DECLS

/* dq = C r for one body's nv-space force r (C from the body model, at the configuration the
 * rows were detected at). */
typedef void (*BgsComplianceFunc) (void *data, uint32_t body, const double *r, double *dq);
/* The diagonal of a body's compliance (nv values) when it is diagonal, else NULL. */
typedef const double *(*BgsDiagonalFunc) (void *data, uint32_t body);

typedef struct BgsProblem {
  size_t n_rows;
  const CwbConstraintRow *rows;     /* kinds, frames, tolerances */
  size_t n_frames;
  const CwbContactFrame *frames;    /* row blocks and friction coefficients */
  const CwbDofRows *h;              /* H in the flat nv space, fixed bodies left out */
  const CwbBodySlot *bodies;            /* indexed by H's body numbers */
  const double *delta_free;         /* row values before any contact force */
  gboolean rate_normals;            /* the normal rows' values are rates h H v (Allard 2010
                                     * eq. 17), held >= 0: their tolerances do not apply */
  const guint8 *speculative;        /* per row, may be NULL: 1 for a normal row whose value
                                     * is max (rate, gap), a contact open at the start of the
                                     * step (constraint_solver.c), not a linear row */
  const double *speculative_rate;   /* per row, may be NULL: a speculative row's pure rate
                                     * h H v_free, which its value max (rate, gap) exceeds
                                     * by its opening (direct_start.c, held_opening) */
  BgsComplianceFunc compliance;
  BgsDiagonalFunc compliance_diagonal;   /* may be NULL: every column through compliance */
  void *compliance_data;
  gboolean friction;                /* FALSE: tangent rows stay at zero force */
  CwbFrictionLaw friction_law;      /* the set bounding the tangential force */
  int max_iterations;
  double tolerance;                 /* on the laws' largest violation left, in metres
                                     * (Signorini's gap under force or penetration, Coulomb's
                                     * slip error), measured once the sweeps settle
                                     * (block_gauss_seidel.c) */
  /* Optional islands: frame_island[k] (0 .. n_islands - 1) for each frame; frames of two
   * islands must share no body (contact_islands.h), so that the rows of one never read the
   * displacement of the other's bodies. Each island is swept on its own until its own
   * residual reaches the tolerance or the cap. A frame numbered n_islands or above (rows on
   * no moving body) is swept with the others of its kind. NULL: all frames form one
   * island. */
  const uint32_t *frame_island;
  size_t n_islands;
  /* Optional sweep order: when not zero, each island's frames are swept in the order of
   * their origins along this direction (the solver passes gravity: the highest contact of a
   * stack first, so a sweep carries a change of load from the top down to the ground the
   * way the load goes); zero: the frames' own order. */
  double order_direction[3];
  /* Optional, per frame: TRUE leaves the frame out of the solve (a contact between sleeping
   * bodies, sleep.h): its rows keep the force they have on entry and move nothing. NULL:
   * every frame is solved. */
  const gboolean *skip_frame;
  /* Optional: each body's C^-1 (island_direct.h). With it, an island with at least
   * BGS_DIRECT_MIN_ROWS rows carrying force on entry (the warm start) starts its sweeps from
   * the direct solve of that active set: normal rows with force (but for the slightly loaded
   * ones whose law holds, direct_start.c), and the tangent rows of the contacts among them
   * that stick (force inside the friction set). NULL: sweeps only. */
  DirectStiffnessFunc stiffness;
  void *stiffness_data;
  /* TRUE: the columns C H^T and W's blocks are the ones this solver built for an earlier
   * problem whose rows had this problem's structure (operator_reuse.h); delta_free, the
   * guess, the limits and the sweep order (from this problem's frames) are new. */
  gboolean operator_kept;
  /* TRUE: the operator, where operator_kept is FALSE a new one, is built for a contact set of
   * the last one's structure (OPERATOR_REUSE_STRUCTURE, operator_reuse.h), so its blocks are the last one's
   * in the same order; the direct start's guess of each contact's part then holds on to the
   * one it had where the forces leave it in doubt (direct_start.c, warm_states). */
  gboolean structure_kept;
  /* The length of dq (the flat DOF space), for what a solve keeps for the next one on the
   * same operator; 0: nothing kept. */
  size_t nv;
} BgsProblem;

/* Below this many active rows an island is left to the sweeps alone. */
#define BGS_DIRECT_MIN_ROWS 24

typedef struct BgsResult {
  int iterations;           /* the most sweeps any island took */
  double residual;          /* the largest last-sweep residual of the islands */
  size_t islands;           /* islands with rows */
  size_t capped_islands;    /* islands that stopped at the cap above the tolerance */
  double mean_sweeps;       /* sweeps per frame block, averaged over the blocks: the work */
} BgsResult;

typedef struct BgsSolver BgsSolver;

BgsSolver *bgs_solver_new (void);
void bgs_solver_free (BgsSolver *solver);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BgsSolver, bgs_solver_free)

/* Solves the problem. f (n_rows) is the initial guess on entry and the solution on exit;
 * dq (nv) holds a displacement already applied (penalty forces through C) on entry and gets
 * C H^T f added. */
void bgs_solve (BgsSolver *solver, const BgsProblem *problem, double *f, double *dq,
                BgsResult *result);

/* The guess for a solve on the operator the last solve used (BgsProblem.operator_kept):
 * `factor` times the forces that solve ended with, row by row (the rows are the same ones,
 * in the same directions, whatever the contact model's new frames say). FALSE, f untouched,
 * when nothing was kept for n_rows rows on that operator. */
gboolean bgs_last_forces (const BgsSolver *solver, size_t n_rows, double factor, double *f);

/* The residual after each sweep of the last solve: after sweep k, the largest residual of
 * the islands that ran a k-th sweep. */
const double *bgs_residual_history (const BgsSolver *solver, size_t *n);

/* The post-solve check: the laws measured on the solution, from the rows' final values
 * delta = delta_free + H dq (not from the sweep that produced it), worst over the contact
 * frames. All are 0 for an exact solution; a converged solve leaves them of the order of
 * the stopping tolerance times the number of rows coupled to a row (the rows solved after
 * it in the last sweep moved it by at most that; docs/plugins/constraint.md). */
typedef struct BgsCheck {
  size_t contacts;          /* frame blocks checked */
  double penetration;       /* max(0, -(delta_n + tol)), m: Signorini's gap */
  double complementarity;   /* |delta_n + tol| where f_n > 0, m: a force only at contact */
  double friction_excess;   /* max(0, gauge(f_t) - mu f_n), N: outside the friction set */
  double slip_error;        /* dissipation gap / (mu f_n), m: how far f_t is from opposing
                             * the slip (0 in stick and in slip; cwb_friction_dissipation_gap) */
} BgsCheck;

/* Measures the solution f, dq of `problem` (after bgs_solve, on the same problem). */
void bgs_check (const BgsSolver *solver, const BgsProblem *problem, const double *f,
                const double *dq, BgsCheck *check);

G_END_DECLS

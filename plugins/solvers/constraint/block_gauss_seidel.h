/* Projected block Gauss-Seidel for the contact MLCP of Saupin 2008 eq. 19,
 *
 *     delta = W f + delta_free,   W = H C H^T,
 *     0 <= delta_n + tol  perp  f_n >= 0            (Signorini, Saupin eq. 1; Allard eq. 19)
 *     |f_t| <= mu f_n, and delta_t = 0 inside the cone or delta_t = -s f_t / |f_t| on it
 *                                                    (Coulomb, Saupin eq. 2)
 *
 * solved "unbuilt" (Duriez et al. 2006): W is never assembled. Each row keeps its column
 * C H_i^T (per body, in the body's nv space), the accumulated displacement dq = C H^T f is
 * updated after every local solve, and a row's current value is delta_free_i + H_i dq. Memory
 * and work per sweep are O(rows x DOFs of the bodies they touch), never O(rows^2).
 *
 * Each contact frame is one block: its normal row, then its tangent rows, solved against the
 * frame's own 3x3 block of W with the others fixed. The tangential step solves the local
 * Coulomb problem exactly (cwb_coulomb_disk_solve, cwb/coulomb.h), so a converged sliding force opposes the slip. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* dq = C r for one body's nv-space force r (C from the body model, at the configuration the
 * rows were detected at). */
typedef void (*BgsComplianceFunc) (void *data, uint32_t body, const double *r, double *dq);

typedef struct BgsProblem {
  size_t n_rows;
  const CwbConstraintRow *rows;     /* kinds, frames, tolerances */
  size_t n_frames;
  const CwbContactFrame *frames;    /* row blocks and friction coefficients */
  const CwbDofRows *h;              /* H in the flat nv space, fixed bodies left out */
  const CwbBodySlot *bodies;            /* indexed by H's body numbers */
  const double *delta_free;         /* row values before any contact force */
  BgsComplianceFunc compliance;
  void *compliance_data;
  gboolean friction;                /* FALSE: tangent rows stay at zero force */
  int max_iterations;
  double tolerance;                 /* on the largest |delta f_i| W_ii of a sweep, in metres */
} BgsProblem;

typedef struct BgsResult {
  int iterations;
  double residual;
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

/* The residual after each sweep of the last solve. */
const double *bgs_residual_history (const BgsSolver *solver, size_t *n);

G_END_DECLS

/* A direct solve of one island's active contacts, as the start of its Gauss-Seidel sweeps.
 *
 * Projected Gauss-Seidel carries a change of load one contact further per sweep, so a stack
 * needs more sweeps the taller it is, even from a warm start (the 10-, 20- and 40-row
 * pyramids took 11, 29 and 90 sweeps a step on average at 1e-8 m). Where the active set is
 * known (the contacts that carried force in the last step, split into those that stick and
 * those that slide), the MLCP restricted to it is linear: the active rows A reach their
 * targets, H_A dq + r_A = 0 (r_A: each row's current value minus its target), with the other
 * forces fixed. W_AA = H_A C H_A^T is singular where contacts are redundant (a box's four
 * corners on a face, a box on two others), so the change of force is the least one that does
 * it, with a compliance epsilon (m/N) on the rows:
 *     (W_AA + epsilon I) df_A = -r_A,
 * which, with u = C H_A^T df_A the change of the displacement and df_A = -(r_A + H_A u) /
 * epsilon, is a system in the bodies' space, of the size of their DOFs (6 per rigid body)
 * and sparse (banded for a pyramid of boxes):
 *     (epsilon C^-1 + H_A^T H_A) u = -H_A^T r_A,   f_A' = f_A - (r_A + H_A u) / epsilon,
 * symmetric positive definite whenever C is, factored by CHOLMOD. Starting from the warm
 * start's forces keeps their share among redundant contacts (a solution of least norm
 * instead would pull some contacts and push others out of their friction sets). The rows
 * miss their targets by epsilon |df_A|; the sweeps that follow project the result onto
 * Signorini's and Coulomb's laws and correct the active set where the guess was wrong. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* A body's C^-1 as a dense nv x nv matrix (column-major), or NULL when it has none (too many
 * DOFs, or C not symmetric positive definite). */
typedef const double *(*DirectStiffnessFunc) (void *data, uint32_t body);

typedef struct DirectProblem {
  size_t n_active;
  const size_t *rows;          /* the active rows' indices in H */
  const double *residual;      /* per active row: its current value minus its target */
  const double *force;         /* per active row: its current force f_A */
  double epsilon;              /* the rows' compliance, m/N */
  const CwbDofRows *h;
  const CwbBodySlot *bodies;   /* indexed by H's body numbers */
  DirectStiffnessFunc stiffness;
  void *stiffness_data;
  /* Non-zero: names the operator (the rows' H and the bodies' C^-1) the problem was built
   * from; a solve whose operator, active rows and epsilon are the last factored solve's has
   * the same K and reuses its factorisation, and one on the same operator whose active rows
   * differ by a few takes that factor modified by rank-one updates and downdates, with the
   * factor's epsilon while the problem's is within a tenth of it (a settled stack's active
   * set changes by tens of rows a step while its operator is kept). 0: always factored. */
  guint64 operator_id;
  /* The rows whose bodies and body pairs make K's pattern: a superset of the active rows
   * (the island's rows), so that the pattern, and CHOLMOD's analysis of it, stay while the
   * operator does, whichever of them are active; NULL: the active rows. A pair of bodies
   * with no active row is a block of zeros in K. */
  size_t n_pattern_rows;
  const size_t *pattern_rows;
  /* Where not NULL (the bodies' DOFs, each body's from its slot's v_offset): the solve adds
   * the change of displacement its forces make, u = C H_A^T df_A, which it has already,
   * so that the caller need not apply each row's change of force (df_A = -(r_A + H_A u) /
   * epsilon makes C H_A^T df_A = u, the system's own equation). */
  double *displacement;
} DirectProblem;

typedef struct IslandDirect IslandDirect;

IslandDirect *island_direct_new (void);
void island_direct_free (IslandDirect *direct);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (IslandDirect, island_direct_free)

/* Writes the active rows' new forces f_A' into `force_out` (n_active values). Returns FALSE,
 * leaving it untouched, when a body of the rows has no dense C^-1 or the factorisation fails
 * (the sweeps then start from the forces they had). */
gboolean island_direct_solve (IslandDirect *direct, const DirectProblem *problem,
                              double *force_out);

/* How many symbolic analyses of K's pattern (CHOLMOD's ordering and elimination tree) the
 * solver has made: one per new pattern, none while the pattern rows and operator stay. */
guint64 island_direct_analyses (const IslandDirect *direct);

/* How many solves took the kept factor modified to their active rows (rank updates and
 * downdates) instead of factoring K again. */
guint64 island_direct_modifications (const IslandDirect *direct);


G_END_DECLS

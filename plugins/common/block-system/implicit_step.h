/* The parts of one linearised backward Euler step (Saupin 2008 eq. 10-12, Allard 2010 sec.
 * 3.1; Baraff and Witkin 1998) that every lumped-mass deformable body shares (the FEM body's
 * grid nodes, the cloth's vertices): with K the body's stiffness at the step's start,
 * D = alpha M + beta K its Rayleigh damping and f = f_elastic(q) + M g + f_ext - D v,
 *
 *   (M (1 + h alpha) + (h^2 + h beta) K - h^2 K_ext - h B_ext) dv
 *       = h f - (h^2 + h beta) K v + h^2 K_ext v,
 *   v_free = v + dv,   q_free = q + h v_free,
 *
 * K_ext and B_ext the derivatives of f_ext a penalty contact model may hand in (as operators
 * only). The body assembles A = M (1 + h alpha) + (h^2 + h beta) K (block_matrix.h) and
 * fills f_elastic and K v; pinned nodes never move. */
#pragma once

#include <cwb/body_model.h>

#include "linear_solve.h"

G_BEGIN_DECLS

typedef struct ImplicitStep {
  size_t n_nodes;
  const double *node_mass;    /* n: the lumped masses (the body's) */
  const gboolean *fixed;      /* n: pinned nodes (the body's) */
  double alpha, beta;         /* Rayleigh damping */
  double *rhs;                /* 3 n: the body puts f_elastic(q) here, the step's right side */
  double *kv;                 /* 3 n: the body puts K v here */
  double *dv, *scratch;       /* 3 n */
} ImplicitStep;

void implicit_step_init (ImplicitStep *step, size_t n_nodes, const double *node_mass,
                         const gboolean *fixed);
void implicit_step_clear (ImplicitStep *step);

/* rhs = h (rhs + M g + f_ext - alpha M v) - (h^2 + h beta) kv + h^2 K_ext v, with rhs
 * holding f_elastic(q) and kv holding K v on entry. */
void implicit_step_rhs (ImplicitStep *step, const CwbFreeMotion *a);

/* Whether the step has external derivatives to add (then it needs the iterative solve). */
gboolean implicit_step_external (const CwbFreeMotion *a);

/* dv = A^-1 rhs by conjugate gradients on the assembled `system` with the external
 * derivatives as matrix-free terms, BiCGSTAB taking over where CG stops short (a contact
 * model's stiffness need not be symmetric). dv starts from zero. */
void implicit_step_solve_iterative (ImplicitStep *step, const CwbFreeMotion *a,
                                    const BlockMatrix *system, int max_iterations,
                                    double tolerance, const char *name);

/* v_free = v + dv (zero on pinned nodes), q_free = q + h v_free. */
void implicit_step_finish (const ImplicitStep *step, const CwbFreeMotion *a);

G_END_DECLS

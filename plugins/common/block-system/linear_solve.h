/* Solving A x = b for a deformable body's symmetric positive definite system (block_matrix.h):
 *
 *   - conjugate gradients with a block-Jacobi preconditioner, on the assembled matrix plus
 *     optional matrix-free terms (an external stiffness a penalty contact model supplies
 *     only as an operator);
 *   - a sparse Cholesky factorisation by SuiteSparse's CHOLMOD (supernodal, fill-reducing
 *     ordering computed once for the mesh's fixed pattern), factorised once per matrix and
 *     then solved for any number of right-hand sides: the exact compliance's contact
 *     columns (Saupin 2008 eq. 21) and the columns of the rest compliance C0. */
#pragma once

#include "block_matrix.h"

G_BEGIN_DECLS

/* y += apply(data, x): a term of the operator CG solves with. */
typedef struct LinearTerm {
  void (*apply) (void *data, const double *x, double *y);
  void *data;
  double scale;   /* the term contributes scale * apply(x) */
} LinearTerm;

typedef struct CgResult {
  int iterations;
  double residual;   /* |b - A x| / |b| at the end (0 for b = 0) */
  gboolean converged;
} CgResult;

/* x = A^-1 b by preconditioned CG, where A = m + sum of the terms, with the rows and
 * columns of fixed nodes projected out (x is zero on them). x holds the initial guess.
 * Stops at |r| <= tolerance |b| or after max_iterations. */
void block_cg_solve (const BlockMatrix *m, const LinearTerm *terms, size_t n_terms,
                   const gboolean *fixed, const double *b, double *x, int max_iterations,
                   double tolerance, CgResult *result);

/* The same system by preconditioned BiCGSTAB (van der Vorst 1992), for an operator that is
 * not symmetric (an external stiffness from a contact model's one-body derivatives), where
 * CG stagnates or diverges. x holds the initial guess. */
void block_bicgstab_solve (const BlockMatrix *m, const LinearTerm *terms, size_t n_terms,
                         const gboolean *fixed, const double *b, double *x,
                         int max_iterations, double tolerance, CgResult *result);

typedef struct BlockCholesky BlockCholesky;

/* The symbolic analysis of m's pattern (values are not read). */
BlockCholesky *block_cholesky_new (const BlockMatrix *m);
void block_cholesky_free (BlockCholesky *ch);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BlockCholesky, block_cholesky_free)

/* The numeric factorisation of m's current values. FALSE (with a message) when m is not
 * positive definite. */
gboolean block_cholesky_factor (BlockCholesky *ch, const BlockMatrix *m, GError **error);

/* x = A^-1 b for n_rhs right-hand sides stored column after column (3n rows each). */
void block_cholesky_solve (BlockCholesky *ch, const double *b, double *x, size_t n_rhs);

G_END_DECLS

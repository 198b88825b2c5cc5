/* The whole inverse of the FEM body's step matrix, dense, by LAPACK: the straightforward exact
 * compliance, against which Saupin 2008 Table 2 measures warping. It costs O(n^3) per
 * configuration and n^2 doubles, where the sparse Cholesky (linear_solve.h) costs a
 * factorisation with the mesh's fill and a pair of triangular solves per contact column;
 * the `exact_compliance: dense` parameter selects it to reproduce the paper's comparison. */
#pragma once

#include "block_matrix.h"

G_BEGIN_DECLS

typedef struct DenseInverse DenseInverse;

/* For matrices of m's size; NULL with a message when n^2 doubles exceed max_bytes. */
DenseInverse *dense_inverse_new (const BlockMatrix *m, double max_bytes, GError **error);
void dense_inverse_free (DenseInverse *inv);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DenseInverse, dense_inverse_free)

/* A^-1 for m's current values, by Cholesky (dpotrf) and its inverse (dpotri). FALSE with a
 * message when m is not positive definite. */
gboolean dense_inverse_compute (DenseInverse *inv, const BlockMatrix *m, GError **error);

/* x = A^-1 b (3n each). */
void dense_inverse_apply (const DenseInverse *inv, const double *b, double *x);

G_END_DECLS

/* The dense inverse of the step matrix (dense_inverse.h). */
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "dense_inverse.h"

#define FEM_ERROR (g_quark_from_string ("fem"))

struct DenseInverse {
  size_t n;      /* the matrix is n x n (3 per node) */
  double *a;     /* column-major; after compute, A^-1 in the lower triangle */
};

DenseInverse *
dense_inverse_new (const BlockMatrix *m, double max_bytes, GError **error)
{
  size_t n = 3 * m->n;
  double bytes = (double) n * n * sizeof (double);
  if (bytes > max_bytes)
    {
      g_set_error (error, FEM_ERROR, 0, "a dense inverse of %zu unknowns would take %.0f MiB "
                   "(at most %.0f MiB)", n, bytes / (1 << 20), max_bytes / (1 << 20));
      return NULL;
    }
  DenseInverse *inv = g_new0 (DenseInverse, 1);
  inv->n = n;
  inv->a = g_try_new (double, n * n);
  if (inv->a == NULL)
    {
      g_set_error (error, FEM_ERROR, 0, "out of memory for a dense inverse of %zu unknowns",
                   n);
      g_free (inv);
      return NULL;
    }
  return inv;
}

void
dense_inverse_free (DenseInverse *inv)
{
  if (inv == NULL)
    return;
  g_free (inv->a);
  g_free (inv);
}

gboolean
dense_inverse_compute (DenseInverse *inv, const BlockMatrix *m, GError **error)
{
  size_t n = inv->n;
  memset (inv->a, 0, n * n * sizeof (double));
  /* Only the lower triangle is read by LAPACK: scatter the blocks at or below the diagonal. */
  for (size_t row = 0; row < m->n; row++)
    for (size_t b = m->row_start[row]; b < m->row_start[row + 1]; b++)
      {
        size_t col = m->cols[b];
        if (col > row)
          continue;
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++)
            inv->a[(3 * col + j) * n + 3 * row + i] = m->values[9 * b + 3 * i + j];
      }
  lapack_int info = LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', (lapack_int) n, inv->a,
                                    (lapack_int) n);
  if (info == 0)
    info = LAPACKE_dpotri (LAPACK_COL_MAJOR, 'L', (lapack_int) n, inv->a, (lapack_int) n);
  if (info != 0)
    {
      g_set_error (error, FEM_ERROR, 0, "the step matrix is not positive definite (LAPACK "
                   "info %d)", (int) info);
      return FALSE;
    }
  return TRUE;
}

void
dense_inverse_apply (const DenseInverse *inv, const double *b, double *x)
{
  int n = (int) inv->n;
  cblas_dsymv (CblasColMajor, CblasLower, n, 1.0, inv->a, n, b, 1, 0.0, x, 1);
}

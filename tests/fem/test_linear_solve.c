/* The block-sparse solvers (plugins/common/block-system/linear_solve.c) on a system that is
 * not symmetric, as a contact model's stiffness makes it (its one-body derivatives
 * g grad rho^T): an assembled symmetric positive definite matrix plus an external term with
 * a skew part and a rank-one part. CG, which assumes symmetry, stops short of the tolerance;
 * BiCGSTAB reaches it, and its solution is the dense LU solve's. */
#include <math.h>

#include <lapacke.h>

#include "linear_solve.h"

#define N_NODES 8
#define N 24

/* A skew coupling of strength `skew` between consecutive coordinates and a rank-one part
 * u v^T (u, v fixed pseudo-random vectors): y += apply (x). */
typedef struct External {
  double skew;
  double u[N], v[N];
} External;

static void
external_apply (void *data, const double *x, double *y)
{
  const External *e = data;
  double vx = 0;
  for (int k = 0; k < N; k++)
    vx += e->v[k] * x[k];
  for (int k = 0; k < N; k++)
    {
      if (k + 1 < N)
        y[k] += e->skew * x[k + 1];
      if (k > 0)
        y[k] -= e->skew * x[k - 1];
      y[k] += e->u[k] * vx;
    }
}

/* A deterministic sequence in [-1, 1]. */
static double
sequence (unsigned *state)
{
  *state = *state * 1103515245u + 12345u;
  return ((*state >> 8) & 0xffff) / 32767.5 - 1;
}

static void
test_nonsymmetric (void)
{
  /* Two cubes' worth of tetrahedra over 8 nodes: every node shares one with several. */
  static const uint32_t tets[][4] = {
    { 0, 1, 2, 4 }, { 1, 2, 3, 7 }, { 1, 4, 5, 7 }, { 2, 4, 6, 7 }, { 1, 2, 4, 7 },
  };
  BlockElements set = { &tets[0][0], 4, G_N_ELEMENTS (tets) };
  g_autoptr (BlockMatrix) m = block_matrix_new (N_NODES, &set, 1);
  unsigned state = 7;
  for (size_t t = 0; t < G_N_ELEMENTS (tets); t++)
    {
      /* G^T G: symmetric positive semi-definite. */
      double g[12][12], k[12][12];
      for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
          g[i][j] = sequence (&state);
      for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
          {
            k[i][j] = 0;
            for (int l = 0; l < 12; l++)
              k[i][j] += g[l][i] * g[l][j];
          }
      block_matrix_add_element (m, 0, t, &k[0][0], 1.0);
    }
  double mass[N_NODES];
  for (int i = 0; i < N_NODES; i++)
    mass[i] = 2.0;
  block_matrix_add_diagonal (m, mass, 1.0);

  External external = { .skew = 6.0 };
  for (int k = 0; k < N; k++)
    {
      external.u[k] = sequence (&state);
      external.v[k] = sequence (&state);
    }
  LinearTerm term = { external_apply, &external, 1.0 };
  double b[N];
  for (int k = 0; k < N; k++)
    b[k] = sequence (&state);

  /* The dense matrix, column by column, and its LU solve. */
  double a[N * N], e[N], column[N], dense[N];
  for (int j = 0; j < N; j++)
    {
      memset (e, 0, sizeof e);
      e[j] = 1;
      block_matrix_apply (m, e, column);
      external_apply (&external, e, column);
      for (int i = 0; i < N; i++)
        a[i * N + j] = column[i];
    }
  lapack_int pivots[N];
  memcpy (dense, b, sizeof dense);
  g_assert_cmpint (LAPACKE_dgesv (LAPACK_ROW_MAJOR, N, 1, a, N, pivots, dense, 1), ==, 0);

  const double tolerance = 1e-10;
  double x[N] = { 0 };
  CgResult cg;
  block_cg_solve (m, &term, 1, NULL, b, x, 200, tolerance, &cg);
  g_test_message ("CG: %d iterations, relative residual %.3g", cg.iterations, cg.residual);
  g_assert_false (cg.converged);

  memset (x, 0, sizeof x);
  CgResult bicgstab;
  block_bicgstab_solve (m, &term, 1, NULL, b, x, 200, tolerance, &bicgstab);
  double error = 0, size = 0;
  for (int k = 0; k < N; k++)
    {
      error = MAX (error, fabs (x[k] - dense[k]));
      size = MAX (size, fabs (dense[k]));
    }
  g_test_message ("BiCGSTAB: %d iterations, relative residual %.3g; against LU %.3g of %.3g",
                  bicgstab.iterations, bicgstab.residual, error, size);
  g_assert_true (bicgstab.converged);
  /* A residual of 1e-10 of b leaves an error of at most the condition number times that;
   * bound 1e-7 of the solution's size (the condition number of this matrix is below 1e3). */
  g_assert_cmpfloat (error, <, 1e-7 * size);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fem/linear-solve/nonsymmetric", test_nonsymmetric);
  return g_test_run ();
}

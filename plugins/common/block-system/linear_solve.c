/* Conjugate gradients and the CHOLMOD factorisation (linear_solve.h). */
#include <math.h>
#include <string.h>

#include <lapacke.h>
#include <suitesparse/cholmod.h>

#include "linear_solve.h"

#define BLOCK_SYSTEM_ERROR (g_quark_from_string ("block-system"))

/* ---- conjugate gradients ---------------------------------------------------------------- */

static void
operator_apply (const BlockMatrix *m, const LinearTerm *terms, size_t n_terms,
                const gboolean *fixed, const double *x, double *y, double *scratch)
{
  size_t n = 3 * m->n;
  block_matrix_apply (m, x, y);
  for (size_t t = 0; t < n_terms; t++)
    {
      memset (scratch, 0, n * sizeof (double));
      terms[t].apply (terms[t].data, x, scratch);
      for (size_t k = 0; k < n; k++)
        y[k] += terms[t].scale * scratch[k];
    }
  for (size_t i = 0; i < m->n; i++)
    if (fixed != NULL && fixed[i])
      y[3 * i] = y[3 * i + 1] = y[3 * i + 2] = 0;
}

/* The inverses of the diagonal blocks (block Jacobi), by LAPACK's Cholesky per block; a
 * block that is not positive definite (an external stiffness can make one so) falls back to
 * the inverse of its diagonal. */
static void
block_jacobi (const BlockMatrix *m, double *inverse)
{
  for (size_t i = 0; i < m->n; i++)
    {
      double *p = &inverse[9 * i];
      memcpy (p, &m->values[9 * m->diagonal[i]], 9 * sizeof (double));
      if (LAPACKE_dpotrf (LAPACK_ROW_MAJOR, 'L', 3, p, 3) != 0
          || LAPACKE_dpotri (LAPACK_ROW_MAJOR, 'L', 3, p, 3) != 0)
        {
          const double *d = &m->values[9 * m->diagonal[i]];
          memset (p, 0, 9 * sizeof (double));
          for (int a = 0; a < 3; a++)
            p[4 * a] = d[4 * a] != 0 ? 1 / d[4 * a] : 1;
          continue;
        }
      p[1] = p[3];   /* dpotri fills the lower triangle only */
      p[2] = p[6];
      p[5] = p[7];
    }
}

static double
dot (const double *a, const double *b, size_t n)
{
  double s = 0;
  for (size_t k = 0; k < n; k++)
    s += a[k] * b[k];
  return s;
}

/* Records iteration `it`'s relative residual |r| / |b| in `result`; TRUE once it is within
 * `tolerance`. */
static gboolean
residual_reached (const double *r, size_t n, double b_norm, double tolerance, int it,
                  CgResult *result)
{
  double r_norm = sqrt (dot (r, r, n));
  result->iterations = it;
  result->residual = r_norm / b_norm;
  return r_norm <= tolerance * b_norm;
}

/* The start shared by the iterative solves: x zeroed on the fixed nodes, r = b - A x (zero
 * on them) and |b| over the free nodes, returned; with b = 0, x = 0 and the solve is done. */
static double
solve_start (const BlockMatrix *m, const LinearTerm *terms, size_t n_terms,
             const gboolean *fixed, const double *b, double *x, double *r, double *scratch,
             CgResult *result)
{
  size_t n = 3 * m->n;
  for (size_t i = 0; i < m->n; i++)
    if (fixed != NULL && fixed[i])
      x[3 * i] = x[3 * i + 1] = x[3 * i + 2] = 0;
  double b_norm = 0;
  for (size_t i = 0; i < m->n; i++)
    if (fixed == NULL || !fixed[i])
      b_norm += b[3 * i] * b[3 * i] + b[3 * i + 1] * b[3 * i + 1] + b[3 * i + 2] * b[3 * i + 2];
  b_norm = sqrt (b_norm);
  *result = (CgResult) { 0, 0, TRUE };
  if (b_norm == 0)
    {
      memset (x, 0, n * sizeof (double));
      return 0;
    }
  operator_apply (m, terms, n_terms, fixed, x, r, scratch);
  for (size_t k = 0; k < n; k++)
    r[k] = b[k] - r[k];
  for (size_t i = 0; i < m->n; i++)
    if (fixed != NULL && fixed[i])
      r[3 * i] = r[3 * i + 1] = r[3 * i + 2] = 0;
  return b_norm;
}

/* z = the block-Jacobi preconditioner applied to r. */
static void
precondition (const double *jacobi, size_t n_nodes, const double *r, double *z)
{
  for (size_t i = 0; i < n_nodes; i++)
    {
      const double *d = &jacobi[9 * i];
      const double *ri = &r[3 * i];
      for (int a = 0; a < 3; a++)
        z[3 * i + a] = d[3 * a] * ri[0] + d[3 * a + 1] * ri[1] + d[3 * a + 2] * ri[2];
    }
}

void
block_cg_solve (const BlockMatrix *m, const LinearTerm *terms, size_t n_terms,
              const gboolean *fixed, const double *b, double *x, int max_iterations,
              double tolerance, CgResult *result)
{
  size_t n = 3 * m->n;
  g_autofree double *r = g_new (double, n), *z = g_new (double, n), *p = g_new (double, n),
                    *ap = g_new (double, n), *scratch = g_new (double, n),
                    *jacobi = g_new (double, 9 * MAX (m->n, 1));
  block_jacobi (m, jacobi);
  double b_norm = solve_start (m, terms, n_terms, fixed, b, x, r, scratch, result);
  if (b_norm == 0)
    return;

  double rz = 0;
  for (int it = 0;; it++)
    {
      if (residual_reached (r, n, b_norm, tolerance, it, result))
        return;
      if (it == max_iterations)
        {
          result->converged = FALSE;
          return;
        }
      precondition (jacobi, m->n, r, z);
      double rz_new = dot (r, z, n);
      if (it == 0)
        memcpy (p, z, n * sizeof (double));
      else
        for (size_t k = 0; k < n; k++)
          p[k] = z[k] + (rz_new / rz) * p[k];
      rz = rz_new;
      operator_apply (m, terms, n_terms, fixed, p, ap, scratch);
      double pap = dot (p, ap, n);
      if (!(pap > 0))
        {
          /* Not positive definite along p (an unstable external stiffness): stop with what
           * there is rather than divide by zero; the caller sees converged = FALSE. */
          result->converged = FALSE;
          return;
        }
      double alpha = rz / pap;
      for (size_t k = 0; k < n; k++)
        {
          x[k] += alpha * p[k];
          r[k] -= alpha * ap[k];
        }
    }
}

void
block_bicgstab_solve (const BlockMatrix *m, const LinearTerm *terms, size_t n_terms,
                    const gboolean *fixed, const double *b, double *x, int max_iterations,
                    double tolerance, CgResult *result)
{
  size_t n = 3 * m->n;
  g_autofree double *r = g_new (double, n), *shadow = g_new (double, n);
  g_autofree double *p = g_new0 (double, n), *v = g_new0 (double, n), *y = g_new (double, n);
  g_autofree double *s = g_new (double, n), *z = g_new (double, n), *t = g_new (double, n);
  g_autofree double *scratch = g_new (double, n), *jacobi = g_new (double, 9 * MAX (m->n, 1));
  block_jacobi (m, jacobi);
  double b_norm = solve_start (m, terms, n_terms, fixed, b, x, r, scratch, result);
  if (b_norm == 0)
    return;
  memcpy (shadow, r, n * sizeof (double));
  double rho = 1, alpha = 1, omega = 1;
  for (int it = 0;; it++)
    {
      if (residual_reached (r, n, b_norm, tolerance, it, result))
        return;
      double rho_next = dot (shadow, r, n);
      if (it == max_iterations || rho_next == 0 || omega == 0)
        {
          result->converged = FALSE;
          return;
        }
      double beta = (rho_next / rho) * (alpha / omega);
      rho = rho_next;
      for (size_t k = 0; k < n; k++)
        p[k] = r[k] + beta * (p[k] - omega * v[k]);
      precondition (jacobi, m->n, p, y);
      operator_apply (m, terms, n_terms, fixed, y, v, scratch);
      double along = dot (shadow, v, n);
      if (along == 0)
        {
          result->converged = FALSE;
          return;
        }
      alpha = rho / along;
      for (size_t k = 0; k < n; k++)
        {
          x[k] += alpha * y[k];
          s[k] = r[k] - alpha * v[k];
        }
      precondition (jacobi, m->n, s, z);
      operator_apply (m, terms, n_terms, fixed, z, t, scratch);
      double tt = dot (t, t, n);
      omega = tt > 0 ? dot (t, s, n) / tt : 0;
      for (size_t k = 0; k < n; k++)
        {
          x[k] += omega * z[k];
          r[k] = s[k] - omega * t[k];
        }
    }
}

/* ---- CHOLMOD ---------------------------------------------------------------------------- */

struct BlockCholesky {
  cholmod_common common;
  cholmod_sparse *a;        /* the upper triangle, compressed columns (stype 1) */
  size_t *value_map;        /* a's nonzeros: their index in BlockMatrix.values */
  cholmod_factor *factor;
  cholmod_dense *x, *y, *e; /* cholmod_solve2's reused workspace */
};

BlockCholesky *
block_cholesky_new (const BlockMatrix *m)
{
  BlockCholesky *ch = g_new0 (BlockCholesky, 1);
  cholmod_start (&ch->common);
  /* The simplicial factorisation: for the FEM grids here (up to some 10^4 unknowns) it is
   * faster than the supernodal one, whose OpenMP regions and BLAS calls per supernode cost
   * more in thread wake-ups than they save (measured: docs/benchmarks.md). */
  ch->common.supernodal = CHOLMOD_SIMPLICIAL;
  size_t n = 3 * m->n;
  /* Column j of the symmetric matrix is its row j: the entries (3 J + c) <= j of block row
   * j / 3, in increasing order since the block columns are sorted. */
  size_t nnz = 0;
  for (size_t i = 0; i < m->n; i++)
    for (size_t k = m->row_start[i]; k < m->row_start[i + 1]; k++)
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
          nnz += 3 * m->cols[k] + c <= 3 * i + r;
  ch->a = cholmod_allocate_sparse (n, n, nnz, TRUE, TRUE, 1, CHOLMOD_REAL, &ch->common);
  ch->value_map = g_new (size_t, MAX (nnz, 1));
  int *cp = ch->a->p, *ci = ch->a->i;
  size_t out = 0;
  for (size_t i = 0; i < m->n; i++)
    for (int r = 0; r < 3; r++)
      {
        size_t j = 3 * i + r;
        cp[j] = (int) out;
        for (size_t k = m->row_start[i]; k < m->row_start[i + 1]; k++)
          for (int c = 0; c < 3; c++)
            if (3 * m->cols[k] + c <= j)
              {
                ci[out] = (int) (3 * m->cols[k] + c);
                ch->value_map[out++] = 9 * k + 3 * r + c;
              }
      }
  cp[n] = (int) out;
  ch->factor = cholmod_analyze (ch->a, &ch->common);
  return ch;
}

void
block_cholesky_free (BlockCholesky *ch)
{
  if (ch == NULL)
    return;
  cholmod_free_dense (&ch->x, &ch->common);
  cholmod_free_dense (&ch->y, &ch->common);
  cholmod_free_dense (&ch->e, &ch->common);
  cholmod_free_factor (&ch->factor, &ch->common);
  cholmod_free_sparse (&ch->a, &ch->common);
  cholmod_finish (&ch->common);
  g_free (ch->value_map);
  g_free (ch);
}

gboolean
block_cholesky_factor (BlockCholesky *ch, const BlockMatrix *m, GError **error)
{
  double *ax = ch->a->x;
  size_t nnz = ((int *) ch->a->p)[ch->a->ncol];
  for (size_t k = 0; k < nnz; k++)
    ax[k] = m->values[ch->value_map[k]];
  cholmod_factorize (ch->a, ch->factor, &ch->common);
  if (ch->common.status != CHOLMOD_OK || ch->factor->minor < ch->factor->n)
    {
      g_set_error (error, BLOCK_SYSTEM_ERROR, 0,
                   "the system matrix is not positive definite (CHOLMOD status %d, column %zu "
                   "of %zu): an inverted element or an unstable parameter",
                   ch->common.status, (size_t) ch->factor->minor, (size_t) ch->factor->n);
      return FALSE;
    }
  return TRUE;
}

void
block_cholesky_solve (BlockCholesky *ch, const double *b, double *x, size_t n_rhs)
{
  size_t n = ch->a->nrow;
  cholmod_dense rhs = {
    .nrow = n, .ncol = n_rhs, .nzmax = n * n_rhs, .d = n,
    .x = (void *) b, .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE,
  };
  cholmod_solve2 (CHOLMOD_A, ch->factor, &rhs, NULL, &ch->x, NULL, &ch->y, &ch->e,
                  &ch->common);
  memcpy (x, ch->x->x, n * n_rhs * sizeof (double));
}

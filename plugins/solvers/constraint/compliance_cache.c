/* Dense compliance of small bodies, taken once per configuration (see the header). */
#include "compliance_cache.h"

#include <lapacke.h>
#include <math.h>

struct ComplianceCache {
  CwbStepContext *ctx;
  const double *q;
  CwbCompliance kind;
  GArray *offset;    /* size_t per body: its matrix in `matrices`, or NO_MATRIX */
  GArray *matrices;  /* double: nv x nv per body taken so far, column by column */
  GArray *pattern_range;   /* SparseRange per body, set with its matrix */
  GArray *pattern;   /* SparseEntry: the nonzero entries of each matrix, column by column
                      * (a rigid body's C: 3 of mass, 9 of inertia, out of 36) */
  GArray *inverse_offset;  /* size_t per body: its C^-1 in `inverses`, NO_MATRIX or
                            * NO_INVERSE */
  GArray *inverses;  /* double: nv x nv per body inverted so far */
  GArray *unit;      /* double: a unit vector of nv values */
  GArray *diagonal_offset;  /* size_t per body: its diagonal C in `diagonals`, NO_MATRIX
                             * (not asked yet) or NO_DIAGONAL (its C is not diagonal) */
  GArray *diagonals; /* double: nv per body whose model declares its C diagonal */
};

/* One nonzero entry of a body's C: row `row`, column `column`. */
typedef struct SparseEntry {
  uint32_t row, column;
  double value;
} SparseEntry;

/* A body's run of `pattern`. */
typedef struct SparseRange {
  size_t first, n;
} SparseRange;

#define NO_MATRIX SIZE_MAX
#define NO_INVERSE (SIZE_MAX - 1)
#define NO_DIAGONAL (SIZE_MAX - 1)
/* C's symmetry is checked to this part of its largest entry: a body model's compliance is
 * symmetric up to rounding, and one that is not (a gyroscopic or damping term) has no
 * inverse here. */
#define SYMMETRY_TOLERANCE 1e-9

ComplianceCache *
compliance_cache_new (void)
{
  ComplianceCache *cache = g_new0 (ComplianceCache, 1);
  cache->offset = g_array_new (FALSE, FALSE, sizeof (size_t));
  cache->matrices = g_array_new (FALSE, FALSE, sizeof (double));
  cache->pattern_range = g_array_new (FALSE, FALSE, sizeof (SparseRange));
  cache->pattern = g_array_new (FALSE, FALSE, sizeof (SparseEntry));
  cache->inverse_offset = g_array_new (FALSE, FALSE, sizeof (size_t));
  cache->inverses = g_array_new (FALSE, FALSE, sizeof (double));
  cache->unit = g_array_new (FALSE, TRUE, sizeof (double));
  cache->diagonal_offset = g_array_new (FALSE, FALSE, sizeof (size_t));
  cache->diagonals = g_array_new (FALSE, FALSE, sizeof (double));
  return cache;
}

void
compliance_cache_free (ComplianceCache *cache)
{
  if (cache == NULL)
    return;
  g_array_unref (cache->offset);
  g_array_unref (cache->matrices);
  g_array_unref (cache->pattern_range);
  g_array_unref (cache->pattern);
  g_array_unref (cache->inverse_offset);
  g_array_unref (cache->inverses);
  g_array_unref (cache->unit);
  g_array_unref (cache->diagonal_offset);
  g_array_unref (cache->diagonals);
  g_free (cache);
}

void
compliance_cache_begin (ComplianceCache *cache, CwbStepContext *ctx, const double *q,
                        CwbCompliance kind)
{
  cache->ctx = ctx;
  cache->q = q;
  cache->kind = kind;
  g_array_set_size (cache->offset, (guint) MAX (ctx->n_bodies, 1));
  size_t *offset = (size_t *) cache->offset->data;
  for (size_t b = 0; b < ctx->n_bodies; b++)
    offset[b] = NO_MATRIX;
  g_array_set_size (cache->matrices, 0);
  g_array_set_size (cache->pattern_range, (guint) MAX (ctx->n_bodies, 1));
  g_array_set_size (cache->pattern, 0);
  g_array_set_size (cache->inverse_offset, (guint) MAX (ctx->n_bodies, 1));
  size_t *inverse_offset = (size_t *) cache->inverse_offset->data;
  for (size_t b = 0; b < ctx->n_bodies; b++)
    inverse_offset[b] = NO_MATRIX;
  g_array_set_size (cache->inverses, 0);
  g_array_set_size (cache->diagonal_offset, (guint) MAX (ctx->n_bodies, 1));
  size_t *diagonal_offset = (size_t *) cache->diagonal_offset->data;
  for (size_t b = 0; b < ctx->n_bodies; b++)
    diagonal_offset[b] = NO_MATRIX;
  g_array_set_size (cache->diagonals, 0);
}

const double *
compliance_cache_diagonal (ComplianceCache *cache, uint32_t body)
{
  CwbStepContext *ctx = cache->ctx;
  const CwbBodySlot *slot = &ctx->bodies[body];
  size_t *offset = &g_array_index (cache->diagonal_offset, size_t, body);
  if (*offset == NO_MATRIX)
    {
      *offset = NO_DIAGONAL;
      if (slot->nv > COMPLIANCE_CACHE_MAX_DOFS
          && CWB_STRUCT_HAS (ctx, CwbStepContext, compliance_diagonal)
          && ctx->compliance_diagonal != NULL)
        {
          size_t at = cache->diagonals->len;
          g_array_set_size (cache->diagonals, (guint) (at + slot->nv));
          if (ctx->compliance_diagonal (ctx, body, cache->q + slot->q_offset, cache->kind,
                                        &g_array_index (cache->diagonals, double, at)))
            *offset = at;
          else
            g_array_set_size (cache->diagonals, (guint) at);
        }
    }
  return *offset == NO_DIAGONAL ? NULL : &g_array_index (cache->diagonals, double, *offset);
}

/* The body's dense C, taken on first use: column d is C e_d. */
static const double *
dense_matrix (ComplianceCache *cache, uint32_t body, const CwbBodySlot *slot)
{
  size_t *offset = &g_array_index (cache->offset, size_t, body);
  if (*offset == NO_MATRIX)
    {
      size_t nv = slot->nv;
      *offset = cache->matrices->len;
      g_array_set_size (cache->matrices, cache->matrices->len + (guint) (nv * nv));
      g_array_set_size (cache->unit, (guint) nv);
      double *unit = (double *) cache->unit->data;
      memset (unit, 0, nv * sizeof (double));
      for (size_t d = 0; d < nv; d++)
        {
          unit[d] = 1;
          double *column = &g_array_index (cache->matrices, double, *offset + d * nv);
          cache->ctx->compliance_apply (cache->ctx, body, cache->q + slot->q_offset,
                                        cache->kind, unit, column);
          unit[d] = 0;
        }
      const double *c = &g_array_index (cache->matrices, double, *offset);
      SparseRange *range = &g_array_index (cache->pattern_range, SparseRange, body);
      range->first = cache->pattern->len;
      for (size_t d = 0; d < nv; d++)
        for (size_t i = 0; i < nv; i++)
          if (c[d * nv + i] != 0)
            {
              SparseEntry e = { (uint32_t) i, (uint32_t) d, c[d * nv + i] };
              g_array_append_val (cache->pattern, e);
            }
      range->n = cache->pattern->len - range->first;
    }
  return &g_array_index (cache->matrices, double, *offset);
}

void
compliance_cache_apply (ComplianceCache *cache, uint32_t body, const double *r, double *dq)
{
  const CwbBodySlot *slot = &cache->ctx->bodies[body];
  size_t nv = slot->nv;
  const double *diagonal = compliance_cache_diagonal (cache, body);
  if (diagonal != NULL)
    {
      for (size_t d = 0; d < nv; d++)
        dq[d] = diagonal[d] * r[d];
      return;
    }
  if (nv > COMPLIANCE_CACHE_MAX_DOFS)
    {
      cache->ctx->compliance_apply (cache->ctx, body, cache->q + slot->q_offset, cache->kind, r,
                                    dq);
      return;
    }
  dense_matrix (cache, body, slot);
  const SparseRange *range = &g_array_index (cache->pattern_range, SparseRange, body);
  const SparseEntry *e = &g_array_index (cache->pattern, SparseEntry, range->first);
  for (size_t i = 0; i < nv; i++)
    dq[i] = 0;
  for (size_t k = 0; k < range->n; k++)
    dq[e[k].row] += e[k].value * r[e[k].column];
}

/* The inverse of the symmetric positive definite a (n x n, column-major) in place; FALSE when
 * it is not symmetric or not positive definite. */
static gboolean
invert_spd (double *a, size_t n)
{
  double largest = 0;
  for (size_t k = 0; k < n * n; k++)
    largest = fmax (largest, fabs (a[k]));
  for (size_t c = 0; c < n; c++)
    for (size_t r = 0; r < c; r++)
      if (fabs (a[c * n + r] - a[r * n + c]) > SYMMETRY_TOLERANCE * largest)
        return FALSE;
  lapack_int ln = (lapack_int) n;
  if (largest == 0 || LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'L', ln, a, ln) != 0
      || LAPACKE_dpotri (LAPACK_COL_MAJOR, 'L', ln, a, ln) != 0)
    return FALSE;
  for (size_t c = 0; c < n; c++)
    for (size_t r = 0; r < c; r++)
      a[c * n + r] = a[r * n + c];
  return TRUE;
}

const double *
compliance_cache_stiffness (ComplianceCache *cache, uint32_t body)
{
  const CwbBodySlot *slot = &cache->ctx->bodies[body];
  size_t nv = slot->nv;
  size_t *offset = &g_array_index (cache->inverse_offset, size_t, body);
  if (*offset == NO_MATRIX)
    {
      *offset = NO_INVERSE;
      if (nv > 0 && nv <= COMPLIANCE_CACHE_MAX_DOFS && !slot->fixed)
        {
          const double *c = dense_matrix (cache, body, slot);
          guint at = cache->inverses->len;
          g_array_set_size (cache->inverses, at + (guint) (nv * nv));
          double *inverse = &g_array_index (cache->inverses, double, at);
          memcpy (inverse, c, nv * nv * sizeof (double));
          if (invert_spd (inverse, nv))
            *offset = at;
          else
            g_array_set_size (cache->inverses, at);
        }
    }
  return *offset == NO_INVERSE ? NULL : &g_array_index (cache->inverses, double, *offset);
}

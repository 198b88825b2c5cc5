/* The direct solve of an island's active rows in the bodies' space (see the header). */
#include "island_direct.h"

#include <suitesparse/cholmod.h>

#define NO_BODY UINT32_MAX

/* A block (a, b), a <= b in the island's body numbering, of K = epsilon C^-1 + H_A^T H_A:
 * nv_a x nv_b values, column-major, from `offset` in the value pool. */
typedef struct KBlock {
  uint32_t a, b;
  size_t offset;
} KBlock;

/* One body's run of a row's entries in H. */
typedef struct RowRun {
  uint32_t local;
  size_t first, end;
} RowRun;

struct IslandDirect {
  cholmod_common common;
  GArray *local_of;     /* uint32_t per body number: its island number, NO_BODY for none */
  GArray *bodies;       /* uint32_t: the island's body numbers, in island order */
  GArray *dof_start;    /* size_t per island body, + 1: its first unknown */
  GArray *blocks;       /* KBlock */
  GHashTable *block_of; /* (a << 32 | b) -> index in blocks + 1 */
  GArray *values;       /* double: the blocks' values */
  GArray *rhs;          /* double per unknown */
  /* The last factorisation's pattern (its triplets' rows and columns) and symbolic
   * analysis, reused while the pattern stays: a resting stack keeps its contacts. */
  GArray *pattern;      /* int: rows then columns of the last triplets */
  size_t pattern_n;
  cholmod_factor *factor;
};

IslandDirect *
island_direct_new (void)
{
  IslandDirect *d = g_new0 (IslandDirect, 1);
  cholmod_start (&d->common);
  d->common.print = 0;
  d->common.supernodal = CHOLMOD_SIMPLICIAL;
  d->local_of = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  d->bodies = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  d->dof_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  d->blocks = g_array_new (FALSE, FALSE, sizeof (KBlock));
  d->block_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  d->values = g_array_new (FALSE, FALSE, sizeof (double));
  d->rhs = g_array_new (FALSE, FALSE, sizeof (double));
  d->pattern = g_array_new (FALSE, FALSE, sizeof (int));
  return d;
}

void
island_direct_free (IslandDirect *d)
{
  if (d == NULL)
    return;
  cholmod_free_factor (&d->factor, &d->common);
  cholmod_finish (&d->common);
  g_array_unref (d->pattern);
  g_array_unref (d->local_of);
  g_array_unref (d->bodies);
  g_array_unref (d->dof_start);
  g_array_unref (d->blocks);
  g_hash_table_unref (d->block_of);
  g_array_unref (d->values);
  g_array_unref (d->rhs);
  g_free (d);
}

/* Numbers the bodies of the active rows; FALSE when one has no dense C^-1. */
static gboolean
number_bodies (IslandDirect *d, const DirectProblem *p)
{
  g_array_set_size (d->bodies, 0);
  g_array_set_size (d->dof_start, 0);
  size_t zero = 0;
  g_array_append_val (d->dof_start, zero);
  for (size_t k = 0; k < p->n_active; k++)
    {
      size_t i = p->rows[k];
      for (size_t e = p->h->row_start[i]; e < p->h->row_start[i + 1]; e++)
        {
          uint32_t body = p->h->entries[e].body;
          if (body >= d->local_of->len)
            {
              guint old = d->local_of->len;
              g_array_set_size (d->local_of, body + 1);
              for (guint b = old; b <= body; b++)
                g_array_index (d->local_of, uint32_t, b) = NO_BODY;
            }
          uint32_t *local = &g_array_index (d->local_of, uint32_t, body);
          if (*local != NO_BODY)
            continue;
          if (p->stiffness (p->stiffness_data, body) == NULL)
            return FALSE;
          *local = d->bodies->len;
          g_array_append_val (d->bodies, body);
          size_t next = g_array_index (d->dof_start, size_t, d->dof_start->len - 1)
                        + p->bodies[body].nv;
          g_array_append_val (d->dof_start, next);
        }
    }
  return TRUE;
}

static void
forget_bodies (IslandDirect *d)
{
  for (guint k = 0; k < d->bodies->len; k++)
    g_array_index (d->local_of, uint32_t, g_array_index (d->bodies, uint32_t, k)) = NO_BODY;
}

/* The values of block (a, b), a <= b, created zero on first use. */
static double *
block_values (IslandDirect *d, const DirectProblem *p, uint32_t a, uint32_t b)
{
  gint64 key = (gint64) (((guint64) a << 32) | b);
  gpointer found = g_hash_table_lookup (d->block_of, &key);
  if (found != NULL)
    {
      const KBlock *block = &g_array_index (d->blocks, KBlock, GPOINTER_TO_SIZE (found) - 1);
      return &g_array_index (d->values, double, block->offset);
    }
  size_t na = p->bodies[g_array_index (d->bodies, uint32_t, a)].nv;
  size_t nb = p->bodies[g_array_index (d->bodies, uint32_t, b)].nv;
  KBlock block = { a, b, d->values->len };
  g_array_append_val (d->blocks, block);
  /* The key lives in the hash table as its own allocation: blocks grows and moves. */
  gint64 *stored = g_new (gint64, 1);
  *stored = key;
  g_hash_table_insert (d->block_of, stored, GSIZE_TO_POINTER ((gsize) d->blocks->len));
  guint at = d->values->len;
  g_array_set_size (d->values, at + (guint) (na * nb));
  double *v = &g_array_index (d->values, double, at);
  memset (v, 0, na * nb * sizeof (double));
  return v;
}

/* A row's runs of entries, one per body (H's entries are sorted by body, then DOF); returns
 * how many, or cap + 1 when the row touches more bodies than that. */
static size_t
row_runs (const IslandDirect *d, const DirectProblem *p, size_t i, RowRun *runs, size_t cap)
{
  size_t n = 0;
  size_t e = p->h->row_start[i], end = p->h->row_start[i + 1];
  while (e < end)
    {
      if (n == cap)
        return cap + 1;
      uint32_t body = p->h->entries[e].body;
      RowRun run = { g_array_index (d->local_of, uint32_t, body), e, e };
      while (e < end && p->h->entries[e].body == body)
        e++;
      run.end = e;
      runs[n++] = run;
    }
  return n;
}

/* Rows touch one or two bodies (a contact's); one on more than this many is left to the
 * sweeps, which take any row. */
#define MAX_ROW_BODIES 8

/* K += h h^T and rhs -= h r for one row h with residual r; FALSE for a row on more than
 * MAX_ROW_BODIES bodies. */
static gboolean
add_row (IslandDirect *d, const DirectProblem *p, size_t i, double r)
{
  RowRun runs[MAX_ROW_BODIES];
  size_t n = row_runs (d, p, i, runs, MAX_ROW_BODIES);
  if (n > MAX_ROW_BODIES)
    return FALSE;
  const CwbDofEntry *entries = p->h->entries;
  const size_t *dof_start = (const size_t *) d->dof_start->data;
  double *rhs = (double *) d->rhs->data;
  for (size_t k = 0; k < n; k++)
    {
      for (size_t e = runs[k].first; e < runs[k].end; e++)
        rhs[dof_start[runs[k].local] + entries[e].dof] -= entries[e].value * r;
      for (size_t l = 0; l < n; l++)
        {
          const RowRun *ra = &runs[k], *rb = &runs[l];
          if (ra->local > rb->local)
            continue;
          size_t na = p->bodies[g_array_index (d->bodies, uint32_t, ra->local)].nv;
          double *block = block_values (d, p, ra->local, rb->local);
          for (size_t eb = rb->first; eb < rb->end; eb++)
            for (size_t ea = ra->first; ea < ra->end; ea++)
              block[entries[eb].dof * na + entries[ea].dof] += entries[ea].value
                                                               * entries[eb].value;
        }
    }
  return TRUE;
}

/* The upper triangle of K as CHOLMOD triplets, epsilon C^-1 added on the diagonal blocks. */
static cholmod_triplet *
assemble (IslandDirect *d, const DirectProblem *p, size_t n)
{
  size_t nnz = 0;
  for (guint k = 0; k < d->blocks->len; k++)
    {
      const KBlock *block = &g_array_index (d->blocks, KBlock, k);
      size_t na = p->bodies[g_array_index (d->bodies, uint32_t, block->a)].nv;
      size_t nb = p->bodies[g_array_index (d->bodies, uint32_t, block->b)].nv;
      nnz += block->a == block->b ? na * (na + 1) / 2 : na * nb;
    }
  cholmod_triplet *t = cholmod_allocate_triplet (n, n, nnz, 1, CHOLMOD_REAL, &d->common);
  if (t == NULL)
    return NULL;
  int *ti = t->i, *tj = t->j;
  double *tx = t->x;
  const size_t *dof_start = (const size_t *) d->dof_start->data;
  size_t out = 0;
  for (guint k = 0; k < d->blocks->len; k++)
    {
      const KBlock *block = &g_array_index (d->blocks, KBlock, k);
      uint32_t body_a = g_array_index (d->bodies, uint32_t, block->a);
      size_t na = p->bodies[body_a].nv;
      size_t nb = p->bodies[g_array_index (d->bodies, uint32_t, block->b)].nv;
      const double *v = &g_array_index (d->values, double, block->offset);
      const double *stiffness = block->a == block->b
                                  ? p->stiffness (p->stiffness_data, body_a) : NULL;
      for (size_t c = 0; c < nb; c++)
        for (size_t r = 0; r < (stiffness != NULL ? c + 1 : na); r++)
          {
            ti[out] = (int) (dof_start[block->a] + r);
            tj[out] = (int) (dof_start[block->b] + c);
            tx[out] = v[c * na + r] + (stiffness != NULL ? p->epsilon * stiffness[c * na + r] : 0);
            out++;
          }
    }
  t->nnz = out;
  return t;
}

/* Whether t's entries sit where the last factorisation's did. */
static gboolean
same_pattern (const IslandDirect *d, const cholmod_triplet *t)
{
  size_t nnz = t->nnz;
  return d->factor != NULL && d->pattern_n == t->nrow && d->pattern->len == 2 * nnz
         && memcmp (d->pattern->data, t->i, nnz * sizeof (int)) == 0
         && memcmp (&g_array_index (d->pattern, int, nnz), t->j, nnz * sizeof (int)) == 0;
}

/* Remembers t's pattern for the next solve (`keep`), or forgets the last one. */
static void
keep_pattern (IslandDirect *d, const cholmod_triplet *t, gboolean keep)
{
  g_array_set_size (d->pattern, 0);
  d->pattern_n = 0;
  if (!keep)
    {
      cholmod_free_factor (&d->factor, &d->common);
      return;
    }
  g_array_append_vals (d->pattern, t->i, (guint) t->nnz);
  g_array_append_vals (d->pattern, t->j, (guint) t->nnz);
  d->pattern_n = t->nrow;
}

gboolean
island_direct_solve (IslandDirect *d, const DirectProblem *p, double *force_out)
{
  if (p->n_active == 0 || !(p->epsilon > 0))
    return FALSE;
  if (!number_bodies (d, p))
    {
      forget_bodies (d);
      return FALSE;
    }
  size_t n = g_array_index (d->dof_start, size_t, d->dof_start->len - 1);
  g_array_set_size (d->blocks, 0);
  g_array_set_size (d->values, 0);
  g_hash_table_remove_all (d->block_of);
  g_array_set_size (d->rhs, (guint) MAX (n, 1));
  memset (d->rhs->data, 0, n * sizeof (double));
  for (size_t k = 0; k < p->n_active; k++)
    if (!add_row (d, p, p->rows[k], p->residual[k]))
      {
        forget_bodies (d);
        return FALSE;
      }
  /* Every body's diagonal block exists: each appears in a row. */

  gboolean ok = FALSE;
  cholmod_triplet *t = assemble (d, p, n);
  cholmod_sparse *a = t != NULL ? cholmod_triplet_to_sparse (t, t->nnz, &d->common) : NULL;
  if (a != NULL && !same_pattern (d, t))
    {
      cholmod_free_factor (&d->factor, &d->common);
      d->factor = cholmod_analyze (a, &d->common);
      keep_pattern (d, t, d->factor != NULL);
    }
  cholmod_factor *factor = a != NULL ? d->factor : NULL;
  cholmod_dense *x = NULL;
  if (factor != NULL && cholmod_factorize (a, factor, &d->common)
      && d->common.status == CHOLMOD_OK && factor->minor == factor->n)
    {
      cholmod_dense b = {
        .nrow = n, .ncol = 1, .nzmax = n, .d = n, .x = d->rhs->data,
        .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE,
      };
      x = cholmod_solve (CHOLMOD_A, factor, &b, &d->common);
    }
  if (x != NULL)
    {
      const double *u = x->x;
      const size_t *dof_start = (const size_t *) d->dof_start->data;
      const CwbDofEntry *entries = p->h->entries;
      for (size_t k = 0; k < p->n_active; k++)
        {
          size_t i = p->rows[k];
          double moved = 0;
          for (size_t e = p->h->row_start[i]; e < p->h->row_start[i + 1]; e++)
            moved += entries[e].value
                     * u[dof_start[g_array_index (d->local_of, uint32_t, entries[e].body)]
                         + entries[e].dof];
          force_out[k] = p->force[k] - (p->residual[k] + moved) / p->epsilon;
        }
      ok = TRUE;
    }
  if (!ok)
    keep_pattern (d, NULL, FALSE);
  cholmod_free_dense (&x, &d->common);
  cholmod_free_sparse (&a, &d->common);
  cholmod_free_triplet (&t, &d->common);
  forget_bodies (d);
  return ok;
}

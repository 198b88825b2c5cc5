/* The direct solve of an island's active rows in the bodies' space (see the header). */
#include "island_direct.h"

#include <math.h>
#include <suitesparse/cholmod.h>

#define NO_BODY UINT32_MAX

/* A new active set on the factored operator modifies the kept factor by rank-one updates
 * (rows that joined) and downdates (rows that left) instead of factoring K again, while their
 * estimated cost is below this share of the factorisation's flops. Cost of a row's update:
 * the entries of L on the path of the elimination tree from its first column to the root
 * (CHOLMOD's Modify module walks it). Measured on the flush 40-row pyramid (release, this
 * machine): 0.9 ns an entry of those paths against 0.63 ns a flop of the factorisation, so
 * the two cost the same at about 0.7; the modification also skips K's assembly, which the
 * rule leaves as margin (docs/plugins/constraint.md, "The factor modified"). */
#define MODIFY_COST_SHARE 0.7
/* The factor is modified while the rows changed since it was computed stay below this share
 * of its rows, and factored afresh past it: a bound on the round-off that the updates and
 * downdates gather (each is backward stable, but K is conditioned as 1 / epsilon). */
#define MODIFY_TURNOVER 1.0
/* A modified factor keeps its epsilon while the problem's stays within this share of it
 * (epsilon follows the active rows' mean W_ii, which moves by hundredths of a percent from a
 * settled stack's step to the next). */
#define MODIFY_EPSILON_SHARE 0.1

/* One body's run of a row's entries in H. */
typedef struct RowRun {
  uint32_t local;
  size_t first, end;
} RowRun;

/* K = epsilon C^-1 + H_A^T H_A is assembled straight into the lower triangle of a CHOLMOD
 * column-form matrix (stype -1: simplicial factorisation of a permuted matrix then takes one
 * transpose where the upper triangle takes two). Its pattern is one of body blocks: column
 * body b holds, from the top, the lower part of its own diagonal block, then the blocks
 * (a, b) of the bodies a > b that share an active row with b, in island order. Past the
 * diagonal part, a column of b's has the same offsets into its blocks whatever its DOF, so
 * block (a, b) sits at nv_b - c + `block_offset` in b's column c. */
struct IslandDirect {
  cholmod_common common;
  GArray *local_of;     /* uint32_t per body number: its island number, NO_BODY for none */
  GArray *bodies;       /* uint32_t: the island's body numbers, in island order */
  GArray *dof_start;    /* size_t per island body, + 1: its first unknown */
  GArray *pair_keys;    /* guint64 (b << 32 | a), b < a: the off-diagonal blocks */
  GArray *block_start;  /* size_t per island body, + 1: its blocks in block_below */
  GArray *block_below;  /* uint32_t: per body b, the bodies a > b of its blocks, ascending */
  GArray *block_offset; /* size_t, beside block_below: the block's first row in b's columns,
                         * past the diagonal part */
  GArray *rhs;          /* double per unknown */
  /* The last factorisation's pattern (its bodies with their DOFs and blocks), matrix and
   * symbolic analysis, reused while the pattern stays: a resting stack keeps its contacts. */
  GArray *kept_bodies;
  GArray *kept_dof_start;
  GArray *kept_block_start;
  GArray *kept_block_below;
  cholmod_sparse *matrix;
  cholmod_factor *factor;
  /* What the factor's numeric values were computed for: K is the same, and its
   * factorisation reused, for the same operator, active rows and epsilon. */
  gboolean factored;
  guint64 factored_operator;
  double factored_epsilon;
  GArray *factored_rows;   /* size_t */
  /* The factorisation's flops (CHOLMOD's estimate at the analysis), the rows changed by the
   * modifications since it was computed, and scratch for them. */
  double factor_flops;
  size_t modified_rows;
  GArray *row_mark;        /* guint8 per row of H */
  GArray *added, *removed; /* size_t: rows that joined and left the factored set */
  GArray *inverse;         /* int per unknown: its place in the factor's permuted order */
  GArray *path_cost;       /* double per permuted unknown: L's entries on its path to the
                            * elimination tree's root, made at the first modification of a
                            * factorisation (the tree is K's pattern's, which stays) */
  gboolean path_cost_made;
  guint64 modifications;
  /* The rows the numbering (local_of, bodies, dof_start) and the block pattern were found
   * from, with their operator: kept from solve to solve while both stay. A kept operator's
   * island lists its rows in another order at each solve (its layers are walked from a drawn
   * block), so the set is compared: each of its rows carries the numbering's stamp. */
  gboolean numbered;
  guint64 numbered_operator;
  size_t n_numbered_rows;
  guint32 stamp;
  GArray *row_stamp;       /* guint32 per row of H */
  /* The numbered rows' entries of H in K's unknowns, each row's together and the rows in
   * the order they were numbered from (the island's, which its active rows keep): the passes
   * over the active rows (the right-hand side, their motion, the modifications' columns)
   * read them in sequence instead of looking each entry's body up. */
  GArray *row_first;       /* guint32 per row of H: its first entry in row_unknown */
  GArray *row_unknown;     /* guint32 per entry: its unknown in K */
  GArray *row_value;       /* double per entry, beside row_unknown */
  guint64 analyses;
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
  d->pair_keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  d->block_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  d->block_below = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  d->block_offset = g_array_new (FALSE, FALSE, sizeof (size_t));
  d->rhs = g_array_new (FALSE, FALSE, sizeof (double));
  d->kept_bodies = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  d->kept_dof_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  d->kept_block_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  d->kept_block_below = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  d->factored_rows = g_array_new (FALSE, FALSE, sizeof (size_t));
  d->row_stamp = g_array_new (FALSE, TRUE, sizeof (guint32));
  d->row_first = g_array_new (FALSE, FALSE, sizeof (guint32));
  d->row_unknown = g_array_new (FALSE, FALSE, sizeof (guint32));
  d->row_value = g_array_new (FALSE, FALSE, sizeof (double));
  d->row_mark = g_array_new (FALSE, TRUE, sizeof (guint8));
  d->added = g_array_new (FALSE, FALSE, sizeof (size_t));
  d->removed = g_array_new (FALSE, FALSE, sizeof (size_t));
  d->inverse = g_array_new (FALSE, FALSE, sizeof (int));
  d->path_cost = g_array_new (FALSE, FALSE, sizeof (double));
  return d;
}

/* Forgets the kept matrix and factorisation. */
static void
forget_pattern (IslandDirect *d)
{
  cholmod_free_factor (&d->factor, &d->common);
  cholmod_free_sparse (&d->matrix, &d->common);
  g_array_set_size (d->kept_bodies, 0);
  d->factored = FALSE;
}

void
island_direct_free (IslandDirect *d)
{
  if (d == NULL)
    return;
  forget_pattern (d);
  cholmod_finish (&d->common);
  g_array_unref (d->local_of);
  g_array_unref (d->bodies);
  g_array_unref (d->dof_start);
  g_array_unref (d->pair_keys);
  g_array_unref (d->block_start);
  g_array_unref (d->block_below);
  g_array_unref (d->block_offset);
  g_array_unref (d->rhs);
  g_array_unref (d->kept_bodies);
  g_array_unref (d->kept_dof_start);
  g_array_unref (d->kept_block_start);
  g_array_unref (d->kept_block_below);
  g_array_unref (d->factored_rows);
  g_array_unref (d->row_stamp);
  g_array_unref (d->row_first);
  g_array_unref (d->row_unknown);
  g_array_unref (d->row_value);
  g_array_unref (d->row_mark);
  g_array_unref (d->added);
  g_array_unref (d->removed);
  g_array_unref (d->inverse);
  g_array_unref (d->path_cost);
  g_free (d);
}

static int
compare_bodies (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

/* Numbers the bodies of the rows in the order of their body numbers (so that the same
 * bodies and pairs make the same K pattern whatever order the rows come in: a kept
 * operator's island lists them in its sweep's order, which changes from step to step, and
 * a numbering by first appearance made each new operator's pattern look new to CHOLMOD's
 * analysis); FALSE when one has no dense C^-1. */
static gboolean
number_bodies (IslandDirect *d, const DirectProblem *p, const size_t *rows, size_t n_rows)
{
  g_array_set_size (d->bodies, 0);
  for (size_t k = 0; k < n_rows; k++)
    {
      size_t i = rows[k];
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
          /* Marked as found; numbered below. */
          *local = 0;
          g_array_append_val (d->bodies, body);
          if (p->stiffness (p->stiffness_data, body) == NULL)
            return FALSE;
        }
    }
  qsort (d->bodies->data, d->bodies->len, sizeof (uint32_t), compare_bodies);
  g_array_set_size (d->dof_start, 0);
  size_t next = 0;
  g_array_append_val (d->dof_start, next);
  for (guint b = 0; b < d->bodies->len; b++)
    {
      uint32_t body = g_array_index (d->bodies, uint32_t, b);
      g_array_index (d->local_of, uint32_t, body) = b;
      next += p->bodies[body].nv;
      g_array_append_val (d->dof_start, next);
    }
  return TRUE;
}

static void
forget_bodies (IslandDirect *d)
{
  for (guint k = 0; k < d->bodies->len; k++)
    g_array_index (d->local_of, uint32_t, g_array_index (d->bodies, uint32_t, k)) = NO_BODY;
  g_array_set_size (d->bodies, 0);
  d->numbered = FALSE;
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

static int
compare_keys (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* K's block pattern from the rows: every body's diagonal block, and block (a, b) for each
 * two bodies a > b of a row; FALSE for a row on more than MAX_ROW_BODIES bodies. */
static gboolean
find_blocks (IslandDirect *d, const DirectProblem *p, const size_t *rows, size_t n_rows)
{
  /* Room for a pair a row, grown where a row has more. */
  g_array_set_size (d->pair_keys, (guint) MAX (n_rows, 1));
  guint64 *keys = (guint64 *) d->pair_keys->data;
  size_t n_keys = 0;
  guint64 last = G_MAXUINT64;
  for (size_t k = 0; k < n_rows; k++)
    {
      RowRun runs[MAX_ROW_BODIES];
      size_t n = row_runs (d, p, rows[k], runs, MAX_ROW_BODIES);
      if (n > MAX_ROW_BODIES)
        return FALSE;
      for (size_t x = 0; x < n; x++)
        for (size_t y = 0; y < n; y++)
          {
            guint64 key = ((guint64) runs[x].local << 32) | runs[y].local;
            /* A contact's rows come together: most repeats are the last key. */
            if (runs[x].local >= runs[y].local || key == last)
              continue;
            if (n_keys == d->pair_keys->len)
              {
                g_array_set_size (d->pair_keys, 2 * d->pair_keys->len);
                keys = (guint64 *) d->pair_keys->data;
              }
            keys[n_keys++] = key;
            last = key;
          }
    }
  g_array_set_size (d->pair_keys, (guint) n_keys);
  qsort (keys, n_keys, sizeof (guint64), compare_keys);
  size_t n_bodies = d->bodies->len;
  g_array_set_size (d->block_start, (guint) n_bodies + 1);
  g_array_set_size (d->block_below, 0);
  g_array_set_size (d->block_offset, 0);
  size_t *start = (size_t *) d->block_start->data;
  const size_t *dof_start = (const size_t *) d->dof_start->data;
  guint next = 0;
  for (uint32_t b = 0; b < n_bodies; b++)
    {
      start[b] = d->block_below->len;
      size_t offset = 0;
      for (; next < n_keys && keys[next] >> 32 == b; next++)
        {
          if (next > 0 && keys[next] == keys[next - 1])
            continue;
          uint32_t a = (uint32_t) (keys[next] & G_MAXUINT32);
          g_array_append_val (d->block_below, a);
          g_array_append_val (d->block_offset, offset);
          offset += dof_start[a + 1] - dof_start[a];
        }
    }
  start[n_bodies] = d->block_below->len;
  return TRUE;
}

static gboolean
same_array (GArray *a, GArray *b)
{
  /* An empty GArray may have no data at all: memcmp must not see its NULL. */
  return a->len == b->len
         && (a->len == 0
             || memcmp (a->data, b->data, (size_t) a->len * g_array_get_element_size (a)) == 0);
}

static void
copy_array (GArray *to, GArray *from)
{
  g_array_set_size (to, 0);
  if (from->len > 0)
    g_array_append_vals (to, from->data, from->len);
}

/* The kept matrix with its values zeroed when the pattern is the last one's; otherwise a new
 * matrix of this pattern, analysed. FALSE when CHOLMOD fails. */
static gboolean
prepare_matrix (IslandDirect *d, size_t n)
{
  if (d->matrix != NULL && d->factor != NULL && same_array (d->bodies, d->kept_bodies)
      && same_array (d->dof_start, d->kept_dof_start)
      && same_array (d->block_start, d->kept_block_start)
      && same_array (d->block_below, d->kept_block_below))
    {
      memset (d->matrix->x, 0, ((int *) d->matrix->p)[n] * sizeof (double));
      return TRUE;
    }
  forget_pattern (d);
  const size_t *dof_start = (const size_t *) d->dof_start->data;
  const size_t *start = (const size_t *) d->block_start->data;
  const uint32_t *below = (const uint32_t *) d->block_below->data;
  size_t nnz = 0;
  for (uint32_t b = 0; b < d->bodies->len; b++)
    {
      size_t nb = dof_start[b + 1] - dof_start[b];
      size_t off_diagonal = 0;
      for (size_t k = start[b]; k < start[b + 1]; k++)
        off_diagonal += dof_start[below[k] + 1] - dof_start[below[k]];
      nnz += nb * (nb + 1) / 2 + nb * off_diagonal;
    }
  d->matrix = cholmod_allocate_sparse (n, n, nnz, TRUE, TRUE, -1, CHOLMOD_REAL, &d->common);
  if (d->matrix == NULL)
    return FALSE;
  int *ap = d->matrix->p, *ai = d->matrix->i;
  size_t out = 0;
  for (uint32_t b = 0; b < d->bodies->len; b++)
    for (size_t c = 0; c < dof_start[b + 1] - dof_start[b]; c++)
      {
        ap[dof_start[b] + c] = (int) out;
        for (size_t r = c; r < dof_start[b + 1] - dof_start[b]; r++)
          ai[out++] = (int) (dof_start[b] + r);
        for (size_t k = start[b]; k < start[b + 1]; k++)
          for (size_t r = dof_start[below[k]]; r < dof_start[below[k] + 1]; r++)
            ai[out++] = (int) r;
      }
  ap[n] = (int) out;
  memset (d->matrix->x, 0, out * sizeof (double));
  d->factor = cholmod_analyze (d->matrix, &d->common);
  d->factor_flops = d->common.fl;
  d->analyses++;
  if (d->factor == NULL)
    {
      forget_pattern (d);
      return FALSE;
    }
  copy_array (d->kept_bodies, d->bodies);
  copy_array (d->kept_dof_start, d->dof_start);
  copy_array (d->kept_block_start, d->block_start);
  copy_array (d->kept_block_below, d->block_below);
  return TRUE;
}

/* Where block (a, b), a > b, starts in b's columns, past their diagonal part. */
static size_t
block_offset (const IslandDirect *d, uint32_t a, uint32_t b)
{
  const size_t *start = (const size_t *) d->block_start->data;
  const uint32_t *below = (const uint32_t *) d->block_below->data;
  size_t k = start[b];
  while (below[k] != a)
    k++;
  return g_array_index (d->block_offset, size_t, k);
}

/* K += h h^T (its lower triangle) for one row h. */
static void
add_row (IslandDirect *d, const DirectProblem *p, size_t i)
{
  RowRun runs[MAX_ROW_BODIES];
  size_t n = row_runs (d, p, i, runs, MAX_ROW_BODIES);
  const CwbDofEntry *entries = p->h->entries;
  const size_t *dof_start = (const size_t *) d->dof_start->data;
  const int *ap = d->matrix->p;
  double *kx = d->matrix->x;
  for (size_t k = 0; k < n; k++)
    {
      for (size_t l = 0; l < n; l++)
        {
          /* K's row body ra, column body rb. */
          const RowRun *ra = &runs[k], *rb = &runs[l];
          if (ra->local < rb->local)
            continue;
          size_t nb = dof_start[rb->local + 1] - dof_start[rb->local];
          if (ra->local == rb->local)
            {
              for (size_t eb = rb->first; eb < rb->end; eb++)
                {
                  uint32_t c = entries[eb].dof;
                  double *column = &kx[ap[dof_start[rb->local] + c] - c];
                  for (size_t ea = ra->first; ea < ra->end; ea++)
                    if (entries[ea].dof >= c)
                      column[entries[ea].dof] += entries[ea].value * entries[eb].value;
                }
              continue;
            }
          size_t offset = block_offset (d, ra->local, rb->local);
          for (size_t eb = rb->first; eb < rb->end; eb++)
            {
              uint32_t c = entries[eb].dof;
              double *column = &kx[ap[dof_start[rb->local] + c] + (nb - c) + offset];
              for (size_t ea = ra->first; ea < ra->end; ea++)
                column[entries[ea].dof] += entries[ea].value * entries[eb].value;
            }
        }
    }
}

/* epsilon C^-1 added to the diagonal blocks, after the rows. */
static void
add_stiffness (IslandDirect *d, const DirectProblem *p)
{
  const size_t *dof_start = (const size_t *) d->dof_start->data;
  const int *ap = d->matrix->p;
  double *kx = d->matrix->x;
  for (uint32_t b = 0; b < d->bodies->len; b++)
    {
      const double *stiffness = p->stiffness (p->stiffness_data,
                                              g_array_index (d->bodies, uint32_t, b));
      size_t nb = dof_start[b + 1] - dof_start[b];
      for (size_t c = 0; c < nb; c++)
        for (size_t r = c; r < nb; r++)
          kx[ap[dof_start[b] + c] + (r - c)] += p->epsilon * stiffness[r * nb + c];
    }
}

/* Whether K would be the last factored one: the same operator, active rows and epsilon. */
static gboolean
same_factor (const IslandDirect *d, const DirectProblem *p)
{
  return d->factored && p->operator_id != 0 && p->operator_id == d->factored_operator
         && p->epsilon == d->factored_epsilon && p->n_active == d->factored_rows->len
         && memcmp (p->rows, d->factored_rows->data, p->n_active * sizeof (size_t)) == 0;
}

/* The numbered row i's entries: their unknowns in K and values, `count` of them. */
static size_t
row_entries (const IslandDirect *d, const DirectProblem *p, size_t i, const guint32 **unknown,
             const double **value)
{
  guint32 first = g_array_index (d->row_first, guint32, i);
  *unknown = &g_array_index (d->row_unknown, guint32, first);
  *value = &g_array_index (d->row_value, double, first);
  return p->h->row_start[i + 1] - p->h->row_start[i];
}

/* The rows of the problem's active set that are not in the factored set (d->added) and
 * those of the factored set that are not in it (d->removed). */
static void
find_changed_rows (IslandDirect *d, const DirectProblem *p)
{
  if (d->row_mark->len < p->h->n_rows)
    g_array_set_size (d->row_mark, (guint) p->h->n_rows);
  guint8 *mark = (guint8 *) d->row_mark->data;
  const size_t *factored = (const size_t *) d->factored_rows->data;
  size_t n_factored = d->factored_rows->len;
  for (size_t k = 0; k < p->n_active; k++)
    mark[p->rows[k]] |= 1;
  for (size_t k = 0; k < n_factored; k++)
    mark[factored[k]] |= 2;
  g_array_set_size (d->added, 0);
  g_array_set_size (d->removed, 0);
  for (size_t k = 0; k < p->n_active; k++)
    if (mark[p->rows[k]] == 1)
      g_array_append_val (d->added, p->rows[k]);
  for (size_t k = 0; k < n_factored; k++)
    if (mark[factored[k]] == 2)
      g_array_append_val (d->removed, factored[k]);
  for (size_t k = 0; k < p->n_active; k++)
    mark[p->rows[k]] = 0;
  for (size_t k = 0; k < n_factored; k++)
    mark[factored[k]] = 0;
}

/* Each permuted unknown's path cost, and its place for each unknown, from the factor just
 * computed (a simplicial column's first entry below the diagonal is its parent, which comes
 * after it). */
static void
make_path_cost (IslandDirect *d)
{
  const int *lp = d->factor->p, *li = d->factor->i, *lnz = d->factor->nz;
  const int *perm = d->factor->Perm;
  int n = (int) d->factor->n;
  g_array_set_size (d->inverse, (guint) n);
  g_array_set_size (d->path_cost, (guint) n);
  double *cost = (double *) d->path_cost->data;
  for (int j = n - 1; j >= 0; j--)
    cost[j] = lnz[j] + (lnz[j] > 1 ? cost[li[lp[j] + 1]] : 0);
  for (int k = 0; k < n; k++)
    g_array_index (d->inverse, int, perm[k]) = k;
  d->path_cost_made = TRUE;
}

/* The estimated cost of updating the factor by the rows: the entries of L on the paths of
 * the elimination tree from each row's first permuted unknown to the root. */
static double
modification_cost (const IslandDirect *d, const DirectProblem *p, const GArray *rows)
{
  const double *path_cost = (const double *) d->path_cost->data;
  double cost = 0;
  for (guint k = 0; k < rows->len; k++)
    {
      size_t i = g_array_index (rows, size_t, k);
      int column = (int) d->factor->n;
      const guint32 *unknown;
      const double *value;
      size_t count = row_entries (d, p, i, &unknown, &value);
      for (size_t e = 0; e < count; e++)
        column = MIN (column, g_array_index (d->inverse, int, unknown[e]));
      if (column < (int) d->factor->n)
        cost += path_cost[column];
    }
  return cost;
}

/* C (n x rows, in the factor's permuted order, each column sorted) of the rows' H_i^T. */
static cholmod_sparse *
update_columns (IslandDirect *d, const DirectProblem *p, const GArray *rows)
{
  size_t nnz = 0;
  for (guint k = 0; k < rows->len; k++)
    {
      size_t i = g_array_index (rows, size_t, k);
      nnz += p->h->row_start[i + 1] - p->h->row_start[i];
    }
  cholmod_sparse *c = cholmod_allocate_sparse (d->factor->n, rows->len, MAX (nnz, 1), TRUE,
                                               TRUE, 0, CHOLMOD_REAL, &d->common);
  if (c == NULL)
    return NULL;
  int *cp = c->p, *ci = c->i;
  double *cx = c->x;
  size_t out = 0;
  for (guint k = 0; k < rows->len; k++)
    {
      size_t i = g_array_index (rows, size_t, k);
      cp[k] = (int) out;
      size_t first = out;
      const guint32 *unknown;
      const double *value;
      size_t count = row_entries (d, p, i, &unknown, &value);
      for (size_t e = 0; e < count; e++)
        {
          /* Insertion into the sorted column: a row has a dozen entries. */
          int at = g_array_index (d->inverse, int, unknown[e]);
          size_t q = out++;
          for (; q > first && ci[q - 1] > at; q--)
            {
              ci[q] = ci[q - 1];
              cx[q] = cx[q - 1];
            }
          ci[q] = at;
          cx[q] = value[e];
        }
    }
  cp[rows->len] = (int) out;
  return c;
}

/* One rank update (update TRUE: K + C C^T) or downdate (K - C C^T) of the factor by the
 * rows; TRUE for none. */
static gboolean
update_factor (IslandDirect *d, const DirectProblem *p, const GArray *rows, gboolean update)
{
  if (rows->len == 0)
    return TRUE;
  cholmod_sparse *c = update_columns (d, p, rows);
  gboolean ok = c != NULL && cholmod_updown (update, c, d->factor, &d->common)
                && d->common.status == CHOLMOD_OK;
  cholmod_free_sparse (&c, &d->common);
  return ok;
}

/* Brings the factor of the last factored set, on the same operator and numbering, to the
 * problem's active rows by rank-one updates and downdates (K = epsilon C^-1 + H_A^T H_A
 * gains h h^T for a row that joins and loses it for one that leaves), where that costs less
 * than factoring K (MODIFY_COST_SHARE) and the round-off gathered stays bounded
 * (MODIFY_TURNOVER); the factor keeps its epsilon. FALSE, the factor left as it was or
 * dropped, where it does not. */
static gboolean
modify_factor (IslandDirect *d, const DirectProblem *p)
{
  if (!d->factored || p->operator_id == 0 || p->operator_id != d->factored_operator
      || fabs (p->epsilon - d->factored_epsilon) > MODIFY_EPSILON_SHARE * d->factored_epsilon)
    return FALSE;
  find_changed_rows (d, p);
  size_t changed = d->added->len + d->removed->len;
  if ((double) (d->modified_rows + changed) > MODIFY_TURNOVER * (double) p->n_active)
    return FALSE;
  if (!d->path_cost_made)
    make_path_cost (d);
  if (modification_cost (d, p, d->added) + modification_cost (d, p, d->removed)
      > MODIFY_COST_SHARE * d->factor_flops)
    return FALSE;
  /* Updates first: K + C C^T stays positive definite whatever the downdates then take. */
  if (!update_factor (d, p, d->added, TRUE) || !update_factor (d, p, d->removed, FALSE)
      || d->factor->minor != d->factor->n)
    {
      d->factored = FALSE;
      return FALSE;
    }
  g_array_set_size (d->factored_rows, 0);
  g_array_append_vals (d->factored_rows, p->rows, (guint) p->n_active);
  d->modified_rows += changed;
  if (changed > 0)
    d->modifications++;
  return TRUE;
}

/* rhs = -H_A^T r_A. */
static void
add_rhs (IslandDirect *d, const DirectProblem *p)
{
  double *rhs = (double *) d->rhs->data;
  for (size_t k = 0; k < p->n_active; k++)
    {
      const guint32 *unknown;
      const double *value;
      size_t count = row_entries (d, p, p->rows[k], &unknown, &value);
      for (size_t e = 0; e < count; e++)
        rhs[unknown[e]] -= value[e] * p->residual[k];
    }
}

/* Assembles K and factors it; FALSE when CHOLMOD fails. */
static gboolean
assemble_and_factor (IslandDirect *d, const DirectProblem *p, size_t n)
{
  d->factored = FALSE;
  if (!prepare_matrix (d, n))
    return FALSE;
  for (size_t k = 0; k < p->n_active; k++)
    add_row (d, p, p->rows[k]);
  add_stiffness (d, p);
  if (!cholmod_factorize (d->matrix, d->factor, &d->common) || d->common.status != CHOLMOD_OK
      || d->factor->minor != d->factor->n)
    return FALSE;
  d->factored = TRUE;
  d->modified_rows = 0;
  d->path_cost_made = FALSE;
  d->factored_operator = p->operator_id;
  d->factored_epsilon = p->epsilon;
  g_array_set_size (d->factored_rows, 0);
  g_array_append_vals (d->factored_rows, p->rows, (guint) p->n_active);
  return TRUE;
}

/* Whether the rows are the set the numbering was made from, under the same operator. */
static gboolean
numbered_from (const IslandDirect *d, const DirectProblem *p, const size_t *rows, size_t n_rows)
{
  if (!d->numbered || p->operator_id == 0 || p->operator_id != d->numbered_operator
      || n_rows != d->n_numbered_rows)
    return FALSE;
  const guint32 *stamp = (const guint32 *) d->row_stamp->data;
  for (size_t k = 0; k < n_rows; k++)
    if (rows[k] >= d->row_stamp->len || stamp[rows[k]] != d->stamp)
      return FALSE;
  return TRUE;
}

/* The numbered rows' entries in K's unknowns (IslandDirect.row_first), in the rows' order. */
static void
list_row_entries (IslandDirect *d, const DirectProblem *p, const size_t *rows, size_t n_rows)
{
  if (d->row_first->len < p->h->n_rows)
    g_array_set_size (d->row_first, (guint) p->h->n_rows);
  size_t n_entries = 0;
  for (size_t k = 0; k < n_rows; k++)
    n_entries += p->h->row_start[rows[k] + 1] - p->h->row_start[rows[k]];
  g_array_set_size (d->row_unknown, (guint) n_entries);
  g_array_set_size (d->row_value, (guint) n_entries);
  guint32 *first = (guint32 *) d->row_first->data;
  guint32 *unknown = (guint32 *) d->row_unknown->data;
  double *value = (double *) d->row_value->data;
  const size_t *dof_start = (const size_t *) d->dof_start->data;
  const uint32_t *local_of = (const uint32_t *) d->local_of->data;
  guint32 out = 0;
  for (size_t k = 0; k < n_rows; k++)
    {
      size_t i = rows[k];
      first[i] = out;
      for (size_t e = p->h->row_start[i]; e < p->h->row_start[i + 1]; e++, out++)
        {
          const CwbDofEntry *entry = &p->h->entries[e];
          unknown[out] = (guint32) (dof_start[local_of[entry->body]] + entry->dof);
          value[out] = entry->value;
        }
    }
}

/* Numbers the bodies of the problem's pattern rows and finds K's blocks from them, unless the
 * last solve's numbering holds (the same operator and set of pattern rows). FALSE when a body
 * has no dense C^-1 or a row is on too many bodies. */
static gboolean
number_pattern (IslandDirect *d, const DirectProblem *p)
{
  const size_t *rows = p->pattern_rows != NULL ? p->pattern_rows : p->rows;
  size_t n_rows = p->pattern_rows != NULL ? p->n_pattern_rows : p->n_active;
  if (numbered_from (d, p, rows, n_rows))
    return TRUE;
  /* The factor, if any, is of another numbering's K. */
  d->factored = FALSE;
  forget_bodies (d);
  if (!number_bodies (d, p, rows, n_rows) || !find_blocks (d, p, rows, n_rows))
    {
      forget_bodies (d);
      return FALSE;
    }
  if (d->row_stamp->len < p->h->n_rows)
    g_array_set_size (d->row_stamp, (guint) p->h->n_rows);
  if (++d->stamp == 0)
    {
      /* The stamps wrapped: no row may keep an old one that now reads as current. */
      memset (d->row_stamp->data, 0, d->row_stamp->len * sizeof (guint32));
      d->stamp = 1;
    }
  guint32 *stamp = (guint32 *) d->row_stamp->data;
  for (size_t k = 0; k < n_rows; k++)
    stamp[rows[k]] = d->stamp;
  list_row_entries (d, p, rows, n_rows);
  d->numbered = TRUE;
  d->numbered_operator = p->operator_id;
  d->n_numbered_rows = n_rows;
  return TRUE;
}

gboolean
island_direct_solve (IslandDirect *d, const DirectProblem *p, double *force_out)
{
  if (p->n_active == 0 || !(p->epsilon > 0))
    return FALSE;
  if (!number_pattern (d, p))
    return FALSE;
  size_t n = g_array_index (d->dof_start, size_t, d->dof_start->len - 1);
  g_array_set_size (d->rhs, (guint) MAX (n, 1));
  memset (d->rhs->data, 0, n * sizeof (double));
  add_rhs (d, p);
  cholmod_dense *x = NULL;
  gboolean ok = same_factor (d, p) || modify_factor (d, p) || assemble_and_factor (d, p, n);
  if (ok)
    {
      cholmod_dense b = {
        .nrow = n, .ncol = 1, .nzmax = n, .d = n, .x = d->rhs->data,
        .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE,
      };
      x = cholmod_solve (CHOLMOD_A, d->factor, &b, &d->common);
      ok = x != NULL;
    }
  if (ok)
    {
      const double *u = x->x;
      /* The factor's K has its own epsilon: the problem's, or within a tenth of it where the
       * factor was modified (modify_factor). */
      double epsilon = d->factored_epsilon;
      for (size_t k = 0; k < p->n_active; k++)
        {
          const guint32 *unknown;
          const double *value;
          size_t count = row_entries (d, p, p->rows[k], &unknown, &value);
          double moved = 0;
          for (size_t e = 0; e < count; e++)
            moved += value[e] * u[unknown[e]];
          force_out[k] = p->force[k] - (p->residual[k] + moved) / epsilon;
        }
      if (p->displacement != NULL)
        {
          const size_t *dof_start = (const size_t *) d->dof_start->data;
          for (guint b = 0; b < d->bodies->len; b++)
            {
              double *to = p->displacement
                           + p->bodies[g_array_index (d->bodies, uint32_t, b)].v_offset;
              for (size_t k = dof_start[b]; k < dof_start[b + 1]; k++)
                to[k - dof_start[b]] += u[k];
            }
        }
    }
  else
    {
      forget_pattern (d);
      forget_bodies (d);
    }
  cholmod_free_dense (&x, &d->common);
  return ok;
}

guint64
island_direct_analyses (const IslandDirect *d)
{
  return d->analyses;
}

guint64
island_direct_modifications (const IslandDirect *d)
{
  return d->modifications;
}

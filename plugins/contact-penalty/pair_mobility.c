/* The pairs' mobility W (see pair_mobility.h). */
#include "pair_mobility.h"

/* W's memory budget (pair_mobility_set_max_blocks: the model's `mobility_memory`). A
 * deformable body's contacts all move each other, so W grows with the square of the
 * contacts per body: 40 FEM cows falling into each other with a 4.5 cm max_depth made 72 730
 * contacts and asked for 34 GB, and the run died. Beyond the budget each contact keeps its
 * own block only, scaled by the contacts it shares its bodies with (pair_mobility_build),
 * and W's products are made without W, from one point_response call with all the forces
 * (pair_mobility_apply): the model's normal solve then takes accelerated Jacobi steps
 * scaled by that diagonal (penalty_model.c, normal_accelerated) instead of Gauss-Seidel
 * sweeps, more iterations for the same coupled forces. */

struct PairMobility {
  size_t n;
  GArray *column_start;   /* size_t, n + 1: column k's entries are [start[k], start[k + 1]) */
  GArray *rows;           /* guint per entry: the contact j the entry moves */
  GArray *blocks;         /* double, 9 per entry: W_jk row-major */
  GArray *diagonal;       /* size_t per contact: its own entry */
  GArray *own_scale;      /* double per contact: its own block's scaling (1 while coupled) */
  size_t max_blocks;      /* pair_mobility_set_max_blocks; no budget until set */
  gboolean coupled;       /* FALSE: over max_blocks, the diagonal only */
  /* scratch */
  GArray *by_geometry_start, *by_geometry;   /* the contacts touching each movable geometry */
  GArray *stamp;          /* guint per contact, to list a contact once per column */
  GArray *at;             /* CwbPointWeight: up to 6 per contact of a column */
  GArray *dp;             /* double, 3 per entry of at */
  GArray *product_forces; /* CwbPointWeight: every pair's force pattern, for a product */
  GArray *product_points; /* CwbPointWeight: every pair's points, listed once past the budget */
};

PairMobility *
pair_mobility_new (void)
{
  PairMobility *w = g_new0 (PairMobility, 1);
  w->max_blocks = SIZE_MAX;
  w->column_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  w->rows = g_array_new (FALSE, FALSE, sizeof (guint));
  w->blocks = g_array_new (FALSE, FALSE, sizeof (double));
  w->diagonal = g_array_new (FALSE, FALSE, sizeof (size_t));
  w->own_scale = g_array_new (FALSE, FALSE, sizeof (double));
  w->by_geometry_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  w->by_geometry = g_array_new (FALSE, FALSE, sizeof (guint));
  w->stamp = g_array_new (FALSE, TRUE, sizeof (guint));
  w->at = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  w->dp = g_array_new (FALSE, FALSE, sizeof (double));
  w->product_forces = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  w->product_points = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  return w;
}

void
pair_mobility_free (PairMobility *w)
{
  if (w == NULL)
    return;
  GArray *arrays[] = { w->column_start, w->rows, w->blocks, w->diagonal, w->own_scale,
                       w->by_geometry_start, w->by_geometry, w->stamp, w->at, w->dp,
                       w->product_forces, w->product_points };
  for (size_t k = 0; k < G_N_ELEMENTS (arrays); k++)
    g_array_unref (arrays[k]);
  g_free (w);
}

/* The contacts touching each movable geometry (CSR), so that a column is measured only where
 * its force can act. */
static void
index_contacts (PairMobility *w, const PenaltyPair *pairs, size_t n, const gboolean *movable,
                size_t n_geometries)
{
  g_array_set_size (w->by_geometry_start, n_geometries + 1);
  size_t *start = (size_t *) w->by_geometry_start->data;
  memset (start, 0, (n_geometries + 1) * sizeof (size_t));
  for (size_t k = 0; k < n; k++)
    {
      if (movable[pairs[k].point_geometry])
        start[pairs[k].point_geometry + 1]++;
      if (movable[pairs[k].surface_geometry])
        start[pairs[k].surface_geometry + 1]++;
    }
  for (size_t g = 0; g < n_geometries; g++)
    start[g + 1] += start[g];
  g_array_set_size (w->by_geometry, start[n_geometries]);
  guint *list = (guint *) w->by_geometry->data;
  g_autofree size_t *fill = g_memdup2 (start, MAX (n_geometries, 1) * sizeof (size_t));
  for (size_t k = 0; k < n; k++)
    {
      if (movable[pairs[k].point_geometry])
        list[fill[pairs[k].point_geometry]++] = (guint) k;
      if (movable[pairs[k].surface_geometry])
        list[fill[pairs[k].surface_geometry]++] = (guint) k;
    }
}

/* At most the contacts a pair moves: itself and those on its movable geometries. */
static size_t
contacts_sharing (const PairMobility *w, const PenaltyPair *pair)
{
  const size_t *start = (const size_t *) w->by_geometry_start->data;
  uint32_t a = pair->point_geometry, b = pair->surface_geometry;
  return 1 + (start[a + 1] - start[a]) + (start[b + 1] - start[b]);
}

/* At most the blocks W would store. */
static size_t
blocks_bound (const PairMobility *w, const PenaltyPair *pairs, size_t n)
{
  size_t bound = 0;
  for (size_t k = 0; k < n; k++)
    bound += contacts_sharing (w, &pairs[k]);
  return bound;
}

/* Column k's rows: k itself, then every other contact on k's movable geometries, once. */
static void
list_column (PairMobility *w, const PenaltyPair *pairs, size_t k, guint stamp_now)
{
  const size_t *start = (const size_t *) w->by_geometry_start->data;
  const guint *list = (const guint *) w->by_geometry->data;
  guint *stamp = (guint *) w->stamp->data;
  stamp[k] = stamp_now;
  g_array_append_val (w->rows, k);
  uint32_t geometries[2] = { pairs[k].point_geometry, pairs[k].surface_geometry };
  for (int side = 0; side < 2; side++)
    for (size_t e = start[geometries[side]]; e < start[geometries[side] + 1]; e++)
      if (stamp[list[e]] != stamp_now)
        {
          stamp[list[e]] = stamp_now;
          g_array_append_val (w->rows, list[e]);
        }
}

/* Each pair's points, i's vertices then T's, one pair after the other (what a column's
 * measurement lists for its rows), into `list`; returns how many. */
static size_t
list_points (GArray *list, const PenaltyPair *pairs, size_t first, size_t n_pairs,
             const guint *rows)
{
  g_array_set_size (list, 6 * MAX (n_pairs, 1));
  CwbPointWeight *at = (CwbPointWeight *) list->data;
  size_t n_at = 0;
  for (size_t e = 0; e < n_pairs; e++)
    {
      const PenaltyPair *p = &pairs[rows != NULL ? rows[first + e] : first + e];
      for (uint32_t l = 0; l < p->n_points; l++)
        at[n_at++] = (CwbPointWeight){ .geometry = p->point_geometry, .point = p->points[l] };
      for (int l = 0; l < 3; l++)
        at[n_at++] = (CwbPointWeight){ .geometry = p->surface_geometry,
                                       .point = p->vertices[l] };
    }
  return n_at;
}

/* The pair's relative displacement from its points' displacements d (listed as list_points
 * does): sum_l w_l d_l over i's vertices less sum_l h_l d_l over T's. Returns the points
 * read. */
static size_t
relative_displacement (const PenaltyPair *p, const double *d, double rel[3])
{
  cwb_v3_scale (rel, d, p->weights[0]);
  for (uint32_t l = 1; l < p->n_points; l++)
    cwb_v3_axpy (rel, p->weights[l], &d[3 * l]);
  d += 3 * p->n_points;
  for (int l = 0; l < 3; l++)
    cwb_v3_axpy (rel, -p->bary[l], &d[3 * l]);
  return p->n_points + 3;
}

void
pair_mobility_build (PairMobility *w, const CwbContactQuery *query, const PenaltyPair *pairs,
                     size_t n, const gboolean *movable)
{
  w->n = n;
  index_contacts (w, pairs, n, movable, query->n_geometries);
  g_array_set_size (w->column_start, n + 1);
  g_array_set_size (w->diagonal, n);
  g_array_set_size (w->own_scale, n);
  g_array_set_size (w->rows, 0);
  g_array_set_size (w->stamp, MAX (n, 1));
  memset (w->stamp->data, 0, w->stamp->len * sizeof (guint));
  w->coupled = blocks_bound (w, pairs, n) <= w->max_blocks;
  if (!w->coupled)
    g_debug ("pair mobility: %zu contacts would couple in more than %zu blocks; each keeps "
             "its own", n, w->max_blocks);
  size_t *column_start = (size_t *) w->column_start->data;
  for (size_t k = 0; k < n; k++)
    {
      column_start[k] = w->rows->len;
      g_array_index (w->diagonal, size_t, k) = w->rows->len;   /* k is listed first */
      if (w->coupled)
        list_column (w, pairs, k, (guint) k + 1);
      else
        {
          guint self = (guint) k;
          g_array_append_val (w->rows, self);
        }
    }
  column_start[n] = w->rows->len;
  g_array_set_size (w->blocks, 9 * MAX (w->rows->len, 1));
  double *blocks = (double *) w->blocks->data;
  guint *rows = (guint *) w->rows->data;
  size_t kept = 0;   /* entries kept so far: the columns are compacted as they are made */
  for (size_t k = 0; k < n; k++)
    {
      size_t first = column_start[k], m = column_start[k + 1] - first;
      size_t n_at = list_points (w->at, pairs, first, m, rows);
      const CwbPointWeight *at = (const CwbPointWeight *) w->at->data;
      g_array_set_size (w->dp, 3 * MAX (n_at, 1));
      double *dp = (double *) w->dp->data;
      for (int axis = 0; axis < 3; axis++)
        {
          double unit[3] = { 0, 0, 0 };
          unit[axis] = 1;
          CwbPointWeight forces[PENALTY_PAIR_PATTERN_MAX];
          size_t n_forces = penalty_pair_pattern (&pairs[k], unit, forces);
          query->point_response (query->host_data, forces, n_forces, at, n_at, dp);
          const double *d = dp;
          for (size_t e = 0; e < m; e++)
            {
              double rel[3];
              d += 3 * relative_displacement (&pairs[rows[first + e]], d, rel);
              double *block = &blocks[9 * (first + e)];
              for (int r = 0; r < 3; r++)
                block[3 * r + axis] = rel[r];
            }
        }
      if (!w->coupled)
        {
          /* Alone, a contact would push as if the others on its bodies did not push too,
           * and all of them together would push those bodies that many times too far (the
           * rain's cows flew off at 1e9 J): its own block counts the contacts it shares its
           * bodies with, as if each moved it as much as it moves itself. */
          double shared = (double) contacts_sharing (w, &pairs[k]);
          for (int e = 0; e < 9; e++)
            blocks[9 * first + e] *= shared;
          g_array_index (w->own_scale, double, k) = shared;
        }
      else
        g_array_index (w->own_scale, double, k) = 1;
      /* Contacts on one body that do not move each other (a fluid's particles, each of
       * which answers its own force alone) leave zero blocks: drop them, so that W of a
       * fluid's contacts is as sparse as its coupling. The own block stays first. */
      column_start[k] = kept;
      g_array_index (w->diagonal, size_t, k) = kept;
      for (size_t e = 0; e < m; e++)
        {
          const double *block = &blocks[9 * (first + e)];
          gboolean zero = e > 0;
          for (int i = 0; i < 9 && zero; i++)
            zero = block[i] == 0;
          if (zero)
            continue;
          rows[kept] = rows[first + e];
          memmove (&blocks[9 * kept], block, 9 * sizeof (double));
          kept++;
        }
    }
  column_start[n] = kept;
  g_array_set_size (w->rows, (guint) kept);
  /* Past the budget every product measures all the pairs' points (pair_mobility_apply). */
  if (!w->coupled)
    g_array_set_size (w->product_points, (guint) list_points (w->product_points, pairs, 0, n,
                                                              NULL));
}

const double *
pair_mobility_diagonal (const PairMobility *w, size_t k)
{
  return &g_array_index (w->blocks, double, 9 * g_array_index (w->diagonal, size_t, k));
}

void
pair_mobility_spread (const PairMobility *w, size_t k, const double f[3], double *acc)
{
  const size_t *start = (const size_t *) w->column_start->data;
  const guint *rows = (const guint *) w->rows->data;
  const double *blocks = (const double *) w->blocks->data;
  for (size_t e = start[k]; e < start[k + 1]; e++)
    {
      const double *b = &blocks[9 * e];
      double *a = &acc[3 * rows[e]];
      for (int r = 0; r < 3; r++)
        a[r] += b[3 * r] * f[0] + b[3 * r + 1] * f[1] + b[3 * r + 2] * f[2];
    }
}

void
pair_mobility_apply (PairMobility *w, const CwbContactQuery *query, const PenaltyPair *pairs,
                     const double *f, double *out)
{
  memset (out, 0, 3 * w->n * sizeof (double));
  if (w->coupled)
    {
      for (size_t k = 0; k < w->n; k++)
        pair_mobility_spread (w, k, &f[3 * k], out);
      return;
    }
  g_array_set_size (w->product_forces, 0);
  for (size_t k = 0; k < w->n; k++)
    {
      if (f[3 * k] == 0 && f[3 * k + 1] == 0 && f[3 * k + 2] == 0)
        continue;
      CwbPointWeight pattern[PENALTY_PAIR_PATTERN_MAX];
      g_array_append_vals (w->product_forces, pattern,
                           (guint) penalty_pair_pattern (&pairs[k], &f[3 * k], pattern));
    }
  if (w->product_forces->len == 0)
    return;
  size_t n_at = w->product_points->len;
  g_array_set_size (w->dp, 3 * MAX (n_at, 1));
  double *dp = (double *) w->dp->data;
  query->point_response (query->host_data, (const CwbPointWeight *) w->product_forces->data,
                         w->product_forces->len,
                         (const CwbPointWeight *) w->product_points->data, n_at, dp);
  const double *d = dp;
  for (size_t k = 0; k < w->n; k++)
    d += 3 * relative_displacement (&pairs[k], d, &out[3 * k]);
}

double
pair_mobility_own_scale (const PairMobility *w, size_t k)
{
  return g_array_index (w->own_scale, double, k);
}

size_t
pair_mobility_n_blocks (const PairMobility *w)
{
  return w->rows->len;
}

gboolean
pair_mobility_coupled (const PairMobility *w)
{
  return w->coupled;
}

void
pair_mobility_set_max_blocks (PairMobility *w, size_t max_blocks)
{
  w->max_blocks = max_blocks;
}

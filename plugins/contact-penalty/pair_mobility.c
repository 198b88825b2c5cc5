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
  GArray *by_geometry_start, *by_geometry;   /* the contacts touching each movable geometry
                                              * whose points move each other */
  GArray *by_point;       /* PointContact, sorted: the contacts at each point of a movable
                           * geometry whose points move apart (CwbContactQuery.points_apart) */
  const CwbContactQuery *query;   /* while W is built: its points_apart, per body */
  GArray *stamp;          /* guint per contact, to list a contact once per column */
  GArray *at;             /* CwbPointWeight: up to 6 per contact of a column */
  GArray *dp;             /* double, 3 per entry of at */
  GArray *product_forces; /* CwbPointWeight: every pair's force pattern, for a product */
  GArray *product_points; /* CwbPointWeight: every pair's points, listed once past the budget */
};

/* A contact at one point of a points-apart geometry. */
typedef struct PointContact {
  guint64 key;   /* geometry << 32 | point */
  guint contact;
} PointContact;

static guint64
point_key (uint32_t geometry, uint32_t point)
{
  return (guint64) geometry << 32 | point;
}

static int
point_contact_compare (const void *a, const void *b)
{
  const PointContact *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->contact < y->contact ? -1 : x->contact > y->contact;
}

/* The points of pair p on its side `side` (0: i's vertices, 1: T's), into points; how many. */
static uint32_t
side_points (const PenaltyPair *p, int side, uint32_t points[3])
{
  if (side == 1)
    {
      memcpy (points, p->vertices, 3 * sizeof (uint32_t));
      return 3;
    }
  memcpy (points, p->points, p->n_points * sizeof (uint32_t));
  return p->n_points;
}

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
  w->by_point = g_array_new (FALSE, FALSE, sizeof (PointContact));
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
                       w->by_geometry_start, w->by_geometry, w->by_point, w->stamp, w->at, w->dp,
                       w->product_forces, w->product_points };
  for (size_t k = 0; k < G_N_ELEMENTS (arrays); k++)
    g_array_unref (arrays[k]);
  g_free (w);
}

/* Whether geometry g's points move apart (the query's points_apart, ABI 1.21). */
static gboolean
apart (const PairMobility *w, uint32_t g)
{
  return cwb_contact_query_points_apart (w->query, &w->query->geometries[g]);
}

/* The contacts touching each movable geometry (CSR), so that a column is measured only where
 * its force can act; on a geometry whose points move apart, the contacts at each of its
 * points instead (by_point), since a contact there moves only those sharing its point. */
static void
index_contacts (PairMobility *w, const PenaltyPair *pairs, size_t n, const gboolean *movable,
                size_t n_geometries)
{
  g_array_set_size (w->by_point, 0);
  for (size_t k = 0; k < n; k++)
    for (int side = 0; side < 2; side++)
      {
        uint32_t g = side == 0 ? pairs[k].point_geometry : pairs[k].surface_geometry;
        if (!movable[g] || !apart (w, g))
          continue;
        uint32_t points[3];
        uint32_t n_points = side_points (&pairs[k], side, points);
        for (uint32_t l = 0; l < n_points; l++)
          {
            PointContact entry = { point_key (g, points[l]), (guint) k };
            g_array_append_val (w->by_point, entry);
          }
      }
  if (w->by_point->len > 1)   /* an empty GArray's data is NULL, which qsort may not take */
    qsort (w->by_point->data, w->by_point->len, sizeof (PointContact), point_contact_compare);

  g_array_set_size (w->by_geometry_start, n_geometries + 1);
  size_t *start = (size_t *) w->by_geometry_start->data;
  memset (start, 0, (n_geometries + 1) * sizeof (size_t));
  for (size_t k = 0; k < n; k++)
    {
      if (movable[pairs[k].point_geometry] && !apart (w, pairs[k].point_geometry))
        start[pairs[k].point_geometry + 1]++;
      if (movable[pairs[k].surface_geometry] && !apart (w, pairs[k].surface_geometry))
        start[pairs[k].surface_geometry + 1]++;
    }
  for (size_t g = 0; g < n_geometries; g++)
    start[g + 1] += start[g];
  g_array_set_size (w->by_geometry, start[n_geometries]);
  guint *list = (guint *) w->by_geometry->data;
  g_autofree size_t *fill = g_memdup2 (start, MAX (n_geometries, 1) * sizeof (size_t));
  for (size_t k = 0; k < n; k++)
    {
      if (movable[pairs[k].point_geometry] && !apart (w, pairs[k].point_geometry))
        list[fill[pairs[k].point_geometry]++] = (guint) k;
      if (movable[pairs[k].surface_geometry] && !apart (w, pairs[k].surface_geometry))
        list[fill[pairs[k].surface_geometry]++] = (guint) k;
    }
}

/* The run of by_point entries at (g, point): its first entry, and its length in *count. */
static const PointContact *
contacts_at_point (const PairMobility *w, uint32_t g, uint32_t point, size_t *count)
{
  const PointContact *entries = (const PointContact *) w->by_point->data;
  guint64 key = point_key (g, point);
  size_t lo = 0, hi = w->by_point->len;
  while (lo < hi)   /* the first entry with a key >= key */
    {
      size_t mid = lo + (hi - lo) / 2;
      if (entries[mid].key < key)
        lo = mid + 1;
      else
        hi = mid;
    }
  size_t end = lo;
  while (end < w->by_point->len && entries[end].key == key)
    end++;
  *count = end - lo;
  return &entries[lo];
}

/* The contacts pair k can move on its side `side`, with repeats, each passed to `visit`. */
static void
side_contacts (const PairMobility *w, const PenaltyPair *pair, int side,
               void (*visit) (guint contact, gpointer data), gpointer data)
{
  uint32_t g = side == 0 ? pair->point_geometry : pair->surface_geometry;
  if (apart (w, g))
    {
      uint32_t points[3];
      uint32_t n_points = side_points (pair, side, points);
      for (uint32_t l = 0; l < n_points; l++)
        {
          size_t count;
          const PointContact *run = contacts_at_point (w, g, points[l], &count);
          for (size_t e = 0; e < count; e++)
            visit (run[e].contact, data);
        }
      return;
    }
  const size_t *start = (const size_t *) w->by_geometry_start->data;
  const guint *list = (const guint *) w->by_geometry->data;
  for (size_t e = start[g]; e < start[g + 1]; e++)
    visit (list[e], data);
}

static void
count_contact (guint contact, gpointer data)
{
  (void) contact;
  (*(size_t *) data)++;
}

/* At most the contacts a pair moves: itself and those on its movable geometries (at its own
 * points on a geometry whose points move apart). */
static size_t
contacts_sharing (const PairMobility *w, const PenaltyPair *pair)
{
  size_t count = 1;
  for (int side = 0; side < 2; side++)
    side_contacts (w, pair, side, count_contact, &count);
  return count;
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

/* A column being listed: its stamp, so that each contact is listed once. */
typedef struct ColumnListing {
  PairMobility *w;
  guint stamp_now;
} ColumnListing;

static void
list_contact (guint contact, gpointer data)
{
  ColumnListing *c = data;
  guint *stamp = (guint *) c->w->stamp->data;
  if (stamp[contact] == c->stamp_now)
    return;
  stamp[contact] = c->stamp_now;
  g_array_append_val (c->w->rows, contact);
}

/* Column k's rows: k itself, then every other contact k can move, once. */
static void
list_column (PairMobility *w, const PenaltyPair *pairs, size_t k, guint stamp_now)
{
  ColumnListing listing = { w, stamp_now };
  list_contact ((guint) k, &listing);
  for (int side = 0; side < 2; side++)
    side_contacts (w, &pairs[k], side, list_contact, &listing);
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
  w->query = query;
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
  w->query = NULL;
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

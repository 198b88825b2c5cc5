/* A body's density over a box of the grid (see the header). */
#include "density_grid.h"

#include <math.h>

/* The columns of the scan conversion stand this share of a step off the lattice (along x and
 * y, by different irrational multiples), so that no column runs exactly along a triangle's
 * edge or through a vertex: a face of a box whose edges lie on the lattice would otherwise
 * count one crossing twice or not at all. The columns decide on which side of the surface a
 * point is; a shift this small can misplace only points within it of the surface, whose
 * density is 1/2 either way to within it over the step. */
#define COLUMN_SHIFT 1e-7
/* Points closer to the surface than this share of a step take the closest triangle's normal
 * as their direction and count as on the surface: the shifted columns can put such a point
 * on either side (within COLUMN_SHIFT steps of a face, whatever its slope), and a side that
 * disagreed with the direction from the closest point turned the density's gradient
 * outward. */
#define SURFACE_EPSILON (10 * COLUMN_SHIFT)

/* Distances are taken up to this many steps from the surface: the transition (one step on
 * each side) and half a step more, so that the grid points where a deep overlap starts
 * find their closest triangle without a search of the whole surface. */
#define SURFACE_REACH 1.5
/* A point whose offset from its closest point on an edge or a vertex is this close to the
 * triangle's normal (relative, on the cosine) lies off a face, not off an edge: round-off
 * leaves ~1e-16 of the distance across a flat edge, a sharp edge's offset turns away from
 * either face by its angle. */
#define FLAT_FEATURE_TOLERANCE 1e-9

double
density_distance (double rho)
{
  if (rho >= 1)
    return -1;
  if (rho <= 0)
    return 1;
  double t = 0.5 - sin (asin (2 * rho - 1) / 3);
  return 2 * t - 1;
}

typedef struct Crossing {
  size_t column;
  double z;
  int winding;   /* +1 entering the body going up (+z), -1 leaving it */
} Crossing;

gboolean
grid_box_cover (GridBox *box, double step, const double min[3], const double max[3], int pad,
                size_t max_points)
{
  if (!(step > 0))
    return FALSE;
  double points = 1;
  box->step = step;
  for (int c = 0; c < 3; c++)
    {
      double lo = floor (min[c] / step) - pad, hi = ceil (max[c] / step) + pad;
      if (!isfinite (lo) || !isfinite (hi) || hi < lo || fabs (lo) > G_MAXINT / 2
          || fabs (hi) > G_MAXINT / 2)
        return FALSE;
      box->lo[c] = (int) lo;
      box->n[c] = (int) (hi - lo) + 1;
      points *= box->n[c];
    }
  return points <= (double) max_points;
}

BodyDensity *
body_density_new (void)
{
  BodyDensity *d = g_new0 (BodyDensity, 1);
  d->rho = g_array_new (FALSE, FALSE, sizeof (double));
  d->distance = g_array_new (FALSE, FALSE, sizeof (double));
  d->triangle = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  d->bary = g_array_new (FALSE, FALSE, sizeof (double));
  d->direction = g_array_new (FALSE, FALSE, sizeof (double));
  d->edge = g_array_new (FALSE, FALSE, sizeof (double));
  d->on_face = g_array_new (FALSE, FALSE, sizeof (guint8));
  d->inside = g_array_new (FALSE, FALSE, sizeof (guint8));
  d->crossings = g_array_new (FALSE, FALSE, sizeof (Crossing));
  d->sorted = g_array_new (FALSE, FALSE, sizeof (Crossing));
  d->column_start = g_array_new (FALSE, FALSE, sizeof (guint));
  d->bucket_start = g_array_new (FALSE, FALSE, sizeof (guint));
  d->bucket_members = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  return d;
}

void
body_density_free (BodyDensity *d)
{
  if (d == NULL)
    return;
  g_array_unref (d->rho);
  g_array_unref (d->distance);
  g_array_unref (d->triangle);
  g_array_unref (d->bary);
  g_array_unref (d->direction);
  g_array_unref (d->edge);
  g_array_unref (d->on_face);
  g_array_unref (d->inside);
  g_array_unref (d->crossings);
  g_array_unref (d->sorted);
  g_array_unref (d->column_start);
  g_array_unref (d->bucket_start);
  g_array_unref (d->bucket_members);
  g_free (d);
}

/* The crossings in column order (a counting sort over the box's columns), each column's by
 * height (an insertion sort: a column crosses a closed surface a few times). */
static void
sort_crossings (BodyDensity *d, const GridBox *box)
{
  size_t n_columns = (size_t) box->n[0] * (size_t) box->n[1];
  g_array_set_size (d->column_start, (guint) (n_columns + 1));
  guint *start = (guint *) d->column_start->data;
  memset (start, 0, (n_columns + 1) * sizeof (guint));
  const Crossing *in = (const Crossing *) d->crossings->data;
  guint n = d->crossings->len;
  for (guint k = 0; k < n; k++)
    start[in[k].column + 1]++;
  for (size_t c = 0; c < n_columns; c++)
    start[c + 1] += start[c];
  g_array_set_size (d->sorted, n);
  Crossing *out = (Crossing *) d->sorted->data;
  for (guint k = 0; k < n; k++)
    out[start[in[k].column]++] = in[k];
  /* start[c] is now the end of column c, the start of column c + 1. */
  guint first = 0;
  for (size_t c = 0; c < n_columns; c++)
    {
      for (guint k = first + 1; k < start[c]; k++)
        {
          Crossing x = out[k];
          guint m = k;
          for (; m > first && out[m - 1].z > x.z; m--)
            out[m] = out[m - 1];
          out[m] = x;
        }
      first = start[c];
    }
  GArray *swap = d->crossings;
  d->crossings = d->sorted;
  d->sorted = swap;
}

/* The lattice indices of the box within [lo, hi] along axis c, clamped to the box: FALSE
 * when none. */
static gboolean
index_range (const GridBox *box, int c, double lo, double hi, double shift, int *first,
             int *last)
{
  double a = ceil ((lo - shift) / box->step) - box->lo[c];
  double b = floor ((hi - shift) / box->step) - box->lo[c];
  a = MAX (a, 0);
  b = MIN (b, box->n[c] - 1);
  if (!(a <= b))
    return FALSE;
  *first = (int) a;
  *last = (int) b;
  return TRUE;
}

/* Every crossing of the box's (shifted) columns with the triangles, in column order, each
 * column's by height. */
static void
find_crossings (BodyDensity *d, const GridBox *box, const double *x, const uint32_t *tri,
                size_t n_triangles)
{
  g_array_set_size (d->crossings, 0);
  double shift[2] = { COLUMN_SHIFT * G_SQRT2 * box->step, COLUMN_SHIFT * G_PI * box->step };
  for (size_t t = 0; t < n_triangles; t++)
    {
      const double *a = &x[3 * tri[3 * t]], *b = &x[3 * tri[3 * t + 1]],
                   *c = &x[3 * tri[3 * t + 2]];
      /* Twice the signed area of the triangle seen from above: its normal's z. */
      double area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
      if (area == 0)
        continue;
      int i0, i1, j0, j1;
      if (!index_range (box, 0, MIN (a[0], MIN (b[0], c[0])), MAX (a[0], MAX (b[0], c[0])),
                        shift[0], &i0, &i1)
          || !index_range (box, 1, MIN (a[1], MIN (b[1], c[1])),
                           MAX (a[1], MAX (b[1], c[1])), shift[1], &j0, &j1))
        continue;
      for (int j = j0; j <= j1; j++)
        for (int i = i0; i <= i1; i++)
          {
            double px = (box->lo[0] + i) * box->step + shift[0];
            double py = (box->lo[1] + j) * box->step + shift[1];
            /* Barycentric coordinates of the column in the projected triangle. */
            double la = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) / area;
            double lb = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) / area;
            double lc = 1 - la - lb;
            if (la < 0 || lb < 0 || lc < 0)
              continue;
            Crossing crossing = {
              .column = (size_t) j * (size_t) box->n[0] + (size_t) i,
              .z = la * a[2] + lb * b[2] + lc * c[2],
              /* An outward normal pointing up is where a column going up leaves. */
              .winding = area > 0 ? -1 : 1,
            };
            g_array_append_val (d->crossings, crossing);
          }
    }
  sort_crossings (d, box);
}

/* Each point's distance to the surface (up to SURFACE_REACH steps), closest triangle and the
 * closest point's barycentric coordinates, over the triangles not `excluded`. */
static void
find_distances (BodyDensity *d, const GridBox *box, const double *x, const uint32_t *tri,
                size_t n_triangles, const guint8 *excluded, const GridMask *mask)
{
  double reach = SURFACE_REACH * box->step;
  double *distance = (double *) d->distance->data;
  uint32_t *closest = (uint32_t *) d->triangle->data;
  double *bary = (double *) d->bary->data;
  double *direction = (double *) d->direction->data;
  double *along = (double *) d->edge->data;
  guint8 *on_face = (guint8 *) d->on_face->data;
  for (size_t p = 0; p < grid_box_points (box); p++)
    {
      distance[p] = reach;
      closest[p] = G_MAXUINT32;
    }
  for (size_t t = 0; t < n_triangles; t++)
    {
      if (excluded != NULL && excluded[t])
        continue;
      const double *v[3] = { &x[3 * tri[3 * t]], &x[3 * tri[3 * t + 1]],
                             &x[3 * tri[3 * t + 2]] };
      double e1[3], e2[3], normal[3];
      cwb_v3_sub (e1, v[1], v[0]);
      cwb_v3_sub (e2, v[2], v[0]);
      cwb_v3_cross (normal, e1, e2);
      double area = cwb_v3_norm (normal);
      if (area > 0)
        cwb_v3_scale (normal, normal, 1 / area);
      int first[3], last[3];
      gboolean inside = TRUE;
      for (int c = 0; c < 3 && inside; c++)
        inside = index_range (box, c, MIN (v[0][c], MIN (v[1][c], v[2][c])) - reach,
                              MAX (v[0][c], MAX (v[1][c], v[2][c])) + reach, 0, &first[c],
                              &last[c]);
      if (!inside || !grid_mask_any (mask, first, last))
        continue;
      for (int k = first[2]; k <= last[2]; k++)
        for (int j = first[1]; j <= last[1]; j++)
          for (int i = first[0]; i <= last[0]; i++)
            {
              if (!grid_mask_active (mask, i, j, k))
                continue;
              double r[3], w[3], q[3] = { 0, 0, 0 }, dr[3], off[3];
              grid_box_point (box, i, j, k, r);
              /* The distance to the triangle's plane bounds the distance to the triangle
               * from below: a point that far is no closer than the reach. */
              cwb_v3_sub (off, r, v[0]);
              if (area > 0 && fabs (cwb_v3_dot (off, normal)) >= reach)
                continue;
              int feature = cwb_triangle_closest_point (r, v[0], v[1], v[2], w);
              for (int m = 0; m < 3; m++)
                cwb_v3_axpy (q, w[m], v[m]);
              cwb_v3_sub (dr, r, q);
              double dist = cwb_v3_norm (dr);
              size_t p = grid_box_index (box, i, j, k);
              if (dist < distance[p])
                {
                  distance[p] = dist;
                  closest[p] = (uint32_t) t;
                  cwb_v3_copy (&bary[3 * p], w);
                  /* From the surface to the point; on the surface, the face's normal. */
                  if (dist > SURFACE_EPSILON * box->step)
                    cwb_v3_scale (&direction[3 * p], dr, 1 / dist);
                  else
                    cwb_v3_copy (&direction[3 * p], normal);
                  /* A closest point on an edge or a vertex is on a face where the point
                   * lies off it along the triangle's normal: the edge between two
                   * coplanar triangles (a box face's diagonal), a flat fan's vertex. */
                  on_face[p] = feature == CWB_TRIANGLE_FACE
                               || (dist > SURFACE_EPSILON * box->step && area > 0
                                   && fabs (cwb_v3_dot (dr, normal))
                                        >= (1 - FLAT_FEATURE_TOLERANCE) * dist);
                  cwb_v3_set (&along[3 * p], 0, 0, 0);
                  if (!on_face[p] && feature >= CWB_TRIANGLE_EDGE
                      && feature < CWB_TRIANGLE_VERTEX)
                    {
                      int e = feature - CWB_TRIANGLE_EDGE;
                      double edge[3];
                      cwb_v3_sub (edge, v[(e + 1) % 3], v[e]);
                      double length = cwb_v3_norm (edge);
                      if (length > 0)
                        cwb_v3_scale (&along[3 * p], edge, 1 / length);
                    }
                }
            }
    }
}

void
body_density_sample_surface (BodyDensity *d, const GridBox *box, const double *positions,
                             const uint32_t *triangles, size_t n_triangles)
{
  body_density_begin_surface (d, box, positions, triangles, n_triangles);
  body_density_finish_surface (d, positions, triangles, n_triangles, NULL, NULL);
}

void
body_density_begin_surface (BodyDensity *d, const GridBox *box, const double *positions,
                            const uint32_t *triangles, size_t n_triangles)
{
  d->box = *box;
  d->from_particles = FALSE;
  size_t n = grid_box_points (box);
  g_array_set_size (d->rho, (guint) n);
  g_array_set_size (d->distance, (guint) n);
  g_array_set_size (d->triangle, (guint) n);
  g_array_set_size (d->bary, (guint) (3 * n));
  g_array_set_size (d->direction, (guint) (3 * n));
  g_array_set_size (d->edge, (guint) (3 * n));
  g_array_set_size (d->on_face, (guint) n);
  g_array_set_size (d->inside, (guint) n);
  find_crossings (d, box, positions, triangles, n_triangles);
}

void
body_density_mark_inside (const BodyDensity *d, int cell, const int n_cells[3], guint8 *cells)
{
  const GridBox *box = &d->box;
  const Crossing *crossing = (const Crossing *) d->crossings->data;
  guint n_crossings = d->crossings->len;
  guint k = 0;
  while (k < n_crossings)
    {
      size_t column = crossing[k].column;
      int i = (int) (column % (size_t) box->n[0]), j = (int) (column / (size_t) box->n[0]);
      size_t row = ((size_t) (j / cell) * (size_t) n_cells[0]) + (size_t) (i / cell);
      /* The column's inside spans, from where the winding turns positive to where it falls
       * back, each widened by a point for the columns' shift and the points' rounding. */
      int winding = 0;
      double enter = 0;
      for (; k < n_crossings && crossing[k].column == column; k++)
        {
          int before = winding;
          winding += crossing[k].winding;
          if (before <= 0 && winding > 0)
            enter = crossing[k].z;
          else if (before > 0 && winding <= 0)
            {
              int first = (int) floor (enter / box->step) - box->lo[2] - 1;
              int last = (int) ceil (crossing[k].z / box->step) - box->lo[2] + 1;
              first = MAX (first, 0);
              last = MIN (last, box->n[2] - 1);
              for (int c = first / cell; first <= last && c <= last / cell; c++)
                cells[(size_t) c * (size_t) n_cells[0] * (size_t) n_cells[1] + row] = 1;
            }
        }
    }
}

void
body_density_finish_surface (BodyDensity *d, const double *positions, const uint32_t *triangles,
                             size_t n_triangles, const guint8 *excluded, const GridMask *mask)
{
  const GridBox *box = &d->box;
  find_distances (d, box, positions, triangles, n_triangles, excluded, mask);
  double *rho = (double *) d->rho->data;
  const double *distance = (const double *) d->distance->data;
  const Crossing *crossing = (const Crossing *) d->crossings->data;
  size_t next = 0, n_crossings = d->crossings->len;
  for (int j = 0; j < box->n[1]; j++)
    for (int i = 0; i < box->n[0]; i++)
      {
        size_t column = (size_t) j * (size_t) box->n[0] + (size_t) i;
        while (next < n_crossings && crossing[next].column < column)
          next++;
        int winding = 0;
        for (int k = 0; k < box->n[2]; k++)
          {
            double z = (box->lo[2] + k) * box->step;
            while (next < n_crossings && crossing[next].column == column
                   && crossing[next].z < z)
              winding += crossing[next++].winding;
            size_t p = grid_box_index (box, i, j, k);
            g_array_index (d->inside, guint8, p) = winding > 0;
            double x = (winding > 0 ? -distance[p] : distance[p]) / box->step;
            rho[p] = density_profile (x, NULL, NULL);
          }
      }
}

void
grid_mask_where_present (GridMask *mask, GArray *storage, const GridMask *within,
                         const BodyDensity *d)
{
  const GridBox *box = &d->box;
  g_array_set_size (storage, (guint) grid_box_points (box));
  guint8 *active = (guint8 *) storage->data;
  const double *rho = (const double *) d->rho->data;
  size_t p = 0;
  for (int k = 0; k < box->n[2]; k++)
    for (int j = 0; j < box->n[1]; j++)
      for (int i = 0; i < box->n[0]; i++, p++)
        active[p] = rho[p] > 0 && grid_mask_active (within, i, j, k);
  *mask = (GridMask) { .cell = 1, .n = { box->n[0], box->n[1], box->n[2] }, .active = active };
}

void
body_density_derivatives (const BodyDensity *d, int i, int j, int k, double g[3],
                          double hess[9])
{

  size_t p = grid_box_index (&d->box, i, j, k);
  double h = d->box.step, dist = g_array_index (d->distance, double, p);
  gboolean inside = g_array_index (d->inside, guint8, p);
  double slope, curvature;
  density_profile ((inside ? -dist : dist) / h, &slope, &curvature);
  memset (hess, 0, 9 * sizeof (double));
  cwb_v3_set (g, 0, 0, 0);
  if (slope == 0 && curvature == 0)
    return;
  /* With s = +-dist the signed distance (grad s = n outside, -n inside, n the unit
   * direction from the closest point): grad rho = S' grad s / h, and its Hessian
   * S'' grad s grad s^T / h^2 + S' Hess s / h, Hess s = +-P / dist with P the projection
   * off n about a vertex (I - n n^T), off n and the edge's direction t about an edge
   * (I - n n^T - t t^T), zero over a face's plane. */
  const double *n = &g_array_index (d->direction, double, 3 * p);
  /* On the surface itself n is the outward normal, grad s whichever side the scan
   * conversion put the point on. */
  double sign = inside && dist > SURFACE_EPSILON * h ? -1 : 1;
  cwb_v3_scale (g, n, sign * slope / h);
  gboolean curved = !g_array_index (d->on_face, guint8, p) && dist > SURFACE_EPSILON * h;
  const double *t = &g_array_index (d->edge, double, 3 * p);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      hess[3 * r + c] = curvature * n[r] * n[c] / (h * h)
                        + (curved ? sign * slope * ((r == c) - n[r] * n[c] - t[r] * t[c])
                                      / (dist * h)
                                  : 0);
}

gboolean
body_density_face_or_edge (const BodyDensity *d, int i, int j, int k, double direction[3],
                           double edge[3])
{
  size_t p = grid_box_index (&d->box, i, j, k);
  cwb_v3_set (edge, 0, 0, 0);
  if (d->from_particles || g_array_index (d->triangle, uint32_t, p) == G_MAXUINT32)
    return FALSE;
  cwb_v3_copy (direction, &g_array_index (d->direction, double, 3 * p));
  if (g_array_index (d->on_face, guint8, p))
    return TRUE;
  const double *t = &g_array_index (d->edge, double, 3 * p);
  if (!(g_array_index (d->distance, double, p) > SURFACE_EPSILON * d->box.step)
      || cwb_v3_dot (t, t) == 0)
    return FALSE;
  cwb_v3_copy (edge, t);
  return TRUE;
}

double
body_density_volume (const BodyDensity *d)
{
  double sum = 0;
  for (guint p = 0; p < d->rho->len; p++)
    sum += g_array_index (d->rho, double, p);
  return sum * d->box.step * d->box.step * d->box.step;
}

double
face_bins_add (GHashTable *faces, const double n[3], double bin, double area)
{
  gint64 key = 0;
  for (int c = 0; c < 3; c++)
    key = key * 64 + (gint64) lround (n[c] / bin) + 32;
  double *sum = g_hash_table_lookup (faces, &key);
  if (sum == NULL)
    {
      sum = g_new0 (double, 1);
      g_hash_table_insert (faces, g_memdup2 (&key, sizeof key), sum);
    }
  *sum += area;
  return *sum;
}

/* A body's density over a box of the grid (see the header). */
#include "density_grid.h"

#include <math.h>

/* The columns of the scan conversion stand this share of a step off the lattice (along x and
 * y, by different irrational multiples), so that no column runs exactly along a triangle's
 * edge or through a vertex: a face of a box whose edges lie on the lattice would otherwise
 * count one crossing twice or not at all. The columns only decide inside and outside beyond
 * half a step from the surface, where a shift this small changes nothing. */
#define COLUMN_SHIFT 1e-7

/* Distances are taken up to this many steps from the surface: a point beyond it has no
 * point of the ramp (half a step thick on each side) among its central differences' reach
 * (one step). */
#define SURFACE_REACH 1.5

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
  d->crossings = g_array_new (FALSE, FALSE, sizeof (Crossing));
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
  g_array_unref (d->crossings);
  g_free (d);
}

static int
compare_crossings (const void *a, const void *b)
{
  const Crossing *x = a, *y = b;
  if (x->column != y->column)
    return x->column < y->column ? -1 : 1;
  return (x->z > y->z) - (x->z < y->z);
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

/* Every crossing of the box's (shifted) columns with the triangles, sorted by column then
 * height. */
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
  qsort (d->crossings->data, d->crossings->len, sizeof (Crossing), compare_crossings);
}

/* Each point's distance to the surface (up to SURFACE_REACH steps), closest triangle and the
 * closest point's barycentric coordinates. */
static void
find_distances (BodyDensity *d, const GridBox *box, const double *x, const uint32_t *tri,
                size_t n_triangles)
{
  double reach = SURFACE_REACH * box->step;
  double *distance = (double *) d->distance->data;
  uint32_t *closest = (uint32_t *) d->triangle->data;
  double *bary = (double *) d->bary->data;
  for (size_t p = 0; p < grid_box_points (box); p++)
    {
      distance[p] = reach;
      closest[p] = G_MAXUINT32;
    }
  for (size_t t = 0; t < n_triangles; t++)
    {
      const double *v[3] = { &x[3 * tri[3 * t]], &x[3 * tri[3 * t + 1]],
                             &x[3 * tri[3 * t + 2]] };
      int first[3], last[3];
      gboolean inside = TRUE;
      for (int c = 0; c < 3 && inside; c++)
        inside = index_range (box, c, MIN (v[0][c], MIN (v[1][c], v[2][c])) - reach,
                              MAX (v[0][c], MAX (v[1][c], v[2][c])) + reach, 0, &first[c],
                              &last[c]);
      if (!inside)
        continue;
      for (int k = first[2]; k <= last[2]; k++)
        for (int j = first[1]; j <= last[1]; j++)
          for (int i = first[0]; i <= last[0]; i++)
            {
              double r[3], w[3], q[3] = { 0, 0, 0 }, dr[3];
              grid_box_point (box, i, j, k, r);
              cwb_triangle_closest_point (r, v[0], v[1], v[2], w);
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
                }
            }
    }
}

void
body_density_sample_surface (BodyDensity *d, const GridBox *box, const double *positions,
                             const uint32_t *triangles, size_t n_triangles)
{
  d->box = *box;
  size_t n = grid_box_points (box);
  g_array_set_size (d->rho, (guint) n);
  g_array_set_size (d->distance, (guint) n);
  g_array_set_size (d->triangle, (guint) n);
  g_array_set_size (d->bary, (guint) (3 * n));
  find_crossings (d, box, positions, triangles, n_triangles);
  find_distances (d, box, positions, triangles, n_triangles);
  double *rho = (double *) d->rho->data;
  const double *distance = (const double *) d->distance->data;
  const Crossing *crossing = (const Crossing *) d->crossings->data;
  size_t next = 0, n_crossings = d->crossings->len;
  double half = 0.5 * box->step;
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
            double dist = distance[p];
            if (winding > 0)
              rho[p] = dist < half ? 0.5 + dist / box->step : 1;
            else
              rho[p] = dist < half ? 0.5 - dist / box->step : 0;
          }
      }
}

static double
rho_at (const BodyDensity *d, int i, int j, int k)
{
  return g_array_index (d->rho, double, grid_box_index (&d->box, i, j, k));
}

/* The neighbours of index x along an axis of n points for a difference, and the spacing
 * (in steps) between them: central inside, one-sided on the faces, none for n = 1. */
static int
neighbours (int x, int n, int *below, int *above)
{
  *below = x > 0 ? x - 1 : x;
  *above = x + 1 < n ? x + 1 : x;
  return *above - *below;
}

void
body_density_gradient (const BodyDensity *d, int i, int j, int k, double g[3])
{
  int at[3] = { i, j, k };
  for (int c = 0; c < 3; c++)
    {
      int lo, hi;
      int span = neighbours (at[c], d->box.n[c], &lo, &hi);
      if (span == 0)
        {
          g[c] = 0;
          continue;
        }
      int a[3] = { i, j, k }, b[3] = { i, j, k };
      a[c] = hi;
      b[c] = lo;
      g[c] = (rho_at (d, a[0], a[1], a[2]) - rho_at (d, b[0], b[1], b[2]))
             / (span * d->box.step);
    }
}

void
body_density_hessian (const BodyDensity *d, int i, int j, int k, double hess[9])
{
  int at[3] = { i, j, k };
  double h2 = d->box.step * d->box.step;
  memset (hess, 0, 9 * sizeof (double));
  for (int c = 0; c < 3; c++)
    if (at[c] == 0 || at[c] + 1 >= d->box.n[c])
      return;
  for (int r = 0; r < 3; r++)
    for (int c = r; c < 3; c++)
      {
        double value;
        if (r == c)
          {
            int a[3] = { i, j, k }, b[3] = { i, j, k };
            a[c]++;
            b[c]--;
            value = (rho_at (d, a[0], a[1], a[2]) - 2 * rho_at (d, i, j, k)
                     + rho_at (d, b[0], b[1], b[2]))
                    / h2;
          }
        else
          {
            double sum = 0;
            for (int sr = -1; sr <= 1; sr += 2)
              for (int sc = -1; sc <= 1; sc += 2)
                {
                  int a[3] = { i, j, k };
                  a[r] += sr;
                  a[c] += sc;
                  sum += sr * sc * rho_at (d, a[0], a[1], a[2]);
                }
            value = sum / (4 * h2);
          }
        hess[3 * r + c] = hess[3 * c + r] = value;
      }
}

double
body_density_volume (const BodyDensity *d)
{
  double sum = 0;
  for (guint p = 0; p < d->rho->len; p++)
    sum += g_array_index (d->rho, double, p);
  return sum * d->box.step * d->box.step * d->box.step;
}

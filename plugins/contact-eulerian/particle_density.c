/* Volume particles sampled into the Eulerian grid (see the header). */
#include "particle_density.h"

#include <math.h>

/* A particle's kernel half-width: a cell, or its own size when larger. */
static double
kernel_half_width (double radius, double step)
{
  double size = cbrt (4.0 / 3.0 * G_PI) * radius;
  return MAX (step, size);
}

double
particle_density_reach (const CwbGeometry *g, double step)
{
  double reach = step;
  for (size_t i = 0; g->radii != NULL && i < g->n_points; i++)
    reach = MAX (reach, kernel_half_width (g->radii[i], step));
  return reach;
}

/* The tent's lattice indices along one axis, [*first, *first + count), and its values. */
static int
axis_tent (double q, double s, double step, int *first, double *values, int capacity)
{
  int k0 = (int) ceil ((q - s) / step), k1 = (int) floor ((q + s) / step);
  int count = 0;
  for (int k = k0; k <= k1 && count < capacity; k++)
    values[count++] = MAX (0, 1 - fabs (k * step - q) / s);
  *first = k0;
  return count;
}

/* Buckets of side `reach` over the box widened by one bucket: every particle whose kernel
 * can touch a point of the box, so that a point finds its particles in the 27 buckets
 * around its own. */
static void
bucket_particles (BodyDensity *d, const GridBox *box, const CwbGeometry *g)
{
  size_t n_buckets = 1;
  for (int c = 0; c < 3; c++)
    {
      d->bucket_origin[c] = box->lo[c] * box->step - d->reach;
      d->bucket_n[c] = (int) ceil (((box->n[c] - 1) * box->step + 2 * d->reach) / d->reach) + 1;
      n_buckets *= (size_t) d->bucket_n[c];
    }
  g_array_set_size (d->bucket_start, (guint) (n_buckets + 1));
  guint *start = (guint *) d->bucket_start->data;
  memset (start, 0, (n_buckets + 1) * sizeof (guint));
  g_autofree size_t *bucket_of = g_new (size_t, MAX (g->n_points, 1));
  for (size_t i = 0; i < g->n_points; i++)
    {
      bucket_of[i] = G_MAXSIZE;
      size_t index = 0;
      gboolean inside = TRUE;
      for (int c = 2; c >= 0; c--)
        {
          double x = (g->positions[3 * i + c] - d->bucket_origin[c]) / d->reach;
          int b = (int) floor (x);
          inside &= x >= 0 && b < d->bucket_n[c];
          index = index * (size_t) d->bucket_n[c] + (size_t) CLAMP (b, 0, d->bucket_n[c] - 1);
        }
      if (!inside)
        continue;
      bucket_of[i] = index;
      start[index + 1]++;
    }
  for (size_t b = 0; b < n_buckets; b++)
    start[b + 1] += start[b];
  g_array_set_size (d->bucket_members, start[n_buckets]);
  uint32_t *members = (uint32_t *) d->bucket_members->data;
  g_autofree guint *fill = g_memdup2 (start, n_buckets * sizeof (guint));
  for (size_t i = 0; i < g->n_points; i++)
    if (bucket_of[i] != G_MAXSIZE)
      members[fill[bucket_of[i]]++] = (uint32_t) i;
}

void
body_density_sample_particles (BodyDensity *d, const GridBox *box, const CwbGeometry *g)
{
  d->box = *box;
  d->from_particles = TRUE;
  size_t n = grid_box_points (box);
  double step = box->step, cell = step * step * step;
  g_array_set_size (d->rho, (guint) n);
  g_array_set_size (d->on_face, (guint) n);
  memset (d->rho->data, 0, n * sizeof (double));
  memset (d->on_face->data, 0, n);
  g_array_set_size (d->particle_norm, (guint) g->n_points);
  double *rho = (double *) d->rho->data, *norm = (double *) d->particle_norm->data;
  d->reach = particle_density_reach (g, step);
  int capacity = (int) ceil (2 * d->reach / step) + 2;
  g_autofree double *tent = g_new (double, 3 * capacity);
  for (size_t p = 0; p < g->n_points; p++)
    {
      const double *q = &g->positions[3 * p];
      double s = kernel_half_width (g->radii[p], step);
      double volume = 4.0 / 3.0 * G_PI * g->radii[p] * g->radii[p] * g->radii[p];
      int first[3], count[3];
      norm[p] = 1;
      for (int c = 0; c < 3; c++)
        {
          count[c] = axis_tent (q[c], s, step, &first[c], &tent[c * capacity], capacity);
          double sum = 0;
          for (int m = 0; m < count[c]; m++)
            sum += tent[c * capacity + m];
          norm[p] *= sum;
        }
      if (!(norm[p] > 0))
        continue;
      double share = volume / (cell * norm[p]);
      for (int mk = 0; mk < count[2]; mk++)
        {
          int k = first[2] + mk - box->lo[2];
          if (k < 0 || k >= box->n[2])
            continue;
          for (int mj = 0; mj < count[1]; mj++)
            {
              int j = first[1] + mj - box->lo[1];
              if (j < 0 || j >= box->n[1])
                continue;
              double wjk = tent[2 * capacity + mk] * tent[capacity + mj] * share;
              for (int mi = 0; mi < count[0]; mi++)
                {
                  int i = first[0] + mi - box->lo[0];
                  if (i >= 0 && i < box->n[0])
                    rho[grid_box_index (box, i, j, k)] += tent[mi] * wjk;
                }
            }
        }
    }
  for (size_t p = 0; p < n; p++)
    rho[p] = MIN (rho[p], 1);
  bucket_particles (d, box, g);
}

/* The sampled density at (i, j, k), 0 outside the box. */
static double
rho_at (const BodyDensity *d, int i, int j, int k)
{
  const GridBox *b = &d->box;
  if (i < 0 || j < 0 || k < 0 || i >= b->n[0] || j >= b->n[1] || k >= b->n[2])
    return 0;
  return g_array_index (d->rho, double, grid_box_index (b, i, j, k));
}

void
particle_density_derivatives (const BodyDensity *d, int i, int j, int k, double g[3],
                              double hess[9])
{
  const int at[3] = { i, j, k };
  double h = d->box.step, center = rho_at (d, i, j, k);
  for (int a = 0; a < 3; a++)
    {
      int lo[3] = { i, j, k }, hi[3] = { i, j, k };
      lo[a] = MAX (at[a] - 1, 0);
      hi[a] = MIN (at[a] + 1, d->box.n[a] - 1);
      g[a] = hi[a] > lo[a] ? (rho_at (d, hi[0], hi[1], hi[2]) - rho_at (d, lo[0], lo[1], lo[2]))
                               / ((hi[a] - lo[a]) * h)
                           : 0;
      for (int b = a; b < 3; b++)
        {
          double value;
          if (b == a)
            {
              int m[3] = { i, j, k }, p[3] = { i, j, k };
              m[a]--;
              p[a]++;
              value = (rho_at (d, p[0], p[1], p[2]) - 2 * center + rho_at (d, m[0], m[1], m[2]))
                      / (h * h);
            }
          else
            {
              double sum = 0;
              for (int sa = -1; sa <= 1; sa += 2)
                for (int sb = -1; sb <= 1; sb += 2)
                  {
                    int x[3] = { i, j, k };
                    x[a] += sa;
                    x[b] += sb;
                    sum += sa * sb * rho_at (d, x[0], x[1], x[2]);
                  }
              value = sum / (4 * h * h);
            }
          hess[3 * a + b] = hess[3 * b + a] = value;
        }
    }
}

void
particle_grid_point_map (const BodyDensity *d, const CwbGeometry *g, int i, int j, int k,
                         GridPoint *m)
{
  *m = (GridPoint) { 0 };
  double r[3], step = d->box.step;
  grid_box_point (&d->box, i, j, k, r);
  int b[3];
  for (int c = 0; c < 3; c++)
    b[c] = (int) floor ((r[c] - d->bucket_origin[c]) / d->reach);
  const guint *start = (const guint *) d->bucket_start->data;
  const uint32_t *members = (const uint32_t *) d->bucket_members->data;
  const double *norm = (const double *) d->particle_norm->data;
  int kept = 0;
  for (int bz = MAX (b[2] - 1, 0); bz <= MIN (b[2] + 1, d->bucket_n[2] - 1); bz++)
    for (int by = MAX (b[1] - 1, 0); by <= MIN (b[1] + 1, d->bucket_n[1] - 1); by++)
      for (int bx = MAX (b[0] - 1, 0); bx <= MIN (b[0] + 1, d->bucket_n[0] - 1); bx++)
        {
          size_t bucket = ((size_t) bz * (size_t) d->bucket_n[1] + (size_t) by)
                          * (size_t) d->bucket_n[0] + (size_t) bx;
          for (guint e = start[bucket]; e < start[bucket + 1]; e++)
            {
              uint32_t p = members[e];
              double s = kernel_half_width (g->radii[p], step), t = 1;
              for (int c = 0; c < 3 && t > 0; c++)
                t *= MAX (0, 1 - fabs (r[c] - g->positions[3 * p + c]) / s);
              if (!(t > 0) || !(norm[p] > 0))
                continue;
              double w = t / norm[p] * g->masses[p];
              /* Keep the heaviest: replace the lightest kept term when full. */
              int slot = kept;
              if (kept == GRID_POINT_TERMS)
                {
                  slot = 0;
                  for (int x = 1; x < GRID_POINT_TERMS; x++)
                    if (m->weight[x] < m->weight[slot])
                      slot = x;
                  if (m->weight[slot] >= w)
                    continue;
                }
              else
                kept++;
              m->point[slot] = p;
              m->weight[slot] = w;
            }
        }
  double total = 0;
  for (int x = 0; x < kept; x++)
    total += m->weight[x];
  for (int x = 0; x < kept; x++)
    m->weight[x] /= total;
}

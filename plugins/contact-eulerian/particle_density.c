/* Volume particles sampled into the Eulerian grid (see the header). */
#include "particle_density.h"

#include <math.h>

/* The half-side of the cube of a particle of this radius (the cube of the ball's volume). */
static double
cube_half_side (double radius)
{
  return 0.5 * cbrt (4.0 / 3.0 * G_PI) * radius;
}

/* The half-side of particle p's cube. */
static double
half_side (const CwbGeometry *g, size_t p)
{
  return cube_half_side (g->radii[p]);
}

double
particle_density_reach (const CwbGeometry *g, double step)
{
  /* The half-side grows with the radius: the largest radius's. */
  double radius = 0;
  for (size_t p = 0; g->radii != NULL && p < g->n_points; p++)
    radius = MAX (radius, g->radii[p]);
  return cube_half_side (radius) + step;
}

double
particle_density_side (const CwbGeometry *g)
{
  return 2 * particle_density_reach (g, 0);
}

/* phi (u) = C (u + a) - C (u - a), with C (v) = 1 - density_profile (v / h). */
static double
axis_factor (double u, double a, double h)
{
  return density_profile ((u - a) / h, NULL, NULL) - density_profile ((u + a) / h, NULL, NULL);
}

/* phi and its first two derivatives: C' (v) = -slope (v / h) / h, C'' (v) =
 * -curvature / h^2. */
static double
axis_factor_derivatives (double u, double a, double h, double *first, double *second)
{
  double s_plus, c_plus, s_minus, c_minus;
  double p_plus = density_profile ((u + a) / h, &s_plus, &c_plus);
  double p_minus = density_profile ((u - a) / h, &s_minus, &c_minus);
  *first = (s_minus - s_plus) / h;
  *second = (c_minus - c_plus) / (h * h);
  return p_minus - p_plus;
}

/* Buckets of side `reach` over the box widened by one bucket, holding the particles `near`
 * (in index order: those whose cubes reach a point of the box), so that a point finds its
 * particles in the 27 buckets around its own. */
static void
bucket_particles (BodyDensity *d, const GridBox *box, const CwbGeometry *g,
                  const uint32_t *near, size_t n_near)
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
  g_autofree size_t *bucket_of = g_new (size_t, MAX (n_near, 1));
  for (size_t i = 0; i < n_near; i++)
    {
      bucket_of[i] = G_MAXSIZE;
      size_t index = 0;
      gboolean inside = TRUE;
      for (int c = 2; c >= 0; c--)
        {
          double x = (g->positions[3 * near[i] + c] - d->bucket_origin[c]) / d->reach;
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
  for (size_t i = 0; i < n_near; i++)
    if (bucket_of[i] != G_MAXSIZE)
      members[fill[bucket_of[i]]++] = near[i];
}

/* The hash key of the bucket with integer coordinates b, 21 bits each. */
static gint64
bucket_key (const gint64 b[3])
{
  return ((b[0] & 0x1fffff) * 2097152 + (b[1] & 0x1fffff)) * 2097152 + (b[2] & 0x1fffff);
}

/* The particles in buckets of side `side` keyed by bucket_key of their integer coordinates
 * (GArrays of uint32_t indices): a point's particles within `side` lie in the 27 buckets
 * around its own. */
static GHashTable *
bucket_table (const CwbGeometry *g, double side)
{
  GHashTable *buckets = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                               (GDestroyNotify) g_array_unref);
  for (size_t p = 0; p < g->n_points; p++)
    {
      gint64 b[3];
      for (int c = 0; c < 3; c++)
        b[c] = (gint64) floor (g->positions[3 * p + c] / side);
      gint64 key = bucket_key (b);
      GArray *members = g_hash_table_lookup (buckets, &key);
      if (members == NULL)
        {
          members = g_array_new (FALSE, FALSE, sizeof (uint32_t));
          g_hash_table_insert (buckets, g_memdup2 (&key, sizeof key), members);
        }
      uint32_t index = (uint32_t) p;
      g_array_append_val (members, index);
    }
  return buckets;
}

/* The bucket (bucket_table) offset by (dx, dy, dz) from the one holding x, or NULL. */
static GArray *
bucket_near (GHashTable *buckets, double side, const double x[3], int dx, int dy, int dz)
{
  gint64 b[3] = { dx, dy, dz };
  for (int c = 0; c < 3; c++)
    b[c] += (gint64) floor (x[c] / side);
  gint64 key = bucket_key (b);
  return g_hash_table_lookup (buckets, &key);
}

/* The sum of the particles' smoothed cubes at x (buckets of side `reach`). */
static double
density_at (const CwbGeometry *g, GHashTable *buckets, double reach, double step,
            const double x[3])
{
  double sum = 0;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++)
        {
          GArray *members = bucket_near (buckets, reach, x, dx, dy, dz);
          for (guint e = 0; members != NULL && e < members->len; e++)
            {
              uint32_t q = g_array_index (members, uint32_t, e);
              const double *rq = &g->positions[3 * q];
              double a = half_side (g, q), value = 1;
              for (int c = 0; c < 3 && value > 0; c++)
                value *= MAX (axis_factor (x[c] - rq[c], a, step), 0);
              sum += value;
            }
        }
  return sum;
}

/* Whether a particle's centre lies within `radius` (at most the buckets' side) of x. */
static gboolean
particle_near (const CwbGeometry *g, GHashTable *buckets, double side, const double x[3],
               double radius)
{
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++)
        {
          GArray *members = bucket_near (buckets, side, x, dx, dy, dz);
          for (guint e = 0; members != NULL && e < members->len; e++)
            {
              double d[3];
              cwb_v3_sub (d, &g->positions[3 * g_array_index (members, uint32_t, e)], x);
              if (cwb_v3_norm (d) < radius)
                return TRUE;
            }
        }
  return FALSE;
}

double
particle_density_face_scale (const CwbGeometry *g, double step)
{
  if (g->n_points == 0 || g->radii == NULL)
    return 1;
  double reach = particle_density_reach (g, step);
  g_autoptr (GHashTable) buckets = bucket_table (g, reach);
  /* Each particle's six face centres along the grid's axes; a face is covered where a
   * neighbour's centre lies within 3/4 of a side of where a lattice neighbour's would (a
   * lattice turned by 20 degrees puts it 0.35 of a side from there, a diagonal neighbour a
   * side). Up to 1/2: a thick body's face is there already. */
  double face = 0;
  for (size_t p = 0; p < g->n_points && face < 0.5; p++)
    for (int c = 0; c < 6; c++)
      {
        double a = half_side (g, p), x[3], neighbour[3];
        cwb_v3_copy (x, &g->positions[3 * p]);
        cwb_v3_copy (neighbour, x);
        x[c / 2] += c % 2 ? -a : a;
        neighbour[c / 2] += c % 2 ? -2 * a : 2 * a;
        if (!particle_near (g, buckets, reach, neighbour, 1.5 * a))
          face = MAX (face, density_at (g, buckets, reach, step, x));
      }
  return face > 0 ? MIN (2 * face, 1) : 1;
}

void
particle_density_surface (const CwbGeometry *g, double normal_bin, double *area,
                          double *flat)
{
  *area = *flat = 0;
  if (g->n_points == 0 || g->radii == NULL)
    return;
  double side = 0;
  for (size_t p = 0; p < g->n_points; p++)
    side = MAX (side, 2 * half_side (g, p));
  double near = 1.2 * side;   /* a lattice neighbour's distance, with partial cells' shifts */
  g_autoptr (GHashTable) buckets = bucket_table (g, near);
  g_autoptr (GHashTable) faces = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                        g_free);
  for (size_t p = 0; p < g->n_points; p++)
    {
      const double *r = &g->positions[3 * p];
      double toward[3] = { 0, 0, 0 };
      int neighbours = 0;
      for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++)
            {
              GArray *members = bucket_near (buckets, near, r, dx, dy, dz);
              for (guint e = 0; members != NULL && e < members->len; e++)
                {
                  uint32_t q = g_array_index (members, uint32_t, e);
                  double d[3];
                  cwb_v3_sub (d, &g->positions[3 * q], r);
                  double length = cwb_v3_norm (d);
                  if (q == p || length > near)
                    continue;
                  neighbours++;
                  cwb_v3_axpy (toward, 1 / length, d);
                }
            }
      if (neighbours >= 6)
        continue;
      /* A face particle: its cube's missing faces, outward opposite its neighbours. */
      double face = (6 - neighbours) * side * side, length = cwb_v3_norm (toward);
      *area += face;
      /* Neighbours on opposite sides cancel (a row's middle, or round-off): no normal. */
      if (length < 0.5)
        continue;
      double outward[3];
      cwb_v3_scale (outward, toward, -1 / length);
      double bin = face_bins_add (faces, outward, normal_bin, side * side);
      *flat = MAX (*flat, bin);
    }
}

void
body_density_sample_particles (BodyDensity *d, const GridBox *box, const CwbGeometry *g,
                               const GridMask *mask, double face_scale)
{
  d->box = *box;
  d->face_scale = face_scale;
  d->from_particles = TRUE;
  size_t n = grid_box_points (box);
  double h = box->step;
  g_array_set_size (d->rho, (guint) n);
  g_array_set_size (d->on_face, (guint) n);
  memset (d->rho->data, 0, n * sizeof (double));
  memset (d->on_face->data, 0, n);
  double *rho = (double *) d->rho->data;
  d->reach = particle_density_reach (g, h);
  int capacity = (int) ceil (2 * d->reach / h) + 2;
  g_autofree double *factor = g_new (double, 3 * capacity);
  /* The particles whose cubes reach a point of the box, for the buckets. */
  g_autofree uint32_t *near = g_new (uint32_t, MAX (g->n_points, 1));
  size_t n_near = 0;
  double box_min[3], box_max[3];
  for (int c = 0; c < 3; c++)
    {
      box_min[c] = box->lo[c] * h;
      box_max[c] = (box->lo[c] + box->n[c] - 1) * h;
    }
  for (size_t p = 0; p < g->n_points; p++)
    {
      const double *q = &g->positions[3 * p];
      double a = half_side (g, p);
      /* A pair's box is mostly a thin slab where the bodies meet: most particles are
       * farther from it than their cubes reach, which the box's corners tell without
       * rounding (the lattice test below decides at the edge). */
      if (q[0] + a + h < box_min[0] || q[0] - a - h > box_max[0]
          || q[1] + a + h < box_min[1] || q[1] - a - h > box_max[1]
          || q[2] + a + h < box_min[2] || q[2] - a - h > box_max[2])
        continue;
      /* The box's points the particle reaches, along each axis; none: skip it before any
       * profile is evaluated. */
      int first[3], count[3];
      gboolean reaches = TRUE;
      for (int c = 0; c < 3 && reaches; c++)
        {
          int k0 = (int) ceil ((q[c] - a - h) / h), k1 = (int) floor ((q[c] + a + h) / h);
          first[c] = MAX (k0, box->lo[c]);
          count[c] = MIN (MIN (k1, box->lo[c] + box->n[c] - 1) - first[c] + 1, capacity);
          reaches = count[c] > 0;
        }
      if (!reaches)
        continue;
      near[n_near++] = (uint32_t) p;
      int lo[3], hi[3];
      for (int c = 0; c < 3; c++)
        {
          lo[c] = first[c] - box->lo[c];
          hi[c] = lo[c] + count[c] - 1;
        }
      if (!grid_mask_any (mask, lo, hi))
        continue;
      for (int c = 0; c < 3; c++)
        for (int m = 0; m < count[c]; m++)
          factor[c * capacity + m] = axis_factor ((first[c] + m) * h - q[c], a, h);
      for (int mk = 0; mk < count[2]; mk++)
        for (int mj = 0; mj < count[1]; mj++)
          {
            double fjk = factor[2 * capacity + mk] * factor[capacity + mj];
            if (fjk == 0)
              continue;
            int k = first[2] + mk - box->lo[2], j = first[1] + mj - box->lo[1];
            for (int mi = 0; mi < count[0]; mi++)
              rho[grid_box_index (box, first[0] + mi - box->lo[0], j, k)] += factor[mi] * fjk;
          }
    }
  for (size_t p = 0; p < n; p++)
    rho[p] = MIN (rho[p] / d->face_scale, 1);
  bucket_particles (d, box, g, near, n_near);
}

/* Keeps the heaviest GRID_POINT_TERMS of the weights offered: replaces the lightest kept. */
static void
keep_heaviest (GridPoint *m, int *kept, uint32_t point, double weight)
{
  int slot = *kept;
  if (*kept == GRID_POINT_TERMS)
    {
      slot = 0;
      for (int x = 1; x < GRID_POINT_TERMS; x++)
        if (m->weight[x] < m->weight[slot])
          slot = x;
      if (m->weight[slot] >= weight)
        return;
    }
  else
    (*kept)++;
  m->point[slot] = point;
  m->weight[slot] = weight;
}

void
particle_density_sample (const BodyDensity *d, const CwbGeometry *g, int i, int j, int k,
                         DensitySample *sample, GridPoint *m)
{
  *m = (GridPoint) { 0 };
  *sample = (DensitySample) { 0 };
  double r[3], h = d->box.step, sum = 0;
  grid_box_point (&d->box, i, j, k, r);
  int b[3];
  for (int c = 0; c < 3; c++)
    b[c] = (int) floor ((r[c] - d->bucket_origin[c]) / d->reach);
  const guint *start = (const guint *) d->bucket_start->data;
  const uint32_t *members = (const uint32_t *) d->bucket_members->data;
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
              double a = half_side (g, p), f[3], f1[3], f2[3];
              const double *q = &g->positions[3 * p];
              if (fabs (r[0] - q[0]) >= a + h || fabs (r[1] - q[1]) >= a + h
                  || fabs (r[2] - q[2]) >= a + h)
                continue;
              gboolean reached = TRUE;
              for (int c = 0; c < 3 && reached; c++)
                {
                  f[c] = axis_factor_derivatives (r[c] - q[c], a, h, &f1[c], &f2[c]);
                  reached = f[c] > 0;
                }
              if (!reached)
                continue;
              double value = f[0] * f[1] * f[2];
              sum += value;
              /* grad = (f1 f f, f f1 f, f f f1); Hessian: f2 on the diagonal, f1 f1 f off. */
              for (int x = 0; x < 3; x++)
                {
                  int y = (x + 1) % 3, z = (x + 2) % 3;
                  sample->gradient[x] += f1[x] * f[y] * f[z];
                  sample->hessian[4 * x] += f2[x] * f[y] * f[z];
                  double cross = f1[x] * f1[y] * f[z];
                  sample->hessian[3 * x + y] += cross;
                  sample->hessian[3 * y + x] += cross;
                }
              /* Eq. 6: w_ij m_i with w_ij = rho_i (r_j) h^3 / V_i. */
              double volume = 8 * a * a * a;
              keep_heaviest (m, &kept, p, value * h * h * h / volume * g->masses[p]);
            }
        }
  sum /= d->face_scale;
  for (int x = 0; x < 3; x++)
    sample->gradient[x] /= d->face_scale;
  for (int x = 0; x < 9; x++)
    sample->hessian[x] /= d->face_scale;
  sample->rho = MIN (sum, 1);
  if (sum > 1)
    {
      /* Clamped: the density does not change with a small move. */
      memset (sample->gradient, 0, sizeof sample->gradient);
      memset (sample->hessian, 0, sizeof sample->hessian);
    }
  double total = 0;
  for (int x = 0; x < kept; x++)
    total += m->weight[x];
  for (int x = 0; x < kept && total > 0; x++)
    m->weight[x] /= total;
  memcpy (m->carry, m->weight, sizeof m->carry);
}

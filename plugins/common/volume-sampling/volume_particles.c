/* The lattice points inside a closed surface (volume_particles.h). */
#include "volume_particles.h"


/* The lattice's columns are moved off its regular positions by this share of the spacing
 * (two different, irrational-looking shares in x and y) so that a column through a mesh
 * vertex or edge on the lattice (a box's edges on a lattice plane) is not counted twice or
 * missed: it then passes 1e-7 s beside it, far beyond rounding and far below the sampling's
 * own error. */
#define COLUMN_SHIFT_X 1.37e-7
#define COLUMN_SHIFT_Y 0.71e-7

typedef struct Crossing {
  size_t column;
  double z;
} Crossing;

static int
crossing_compare (const void *pa, const void *pb)
{
  const Crossing *a = pa, *b = pb;
  if (a->column != b->column)
    return a->column < b->column ? -1 : 1;
  return (a->z > b->z) - (a->z < b->z);
}

void
volume_particles_clear (VolumeParticles *particles)
{
  g_clear_pointer (&particles->positions, g_free);
  g_clear_pointer (&particles->volumes, g_free);
  particles->n = 0;
  particles->volume = 0;
}

void
volume_particles_layout (const VolumeParticles *particles, double mass, double **radii,
                         double **masses)
{
  *radii = g_new (double, MAX (particles->n, 1));
  *masses = g_new (double, MAX (particles->n, 1));
  for (size_t k = 0; k < particles->n; k++)
    {
      (*radii)[k] = volume_particles_radius (particles->volumes[k]);
      (*masses)[k] = mass * particles->volumes[k] / particles->volume;
    }
}

/* The z crossings of every column with the triangles, sorted by column and height: each
 * triangle visits the columns under its projection. */
static GArray *
column_crossings (const CwbSurfaceMesh *surface, const double origin[2], double spacing,
                  const int n[2])
{
  GArray *crossings = g_array_new (FALSE, FALSE, sizeof (Crossing));
  const double *x = surface->vertices;
  for (size_t t = 0; t < surface->n_triangles; t++)
    {
      const double *p[3];
      double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
      for (int c = 0; c < 3; c++)
        {
          p[c] = &x[3 * surface->triangles[3 * t + c]];
          for (int a = 0; a < 2; a++)
            {
              lo[a] = MIN (lo[a], p[c][a]);
              hi[a] = MAX (hi[a], p[c][a]);
            }
        }
      /* Signed doubled area of the projection: a triangle seen edge-on crosses nothing. */
      double area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1])
                    - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
      if (area == 0)
        continue;
      int i0 = MAX (0, (int) ceil ((lo[0] - origin[0]) / spacing));
      int i1 = MIN (n[0] - 1, (int) floor ((hi[0] - origin[0]) / spacing));
      int j0 = MAX (0, (int) ceil ((lo[1] - origin[1]) / spacing));
      int j1 = MIN (n[1] - 1, (int) floor ((hi[1] - origin[1]) / spacing));
      for (int j = j0; j <= j1; j++)
        for (int i = i0; i <= i1; i++)
          {
            double cx = origin[0] + i * spacing, cy = origin[1] + j * spacing;
            double w[3];
            for (int c = 0; c < 3; c++)
              {
                const double *u = p[(c + 1) % 3], *v = p[(c + 2) % 3];
                w[c] = ((u[0] - cx) * (v[1] - cy) - (v[0] - cx) * (u[1] - cy)) / area;
              }
            if (w[0] < 0 || w[1] < 0 || w[2] < 0)
              continue;
            Crossing crossing = {
              .column = (size_t) j * (size_t) n[0] + (size_t) i,
              .z = w[0] * p[0][2] + w[1] * p[1][2] + w[2] * p[2][2],
            };
            g_array_append_val (crossings, crossing);
          }
    }
  g_array_sort (crossings, crossing_compare);
  return crossings;
}

gboolean
volume_particles_sample (const CwbSurfaceMesh *surface, double spacing, const char *body_name,
                         VolumeParticles *out, GError **error)
{
  *out = (VolumeParticles) { 0 };
  const char *name = body_name != NULL ? body_name : "(unnamed)";
  if (surface == NULL || surface->n_triangles == 0 || !surface->closed)
    {
      g_set_error (error, VOLUME_PARTICLES_ERROR, 0,
                   "body '%s': sampling the volume into particles needs a closed surface",
                   name);
      return FALSE;
    }
  double lo[3], hi[3], size = 0;
  for (int c = 0; c < 3; c++)
    {
      lo[c] = INFINITY;
      hi[c] = -INFINITY;
    }
  for (size_t v = 0; v < surface->n_vertices; v++)
    for (int c = 0; c < 3; c++)
      {
        lo[c] = MIN (lo[c], surface->vertices[3 * v + c]);
        hi[c] = MAX (hi[c], surface->vertices[3 * v + c]);
      }
  for (int c = 0; c < 3; c++)
    size = MAX (size, hi[c] - lo[c]);
  if (!(spacing > 0))
    spacing = VOLUME_PARTICLES_SPACING_OF_SIZE * size;
  if (!(spacing > 0) || !isfinite (size))
    {
      g_set_error (error, VOLUME_PARTICLES_ERROR, 0,
                   "body '%s': its surface has no extent to sample", name);
      return FALSE;
    }
  /* Cells centred on the box: n_c of them along each axis, from `corner`. */
  int n[3];
  double corner[3];
  for (int c = 0; c < 3; c++)
    {
      double cells = ceil ((hi[c] - lo[c]) / spacing - 1e-9);
      n[c] = MAX (1, (int) MIN (cells, 1e6));
      corner[c] = 0.5 * (lo[c] + hi[c]) - 0.5 * n[c] * spacing;
    }
  if ((double) n[0] * n[1] * n[2] > 4.0 * VOLUME_PARTICLES_MAX)
    {
      g_set_error (error, VOLUME_PARTICLES_ERROR, 0,
                   "body '%s': particle_spacing %g m cuts its %g m box into more than %u "
                   "cells; raise it", name, spacing, size, 4 * VOLUME_PARTICLES_MAX);
      return FALSE;
    }
  const int m = VOLUME_PARTICLES_SUBSAMPLES;
  double sub = spacing / m;
  int fine[3] = { n[0] * m, n[1] * m, n[2] * m };
  double column_origin[2] = { corner[0] + (0.5 + COLUMN_SHIFT_X) * sub,
                              corner[1] + (0.5 + COLUMN_SHIFT_Y) * sub };
  double z0 = corner[2] + 0.5 * sub;
  g_autoptr (GArray) crossings = column_crossings (surface, column_origin, sub, fine);
  size_t n_cells = (size_t) n[0] * (size_t) n[1] * (size_t) n[2];
  g_autofree guint32 *count = g_new0 (guint32, n_cells);
  g_autofree double *sum = g_new0 (double, 3 * n_cells);
  const Crossing *c = (const Crossing *) crossings->data;
  for (guint s = 0; s < crossings->len;)
    {
      guint e = s;
      while (e < crossings->len && c[e].column == c[s].column)
        e++;
      int i = (int) (c[s].column % (size_t) fine[0]), j = (int) (c[s].column / (size_t) fine[0]);
      /* The sample's own position, not the column's shifted one. */
      double x = corner[0] + (0.5 + i) * sub, y = corner[1] + (0.5 + j) * sub;
      /* Between the first and second crossing, the third and fourth, ...; an odd count (an
       * open spot in the surface) leaves the last one out. */
      for (guint k = s; k + 1 < e; k += 2)
        {
          int k0 = MAX (0, (int) ceil ((c[k].z - z0) / sub));
          int k1 = MIN (fine[2] - 1, (int) floor ((c[k + 1].z - z0) / sub));
          for (int kz = k0; kz <= k1; kz++)
            {
              size_t cell = ((size_t) (kz / m) * (size_t) n[1] + (size_t) (j / m))
                              * (size_t) n[0] + (size_t) (i / m);
              count[cell]++;
              sum[3 * cell] += x;
              sum[3 * cell + 1] += y;
              sum[3 * cell + 2] += z0 + kz * sub;
            }
        }
      s = e;
    }
  g_autoptr (GArray) positions = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) volumes = g_array_new (FALSE, FALSE, sizeof (double));
  double sub_volume = sub * sub * sub;
  for (size_t cell = 0; cell < n_cells; cell++)
    {
      if (count[cell] == 0)
        continue;
      double p[3], v = count[cell] * sub_volume;
      for (int a = 0; a < 3; a++)
        p[a] = sum[3 * cell + a] / count[cell];
      g_array_append_vals (positions, p, 3);
      g_array_append_val (volumes, v);
      out->volume += v;
    }
  if (volumes->len == 0)
    {
      g_set_error (error, VOLUME_PARTICLES_ERROR, 0,
                   "body '%s': particle_spacing %g m leaves no sample point inside its "
                   "surface; lower it", name, spacing);
      return FALSE;
    }
  if (volumes->len > VOLUME_PARTICLES_MAX)
    {
      g_set_error (error, VOLUME_PARTICLES_ERROR, 0,
                   "body '%s': particle_spacing %g m fills it with more than %u particles; "
                   "raise it", name, spacing, VOLUME_PARTICLES_MAX);
      return FALSE;
    }
  out->spacing = spacing;
  out->n = volumes->len;
  out->positions = (double *) g_array_free (g_steal_pointer (&positions), FALSE);
  out->volumes = (double *) g_array_free (g_steal_pointer (&volumes), FALSE);
  return TRUE;
}

/* A closed surface filled with lattice points (see lattice_fill.h). */
#include "lattice_fill.h"

#include <math.h>

#include "volume_particles.h"

double
lattice_fill_extent (const CwbSurfaceMesh *surface)
{
  double lo[3], hi[3], size = 0;
  CwbGeometry shape = { .n_points = surface->n_vertices,
                        .positions = (double *) surface->vertices };
  cwb_geometry_bounds (&shape, lo, hi);
  for (int c = 0; c < 3; c++)
    size = MAX (size, hi[c] - lo[c]);
  return size;
}

/* The cells are volume_particles_sample's: each sampled part's centroid lies in its cell,
 * which gives the cell, and the part's volume the share inside. */
gboolean
lattice_fill (const CwbSurfaceMesh *surface, double spacing, double inside_share,
              const char *body_name, const char *param, LatticeFill *out, GError **error)
{
  *out = (LatticeFill) { .spacing = spacing };
  double lo[3], hi[3];
  CwbGeometry shape = { .n_points = surface->n_vertices,
                        .positions = (double *) surface->vertices };
  cwb_geometry_bounds (&shape, lo, hi);
  VolumeParticles parts;
  if (!volume_particles_sample (surface, spacing, body_name, &parts, error))
    return FALSE;
  for (int c = 0; c < 3; c++)
    {
      double cells = ceil ((hi[c] - lo[c]) / spacing - 1e-9);
      out->corner[c] = 0.5 * (lo[c] + hi[c]) - 0.5 * cells * spacing;
    }
  double cell_volume = spacing * spacing * spacing;
  out->points = g_new (double, 3 * MAX (parts.n, 1));
  for (size_t k = 0; k < parts.n; k++)
    {
      if (parts.volumes[k] < inside_share * cell_volume)
        continue;
      for (int c = 0; c < 3; c++)
        {
          double cell = floor ((parts.positions[3 * k + c] - out->corner[c]) / spacing);
          out->points[3 * out->n + c] = out->corner[c] + (cell + 0.5) * spacing;
        }
      out->n++;
    }
  volume_particles_clear (&parts);
  if (out->n == 0)
    {
      g_set_error (error, LATTICE_FILL_ERROR, 0,
                   "body '%s': %s %g m leaves no lattice cell %.0f %% inside its shape; "
                   "lower it", body_name, param, spacing, 100 * inside_share);
      lattice_fill_clear (out);
      return FALSE;
    }
  return TRUE;
}

void
lattice_fill_clear (LatticeFill *fill)
{
  g_clear_pointer (&fill->points, g_free);
  fill->n = 0;
}

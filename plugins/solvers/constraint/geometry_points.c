#include "geometry_points.h"

void
geometry_points_init (GeometryPoints *kept)
{
  kept->points = g_array_new (FALSE, FALSE, sizeof (double));
  kept->first_point = g_array_new (FALSE, FALSE, sizeof (size_t));
}

void
geometry_points_clear (GeometryPoints *kept)
{
  g_clear_pointer (&kept->points, g_array_unref);
  g_clear_pointer (&kept->first_point, g_array_unref);
}

void
geometry_points_keep (GeometryPoints *kept, CwbStepContext *ctx)
{
  size_t n = 0;
  const CwbGeometry *geometries = ctx->geometries (ctx, &n);
  g_array_set_size (kept->first_point, (guint) (n + 1));
  size_t *first = (size_t *) (void *) kept->first_point->data;
  first[0] = 0;
  for (size_t g = 0; g < n; g++)
    first[g + 1] = first[g] + 3 * geometries[g].n_points;
  g_array_set_size (kept->points, (guint) first[n]);
  for (size_t g = 0; g < n; g++)
    if (geometries[g].n_points > 0)
      memcpy (&g_array_index (kept->points, double, first[g]), geometries[g].positions,
              3 * geometries[g].n_points * sizeof (double));
}

double
geometry_points_largest_motion (const GeometryPoints *kept, CwbStepContext *ctx)
{
  size_t n = 0;
  const CwbGeometry *geometries = ctx->geometries (ctx, &n);
  if (kept->first_point->len != n + 1)
    return INFINITY;
  const size_t *first = (const size_t *) (const void *) kept->first_point->data;
  const double *points = (const double *) (const void *) kept->points->data;
  double largest2 = 0;
  for (size_t g = 0; g < n; g++)
    {
      if (first[g + 1] - first[g] != 3 * geometries[g].n_points)
        return INFINITY;
      const double *from = points + first[g];
      for (size_t i = 0; i < 3 * geometries[g].n_points; i += 3)
        {
          double d[3];
          cwb_v3_sub (d, &geometries[g].positions[i], &from[i]);
          largest2 = MAX (largest2, cwb_v3_dot (d, d));
        }
    }
  return sqrt (largest2);
}

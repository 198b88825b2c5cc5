/* A copy of the mapped geometries' points, to measure how far they move afterwards: what the
 * check without a detection (linear_check.h) and the operator kept (operator_reuse.h) need
 * of a configuration they were made at. */
#pragma once

#include <cwb/cwb.h>

typedef struct GeometryPoints {
  GArray *points;        /* double: 3 per point of every geometry */
  GArray *first_point;   /* size_t per geometry + 1: where its points start in points */
} GeometryPoints;

void geometry_points_init (GeometryPoints *kept);
void geometry_points_clear (GeometryPoints *kept);

/* Copies the points of the geometries ctx mapped last. */
void geometry_points_keep (GeometryPoints *kept, CwbStepContext *ctx);

/* The largest distance from a kept point to the same point of the geometries ctx mapped
 * last; INFINITY when they are not the same geometries. */
double geometry_points_largest_motion (const GeometryPoints *kept, CwbStepContext *ctx);

/* The kept position of point `point` of geometry `geometry` (both in range). */
static inline const double *
geometry_points_at (const GeometryPoints *kept, uint32_t geometry, uint32_t point)
{
  size_t first = g_array_index (kept->first_point, size_t, geometry);
  return &g_array_index (kept->points, double, first + 3 * (size_t) point);
}

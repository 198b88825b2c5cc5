/* How a grid point moves with a body (see the header). */
#include "grid_point.h"

#include <math.h>

/* The velocity a geometry carries a grid point at: its points' velocities by the weights. */
void
grid_point_velocity (const CwbGeometry *g, const GridPoint *m, double v[3])
{
  cwb_v3_set (v, 0, 0, 0);
  if (g->velocities == NULL)
    return;
  for (int k = 0; k < GRID_POINT_TERMS; k++)
    if (m->weight[k] != 0)
      cwb_v3_axpy (v, m->weight[k], &g->velocities[3 * m->point[k]]);
}

/* The closest point of a geometry's surface to r by a search of every triangle: for a point
 * deeper in the body than the sampled distances reach (a deep overlap). */
static void
closest_surface_point (const CwbGeometry *g, const double r[3], uint32_t *triangle,
                       double bary[3])
{
  double best = INFINITY;
  for (size_t t = 0; t < g->n_triangles; t++)
    {
      const double *v[3];
      for (int m = 0; m < 3; m++)
        v[m] = &g->positions[3 * g->triangles[3 * t + m]];
      double w[3], q[3] = { 0, 0, 0 }, d[3];
      cwb_triangle_closest_point (r, v[0], v[1], v[2], w);
      for (int m = 0; m < 3; m++)
        cwb_v3_axpy (q, w[m], v[m]);
      cwb_v3_sub (d, r, q);
      double dist = cwb_v3_dot (d, d);
      if (dist < best)
        {
          best = dist;
          *triangle = (uint32_t) t;
          cwb_v3_copy (bary, w);
        }
    }
}

/* The vertex of the geometry farthest from triangle t's plane on its inner side: with the
 * triangle, the tetrahedron a grid point's affine coordinates are taken in. */
static uint32_t
apex_of (const CwbGeometry *g, uint32_t t)
{
  const uint32_t *v = &g->triangles[3 * t];
  double ab[3], ac[3], n[3];
  cwb_v3_sub (ab, &g->positions[3 * v[1]], &g->positions[3 * v[0]]);
  cwb_v3_sub (ac, &g->positions[3 * v[2]], &g->positions[3 * v[0]]);
  cwb_v3_cross (n, ab, ac);
  uint32_t apex = v[0];
  double deepest = 0;
  for (size_t k = 0; k < g->n_points; k++)
    {
      double d[3];
      cwb_v3_sub (d, &g->positions[3 * k], &g->positions[3 * v[0]]);
      double depth = -cwb_v3_dot (d, n);
      if (depth > deepest)
        {
          deepest = depth;
          apex = (uint32_t) k;
        }
    }
  return apex;
}

static double
det3 (const double m[9])
{
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
         + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* The point r as an affine combination of the closest triangle's vertices and the apex:
 * r = sum w_m x_m, sum w_m = 1. Moving with those four points as an affine map moves r
 * exactly as a rigid body carries it (sec. 5.3: v + w x (r - o)), and as the linear
 * interpolation of a deformable body's surface motion; the closest point of the surface
 * alone (sec. 5.2's interpolation) would carry it at the surface, which moves a force's
 * point of application. FALSE for a flat geometry (no apex off the plane): then the closest
 * point's weights. */
static gboolean
affine_weights (const CwbGeometry *g, uint32_t t, uint32_t apex, const double r[3],
                double w[4], double gradient[4][3])
{
  const uint32_t *v = &g->triangles[3 * t];
  const double *a = &g->positions[3 * v[0]];
  double m[9], rhs[3], e[3][3];
  for (int c = 0; c < 3; c++)
    {
      e[0][c] = g->positions[3 * v[1] + c] - a[c];
      e[1][c] = g->positions[3 * v[2] + c] - a[c];
      e[2][c] = g->positions[3 * apex + c] - a[c];
      rhs[c] = r[c] - a[c];
    }
  for (int row = 0; row < 3; row++)
    for (int col = 0; col < 3; col++)
      m[3 * row + col] = e[col][row];
  double det = det3 (m);
  double scale = cwb_v3_norm (e[0]) * cwb_v3_norm (e[1]) * cwb_v3_norm (e[2]);
  if (!(fabs (det) > 1e-9 * scale))
    return FALSE;
  /* lambda = E^-1 (r - a), E = m (the edges as columns): the rows of E^-1 are the gradients
   * of lambda_1..3 with respect to r. */
  double inverse[9];
  cwb_m3_inverse (inverse, m);
  double x[3];
  cwb_m3_mul_v3 (x, inverse, rhs);
  w[0] = 1 - x[0] - x[1] - x[2];
  w[1] = x[0];
  w[2] = x[1];
  w[3] = x[2];
  for (int c = 0; c < 3; c++)
    {
      gradient[1][c] = inverse[c];
      gradient[2][c] = inverse[3 + c];
      gradient[3][c] = inverse[6 + c];
      gradient[0][c] = -(inverse[c] + inverse[3 + c] + inverse[6 + c]);
    }
  return TRUE;
}

void
grid_point_map (const BodyDensity *d, const CwbGeometry *g, GArray *apexes, int i, int j,
                int k, GridPoint *m)
{
  if (apexes->len != g->n_triangles)
    {
      g_array_set_size (apexes, (guint) g->n_triangles);
      memset (apexes->data, 0xff, g->n_triangles * sizeof (uint32_t));
    }
  *m = (GridPoint) { 0 };
  size_t p = grid_box_index (&d->box, i, j, k);
  uint32_t triangle = g_array_index (d->triangle, uint32_t, p);
  double bary[3], r[3];
  grid_box_point (&d->box, i, j, k, r);
  if (triangle != G_MAXUINT32)
    cwb_v3_copy (bary, &g_array_index (d->bary, double, 3 * p));
  else
    closest_surface_point (g, r, &triangle, bary);
  for (int v = 0; v < 3; v++)
    m->point[v] = g->triangles[3 * triangle + v];
  uint32_t *apex = &g_array_index (apexes, uint32_t, triangle);
  if (*apex == G_MAXUINT32)
    *apex = apex_of (g, triangle);
  m->point[3] = *apex;
  cwb_v3_copy (m->carry, bary);
  if (!affine_weights (g, triangle, m->point[3], r, m->weight, m->gradient))
    {
      cwb_v3_copy (m->weight, bary);   /* the apex's weight stays 0 */
    }
}

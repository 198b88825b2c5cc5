/* Ray picking against a snapshot (picking.h). */
#include <math.h>

#include <cwb/vecmath.h>

#include "picking.h"

/* Möller-Trumbore: distance t along the ray and barycentric (u, v) of the hit. Triangles seen
 * from either side count: the user clicks what they see. */
static gboolean
ray_triangle (const double origin[3], const double direction[3], const double *a,
              const double *b, const double *c, double *t, double *u, double *v)
{
  /* Below this |det| the ray runs along the triangle's plane. */
  const double parallel = 1e-14;
  double e1[3], e2[3], p[3], s[3], q[3];
  cwb_v3_sub (e1, b, a);
  cwb_v3_sub (e2, c, a);
  cwb_v3_cross (p, direction, e2);
  double det = cwb_v3_dot (e1, p);
  if (fabs (det) < parallel)
    return FALSE;
  double inv = 1 / det;
  cwb_v3_sub (s, origin, a);
  *u = cwb_v3_dot (s, p) * inv;
  if (*u < 0 || *u > 1)
    return FALSE;
  cwb_v3_cross (q, s, e1);
  *v = cwb_v3_dot (direction, q) * inv;
  if (*v < 0 || *u + *v > 1)
    return FALSE;
  *t = cwb_v3_dot (e2, q) * inv;
  return *t > 0;
}

gboolean
cwb_render_pick_body (const CwbSnapshot *snapshot, const CwbOverlayOptions *options,
                      const double origin[3], const double direction[3], CwbPickHit *hit)
{
  gboolean found = FALSE;
  hit->distance = INFINITY;
  for (size_t b = 0; b < snapshot->n_bodies; b++)
    {
      const CwbSnapshotBody *body = &snapshot->bodies[b];
      if (body->triangles == NULL
          || (options != NULL && cwb_render_body_opacity (options, body->name) <= 0))
        continue;
      const uint32_t *tri = g_bytes_get_data (body->triangles, NULL);
      for (size_t k = 0; k < body->n_triangles; k++)
        {
          const uint32_t *ids = &tri[3 * k];
          double t, u, v;
          if (!ray_triangle (origin, direction, &body->positions[3 * ids[0]],
                             &body->positions[3 * ids[1]], &body->positions[3 * ids[2]], &t,
                             &u, &v)
              || t >= hit->distance)
            continue;
          found = TRUE;
          *hit = (CwbPickHit){
            .body = b, .triangle = k,
            .points = { ids[0], ids[1], ids[2] },
            .weights = { 1 - u - v, u, v },
            .distance = t,
          };
          cwb_v3_copy (hit->position, origin);
          cwb_v3_axpy (hit->position, t, direction);
        }
    }
  return found;
}

gboolean
cwb_render_point_inside (const CwbSnapshotBody *body, const double p[3])
{
  if (body->triangles == NULL)
    return FALSE;
  /* A direction no axis-aligned face or edge of a shape runs along, so that the ray does
   * not graze an edge of a box or a tessellated primitive. */
  double direction[3] = { 0.5773, 0.5812, 0.5735 };
  cwb_v3_normalize (direction);
  const uint32_t *tri = g_bytes_get_data (body->triangles, NULL);
  guint crossings = 0;
  for (size_t k = 0; k < body->n_triangles; k++)
    {
      const uint32_t *ids = &tri[3 * k];
      double t, u, v;
      crossings += ray_triangle (p, direction, &body->positions[3 * ids[0]],
                                 &body->positions[3 * ids[1]], &body->positions[3 * ids[2]], &t,
                                 &u, &v);
    }
  return crossings % 2 == 1;
}

gssize
cwb_render_pick_contact (const CwbSnapshot *snapshot, const double origin[3],
                         const double direction[3], double angle, double max_distance)
{
  gssize best = -1;
  double best_angle = angle;
  for (guint f = 0; f < snapshot->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (snapshot->frames, CwbContactFrame, f);
      double to[3];
      cwb_v3_sub (to, frame->origin, origin);
      double along = cwb_v3_dot (to, direction);
      if (along <= 0 || along > max_distance)
        continue;
      double off = acos (CLAMP (along / MAX (cwb_v3_norm (to), 1e-300), -1, 1));
      if (off < best_angle)
        {
          best_angle = off;
          best = (gssize) f;
        }
    }
  return best;
}

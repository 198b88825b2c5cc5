/* The face a penetrating point came in through (see entry_face.h). */
#include "entry_face.h"

#include <math.h>

/* A candidate whose point started the step inside its face's plane by more than this
 * fraction of its depth did not get that depth by crossing the face: a resting or sliding
 * contact starts at the plane (within the normal solve's tolerance, 1e-3 of the depth), a
 * landing one outside it, and a rotating body's corner strays from the straight path by
 * h^2 w^2 r / 2 (4e-5 m at 1 rad/s, dt 0.01, r 0.9 m), far below half a landing depth. */
#define ENTRY_SUSPECT_FRACTION 0.5
/* A point on a triangle's plane counts as on the triangle within this fraction of its
 * longest edge (rounding at shared edges: a point on an edge belongs to both triangles,
 * either will do). */
#define ENTRY_EDGE_TOLERANCE 1e-9

/* Whether x (on the plane of triangle a, b, c) lies on the triangle. */
static gboolean
on_triangle (const double x[3], const double a[3], const double b[3], const double c[3])
{
  double w[3], closest[3], off[3], ab[3], ac[3], bc[3];
  cwb_triangle_closest_point (x, a, b, c, w);
  cwb_v3_scale (closest, a, w[0]);
  cwb_v3_axpy (closest, w[1], b);
  cwb_v3_axpy (closest, w[2], c);
  cwb_v3_sub (off, closest, x);
  cwb_v3_sub (ab, b, a);
  cwb_v3_sub (ac, c, a);
  cwb_v3_sub (bc, c, b);
  double edge = MAX (cwb_v3_norm (ab), MAX (cwb_v3_norm (ac), cwb_v3_norm (bc)));
  return cwb_v3_norm (off) <= ENTRY_EDGE_TOLERANCE * edge;
}

/* The face of the surface the point came in through over the step from p0 to p: among the
 * triangles p is behind (by at most `reach`), the last one the segment p0 -> p crossed
 * (nearest p) or, when p0 was already inside (the step started with a small overlap), the
 * one p0 was least deep behind, counted only where that is shallower than `start` (p0's
 * distance to the detected face's plane, < 0). Its triangle and p's signed distance to its
 * plane (< 0); FALSE when none. */
static gboolean
entry_triangle (const CwbGeometry *surface, const double p[3], const double p0[3],
                double start, double reach, uint32_t *triangle, double normal[3],
                double *distance)
{
  double best_f = INFINITY, best_start = start;
  gboolean found = FALSE;
  for (uint32_t t = 0; t < surface->n_triangles; t++)
    {
      const uint32_t *tri = &surface->triangles[3 * t];
      const double *a = &surface->positions[3 * tri[0]];
      const double *b = &surface->positions[3 * tri[1]];
      const double *c = &surface->positions[3 * tri[2]];
      double ab[3], ac[3], n[3], ap[3], ap0[3];
      cwb_v3_sub (ab, b, a);
      cwb_v3_sub (ac, c, a);
      cwb_v3_cross (n, ab, ac);
      if (!(cwb_v3_normalize (n) > 0))
        continue;   /* degenerate */
      cwb_v3_sub (ap, p, a);
      cwb_v3_sub (ap0, p0, a);
      double s = cwb_v3_dot (n, ap), s0 = cwb_v3_dot (n, ap0);
      if (!(s < 0 && -s <= reach))
        continue;   /* p is not behind this face, or too far behind to have come through */
      double x[3];
      if (s0 >= 0)
        {
          /* Crossed this plane: where, and is it the last crossing so far? */
          double f = s / (s - s0);   /* from p towards p0, in (0, 1] */
          if (!(f < best_f))
            continue;
          cwb_v3_copy (x, p);
          for (int i = 0; i < 3; i++)
            x[i] += f * (p0[i] - p[i]);
          if (!on_triangle (x, a, b, c))
            continue;
          best_f = f;
        }
      else
        {
          /* Already behind it at the start: the shallowest such face, if no crossing. */
          if (isfinite (best_f) || !(s0 > best_start))
            continue;
          cwb_v3_copy (x, p0);
          cwb_v3_axpy (x, -s0, n);
          if (!on_triangle (x, a, b, c))
            continue;
          best_start = s0;
        }
      found = TRUE;
      *triangle = t;
      cwb_v3_copy (normal, n);
      *distance = s;
    }
  return found;
}

gboolean
entry_face_correct (ContactCandidate *c, const CwbGeometry *geometries, double h)
{
  if (!(c->gap < 0))
    return FALSE;
  const CwbGeometry *a = &geometries[c->point_geometry];
  const CwbGeometry *b = &geometries[c->surface_geometry];
  const uint32_t *tri = &b->triangles[3 * c->triangle];
  const double *p = &a->positions[3 * c->point];
  /* The point's travel relative to the surface at the contact over the step. */
  double travel[3];
  cwb_v3_copy (travel, &a->velocities[3 * c->point]);
  for (int j = 0; j < 3; j++)
    cwb_v3_axpy (travel, -c->bary[j], &b->velocities[3 * tri[j]]);
  cwb_v3_scale (travel, travel, h);
  double start = c->gap - cwb_v3_dot (c->normal, travel);   /* p0's distance to the plane */
  if (start >= ENTRY_SUSPECT_FRACTION * c->gap)
    return FALSE;
  double p0[3], normal[3], distance = 0;
  uint32_t triangle = 0;
  cwb_v3_sub (p0, p, travel);
  /* No face p is deeper behind than it was behind the detected one at the start, plus the
   * step's travel. */
  double reach = -start + cwb_v3_norm (travel);
  if (!entry_triangle (b, p, p0, start, reach, &triangle, normal, &distance))
    return FALSE;
  /* The contact location: p's projection on the entry face's plane, onto its triangle. */
  const uint32_t *entry = &b->triangles[3 * triangle];
  double x[3];
  cwb_v3_copy (x, p);
  cwb_v3_axpy (x, -distance, normal);
  cwb_triangle_closest_point (x, &b->positions[3 * entry[0]], &b->positions[3 * entry[1]],
                              &b->positions[3 * entry[2]], c->bary);
  c->triangle = triangle;
  cwb_v3_copy (c->normal, normal);
  cwb_v3_scale (c->depth, normal, -distance);
  c->gap = distance;
  return TRUE;
}

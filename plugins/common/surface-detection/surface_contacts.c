/* Polytope manifolds and point candidates in one detection (surface_contacts.h). */
#include "surface_contacts.h"

struct SurfaceContacts {
  CollisionDetector *points;
  ConvexDetector *polytopes;
  GArray *is_polytope;   /* gboolean per geometry, from the last run */
};

SurfaceContacts *
surface_contacts_new (void)
{
  SurfaceContacts *s = g_new0 (SurfaceContacts, 1);
  s->points = collision_detector_new ();
  s->polytopes = convex_detector_new ();
  s->is_polytope = g_array_new (FALSE, TRUE, sizeof (gboolean));
  return s;
}

void
surface_contacts_free (SurfaceContacts *s)
{
  if (s == NULL)
    return;
  collision_detector_free (s->points);
  convex_detector_free (s->polytopes);
  g_array_unref (s->is_polytope);
  g_free (s);
}

void
surface_contacts_run (SurfaceContacts *s, const CwbGeometry *geometries, size_t n_geometries,
                      const DetectionParams *params, GArray *manifold, GArray *candidates)
{
  g_array_set_size (s->is_polytope, (guint) MAX (n_geometries, 1));
  gboolean *is_polytope = (gboolean *) (void *) s->is_polytope->data;
  convex_detector_run (s->polytopes, geometries, n_geometries, params->margin, is_polytope,
                       manifold);
  DetectionParams points = *params;
  points.skip_pairs_among = is_polytope;
  collision_detector_run (s->points, geometries, n_geometries, &points, candidates);
}

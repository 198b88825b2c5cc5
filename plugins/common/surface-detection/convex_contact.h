/* Contact manifolds between convex polytopes: the separating-axis test over face normals and
 * edge-edge cross products, then, for a face axis, the incident face clipped against the
 * reference face's side planes (at most four points kept), or, for an edge axis, the closest
 * points of the two edges. What point-in-surface detection cannot see: face-face contact of
 * boxes resting flush, corners lying exactly on edges, and edges crossing edges.
 *
 * Every closed surface that is a convex polytope at the current positions (convex_polytope.h)
 * takes part; pairs of such geometries whose boxes overlap (grown by the margin) are tested,
 * and their points within the margin of each other become contacts. Each contact carries an
 * identity built from the features that made it (reference and incident faces and the clipped
 * vertex's origin, or the two edges), which stays the same while the contact lasts. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* A point of a surface as a combination of its vertices (1 to 3 of them). */
typedef struct SurfacePoint {
  uint32_t geometry;
  uint32_t n;
  uint32_t vertex[3];
  double weight[3];
  double position[3];   /* sum weight_k x[vertex_k] at detection */
} SurfacePoint;

/* One contact between surfaces a and b: b pushes a along normal. */
typedef struct ManifoldContact {
  SurfacePoint a, b;
  double normal[3];     /* unit, from b towards a */
  double gap;           /* normal . (a - b): negative when they overlap */
  guint64 id;           /* identity from the features, unique within a run */
} ManifoldContact;

typedef struct ConvexDetector ConvexDetector;
ConvexDetector *convex_detector_new (void);
void convex_detector_free (ConvexDetector *detector);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ConvexDetector, convex_detector_free)

/* Finds the convex polytopes among the surface geometries (handled[g] = TRUE for those,
 * n_geometries entries) and appends to `contacts` (ManifoldContact, cleared first) the
 * manifolds of every pair of them within `margin` (>= 0) of each other. Pairs of two
 * polytopes are the detector's: the point-based detection should skip them. */
void convex_detector_run (ConvexDetector *detector, const CwbGeometry *geometries,
                          size_t n_geometries, double margin, gboolean *handled,
                          GArray *contacts);

/* Whether the detector keeps each pair's separating-axis decision from run to run while the
 * polytopes barely move (sat_cache.h; on by default). The contacts are the same either way;
 * off, every pair is tested in full at every run. */
void convex_detector_set_coherence (ConvexDetector *detector, gboolean keep_decisions);

/* How many pairs the last run decided from the decisions it kept. */
guint convex_detector_kept (const ConvexDetector *detector);

/* Whether the detector keeps each pair's face manifold from its clip and refreshes it while
 * the polytopes move by less than 1e-7 of their size since (manifold_cache.h; on by
 * default, and only with coherence on): the kept points are rebuilt from their surfaces'
 * vertices and their gaps measured afresh, within that motion of a fresh clip's points. */
void convex_detector_set_persistence (ConvexDetector *detector, gboolean keep_manifolds);

/* How many pairs the last run took from their kept manifolds. */
guint convex_detector_refreshed (const ConvexDetector *detector);

G_END_DECLS

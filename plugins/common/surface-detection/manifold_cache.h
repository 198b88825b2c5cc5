/* A pair's face manifold kept from the detection that clipped it and refreshed at the next
 * ones while the two polytopes barely move (persistent contact manifolds).
 *
 * Clipping an incident face against a reference face (convex_contact.c) is most of a resting
 * stack's detection, and it finds the same points every step: the incident vertices, the
 * crossings of the incident edges with the reference face's side planes, and their
 * projections onto the reference face, each a combination of a surface's vertices. A kept
 * manifold keeps those combinations (each point's vertices and weights, and its identity)
 * and rebuilds every point from the vertices' current positions; the normal is the reference
 * face's current normal and the gap is measured afresh along it, so each kept point is a
 * point of its surface and its gap is exact for it. What is not redone is where the clip
 * puts the crossings and projections: with delta the largest motion of either polytope's
 * vertices since the clip, a kept point lies within about delta of the one a clip would give
 * now (across the face for a projection, along an incident edge for a crossing). So a
 * manifold is kept only while delta stays below MANIFOLD_MOTION of the smaller polytope's
 * radius (1e-7: a resting box of 1 m moves by 1e-9 m a step and keeps its manifolds for
 * about a hundred steps; a sliding one clips at every step), measured as the largest
 * distance of each polytope's vertices from their positions at the clip (kept with the
 * manifold), under the same kept decision (reference polytope and face, sat_cache.h) and
 * margin. A kept point whose gap grows past the margin
 * is left out of that detection, as the clip would leave it. */
#pragma once

#include <cwb/cwb.h>

#include "convex_contact.h"
#include "sat_cache.h"

G_BEGIN_DECLS

typedef struct ManifoldCache {
  gboolean enabled;
  GArray *last, *next;   /* KeptManifold, sorted by pair: the last detection's, this one's */
  GArray *contacts;      /* ManifoldContact: the pool of the manifolds' clipped contacts */
  GArray *x;             /* double: the pool of their polytopes' vertex positions at the
                          * clips */
  guint cursor;
  guint kept;            /* manifolds refreshed in this detection */
} ManifoldCache;

void manifold_cache_init (ManifoldCache *cache);
void manifold_cache_clear (ManifoldCache *cache);

/* Starts a detection. */
void manifold_cache_begin (ManifoldCache *cache);

/* Appends to `contacts` the refreshed manifold of pair (a, b) (a < b, asked in increasing
 * order within a detection) when one is kept for `decision` (a face outcome) at `margin`
 * and the polytopes moved little enough since its clip; FALSE, appending nothing,
 * otherwise. `geometries` and `polytopes` are indexed by geometry. */
gboolean manifold_cache_refresh (ManifoldCache *cache, uint32_t a, uint32_t b,
                                 const SatDecision *decision, double margin,
                                 const CwbGeometry *geometries,
                                 const ConvexPolytope *polytopes, GArray *contacts);

/* Keeps for the next detection the manifold of pair (a, b) just clipped for `decision`:
 * contacts[first..] . */
void manifold_cache_store (ManifoldCache *cache, uint32_t a, uint32_t b,
                           const SatDecision *decision, double margin,
                           const CwbGeometry *geometries, const ConvexPolytope *polytopes,
                           const GArray *contacts, guint first);

/* Ends the detection: its manifolds become the ones refreshed by the next. */
void manifold_cache_end (ManifoldCache *cache);

G_END_DECLS

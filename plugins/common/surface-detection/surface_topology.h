/* The adjacency of a closed surface and what it serves: the angle-weighted pseudo-normals
 * (Baerentzen & Aanaes 2005) that tell inside from outside at a closest point on an edge or a
 * vertex. A surface's topology is fixed after its mapping's layout (geometry.h), so it is
 * built once and cached; the normals themselves follow the positions and are computed when
 * needed. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* No neighbour across an edge (a boundary or non-manifold edge). */
#define SURFACE_NONE G_MAXUINT32

/* Feature of a triangle holding a closest point (cwb_triangle_closest_point): the face,
 * edge k (from vertex k to vertex k + 1 mod 3) or vertex k. */
enum {
  FEATURE_FACE = CWB_TRIANGLE_FACE,
  FEATURE_EDGE = CWB_TRIANGLE_EDGE,      /* + k */
  FEATURE_VERTEX = CWB_TRIANGLE_VERTEX,  /* + k */
};

/* Adjacency of one surface's triangles, built when its topology is first seen and kept while
 * it is seen at every run (geometry.h: topology is fixed after the mapping's layout).
 * Pseudo-normals themselves depend on the positions and are computed when needed. */
typedef struct Topology {
  const uint32_t *triangles;    /* key: pointer, counts and checksum of the indices */
  size_t n_triangles;
  size_t n_points;
  uint64_t checksum;
  gboolean valid;               /* every index < n_points */
  uint32_t *neighbour;          /* 3 n_triangles: the triangle across edge k, SURFACE_NONE if the edge
                                 * is not shared by exactly two consistently oriented triangles */
  uint32_t *vertex_start;       /* n_points + 1: incident triangles of each vertex (CSR) */
  uint32_t *vertex_triangles;   /* 3 n_triangles */
  uint64_t last_run;
} Topology;

/* The topologies of the surfaces seen, keyed by their triangle array. */
typedef struct TopologyCache {
  GPtrArray *topologies;        /* Topology * */
} TopologyCache;

void topology_cache_init (TopologyCache *cache);
void topology_cache_clear (TopologyCache *cache);
/* The topology of a surface geometry, built (*built = TRUE) the first time it is seen;
 * marked as used in `run`. */
Topology *topology_cache_lookup (TopologyCache *cache, const CwbGeometry *geometry, uint64_t run,
                                 gboolean *built);
/* Forgets the topologies not used in `run` (geometries that went away). */
void topology_cache_prune (TopologyCache *cache, uint64_t run);

/* Unit normal of triangle t of a geometry into n; returns |(b - a) x (c - a)|, or 0 when the
 * triangle is degenerate or not finite (n is then zero). */
double surface_triangle_normal (const CwbGeometry *geometry, size_t t, double n[3]);

/* The angle-weighted pseudo-normal of a feature (FEATURE_*) of triangle t, unnormalised: only
 * its sign against p - closest is used. */
void surface_pseudo_normal (const CwbGeometry *geometry, const Topology *topology, uint32_t t,
                            int feature, double out[3]);

G_END_DECLS

/* A closed surface seen as a convex polytope: its coplanar triangles merged into polygonal
 * faces, its edges between faces of different planes, and each face's plane at the current
 * positions. What the separating-axis test and the face clipping of convex_contact.c need.
 *
 * The structure (which triangles make a face, the faces' vertex loops, the edges) is built
 * once per topology from the positions first seen; the planes and the convexity check follow
 * the positions at every update, so a deformable body that bends out of convexity (or whose
 * faces stop being planar) is no longer treated as a polytope. */
#pragma once

#include <cwb/cwb.h>

#include "surface_topology.h"

G_BEGIN_DECLS

/* Polytopes above these sizes are left to the point-based detection: the separating-axis
 * test costs (faces_a x vertices_b + edges_a x edges_b) per pair, and a finely tessellated
 * convex shape (a sphere) touches at single points, which vertices find anyway. */
#define POLYTOPE_MAX_FACES 64
#define POLYTOPE_MAX_EDGES 192

typedef struct PolytopeFace {
  uint32_t first_vertex, n_vertices;     /* into loop: the boundary, counter-clockwise seen
                                          * from outside */
  uint32_t first_triangle, n_triangles;  /* into face_triangles: the surface's triangles */
  double normal[3];                      /* unit, outward, at the last update */
  double offset;                         /* normal . x on the plane */
} PolytopeFace;

/* An edge between two faces: v[0] -> v[1] runs counter-clockwise around face[0], the
 * other way around face[1]. */
typedef struct PolytopeEdge {
  uint32_t v[2];
  uint32_t face[2];
} PolytopeEdge;

typedef struct ConvexPolytope {
  /* the topology this structure was built for */
  const uint32_t *triangles;
  size_t n_triangles, n_points;
  uint64_t checksum;
  gboolean structured;           /* faces are single loops, within the size limits */
  gboolean rebuilt;              /* the last update built the structure (faces, edges and
                                  * their numbering) anew */
  gboolean sampled;              /* some vertex is not a corner of three faces (it lies
                                  * inside a face or an edge): a refined surface */
  gboolean convex;               /* at the last update: planar faces, every vertex behind
                                  * every face's plane */
  uint32_t n_faces, n_edges, n_vertices;
  PolytopeFace *faces;
  uint32_t *loop;                /* vertex ids of the faces' loops */
  uint32_t *face_triangles;      /* triangle ids of the faces */
  PolytopeEdge *edges;
  double *edge_arcs;             /* 3 per edge, at the last update: n[face 1] x n[face 0], the
                                  * normal of the edge's arc on the Gauss map */
  /* The edges grouped by direction (a box's 12 edges in 3 classes of 4 parallel ones), from
   * the positions the structure was built at: class c holds class_edges[class_start[c] ..
   * class_start[c + 1]). */
  uint32_t n_edge_classes;
  uint32_t *class_start, *class_edges;
  double *class_directions;      /* 3 per class, unit, at the last update */
  gboolean classes_parallel;     /* at the last update, every class's edges are still parallel
                                  * to its direction (always for a rigid body) */
  uint32_t *vertices;            /* the vertex ids on the polytope (each once) */
  double centroid[3];            /* mean of the vertices, at the last update */
  double lo[3], hi[3];           /* box of the vertices, at the last update */
  double radius;                 /* largest distance of a vertex from the centroid */
} ConvexPolytope;

void convex_polytope_clear (ConvexPolytope *polytope);

/* Brings `polytope` up to `geometry` (a closed surface with its topology): rebuilds the
 * structure when the topology changed (or on first use), then the planes, the box and the
 * convexity at the current positions. Returns polytope->structured && polytope->convex. */
gboolean convex_polytope_update (ConvexPolytope *polytope, const CwbGeometry *geometry,
                                 const Topology *topology);

/* Writes the polytope's vertex positions into x (3 per vertex, in polytope->vertices'
 * order): the positions its motion is later measured from. */
void convex_polytope_positions (const ConvexPolytope *polytope, const CwbGeometry *geometry,
                                double *x);

/* The largest distance of the polytope's vertices from their positions `then` (as
 * convex_polytope_positions wrote them). */
double convex_polytope_motion (const ConvexPolytope *polytope, const CwbGeometry *geometry,
                               const double *then);

G_END_DECLS

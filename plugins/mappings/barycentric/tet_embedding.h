/* Embedding points in a tetrahedral mesh: for each point, the tetrahedron holding it in the
 * rest configuration and its four barycentric coordinates (SOFA's BarycentricMapping; the
 * detailed surface of Saupin 2008 and Allard 2010 rides a coarse FEM grid this way).
 *
 * Point location goes through a uniform grid of buckets over the tetrahedra's bounding boxes
 * (each tetrahedron is listed in every bucket its box touches), so a point tests only the
 * few tetrahedra of its own bucket. A point in no tetrahedron (a surface vertex a rounding
 * error outside the grid, or a mesh that does not quite cover its surface) takes the
 * tetrahedron nearest to it, found by searching rings of buckets around it, with its
 * unclamped barycentric coordinates: they still sum to 1 and still reproduce the point,
 * p = sum_k w_k X_k, so the rest shape is exact and the point follows the element's
 * affine motion by extrapolation. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* A point is inside a tetrahedron when its smallest barycentric coordinate is at least
 * -TET_EMBEDDING_INSIDE_TOLERANCE. Coordinates of order 1 computed from triple products of
 * edge vectors carry a few ulps of error times the element's aspect ratio (about 2 for the
 * FEM grid's Kuhn tetrahedra), so 1e-12 counts a point on a face as inside all the
 * elements sharing it, while a point truly outside (by more than 1e-12 of the element's
 * height) is not. Both get unclamped coordinates; the tolerance only decides which are
 * counted as outside and sent to the nearest-element search. */
#define TET_EMBEDDING_INSIDE_TOLERANCE 1e-12

/* A tetrahedron is too flat to embed in when 6 V < TET_EMBEDDING_FLAT_RATIO L^3 (L its
 * longest edge; a regular one has 6 V / L^3 = 0.71, a Kuhn one 0.19): barycentric
 * coordinates divide by 6 V, so their round-off grows as DBL_EPSILON / ratio, here at most
 * 2e-8 of the element's size. Such elements are skipped. */
#define TET_EMBEDDING_FLAT_RATIO 1e-8

#define TET_EMBEDDING_ERROR (tet_embedding_error_quark ())
GQuark tet_embedding_error_quark (void);
enum { TET_EMBEDDING_ERROR_MESH };

/* One embedded point: p = sum_k weights[k] x[nodes[k]]. */
typedef struct TetEmbeddedPoint {
  uint32_t nodes[4];
  double weights[4];
} TetEmbeddedPoint;

/* What the location found, for the log and the tests. */
typedef struct TetEmbeddingStats {
  size_t n_outside;             /* points in no tetrahedron (beyond the tolerance above) */
  double max_outside_distance;  /* the farthest of them from its nearest tetrahedron */
  size_t farthest;              /* that point's index (0 when n_outside is 0) */
  size_t n_flat;                /* tetrahedra skipped as too flat */
} TetEmbeddingStats;

/* Embeds n_points points (3 each) in the mesh of n_nodes rest positions `nodes` (3 each) and
 * n_tets tetrahedra `tets` (4 node indices each). Fills `out` (n_points entries), `tet_of`
 * (the element each point was given, or NULL) and `stats` (or NULL). Fails when a node
 * index is out of range, when no tetrahedron is usable, or when a point is not finite. */
gboolean tet_embedding_build (const double *nodes, size_t n_nodes, const uint32_t *tets,
                              size_t n_tets, const double *points, size_t n_points,
                              TetEmbeddedPoint *out, uint32_t *tet_of,
                              TetEmbeddingStats *stats, GError **error);

/* Barycentric coordinates of p in the tetrahedron x[0..3] by ratios of signed volumes
 * (w_i = the volume with p in place of x_i over the element's), unclamped; w_0 = 1 - w_1 -
 * w_2 - w_3 so that they sum to 1 up to one rounding. The element must not be flat. */
void tet_embedding_barycentric (const double *x[4], const double p[3], double w[4]);

/* Distance from p to the solid tetrahedron x[0..3]: 0 inside (within the tolerance above),
 * else the distance to the nearest of its faces. */
double tet_embedding_distance (const double *x[4], const double p[3]);

G_END_DECLS

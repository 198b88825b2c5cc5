/* Refining a surface to the grid it rides on: triangles are split until no edge is longer
 * than a given length, so that a coarse surface (a primitive box has only its 8 corners as
 * vertices) shows the contact models points all over its faces and the forces they apply
 * spread over the grid's nodes instead of crushing the few nodes next to its corners.
 *
 * Each pass marks every edge longer than the limit, puts a vertex at its midpoint (one per
 * edge, shared by the triangles on either side, so a closed surface stays closed and
 * consistently oriented) and splits each triangle by the number of its marked edges: three,
 * into four similar triangles; two, into three (the quad left beside the corner triangle cut
 * along its shorter diagonal); one, into two. New edges are medians or such diagonals, never
 * longer than the longest edge they cross, so the passes end once every edge is within the
 * limit. Vertices stay on the original triangles' planes: the shape is unchanged. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

#define SURFACE_REFINE_ERROR (surface_refine_error_quark ())
GQuark surface_refine_error_quark (void);
enum { SURFACE_REFINE_ERROR_TOO_FINE };

/* The refined surface: arrays owned by the struct (surface_refined_clear frees them). */
typedef struct SurfaceRefined {
  double *vertices;        /* 3 * n_vertices; the original vertices first, in their order */
  size_t n_vertices;
  uint32_t *triangles;     /* 3 * n_triangles, each oriented as the triangle it came from */
  size_t n_triangles;
} SurfaceRefined;

/* Splits the triangles of (vertices, triangles) until no edge is longer than max_edge (> 0).
 * Fails, naming `what` (the body), when the result would pass max_vertices. */
gboolean surface_refine (const double *vertices, size_t n_vertices, const uint32_t *triangles,
                         size_t n_triangles, double max_edge, size_t max_vertices,
                         const char *what, SurfaceRefined *out, GError **error);

void surface_refined_clear (SurfaceRefined *refined);

G_END_DECLS

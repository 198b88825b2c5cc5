/* The coarse tetrahedral grid a deformable body is simulated on, built around any closed
 * surface without an external mesher (issue 5; Saupin 2008 and Allard 2010 run their FEM on
 * such grids, with the detailed surface embedded by a barycentric mapping):
 *
 *   1. a regular grid with cells of side about h = (longest extent) / resolution covers the
 *      surface's bounds: either exactly (TET_GRID_FIT_BOUNDS: whole cells along each axis,
 *      slightly stretched, so a box is meshed exactly and nothing of the grid lies outside
 *      the bounds) or with cubic cells and half a cell to spare on each side
 *      (TET_GRID_FIT_MARGIN: no face of the surface lies on the grid's border);
 *   2. a cell is kept when the surface touches it (triangle-box overlap, closed boxes) or
 *      when it lies inside: the cells the surface does not touch are flooded from the grid's
 *      border through shared faces, and those the flood cannot reach are enclosed. A closed
 *      surface separates inside from outside, and any face-connected path of cells from one
 *      to the other meets a cell it touches, so the flood never leaks in, whatever the
 *      surface's shape (holes, cavities and thin parts included);
 *   3. each kept cell is split into the six tetrahedra of the Kuhn (Freudenthal)
 *      triangulation around its main diagonal. The same split in every cell makes the grid
 *      conforming: neighbouring cells cut their shared face along the same diagonal.
 *
 * The kept cells cover the whole solid (every point of it lies in a kept cell), which the
 * barycentric embedding needs. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef enum TetGridFit {
  TET_GRID_FIT_BOUNDS = 0,
  TET_GRID_FIT_MARGIN = 1,
} TetGridFit;

typedef struct TetGrid {
  double origin[3];    /* corner of cell (0, 0, 0), mesh frame */
  double cell[3];      /* a cell's sides along x, y, z */
  int dims[3];         /* cells along x, y, z */
  GArray *nodes;       /* double, 3 per node: rest positions, mesh frame */
  GArray *tets;        /* uint32_t, 4 per tetrahedron, positively oriented */
  GArray *cells;       /* uint32_t: linear index (i + dims[0] (j + dims[1] k)) of each kept
                        * cell; its tetrahedra are 6 c .. 6 c + 5 */
} TetGrid;

/* Builds the grid around a closed surface with `resolution` cells along its longest side
 * (at least 1). Fails with a message naming the surface's source when it is not closed or
 * is empty. */
TetGrid *tet_grid_build (const CwbSurfaceMesh *surface, int resolution, TetGridFit fit,
                         GError **error);
void tet_grid_free (TetGrid *grid);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TetGrid, tet_grid_free)

static inline size_t tet_grid_n_nodes (const TetGrid *g) { return g->nodes->len / 3; }
static inline size_t tet_grid_n_tets (const TetGrid *g) { return g->tets->len / 4; }

/* The kept cell whose box [lo, hi) contains p (the grid's last cells closed on their far
 * side), as its index in `cells`; -1 when that cell is not kept or p is off the grid. */
gssize tet_grid_cell_at (const TetGrid *grid, const double p[3]);

/* Whether triangle (a, b, c) and the closed axis-aligned box [lo, hi] share a point
 * (separating axis test, Akenine-Moller 2001). */
gboolean tet_grid_triangle_box_overlap (const double a[3], const double b[3], const double c[3],
                                        const double lo[3], const double hi[3]);

G_END_DECLS

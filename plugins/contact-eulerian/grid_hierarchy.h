/* The hierarchy of the Eulerian grid (Faure 2007 sec. 6): "only the root level of the
 * hierarchy is computed, and finer levels are created on demand when more than one object is
 * present".
 *
 * Over a pair's box the root level has cells of 2^(levels - 1) grid steps. Each body marks,
 * cheaply and conservatively, the root cells its density can be strictly between 0 and 1 in
 * (its band: a surface's transition, from each triangle's bounds widened by the transition's
 * reach; every cell a particle's cube reaches) and the cells it can be 1 in (its inside: a
 * surface's scan conversion, which every density needs anyway; a body of particles, its
 * band). A root cell is refined, its fine points given their densities (a surface's
 * distances, a particle body's splat), only where one body's band meets the other's band or
 * inside. Everywhere else one of the two densities is exactly 0 or both are uniform, so no
 * point there can overlap with a gradient or come within the margin: the pair's forces,
 * rows and inspection are those of the flat grid to the bit (the tests `/eulerian/hierarchy`), for
 * less work where the bodies' boxes overlap more than the bodies do. */
#pragma once

#include "density_grid.h"

G_BEGIN_DECLS

typedef struct GridHierarchy {
  GridMask mask;      /* the root level: cells, and which are refined */
  GArray *band[2];    /* guint8 per root cell */
  GArray *inside[2];  /* guint8 per root cell */
  GArray *active;     /* guint8 per root cell: the mask's */
} GridHierarchy;

GridHierarchy *grid_hierarchy_new (void);
void grid_hierarchy_free (GridHierarchy *hierarchy);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GridHierarchy, grid_hierarchy_free)

/* Starts a pair's root level over `box` with `levels` levels (1: flat, every cell refined). */
void grid_hierarchy_begin (GridHierarchy *hierarchy, const GridBox *box, int levels);

/* Side `side`'s marks: a closed surface (its density begun, for the scan conversion), or
 * particles (`reach` how far past its centre a particle's density reaches, m). */
void grid_hierarchy_mark_surface (GridHierarchy *hierarchy, int side, const BodyDensity *d,
                                  const double *positions, const uint32_t *triangles,
                                  size_t n_triangles);
void grid_hierarchy_mark_particles (GridHierarchy *hierarchy, int side, const GridBox *box,
                                    const CwbGeometry *g, double reach);

/* Decides the refined cells from both sides' marks; the mask is then ready. */
void grid_hierarchy_finish (GridHierarchy *hierarchy);

/* Root cell (ci, cj, ck)'s bounds in space. */
void grid_hierarchy_cell_bounds (const GridHierarchy *hierarchy, const GridBox *box, int ci,
                                 int cj, int ck, double min[3], double max[3]);

G_END_DECLS

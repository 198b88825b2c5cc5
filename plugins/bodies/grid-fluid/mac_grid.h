/* The marker-and-cell (staggered) grid of the grid fluid (Harlow and Welch 1965; Bridson
 * 2015, "Fluid simulation for computer graphics", 2nd ed., sec. 2.4): n[0] x n[1] x n[2]
 * cubic cells of side dx from `origin`, the pressure at the cells' centres, each velocity
 * component on the faces normal to its axis (component a of face (i, j, k) at origin +
 * dx (i, j, k) + dx/2 on the two other axes).
 *
 * The grid's velocities and masses come from the marker particles (particle to grid,
 * Zhu and Bridson 2005's FLIP transfer): each face's velocity is the mass-weighted mean of
 * the particles' velocities with trilinear weights w_pf, its mass m_f = sum_p m_p w_pf; a
 * cell's mass the same at its centre, except that a particle's weight on an air cell (one no
 * particle lies in) goes to the cell the particle lies in: spread into the air, it would
 * leave the layer of cells at a wall the contacts hold the fluid against reading a part of
 * its mass beyond the wall, and that layer would pack closer unseen. A lattice at rest so
 * reads its density everywhere, at walls and the free surface too. A particle reads the
 * grid back with the same
 * weights (grid to particle), so that sum_p m_p u(x_p) = sum_f m_f u_f: the transfers keep
 * the particles' momentum.
 *
 * A particle takes part only in the grid's inner cells (1 to n - 2 on each axis), so that its
 * weights never reach past the grid; the outer layer of cells is always air, the domain's
 * open border. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct MacGrid {
  int n[3];                /* cells per axis */
  double dx;
  double origin[3];        /* the lowest corner of cell (0, 0, 0) */
  size_t n_cells;
  size_t n_faces[3];       /* faces normal to each axis: (n[a] + 1) prod n[b != a] */
  double *u[3];            /* face velocities, component a on the faces normal to axis a */
  double *mass[3];         /* the particles' mass on each face (kg) */
  double *cell_mass;       /* the particles' mass at each cell's centre (kg) */
  uint8_t *fluid;          /* per cell: 1 when a particle lies in it */
} MacGrid;

/* The grid of cells of side dx covering the box [lo, hi] (at least 3 a side). */
void mac_grid_init (MacGrid *grid, const double lo[3], const double hi[3], double dx);
void mac_grid_clear (MacGrid *grid);

static inline size_t
mac_grid_cell (const MacGrid *grid, int i, int j, int k)
{
  return (size_t) i + (size_t) grid->n[0] * ((size_t) j + (size_t) grid->n[1] * (size_t) k);
}

/* Face (i, j, k) normal to axis a: i runs to n[0] for a = 0, and so on. */
static inline size_t
mac_grid_face (const MacGrid *grid, int a, int i, int j, int k)
{
  size_t nx = (size_t) grid->n[0] + (a == 0), ny = (size_t) grid->n[1] + (a == 1);
  return (size_t) i + nx * ((size_t) j + ny * (size_t) k);
}

/* Whether x lies in the grid's inner cells, where a particle takes part in the grid. */
gboolean mac_grid_inside (const MacGrid *grid, const double x[3]);

/* Clears the grid, then splats the particles whose `inside` flag is set (positions x,
 * velocities v, 3 n each, mass m each): face velocities and masses, cell masses and the
 * fluid cells. */
void mac_grid_splat (MacGrid *grid, const double *x, const double *v, double m, size_t n,
                     const uint8_t *inside);

/* The field `field` (three face arrays laid out as u) interpolated at x (inside). */
void mac_grid_sample (const MacGrid *grid, double *const field[3], const double x[3],
                      double out[3]);

/* A cell-centred field interpolated at x (inside). */
double mac_grid_sample_cells (const MacGrid *grid, const double *cells, const double x[3]);

/* The discrete divergence of the face velocities u in cell (i, j, k), 1/s: the net outflow
 * through its six faces over its volume (Bridson 2015 eq. 5.4). */
double mac_grid_divergence (const MacGrid *grid, double *const u[3], int i, int j, int k);

G_END_DECLS

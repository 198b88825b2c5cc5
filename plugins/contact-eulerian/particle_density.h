/* Volume particles in the Eulerian layer (Faure 2007 sec. 5.4, eq. 4-6): each particle of a
 * CWB_GEOMETRY_PARTICLES geometry (centre q_i, radius r_i, mass m_i) spreads its volume
 * V_i = 4/3 pi r_i^3 over the grid points around it with weights w_ij summing to 1 over j,
 * and the body's density at point j is the volume it receives over the point's cell,
 *     rho_j = min (1, sum_i w_ij V_i / h^3),
 * clamped at 1 (a share of space, which the kernels' rounding can push a few percent past 1
 * inside). The weights are a tent of half-width s_i = max (h, V_i^(1/3)) along each axis,
 * w_ij = prod_c max (0, 1 - |r_jc - q_ic| / s_i) / N_i, N_i its sum over the lattice: for
 * s_i = h the barycentric coordinates of the cell holding the particle (eq. 4), wider for a
 * particle larger than a cell ("distributed over more than one cell").
 *
 * The point moves with the particles by eq. 5 and 6: m_j = sum_i w_ij m_i, and
 * dr_j / dq_i = w_ij m_i / m_j. The density's gradient and Hessian are finite differences of
 * the sampled values, the paper's own way ("the other operators can be deduced using finite
 * differences in the regular grid"). */
#pragma once

#include <cwb/cwb.h>

#include "density_grid.h"
#include "grid_point.h"

G_BEGIN_DECLS

/* The largest kernel half-width of the geometry's particles at grid step h: how far beyond
 * their centres the density reaches. */
double particle_density_reach (const CwbGeometry *g, double step);

/* Samples the particles of g over the box. */
void body_density_sample_particles (BodyDensity *d, const GridBox *box, const CwbGeometry *g);

/* Central differences of the sampled density at point (i, j, k) (one-sided at the box's
 * faces). */
void particle_density_derivatives (const BodyDensity *d, int i, int j, int k, double g[3],
                                   double hess[9]);

/* Eq. 6: the particles point (i, j, k) moves with and their weights w_ij m_i / m_j, the
 * GRID_POINT_TERMS heaviest, scaled to sum to 1. */
void particle_grid_point_map (const BodyDensity *d, const CwbGeometry *g, int i, int j, int k,
                              GridPoint *m);

G_END_DECLS

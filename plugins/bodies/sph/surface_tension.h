/* Surface tension and cohesion (Akinci, Akinci and Teschner 2013, "Versatile surface
 * tension and adhesion for SPH fluids", sec. 4), the model SPlisHSPlasH offers as
 * "Akinci et al. 2013". Between neighbours i, j (x_ij = x_i - x_j, r = |x_ij|):
 *
 *   F_cohesion   = -gamma m_i m_j C(r) x_ij / r                       eq. 1
 *   n_i          = H sum_j m_j / rho_j grad W(x_ij)                    eq. 3, H the support
 *   F_curvature  = -gamma m_i (n_i - n_j)                              eq. 4
 *   F_ij         = K_ij (F_cohesion + F_curvature), K_ij = 2 rho_0 / (rho_i + rho_j)   eq. 5
 *
 * C is the cohesion spline (sph_kernel_cohesion, eq. 2). n_i, the scaled surface normal,
 * vanishes inside the fluid, so the curvature term acts at the surface alone and pulls a
 * surface towards constant curvature; K_ij strengthens the force where particles lack
 * neighbours. Both terms change sign when i and j swap (for particles of equal mass), so
 * the fluid's linear momentum is kept; the curvature term is not central, so its angular
 * momentum is not.
 *
 * gamma is the paper's coefficient, not a surface tension in N/m: eq. 1 and eq. 4 give it
 * different units (m^4 kg^-1 s^-2 and m s^-2 in SI), as in the paper and in SPlisHSPlasH,
 * whose `surfaceTension` value is the same gamma. */
#pragma once

#include "neighbour_grid.h"

G_BEGIN_DECLS

/* Adds the accelerations F_i / m of eq. 5 into a (3 n), for the n particles at x with the
 * lists of `grid`, the densities rho (n) and the lists' kernel gradients (3 per pair); the
 * normals n_i go into `normals` (3 n, scratch). */
void sph_surface_tension_add (const NeighbourGrid *grid, const double *x, const double *rho,
                              const double *gradients, size_t n, double mass,
                              double rest_density, double support, double gamma,
                              double *normals, double *a);

G_END_DECLS

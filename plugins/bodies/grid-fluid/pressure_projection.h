/* The pressure projection of the grid fluid (Bridson 2015 ch. 5): the pressure p in the fluid
 * cells, p = 0 in the air cells (the free surface's condition, Bridson 2015 sec. 5.1), that
 * makes the face velocities' divergence in every fluid cell its target t,
 *   u_f <- u_f - dt / rho_f (p_b - p_a) / dx     for the face f from cell a to cell b
 *   div u = t                                     in every fluid cell,
 * i.e. A p = t - div u* with (A p)_a = sum_f c_f (p_a - p_b), c_f = dt / (rho_f dx^2): the
 * 7-point Laplacian, symmetric positive definite, solved by conjugate gradients preconditioned
 * with the modified incomplete Cholesky factorisation MIC(0) (Bridson 2015 sec. 5.4, Fig. 5.5
 * in three dimensions).
 *
 * rho_f is the face's own density, the particles' mass on it over a cell's volume (floored at
 * PROJECTION_MIN_DENSITY_SHARE rho_0): the change of the face momenta m_f u_f is then
 * -dt dx^2 (p_b - p_a), a difference that sums to zero along every line of faces (p = 0 at
 * both ends, in the air), so the projection, whatever p, changes the particles' momentum by
 * nothing (the transfers keep it, mac_grid.h). The projection's pressure is the fluid's only
 * internal force. */
#pragma once

#include "mac_grid.h"

G_BEGIN_DECLS

/* A face's density is at least this share of the rest density, only so that a face no
 * particle reaches keeps a finite coefficient: every face a particle reads holds at least
 * that particle's weight on it, which bounds the velocity it gets back (m_p w_pf du_f <=
 * dt dx^2 |p_b - p_a|), and a floor any higher would break the momentum's telescoping. */
#define PROJECTION_MIN_DENSITY_SHARE 1e-9
/* MIC(0)'s parameters (Bridson 2015 Fig. 5.5): the modification's weight tau and the safety
 * sigma under which a pivot falls back to the diagonal. */
#define PROJECTION_MIC_TAU 0.97
#define PROJECTION_MIC_SIGMA 0.25

typedef struct ProjectionStats {
  int iterations;
  double residual;         /* max |div u - t| after the solve, 1/s */
  double rhs;              /* max |t - div u*| before it, 1/s */
} ProjectionStats;

typedef struct PressureProjection {
  size_t n_cells;
  double *pressure;        /* per cell, Pa; 0 in air */
  double *diag, *plus[3];  /* A's diagonal and its coupling to the next cell on each axis */
  double *precon, *r, *z, *s, *q;
  ProjectionStats stats;
} PressureProjection;

void pressure_projection_init (PressureProjection *proj, size_t n_cells);
void pressure_projection_clear (PressureProjection *proj);

/* Projects the grid's face velocities (in place) over a step dt, with the rest density rho_0,
 * so that each fluid cell's divergence is target[cell] (1/s; NULL: 0). The conjugate
 * gradients stop when max |div u - t| <= tolerance max |t - div u*| or after
 * max_iterations. */
void pressure_projection_solve (PressureProjection *proj, MacGrid *grid, double dt,
                                double rest_density, const double *target, double tolerance,
                                int max_iterations);

G_END_DECLS

/* The grid fluid's step: marker particles carried through a MAC grid with a FLIP/PIC blend
 * (Zhu and Bridson 2005, "Animating sand as a fluid", sec. 4; Bridson 2015 sec. 7.6), the
 * pressure projected on the grid with a free surface (pressure_projection.h).
 *
 * One substep of length h from the particles' x, v:
 *   1. v* = v + h (g + f_ext / m)         gravity and the contact model's forces, on the
 *                                          particles, so the grid receives them as momentum
 *   2. u* = particles to grid (v*)        face velocities and masses, fluid cells, cell
 *                                          masses (mac_grid.h)
 *   3. t = beta (rho_c / rho_0 - 1) / h in each fluid cell, over-dense or enclosed by fluid
 *      on all six sides (an under-dense cell at the free surface or a wall is not
 *      contracted): a cell holding more particles' mass than its volume of fluid expands
 *      (the density correction of Kugelstadt et al. 2019, "Implicit density projection for
 *      volume conserving liquids", in the divergence target's form), which is what makes a
 *      column of particles standing on a wall met only through the contact model hold its weight;
 *   4. u = project(u*, t)                 div u = t in the fluid cells, p = 0 in the air;
 *   5. v = alpha (v* + u(x) - u*(x)) + (1 - alpha) u(x)     the FLIP/PIC blend at x;
 *   6. x = x + h v.
 * A particle outside the grid's inner cells (the domain is finite) takes no part in steps
 * 2-5 and moves ballistically under gravity and its external force: a droplet that left
 * the domain, counted in the statistics.
 *
 * The transfers and the projection keep the particles' momentum (mac_grid.h,
 * pressure_projection.h), so the fluid's momentum changes only by gravity and the external
 * forces. */
#pragma once

#include "mac_grid.h"
#include "pressure_projection.h"

G_BEGIN_DECLS

/* The CFL number: a substep moves no particle by more than this share of a cell (Bridson
 * 2015 sec. 3.2 allows a few cells for semi-Lagrangian advection; particles moving by their
 * own velocities, and the contact model's correction after the step, want less). */
#define FLIP_CFL 0.5
/* The most substeps a step is cut into (beyond, the velocities are no fluid's: the world's
 * energy guard reports the blow-up). */
#define FLIP_MAX_SUBSTEPS 64

typedef struct FlipParams {
  double cell_size;        /* dx, m */
  double particle_mass;    /* kg, each particle's */
  double density;          /* rho_0, kg/m^3 */
  double flip_ratio;       /* alpha: 1 is pure FLIP, 0 pure PIC */
  double density_gain;     /* beta, the density correction's share per substep */
  double tolerance;        /* the projection's relative residual */
  int max_iterations;
} FlipParams;

typedef struct FlipStats {
  int substeps;
  int iterations;           /* of the last substep's projection */
  double residual;          /* max |div u - t| after it, 1/s */
  size_t fluid_cells;
  size_t outside;           /* particles outside the grid's inner cells at the step's end */
  double max_density_error; /* max rho_c / rho_0 - 1 over the fluid cells, last substep */
} FlipStats;

typedef struct FlipSolver {
  FlipParams params;
  MacGrid grid;
  PressureProjection projection;
  size_t n;
  double *u_star[3];        /* the grid's velocities before the projection */
  double *target;           /* per cell */
  double *x_sub, *v_sub, *v_star;
  uint8_t *inside;
  gboolean stepped;         /* the projection's pressure belongs to a step */
  FlipStats stats;
} FlipSolver;

/* A solver for n particles over the domain box [lo, hi] (world). */
void flip_solver_init (FlipSolver *solver, const FlipParams *params, size_t n,
                       const double lo[3], const double hi[3]);
void flip_solver_clear (FlipSolver *solver);

/* One step of length dt from x, v (3 n each) under gravity and the external forces f_ext
 * (3 n, N, or NULL), into x_out, v_out (which may not alias x, v). */
void flip_solver_step (FlipSolver *solver, const double *x, const double *v,
                       const double *f_ext, const double gravity[3], double dt, double *x_out,
                       double *v_out);

/* Each fluid cell's density correction target (into solver->target) from the cell masses
 * the last splat left, over a substep h; the largest density error into the statistics. */
void flip_solver_targets (FlipSolver *solver, double h);

/* The pressure the last step's last projection left, at x (Pa; 0 outside the grid's inner
 * cells and before the first step). */
double flip_solver_pressure_at (const FlipSolver *solver, const double x[3]);

G_END_DECLS

/* The fluid's step: predictive-corrective incompressible SPH (Solenthaler and Pajarola 2009,
 * "Predictive-corrective incompressible SPH", Alg. 2), on particles of equal mass.
 *
 * One step of length dt from x, v under the non-pressure accelerations a_np (gravity, the
 * external force the contact model applies, viscosity):
 *   1. neighbours of x within the support H (the lists stay for the iterations);
 *   2. pressure p = 0; then repeat
 *        v* = v + dt (a_np + a_p),  x* = x + dt v*            predict
 *        rho*_i = sum_j m W(x*_i - x*_j)                        eq. 1 at x*
 *        p_i += omega delta max(rho*_i - rho_0, -p_i / (omega delta))
 *                                                  eq. 8 under-relaxed, p >= 0 (free surface)
 *        a_p,i = -sum_j m (p_i + p_j) / rho_0^2 grad W_ij        eq. 5 with rho = rho_0,
 *                                                   grad W at x (central pair forces)
 *      until the mean compression mean(max(rho* - rho_0, 0)) / rho_0 is below the tolerance
 *      and no particle's above max_compression (at least SPH_MIN_ITERATIONS times, at most
 *      the limit): a mean alone lets a few particles pressed against a wall keep a tenth,
 *      whose pressure, growing as 1 / dt^2, throws them off;
 *   3. the last prediction is the step's result.
 * delta = 1 / (beta sum_j |grad W_ij|^2), beta = 2 (dt m / rho_0)^2 (eq. 8 for a full
 * neighbourhood, where sum_j grad W_ij = 0), computed on the particles' own lattice.
 *
 * Viscosity is Monaghan's (2005, "Smoothed particle hydrodynamics", eq. 6.13 in the form of
 * Ihmsen 2014 eq. 11): a_i = 2 (d + 2) nu sum_j m / rho_0 (v_ij . x_ij) / (|x_ij|^2 +
 * 0.01 H^2) grad W_ij, antisymmetric in i, j as the pressure term is, so that the fluid's
 * momentum changes only by gravity and the external forces.
 *
 * Surface tension (surface_tension.h, Akinci et al. 2013) joins the non-pressure
 * accelerations when its coefficient is positive; at 0 the step is the one above, bit for bit.
 *
 * Particles that the fluid does not move (an inflow's, sph_inflow.h) have a mode: a driven
 * particle moves on at its own velocity, x += dt v, and is every other particle's neighbour
 * (its density and pressure push the fluid as a moving wall would); a parked one keeps its
 * x and v and is nobody's neighbour. The stopping test counts the free particles alone.
 *
 * rho_0 is the density the lattice the particles were placed on has under the kernel
 * (m sum_j W over a full neighbourhood): a fluid at rest on its lattice has zero pressure,
 * and its mass per volume is the material's density m / s^3. */
#pragma once

#include "neighbour_grid.h"

G_BEGIN_DECLS

/* The fewest pressure iterations per step (Solenthaler and Pajarola 2009 sec. 4: "a minimum
 * of three iterations" so that the pressure has spread over a neighbourhood). */
#define SPH_MIN_ITERATIONS 3
/* omega, the share of eq. 8's pressure correction applied per iteration. eq. 8's delta is
 * exact for a particle inside a full neighbourhood of particles that do not move; a particle
 * a body presses into its neighbours moves them too, and the full correction overshoots:
 * its compression then swings between iterations (1.6 % and 8.5 % in the mixed scene) and
 * never meets the stopping test. Half the correction converges there as a damped Jacobi
 * iteration does (docs/plugins/sph.md, "Pressure iterations"). */
#define SPH_PRESSURE_RELAXATION 0.5
/* The CFL number: a step moves no particle by more than this share of the spacing (Ihmsen
 * 2014 eq. 13's lambda = 0.4); a longer step is cut into substeps. */
#define SPH_CFL 0.4
/* The most substeps a step is cut into: beyond, the velocities are not a fluid's (a blow-up
 * the world's energy guard reports), and the step runs with this many. */
#define SPH_MAX_SUBSTEPS 64

typedef struct SphParams {
  double spacing;          /* the lattice spacing s; the support H = 2 s */
  double mass;             /* each particle's, rho_material s^3 */
  double viscosity;        /* kinematic, m^2/s */
  double tolerance;        /* the mean compression the pressure iterations stop at */
  double max_compression;  /* and the most any particle may keep */
  int max_iterations;
  double surface_tension;  /* Akinci 2013's gamma; 0: none */
} SphParams;

/* A particle's part in the step (SphSolver.modes). */
enum { SPH_MODE_FREE = 0, SPH_MODE_DRIVEN = 1, SPH_MODE_PARKED = 2 };

typedef struct SphStats {
  int substeps;
  int iterations;          /* of the last substep */
  double mean_compression; /* after it, a share of rho_0 */
  double max_compression;
  double search_seconds;   /* the step's neighbour searches (wall clock), for the benchmark
                            * of the search alone (bench/sph_step.sh) */
} SphStats;

typedef struct SphSolver {
  SphParams params;
  double support;          /* H */
  double rest_density;     /* rho_0 of the lattice */
  double delta_unit;       /* 1 / (2 (m / rho_0)^2 sum |grad W|^2): delta = delta_unit / dt^2 */
  size_t n;
  NeighbourGrid grid;
  double *density, *pressure, *a_np, *a_p, *x_pred, *v_pred, *x_sub, *v_sub;
  double *gradients;       /* 3 per pair of the lists: grad W(x_i - x_j) at the step's start */
  double *normals;         /* 3 n, surface tension's n_i (allocated when it is on) */
  double *x_grid;          /* 3 n, the positions the lists are built from (parked: NAN) */
  const uint8_t *modes;    /* n SPH_MODE_* the caller sets before a step; NULL: all free */
  size_t gradient_capacity;
  SphStats stats;
} SphSolver;

void sph_solver_init (SphSolver *solver, const SphParams *params, size_t n);
void sph_solver_clear (SphSolver *solver);

/* One step of length dt from x, v (3 n each) under gravity and the external forces f_ext
 * (3 n, N, or NULL), into x_out, v_out (which may not alias x, v). */
void sph_solver_step (SphSolver *solver, const double *x, const double *v, const double *f_ext,
                      const double gravity[3], double dt, double *x_out, double *v_out);

/* The densities sum_j m W at x (n), with the grid rebuilt for x: what the tests measure. */
void sph_solver_densities (SphSolver *solver, const double *x, double *density);
/* The same on a grid of its own, the solver left as it is: what the step's scratch holds
 * (the grid's lists for the pressure iterations) is not touched by an inspection. modes (n,
 * or NULL) as SphSolver.modes: parked particles are left out. */
void sph_solver_inspect_densities (const SphSolver *solver, const double *x,
                                   const uint8_t *modes, double *density);

G_END_DECLS

/* The FLIP/PIC step (see flip_step.h). */
#include "flip_step.h"

#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

void
flip_solver_init (FlipSolver *solver, const FlipParams *params, size_t n, const double lo[3],
                  const double hi[3])
{
  memset (solver, 0, sizeof *solver);
  solver->params = *params;
  solver->n = n;
  mac_grid_init (&solver->grid, lo, hi, params->cell_size);
  pressure_projection_init (&solver->projection, solver->grid.n_cells);
  for (int a = 0; a < 3; a++)
    solver->u_star[a] = g_new0 (double, solver->grid.n_faces[a]);
  solver->target = g_new0 (double, solver->grid.n_cells);
  solver->x_sub = g_new0 (double, 3 * n);
  solver->v_sub = g_new0 (double, 3 * n);
  solver->v_star = g_new0 (double, 3 * n);
  solver->inside = g_new0 (uint8_t, n);
}

void
flip_solver_clear (FlipSolver *solver)
{
  mac_grid_clear (&solver->grid);
  pressure_projection_clear (&solver->projection);
  for (int a = 0; a < 3; a++)
    g_free (solver->u_star[a]);
  g_free (solver->target);
  g_free (solver->x_sub);
  g_free (solver->v_sub);
  g_free (solver->v_star);
  g_free (solver->inside);
  memset (solver, 0, sizeof *solver);
}

/* Whether the fluid cell c has fluid on all six sides (fluid cells are inner ones). */
static gboolean
enclosed (const MacGrid *grid, size_t c)
{
  size_t stride[3] = { 1, (size_t) grid->n[0], (size_t) grid->n[0] * grid->n[1] };
  for (int a = 0; a < 3; a++)
    if (!grid->fluid[c - stride[a]] || !grid->fluid[c + stride[a]])
      return FALSE;
  return TRUE;
}

void
flip_solver_targets (FlipSolver *solver, double h)
{
  const MacGrid *grid = &solver->grid;
  double volume = grid->dx * grid->dx * grid->dx, most = 0;
  for (size_t c = 0; c < grid->n_cells; c++)
    {
      solver->target[c] = 0;
      if (!grid->fluid[c])
        continue;
      double error = grid->cell_mass[c] / (volume * solver->params.density) - 1;
      most = MAX (most, error);
      if (error < 0 && !enclosed (grid, c))
        error = 0;
      solver->target[c] = solver->params.density_gain * error / h;
    }
  solver->stats.max_density_error = most;
}

/* Steps 1-6 of flip_step.h over h, from x_sub, v_sub in place. */
static void
substep (FlipSolver *solver, const double *f_ext, const double gravity[3], double h)
{
  MacGrid *grid = &solver->grid;
  const FlipParams *params = &solver->params;
  size_t n = solver->n;
  double *x = solver->x_sub, *v = solver->v_sub, *v_star = solver->v_star;
  for (size_t p = 0; p < n; p++)
    {
      double *vs = &v_star[3 * p];
      cwb_v3_copy (vs, &v[3 * p]);
      cwb_v3_axpy (vs, h, gravity);
      if (f_ext != NULL)
        cwb_v3_axpy (vs, h / params->particle_mass, &f_ext[3 * p]);
      solver->inside[p] = mac_grid_inside (grid, &x[3 * p]);
    }
  mac_grid_splat (grid, x, v_star, params->particle_mass, n, solver->inside);
  for (int a = 0; a < 3; a++)
    memcpy (solver->u_star[a], grid->u[a], grid->n_faces[a] * sizeof (double));
  flip_solver_targets (solver, h);
  pressure_projection_solve (&solver->projection, grid, h, params->density, solver->target,
                             params->tolerance, params->max_iterations);
  double alpha = params->flip_ratio;
  for (size_t p = 0; p < n; p++)
    {
      double *vp = &v[3 * p], *xp = &x[3 * p];
      if (solver->inside[p])
        {
          double u[3], u_old[3];
          mac_grid_sample (grid, grid->u, xp, u);
          mac_grid_sample (grid, solver->u_star, xp, u_old);
          for (int c = 0; c < 3; c++)
            vp[c] = alpha * (v_star[3 * p + c] + u[c] - u_old[c]) + (1 - alpha) * u[c];
        }
      else
        cwb_v3_copy (vp, &v_star[3 * p]);
      cwb_v3_axpy (xp, h, vp);
    }
  solver->stats.iterations = solver->projection.stats.iterations;
  solver->stats.residual = solver->projection.stats.residual;
}

void
flip_solver_step (FlipSolver *solver, const double *x, const double *v, const double *f_ext,
                  const double gravity[3], double dt, double *x_out, double *v_out)
{
  size_t n = solver->n;
  /* Substeps from the fastest particle's speed after the step's external accelerations. */
  double fastest = 0;
  for (size_t p = 0; p < n; p++)
    {
      double u[3];
      cwb_v3_copy (u, &v[3 * p]);
      cwb_v3_axpy (u, dt, gravity);
      if (f_ext != NULL)
        cwb_v3_axpy (u, dt / solver->params.particle_mass, &f_ext[3 * p]);
      double speed = cwb_v3_norm (u);
      fastest = isfinite (speed) ? MAX (fastest, speed) : fastest;
    }
  double substeps = ceil (dt * fastest / (FLIP_CFL * solver->params.cell_size));
  int count = (int) CLAMP (substeps, 1, FLIP_MAX_SUBSTEPS);
  double h = dt / count;
  memcpy (solver->x_sub, x, 3 * n * sizeof (double));
  memcpy (solver->v_sub, v, 3 * n * sizeof (double));
  for (int s = 0; s < count; s++)
    substep (solver, f_ext, gravity, h);
  solver->stats.substeps = count;
  solver->stats.fluid_cells = 0;
  for (size_t c = 0; c < solver->grid.n_cells; c++)
    solver->stats.fluid_cells += solver->grid.fluid[c];
  solver->stats.outside = 0;
  for (size_t p = 0; p < n; p++)
    solver->stats.outside += !mac_grid_inside (&solver->grid, &solver->x_sub[3 * p]);
  solver->stepped = TRUE;
  memcpy (x_out, solver->x_sub, 3 * n * sizeof (double));
  memcpy (v_out, solver->v_sub, 3 * n * sizeof (double));
}

double
flip_solver_pressure_at (const FlipSolver *solver, const double x[3])
{
  if (!solver->stepped || !mac_grid_inside (&solver->grid, x))
    return 0;
  return mac_grid_sample_cells (&solver->grid, solver->projection.pressure, x);
}

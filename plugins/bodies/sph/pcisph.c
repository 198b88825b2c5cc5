/* PCISPH's step (see pcisph.h). */
#include "pcisph.h"

#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "sph_kernel.h"
#include "surface_tension.h"

/* rho_0 and sum |grad W|^2 over a full neighbourhood of the particles' cubic lattice. */
static void
lattice_sums (double spacing, double support, double mass, double *rest_density,
              double *gradient_sq)
{
  int reach = (int) ceil (support / spacing);
  double rho = 0, g2 = 0;
  for (int i = -reach; i <= reach; i++)
    for (int j = -reach; j <= reach; j++)
      for (int k = -reach; k <= reach; k++)
        {
          double d[3] = { i * spacing, j * spacing, k * spacing };
          double r = cwb_v3_norm (d);
          if (r >= support)
            continue;
          rho += mass * sph_kernel_w (r, support);
          double g[3];
          sph_kernel_gradient (d, r, support, g);
          g2 += cwb_v3_dot (g, g);
        }
  *rest_density = rho;
  *gradient_sq = g2;
}

void
sph_solver_init (SphSolver *solver, const SphParams *params, size_t n)
{
  memset (solver, 0, sizeof *solver);
  solver->params = *params;
  solver->support = 2 * params->spacing;
  solver->n = n;
  double gradient_sq;
  lattice_sums (params->spacing, solver->support, params->mass, &solver->rest_density,
                &gradient_sq);
  double volume = params->mass / solver->rest_density;
  solver->delta_unit = 1.0 / (2 * volume * volume * gradient_sq);
  neighbour_grid_init (&solver->grid);
  solver->density = g_new0 (double, n);
  solver->pressure = g_new0 (double, n);
  solver->a_np = g_new0 (double, 3 * n);
  solver->a_p = g_new0 (double, 3 * n);
  solver->x_pred = g_new0 (double, 3 * n);
  solver->v_pred = g_new0 (double, 3 * n);
  solver->x_sub = g_new0 (double, 3 * n);
  solver->v_sub = g_new0 (double, 3 * n);
  solver->x_grid = g_new0 (double, 3 * n);
}

void
sph_solver_clear (SphSolver *solver)
{
  neighbour_grid_clear (&solver->grid);
  g_free (solver->density);
  g_free (solver->pressure);
  g_free (solver->a_np);
  g_free (solver->a_p);
  g_free (solver->x_pred);
  g_free (solver->v_pred);
  g_free (solver->x_sub);
  g_free (solver->v_sub);
  g_free (solver->gradients);
  g_free (solver->normals);
  g_free (solver->x_grid);
  memset (solver, 0, sizeof *solver);
}

/* density_i = m (W(0) + sum_j W(x_i - x_j)) over the lists of `grid` (built at x). */
static void
densities_at (const SphSolver *solver, const NeighbourGrid *grid, const double *x,
              double *density)
{
  double h = solver->support, m = solver->params.mass;
  double self = m * sph_kernel_w (0, h);
  for (size_t i = 0; i < solver->n; i++)
    {
      double rho = self;
      for (uint32_t k = grid->start[i]; k < grid->start[i + 1]; k++)
        {
          double d[3];
          cwb_v3_sub (d, &x[3 * i], &x[3 * grid->neighbours[k]]);
          rho += m * sph_kernel_w (cwb_v3_norm (d), h);
        }
      density[i] = rho;
    }
}

/* Builds `grid` for x, parked particles (modes) left out: their positions, in `scratch` (3
 * n), are made NAN, which the grid gives no neighbours and nobody as one. */
static void
grid_build (const SphSolver *solver, NeighbourGrid *grid, const double *x,
            const uint8_t *modes, double *scratch)
{
  const double *positions = x;
  if (modes != NULL)
    {
      memcpy (scratch, x, 3 * solver->n * sizeof (double));
      for (size_t i = 0; i < solver->n; i++)
        if (modes[i] == SPH_MODE_PARKED)
          scratch[3 * i] = scratch[3 * i + 1] = scratch[3 * i + 2] = NAN;
      positions = scratch;
    }
  neighbour_grid_build (grid, positions, solver->n, solver->support);
}

void
sph_solver_densities (SphSolver *solver, const double *x, double *density)
{
  grid_build (solver, &solver->grid, x, solver->modes, solver->x_grid);
  densities_at (solver, &solver->grid, x, density);
}

void
sph_solver_inspect_densities (const SphSolver *solver, const double *x,
                              const uint8_t *modes, double *density)
{
  NeighbourGrid grid;
  neighbour_grid_init (&grid);
  g_autofree double *scratch = modes != NULL ? g_new (double, 3 * solver->n) : NULL;
  grid_build (solver, &grid, x, modes, scratch);
  densities_at (solver, &grid, x, density);
  neighbour_grid_clear (&grid);
}

/* a_np = g + f_ext / m + Monaghan's viscosity at x, v, and surface tension when it is on. */
static void
non_pressure_accelerations (SphSolver *solver, const double *x, const double *v,
                            const double *f_ext, const double gravity[3])
{
  const NeighbourGrid *grid = &solver->grid;
  double h = solver->support, m = solver->params.mass;
  double nu_term = 10 * solver->params.viscosity * m / solver->rest_density;  /* 2 (d + 2) */
  for (size_t i = 0; i < solver->n; i++)
    {
      double *a = &solver->a_np[3 * i];
      cwb_v3_copy (a, gravity);
      if (f_ext != NULL)
        cwb_v3_axpy (a, 1.0 / m, &f_ext[3 * i]);
      if (nu_term <= 0)
        continue;
      for (uint32_t k = grid->start[i]; k < grid->start[i + 1]; k++)
        {
          uint32_t j = grid->neighbours[k];
          double d[3], dv[3];
          cwb_v3_sub (d, &x[3 * i], &x[3 * j]);
          cwb_v3_sub (dv, &v[3 * i], &v[3 * j]);
          cwb_v3_axpy (a, nu_term * cwb_v3_dot (dv, d) / (cwb_v3_dot (d, d) + 0.01 * h * h),
                       &solver->gradients[3 * k]);
        }
    }
  if (solver->params.surface_tension > 0)
    {
      if (solver->normals == NULL)
        solver->normals = g_new (double, 3 * solver->n);
      densities_at (solver, grid, x, solver->density);
      sph_surface_tension_add (grid, x, solver->density, solver->gradients, solver->n, m,
                               solver->rest_density, h, solver->params.surface_tension,
                               solver->normals, solver->a_np);
    }
}

/* grad W(x_i - x_j) for every pair of the lists at the step's start positions x. */
static void
pair_gradients (SphSolver *solver, const double *x)
{
  const NeighbourGrid *grid = &solver->grid;
  size_t pairs = grid->start[solver->n];
  if (pairs > solver->gradient_capacity)
    {
      solver->gradient_capacity = MAX (pairs, 2 * solver->gradient_capacity);
      solver->gradients = g_renew (double, solver->gradients, 3 * solver->gradient_capacity);
    }
  for (size_t i = 0; i < solver->n; i++)
    for (uint32_t k = grid->start[i]; k < grid->start[i + 1]; k++)
      {
        double d[3];
        cwb_v3_sub (d, &x[3 * i], &x[3 * grid->neighbours[k]]);
        sph_kernel_gradient (d, cwb_v3_norm (d), solver->support, &solver->gradients[3 * k]);
      }
}

/* a_p,i = -sum_j m (p_i + p_j) / rho_0^2 grad W_ij: PCISPH's pressure force with the
 * pressures of the predicted densities and the kernel's gradients at the step's start, so
 * that the pair forces lie along x_ij and keep the angular momentum as well as the linear. */
static void
pressure_accelerations (SphSolver *solver)
{
  const NeighbourGrid *grid = &solver->grid;
  double m = solver->params.mass;
  double scale = m / (solver->rest_density * solver->rest_density);
  const double *p = solver->pressure;
  for (size_t i = 0; i < solver->n; i++)
    {
      double *a = &solver->a_p[3 * i];
      a[0] = a[1] = a[2] = 0;
      for (uint32_t k = grid->start[i]; k < grid->start[i + 1]; k++)
        {
          double sum = p[i] + p[grid->neighbours[k]];
          if (sum != 0)
            cwb_v3_axpy (a, -scale * sum, &solver->gradients[3 * k]);
        }
    }
}

/* x*, v* from x, v and the accelerations; a driven or parked particle keeps its v. */
static void
predict (SphSolver *solver, const double *x, const double *v, double dt)
{
  const uint8_t *modes = solver->modes;
  for (size_t c = 0; c < 3 * solver->n; c++)
    {
      gboolean moves = modes == NULL || modes[c / 3] == SPH_MODE_FREE;
      solver->v_pred[c] = moves ? v[c] + dt * (solver->a_np[c] + solver->a_p[c]) : v[c];
      solver->x_pred[c] = x[c] + dt * solver->v_pred[c];
    }
}

/* One PCISPH substep from x, v into x_pred, v_pred. */
static void
substep (SphSolver *solver, const double *x, const double *v, const double *f_ext,
         const double gravity[3], double dt)
{
  size_t n = solver->n;
  gint64 search_start = g_get_monotonic_time ();
  grid_build (solver, &solver->grid, x, solver->modes, solver->x_grid);
  solver->stats.search_seconds += 1e-6 * (double) (g_get_monotonic_time () - search_start);
  pair_gradients (solver, x);
  non_pressure_accelerations (solver, x, v, f_ext, gravity);
  memset (solver->pressure, 0, n * sizeof (double));
  memset (solver->a_p, 0, 3 * n * sizeof (double));
  double rho0 = solver->rest_density, delta = solver->delta_unit / (dt * dt);
  for (int iteration = 1;; iteration++)
    {
      predict (solver, x, v, dt);
      densities_at (solver, &solver->grid, solver->x_pred, solver->density);
      double sum = 0, most = 0;
      size_t counted = 0;
      for (size_t i = 0; i < n; i++)
        {
          if (solver->modes != NULL && solver->modes[i] != SPH_MODE_FREE)
            continue;
          double compression = MAX (solver->density[i] - rho0, 0) / rho0;
          sum += compression;
          most = MAX (most, compression);
          counted++;
        }
      solver->stats.iterations = iteration;
      solver->stats.mean_compression = counted > 0 ? sum / counted : 0;
      solver->stats.max_compression = most;
      if ((iteration >= SPH_MIN_ITERATIONS
           && solver->stats.mean_compression <= solver->params.tolerance
           && most <= solver->params.max_compression)
          || iteration >= solver->params.max_iterations)
        break;
      for (size_t i = 0; i < n; i++)
        solver->pressure[i] = MAX (solver->pressure[i] + SPH_PRESSURE_RELAXATION * delta
                                                           * (solver->density[i] - rho0),
                                   0);
      pressure_accelerations (solver);
    }
}

void
sph_solver_step (SphSolver *solver, const double *x, const double *v, const double *f_ext,
                 const double gravity[3], double dt, double *x_out, double *v_out)
{
  size_t n = solver->n;
  /* Substeps from the fastest particle's speed after the step's external accelerations. */
  double fastest = 0;
  for (size_t i = 0; i < n; i++)
    {
      double u[3];
      cwb_v3_copy (u, &v[3 * i]);
      cwb_v3_axpy (u, dt, gravity);
      if (f_ext != NULL)
        cwb_v3_axpy (u, dt / solver->params.mass, &f_ext[3 * i]);
      double speed = cwb_v3_norm (u);
      fastest = isfinite (speed) ? MAX (fastest, speed) : fastest;
    }
  double substeps = ceil (dt * fastest / (SPH_CFL * solver->params.spacing));
  int count = (int) CLAMP (substeps, 1, SPH_MAX_SUBSTEPS);
  double h = dt / count;
  memcpy (solver->x_sub, x, 3 * n * sizeof (double));
  memcpy (solver->v_sub, v, 3 * n * sizeof (double));
  solver->stats.search_seconds = 0;
  for (int s = 0; s < count; s++)
    {
      substep (solver, solver->x_sub, solver->v_sub, f_ext, gravity, h);
      memcpy (solver->x_sub, solver->x_pred, 3 * n * sizeof (double));
      memcpy (solver->v_sub, solver->v_pred, 3 * n * sizeof (double));
    }
  solver->stats.substeps = count;
  memcpy (x_out, solver->x_sub, 3 * n * sizeof (double));
  memcpy (v_out, solver->v_sub, 3 * n * sizeof (double));
}

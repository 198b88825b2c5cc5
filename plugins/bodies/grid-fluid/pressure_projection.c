/* The pressure projection (see pressure_projection.h). */
#include "pressure_projection.h"

#include <math.h>
#include <string.h>

void
pressure_projection_init (PressureProjection *proj, size_t n_cells)
{
  memset (proj, 0, sizeof *proj);
  proj->n_cells = n_cells;
  proj->pressure = g_new0 (double, n_cells);
  proj->diag = g_new0 (double, n_cells);
  for (int a = 0; a < 3; a++)
    proj->plus[a] = g_new0 (double, n_cells);
  proj->precon = g_new0 (double, n_cells);
  proj->r = g_new0 (double, n_cells);
  proj->z = g_new0 (double, n_cells);
  proj->s = g_new0 (double, n_cells);
  proj->q = g_new0 (double, n_cells);
}

void
pressure_projection_clear (PressureProjection *proj)
{
  g_free (proj->pressure);
  g_free (proj->diag);
  for (int a = 0; a < 3; a++)
    g_free (proj->plus[a]);
  g_free (proj->precon);
  g_free (proj->r);
  g_free (proj->z);
  g_free (proj->s);
  g_free (proj->q);
  memset (proj, 0, sizeof *proj);
}

/* The cell one step along axis a from (i, j, k), as an offset in the cell array. */
static size_t
axis_stride (const MacGrid *grid, int a)
{
  return a == 0 ? 1 : a == 1 ? (size_t) grid->n[0] : (size_t) grid->n[0] * grid->n[1];
}

/* dt / (rho_f dx^2) for face f normal to axis a. */
static double
face_coefficient (const MacGrid *grid, int a, size_t f, double dt, double rest_density)
{
  double volume = grid->dx * grid->dx * grid->dx;
  double rho = MAX (grid->mass[a][f] / volume, PROJECTION_MIN_DENSITY_SHARE * rest_density);
  return dt / (rho * grid->dx * grid->dx);
}

/* A's diagonal and couplings over the fluid cells (the others' rows are zero). Fluid cells
 * lie in the inner cells only, so each has its six neighbours in the grid. */
static void
assemble (PressureProjection *proj, const MacGrid *grid, double dt, double rest_density)
{
  memset (proj->diag, 0, proj->n_cells * sizeof (double));
  for (int a = 0; a < 3; a++)
    memset (proj->plus[a], 0, proj->n_cells * sizeof (double));
  for (int k = 1; k < grid->n[2] - 1; k++)
    for (int j = 1; j < grid->n[1] - 1; j++)
      for (int i = 1; i < grid->n[0] - 1; i++)
        {
          size_t c = mac_grid_cell (grid, i, j, k);
          if (!grid->fluid[c])
            continue;
          int idx[3] = { i, j, k };
          for (int a = 0; a < 3; a++)
            {
              int lo[3] = { i, j, k };
              int hi[3] = { i, j, k };
              hi[a] = idx[a] + 1;
              double c_lo = face_coefficient (grid, a, mac_grid_face (grid, a, lo[0], lo[1], lo[2]),
                                               dt, rest_density);
              double c_hi = face_coefficient (grid, a, mac_grid_face (grid, a, hi[0], hi[1], hi[2]),
                                               dt, rest_density);
              proj->diag[c] += c_lo + c_hi;
              if (grid->fluid[c + axis_stride (grid, a)])
                proj->plus[a][c] = -c_hi;
            }
        }
}

/* MIC(0) (Bridson 2015 Fig. 5.5 in three dimensions): precon = 1 / sqrt(e) per fluid cell. */
static void
factor (PressureProjection *proj, const MacGrid *grid)
{
  size_t stride[3] = { axis_stride (grid, 0), axis_stride (grid, 1), axis_stride (grid, 2) };
  for (size_t c = 0; c < proj->n_cells; c++)
    {
      proj->precon[c] = 0;
      if (!grid->fluid[c])
        continue;
      double e = proj->diag[c];
      for (int a = 0; a < 3; a++)
        {
          size_t b = c - stride[a];   /* fluid cells are inner: b exists */
          double coupling = proj->plus[a][b] * proj->precon[b];
          double others = 0;
          for (int o = 0; o < 3; o++)
            if (o != a)
              others += proj->plus[o][b];
          e -= coupling * coupling
               + PROJECTION_MIC_TAU * proj->plus[a][b] * others * proj->precon[b] * proj->precon[b];
        }
      if (e < PROJECTION_MIC_SIGMA * proj->diag[c])
        e = proj->diag[c];
      proj->precon[c] = 1 / sqrt (e);
    }
}

/* z = (L L^T)^-1 r with L MIC(0)'s factor: a forward then a backward sweep. */
static void
precondition (PressureProjection *proj, const MacGrid *grid, const double *r, double *z)
{
  size_t stride[3] = { axis_stride (grid, 0), axis_stride (grid, 1), axis_stride (grid, 2) };
  double *t = proj->q;
  for (size_t c = 0; c < proj->n_cells; c++)
    {
      t[c] = 0;
      if (!grid->fluid[c])
        continue;
      double sum = r[c];
      for (int a = 0; a < 3; a++)
        {
          size_t b = c - stride[a];
          sum -= proj->plus[a][b] * proj->precon[b] * t[b];
        }
      t[c] = sum * proj->precon[c];
    }
  for (size_t c = proj->n_cells; c-- > 0;)
    {
      z[c] = 0;
      if (!grid->fluid[c])
        continue;
      double sum = t[c];
      for (int a = 0; a < 3; a++)
        sum -= proj->plus[a][c] * proj->precon[c] * z[c + stride[a]];
      z[c] = sum * proj->precon[c];
    }
}

/* y = A x over the fluid cells. */
static void
apply (const PressureProjection *proj, const MacGrid *grid, const double *x, double *y)
{
  size_t stride[3] = { axis_stride (grid, 0), axis_stride (grid, 1), axis_stride (grid, 2) };
  for (size_t c = 0; c < proj->n_cells; c++)
    {
      y[c] = 0;
      if (!grid->fluid[c])
        continue;
      double sum = proj->diag[c] * x[c];
      for (int a = 0; a < 3; a++)
        sum += proj->plus[a][c] * x[c + stride[a]]
               + proj->plus[a][c - stride[a]] * x[c - stride[a]];
      y[c] = sum;
    }
}

static double
dot (const double *a, const double *b, size_t n)
{
  double sum = 0;
  for (size_t c = 0; c < n; c++)
    sum += a[c] * b[c];
  return sum;
}

static double
max_abs (const double *a, size_t n)
{
  double most = 0;
  for (size_t c = 0; c < n; c++)
    most = MAX (most, fabs (a[c]));
  return most;
}

/* u_f -= dt / rho_f (p_b - p_a) / dx on every face with a fluid cell on either side. */
static void
update_velocities (const PressureProjection *proj, MacGrid *grid, double dt,
                   double rest_density)
{
  for (int a = 0; a < 3; a++)
    {
      size_t stride = axis_stride (grid, a);
      for (int k = 1; k < grid->n[2] - 1; k++)
        for (int j = 1; j < grid->n[1] - 1; j++)
          for (int i = 1; i < grid->n[0] - 1; i++)
            {
              size_t c = mac_grid_cell (grid, i, j, k);
              if (!grid->fluid[c])
                continue;
              /* The face above c along a; the one below belongs to the lower cell, or, when
               * that cell is air, is taken here. */
              int hi[3] = { i, j, k };
              hi[a]++;
              size_t f_hi = mac_grid_face (grid, a, hi[0], hi[1], hi[2]);
              double p = proj->pressure[c];
              grid->u[a][f_hi] -= face_coefficient (grid, a, f_hi, dt, rest_density) * grid->dx
                                  * (proj->pressure[c + stride] - p);
              if (!grid->fluid[c - stride])
                {
                  size_t f_lo = mac_grid_face (grid, a, i, j, k);
                  grid->u[a][f_lo] -= face_coefficient (grid, a, f_lo, dt, rest_density)
                                      * grid->dx * (p - 0);
                }
            }
    }
}

void
pressure_projection_solve (PressureProjection *proj, MacGrid *grid, double dt,
                           double rest_density, const double *target, double tolerance,
                           int max_iterations)
{
  size_t n = proj->n_cells;
  assemble (proj, grid, dt, rest_density);
  factor (proj, grid);
  /* r = t - div u*, p = 0. */
  double *p = proj->pressure, *r = proj->r, *z = proj->z, *s = proj->s;
  memset (p, 0, n * sizeof (double));
  for (int k = 0; k < grid->n[2]; k++)
    for (int j = 0; j < grid->n[1]; j++)
      for (int i = 0; i < grid->n[0]; i++)
        {
          size_t c = mac_grid_cell (grid, i, j, k);
          r[c] = grid->fluid[c] ? (target != NULL ? target[c] : 0)
                                    - mac_grid_divergence (grid, grid->u, i, j, k)
                                : 0;
        }
  proj->stats = (ProjectionStats) { .rhs = max_abs (r, n) };
  double bound = tolerance * proj->stats.rhs;
  proj->stats.residual = proj->stats.rhs;
  if (proj->stats.rhs > 0)
    {
      precondition (proj, grid, r, z);
      memcpy (s, z, n * sizeof (double));
      double sigma = dot (z, r, n);
      for (int it = 1; it <= max_iterations; it++)
        {
          apply (proj, grid, s, z);
          double alpha = sigma / dot (z, s, n);
          for (size_t c = 0; c < n; c++)
            {
              p[c] += alpha * s[c];
              r[c] -= alpha * z[c];
            }
          proj->stats.iterations = it;
          proj->stats.residual = max_abs (r, n);
          if (proj->stats.residual <= bound)
            break;
          precondition (proj, grid, r, z);
          double sigma_new = dot (z, r, n);
          double beta = sigma_new / sigma;
          for (size_t c = 0; c < n; c++)
            s[c] = z[c] + beta * s[c];
          sigma = sigma_new;
        }
    }
  update_velocities (proj, grid, dt, rest_density);
}

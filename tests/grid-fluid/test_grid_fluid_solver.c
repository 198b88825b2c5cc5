/* The grid fluid's grid and projection (plugins/bodies/grid-fluid), built from the plugin's
 * sources: a random velocity field splatted from random particles and projected. */
#include <math.h>
#include <string.h>

#include "flip_step.h"

/* A 12^3 grid of 0.1 m cells and particles at random in a ball of radius 0.35 m at its
 * centre, eight a cell on average, with random velocities in [-1, 1] m/s, splatted. */
static void
random_field (MacGrid *grid, size_t n, double mass, double *x, double *v, uint8_t *inside)
{
  const double lo[3] = { 0, 0, 0 }, hi[3] = { 1.2, 1.2, 1.2 }, centre = 0.6, radius = 0.35;
  mac_grid_init (grid, lo, hi, 0.1);
  for (size_t p = 0; p < n; p++)
    {
      double r2;
      do
        {
          r2 = 0;
          for (int c = 0; c < 3; c++)
            {
              x[3 * p + c] = g_test_rand_double_range (centre - radius, centre + radius);
              r2 += (x[3 * p + c] - centre) * (x[3 * p + c] - centre);
            }
        }
      while (r2 > radius * radius);
      for (int c = 0; c < 3; c++)
        v[3 * p + c] = g_test_rand_double_range (-1, 1);
      inside[p] = mac_grid_inside (grid, &x[3 * p]);
      g_assert_true (inside[p]);
    }
  mac_grid_splat (grid, x, v, mass, n, inside);
}

/* The largest |div u - target| over the fluid cells. */
static double
divergence_error (const MacGrid *grid, const double *target)
{
  double most = 0;
  for (int k = 0; k < grid->n[2]; k++)
    for (int j = 0; j < grid->n[1]; j++)
      for (int i = 0; i < grid->n[0]; i++)
        {
          size_t c = mac_grid_cell (grid, i, j, k);
          if (grid->fluid[c])
            most = MAX (most, fabs (mac_grid_divergence (grid, grid->u, i, j, k)
                                    - (target != NULL ? target[c] : 0)));
        }
  return most;
}

/* The face momenta sum_f m_f u_f, per component. */
static void
face_momentum (const MacGrid *grid, double out[3])
{
  for (int a = 0; a < 3; a++)
    {
      out[a] = 0;
      for (size_t f = 0; f < grid->n_faces[a]; f++)
        out[a] += grid->mass[a][f] * grid->u[a][f];
    }
}

/* The projection makes a random field discretely divergence-free: the conjugate gradients'
 * residual is the divergence itself (pressure_projection.h), so with a relative tolerance of
 * 1e-10 every fluid cell's |div u| ends below 1e-10 of the largest before (which, for
 * velocities of 1 m/s over 0.1 m cells, is of order 10 1/s); the bound is checked on the
 * field itself, not the solver's word. The face momenta do not change (to 1e-12 of the
 * particles' total |m v|: round-off), and a second projection finds nothing to do. The
 * same holds for a target divergence (the density correction's): div u = t. */
static void
test_divergence_free (void)
{
  enum { N = 8 * 1500 };
  MacGrid grid;
  PressureProjection projection;
  g_autofree double *x = g_new (double, 3 * N), *v = g_new (double, 3 * N);
  g_autofree uint8_t *inside = g_new (uint8_t, N);
  const double mass = 1000 * 0.05 * 0.05 * 0.05, dt = 0.01;
  random_field (&grid, N, mass, x, v, inside);
  pressure_projection_init (&projection, grid.n_cells);
  double before = divergence_error (&grid, NULL), p0[3], p1[3], scale = 0;
  for (size_t c = 0; c < 3 * N; c++)
    scale += mass * fabs (v[c]);
  face_momentum (&grid, p0);
  pressure_projection_solve (&projection, &grid, dt, 1000, NULL, 1e-10, 10000);
  double after = divergence_error (&grid, NULL);
  face_momentum (&grid, p1);
  g_test_message ("max |div|: %.3e 1/s before, %.3e after (%d CG iterations, solver's "
                  "residual %.3e); momentum change %.2e %.2e %.2e of %.3e", before, after,
                  projection.stats.iterations, projection.stats.residual, p1[0] - p0[0],
                  p1[1] - p0[1], p1[2] - p0[2], scale);
  g_assert_cmpfloat (before, >, 1);
  g_assert_cmpfloat (after, <=, 1e-10 * before);
  for (int a = 0; a < 3; a++)
    g_assert_cmpfloat (fabs (p1[a] - p0[a]), <, 1e-12 * scale);
  pressure_projection_solve (&projection, &grid, dt, 1000, NULL, 1e-10, 10000);
  g_assert_cmpfloat (projection.stats.rhs, <=, 1e-10 * before);

  g_autofree double *target = g_new0 (double, grid.n_cells);
  for (size_t c = 0; c < grid.n_cells; c++)
    target[c] = grid.fluid[c] ? g_test_rand_double_range (0, 5) : 0;
  pressure_projection_solve (&projection, &grid, dt, 1000, target, 1e-10, 10000);
  double off = divergence_error (&grid, target);
  g_test_message ("with a target in [0, 5] 1/s: max |div - t| %.3e after %d iterations", off,
                  projection.stats.iterations);
  g_assert_cmpfloat (off, <=, 1e-10 * 5);
  pressure_projection_clear (&projection);
  mac_grid_clear (&grid);
}

/* The transfers keep momentum: splatting the particles and reading the grid back (PIC) with
 * the same weights gives sum_p m_p u(x_p) = sum_p m_p v_p, to round-off (1e-12 of sum |m v|);
 * and a uniform field reads back as itself at every particle (the weights sum to one). */
static void
test_transfers (void)
{
  enum { N = 4000 };
  MacGrid grid;
  g_autofree double *x = g_new (double, 3 * N), *v = g_new (double, 3 * N);
  g_autofree uint8_t *inside = g_new (uint8_t, N);
  const double mass = 0.125;
  random_field (&grid, N, mass, x, v, inside);
  double before[3] = { 0, 0, 0 }, after[3] = { 0, 0, 0 }, scale = 0;
  for (size_t p = 0; p < N; p++)
    {
      double u[3];
      mac_grid_sample (&grid, grid.u, &x[3 * p], u);
      for (int c = 0; c < 3; c++)
        {
          before[c] += mass * v[3 * p + c];
          after[c] += mass * u[c];
          scale += mass * fabs (v[3 * p + c]);
        }
    }
  for (int c = 0; c < 3; c++)
    g_assert_cmpfloat (fabs (after[c] - before[c]), <, 1e-12 * scale);
  for (size_t p = 0; p < N; p++)
    {
      v[3 * p] = 0.3;
      v[3 * p + 1] = -0.2;
      v[3 * p + 2] = 1.5;
    }
  mac_grid_splat (&grid, x, v, mass, N, inside);
  for (size_t p = 0; p < N; p++)
    {
      double u[3];
      mac_grid_sample (&grid, grid.u, &x[3 * p], u);
      for (int c = 0; c < 3; c++)
        g_assert_cmpfloat (fabs (u[c] - v[3 * p + c]), <, 1e-14);
    }
  mac_grid_clear (&grid);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/grid-fluid/projection/divergence-free", test_divergence_free);
  g_test_add_func ("/grid-fluid/transfers/momentum", test_transfers);
  return g_test_run ();
}

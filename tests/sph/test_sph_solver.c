/* The SPH fluid's parts on their own (plugins/bodies/sph): the neighbour grid against a
 * brute-force search, the kernel against its integral and its finite differences, and the
 * PCISPH step against the conservation laws and its own density bound. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "neighbour_grid.h"
#include "pcisph.h"
#include "sph_block.h"
#include "sph_kernel.h"

static gint
compare_u32 (gconstpointer a, gconstpointer b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return x < y ? -1 : x > y;
}

/* Every pair closer than the radius is found, and no other, in the grid's dense mode and in
 * its hashed one (a few particles flung far away make the box too large for cells). */
static void
check_against_brute_force (size_t n, gboolean far_away)
{
  GRand *rand = g_rand_new_with_seed (7);
  double *x = g_new (double, 3 * n);
  for (size_t c = 0; c < 3 * n; c++)
    x[c] = g_rand_double_range (rand, 0, 0.2);
  if (far_away)
    for (size_t i = 0; i < n; i += n / 5)
      x[3 * i] += 1e3 * (double) (i + 1);
  x[0] = NAN;  /* a non-finite particle is nobody's neighbour */
  double radius = 0.03;
  NeighbourGrid grid;
  neighbour_grid_init (&grid);
  neighbour_grid_build (&grid, x, n, radius);
  g_assert_cmpint (grid.hashed, ==, far_away);
  size_t pairs = 0;
  for (size_t i = 0; i < n; i++)
    {
      g_autoptr (GArray) expected = g_array_new (FALSE, FALSE, sizeof (uint32_t));
      for (uint32_t j = 0; j < n; j++)
        {
          double d[3];
          cwb_v3_sub (d, &x[3 * i], &x[3 * j]);
          if (j != i && cwb_v3_dot (d, d) < radius * radius)
            g_array_append_val (expected, j);
        }
      g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (uint32_t));
      g_array_append_vals (found, &grid.neighbours[grid.start[i]],
                           neighbour_grid_count (&grid, i));
      g_array_sort (found, compare_u32);
      g_assert_cmpuint (found->len, ==, expected->len);
      g_assert_cmpmem (found->data, found->len * 4, expected->data, expected->len * 4);
      pairs += found->len;
    }
  g_assert_cmpuint (neighbour_grid_count (&grid, 0), ==, 0);
  g_assert_cmpuint (pairs, >, 10 * n);   /* the test has something to find */
  /* Rebuilding reuses the buffers and finds the same. */
  neighbour_grid_build (&grid, x, n, radius);
  g_assert_cmpuint (grid.start[n], ==, pairs);
  neighbour_grid_clear (&grid);
  g_free (x);
  g_rand_free (rand);
}

static void
test_neighbours_dense (void)
{
  check_against_brute_force (2000, FALSE);
}

static void
test_neighbours_hashed (void)
{
  check_against_brute_force (2000, TRUE);
}

/* The kernel integrates to 1: sum_k W(x_k) s^3 over a lattice of spacing s = H / 40, to the
 * midpoint rule's error O(s^2), far below 1e-3; its gradient is W's derivative (central
 * differences of step 1e-6 H: error O(1e-12 H^2 W''') against values of order 1 / H^4). */
static void
test_kernel (void)
{
  double support = 0.02, s = support / 40, sum = 0;
  for (int i = -40; i <= 40; i++)
    for (int j = -40; j <= 40; j++)
      for (int k = -40; k <= 40; k++)
        sum += sph_kernel_w (s * sqrt ((double) (i * i + j * j + k * k)), support) * s * s * s;
  g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-3);

  double points[][3] = { { 0.003, 0.001, -0.002 }, { 0.008, -0.006, 0.004 }, { 0.0, 0.0, 0.0149 } };
  for (size_t p = 0; p < G_N_ELEMENTS (points); p++)
    {
      double g[3];
      sph_kernel_gradient (points[p], cwb_v3_norm (points[p]), support, g);
      double scale = 8.0 / (G_PI * pow (support, 4));
      for (int c = 0; c < 3; c++)
        {
          double e = 1e-6 * support, a[3], b[3];
          cwb_v3_copy (a, points[p]);
          cwb_v3_copy (b, points[p]);
          a[c] += e;
          b[c] -= e;
          double fd = (sph_kernel_w (cwb_v3_norm (a), support)
                       - sph_kernel_w (cwb_v3_norm (b), support)) / (2 * e);
          g_assert_cmpfloat_with_epsilon (g[c] / scale, fd / scale, 1e-6);
        }
    }
}

static void
solver_for (SphSolver *solver, size_t n, double spacing)
{
  SphParams params = { .spacing = spacing, .mass = 1000 * spacing * spacing * spacing,
                       .viscosity = 1e-6, .tolerance = 1e-3, .max_compression = 0.01,
                       .max_iterations = 100 };
  sph_solver_init (solver, &params, n);
}

/* The lattice the particles start on is the fluid's rest: rho_0 is the density an interior
 * particle has there (to round-off), and a block at rest without gravity stays where it is
 * (its outer particles lack neighbours, so they are under rho_0 and under no pressure). */
static void
test_lattice_rest (void)
{
  int n = 8;
  double s = 0.01;
  size_t count = (size_t) n * n * n;
  g_autofree double *x = sph_block (n, s);
  g_autofree double *v = g_new0 (double, 3 * count);
  g_autofree double *x1 = g_new (double, 3 * count);
  g_autofree double *v1 = g_new (double, 3 * count);
  g_autofree double *density = g_new (double, count);
  SphSolver solver;
  solver_for (&solver, count, s);
  g_assert_cmpfloat_with_epsilon (solver.rest_density, 1000.0, 0.01 * 1000);
  sph_solver_densities (&solver, x, density);
  size_t centre = (size_t) (4 * n * n + 4 * n + 4);
  g_assert_cmpfloat_with_epsilon (density[centre], solver.rest_density, 1e-9);
  double zero[3] = { 0, 0, 0 };
  for (int step = 0; step < 10; step++)
    {
      sph_solver_step (&solver, x, v, NULL, zero, 0.002, x1, v1);
      memcpy (x, x1, sizeof (double) * 3 * count);
      memcpy (v, v1, sizeof (double) * 3 * count);
    }
  g_autofree double *x0 = sph_block (n, s);
  for (size_t c = 0; c < 3 * count; c++)
    g_assert_cmpfloat_with_epsilon (x[c], x0[c], 1e-12);
  sph_solver_clear (&solver);
}

/* Momentum: pressure and viscosity are pair forces along x_ij, equal and opposite, so a
 * fluid without gravity or external forces keeps its linear and angular momentum, however
 * violent its flow (symplectic Euler changes L by h sum x_i x F_i = 0 for central pairs):
 * to round-off, 1e-12 of the momenta's scale m n |v|. A compressed block with random
 * velocities, 40 steps. */
static void
test_momentum (void)
{
  int n = 8;
  double s = 0.01;
  size_t count = (size_t) n * n * n;
  g_autofree double *x = sph_block (n, 0.9 * s);
  g_autofree double *v = g_new (double, 3 * count);
  g_autofree double *x1 = g_new (double, 3 * count);
  g_autofree double *v1 = g_new (double, 3 * count);
  GRand *rand = g_rand_new_with_seed (3);
  for (size_t c = 0; c < 3 * count; c++)
    v[c] = g_rand_double_range (rand, -0.5, 0.5);
  g_rand_free (rand);
  SphSolver solver;
  solver_for (&solver, count, s);
  double m = solver.params.mass, p0[3] = { 0, 0, 0 }, l0[3] = { 0, 0, 0 }, zero[3] = { 0 };
  for (size_t i = 0; i < count; i++)
    {
      double l[3];
      cwb_v3_axpy (p0, m, &v[3 * i]);
      cwb_v3_cross (l, &x[3 * i], &v[3 * i]);
      cwb_v3_axpy (l0, m, l);
    }
  for (int step = 0; step < 40; step++)
    {
      sph_solver_step (&solver, x, v, NULL, zero, 0.002, x1, v1);
      memcpy (x, x1, sizeof (double) * 3 * count);
      memcpy (v, v1, sizeof (double) * 3 * count);
    }
  double p[3] = { 0, 0, 0 }, l[3] = { 0, 0, 0 };
  for (size_t i = 0; i < count; i++)
    {
      double li[3];
      cwb_v3_axpy (p, m, &v[3 * i]);
      cwb_v3_cross (li, &x[3 * i], &v[3 * i]);
      cwb_v3_axpy (l, m, li);
    }
  double scale = m * count * 0.5;
  for (int c = 0; c < 3; c++)
    {
      g_assert_cmpfloat_with_epsilon (p[c], p0[c], 1e-12 * scale);
      g_assert_cmpfloat_with_epsilon (l[c], l0[c], 1e-12 * scale * n * s);
    }
  sph_solver_clear (&solver);
}

/* The density bound: a block squeezed to 0.9 of its lattice (37 % over rho_0) is brought
 * back within the tolerance's mean compression in one step, in fewer iterations than the
 * limit, its particles pushed apart. */
static void
test_compressed_block (void)
{
  int n = 8;
  double s = 0.01;
  size_t count = (size_t) n * n * n;
  g_autofree double *x = sph_block (n, 0.9 * s);
  g_autofree double *v = g_new0 (double, 3 * count);
  g_autofree double *x1 = g_new (double, 3 * count);
  g_autofree double *v1 = g_new (double, 3 * count);
  SphSolver solver;
  solver_for (&solver, count, s);
  double zero[3] = { 0, 0, 0 };
  sph_solver_step (&solver, x, v, NULL, zero, 0.002, x1, v1);
  g_test_message ("%d iterations, mean compression %.2e, max %.2e", solver.stats.iterations,
                  solver.stats.mean_compression, solver.stats.max_compression);
  g_assert_cmpint (solver.stats.iterations, <, solver.params.max_iterations);
  g_assert_cmpfloat (solver.stats.mean_compression, <=, solver.params.tolerance);
  /* The corner particle is pushed out along the diagonal. */
  g_assert_cmpfloat (x1[0], <, 0);
  g_assert_cmpfloat (x1[1], <, 0);
  g_assert_cmpfloat (x1[2], <, 0);
  sph_solver_clear (&solver);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sph/neighbours/dense", test_neighbours_dense);
  g_test_add_func ("/sph/neighbours/hashed", test_neighbours_hashed);
  g_test_add_func ("/sph/kernel", test_kernel);
  g_test_add_func ("/sph/pcisph/lattice-rest", test_lattice_rest);
  g_test_add_func ("/sph/pcisph/momentum", test_momentum);
  g_test_add_func ("/sph/pcisph/compressed-block", test_compressed_block);
  return g_test_run ();
}

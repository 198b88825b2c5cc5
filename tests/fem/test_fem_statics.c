/* The FEM body against closed forms of statics: a bar hanging under its own weight and a
 * cantilever under its own weight, solved as the limit of the linearised backward Euler for a
 * very long step (one Newton step on the static equilibrium per step). */
#include <math.h>

#include "fem_fixture.h"

/* Steps of 1000 s from rest: M / h^2 is 1e-6 of K's scale, so each step is a Newton step on
 * K(q) u = f, and a few converge the corotational nonlinearity of the small deflections. */
#define STATIC_STEP 1000.0
#define STATIC_STEPS 6

static void
solve_static (FemFixture *f, const double g[3])
{
  for (int k = 0; k < STATIC_STEPS; k++)
    fem_fixture_step (f, STATIC_STEP, g, NULL);
}

/* Mean displacement of the nodes on the plane x = x0 along axis. */
static double
mean_displacement (const FemFixture *f, double x0, int axis)
{
  double sum = 0;
  int count = 0;
  for (size_t i = 0; i < f->info.n_nodes; i++)
    if (fabs (f->info.rest_nodes[3 * i] - x0) < 1e-9)
      {
        sum += f->q[3 * i + axis] - f->info.rest_nodes[3 * i + axis];
        count++;
      }
  g_assert_cmpint (count, >, 0);
  return sum / count;
}

/* A cantilever 1 m long, 0.1 m square, clamped at x = -0.5, under its own weight. Euler-
 * Bernoulli: tip deflection q L^4 / (8 E I) = 3 rho g L^4 / (2 E t^2) = 1.4715 mm, small
 * against L, so the linear theory applies. Linear tetrahedra are too stiff in bending (shear
 * locking) and converge from below as the grid is refined: the test checks that the tip
 * deflection grows with each refinement and at 80 cells along (8 through the thickness,
 * 30 720 tetrahedra) is within 5 % of the closed form, as the issue asks. Poisson's ratio
 * is 0, the beam theory's own assumption: with nu > 0 the clamped face also restrains the
 * lateral contraction, a stiffening the 1D theory has no term for. Timoshenko's shear
 * correction adds 0.8 % to the closed form here (E h^2 / (3 kappa G L^2)), inside the 5 %.
 * dt = 0 at creation: no rest compliance is precomputed (statics does not need it). */
static void
test_cantilever (void)
{
  const double rho = 1000, g = 9.81, E = 1e9, L = 1, t = 0.1;
  const double euler_bernoulli = 3 * rho * g * pow (L, 4) / (2 * E * t * t);
  double previous = 0, tip = 0;
  for (int res = 20; res <= 80; res *= 2)
    {
      g_autofree char *yaml = g_strdup_printf (
        "{ name: beam, model: fem, shape: { type: box, size: [1, 0.1, 0.1] }, "
        "material: { density: 1000 }, model_params: { young_modulus: 1e9, poisson_ratio: 0, "
        "resolution: %d, fixed_box: true, fixed_box_min: [-0.5, -1, -1], "
        "fixed_box_max: [-0.5, 1, 1] } }", res);
      g_autoptr (FemFixture) f = fem_fixture_new (yaml, 0, NULL);
      const double gravity[3] = { 0, 0, -g };
      solve_static (f, gravity);
      tip = -mean_displacement (f, 0.5, 2);
      g_test_message ("resolution %d: %zu tetrahedra, tip deflection %.6g m, %.4f of "
                      "Euler-Bernoulli's %.6g m", res, f->info.n_tetrahedra, tip,
                      tip / euler_bernoulli, euler_bernoulli);
      g_assert_cmpfloat (tip, >, previous);
      previous = tip;
    }
  g_assert_cmpfloat (fabs (tip / euler_bernoulli - 1), <, 0.05);
}

/* A bar 1 m long hanging from its top face under its own weight, along x: the elongation is
 * rho g L^2 / (2 E). With nu = 0.3 the clamped face restrains the contraction near it, which
 * the 1D closed form ignores; that and the lumped load cost about 1.5 % at 20 cells along
 * and 1 % at 40; the bound is 2 %. */
static void
test_bar (void)
{
  const double rho = 1000, g = 9.81, E = 1e7, L = 1;
  const double expected = rho * g * L * L / (2 * E);
  for (int res = 20; res <= 40; res *= 2)
    {
      g_autofree char *yaml = g_strdup_printf (
        "{ name: bar, model: fem, shape: { type: box, size: [1, 0.1, 0.1] }, "
        "material: { density: 1000 }, model_params: { young_modulus: 1e7, poisson_ratio: 0.3, "
        "resolution: %d, fixed_box: true, fixed_box_min: [0.5, -1, -1], "
        "fixed_box_max: [0.5, 1, 1] } }", res);
      g_autoptr (FemFixture) f = fem_fixture_new (yaml, 0, NULL);
      const double gravity[3] = { -g, 0, 0 };
      solve_static (f, gravity);
      double elongation = -mean_displacement (f, -0.5, 0);
      g_test_message ("resolution %d: elongation %.6g m, closed form %.6g m, ratio %.4f", res,
                      elongation, expected, elongation / expected);
      g_assert_cmpfloat (fabs (elongation / expected - 1), <, 0.02);
    }
}

/* The same bar solved by conjugate gradients gives Cholesky's answer to the CG tolerance
 * (relative residual 1e-12 on a system of condition ~1e4 at this step: 1e-8 relative). */
static void
test_cg_matches_cholesky (void)
{
#define BAR_YAML(solver)                                                                     \
  "{ name: bar, model: fem, shape: { type: box, size: [1, 0.1, 0.1] }, "                     \
  "material: { density: 1000 }, model_params: { young_modulus: 1e7, resolution: 20, "        \
  "linear_solver: " solver ", cg_tolerance: 1e-12, cg_iterations: 100000, fixed_box: true, " \
  "fixed_box_min: [0.5, -1, -1], fixed_box_max: [0.5, 1, 1] } }"
  const char *a_yaml = BAR_YAML ("cholesky"), *b_yaml = BAR_YAML ("cg");
  g_autoptr (FemFixture) a = fem_fixture_new (a_yaml, 0, NULL);
  g_autoptr (FemFixture) b = fem_fixture_new (b_yaml, 0, NULL);
  const double gravity[3] = { -9.81, 0, 3 };
  for (int k = 0; k < 5; k++)
    {
      fem_fixture_step (a, 0.01, gravity, NULL);
      fem_fixture_step (b, 0.01, gravity, NULL);
    }
  double scale = 0, diff = 0;
  for (size_t k = 0; k < a->n; k++)
    {
      scale = fmax (scale, fabs (a->q[k] - a->info.rest_nodes[k]));
      diff = fmax (diff, fabs (a->q[k] - b->q[k]));
    }
  g_assert_cmpfloat (scale, >, 0);
  g_assert_cmpfloat (diff, <, 1e-8 * scale);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fem/statics/cantilever", test_cantilever);
  g_test_add_func ("/fem/statics/bar", test_bar);
  g_test_add_func ("/fem/statics/cg-matches-cholesky", test_cg_matches_cholesky);
  return g_test_run ();
}

/* The eulerian penalty's friction spring (plugins/contact-eulerian/pair_friction.c) on one
 * material point: what it keeps when its stiffness changes, and the velocity derivative it
 * hands an implicit step. */
#include "pair_friction.h"

#include <math.h>

#define H 0.01   /* the step, s */

static const double up[3] = { 0, 0, 1 };

/* One detection of the pair 1 between the point of `geometry` (body a, its only anchor)
 * and a fixed body: the force on a and the twist's torque, out. */
static void
detect (PairFriction *friction, CwbGeometry *geometry, double stiffness, double mu,
        const double velocity[3], double spin, double force[3], double *derivative,
        PairTwist *twist)
{
  *twist = (PairTwist) { .spin = spin, .stiffness = stiffness * 0.01, .radius = 0.1 };
  pair_friction_begin (friction);
  pair_friction_force (friction, 1, geometry, 1, up, 1.0, mu, velocity, stiffness, 0, H,
                       force, derivative, twist);
  CwbPointWeight share = { .geometry = 0, .point = 0, .w = { 1, 0, 0 } };
  const double lever[3] = { 0, 0.1, 0 };   /* its twist coefficient: a turn moves it along y */
  pair_friction_anchor (friction, geometry, &share, lever, 1, 1);
  pair_friction_end (friction);
}

/* Sticking, the spring holds u and theta; where the stiffness doubles it keeps its force,
 * where it halves its stretch, so 1/2 k u^2 never grows by a change of k (as a friction
 * cell's points enter and leave it). The point does not move after the first detection:
 * nothing but k changes. */
static void
test_passive_stretch (void)
{
  g_autoptr (PairFriction) friction = pair_friction_new ();
  double position[3] = { 0, 0, 0 };
  CwbGeometry geometry = { .struct_size = sizeof geometry, .n_points = 1,
                           .positions = position };
  const double k = 1000, slide[3] = { 0.2, 0, 0 }, rest[3] = { 0, 0, 0 };
  double force[3], derivative;
  PairTwist twist;
  /* A new pair: u = h v, theta = h spin, far inside a cone of mu 1e6. */
  detect (friction, &geometry, k, 1e6, slide, 3.0, force, &derivative, &twist);
  double u = H * slide[0], theta = H * 3.0;
  g_assert_cmpfloat_with_epsilon (force[0], -k * u, 1e-12);
  g_assert_cmpfloat_with_epsilon (twist.torque, -0.01 * k * theta, 1e-12);
  g_assert_cmpfloat_with_epsilon (derivative, H * k, 1e-12);
  g_assert_cmpfloat_with_epsilon (twist.derivative, H * 0.01 * k, 1e-12);
  /* Twice as stiff: the same force, half the stretch, half the energy. */
  detect (friction, &geometry, 2 * k, 1e6, rest, 0, force, &derivative, &twist);
  g_assert_cmpfloat_with_epsilon (force[0], -k * u, 1e-12);
  g_assert_cmpfloat_with_epsilon (twist.torque, -0.01 * k * theta, 1e-12);
  /* Half as stiff again: the same stretch, a quarter of the force. */
  detect (friction, &geometry, k, 1e6, rest, 0, force, &derivative, &twist);
  g_assert_cmpfloat_with_epsilon (force[0], -k * u / 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (twist.torque, -0.01 * k * theta / 2, 1e-12);
  /* And the point moved 1 mm along x since: the spring grows by it. */
  position[0] = 1e-3;
  detect (friction, &geometry, k, 1e6, rest, 0, force, &derivative, &twist);
  g_assert_cmpfloat_with_epsilon (force[0], -k * (u / 2 + 1e-3), 1e-12);
}

/* Slipping, the force is Coulomb's bound, and the implicit step gets the secant
 * mu F_n / |v_t| as its derivative: the step of a point mass m, m (v1 - v0) =
 * h (F (v0) - D (v1 - v0)), then ends at v0 / (1 + h mu F_n / (m v0)), never past rest
 * whatever m, where a force taken as constant (D = 0) turns the slip back for m under
 * h mu F_n / v0. A slip too slow for the secant to stay under the spring's h k + c gets
 * that (a contact about to stick). Round-off bounds: sums of a few terms of order one. */
static void
test_slip_dashpot (void)
{
  g_autoptr (PairFriction) friction = pair_friction_new ();
  double position[3] = { 0, 0, 0 };
  CwbGeometry geometry = { .struct_size = sizeof geometry, .n_points = 1,
                           .positions = position };
  const double k = 1000, mu = 0.3, slide[3] = { 1.0, 0, 0 };
  double force[3], derivative;
  PairTwist twist;
  detect (friction, &geometry, k, mu, slide, 0, force, &derivative, &twist);
  g_assert_cmpfloat_with_epsilon (cwb_v3_norm (force), mu, 1e-12);
  g_assert_cmpfloat (force[0], <, 0);
  g_assert_cmpfloat_with_epsilon (derivative, mu / slide[0], 1e-12);
  for (double m = 1e-4; m <= 1e2; m *= 10)
    {
      double v1 = (m * slide[0] + H * (force[0] + derivative * slide[0])) / (m + H * derivative);
      g_assert_cmpfloat (v1, >, 0);
      g_assert_cmpfloat_with_epsilon (v1, slide[0] / (1 + H * mu / (m * slide[0])), 1e-12);
    }
  /* A spring stretched 2 mm while it stuck, then slipping at 1e-5 m/s under a bound of
   * 0.1 N: the secant 1e4 N s/m would pass h k = 10 N s/m. */
  g_autoptr (PairFriction) slow = pair_friction_new ();
  const double stuck[3] = { 0.2, 0, 0 }, creep[3] = { 1e-5, 0, 0 };
  detect (slow, &geometry, k, 1e6, stuck, 0, force, &derivative, &twist);
  detect (slow, &geometry, k, 0.1, creep, 0, force, &derivative, &twist);
  g_assert_cmpfloat_with_epsilon (cwb_v3_norm (force), 0.1, 1e-12);
  g_assert_cmpfloat_with_epsilon (derivative, H * k, 1e-12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eulerian/friction/passive-stretch", test_passive_stretch);
  g_test_add_func ("/eulerian/friction/slip-dashpot", test_slip_dashpot);
  return g_test_run ();
}

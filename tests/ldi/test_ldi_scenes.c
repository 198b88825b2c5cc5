/* The LDI scenes of scenes/ through the whole pipeline:
 *
 *   - ldi-torus-stack: four rigid tori (tube radius r = 0.025 m) stacked on the ground, every
 *     contact a multi-volume intersection, come to rest, each at the height its tubes give,
 *     r + 2 r k for the k-th from the bottom;
 *   - ldi-deep-overlap: a box a quarter deep in the ground and a ball half a radius in the
 *     box are separated by the first step without gaining velocity (Allard 2010 sec. 6),
 *     where holding positions in the velocity pass throws them out. */
#include <math.h>

#include "world_fixture.h"

#define TUBE 0.025
/* Kinetic energy of a resting stack after 2 s: the tori fell 2 mm (4e-3 J in all), and a
 * settled stack keeps only the solver's residual motion; 1e-5 J is 0.25 % of what the fall
 * brought in. */
#define REST_ENERGY 1e-5
/* Each contact may keep up to the stabilization target of intersection (half a pixel of
 * 3 mm, 1.5 mm) and the 32-sided tubes stand 0.12 mm inside the true tube on each side
 * (r (1 - cos(pi/32))): a torus may sit up to 1.74 mm lower per contact below it. */
#define SINK_PER_CONTACT 1.74e-3
/* After the deep overlap's first step: the bodies had no velocity, gravity adds g h = 0.049
 * m/s, the velocity rows remove it, and what one volume per pair leaves free is rocking:
 * 1e-4 J is 1e-6 of the 290 J position rows give (and a body of 2 kg at 1e-2 m/s). */
#define OVERLAP_ENERGY 1e-4

static double
total_kinetic_energy (CwbWorld *world)
{
  double total = 0;
  for (size_t b = 0; b < cwb_world_n_bodies (world); b++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, b, &s);
      total += s.kinetic_energy;
    }
  return total;
}

static void
test_torus_stack (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world_from_file (registry, "scenes/ldi-torus-stack.yaml",
                                                        NULL);
  fixture_step (world, 400);
  double energy = total_kinetic_energy (world);
  g_test_message ("kinetic energy after 2 s: %.3g J", energy);
  g_assert_cmpfloat (energy, <, REST_ENERGY);
  for (size_t k = 0; k < 4; k++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, k + 1, &s);
      double expected = TUBE + 2 * TUBE * (double) k;
      g_test_message ("torus %zu: height %.5f m, tubes on tubes %.5f m", k, s.centroid[2],
                      expected);
      /* Not higher than on exact tubes, but for a tilt: a torus resting 1 degree off flat
       * on the one below lifts its centroid by about 0.1 mm (the bottom one measured
       * 0.06 mm high). */
      g_assert_cmpfloat (s.centroid[2], <=, expected + 1e-4);
      g_assert_cmpfloat (s.centroid[2], >=, expected - SINK_PER_CONTACT * (double) (k + 1));
    }
}

static void
test_deep_overlap (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world_from_file (registry, "scenes/ldi-deep-overlap.yaml",
                                                        NULL);
  fixture_step (world, 1);
  double energy = total_kinetic_energy (world);
  const char *sets[] = { "solver.normal_constraint=position", NULL };
  g_autoptr (CwbWorld) thrown = fixture_world_from_file (registry,
                                                         "scenes/ldi-deep-overlap.yaml", sets);
  fixture_step (thrown, 1);
  double thrown_energy = total_kinetic_energy (thrown);
  g_test_message ("kinetic energy after the first step: %.3g J (position rows: %.3g J)",
                  energy, thrown_energy);
  g_assert_cmpfloat (energy, <, OVERLAP_ENERGY);
  g_assert_cmpfloat (thrown_energy, >, 1);
  /* Out of the ground and of each other: the box's bottom above the ground's top less the
   * target layer (half a pixel of 4 mm), the ball above the box likewise (centres, as the
   * box barely turns). */
  CwbBodySummary box, ball;
  cwb_world_body_summary (world, 1, &box);
  cwb_world_body_summary (world, 2, &ball);
  g_test_message ("box centre at %.4f m, ball centre at %.4f m", box.centroid[2],
                  ball.centroid[2]);
  g_assert_cmpfloat (box.centroid[2], >, 0.1 - 0.002 - 0.005);
  g_assert_cmpfloat (ball.centroid[2], >, box.centroid[2] + 0.1 + 0.08 - 0.002 - 0.01);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/scenes/torus-stack", test_torus_stack);
  g_test_add_func ("/ldi/scenes/deep-overlap", test_deep_overlap);
  return g_test_run ();
}

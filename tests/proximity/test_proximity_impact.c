/* An inelastic impact ends at contact (issue 18, item 4): a rigid ball of radius 0.1 m dropped
 * from 0.2 m above a fixed ground (dt 5 ms, the constraint solver's defaults: rate rows, one
 * post-stabilization pass) stops in the impact step with its lowest point on the ground and
 * stays there, with no flight phase after it. Before, the rate row stopped it at its
 * start-of-step height, 8.7 mm above the ground, from which it fell again for 8 steps (0.31 J
 * of kinetic energy regained). References: contact, z = r; rest, no kinetic energy regained. */
#include <math.h>

#include "world_fixture.h"

#define RADIUS 0.1
#define STEPS 100
/* Where the ball rests: on the ground to the solve's tolerance (the automatic 1e-4 g h^2 =
 * 2.5e-8 m of the laws) and the round-off of its 24-segment surface's lowest vertex: 1e-7 m. */
#define CONTACT_TOLERANCE 1e-7
/* After the impact step the kinetic energy stays at round-off (1e-20 J of a 4.2 kg ball is a
 * speed of 7e-11 m/s); the flight phase this rules out regained 4.9e-3 J in its first step. */
#define REST_ENERGY 1e-20

static const char *scene =
  "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
  "contact: { model: proximity }\n"
  "solver: { name: constraint }\n"
  "bodies:\n"
  "  - name: ground\n"
  "    shape: { type: ground, size: [2, 2, 0.5] }\n"
  "    fixed: true\n"
  "  - name: ball\n"
  "    shape: { type: sphere, radius: 0.1, resolution: 24 }\n"
  "    pose: { position: [0, 0, 0.3] }\n"
  "    material: { density: 1000, friction: 0.5 }\n";

static void
test_drop_ends_at_contact (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, scene);
  int impact = -1;
  double last = 0;
  for (int step = 1; step <= STEPS; step++)
    {
      fixture_step (world, 1);
      CwbBodySummary s;
      cwb_world_body_summary (world, 1, &s);
      if (impact < 0 && s.kinetic_energy < 0.5 * last)
        {
          impact = step;
          g_test_message ("impact in step %d: %.3g J before, %.3g J after, z = %.9f m", step,
                          last, s.kinetic_energy, s.centroid[2]);
          g_assert_cmpfloat (fabs (s.centroid[2] - RADIUS), <, CONTACT_TOLERANCE);
        }
      else if (impact > 0)
        {
          g_assert_cmpfloat (s.kinetic_energy, <, REST_ENERGY);
          g_assert_cmpfloat (fabs (s.centroid[2] - RADIUS), <, CONTACT_TOLERANCE);
        }
      last = s.kinetic_energy;
    }
  g_assert_cmpint (impact, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proximity/impact/ends-at-contact", test_drop_ends_at_contact);
  return g_test_run ();
}

/* The SPH fluid in a world (plugins/bodies/sph with the particles mapping): its particles as
 * the contact models see them, and its momentum exchange with a solid through the Eulerian
 * layer, no code of either side naming the other's kind. */
#include <math.h>

#include "world_fixture.h"

/* A block of water 0.1 m a side, particles of 1 cm, and a rigid box of density 2000 sent
 * into it at 1 m/s, gravity off. */
static const char *const water_and_box_yaml =
  "world: { dt: 0.002, gravity: [0, 0, 0] }\n"
  "contact: { model: eulerian }\n"
  "solver: { name: constraint }\n"
  "bodies:\n"
  "  - name: water\n"
  "    model: sph\n"
  "    mapping: particles\n"
  "    shape: { type: box, size: [0.1, 0.1, 0.1] }\n"
  "    material: { density: 1000, friction: 0 }\n"
  "    model_params: { particle_spacing: 0.01 }\n"
  "  - name: box\n"
  "    shape: { type: box, size: [0.06, 0.06, 0.06] }\n"
  "    pose: { position: [0.09, 0.01, 0] }\n"
  "    velocity: { linear: [-1, 0, 0] }\n"
  "    material: { density: 2000, friction: 0 }\n";

/* The fluid fills its box with 10^3 particles of 1 g (1000 kg/m^3 x (1 cm)^3): the body
 * weighs its volume of water exactly, since the box's sides are whole multiples of the
 * spacing. */
static void
test_fill (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, water_and_box_yaml);
  CwbBodySummary water;
  cwb_world_body_summary (world, 0, &water);
  g_assert_cmpfloat_with_epsilon (water.mass, 1.0, 1e-12);
  for (int c = 0; c < 3; c++)
    g_assert_cmpfloat_with_epsilon (water.centroid[c], 0.0, 1e-12);
}

/* Momentum (issue 21): fluid plus solid keep their total linear momentum through the
 * collision, gravity off: the contact's impulses are equal and opposite, the fluid's
 * pressure and viscosity are pair forces, and post-stabilization moves positions only. The
 * bound, 1e-9 of the initial momentum, is the constraint solve's round-off over 100 steps.
 * The box hands at least a tenth of it to the water, so the exchange is real. */
static void
test_momentum_through_collision (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, water_and_box_yaml);
  double p0[3] = { 0, 0, 0 };
  for (size_t b = 0; b < 2; b++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, b, &s);
      for (int c = 0; c < 3; c++)
        p0[c] += s.linear_momentum[c];
    }
  g_assert_cmpfloat_with_epsilon (p0[0], -0.432, 1e-12);   /* 0.216 kg x -1 m/s x 2 */
  fixture_step (world, 100);
  CwbBodySummary water, box;
  cwb_world_body_summary (world, 0, &water);
  cwb_world_body_summary (world, 1, &box);
  g_test_message ("water momentum %.4f, box %.4f kg m/s", water.linear_momentum[0],
                  box.linear_momentum[0]);
  for (int c = 0; c < 3; c++)
    g_assert_cmpfloat_with_epsilon (water.linear_momentum[c] + box.linear_momentum[c], p0[c],
                                    1e-9 * fabs (p0[0]));
  g_assert_cmpfloat (water.linear_momentum[0], <, 0.1 * p0[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sph/world/fill", test_fill);
  g_test_add_func ("/sph/world/momentum-collision", test_momentum_through_collision);
  return g_test_run ();
}

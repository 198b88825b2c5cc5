/* Lazarevych et al. fig. 6: non-convex objects (ten tori) fall into a basket and settle
 * (tests/data/penalty-basket-10.yaml, written by bench/make_basket.py 10). The paper's
 * measure: the kinetic energy of the settled stack, about 100 times lower with the
 * time-coherent static friction than with the original method. The issue asks for at least
 * 10 times. */
#include <math.h>

#include "world_fixture.h"

#define DT 0.004
#define SETTLE_STEPS 800     /* 3.2 s: the drop and the bounces are over by then */
#define MEASURE_STEPS 200    /* the mean kinetic energy over the next 0.8 s */
#define REQUIRED_RATIO 10.0

static double
settled_kinetic_energy (gboolean static_friction)
{
  const char *sets[] = { static_friction ? "contact.static_friction=true"
                                         : "contact.static_friction=false", NULL };
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world_from_file (
    registry, "tests/data/penalty-basket-10.yaml", sets);
  g_assert_cmpfloat (cwb_world_dt (world), ==, DT);
  fixture_step (world, SETTLE_STEPS);
  double sum = 0;
  for (int k = 0; k < MEASURE_STEPS; k++)
    {
      fixture_step (world, 1);
      sum += cwb_world_last_stats (world)->kinetic_energy;
    }
  /* Every torus stayed in the basket (its floor's top is z = 0, its walls 0.3 m high). */
  for (size_t b = 0; b < cwb_world_n_bodies (world); b++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, b, &s);
      if (!cwb_world_body_slot (world, b)->fixed)
        g_assert_cmpfloat (s.centroid[2], >, 0);
    }
  return sum / MEASURE_STEPS;
}

static void
test_settles (void)
{
  double with = settled_kinetic_energy (TRUE);
  double without = settled_kinetic_energy (FALSE);
  g_test_message ("settled kinetic energy: %.3g J with static friction, %.3g J without "
                  "(ratio %.3g)", with, without, without / with);
  g_assert_cmpfloat (without, >, REQUIRED_RATIO * with);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/basket/settles", test_settles);
  return g_test_run ();
}

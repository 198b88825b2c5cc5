/* Lazarevych et al. fig. 5, a pyramid of boxes on an incline below the critical angle
 * (scenes/penalty-box-pyramid-incline.yaml, mu = 0.3, tan alpha = 0.2): with the
 * time-coherent static friction every box comes to rest and stays; with always-dynamic
 * friction (static_friction: false, Spillmann 2007) the upper boxes creep downhill and the
 * pyramid breaks. */
#include <math.h>

#include "world_fixture.h"

/* The sticking criterion. */
#define STICK_VELOCITY 1e-6
/* Without stabilisation the top box creeps (6 mm in 4 s measured; 5e-9 m with it): 3 mm
 * separates the two by six orders of magnitude either way. */
#define CREEP_DISPLACEMENT 0.003
/* The top box's height above the plane loses the penetrations of three layers of penalty
 * contacts, each sinking until it carries its load (5.3 mm in total, measured); 1 cm allows
 * for that and still catches a box sunk through another (10 cm, the failure this guards). */
#define STACK_HEIGHT_TOLERANCE 0.01

/* Runs 6.5 s; returns the largest speed of any box over the last 4 s, the top box's
 * displacement over them, and its height above the plane at the end (its centre along the
 * plane's normal). */
static double
run (gboolean static_friction, double *top_moved, double *top_height)
{
  const char *sets[] = { static_friction ? "contact.static_friction=true"
                                         : "contact.static_friction=false", NULL };
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world_from_file (
    registry, "scenes/penalty-box-pyramid-incline.yaml", sets);
  size_t top = cwb_world_n_bodies (world) - 1;
  g_assert_cmpstr (cwb_world_body_name (world, top), ==, "box-2-0");
  fixture_step (world, 500);   /* 2.5 s: the stack settles */
  CwbBodySummary start, s;
  cwb_world_body_summary (world, top, &start);
  double largest = 0;
  for (int k = 0; k < 800; k++)
    {
      fixture_step (world, 1);
      for (size_t b = 1; b < cwb_world_n_bodies (world); b++)
        {
          cwb_world_body_summary (world, b, &s);
          largest = MAX (largest, cwb_v3_norm (s.linear_velocity));
        }
    }
  cwb_world_body_summary (world, top, &s);
  double d[3];
  cwb_v3_sub (d, s.centroid, start.centroid);
  *top_moved = cwb_v3_norm (d);
  const double normal[3] = { sin (atan (0.2)), 0, cos (atan (0.2)) };
  *top_height = cwb_v3_dot (s.centroid, normal);
  return largest;
}

static void
test_stands (void)
{
  double moved, height, speed = run (TRUE, &moved, &height);
  g_test_message ("static friction: largest speed %.3g m/s, top moved %.3g m, top at %.4f m "
                  "above the plane", speed, moved, height);
  g_assert_cmpfloat (speed, <, STICK_VELOCITY);
  /* The stack stands: the top box's centre 2.5 box heights (0.25 m) above the plane, less
   * the penetrations of three contact layers. */
  g_assert_cmpfloat (fabs (height - 0.25), <, STACK_HEIGHT_TOLERANCE);
}

static void
test_creeps_without (void)
{
  double moved, height, speed = run (FALSE, &moved, &height);
  g_test_message ("always-dynamic friction: largest speed %.3g m/s, top moved %.3g m", speed,
                  moved);
  g_assert_cmpfloat (moved, >, CREEP_DISPLACEMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/box-pyramid/stands", test_stands);
  g_test_add_func ("/penalty/box-pyramid/creeps-without-stabilisation", test_creeps_without);
  return g_test_run ();
}

/* What the proximity model's margin does in the constraint solver's step, where detection
 * runs at the free-motion configuration: it puts into the MLCP the contacts that are still
 * open after the free motion but that the corrective motion would close.
 *
 * The case: a cube (side a) tilted by theta about y lands on a fixed ground, falling so that
 * the free motion takes its low bottom edge 2 mm into the ground while the high edge, a sin
 * theta higher, stays 0.05 mm above. Pushing a cube up at one bottom edge turns it: with
 * I = m a^2 / 6, an upward impulse P at x = +a/2 raises that edge by
 * P / m + (a / 2)^2 P / I = 5 P / (2 m) and moves the opposite one by
 * P / m - (a / 2)^2 P / I = -P / (2 m): down by a fifth of what the pushed edge rises
 * (small theta). Without the high edge's contacts the low edge rises 2 mm and the high edge
 * sinks 0.4 mm, to about 0.35 mm inside the ground; with a margin over 0.05 mm they are rows
 * of the same MLCP (gap +0.05 mm, admissible) and both edges end on the ground. */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define BOX 0.2
#define DT 0.005
#define SIN_TILT 0.01025     /* the high edge BOX sin theta = 2.05 mm above the low one */
#define START_GAP 0.0005     /* the low edge's height above the ground at the start, m */
#define FREE_DROP 0.0025     /* the free motion's drop over the first step, m */
/* The solver's tolerance and the penetration it leaves at rest: as in test_proximity_rest.c,
 * at most 12 rows x |W_ij| / W_jj <= 3 x 1e-12 m = 3.6e-11 m, rounded up to 1e-10 m. */
#define TOLERANCE 1e-12
#define PENETRATION_BOUND 1e-10
/* In the landing step the rows are linear in the displacement (Saupin 2008 eq. 16) while the
 * body turns exactly: the turn of about (2 mm + 0.4 mm) / 0.2 m = 0.012 rad moves a corner
 * r = 0.14 m from the centre off its linearised path by r dtheta^2 / 2 = 1e-5 m. A caught
 * landing ends within twice that of the ground. */
#define LINEARISATION_BOUND 2e-5
/* Without the margin the high edge ends about 0.05 - 2 / 5 = -0.35 mm; it must be clearly
 * inside the ground, beyond any linearisation error, for the case to show anything: below
 * -0.1 mm. */
#define UNCAUGHT_DEPTH 1e-4

static char *
landing_scene (double margin)
{
  double theta = asin (SIN_TILT);
  /* Low edge (x = +a/2 turned by theta about y) at z_c - (a / 2)(sin theta + cos theta). */
  double zc = START_GAP + 0.5 * BOX * (sin (theta) + cos (theta));
  /* Semi-implicit free motion over one step drops it by v h + g h^2. */
  double v = (FREE_DROP - G * DT * DT) / DT;
  char b[5][G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf (
    "world: { dt: %g, gravity: [0, 0, %g] }\n"
    "contact: { model: proximity, margin: %s }\n"
    "solver: { name: constraint, normal_constraint: position,\n"
    "          stabilization_iterations: 0, iterations: 1000, tolerance: %g }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [2, 2, 0.5] }\n"
    "    fixed: true\n"
    "  - name: box\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [0, 0, %s], orientation: [%s, 0, %s, 0] }\n"
    "    velocity: { linear: [0, 0, %s] }\n"
    "    material: { density: 500, friction: 0 }\n",
    DT, -G, g_ascii_dtostr (b[0], sizeof b[0], margin), TOLERANCE, BOX, BOX, BOX,
    g_ascii_dtostr (b[1], sizeof b[1], zc), g_ascii_dtostr (b[2], sizeof b[2], cos (theta / 2)),
    g_ascii_dtostr (b[3], sizeof b[3], sin (theta / 2)), g_ascii_dtostr (b[4], sizeof b[4], -v));
}

static void
test_without_margin (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = landing_scene (0);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 1);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, ==, 2);   /* the low edge */
  double lowest = fixture_box_lowest_corner (world, 1, BOX);
  g_test_message ("without a margin: lowest corner at %.4g m after the landing step", lowest);
  g_assert_cmpfloat (lowest, <, -UNCAUGHT_DEPTH);
}

static void
test_with_margin (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = landing_scene (0.001);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 1);
  const CwbContactSet *set = cwb_world_contacts (world);
  g_assert_cmpuint (set->frames->len, ==, 4);   /* both edges */
  guint open = 0;
  for (guint f = 0; f < set->frames->len; f++)
    open += g_array_index (set->frames, CwbContactFrame, f).gap > 0;
  g_assert_cmpuint (open, ==, 2);               /* the high edge, still above at q_free */
  double lowest = fixture_box_lowest_corner (world, 1, BOX);
  g_test_message ("with a 1 mm margin: lowest corner at %.4g m after the landing step",
                  lowest);
  g_assert_cmpfloat (lowest, >, -LINEARISATION_BOUND);
  /* And it comes to rest flat on the ground, never sinking in. */
  for (int k = 0; k < 200; k++)
    {
      fixture_step (world, 1);
      g_assert_cmpfloat (fixture_box_lowest_corner (world, 1, BOX), >, -PENETRATION_BOUND);
    }
  CwbBodySummary s;
  cwb_world_body_summary (world, 1, &s);
  g_assert_cmpfloat (fabs (s.centroid[2] - BOX / 2), <, PENETRATION_BOUND);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proximity/margin/landing-without", test_without_margin);
  g_test_add_func ("/proximity/margin/landing-with", test_with_margin);
  return g_test_run ();
}

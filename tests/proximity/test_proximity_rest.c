/* A rigid box resting on a fixed rigid box through the whole pipeline: scene, rigid body and
 * mapping, the proximity model's rows, the constraint solver's MLCP (Saupin 2008 eq. 19 with
 * Signorini and Coulomb: position-level rows without post-stabilization, set explicitly since
 * the solver's default is rate rows with one post-stabilization pass), corrective motion. References: statics (the four bottom corners
 * carry m g) and the free motion's closed form (from rest on the support, each step's free
 * motion sinks the box by g h^2, which is what the model must report as penetration). */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define BOX 0.2          /* box side, m */
#define MU 0.5
#define DT 0.005
#define STEPS 400
/* The solver's tolerance (m) and what it leaves. The solve stops when no row moved by more
 * than TOLERANCE in a sweep; each normal row is exactly satisfied when it is updated, then
 * moved by the later rows of that sweep, each by at most TOLERANCE |W_ij| / W_jj. A cube's
 * four corners make 12 rows (normal and two tangents each) with |W_ij| / W_jj <= 3, so a
 * corner is left at most 12 x 3 x 1e-12 = 3.6e-11 m inside its support: 1e-10 m rounds that
 * up. The same bound holds for the reported free-motion penetration's departure from g h^2,
 * since each step starts from where the last one left the box. */
#define TOLERANCE 1e-12
#define PENETRATION_BOUND 1e-10
/* A resting box must not creep: position-level Signorini removes the whole free-motion
 * penetration each step, so drift is only the solver's residual. 1e-9 m over 400 steps sits
 * far above that residual (PENETRATION_BOUND per step, not accumulating vertically, a few
 * 1e-14 m per step horizontally once the friction holds) and far below any visible creep. */
#define REST_DRIFT_TOLERANCE 1e-9
/* The normal forces balance the weight to the solve's residual: relative 1e-6, as for the
 * half-space (tests/world/test_friction.c). */
#define FORCE_RELATIVE_TOLERANCE 1e-6

/* The box at (X0, Y0), off the support's centre so nothing is symmetric by accident; its
 * bottom face on the support's top face z = 0. */
#define X0 0.05
#define Y0 0.03

static char *
rest_scene (double margin)
{
  char m[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf (
    "world: { dt: %g, gravity: [0, 0, %g] }\n"
    "contact: { model: proximity, margin: %s }\n"
    "solver: { name: constraint, normal_constraint: position,\n"
    "          stabilization_iterations: 0, iterations: 500, tolerance: %g }\n"
    "bodies:\n"
    "  - name: support\n"
    "    shape: { type: box, size: [1, 1, 0.2] }\n"
    "    pose: { position: [0, 0, -0.1] }\n"
    "    fixed: true\n"
    "    material: { friction: %g }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [%g, %g, %g] }\n"
    "    material: { density: 500, friction: %g }\n",
    DT, -G, g_ascii_dtostr (m, sizeof m, margin), TOLERANCE, MU, BOX, BOX, BOX, X0, Y0,
    BOX / 2, MU);
}

static void
check_rest (double margin)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = rest_scene (margin);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double worst_sink = 0, worst_report = 0;
  for (int k = 0; k < STEPS; k++)
    {
      fixture_step (world, 1);
      const CwbStepStats *stats = cwb_world_last_stats (world);
      /* The box's four bottom corners; the support's corners are far outside the box. */
      g_assert_cmpuint (cwb_world_contacts (world)->frames->len, ==, 4);
      worst_report = MAX (worst_report, fabs (stats->max_penetration - G * DT * DT));
      g_assert_true (isnan (stats->intersection_volume));
      worst_sink = MAX (worst_sink, -fixture_box_lowest_corner (world, 1, BOX));
    }
  g_test_message ("margin %g: deepest corner after a step %.3g m, reported penetration "
                  "off g h^2 by %.3g m", margin, worst_sink, worst_report);
  g_assert_cmpfloat (worst_sink, <, PENETRATION_BOUND);
  g_assert_cmpfloat (worst_report, <, PENETRATION_BOUND);

  CwbBodySummary s;
  cwb_world_body_summary (world, 1, &s);
  g_test_message ("drift after %d steps: (%.3g, %.3g, %.3g) m", STEPS, s.centroid[0] - X0,
                  s.centroid[1] - Y0, s.centroid[2] - BOX / 2);
  g_assert_cmpfloat (fabs (s.centroid[0] - X0), <, REST_DRIFT_TOLERANCE);
  g_assert_cmpfloat (fabs (s.centroid[1] - Y0), <, REST_DRIFT_TOLERANCE);
  g_assert_cmpfloat (fabs (s.centroid[2] - BOX / 2), <, REST_DRIFT_TOLERANCE);
  g_assert_cmpfloat (cwb_v3_norm (s.linear_velocity), <, REST_DRIFT_TOLERANCE / DT);

  /* Statics: the four corners push the box up with m g, each sticking inside its cone. */
  const CwbContactSet *set = cwb_world_contacts (world);
  double sum = 0;
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      g_assert_cmpuint (frame->body_a, ==, 1);
      g_assert_cmpuint (frame->body_b, ==, 0);
      g_assert_cmpfloat (frame->normal[2], >, 1 - 1e-12);
      g_assert_cmpfloat (hypot (frame->force[1], frame->force[2]), <=, MU * frame->force[0]);
      sum += frame->force[0];
    }
  g_assert_cmpfloat (fabs (sum - s.mass * G), <, FORCE_RELATIVE_TOLERANCE * s.mass * G);
}

static void
test_rest (void)
{
  check_rest (0);
}

/* With a margin the same: the corners' contacts are there whether the free motion sinks them
 * or not, and the result is the same rest. */
static void
test_rest_margin (void)
{
  check_rest (0.001);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proximity/rest/box-on-box", test_rest);
  g_test_add_func ("/proximity/rest/box-on-box-margin", test_rest_margin);
  return g_test_run ();
}

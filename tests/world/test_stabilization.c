/* Post-stabilization (Allard 2010 Algorithm 1, lines 4-9) in the constraint solver: a box
 * dropped tilted and spinning onto the test half-space. The position-level solve linearises
 * g(q) at the free configuration; the rotation it applies moves the corners on arcs, so the
 * step ends with a penetration of second order in the correction. Re-detecting and solving
 * the position MLCP removes it; without the loop it stays. The contact margin makes the
 * corners near the plane part of each position MLCP, so that lifting one corner cannot push
 * another one under unseen (which would make the loop zig-zag between corners). The velocity
 * pass is the position-level one (normal_constraint: position), whose linearisation is what
 * leaves the penetration. */
#include <math.h>

#include "world_fixture.h"

/* The solver's tolerance below (1e-12 m) bounds what a converged stabilization leaves;
 * 1e-9 m gives three orders of magnitude of room for the PGS residual and round-off. The
 * penetration the linearisation leaves without stabilization is 1.6e-6 m in this scene (the
 * first impact, deterministic); asserting it is above 1e-6 m proves the scene exercises
 * what the loop removes. */
#define STABILIZED_GAP_TOLERANCE 1e-9
#define UNSTABILIZED_MIN_PENETRATION 1e-6

/* A box dropped tilted and spinning from 0.3 m. */
#define TUMBLING_BOX                                                                          \
  "bodies:\n"                                                                                 \
  "  - name: box\n"                                                                           \
  "    shape: { type: box, size: [0.4, 0.2, 0.1] }\n"                                         \
  "    pose: { position: [0, 0, 0.3], "                                                       \
  "orientation: [0.9659258262890683, 0.2588190451025208, 0, 0] }\n"                          \
  "    velocity: { linear: [1, 0, -4], angular: [8, -5, 3] }\n"                               \
  "    material: { density: 800, friction: 0.3 }\n"

static char *
drop_scene (int stabilization_iterations, double stabilization_tolerance)
{
  return g_strdup_printf (
    "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
    "contact: { model: halfspace, margin: 0.005 }\n"
    "solver: { name: constraint, iterations: 2000, tolerance: 1.0e-12, "
    "normal_constraint: position, stabilization_iterations: %d, "
    "stabilization_tolerance: %g }\n" TUMBLING_BOX,
    stabilization_iterations, stabilization_tolerance);
}

/* The deepest point of the body below the plane z = 0 (0 when none is below). */
static double
penetration (CwbWorld *world)
{
  size_t n;
  const CwbGeometry *g = cwb_world_geometries (world, &n);
  double deepest = 0;
  for (size_t p = 0; p < g[0].n_points; p++)
    deepest = MAX (deepest, -g[0].positions[3 * p + 2]);
  return deepest;
}

static double
worst_penetration_over_run (int stabilization_iterations, double stabilization_tolerance)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = drop_scene (stabilization_iterations, stabilization_tolerance);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double worst = 0;
  for (int k = 0; k < 60; k++)
    {
      fixture_step (world, 1);
      worst = MAX (worst, penetration (world));
    }
  return worst;
}

static void
test_stabilization_removes_penetration (void)
{
  /* stabilization_tolerance 0: automatic, 100 x 1e-12 m. */
  double without = worst_penetration_over_run (0, 0);
  double with = worst_penetration_over_run (10, 0);
  g_test_message ("deepest penetration: %.3g m without, %.3g m with post-stabilization",
                  without, with);
  g_assert_cmpfloat (without, >, UNSTABILIZED_MIN_PENETRATION);
  g_assert_cmpfloat (with, <, STABILIZED_GAP_TOLERANCE);
}

/* stabilization_tolerance is the penetration the loop leaves: above the 1.6e-6 m this scene
 * leaves, the loop never runs and the penetration stays; at 1e-7 m, what is left after every
 * step is at most that (a pass brings a deeper one down to the solver's 1e-12 m; shallower
 * ones stay). */
static void
test_stabilization_tolerance (void)
{
  double untouched = worst_penetration_over_run (10, 1e-5);
  double bounded = worst_penetration_over_run (10, 1e-7);
  g_test_message ("deepest penetration: %.3g m leaving 1e-5 m, %.3g m leaving 1e-7 m",
                  untouched, bounded);
  g_assert_cmpfloat (untouched, >, UNSTABILIZED_MIN_PENETRATION);
  g_assert_cmpfloat (bounded, <=, 1e-7);
}

/* The contacts the step reports are the velocity pass's, with forces, not the last
 * position pass's corrections: the resting box carries its weight. */
static void
test_stabilization_keeps_forces (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (
    registry,
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: halfspace, margin: 0.001 }\n"
    "solver: { name: constraint, iterations: 500, tolerance: 1.0e-12, "
    "stabilization_iterations: 5 }\n"
    "bodies:\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0, 0, 0.1] }\n");
  fixture_step (world, 100);
  CwbBodySummary s;
  cwb_world_body_summary (world, 0, &s);
  const CwbContactSet *set = cwb_world_contacts (world);
  double sum = 0;
  for (guint f = 0; f < set->frames->len; f++)
    sum += g_array_index (set->frames, CwbContactFrame, f).force[0];
  /* Same bound as the resting test without stabilization (test_friction.c). */
  g_assert_cmpfloat (fabs (sum - s.mass * 9.81), <, 1e-6 * s.mass * 9.81);
}

/* The check without a detection (linear_check.h): where the model states its reach (the
 * half-space: its margin, every point within it in the set), a step whose corrective motion
 * moves no point by half of it measures its end through the velocity pass's rows. The same
 * tumbling drop as above with the solver's defaults (rate rows, one automatic pass), the
 * half-space once stating its reach and once not, stepped side by side: the half-space's
 * gap is linear in a point's position, so the rows measure exactly what a detection does;
 * every step's state must be the same bit for bit and its reported violation and
 * penetration the same to round-off (1e-15 m on gaps of 1e-3 m). Where the corrective
 * motion is large (the impact: 4 m/s over 0.01 s against half of the 5 mm margin) the
 * stating side must detect again; at rest it must not. */
#define SAME_MEASURE_TOLERANCE 1e-15

static char *
check_scene (int state_reach)
{
  return g_strdup_printf (
    "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
    "contact: { model: halfspace, margin: 0.005, state_reach: %d }\n"
    "solver: { name: constraint }\n" TUMBLING_BOX,
    state_reach);
}

/* The half-space's count of its detections so far. */
static double
detections (CwbWorld *world)
{
  return fixture_derived (cwb_world_inspection (world)->derived, "detections");
}

static void
test_check_without_detection (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *stating_yaml = check_scene (1);
  g_autofree char *detecting_yaml = check_scene (0);
  g_autoptr (CwbWorld) stating = fixture_world (registry, stating_yaml);
  g_autoptr (CwbWorld) detecting = fixture_world (registry, detecting_yaml);
  int impact = -1, skipped = 0, passes = 0;
  for (int k = 0; k < 150; k++)
    {
      double before = detections (stating);
      fixture_step (stating, 1);
      fixture_step (detecting, 1);
      size_t nq, nv;
      const double *q_s = cwb_world_q (stating, &nq), *v_s = cwb_world_v (stating, &nv);
      const double *q_d = cwb_world_q (detecting, &nq), *v_d = cwb_world_v (detecting, &nv);
      g_assert_cmpmem (q_s, nq * sizeof (double), q_d, nq * sizeof (double));
      g_assert_cmpmem (v_s, nv * sizeof (double), v_d, nv * sizeof (double));
      const CwbStepStats *a = cwb_world_last_stats (stating);
      const CwbStepStats *b = cwb_world_last_stats (detecting);
      g_assert_cmpint (a->stabilization_passes, ==, b->stabilization_passes);
      passes += b->stabilization_passes;
      g_assert_cmpfloat (fabs (a->stabilization_violation - b->stabilization_violation), <=,
                         SAME_MEASURE_TOLERANCE);
      g_assert_cmpfloat (fabs (a->max_penetration - b->max_penetration), <=,
                         SAME_MEASURE_TOLERANCE);
      double made = detections (stating) - before;
      if (a->contacts > 0 && impact < 0)
        {
          impact = k;
          g_assert_cmpfloat (made, >=, 2);   /* the landing moves corners by centimetres */
        }
      if (made == 1)
        skipped++;
    }
  /* The box lands in its fourth step and is at rest well before step 100. */
  g_test_message ("impact at step %d; %d of 150 steps checked without a detection", impact,
                  skipped);
  g_assert_cmpint (impact, >, 0);
  for (int k = 0; k < 20; k++)
    {
      double before = detections (stating);
      fixture_step (stating, 1);
      g_assert_cmpfloat (detections (stating) - before, ==, 1);
    }
  /* The detecting side: the velocity pass's, the check's and one per position pass. */
  g_assert_cmpfloat (detections (detecting), ==, 2 * 150 + passes);
}

/* A model that asks for more than one stabilization pass (rows not linear in the points, as
 * an intersection volume's) is always checked by a detection, whatever reach it states. */
static void
test_check_needs_linear_rows (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (
    registry,
    "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
    "contact: { model: halfspace, margin: 0.005, stabilization_passes: 2 }\n"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0, 0, 0.1] }\n");
  fixture_step (world, 50);
  double before = detections (world);
  fixture_step (world, 10);
  g_assert_cmpfloat (detections (world) - before, ==, 20);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/world/stabilization/removes-penetration",
                   test_stabilization_removes_penetration);
  g_test_add_func ("/world/stabilization/keeps-forces", test_stabilization_keeps_forces);
  g_test_add_func ("/world/stabilization/tolerance", test_stabilization_tolerance);
  g_test_add_func ("/world/stabilization/check-without-detection",
                   test_check_without_detection);
  g_test_add_func ("/world/stabilization/check-needs-linear-rows",
                   test_check_needs_linear_rows);
  return g_test_run ();
}

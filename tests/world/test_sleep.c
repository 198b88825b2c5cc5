/* Sleeping bodies in the constraint solver (issue 16, sleep.h): a settled stack falls asleep
 * (its state then stays bit for bit, velocities exactly zero), a box dropped on it wakes it,
 * a drag wakes a sleeping body and its island, and with `sleep` off nothing changes.
 *
 * The stack is test_solver_convergence's (three boxes of 1, 0.8 and 0.6 m, each a millimetre
 * above the one below and shifted a few centimetres; `proximity` with a 2 mm margin, dt
 * 0.01) with `sleep_time: 0.2` s and the automatic speed limit (min (0.01 g h, 1e-3 size /
 * sleep_time): 9.8e-4 m/s for these boxes). A fourth box, 0.4 m, is held 3 m above the top
 * box or left out. */
#include <math.h>

#include "world_fixture.h"

static const char stack_yaml[] =
  "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
  "contact: { model: proximity, margin: 0.002 }\n"
  "solver: { name: constraint, sleep: %s, sleep_time: 0.2 }\n"
  "bodies:\n"
  FIXTURE_THREE_BOX_STACK_BODIES
  "%s";

static const char dropped_box_yaml[] =
  "  - name: box-3\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [0.03, -0.02, 5.6] }\n"
  "    material: { density: 1000, friction: 0.6 }\n";

/* Bodies 1 to 3 are the stack (0 is the ground). */
#define STACK_FIRST 1
#define STACK_LAST 3
/* The stack lands within 0.05 s and, still for sleep_time (0.2 s) after, was measured
 * asleep at step 24; 0.8 s leaves room for a change of detection or of the solve. */
#define SLEEP_BY_STEPS 80

static CwbWorld *
stack_world (CwbRegistry *registry, gboolean sleep, gboolean dropped_box)
{
  g_autofree char *yaml = g_strdup_printf (stack_yaml, sleep ? "true" : "false",
                                           dropped_box ? dropped_box_yaml : "");
  return fixture_world (registry, yaml);
}

/* Whether every velocity of body b is exactly zero (what a sleeping body has). */
static gboolean
body_at_rest (CwbWorld *world, size_t b)
{
  const CwbBodySlot *slot = cwb_world_body_slot (world, b);
  const double *v = cwb_world_v (world, NULL) + slot->v_offset;
  for (size_t d = 0; d < slot->nv; d++)
    if (v[d] != 0)
      return FALSE;
  return TRUE;
}

static gboolean
stack_at_rest (CwbWorld *world)
{
  for (size_t b = STACK_FIRST; b <= STACK_LAST; b++)
    if (!body_at_rest (world, b))
      return FALSE;
  return TRUE;
}

static double *
copy_q (CwbWorld *world, size_t *nq)
{
  const double *q = cwb_world_q (world, nq);
  return g_memdup2 (q, *nq * sizeof (double));
}

static void
test_settled_stack_sleeps (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = stack_world (registry, TRUE, FALSE);
  int asleep_at = -1;
  for (int k = 1; k <= SLEEP_BY_STEPS && asleep_at < 0; k++)
    {
      fixture_step (world, 1);
      if (stack_at_rest (world))
        asleep_at = k;
    }
  g_test_message ("the stack fell asleep at step %d", asleep_at);
  g_assert_cmpint (asleep_at, >, 0);
  /* Asleep: no motion at all, the contacts still reported with their forces. */
  size_t nq;
  g_autofree double *q = copy_q (world, &nq);
  fixture_step (world, 50);
  g_assert_true (stack_at_rest (world));
  g_assert_cmpmem (q, nq * sizeof (double), cwb_world_q (world, NULL), nq * sizeof (double));
  const CwbStepStats *st = cwb_world_last_stats (world);
  g_assert_cmpint (st->contacts, >, 0);
}

/* With sleep on, a run is the run without it, bit for bit, until a body falls asleep. */
static void
test_sleep_off_unchanged (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) off = stack_world (registry, FALSE, FALSE);
  g_autoptr (CwbWorld) on = stack_world (registry, TRUE, FALSE);
  int same = 0;
  for (int k = 0; k < SLEEP_BY_STEPS; k++)
    {
      fixture_step (off, 1);
      fixture_step (on, 1);
      size_t nq;
      const double *q_off = cwb_world_q (off, &nq);
      if (stack_at_rest (on))
        break;
      g_assert_cmpmem (q_off, nq * sizeof (double), cwb_world_q (on, NULL), nq * sizeof (double));
      g_assert_false (stack_at_rest (off));
      same++;
    }
  g_test_message ("identical for %d steps, until the stack slept", same);
  g_assert_cmpint (same, >=, 10);
}

static void
test_dropped_box_wakes (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = stack_world (registry, TRUE, TRUE);
  /* The box falls 3 m: it reaches the top box after 0.78 s, when the stack sleeps. */
  fixture_step (world, 70);
  g_assert_true (stack_at_rest (world));
  g_assert_false (body_at_rest (world, 4));
  gboolean woke = FALSE;
  for (int k = 0; k < 30 && !woke; k++)
    {
      fixture_step (world, 1);
      woke = !body_at_rest (world, STACK_FIRST) && !body_at_rest (world, STACK_LAST);
    }
  g_assert_true (woke);
  /* Then all four settle and sleep again. */
  gboolean asleep = FALSE;
  for (int k = 0; k < 300 && !asleep; k++)
    {
      fixture_step (world, 1);
      asleep = stack_at_rest (world) && body_at_rest (world, 4);
    }
  g_assert_true (asleep);
  double top = cwb_world_q (world, NULL)[cwb_world_body_slot (world, 4)->q_offset + 2];
  g_test_message ("the dropped box rests at z = %.4f m", top);
  g_assert_cmpfloat (fabs (top - (2.403 + 0.2)), <, 0.01);   /* on the top box */
}

static void
test_drag_wakes (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = stack_world (registry, TRUE, FALSE);
  fixture_step (world, SLEEP_BY_STEPS);
  g_assert_true (stack_at_rest (world));
  /* Pull the top box's first vertex 5 cm sideways. */
  size_t n;
  const CwbGeometry *g = cwb_world_geometries (world, &n);
  CwbGrab grab = { .body = STACK_LAST, .points = { 0, 0, 0 }, .weights = { 1, 0, 0 },
                   .stiffness = 1e5, .damping = 100 };
  cwb_v3_copy (grab.target, &g[STACK_LAST].positions[0]);
  grab.target[0] += 0.05;
  cwb_world_set_grab (world, &grab);
  fixture_step (world, 1);
  /* The dragged box moves, and wakes the boxes it rests on through its contacts. */
  for (size_t b = STACK_FIRST; b <= STACK_LAST; b++)
    g_assert_false (body_at_rest (world, b));
  cwb_world_set_grab (world, NULL);
}

/* A change of the contact model's parameters wakes every sleeping body (CwbStepContext.edits),
 * and so does one of the solver's own. */
static void
test_parameter_change_wakes (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = stack_world (registry, TRUE, FALSE);
  const char *kinds[] = { "contact", "solver" };
  for (int k = 0; k < 2; k++)
    {
      fixture_step (world, SLEEP_BY_STEPS);
      g_assert_true (stack_at_rest (world));
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) params
        = k == 0 ? fixture_params ("margin", "0.003", NULL)
                 : fixture_params ("sleep", "true", "sleep_time", "0.3", NULL);
      g_assert_true (cwb_world_set_plugin_params (world, k == 0 ? CWB_PLUGIN_CONTACT_MODEL
                                                                : CWB_PLUGIN_SOLVER,
                                                  params, &error));
      g_assert_no_error (error);
      fixture_step (world, 1);
      g_test_message ("%s parameters changed: the stack is awake", kinds[k]);
      for (size_t b = STACK_FIRST; b <= STACK_LAST; b++)
        g_assert_false (body_at_rest (world, b));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/world/sleep/settled-stack-sleeps", test_settled_stack_sleeps);
  g_test_add_func ("/world/sleep/off-unchanged", test_sleep_off_unchanged);
  g_test_add_func ("/world/sleep/dropped-box-wakes", test_dropped_box_wakes);
  g_test_add_func ("/world/sleep/drag-wakes", test_drag_wakes);
  g_test_add_func ("/world/sleep/parameter-change-wakes", test_parameter_change_wakes);
  return g_test_run ();
}

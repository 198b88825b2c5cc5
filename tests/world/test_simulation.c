/* Snapshots, the history and the worker-thread simulation: a snapshot is a frozen copy, the
 * history keeps its bounds, the worker's steps are the world's own steps bit for bit, a swap
 * between steps leaves the state untouched and changes the next step's plugin, an edit is
 * not starved by a worker stepping flat out, and resuming from an earlier state replays what
 * followed it. */
#include <math.h>

#include "history.h"
#include "simulation.h"
#include "snapshot.h"
#include "world_fixture.h"

static CwbWorld *
two_boxes_world (CwbRegistry *registry)
{
  return fixture_world (registry, fixture_two_boxes_yaml);
}

static CwbSimulation *
two_boxes (CwbRegistry *registry)
{
  return cwb_simulation_new (two_boxes_world (registry), NULL);
}

static void
test_snapshot_frozen (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (world, 10);
  g_autoptr (CwbSnapshot) first = cwb_snapshot_capture (world, NULL);
  g_assert_cmpuint (cwb_snapshot_state_hash (first), ==, cwb_world_state_hash (world));
  g_assert_cmpuint (first->steps, ==, 10);
  g_assert_cmpuint (first->n_bodies, ==, 2);
  g_assert_cmpstr (first->bodies[1].name, ==, "tumbling");
  g_assert_cmpstr (first->contact_model, ==, "halfspace");
  g_assert_cmpuint (first->frames->len, ==, cwb_world_contacts (world)->frames->len);
  g_assert_cmpuint (first->frames->len, >, 0);
  double x0 = first->bodies[1].positions[2];

  fixture_step (world, 10);
  g_autoptr (CwbSnapshot) second = cwb_snapshot_capture (world, first);
  /* The first copy did not follow the world; the second shares its topology. */
  g_assert_cmpfloat (first->bodies[1].positions[2], ==, x0);
  g_assert_cmpfloat (second->bodies[1].positions[2], !=, x0);
  g_assert_true (second->bodies[0].triangles == first->bodies[0].triangles);
  g_assert_cmpuint (cwb_snapshot_state_hash (second), ==, cwb_world_state_hash (world));

  /* Mapped at the state: the tumbling box's points average to its centroid (a box's
   * vertices are symmetric about its centre of mass; 1e-12 m of round-off). */
  const CwbSnapshotBody *b = &second->bodies[1];
  double mean[3] = { 0, 0, 0 };
  for (size_t p = 0; p < b->n_points; p++)
    for (int k = 0; k < 3; k++)
      mean[k] += b->positions[3 * p + k] / (double) b->n_points;
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat_with_epsilon (mean[k], b->summary.centroid[k], 1e-12);

  double lo[3], hi[3];
  g_assert_true (cwb_snapshot_bounds (second, TRUE, lo, hi));
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat (lo[k], <=, hi[k]);
}

static void
test_history_bounds (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  g_autoptr (CwbHistory) by_count = cwb_history_new (5, G_MAXSIZE);
  g_autoptr (CwbSnapshot) probe = cwb_snapshot_capture (world, NULL);
  size_t one = cwb_snapshot_bytes (probe);
  /* Room for about three and a half snapshots (their sizes vary with the contacts). */
  size_t bound = 3 * one + one / 2;
  g_autoptr (CwbHistory) by_bytes = cwb_history_new (1000, bound);
  size_t sizes[8];
  for (int k = 0; k < 8; k++)
    {
      fixture_step (world, 1);
      g_autoptr (CwbSnapshot) s = cwb_snapshot_capture (world, NULL);
      sizes[k] = cwb_snapshot_bytes (s);
      cwb_history_push (by_count, s);
      cwb_history_push (by_bytes, s);
    }
  g_assert_cmpuint (cwb_history_len (by_count), ==, 5);
  g_assert_cmpuint (cwb_history_get (by_count, 0)->steps, ==, 4);
  g_assert_cmpuint (cwb_history_get (by_count, 4)->steps, ==, 8);
  /* The newest that fit: within the bound, and one older would not have. */
  size_t kept = cwb_history_len (by_bytes), total = 0;
  for (size_t k = 8 - kept; k < 8; k++)
    total += sizes[k];
  g_assert_cmpuint (kept, >=, 2);
  g_assert_cmpuint (cwb_history_bytes (by_bytes), ==, total);
  g_assert_cmpuint (total, <=, bound);
  g_assert_cmpuint (total + sizes[8 - kept - 1], >, bound);
  g_assert_cmpuint (cwb_history_get (by_bytes, kept - 1)->steps, ==, 8);
  cwb_history_truncate (by_count, 2);
  g_assert_cmpuint (cwb_history_len (by_count), ==, 2);
  g_assert_cmpuint (cwb_history_get (by_count, 1)->steps, ==, 5);
  /* Never below one: a snapshot bigger than the bound is still kept. */
  g_autoptr (CwbHistory) tiny = cwb_history_new (10, 1);
  cwb_history_push (tiny, probe);
  g_assert_cmpuint (cwb_history_len (tiny), ==, 1);
}

/* Runs the simulation to `steps` as fast as it goes. */
static void
run_to (CwbSimulation *sim, guint64 steps)
{
  cwb_simulation_set_realtime (sim, FALSE, 1);
  cwb_simulation_set_stop_at (sim, steps);
  cwb_simulation_play (sim);
  cwb_simulation_wait_idle (sim);
}

static void
test_worker_matches_world (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) direct = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (direct, 120);
  g_autoptr (CwbSimulation) sim = two_boxes (registry);
  run_to (sim, 120);
  g_autoptr (CwbSnapshot) latest = cwb_simulation_latest (sim);
  g_assert_cmpuint (latest->steps, ==, 120);
  g_assert_cmpuint (cwb_snapshot_state_hash (latest), ==, cwb_world_state_hash (direct));
  /* The initial state and every step are in the history. */
  g_assert_cmpuint (cwb_simulation_history_len (sim), ==, 121);
  g_assert_null (cwb_simulation_take_error (sim));
  /* The statistics of every step, in order. */
  g_autoptr (GArray) stats = g_array_new (FALSE, FALSE, sizeof (CwbStepStats));
  guint64 cursor = 0;
  cwb_simulation_stats_since (sim, &cursor, stats);
  g_assert_cmpuint (stats->len, ==, 120);
  g_assert_cmpuint (cursor, ==, 120);
  g_assert_cmpfloat (g_array_index (stats, CwbStepStats, 119).time, ==, latest->time);
  g_array_set_size (stats, 0);
  cwb_simulation_stats_since (sim, &cursor, stats);
  g_assert_cmpuint (stats->len, ==, 0);

  /* Single steps while paused. */
  cwb_simulation_set_stop_at (sim, 0);
  cwb_simulation_step (sim);
  cwb_simulation_step (sim);
  cwb_simulation_wait_idle (sim);
  g_autoptr (CwbSnapshot) two_more = cwb_simulation_latest (sim);
  g_assert_cmpuint (two_more->steps, ==, 122);
}

static gboolean
swap_to (CwbWorld *world, gpointer data, GError **error)
{
  return cwb_world_set_contact_model (world, data, NULL, error);
}

static gboolean
refuse (CwbWorld *world, gpointer data, GError **error)
{
  g_set_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_STEP_FAILED, "refused on purpose");
  return FALSE;
}

static void
test_swap_between_steps (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbSimulation) sim = two_boxes (registry);
  run_to (sim, 50);
  g_autoptr (CwbSnapshot) before = cwb_simulation_latest (sim);
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_simulation_edit (sim, swap_to, (gpointer) "penalty", &error));
  g_assert_no_error (error);
  g_autoptr (CwbSnapshot) after = cwb_simulation_latest (sim);
  /* Bodies untouched bit for bit; no contact of the old model survives. */
  g_assert_cmpuint (cwb_snapshot_state_hash (after), ==, cwb_snapshot_state_hash (before));
  g_assert_cmpfloat (after->time, ==, before->time);
  g_assert_cmpstr (after->contact_model, ==, "penalty");
  g_assert_cmpuint (after->frames->len, ==, 0);
  run_to (sim, 51);
  g_autoptr (CwbSnapshot) next = cwb_simulation_latest (sim);
  g_assert_cmpstr (next->contact_model, ==, "penalty");
  g_assert_cmpuint (next->steps, ==, 51);

  /* A refused edit changes nothing and says why. */
  guint64 revision = cwb_simulation_revision (sim);
  g_assert_false (cwb_simulation_edit (sim, refuse, NULL, &error));
  g_assert_nonnull (strstr (error->message, "refused on purpose"));
  g_assert_cmpuint (cwb_simulation_revision (sim), ==, revision);
}

static void
test_resume_from_history (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbSimulation) sim = two_boxes (registry);
  run_to (sim, 80);
  g_autoptr (CwbSnapshot) original_31 = cwb_simulation_history_get (sim, 31);
  g_autoptr (CwbSnapshot) original_60 = cwb_simulation_history_get (sim, 60);
  g_assert_cmpuint (original_60->steps, ==, 60);

  cwb_simulation_seek (sim, 30);
  g_assert_cmpint (cwb_simulation_history_position (sim), ==, 30);
  g_autoptr (CwbSnapshot) shown = cwb_simulation_latest (sim);
  g_assert_cmpuint (shown->steps, ==, 30);
  /* Looking back changes nothing until the run resumes. */
  g_assert_cmpuint (cwb_simulation_history_len (sim), ==, 81);

  cwb_simulation_step (sim);
  cwb_simulation_wait_idle (sim);
  g_autoptr (CwbSnapshot) resumed = cwb_simulation_latest (sim);
  g_assert_cmpuint (resumed->steps, ==, 31);
  g_assert_cmpint (cwb_simulation_history_position (sim), ==, -1);
  g_assert_cmpuint (cwb_simulation_history_len (sim), ==, 32);
  /* The same step as the first time (the half-space has no memory to lose). */
  g_assert_cmpuint (cwb_snapshot_state_hash (resumed), ==, cwb_snapshot_state_hash (original_31));
  run_to (sim, 60);
  g_autoptr (CwbSnapshot) again_60 = cwb_simulation_latest (sim);
  g_assert_cmpuint (cwb_snapshot_state_hash (again_60), ==, cwb_snapshot_state_hash (original_60));

  /* Seeking the newest entry is not going back: no restore, nothing dropped. */
  size_t len = cwb_simulation_history_len (sim);
  cwb_simulation_seek (sim, len - 1);
  g_assert_cmpint (cwb_simulation_history_position (sim), ==, -1);
}

/* The box on the incline (scenes/penalty-incline.yaml) with the penalty model, whose static
 * friction keeps a per-contact lambda, secant iterate and warm-start force from step to step
 * (Lazarevych eq. 14-19). Resuming from the history gives that memory back to the re-created
 * model, so the resumed run is the first one bit for bit; the same restore without the
 * memory goes another way, which shows the memory matters here and that the test can fail. */
static void
test_resume_keeps_contact_memory (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  CwbWorld *world = fixture_world_from_file (registry, "scenes/penalty-incline.yaml", NULL);
  g_autoptr (CwbSimulation) sim = cwb_simulation_new (world, NULL);
  run_to (sim, 140);
  g_autoptr (CwbSnapshot) at_60 = cwb_simulation_history_get (sim, 60);
  g_autoptr (CwbSnapshot) original_140 = cwb_simulation_history_get (sim, 140);
  g_assert_cmpuint (at_60->steps, ==, 60);
  g_assert_cmpuint (at_60->frames->len, >, 0);
  g_assert_nonnull (at_60->contact_state);
  /* A 16-byte header, then one record per lasting contact. */
  g_assert_cmpuint (g_bytes_get_size (at_60->contact_state), >, 16);

  cwb_simulation_seek (sim, 60);
  run_to (sim, 140);
  g_autoptr (CwbSnapshot) resumed_140 = cwb_simulation_latest (sim);
  g_assert_cmpuint (resumed_140->steps, ==, 140);
  g_assert_cmpuint (cwb_snapshot_state_hash (resumed_140), ==,
                    cwb_snapshot_state_hash (original_140));

  /* Control: the bodies alone put back, the model starting afresh. */
  g_autoptr (CwbWorld) fresh = fixture_world_from_file (registry, "scenes/penalty-incline.yaml",
                                                        NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_world_restore_state (fresh, at_60->q, at_60->nq, at_60->v, at_60->nv,
                                          at_60->time, at_60->steps, NULL, &error));
  g_assert_no_error (error);
  fixture_step (fresh, 80);
  g_assert_cmpuint (cwb_world_state_hash (fresh), !=, cwb_snapshot_state_hash (original_140));
  /* And with the memory, the same world gets back onto the first run. */
  g_autoptr (CwbWorld) again = fixture_world_from_file (registry, "scenes/penalty-incline.yaml",
                                                        NULL);
  g_assert_true (cwb_world_restore_state (again, at_60->q, at_60->nq, at_60->v, at_60->nv,
                                          at_60->time, at_60->steps, at_60->contact_state,
                                          &error));
  fixture_step (again, 80);
  g_assert_cmpuint (cwb_world_state_hash (again), ==, cwb_snapshot_state_hash (original_140));
}

static gboolean
count_steps (CwbWorld *world, gpointer data, GError **error)
{
  *(guint64 *) data = cwb_world_step_count (world);
  return TRUE;
}

/* An edit while the worker steps as fast as it can gets the world between two steps: the
 * worker starts no step while an edit waits for it, so the edit is not starved by a mutex
 * that the worker takes back at once (without that, edits here waited for over a hundred
 * steps). Each edit finds the world at most a step past the snapshot read just before it,
 * plus what the scheduler lets through between the read and the request: with the basket's
 * steps of about 3 ms, the bound of 20 allows a 60 ms pause of this thread. */
static void
test_edit_not_starved (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbSimulation) sim = cwb_simulation_new (
    fixture_world_from_file (registry, "scenes/penalty-basket.yaml", NULL), NULL);
  cwb_simulation_set_realtime (sim, FALSE, 1);
  cwb_simulation_play (sim);
  guint64 worst = 0;
  for (int k = 0; k < 100; k++)
    {
      g_autoptr (CwbSnapshot) before = cwb_simulation_latest (sim);
      guint64 at = 0;
      g_assert_true (cwb_simulation_edit (sim, count_steps, &at, NULL));
      worst = MAX (worst, at - before->steps);
    }
  cwb_simulation_pause (sim);
  g_test_message ("most steps between a request and its edit: %" G_GUINT64_FORMAT, worst);
  g_assert_cmpuint (worst, <=, 20);
}

static void
test_replace_world (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbSimulation) sim = two_boxes (registry);
  run_to (sim, 40);
  g_autoptr (CwbSnapshot) before = cwb_simulation_latest (sim);
  /* A rebuilt world (as after an edit that keeps every body's DOFs): carried over, both
   * bodies go on from where they were. */
  cwb_simulation_replace_world (sim, two_boxes_world (registry), TRUE, NULL, NULL);
  g_autoptr (CwbSnapshot) carried = cwb_simulation_latest (sim);
  g_assert_cmpuint (cwb_snapshot_state_hash (carried), ==, cwb_snapshot_state_hash (before));
  g_assert_cmpfloat (carried->time, ==, before->time);
  /* The same layout: the history goes on (issue 19, item 5), its last state the edited one,
   * and going back resumes an earlier state in the new world, replaying what followed it
   * (the same plugins here, so bit for bit). */
  g_assert_cmpuint (cwb_simulation_history_len (sim), ==, 41);
  g_autoptr (CwbSnapshot) last = cwb_simulation_history_get (sim, 40);
  g_assert_true (last->world_serial == carried->world_serial);
  g_autoptr (CwbSnapshot) original_21 = cwb_simulation_history_get (sim, 21);
  cwb_simulation_seek (sim, 20);
  cwb_simulation_step (sim);
  cwb_simulation_wait_idle (sim);
  g_autoptr (CwbSnapshot) resumed = cwb_simulation_latest (sim);
  g_assert_cmpuint (resumed->steps, ==, 21);
  g_assert_true (resumed->world_serial == carried->world_serial);
  g_assert_cmpuint (cwb_snapshot_state_hash (resumed), ==, cwb_snapshot_state_hash (original_21));
  g_assert_cmpuint (cwb_simulation_history_len (sim), ==, 22);
  /* A world of another layout (a third body) cannot take those states: the history starts
   * over from the carried state. */
  g_autofree char *three = g_strconcat (fixture_two_boxes_yaml,
                                        "  - name: third\n"
                                        "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
                                        "    pose: { position: [3, 0, 2] }\n", NULL);
  g_assert_false (cwb_simulation_replace_world (sim, fixture_world (registry, three), TRUE,
                                                NULL, NULL));
  g_assert_cmpuint (cwb_simulation_history_len (sim), ==, 1);
  g_assert_true (cwb_simulation_replace_world (sim, fixture_world (registry, three), TRUE, NULL,
                                               NULL));
  /* Except a named body: it starts from its description. */
  g_autoptr (CwbSnapshot) before_except = cwb_simulation_latest (sim);
  const char *except[] = { "tumbling", NULL };
  cwb_simulation_replace_world (sim, two_boxes_world (registry), TRUE, except, NULL);
  g_autoptr (CwbSnapshot) restarted = cwb_simulation_latest (sim);
  g_assert_cmpfloat (restarted->bodies[1].summary.centroid[2], ==, 2);
  g_assert_cmpfloat (restarted->bodies[0].summary.centroid[2], ==,
                     before_except->bodies[0].summary.centroid[2]);
  /* Without carrying, the run starts over. */
  cwb_simulation_replace_world (sim, two_boxes_world (registry), FALSE, NULL, NULL);
  g_autoptr (CwbSnapshot) fresh = cwb_simulation_latest (sim);
  g_assert_cmpuint (fresh->steps, ==, 0);
  g_assert_cmpfloat (fresh->time, ==, 0);
}

/* The mouse spring through the simulation: a grab set between steps pulls the body. */
static void
test_grab_through_simulation (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbSimulation) sim = two_boxes (registry);
  g_autoptr (CwbSnapshot) start = cwb_simulation_latest (sim);
  const CwbSnapshotBody *b = &start->bodies[1];
  CwbGrab grab = { .body = 1, .points = { 0, 1, 2 }, .weights = { 1, 0, 0 },
                   .stiffness = 1e3, .damping = 0 };
  memcpy (grab.target, &b->positions[0], sizeof grab.target);
  grab.target[1] += 1;   /* pull along +y, across the box's own motion */
  cwb_simulation_set_grab (sim, &grab);
  run_to (sim, 1);
  g_autoptr (CwbSnapshot) pulled = cwb_simulation_latest (sim);
  /* Nothing else pushes the flying box along y. */
  g_assert_cmpfloat (pulled->bodies[1].summary.linear_velocity[1], >, 0);
  cwb_simulation_set_grab (sim, NULL);
  run_to (sim, 2);
  g_autoptr (CwbSnapshot) released = cwb_simulation_latest (sim);
  /* Released: no more y impulse (1e-12 m/s of round-off). */
  g_assert_cmpfloat_with_epsilon (released->bodies[1].summary.linear_velocity[1],
                                  pulled->bodies[1].summary.linear_velocity[1], 1e-12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/simulation/snapshot/frozen", test_snapshot_frozen);
  g_test_add_func ("/simulation/history/bounds", test_history_bounds);
  g_test_add_func ("/simulation/worker/matches-world", test_worker_matches_world);
  g_test_add_func ("/simulation/swap/between-steps", test_swap_between_steps);
  g_test_add_func ("/simulation/history/resume", test_resume_from_history);
  g_test_add_func ("/simulation/history/resume-contact-memory", test_resume_keeps_contact_memory);
  g_test_add_func ("/simulation/edit/not-starved", test_edit_not_starved);
  g_test_add_func ("/simulation/replace-world", test_replace_world);
  g_test_add_func ("/simulation/grab", test_grab_through_simulation);
  return g_test_run ();
}

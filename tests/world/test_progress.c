/* Progress and cancellation of long plugin work while a world is built (world.h,
 * CwbWorldBuildOptions), with the test-only "slow" body model, whose create reports progress
 * after each of its steps and stops when the host says the user cancelled: the sink gets
 * increasing fractions ending at 1, named by body; a cancel from the sink fails the build with
 * G_IO_ERROR_CANCELLED naming the body (and, under the sanitizer build, leaks nothing); a
 * build on a worker thread reports there; a swap reports to the options set on the world. */
#include "world_fixture.h"

/* Two slow bodies of 10 quick steps each, on the test half-space. */
static const char *const slow_scene =
  "world: { dt: 0.01 }\n"
  "contact: { model: halfspace }\n"
  "bodies:\n"
  "  - name: first\n"
  "    model: slow\n"
  "    model_params: { steps: 10, step_ms: 1 }\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "  - name: second\n"
  "    model: slow\n"
  "    model_params: { steps: 10, step_ms: 1 }\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [1, 0, 0] }\n";

typedef struct Reports {
  GPtrArray *what;        /* char*, one per report */
  GArray *fractions;      /* double */
  GThread *thread;        /* where the reports came from (all from one) */
  GCancellable *cancel;   /* cancelled at the first report at or past cancel_at */
  double cancel_at;
} Reports;

static void
reports_init (Reports *r)
{
  *r = (Reports){ .what = g_ptr_array_new_with_free_func (g_free),
                  .fractions = g_array_new (FALSE, FALSE, sizeof (double)),
                  .cancel = g_cancellable_new (), .cancel_at = 2 };
}

static void
reports_clear (Reports *r)
{
  g_ptr_array_unref (r->what);
  g_array_unref (r->fractions);
  g_object_unref (r->cancel);
}

static void
record (const char *what, double fraction, gpointer data)
{
  Reports *r = data;
  if (r->thread == NULL)
    r->thread = g_thread_self ();
  g_assert_true (r->thread == g_thread_self ());
  g_ptr_array_add (r->what, g_strdup (what));
  g_array_append_val (r->fractions, fraction);
  if (fraction >= r->cancel_at)
    g_cancellable_cancel (r->cancel);
}

static CwbScene *
load (const char *yaml)
{
  g_autoptr (GError) error = NULL;
  CwbScene *scene = cwb_scene_load_from_data (yaml, -1, "slow.yaml", &error);
  g_assert_no_error (error);
  return scene;
}

/* Each body's reports: increasing fractions ending exactly at 1 (the plugin reports k / n,
 * and n / n is 1 in floating point), named by the body. */
static void
test_reports (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbScene) scene = load (slow_scene);
  Reports r;
  reports_init (&r);
  CwbWorldBuildOptions options = { .progress = record, .user_data = &r,
                                   .cancellable = r.cancel };
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbWorld) world = cwb_world_new_full (scene, registry, &options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (world);
  g_assert_cmpuint (r.fractions->len, ==, 20);
  const char *bodies[] = { "body 'first': precomputing", "body 'second': precomputing" };
  for (guint b = 0; b < 2; b++)
    for (guint k = 0; k < 10; k++)
      {
        guint i = 10 * b + k;
        g_assert_cmpstr (r.what->pdata[i], ==, bodies[b]);
        double f = g_array_index (r.fractions, double, i);
        if (k > 0)
          g_assert_cmpfloat (f, >, g_array_index (r.fractions, double, i - 1));
        if (k == 9)
          g_assert_cmpfloat (f, ==, 1.0);
      }
  /* The build's sink is the build's only: the world holds no pointer to it afterwards. */
  g_assert_true (r.thread == g_thread_self ());
  reports_clear (&r);

  /* Without options the same scene builds as before (reports only logged). */
  g_autoptr (CwbWorld) plain = cwb_world_new (scene, registry, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_world_n_bodies (plain), ==, 2);
}

/* A cancel from the sink: the plugin's next report returns FALSE, the plugin fails with
 * G_IO_ERROR_CANCELLED, the build fails with it naming the body, and stops there (the second
 * body is never started). */
static void
test_cancel_from_sink (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbScene) scene = load (slow_scene);
  Reports r;
  reports_init (&r);
  r.cancel_at = 0.3;
  CwbWorldBuildOptions options = { .progress = record, .user_data = &r,
                                   .cancellable = r.cancel };
  g_autoptr (GError) error = NULL;
  CwbWorld *world = cwb_world_new_full (scene, registry, &options, &error);
  g_assert_null (world);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message,
                                   "loading cancelled while body 'first' was being built"));
  /* The plugin's own words: it stopped at the report that saw the cancel (3 of 10). */
  g_assert_nonnull (strstr (error->message, "stopped after step 3 of 10"));
  g_assert_cmpuint (r.fractions->len, ==, 3);
  reports_clear (&r);
}

/* The message of a build of `yaml` cancelled before it starts; the build must fail as
 * cancelled. */
static char *
cancelled_build (const char *yaml)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbScene) scene = load (yaml);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  CwbWorldBuildOptions options = { .cancellable = cancel };
  g_autoptr (GError) error = NULL;
  g_assert_null (cwb_world_new_full (scene, registry, &options, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  return g_strdup (error->message);
}

/* A cancel before the build: the first body's first report stops it. */
static void
test_cancelled_before (void)
{
  g_autofree char *message = cancelled_build (slow_scene);
  g_assert_nonnull (strstr (message, "body 'first'"));
  g_assert_nonnull (strstr (message, "step 1 of 10"));
}

/* A cancel while a body model that never reports is made (the rigid one): noticed when it
 * returns, so a cancel still leaves nothing built. */
static void
test_cancel_without_reports (void)
{
  g_autofree char *message = cancelled_build (fixture_two_boxes_yaml);
  g_assert_cmpstr (message, ==, "loading cancelled while body 'resting' was being built");
}

typedef struct ThreadBuild {
  const CwbScene *scene;
  CwbRegistry *registry;
  Reports reports;
  CwbWorld *world;
} ThreadBuild;

static gpointer
build_in_thread (gpointer data)
{
  ThreadBuild *b = data;
  CwbWorldBuildOptions options = { .progress = record, .user_data = &b->reports,
                                   .cancellable = b->reports.cancel };
  b->world = cwb_world_new_full (b->scene, b->registry, &options, NULL);
  return NULL;
}

/* The GUI builds on a worker thread: the reports come from that thread, and the registry is
 * only read, so the main thread may build another world at the same time. */
static void
test_worker_thread (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbScene) scene = load (slow_scene);
  ThreadBuild b = { .scene = scene, .registry = registry };
  reports_init (&b.reports);
  GThread *thread = g_thread_new ("build", build_in_thread, &b);
  g_autoptr (CwbWorld) here = fixture_world (registry, slow_scene);
  g_thread_join (thread);
  g_assert_nonnull (b.world);
  g_assert_true (b.reports.thread == thread);
  g_assert_cmpuint (b.reports.fractions->len, ==, 20);
  g_assert_cmpuint (cwb_world_state_hash (b.world), ==, cwb_world_state_hash (here));
  cwb_world_free (b.world);
  reports_clear (&b.reports);
}

/* Options set on a built world reach the plugins it makes later; cleared, they reach none.
 * The half-space contact model never reports, so a cancel is what shows it: a swap under a
 * cancelled cancellable fails as cancelled and keeps the previous model. */
static void
test_swap_options (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  CwbWorldBuildOptions options = { .cancellable = cancel };
  cwb_world_set_build_options (world, &options);
  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_world_set_solver (world, "faulty", NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpstr (error->message, ==,
                   "cancelled while solver 'faulty' was being created; the previous one stays");
  g_assert_cmpstr (cwb_world_solver_name (world), ==, "constraint");
  g_clear_error (&error);
  cwb_world_set_build_options (world, NULL);
  g_assert_true (cwb_world_set_solver (world, "faulty", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (cwb_world_solver_name (world), ==, "faulty");
}

/* Plugins set G_IO_ERROR_CANCELLED without linking GIO (cwb_host_set_cancelled): the quark's
 * name it uses must be GIO's. */
static void
test_cancelled_quark (void)
{
  g_autoptr (GError) error = NULL;
  cwb_host_set_cancelled (&error, "stopped");
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/world/progress/reports", test_reports);
  g_test_add_func ("/world/progress/cancel-from-sink", test_cancel_from_sink);
  g_test_add_func ("/world/progress/cancelled-before", test_cancelled_before);
  g_test_add_func ("/world/progress/cancel-without-reports", test_cancel_without_reports);
  g_test_add_func ("/world/progress/worker-thread", test_worker_thread);
  g_test_add_func ("/world/progress/swap-options", test_swap_options);
  g_test_add_func ("/world/progress/cancelled-quark", test_cancelled_quark);
  return g_test_run ();
}

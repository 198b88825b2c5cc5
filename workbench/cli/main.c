/* contact-workbench: the command-line entry (ARCHITECTURE.md, "Command line and report
 * contract"). Exit status: 0 success, 1 the run failed, 2 bad arguments or a bad scene. */
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "compare.h"
#include "progress_line.h"
#include "registry.h"
#include "run.h"
#ifdef CWB_HAVE_RENDER
#include "annotations.h"
#include "offscreen.h"
#include "recording.h"
#endif
#ifdef CWB_HAVE_APP
#include "application.h"
#endif
#include "scene.h"
#include "version.h"
#include "world.h"

#define EXIT_RUN_FAILED 1
#define EXIT_BAD_INPUT 2
#define DEFAULT_STEPS 500
#define SCREENSHOT_WIDTH 1280
#define SCREENSHOT_HEIGHT 720
/* --steps not given (any value a user can type is a real answer, -1 included). */
#define STEPS_NOT_GIVEN G_MININT64
/* Off a terminal, work still going after this long is announced once, so that a log shows
 * why a run paused; anything shorter passes in silence. */
#define ANNOUNCE_AFTER_NS 1000000000

typedef struct CliOptions {
  gboolean headless;
  gint64 steps;
  char **sets;
  char **changes;   /* --at STEP:KEY=VALUE */
  char **compare;   /* --compare KEY=VALUE: what makes side B */
  char *report;
  char *residuals;
  gboolean list_plugins;
  char **plugin_paths;
  char *screenshot;
  char *record;     /* --record FILE.webp, --record-every N */
  gint64 record_every;
  char *overlays;   /* --overlays LIST, --camera YAW,PITCH[,ZOOM], --size WxH, --view KEY=VALUE:
                     * the screenshot's */
  char **views;
  char *camera;
  char *size;
  gboolean version;
  int self_test;
  int bench_frames;
  gboolean bench_paused;
  char **rest;
} CliOptions;

static void
cli_options_clear (CliOptions *o)
{
  g_strfreev (o->sets);
  g_strfreev (o->changes);
  g_strfreev (o->compare);
  g_free (o->report);
  g_free (o->residuals);
  g_strfreev (o->plugin_paths);
  g_free (o->screenshot);
  g_free (o->record);
  g_free (o->overlays);
  g_strfreev (o->views);
  g_free (o->camera);
  g_free (o->size);
  g_strfreev (o->rest);
}

static int
fail (int status, const char *format, ...) G_GNUC_PRINTF (2, 3);

#ifdef CWB_HAVE_RENDER
/* What --screenshot draws, from --overlays, --camera and --size (defaults: the window's
 * overlays, the default camera's direction, framed, 1280 x 720). */
typedef struct Screenshot {
  CwbOverlayOptions overlays;
  CwbCamera camera;
  double zoom;
  int width, height;
  GStrv hidden, translucent, isolated;   /* --view hide=, translucent=, isolate= */
} Screenshot;

static void
screenshot_clear (Screenshot *shot)
{
  g_clear_pointer (&shot->hidden, g_strfreev);
  g_clear_pointer (&shot->translucent, g_strfreev);
  g_clear_pointer (&shot->isolated, g_strfreev);
}

/* One --view KEY=VALUE: a view setting (cwb_render_view_set), or which bodies to hide,
 * make translucent or isolate (hide=NAME,NAME...). */
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Screenshot, screenshot_clear)

static gboolean
parse_view (Screenshot *shot, const char *setting, GError **error)
{
  const char *equals = strchr (setting, '=');
  if (equals == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--view: expected KEY=VALUE, got '%s'", setting);
      return FALSE;
    }
  g_autofree char *key = g_strndup (setting, (gsize) (equals - setting));
  const char *value = equals + 1;
  GStrv *list = strcmp (key, "hide") == 0          ? &shot->hidden
                : strcmp (key, "translucent") == 0 ? &shot->translucent
                : strcmp (key, "isolate") == 0     ? &shot->isolated
                                                   : NULL;
  if (list == NULL)
    {
      g_autoptr (GError) view_error = NULL;
      if (cwb_render_view_set (&shot->overlays, key, value, &view_error))
        return TRUE;
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--view: %s%s",
                   view_error->message,
                   g_str_has_prefix (view_error->message, "unknown")
                     ? "; or hide, translucent, isolate with body names" : "");
      return FALSE;
    }
  g_auto (GStrv) names = g_strsplit (value, ",", -1);
  g_autoptr (GStrvBuilder) all = g_strv_builder_new ();
  if (*list != NULL)
    g_strv_builder_addv (all, (const char **) *list);
  for (char **name = names; *name != NULL; name++)
    if (*g_strstrip (*name) != '\0')
      g_strv_builder_add (all, *name);
  g_strfreev (*list);
  *list = g_strv_builder_end (all);
  return TRUE;
}

#define SCREENSHOT_MIN_SIDE 16
#define SCREENSHOT_MAX_SIDE 8192

static gboolean
parse_screenshot (const CliOptions *o, Screenshot *shot, GError **error)
{
  cwb_render_overlay_options_default (&shot->overlays);
  cwb_render_camera_default (&shot->camera);
  shot->zoom = 1;
  shot->width = SCREENSHOT_WIDTH;
  shot->height = SCREENSHOT_HEIGHT;
  if (o->screenshot == NULL && o->record == NULL
      && (o->overlays != NULL || o->camera != NULL || o->size != NULL || o->views != NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "--overlays, --camera, --size and --view describe the --screenshot or the "
                   "--record: add one");
      return FALSE;
    }
  if (o->overlays != NULL && !cwb_render_overlay_parse (&shot->overlays, o->overlays, error))
    {
      g_prefix_error (error, "--overlays: ");
      return FALSE;
    }
  for (char **view = o->views; view != NULL && *view != NULL; view++)
    if (!parse_view (shot, *view, error))
      return FALSE;
  shot->overlays.hidden_bodies = (const char *const *) shot->hidden;
  shot->overlays.translucent_bodies = (const char *const *) shot->translucent;
  shot->overlays.isolated_bodies = (const char *const *) shot->isolated;
  if (o->camera != NULL)
    {
      g_auto (GStrv) parts = g_strsplit (o->camera, ",", -1);
      guint n = g_strv_length (parts);
      double v[3] = { 0, 0, 1 };
      gboolean ok = n == 2 || n == 3;
      for (guint k = 0; ok && k < n; k++)
        {
          char *end = NULL;
          v[k] = g_ascii_strtod (g_strstrip (parts[k]), &end);
          ok = end != parts[k] && *end == '\0' && isfinite (v[k]);
        }
      if (!ok || !(v[1] > -90 && v[1] < 90) || !(v[2] > 0))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--camera: expected YAW,PITCH[,ZOOM] (degrees about z, degrees above "
                       "the horizon between -90 and 90, and a distance factor > 0), got '%s'",
                       o->camera);
          return FALSE;
        }
      shot->camera.yaw = v[0] * G_PI / 180;
      shot->camera.pitch = v[1] * G_PI / 180;
      shot->zoom = v[2];
    }
  if (o->size != NULL)
    {
      int w = 0, h = 0;
      char extra = 0;
      if (sscanf (o->size, "%dx%d%c", &w, &h, &extra) != 2 || w < SCREENSHOT_MIN_SIDE
          || h < SCREENSHOT_MIN_SIDE || w > SCREENSHOT_MAX_SIDE || h > SCREENSHOT_MAX_SIDE)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--size: expected WIDTHxHEIGHT in pixels, each from %d to %d, got '%s'",
                       SCREENSHOT_MIN_SIDE, SCREENSHOT_MAX_SIDE, o->size);
          return FALSE;
        }
      shot->width = w;
      shot->height = h;
    }
  return TRUE;
}
#endif

#ifdef CWB_HAVE_RENDER
/* --record: a frame of each side every `every` steps from the start, each shown for the
 * simulated time it stands for (the clip plays in real time); the camera framed on the
 * moving bodies of each side's first frame and kept, so that the motion shows. */
typedef struct Recorder {
  const Screenshot *shot;
  guint64 every;
  CwbOffscreen *offscreen;
  CwbRecording *clips[2];
  CwbCamera cameras[2];
  guint64 first_step[2];
  double first_time[2];
  double dt;
  GError *error;
} Recorder;

static void
record_frame (guint side, CwbWorld *world, gpointer data)
{
  Recorder *r = data;
  if (r->error != NULL || side > 1)
    return;
  g_autoptr (CwbSnapshot) snapshot = NULL;
  if (r->clips[side] == NULL)
    {
      if (r->offscreen == NULL)
        r->offscreen = cwb_render_offscreen_new (r->shot->width, r->shot->height, &r->error);
      if (r->offscreen == NULL)
        return;
      r->clips[side] = cwb_render_recording_new (r->shot->width, r->shot->height, &r->error);
      if (r->clips[side] == NULL)
        return;
      snapshot = cwb_snapshot_capture (world, NULL);
      cwb_render_camera_framing (snapshot, &r->shot->camera, r->shot->zoom, &r->cameras[side]);
      r->first_step[side] = snapshot->steps;
      r->first_time[side] = snapshot->time;
      r->dt = snapshot->dt;
    }
  guint64 steps = cwb_world_step_count (world);
  if ((steps - r->first_step[side]) % r->every != 0)
    return;
  if (snapshot == NULL)
    snapshot = cwb_snapshot_capture (world, NULL);
  g_autofree guint8 *pixels = cwb_render_offscreen_frame (r->offscreen, snapshot,
                                                          &r->cameras[side],
                                                          &r->shot->overlays);
  cwb_render_annotate_rgba (pixels, r->shot->width, r->shot->height, snapshot, &r->cameras[side],
                            &r->shot->overlays,
                            cwb_render_last_overlays (cwb_render_offscreen_renderer (r->offscreen)));
  gint64 time_ms = llround ((snapshot->time - r->first_time[side]) * 1000);
  cwb_render_recording_add (r->clips[side], pixels, time_ms, &r->error);
}

/* Writes the clips (B's beside A's); FALSE with the first error. */
static gboolean
recorder_finish (Recorder *r, const char *path, GError **error)
{
  gboolean ok = r->error == NULL;
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&r->error));
  gint64 frame_ms = MAX (1, llround ((double) r->every * r->dt * 1000));
  for (int side = 0; side < 2; side++)
    {
      if (r->clips[side] == NULL)
        continue;
      g_autofree char *path_b = side == 1 ? cwb_compare_b_path (path) : NULL;
      if (ok && !cwb_render_recording_write (r->clips[side], frame_ms,
                                             side == 1 ? path_b : path, error))
        ok = FALSE;
      g_clear_pointer (&r->clips[side], cwb_render_recording_free);
    }
  g_clear_pointer (&r->offscreen, cwb_render_offscreen_free);
  return ok;
}
#endif

static int
fail (int status, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "contact-workbench: %s\n", message);
  return status;
}

/* ---- building the world, with progress and Ctrl-C --------------------------------------- */

/* Set by the SIGINT handler, read by the build's progress sink. A handler takes no user data
 * and may only store to a lock-free flag (g_cancellable_cancel is not async-signal-safe), so
 * the flag is file-wide; it holds no simulation state, only "the user asked to stop". */
static volatile sig_atomic_t interrupted;

static void
on_sigint (int signum)
{
  interrupted = 1;
}

typedef struct BuildProgress {
  CwbProgressLine line;
  GCancellable *cancellable;
  gint64 start_ns;
  gboolean announced;       /* off a terminal: the one line said */
} BuildProgress;

/* The world's progress sink (CwbWorldBuildOptions): turns a Ctrl-C into a cancel, where it is
 * safe to, and shows "what: NN %" on a terminal. */
static void
build_progress (const char *what, double fraction, gpointer data)
{
  BuildProgress *p = data;
  if (interrupted)
    {
      g_cancellable_cancel (p->cancellable);
      return;
    }
  if (cwb_progress_line_due (&p->line, fraction >= 1))
    cwb_progress_line_draw (&p->line, "%s: %.0f %%", what, 100 * fraction);
  else if (!p->line.terminal && !p->announced
           && cwb_clock_ns () - p->start_ns > ANNOUNCE_AFTER_NS)
    {
      fprintf (stderr, "contact-workbench: %s (%.0f %%, taking a while)\n", what,
               100 * fraction);
      p->announced = TRUE;
    }
}

/* Builds the world with its progress on stderr. Ctrl-C meanwhile cancels it (a second one,
 * for a plugin that never reports and so never sees the first, stops the program as
 * usual); after the build Ctrl-C is back to stopping the program at once. A cancel fails with
 * G_IO_ERROR_CANCELLED. */
static CwbWorld *
build_world (const CwbScene *scene, CwbRegistry *registry, GError **error)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  BuildProgress progress = { .cancellable = cancellable, .start_ns = cwb_clock_ns () };
  cwb_progress_line_init (&progress.line, stderr, TRUE);
  struct sigaction handler = { .sa_handler = on_sigint, .sa_flags = SA_RESETHAND }, previous;
  sigemptyset (&handler.sa_mask);
  interrupted = 0;
  sigaction (SIGINT, &handler, &previous);

  CwbWorldBuildOptions options = { .progress = build_progress, .user_data = &progress,
                                   .cancellable = cancellable };
  CwbWorld *world = cwb_world_new_full (scene, registry, &options, error);
  sigaction (SIGINT, &previous, NULL);
  cwb_progress_line_clear (&progress.line);
  if (world != NULL && interrupted)
    {
      /* Ctrl-C came when no plugin was asking: the user still wanted to stop. */
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "loading cancelled (interrupted)");
      g_clear_pointer (&world, cwb_world_free);
    }
  return world;
}

/* The default scene: installed, else the source tree's (running from the build tree). */
static char *
default_scene_path (void)
{
  const char *candidates[] = { CWB_INSTALLED_DEFAULT_SCENE, CWB_SOURCE_DEFAULT_SCENE };
  for (size_t k = 0; k < G_N_ELEMENTS (candidates); k++)
    if (g_file_test (candidates[k], G_FILE_TEST_IS_REGULAR))
      return g_strdup (candidates[k]);
  return NULL;
}

/* The --set values as UTF-8: kept when they are, else converted from the locale's encoding
 * (a Latin-1 terminal), else refused. */
static gboolean
sets_to_utf8 (char **sets, GError **error)
{
  for (char **s = sets; s != NULL && *s != NULL; s++)
    {
      if (g_utf8_validate (*s, -1, NULL))
        continue;
      char *text = g_locale_to_utf8 (*s, -1, NULL, NULL, NULL);
      if (text == NULL)
        {
          g_autofree char *shown = g_strescape (*s, NULL);
          g_set_error (error, G_CONVERT_ERROR, G_CONVERT_ERROR_ILLEGAL_SEQUENCE,
                       "--set %s: not UTF-8 text, nor text in the locale's encoding", shown);
          return FALSE;
        }
      g_free (*s);
      *s = text;
    }
  return TRUE;
}

/* The --at options as run changes (pointing into the strings); FALSE with a message when one
 * is not STEP:KEY=VALUE. */
static gboolean
parse_changes (char **texts, GArray *changes, GError **error)
{
  for (char **t = texts; t != NULL && *t != NULL; t++)
    {
      const char *colon = strchr (*t, ':');
      guint64 step;
      g_autofree char *number = colon != NULL ? g_strndup (*t, (gsize) (colon - *t)) : NULL;
      if (number == NULL || !g_ascii_string_to_unsigned (number, 10, 0, G_MAXUINT64, &step, NULL)
          || strchr (colon + 1, '=') == NULL || colon[1] == '=')
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--at %s: expected STEP:KEY=VALUE (e.g. --at 200:contact.model=penalty)",
                       *t);
          return FALSE;
        }
      CwbRunChange change = { .step = step, .set = colon + 1 };
      g_array_append_val (changes, change);
    }
  return TRUE;
}

/* Rebuilds the world for a change during the run, with the same progress and Ctrl-C. */
static CwbWorld *
rebuild_world (const CwbScene *scene, gpointer registry, GError **error)
{
  return build_world (scene, registry, error);
}

static int
run (CliOptions *o)
{
  if (o->version)
    {
      printf ("contact-workbench %s (plugin ABI %d.%d)\n", cwb_version (), CWB_ABI_MAJOR,
              CWB_ABI_MINOR);
      return EXIT_SUCCESS;
    }

  g_autoptr (CwbRegistry) registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (registry);
  for (char **p = o->plugin_paths; p != NULL && *p != NULL; p++)
    cwb_registry_add_dir (registry, *p);
  cwb_registry_scan (registry);

  if (o->list_plugins)
    {
      cwb_registry_print (registry, stdout);
      return EXIT_SUCCESS;
    }

  guint n_rest = o->rest != NULL ? g_strv_length (o->rest) : 0;
  if (n_rest > 1)
    return fail (EXIT_BAD_INPUT, "one scene file expected, got %u (see --help)", n_rest);
  g_autofree char *scene_path = n_rest == 1 ? g_strdup (o->rest[0]) : default_scene_path ();
  if (scene_path == NULL)
    return fail (EXIT_BAD_INPUT, "no scene given and the default scene was not found");
  if (o->steps != STEPS_NOT_GIVEN && o->steps < 0)
    return fail (EXIT_BAD_INPUT, "--steps: expected a count >= 0, got %" G_GINT64_FORMAT,
                 o->steps);
#ifndef CWB_HAVE_RENDER
  if (o->screenshot != NULL || o->record != NULL)
    return fail (EXIT_BAD_INPUT, "--screenshot and --record need the renderer, which this build "
                 "does not have");
#else
  g_auto (Screenshot) shot = { 0 };
  g_autoptr (GError) shot_error = NULL;
  if (!parse_screenshot (o, &shot, &shot_error))
    return fail (EXIT_BAD_INPUT, "%s", shot_error->message);
#endif

  if (o->record != NULL && !o->headless)
    return fail (EXIT_BAD_INPUT, "--record records a headless run: add --headless (in the "
                 "window, the View menu's Record)");
  if (o->record_every < 0 || (o->record_every > 0 && o->record == NULL))
    return fail (EXIT_BAD_INPUT, o->record == NULL ? "--record-every needs --record"
                                                   : "--record-every: expected a count >= 1");
  if (o->changes != NULL && !o->headless)
    return fail (EXIT_BAD_INPUT, "--at changes a headless run: add --headless (in the window, "
                 "change the scene while it runs)");
#ifdef CWB_HAVE_APP
  if (!o->headless && o->screenshot == NULL)
    {
      CwbAppOptions app = {
        .scene_path = scene_path,
        .sets = o->sets,
        .self_test_frames = o->self_test,
        .bench_frames = o->bench_frames,
        .bench_paused = o->bench_paused,
        .compare = o->compare,
        .self_test_steps = o->steps != STEPS_NOT_GIVEN ? (int) MIN (o->steps, G_MAXINT) : 0,
      };
      return cwb_app_run (g_steal_pointer (&registry), &app);
    }
#endif
  if (o->self_test > 0 || o->bench_frames > 0)
    return fail (EXIT_BAD_INPUT, "--self-test needs the GUI, which this build does not have");

  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load (scene_path, &error);
  if (scene == NULL)
    return fail (EXIT_BAD_INPUT, "%s", error->message);
  if (!cwb_scene_apply_sets (scene, o->sets, &error))
    return fail (EXIT_BAD_INPUT, "%s", error->message);
  guint64 steps = o->steps != STEPS_NOT_GIVEN ? (guint64) o->steps : DEFAULT_STEPS;
  g_autoptr (GArray) changes = g_array_new (FALSE, FALSE, sizeof (CwbRunChange));
  if (!parse_changes (o->changes, changes, &error)
      || !cwb_run_check_changes (scene, (const CwbRunChange *) changes->data, changes->len,
                                 steps, &error))
    return fail (EXIT_BAD_INPUT, "%s", error->message);

  /* Side B of an A/B compare: the scene as given, with the --compare values. */
  g_autoptr (CwbScene) scene_b = NULL;
  if (o->compare != NULL)
    {
      scene_b = cwb_scene_copy (scene);
      if (!cwb_scene_apply_sets (scene_b, o->compare, &error)
          || !cwb_run_check_changes (scene_b, (const CwbRunChange *) changes->data,
                                     changes->len, steps, &error))
        return fail (EXIT_BAD_INPUT, "--compare: %s", error->message);
    }

  g_autoptr (CwbWorld) world = build_world (scene, registry, &error);
  g_autoptr (CwbWorld) world_b = world != NULL && scene_b != NULL
                                   ? build_world (scene_b, registry, &error) : NULL;
  if (world == NULL || (scene_b != NULL && world_b == NULL))
    return fail (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ? EXIT_RUN_FAILED
                                                                           : EXIT_BAD_INPUT,
                 "%s%s", world != NULL ? "--compare: " : "", error->message);

#ifdef CWB_HAVE_RENDER
  /* The bodies --view names are the scene's. */
  {
    g_autoptr (CwbSnapshot) first = cwb_snapshot_capture (world, NULL);
    if (!cwb_render_body_names_check (&shot.overlays, first, &error))
      return fail (EXIT_BAD_INPUT, "--view: %s", error->message);
  }
#endif
#ifndef CWB_HAVE_APP
  if (!o->headless && o->screenshot == NULL)
    fprintf (stderr, "contact-workbench: this build has no GUI; running headless\n");
#endif
  CwbRunOptions run_options = {
    .steps = steps,
    .scene_path = scene_path,
    .report_path = o->report,
    .residuals_path = o->residuals,
    .progress = TRUE,
    .changes = (const CwbRunChange *) changes->data,
    .n_changes = changes->len,
    .scene = scene,
    .rebuild = rebuild_world,
    .rebuild_data = registry,
    .summary = stdout,
  };
  g_autofree char *report_b = o->report != NULL ? cwb_compare_b_path (o->report) : NULL;
  g_autofree char *residuals_b = o->residuals != NULL ? cwb_compare_b_path (o->residuals) : NULL;
  CwbRunCompare compare = {
    .world = &world_b,
    .scene = scene_b,
    .changes = o->compare,
    .report_path = report_b,
    .residuals_path = residuals_b,
  };
  if (scene_b != NULL)
    run_options.compare = &compare;
#ifdef CWB_HAVE_RENDER
  Recorder recorder = { .shot = &shot };
  if (o->record != NULL)
    {
      double dt = cwb_world_dt (world);
      recorder.every = o->record_every > 0
                         ? (guint64) o->record_every
                         : (guint64) MAX (1, llround (1.0 / (CWB_RENDER_CLIP_FPS * dt)));
      run_options.observe = record_frame;
      run_options.observe_data = &recorder;
    }
#endif
  gboolean ran = cwb_run_headless (&world, &run_options, &error);
#ifdef CWB_HAVE_RENDER
  if (o->record != NULL)
    {
      g_autoptr (GError) record_error = NULL;
      if (!recorder_finish (&recorder, o->record, &record_error))
        return fail (EXIT_RUN_FAILED, "%s%s--record: %s", ran ? "" : error->message,
                     ran ? "" : "; ", record_error->message);
    }
#endif
#ifdef CWB_HAVE_RENDER
  /* The last good states are drawn even when a side failed: what the user wants to see. */
  if (o->screenshot != NULL)
    {
      g_autoptr (GError) render_error = NULL;
      g_autofree char *path_b = cwb_compare_b_path (o->screenshot);
      if (!cwb_render_screenshot (world, &shot.overlays, &shot.camera, shot.zoom, shot.width,
                                  shot.height, o->screenshot, &render_error)
          || (world_b != NULL
              && !cwb_render_screenshot (world_b, &shot.overlays, &shot.camera, shot.zoom,
                                         shot.width, shot.height, path_b, &render_error)))
        return fail (EXIT_RUN_FAILED, "%s%s--screenshot: %s", ran ? "" : error->message,
                     ran ? "" : "; ", render_error->message);
    }
#endif
  if (!ran)
    return fail (EXIT_RUN_FAILED, "%s", error->message);
  return EXIT_SUCCESS;
}

int
main (int argc, char **argv)
{
  /* The user's locale for text, so that UTF-8 arguments (a body's name in --set) convert;
   * the C locale for numbers, which every scene, --set value and report writes with a
   * decimal point. */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  CliOptions o = { .steps = STEPS_NOT_GIVEN };
  GOptionEntry entries[] = {
    { "headless", 0, 0, G_OPTION_ARG_NONE, &o.headless, "Run without a window", NULL },
    { "steps", 0, 0, G_OPTION_ARG_INT64, &o.steps, "Steps to run (headless; default 500)", "N" },
    /* Taken as bytes and checked here (sets_to_utf8): GOption would convert them from the
     * locale's encoding, refusing every non-ASCII byte under the C locale. */
    { "set", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.sets,
      "Override a scene value, repeatable (e.g. contact.model=penalty)", "KEY=VALUE" },
    { "at", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.changes,
      "Change a scene value after STEP steps (headless), repeatable: a contact model or solver "
      "swap, a parameter, any --set key (e.g. 200:contact.model=penalty)", "STEP:KEY=VALUE" },
    { "compare", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.compare,
      "A/B compare: run the scene as given (A) and with this value changed (B) in lockstep, "
      "repeatable; in the window side by side; headless, B's report, residuals and "
      "screenshot go beside A's as NAME.b.EXT (e.g. contact.model=penalty)", "KEY=VALUE" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &o.report, "Write the run report (JSON)", "FILE" },
    { "residuals", 0, 0, G_OPTION_ARG_FILENAME, &o.residuals,
      "Write the solver residual of every iteration of every step (CSV: step,iteration,residual)",
      "FILE" },
    { "list-plugins", 0, 0, G_OPTION_ARG_NONE, &o.list_plugins,
      "Print every plugin found and every refused file, then exit", NULL },
    { "plugin-path", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.plugin_paths,
      "Add a plugin folder (also CWB_PLUGIN_PATH)", "DIR" },
    { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, &o.screenshot,
      "Render the scene after the steps to a PNG and exit (GUI build)", "FILE" },
    { "record", 0, 0, G_OPTION_ARG_FILENAME, &o.record,
      "Record the run as an animated WebP clip that plays in real time (headless; with "
      "--compare, B's beside it as NAME.b.webp)", "FILE" },
    { "record-every", 0, 0, G_OPTION_ARG_INT64, &o.record_every,
      "Steps per frame of the --record clip (default: 25 frames per simulated second)", "N" },
    { "overlays", 0, 0, G_OPTION_ARG_STRING, &o.overlays,
      "The screenshot's and clip's overlays: grid, contacts, cones, depth, gradients, spans, cells, "
      "voxels, wireframe, aabbs, elements, comma-separated, or all or none (default: "
      "grid,contacts,cones)",
      "LIST" },
    { "camera", 0, 0, G_OPTION_ARG_STRING, &o.camera,
      "The screenshot's and clip's view: yaw about z and pitch above the horizon in degrees, and a "
      "distance factor (1: framed; default -108,20,1)", "YAW,PITCH[,ZOOM]" },
    { "view", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.views,
      "A view setting of the screenshot and clip, repeatable: xray=true, xray_opacity=0.3, "
      "section=x|y|z|view, section_offset=M, element_field=strain|volume|rotation, "
      "element_scale, particle_field=density|pressure|speed, particle_scale, "
      "particle_style=particles|surface, force_scale, vector_scale; hide=, translucent=, "
      "isolate=NAME[,NAME]",
      "KEY=VALUE" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &o.size,
      "The screenshot's and clip's size in pixels (default 1280x720)", "WIDTHxHEIGHT" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &o.version, "Print the version and exit", NULL },
    /* For tests and benchmarks of the GUI: draw FRAMES frames (after --steps N steps as fast
     * as possible), print what was drawn and quit; exit status 1 when the view is blank. */
    { "self-test", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &o.self_test,
      "Open the window, draw FRAMES frames, report and quit", "FRAMES" },
    /* The GUI benchmark (bench/gui_frames.sh): frame time and input latency. */
    { "bench-frames", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &o.bench_frames,
      "Measure FRAMES frames of the window with every overlay on, print, quit", "FRAMES" },
    { "bench-paused", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o.bench_paused,
      "With --bench-frames: run the --steps first, then measure with nothing stepping", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.rest, NULL, "[SCENE.yaml]" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- contact mechanics workbench");
  g_option_context_add_main_entries (context, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      cli_options_clear (&o);
      return fail (EXIT_BAD_INPUT, "%s (see --help)", error->message);
    }
  if (!sets_to_utf8 (o.sets, &error) || !sets_to_utf8 (o.changes, &error)
      || !sets_to_utf8 (o.compare, &error))
    {
      cli_options_clear (&o);
      return fail (EXIT_BAD_INPUT, "%s", error->message);
    }
  int status = run (&o);
  cli_options_clear (&o);
  return status;
}

/* The window's long work (window_private.h, world_job.h): rebuilding the world after an
 * edit, swapping or re-creating a plugin, opening a scene. The work runs on a worker thread.
 * Work that ends within JOB_WAIT_US ends as it always did, the window held still for that
 * moment; longer work shows a bar above the view with what is being done, its progress and
 * Cancel, while the view still draws and turns, and the window's editing is off until the
 * work ends. A cancel or a failure leaves the document and the world as they were.
 *
 * What the worker touches: a copy of the scene, the registry (only read: nothing scans it
 * after start-up), the new world it builds, and for a plugin edit the simulation, through its
 * locks. The UI thread meanwhile reads the document and the simulation's snapshots, and
 * starts no other change: the editing actions are disabled and every way in checks
 * cwb_app_window_busy. */
#include "world_job.h"
#include "window_private.h"

/* How long the UI waits for work before it shows its progress instead. Work shorter than this
 * finishes as before, the window held still for a moment; half a second reads as a slow click
 * rather than a hang, and spares quick edits the bar's flash. */
#define JOB_WAIT_US (G_USEC_PER_SEC / 2)
/* How often the bar follows the work: ten times a second reads as live. */
#define JOB_POLL_MS 100

/* Actions that stay on while work runs: they only change the view. */
static const char *const view_actions[] = { "frame-selected", "reset-camera", "cancel-job" };

static gboolean
is_view_action (const char *name)
{
  if (g_str_has_prefix (name, "overlay-"))
    return TRUE;
  for (size_t k = 0; k < G_N_ELEMENTS (view_actions); k++)
    if (strcmp (name, view_actions[k]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
cwb_app_window_busy (CwbAppWindow *self, GError **error)
{
  if (self->job == NULL)
    return FALSE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, "%s: wait for it to end, or cancel it",
               cwb_app_job_title (self->job));
  return TRUE;
}

/* Editing off (or back on) while work runs; the view stays live. */
static void
set_editing (CwbAppWindow *self, gboolean on)
{
  g_auto (GStrv) names = g_action_group_list_actions (G_ACTION_GROUP (self));
  for (char **n = names; *n != NULL; n++)
    {
      GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), *n);
      if (!is_view_action (*n) && G_IS_SIMPLE_ACTION (action))
        g_simple_action_set_enabled (G_SIMPLE_ACTION (action), on);
    }
  GAction *cancel = g_action_map_lookup_action (G_ACTION_MAP (self), "cancel-job");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (cancel), !on);
  GtkWidget *panels[] = { self->sidebar, self->bottom, GTK_WIDGET (self->contact_chooser),
                          GTK_WIDGET (self->solver_chooser) };
  for (size_t k = 0; k < G_N_ELEMENTS (panels); k++)
    gtk_widget_set_sensitive (panels[k], on);
  if (on)
    cwb_app_window_refresh_document (self);   /* undo, redo and the body actions as they are */
}

/* ---- the bar ---------------------------------------------------------------------------- */

static gboolean
job_poll (gpointer data)
{
  CwbAppWindow *self = data;
  double fraction = 0;
  g_autofree char *what = cwb_app_job_progress (self->job, &fraction);
  if (what == NULL)
    {
      /* No report yet (or a plugin that never reports): alive, amount unknown. */
      gtk_progress_bar_pulse (self->job_bar);
      return G_SOURCE_CONTINUE;
    }
  g_free (self->job_text);
  self->job_text = g_strdup_printf ("%s: %.0f %%", what, 100 * fraction);
  g_autofree char *label = g_strdup_printf ("%s — %s", cwb_app_job_title (self->job),
                                            self->job_text);
  gtk_label_set_text (self->job_label, label);
  gtk_progress_bar_set_fraction (self->job_bar, fraction);
  return G_SOURCE_CONTINUE;
}

static void
show_bar (CwbAppWindow *self, const char *text, gboolean working)
{
  gtk_label_set_text (self->job_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->job_bar), working);
  gtk_widget_set_visible (self->job_cancel, working);
  gtk_widget_set_visible (self->job_close, !working);
  gtk_revealer_set_reveal_child (self->job_revealer, TRUE);
}

static void
hide_bar (CwbAppWindow *self)
{
  gtk_revealer_set_reveal_child (self->job_revealer, FALSE);
}

void
cwb_app_window_show_notice (CwbAppWindow *self, const char *message)
{
  g_free (self->notice);
  self->notice = g_strdup (message);
  g_message ("%s", message);
  show_bar (self, message, FALSE);
}

static void
close_clicked (GtkButton *button, CwbAppWindow *self)
{
  hide_bar (self);
}

GtkWidget *
cwb_app_window_build_job_bar (CwbAppWindow *self)
{
  self->job_revealer = GTK_REVEALER (gtk_revealer_new ());
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_add_css_class (box, "cwb-job");
  self->job_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->job_label, 0);
  gtk_label_set_wrap (self->job_label, TRUE);
  gtk_label_set_selectable (self->job_label, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->job_label), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->job_label));
  self->job_bar = GTK_PROGRESS_BAR (gtk_progress_bar_new ());
  gtk_widget_set_size_request (GTK_WIDGET (self->job_bar), 240, -1);
  gtk_widget_set_valign (GTK_WIDGET (self->job_bar), GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->job_bar));
  self->job_cancel = gtk_button_new_with_mnemonic ("_Cancel");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->job_cancel), "win.cancel-job");
  gtk_widget_set_tooltip_text (self->job_cancel,
                               "Stop this work: the scene and the world stay as they were "
                               "(Escape)");
  gtk_box_append (GTK_BOX (box), self->job_cancel);
  self->job_close = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_widget_set_tooltip_text (self->job_close, "Dismiss");
  g_signal_connect (self->job_close, "clicked", G_CALLBACK (close_clicked), self);
  gtk_box_append (GTK_BOX (box), self->job_close);
  gtk_revealer_set_child (self->job_revealer, box);
  return GTK_WIDGET (self->job_revealer);
}

/* ---- running a job ---------------------------------------------------------------------- */

/* A job's end, shown to the user: a failure in the red bar, a cancel as a notice; then `done`
 * applies or reverts it. When the job was waited for (`shown` FALSE) the failure goes to the
 * caller instead, who reports it as for any quick edit. `done` may close the window: nothing
 * of it is touched after. */
static gboolean
job_finish (CwbAppWindow *self, CwbAppJob *job, CwbAppWindowJobDone done, gboolean shown,
            GError **error)
{
  GError *failure = NULL;
  gboolean ok = cwb_app_job_result (job, &failure);
  if (!shown)
    {
      if (failure != NULL)
        g_propagate_error (error, failure);
    }
  else if (g_error_matches (failure, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *notice = g_strdup_printf ("%s: %s. The scene and the world are as "
                                                 "they were.", cwb_app_job_title (job),
                                                 failure->message);
      cwb_app_window_show_notice (self, notice);
      g_error_free (failure);
    }
  else if (failure != NULL)
    {
      cwb_app_window_show_error (self, failure->message);
      g_error_free (failure);
    }
  else
    cwb_app_window_hide_error (self);
  done (self, job);
  cwb_app_job_free (job);
  return ok;
}

static void
job_ended (CwbAppJob *job, gpointer data)
{
  CwbAppWindow *self = g_object_ref (data);
  CwbAppWindowJobDone done = self->job_done;
  g_clear_handle_id (&self->job_poll, g_source_remove);
  self->job = NULL;
  self->job_done = NULL;
  g_clear_pointer (&self->job_text, g_free);
  hide_bar (self);
  set_editing (self, TRUE);
  job_finish (self, job, done, TRUE, NULL);
  g_object_unref (self);
}

/* Runs `job` (taken) for this window: waits up to `wait_us` for it; when it ended, `done` runs
 * at once and this returns its outcome (FALSE with the error on failure). Otherwise the bar
 * shows it, editing is off, and this returns TRUE: `done` runs when it ends, and a failure
 * then shows in the window. */
static gboolean
run_job (CwbAppWindow *self, CwbAppJob *job, gint64 wait_us, CwbAppWindowJobDone done,
         GError **error)
{
  if (self->job != NULL)
    {
      /* A caller that changed the document without checking cwb_app_window_busy: the new
       * work is stopped and its edit taken back, and the caller told why. */
      g_critical ("work started while other work runs: %s", cwb_app_job_title (self->job));
      cwb_app_job_cancel (job);
      cwb_app_job_wait (job, -1);
      job_finish (self, job, done, FALSE, NULL);
      cwb_app_window_busy (self, error);
      return FALSE;
    }
  if (cwb_app_job_wait (job, wait_us))
    return job_finish (self, job, done, FALSE, error);
  self->job = job;
  self->job_done = done;
  g_clear_pointer (&self->notice, g_free);
  g_clear_pointer (&self->job_text, g_free);
  show_bar (self, cwb_app_job_title (job), TRUE);
  gtk_progress_bar_set_fraction (self->job_bar, 0);
  set_editing (self, FALSE);
  self->job_poll = g_timeout_add (JOB_POLL_MS, job_poll, self);
  cwb_app_job_then (job, job_ended, self);
  return TRUE;
}

static void
cancel_job_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  if (self->job != NULL)
    cwb_app_job_cancel (self->job);
}

static const GActionEntry job_actions[] = {
  { "cancel-job", cancel_job_activated, NULL, NULL, NULL, { 0 } },
};

void
cwb_app_window_add_job_actions (CwbAppWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), job_actions, G_N_ELEMENTS (job_actions),
                                   self);
  GAction *cancel = g_action_map_lookup_action (G_ACTION_MAP (self), "cancel-job");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (cancel), FALSE);
}

void
cwb_app_window_stop_job (CwbAppWindow *self)
{
  if (self->job == NULL)
    return;
  /* The work may be using the simulation, which goes next: it is stopped and waited for. */
  cwb_app_job_cancel (self->job);
  g_clear_handle_id (&self->job_poll, g_source_remove);
  g_clear_pointer (&self->job, cwb_app_job_free);
  g_clear_pointer (&self->job_text, g_free);
  self->job_done = NULL;
}

const char *
cwb_app_window_progress (CwbAppWindow *self, double *fraction)
{
  if (self->job == NULL || !gtk_revealer_get_reveal_child (self->job_revealer))
    return NULL;
  if (fraction != NULL)
    *fraction = gtk_progress_bar_get_fraction (self->job_bar);
  return self->job_text != NULL ? self->job_text : cwb_app_job_title (self->job);
}

const char *
cwb_app_window_notice (CwbAppWindow *self)
{
  return self->notice;
}

/* An edit that failed or was cancelled is taken back from the document, so that it says what
 * the world is. */
static void
revert (CwbAppWindow *self, CwbAppRevert how)
{
  if (how == CWB_APP_REVERT_UNDO)
    cwb_document_undo (self->document, NULL);
  else if (how == CWB_APP_REVERT_REDO)
    cwb_document_redo (self->document, NULL);
}

/* ---- building a world: the work of rebuilding and of opening ------------------------------ */

/* The part of a job's data the worker uses: first in each job's data, so that one work
 * function serves both. */
typedef struct WorldBuild {
  CwbScene *scene;          /* the job's own: the worker never reads the document */
  CwbRegistry *registry;    /* only read */
  CwbWorld *world;          /* the result */
} WorldBuild;

static void
world_build_clear (WorldBuild *b)
{
  cwb_scene_free (b->scene);
  cwb_world_free (b->world);
}

static gboolean
world_build_run (gpointer data, const CwbWorldBuildOptions *build, GError **error)
{
  WorldBuild *b = data;
  b->world = cwb_world_new_full (b->scene, b->registry, build, error);
  return b->world != NULL;
}

/* ---- rebuilding the world ---------------------------------------------------------------- */

typedef struct Rebuild {
  WorldBuild build;         /* first: world_build_run */
  gboolean carry;
  char **except;
  char **renamed;
  CwbAppRevert revert;
  char *select;
  gboolean restart;
} Rebuild;

static void
rebuild_free (Rebuild *r)
{
  world_build_clear (&r->build);
  g_strfreev (r->except);
  g_strfreev (r->renamed);
  g_free (r->select);
  g_free (r);
}

static void
rebuild_done (CwbAppWindow *self, CwbAppJob *job)
{
  Rebuild *r = cwb_app_job_data (job);
  if (r->build.world != NULL)
    {
      gboolean kept = cwb_simulation_replace_world (
        self->simulation, g_steal_pointer (&r->build.world), r->carry,
        (const char *const *) r->except, (const char *const *) r->renamed);
      /* The plots show the steps the history holds: both go on across an edit that keeps
       * the bodies' layout, both start over otherwise, and the job bar says so. */
      if (r->restart || !kept)
        {
          g_array_set_size (self->stats_buffer, 0);
          cwb_plot_panel_clear (self->plots);
        }
      if (!kept && !r->restart)
        cwb_app_window_show_notice (self, "The edit changed the bodies' state layout: the "
                                          "history and the plots start again from here.");
      if (r->select != NULL)
        cwb_app_window_select_body (self, r->select);
      /* A reset restarts B by itself (window_compare.c); an edit is made to B too. */
      g_autoptr (GError) compare_error = NULL;
      if (!r->restart
          && !cwb_app_window_compare_follow_edit (self, r->carry, (const char *const *) r->except,
                                                  (const char *const *) r->renamed,
                                                  &compare_error))
        {
          g_autofree char *why = g_strdup_printf ("Compare ended: B could not take the edit: "
                                                  "%s", compare_error->message);
          cwb_app_window_end_compare (self);
          cwb_app_window_show_notice (self, why);
        }
    }
  else
    revert (self, r->revert);
  cwb_app_window_refresh_document (self);
}

gboolean
cwb_app_window_rebuild (CwbAppWindow *self, const CwbAppRebuild *how, GError **error)
{
  cwb_app_window_end_phases (self);   /* the stages are of the world being replaced */
  Rebuild *r = g_new0 (Rebuild, 1);
  r->build.scene = cwb_scene_copy (cwb_document_scene (self->document));
  r->build.registry = self->registry;
  r->carry = how->carry;
  r->except = g_strdupv ((char **) how->except);
  r->renamed = g_strdupv ((char **) how->renamed);
  r->revert = how->revert;
  r->select = g_strdup (how->select);
  r->restart = how->restart;
  CwbAppJob *job = cwb_app_job_start ("Rebuilding the world", world_build_run, r,
                                      (GDestroyNotify) rebuild_free);
  return run_job (self, job, JOB_WAIT_US, rebuild_done, error);
}

/* ---- side B of an A/B compare ------------------------------------------------------------ */

typedef struct CompareBuild {
  WorldBuild build;         /* first: world_build_run */
  char **changes;
} CompareBuild;

static void
compare_build_free (CompareBuild *c)
{
  world_build_clear (&c->build);
  g_strfreev (c->changes);
  g_free (c);
}

static void
compare_build_done (CwbAppWindow *self, CwbAppJob *job)
{
  CompareBuild *c = cwb_app_job_data (job);
  if (c->build.world == NULL)
    return;   /* a failure or a cancel: the bar says it */
  g_autoptr (GError) error = NULL;
  CwbWorld *world = g_steal_pointer (&c->build.world);
  CwbScene *scene = g_steal_pointer (&c->build.scene);
  if (!cwb_app_window_compare_built (self, world, scene, c->changes, &error))
    cwb_app_window_show_error (self, error->message);
}

gboolean
cwb_app_window_build_compare (CwbAppWindow *self, CwbScene *scene, char *const *changes,
                              GError **error)
{
  CompareBuild *c = g_new0 (CompareBuild, 1);
  c->build.scene = scene;
  c->build.registry = self->registry;
  c->changes = g_strdupv ((char **) changes);
  CwbAppJob *job = cwb_app_job_start ("Building side B of the compare", world_build_run, c,
                                      (GDestroyNotify) compare_build_free);
  return run_job (self, job, JOB_WAIT_US, compare_build_done, error);
}

/* ---- swapping a plugin, or editing its parameters ---------------------------------------- */

typedef struct PluginJob {
  CwbSimulation *simulation;    /* the window's; it waits for the job before it goes */
  CwbScene *scene;              /* a copy, for the parameters */
  CwbPluginKind kind;
  char *name;                   /* a swap's new plugin (NULL: none) */
  gboolean set_params;          /* else a swap */
  CwbAppRevert revert;
  const CwbWorldBuildOptions *build;   /* during the work */
} PluginJob;

static void
plugin_job_free (PluginJob *p)
{
  cwb_scene_free (p->scene);
  g_free (p->name);
  g_free (p);
}

static const char *
kind_text (CwbPluginKind kind)
{
  return kind == CWB_PLUGIN_CONTACT_MODEL ? "contact model" : "solver";
}

/* Under the simulation's edit, between two steps. */
static gboolean
edit_plugin (CwbWorld *world, gpointer data, GError **error)
{
  PluginJob *p = data;
  cwb_world_set_build_options (world, p->build);
  gboolean ok;
  if (p->set_params)
    ok = cwb_world_set_plugin_params (world, p->kind,
                                      p->kind == CWB_PLUGIN_CONTACT_MODEL
                                        ? p->scene->contact_params : p->scene->solver_params,
                                      error);
  else
    {
      /* The parameters the scene kept for the plugin coming back, else its defaults. */
      gboolean contact = p->kind == CWB_PLUGIN_CONTACT_MODEL;
      g_autoptr (GPtrArray) kept = cwb_scene_kept_params (p->scene, contact, p->name);
      ok = contact ? cwb_world_set_contact_model (world, p->name, kept, error)
                   : cwb_world_set_solver (world, p->name, kept, error);
    }
  cwb_world_set_build_options (world, NULL);
  return ok;
}

static gboolean
plugin_job_run (gpointer data, const CwbWorldBuildOptions *build, GError **error)
{
  PluginJob *p = data;
  p->build = build;
  gboolean ok = cwb_simulation_edit (p->simulation, edit_plugin, p, error);
  p->build = NULL;
  if (!ok && !p->set_params && !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_prefix_error (error, "The %s %s refused the scene: ", kind_text (p->kind),
                    p->name != NULL ? p->name : "none");
  return ok;
}

static void
plugin_job_done (CwbAppWindow *self, CwbAppJob *job)
{
  PluginJob *p = cwb_app_job_data (job);
  g_autoptr (GError) error = NULL;
  if (!cwb_app_job_result (job, NULL))
    revert (self, p->revert);
  else if (!p->set_params)
    {
      /* A swap reaches the document once the world took it; where parameters were set
       * aside or came back, the user is told which. */
      g_autofree char *note = NULL;
      gboolean ok = p->kind == CWB_PLUGIN_CONTACT_MODEL
                      ? cwb_document_set_contact_model (self->document, p->name, &note, &error)
                      : cwb_document_set_solver (self->document, p->name, &note, &error);
      if (ok)
        cwb_app_window_hide_error (self);
      else
        cwb_app_window_show_error (self, error->message);
      if (ok && note != NULL)
        cwb_app_window_show_notice (self, note);
    }
  cwb_app_window_refresh_document (self);
}

gboolean
cwb_app_window_edit_plugin (CwbAppWindow *self, CwbPluginKind kind, const char *name,
                            gboolean set_params, CwbAppRevert revert, GError **error)
{
  PluginJob *p = g_new0 (PluginJob, 1);
  p->simulation = self->simulation;
  p->scene = cwb_scene_copy (cwb_document_scene (self->document));
  p->kind = kind;
  p->name = g_strdup (name);
  p->set_params = set_params;
  p->revert = revert;
  g_autofree char *title
    = set_params ? g_strdup_printf ("Applying the %s's parameters", kind_text (kind))
                 : g_strdup_printf ("Creating the %s %s", kind_text (kind),
                                    name != NULL ? name : "none");
  CwbAppJob *job = cwb_app_job_start (title, plugin_job_run, p, (GDestroyNotify) plugin_job_free);
  return run_job (self, job, JOB_WAIT_US, plugin_job_done, error);
}

/* ---- opening a scene ----------------------------------------------------------------------- */

typedef struct OpenJob {
  WorldBuild build;         /* first: world_build_run */
  CwbAppApplication *app;
  char *path;
} OpenJob;

static void
open_job_free (OpenJob *o)
{
  world_build_clear (&o->build);
  g_free (o->path);
  g_free (o);
}

/* The new window, on the scene and the world the job made; opened from a window, it shows
 * the scene as that one did (size, panels, overlays, camera direction). */
static void
open_window (OpenJob *o, CwbAppWindow *from)
{
  CwbDocument *document = cwb_document_new (g_steal_pointer (&o->build.scene), o->path);
  CwbAppWindow *window = cwb_app_window_new_with (o->app, document,
                                                  g_steal_pointer (&o->build.world));
  if (from != NULL)
    cwb_app_window_take_view (window, from);
  cwb_app_window_start (window);
  gtk_window_present (GTK_WINDOW (window));
}

static void
open_job_done (CwbAppWindow *self, CwbAppJob *job)
{
  OpenJob *o = cwb_app_job_data (job);
  if (o->build.world == NULL)
    return;
  open_window (o, self);
  /* The document this window held was saved or discarded before: it gives way. */
  cwb_app_window_close_now (self);
}

gboolean
cwb_app_window_open (CwbAppApplication *app, CwbAppWindow *from, const char *path, char **sets,
                     GError **error)
{
  if (from != NULL && cwb_app_window_busy (from, error))
    return FALSE;
  CwbScene *scene = cwb_app_window_load_scene (path, sets, error);
  if (scene == NULL)
    return FALSE;
  OpenJob *o = g_new0 (OpenJob, 1);
  o->build.scene = scene;
  o->build.registry = cwb_app_application_registry (app);
  o->app = app;
  o->path = g_strdup (path);
  g_autofree char *name = path != NULL ? g_path_get_basename (path) : g_strdup ("Untitled");
  g_autofree char *title = g_strdup_printf ("Opening %s", name);
  CwbAppJob *job = cwb_app_job_start (title, world_build_run, o, (GDestroyNotify) open_job_free);
  gint64 wait_us = JOB_WAIT_US;
  if (from == NULL)
    {
      /* No window yet (the program starting): a quick build opens its window at once, a long
       * one shows its progress in a window on an empty scene, which the scene's then
       * replaces. */
      g_autoptr (CwbScene) empty = NULL;
      CwbWorld *world = NULL;
      if (!cwb_app_job_wait (job, JOB_WAIT_US))
        {
          empty = cwb_scene_new ();
          world = cwb_world_new (empty, o->build.registry, NULL);
        }
      if (world == NULL)
        {
          /* Quick, or not even an empty world could be made (no solver found): the scene's
           * own window, once its world is built. */
          cwb_app_job_wait (job, -1);
          gboolean ok = cwb_app_job_result (job, error);
          if (ok)
            open_window (o, NULL);
          cwb_app_job_free (job);
          return ok;
        }
      from = cwb_app_window_new_with (app, cwb_document_new (g_steal_pointer (&empty), NULL),
                                      world);
      gtk_window_present (GTK_WINDOW (from));
      wait_us = 0;
    }
  return run_job (from, job, wait_us, open_job_done, error);
}

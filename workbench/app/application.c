/* The GTK application (application.h). */
#include <stdio.h>

#include "application.h"
#include "cwb-app-resources.h"
#include "plugins_window.h"
#include "version.h"
#include "widget_renderer.h"
#include "window.h"

struct _CwbAppApplication {
  GtkApplication parent;
  CwbRegistry *registry;
  CwbAppOptions options;
  char *scene_path;
  char **sets;
  char **compare;     /* until the first window takes it */
  int exit_status;
};

G_DEFINE_FINAL_TYPE (CwbAppApplication, cwb_app_application, GTK_TYPE_APPLICATION)

static void
open_window (CwbAppApplication *self, const char *path, char **sets)
{
  g_autoptr (GError) error = NULL;
  /* The test and benchmark modes measure the scene's own window from its first frame: they
   * wait for its world. Otherwise a long build shows its progress in a window at once. */
  gboolean measuring = self->options.self_test_frames > 0 || self->options.bench_frames > 0;
  CwbAppWindow *window = measuring ? cwb_app_window_new (self, path, sets, &error) : NULL;
  if (window != NULL)
    gtk_window_present (GTK_WINDOW (window));
  if (window != NULL || (!measuring && cwb_app_window_open (self, NULL, path, sets, &error)))
    return;
  /* A scene that cannot be opened at start is an error of the command line: say why on
   * stderr and end with status 2, as a headless run does; but a person who started the
   * program sees a window, on an empty scene, with the message in its error bar (the
   * measuring modes leave at once). */
  fprintf (stderr, "contact-workbench: %s\n", error->message);
  self->exit_status = 2;
  if (measuring)
    return;
  g_autoptr (GError) empty_error = NULL;
  window = cwb_app_window_new (self, NULL, NULL, &empty_error);
  if (window == NULL)
    return;
  cwb_app_window_show_error (window, error->message);
  gtk_window_present (GTK_WINDOW (window));
}

static void
application_activate (GApplication *app)
{
  CwbAppApplication *self = CWB_APP_APPLICATION (app);
  open_window (self, self->scene_path, self->sets);
}

static void
about_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  GtkApplication *app = data;
  static const char *authors[] = { "The Contact Workbench developers", NULL };
  gtk_show_about_dialog (
    gtk_application_get_active_window (app), "program-name", "Contact Workbench",
    "logo-icon-name", CWB_APP_ID, "version", cwb_version (), "license-type", GTK_LICENSE_MIT_X11,
    "authors", authors,
    "comments",
    "A workbench for contact mechanics: mix rigid, FEM and fluid bodies, swap contact "
    "models and solvers while the simulation runs, and look inside them.\n\n"
    "Implements Allard et al. 2010 (volume contact constraints), Saupin et al. 2008 "
    "(compliance warping), Spillmann et al. 2007 with static friction (penalty contact), "
    "Faure et al. 2007 (Eulerian contact) and Harmon et al. 2009 (asynchronous contact "
    "mechanics).",
    NULL);
}

static void
plugins_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppApplication *self = data;
  GtkWindow *window = cwb_plugins_window_new (
    gtk_application_get_active_window (GTK_APPLICATION (self)), self->registry);
  gtk_window_present (window);
}

static void
shortcuts_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  GtkBuilder *builder = gtk_builder_new_from_resource (
    "/org/contactworkbench/Workbench/shortcuts.ui");
  GtkWindow *shortcuts = GTK_WINDOW (gtk_builder_get_object (builder, "shortcuts"));
  gtk_window_set_transient_for (shortcuts, gtk_application_get_active_window (data));
  gtk_window_present (shortcuts);
  g_object_unref (builder);
}

static void
quit_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  /* Each window asks about its unsaved changes as it closes. */
  for (GList *l = gtk_application_get_windows (data); l != NULL; l = l->next)
    gtk_window_close (l->data);
}

static const GActionEntry app_actions[] = {
  { "about", about_activated, NULL, NULL, NULL, { 0 } },
  { "plugins", plugins_activated, NULL, NULL, NULL, { 0 } },
  { "shortcuts", shortcuts_activated, NULL, NULL, NULL, { 0 } },
  { "quit", quit_activated, NULL, NULL, NULL, { 0 } },
};

static void
application_startup (GApplication *app)
{
  G_APPLICATION_CLASS (cwb_app_application_parent_class)->startup (app);
  /* Referencing the embedded UI links its object (and its registering constructor) out of
   * the static library. */
  (void) cwb_app_resources_get_resource ();
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions),
                                   app);
  /* Shortcuts with a modifier only: application accelerators act before the focused widget
   * sees the key, so a single key here would be taken from every text field. The window's
   * single-key shortcuts (space, ".", c, w, f, Delete, arrows ...) act only on keys that the
   * focused widget left (window.c, add_key_shortcuts). */
  static const struct { const char *action; const char *accels[3]; } accels[] = {
    { "win.reset", { "<Control>r", NULL } },
    { "win.open", { "<Control>o", NULL } },
    { "win.save", { "<Control>s", NULL } },
    { "win.save-as", { "<Control><Shift>s", NULL } },
    { "win.undo", { "<Control>z", NULL } },
    { "win.redo", { "<Control><Shift>z", "<Control>y", NULL } },
    { "win.duplicate-body", { "<Control>d", NULL } },
    { "win.record", { "<Control><Shift>r", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "app.shortcuts", { "<Control>question", NULL } },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (accels); k++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[k].action,
                                           accels[k].accels);
  GtkCssProvider *css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/org/contactworkbench/Workbench/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (css);
  gtk_window_set_default_icon_name (CWB_APP_ID);
  /* Before any window exists: GTK picks its renderer once, at the first. */
  cwb_app_choose_widget_renderer (gdk_display_get_default ());
}

static void
application_finalize (GObject *object)
{
  CwbAppApplication *self = CWB_APP_APPLICATION (object);
  cwb_registry_free (self->registry);
  g_free (self->scene_path);
  g_strfreev (self->sets);
  g_strfreev (self->compare);
  G_OBJECT_CLASS (cwb_app_application_parent_class)->finalize (object);
}

static void
cwb_app_application_class_init (CwbAppApplicationClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = application_finalize;
  G_APPLICATION_CLASS (klass)->activate = application_activate;
  G_APPLICATION_CLASS (klass)->startup = application_startup;
}

static void
cwb_app_application_init (CwbAppApplication *self)
{
}

CwbAppApplication *
cwb_app_application_new (CwbRegistry *registry, const CwbAppOptions *options)
{
  /* NON_UNIQUE: each run is its own process (a second run must not hand its scene to a
   * first one whose plugin folders may differ), and no session bus is needed (CI). */
  CwbAppApplication *self = g_object_new (CWB_APP_TYPE_APPLICATION, "application-id", CWB_APP_ID,
                                          "flags", G_APPLICATION_NON_UNIQUE, NULL);
  self->registry = registry;
  self->options = *options;
  self->scene_path = g_strdup (options->scene_path);
  self->sets = g_strdupv (options->sets);
  self->options.scene_path = self->scene_path;
  self->options.sets = self->sets;
  self->compare = g_strdupv (options->compare);
  self->options.compare = NULL;
  return self;
}

char **
cwb_app_application_take_compare (CwbAppApplication *self)
{
  return g_steal_pointer (&self->compare);
}

CwbRegistry *
cwb_app_application_registry (CwbAppApplication *self)
{
  return self->registry;
}

const CwbAppOptions *
cwb_app_application_options (CwbAppApplication *self)
{
  return &self->options;
}

void
cwb_app_application_set_exit_status (CwbAppApplication *self, int status)
{
  self->exit_status = status;
}

int
cwb_app_application_exit_status (CwbAppApplication *self)
{
  return self->exit_status;
}

int
cwb_app_run (CwbRegistry *registry, const CwbAppOptions *options)
{
  /* main set the locale (the user's for text, C for numbers); GTK would otherwise set the
   * user's for numbers too, and a saved scene or a CSV export would write "0,01". */
  gtk_disable_setlocale ();
  CwbAppApplication *app = cwb_app_application_new (registry, options);
  /* The command line was parsed by main: GApplication sees the program name only. */
  char *argv[] = { (char *) "contact-workbench", NULL };
  int status = g_application_run (G_APPLICATION (app), 1, argv);
  if (status == 0)
    status = app->exit_status;
  g_object_unref (app);
  return status;
}

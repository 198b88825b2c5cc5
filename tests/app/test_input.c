/* The workbench driven as a person drives it: real key presses, clicks and wheel turns
 * through the X server (XTest, under Xvfb), not calls of actions. Single-key shortcuts (space
 * plays, "." steps, c and w toggle overlays, f frames, Delete deletes the selected body, Left
 * and Right move in the history) must not act while a text field has the focus: the keys
 * are the field's (issue 19, item 1). The wheel over the Properties panel scrolls it and
 * edits nothing (item 4). */
#include <string.h>

#include <glib/gstdio.h>

#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

#include "app_test_home.h"
#include "property_editor.h"
#include "window.h"

static gboolean have_x11;

#define SKIP_WITHOUT_X11()                                                                   \
  do                                                                                         \
    {                                                                                        \
      if (!have_x11)                                                                         \
        {                                                                                    \
          g_test_skip ("needs an X11 display with XTest (run under xvfb-run)");             \
          return;                                                                            \
        }                                                                                    \
    }                                                                                        \
  while (0)

static char *
source_path (const char *relative)
{
  return g_build_filename (g_getenv ("CWB_SOURCE_DIR"), relative, NULL);
}

static CwbRegistry *
test_registry (void)
{
  CwbRegistry *registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (registry);
  cwb_registry_scan (registry);
  return registry;
}

/* Runs the main loop for about `ms` milliseconds: X events in, GTK's handlers out. */
static void
pump (int ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;
  while (g_get_monotonic_time () < end)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (1000);
    }
}

static gboolean
iterate_until (gboolean (*done) (gpointer), gpointer data, double seconds)
{
  gint64 end = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);
  while (!done (data))
    {
      if (g_get_monotonic_time () > end)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return TRUE;
}

static Display *
x_display (GtkWidget *widget)
{
  return gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));
}

/* Presses and releases one key (with Shift or Control held when asked), as a keyboard does. */
static void
press_key (GtkWidget *any, KeySym sym, gboolean shift, gboolean control)
{
  Display *dpy = x_display (any);
  KeyCode code = XKeysymToKeycode (dpy, sym);
  g_assert_cmpuint (code, !=, 0);
  KeyCode shift_code = XKeysymToKeycode (dpy, XK_Shift_L);
  KeyCode control_code = XKeysymToKeycode (dpy, XK_Control_L);
  if (shift)
    XTestFakeKeyEvent (dpy, shift_code, True, CurrentTime);
  if (control)
    XTestFakeKeyEvent (dpy, control_code, True, CurrentTime);
  XTestFakeKeyEvent (dpy, code, True, CurrentTime);
  XTestFakeKeyEvent (dpy, code, False, CurrentTime);
  if (control)
    XTestFakeKeyEvent (dpy, control_code, False, CurrentTime);
  if (shift)
    XTestFakeKeyEvent (dpy, shift_code, False, CurrentTime);
  XFlush (dpy);
  pump (30);
}

/* Types ASCII text key by key. */
static void
type_text (GtkWidget *any, const char *text)
{
  for (const char *c = text; *c != '\0'; c++)
    {
      KeySym sym = *c == ' ' ? XK_space : *c == '.' ? XK_period : (KeySym) *c;
      press_key (any, sym, FALSE, FALSE);
    }
}

/* Moves the pointer to the middle of `widget`, as a hand on the mouse does. */
static void
point_at (GtkWidget *widget)
{
  GtkNative *native = gtk_widget_get_native (widget);
  graphene_point_t local = GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0f,
                                                gtk_widget_get_height (widget) / 2.0f);
  graphene_point_t in_window;
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native), &local, &in_window));
  double sx, sy;
  gtk_native_get_surface_transform (native, &sx, &sy);
  Display *dpy = x_display (widget);
  Window xid = gdk_x11_surface_get_xid (gtk_native_get_surface (native));
  int root_x, root_y;
  Window child;
  XTranslateCoordinates (dpy, xid, DefaultRootWindow (dpy), (int) (in_window.x + sx),
                         (int) (in_window.y + sy), &root_x, &root_y, &child);
  XTestFakeMotionEvent (dpy, -1, root_x, root_y, CurrentTime);
  XFlush (dpy);
  pump (30);
}

/* Presses and releases a pointer button (1: left; 4 and 5: X11's wheel up and down). */
static void
press_button (GtkWidget *any, unsigned int button)
{
  Display *dpy = x_display (any);
  XTestFakeButtonEvent (dpy, button, True, CurrentTime);
  XTestFakeButtonEvent (dpy, button, False, CurrentTime);
  XFlush (dpy);
  pump (30);
}

/* Clicks the middle of `widget` with the first button. */
static void
click (GtkWidget *widget)
{
  point_at (widget);
  press_button (widget, 1);
  pump (30);
}

/* Brings a field of the side panel into view as a person does: its notebook tab clicked,
 * then the panel scrolled to it. */
static void
reveal (GtkWidget *widget)
{
  GtkWidget *notebook = gtk_widget_get_ancestor (widget, GTK_TYPE_NOTEBOOK);
  if (notebook != NULL)
    for (int k = 0; k < gtk_notebook_get_n_pages (GTK_NOTEBOOK (notebook)); k++)
      {
        GtkWidget *page = gtk_notebook_get_nth_page (GTK_NOTEBOOK (notebook), k);
        if (gtk_widget_is_ancestor (widget, page)
            && gtk_notebook_get_current_page (GTK_NOTEBOOK (notebook)) != k)
          click (gtk_notebook_get_tab_label (GTK_NOTEBOOK (notebook), page));
      }
  GtkWidget *scrolled = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);
  if (scrolled != NULL)
    {
      GtkWidget *content = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled));
      graphene_point_t origin = GRAPHENE_POINT_INIT (0, 0), at;
      g_assert_true (gtk_widget_compute_point (widget, content, &origin, &at));
      GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
      gtk_adjustment_set_value (v, MAX (0, at.y - 40));
      pump (60);
    }
  g_assert_true (gtk_widget_get_mapped (widget));
}

static gboolean
drawn (gpointer data)
{
  return cwb_app_viewport_frames (cwb_app_window_viewport (data)) > 0;
}

static gboolean
no_windows (gpointer data)
{
  return gtk_application_get_windows (data) == NULL;
}

typedef struct Fixture {
  CwbAppApplication *app;
  CwbAppWindow *window;
  char *dir;
} Fixture;

/* A window on a copy of `scene`, shown, drawn, with the X input focus. */
static void
fixture_open (Fixture *f, const char *scene)
{
  CwbAppOptions options = { 0 };
  f->app = cwb_app_application_new (test_registry (), &options);
  g_autoptr (GError) error = NULL;
  g_assert_true (g_application_register (G_APPLICATION (f->app), NULL, &error));
  g_assert_no_error (error);
  f->dir = g_dir_make_tmp ("cwb-input-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *from = source_path (scene);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (from, &text, NULL, NULL));
  g_autofree char *base = g_path_get_basename (scene);
  g_autofree char *path = g_build_filename (f->dir, base, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  f->window = cwb_app_window_new (f->app, path, NULL, &error);
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (f->window));
  g_assert_true (iterate_until (drawn, f->window, 30));
  /* No window manager under Xvfb: give the window the keyboard as one would. */
  Display *dpy = x_display (GTK_WIDGET (f->window));
  Window xid = gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (f->window)));
  XSetInputFocus (dpy, xid, RevertToParent, CurrentTime);
  XFlush (dpy);
  pump (100);
}

static void
fixture_close (Fixture *f)
{
  cwb_document_discard_autosave (cwb_app_window_document (f->window));
  cwb_app_window_close_now (f->window);
  g_assert_true (iterate_until (no_windows, f->app, 10));
  g_object_unref (f->app);
  g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (f->dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
}

static gboolean
action_state (CwbAppWindow *window, const char *action)
{
  g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (window),
                                                                 action);
  return g_variant_get_boolean (state);
}

/* What single-key shortcuts would change, taken before and after typing. */
typedef struct Observed {
  gboolean playing, cones, wireframe;
  double time;
  size_t bodies;
} Observed;

static Observed
observe (CwbAppWindow *window)
{
  g_autoptr (CwbSnapshot) s = cwb_simulation_latest (cwb_app_window_simulation (window));
  return (Observed){
    .playing = action_state (window, "play"),
    .cones = action_state (window, "overlay-cones"),
    .wireframe = action_state (window, "overlay-wireframe"),
    .time = s->time,
    .bodies = s->n_bodies,
  };
}

static void
assert_unchanged (const Observed *before, const Observed *after)
{
  g_assert_cmpint (after->playing, ==, before->playing);
  g_assert_cmpint (after->cones, ==, before->cones);
  g_assert_cmpint (after->wireframe, ==, before->wireframe);
  g_assert_cmpfloat (after->time, ==, before->time);
  g_assert_cmpuint (after->bodies, ==, before->bodies);
}

static GtkWidget *
field (CwbAppWindow *window, const char *key)
{
  GtkWidget *widget = cwb_property_editor_find (cwb_app_window_properties (window), key);
  g_assert_nonnull (widget);
  return widget;
}

/* After an edit rebuilt the panel, the keyboard is still in the field that was edited, its
 * cursor at the end with nothing selected (it had gone to the body's name, its text
 * selected: the next key replaced the name). */
static void
assert_typing_in (CwbAppWindow *window, const char *key)
{
  GtkWidget *expected = field (window, key);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  g_assert_true (focus == expected || gtk_widget_is_ancestor (focus, expected));
  int start = 0, end = 0;
  g_assert_false (gtk_editable_get_selection_bounds (GTK_EDITABLE (expected), &start, &end));
  g_assert_cmpint (gtk_editable_get_position (GTK_EDITABLE (expected)), ==,
                   (int) g_utf8_strlen (gtk_editable_get_text (GTK_EDITABLE (expected)), -1));
}

/* The report: "cow face" typed into a body's name came out "oae" (c and w toggled
 * overlays, space started the run, f moved the camera); Delete deleted the body; Left moved
 * in the history. In the field, every key is text or editing. */
static void
test_name_field_keeps_its_keys (void)
{
  SKIP_WITHOUT_X11 ();
  Fixture f = { 0 };
  fixture_open (&f, "scenes/penalty-incline.yaml");
  cwb_app_window_select_body (f.window, "box");
  pump (100);
  GtkWidget *name = field (f.window, "bodies.box.name");
  reveal (name);
  click (name);
  g_assert_true (gtk_widget_has_focus (name) || gtk_widget_is_focus (name)
                 || gtk_widget_get_focus_child (name) != NULL);
  press_key (name, XK_a, FALSE, TRUE); /* Control+A: select the old name, typed over */
  Observed before = observe (f.window);
  type_text (name, "cow face");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name)), ==, "cow face");
  /* Left moves the text cursor, not the history; Delete deletes a character, not the body. */
  int end = gtk_editable_get_position (GTK_EDITABLE (name));
  press_key (name, XK_Left, FALSE, FALSE);
  press_key (name, XK_Left, FALSE, FALSE);
  g_assert_cmpint (gtk_editable_get_position (GTK_EDITABLE (name)), ==, end - 2);
  press_key (name, XK_Delete, FALSE, FALSE);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name)), ==, "cow fae");
  Observed after = observe (f.window);
  assert_unchanged (&before, &after);
  /* Committed with Enter, the rename reaches the scene. */
  press_key (name, XK_Return, FALSE, FALSE);
  pump (200);
  g_assert_nonnull (cwb_scene_find_body (cwb_document_scene (cwb_app_window_document (f.window)),
                                         "cow fae"));
  assert_typing_in (f.window, "bodies.cow fae.name");
  fixture_close (&f);
}

/* "0.05" typed into the friction field: the "." single-stepped the world and the value
 * became 5. Typed now, the value is 0.05 and the world did not move. */
static void
test_number_field_takes_a_period (void)
{
  SKIP_WITHOUT_X11 ();
  Fixture f = { 0 };
  fixture_open (&f, "scenes/penalty-incline.yaml");
  cwb_app_window_select_body (f.window, "box");
  pump (100);
  GtkWidget *friction = field (f.window, "bodies.box.friction");
  reveal (friction);
  click (friction);
  press_key (friction, XK_a, FALSE, TRUE);
  Observed before = observe (f.window);
  type_text (friction, "0.05");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (friction)), ==, "0.05");
  Observed after = observe (f.window);
  assert_unchanged (&before, &after);
  press_key (friction, XK_Return, FALSE, FALSE);
  pump (200);
  const CwbBodyDesc *box
    = cwb_scene_find_body (cwb_document_scene (cwb_app_window_document (f.window)), "box");
  g_assert_nonnull (box);
  g_assert_cmpfloat (box->friction, ==, 0.05);
  assert_typing_in (f.window, "bodies.box.friction");
  fixture_close (&f);
}

/* Where no text field has the focus (the view), the same keys are shortcuts: the fix must
 * not take them away. */
static void
test_view_keeps_its_shortcuts (void)
{
  SKIP_WITHOUT_X11 ();
  Fixture f = { 0 };
  fixture_open (&f, "scenes/penalty-incline.yaml");
  GtkWidget *view = GTK_WIDGET (cwb_app_window_viewport (f.window));
  click (view);
  Observed before = observe (f.window);
  press_key (view, XK_c, FALSE, FALSE);
  press_key (view, XK_w, FALSE, FALSE);
  press_key (view, XK_period, FALSE, FALSE);
  cwb_simulation_wait_idle (cwb_app_window_simulation (f.window));
  pump (200);
  Observed after = observe (f.window);
  g_assert_cmpint (after.cones, ==, !before.cones);
  g_assert_cmpint (after.wireframe, ==, !before.wireframe);
  g_assert_cmpfloat (after.time, >, before.time);
  fixture_close (&f);
}

static const CwbSnapshotBody *
snapshot_body (const CwbSnapshot *s, const char *name)
{
  for (size_t b = 0; b < s->n_bodies; b++)
    if (strcmp (s->bodies[b].name, name) == 0)
      return &s->bodies[b];
  return NULL;
}

/* Renaming a body during a run sent it back to its start pose (a chain's link jumped and the
 * chain tore): the world was rebuilt and its state carried by name. Stepped from the view
 * with ".", then renamed by typing, the box goes on from where it was, bit for bit. */
static void
test_rename_keeps_the_motion (void)
{
  SKIP_WITHOUT_X11 ();
  Fixture f = { 0 };
  fixture_open (&f, "scenes/penalty-incline.yaml");
  GtkWidget *view = GTK_WIDGET (cwb_app_window_viewport (f.window));
  click (view);
  for (int k = 0; k < 10; k++)
    press_key (view, XK_period, FALSE, FALSE);
  CwbSimulation *sim = cwb_app_window_simulation (f.window);
  cwb_simulation_wait_idle (sim);
  pump (100);
  g_autoptr (CwbSnapshot) before = cwb_simulation_latest (sim);
  g_assert_cmpuint (before->steps, ==, 10);
  const CwbSnapshotBody *box = snapshot_body (before, "box");
  g_assert_nonnull (box);
  /* It moved: a restart would show. */
  g_assert_cmpfloat (box->summary.linear_velocity[0] * box->summary.linear_velocity[0]
                       + box->summary.linear_velocity[2] * box->summary.linear_velocity[2],
                     >, 0);

  cwb_app_window_select_body (f.window, "box");
  pump (100);
  GtkWidget *name = field (f.window, "bodies.box.name");
  reveal (name);
  click (name);
  press_key (name, XK_a, FALSE, TRUE);
  type_text (name, "sled");
  press_key (name, XK_Return, FALSE, FALSE);
  cwb_simulation_wait_idle (sim);
  pump (200);
  g_autoptr (CwbSnapshot) after = cwb_simulation_latest (sim);
  const CwbSnapshotBody *sled = snapshot_body (after, "sled");
  g_assert_nonnull (sled);
  g_assert_cmpfloat (after->time, ==, before->time);
  g_assert_cmpmem (sled->summary.centroid, sizeof sled->summary.centroid,
                   box->summary.centroid, sizeof box->summary.centroid);
  g_assert_cmpmem (sled->summary.linear_velocity, sizeof sled->summary.linear_velocity,
                   box->summary.linear_velocity, sizeof box->summary.linear_velocity);
  g_assert_cmpmem (sled->summary.orientation, sizeof sled->summary.orientation,
                   box->summary.orientation, sizeof box->summary.orientation);
  fixture_close (&f);
}

/* The first descendant of `root` that is an actionable widget for `action`, or NULL. */
static GtkWidget *
find_actionable (GtkWidget *root, const char *action)
{
  if (GTK_IS_ACTIONABLE (root)
      && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (root)), action) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_actionable (c, action);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The play button never showed pause: after Space from the view it does, and after Space
 * again it shows play. */
static void
test_play_button_shows_pause (void)
{
  SKIP_WITHOUT_X11 ();
  Fixture f = { 0 };
  fixture_open (&f, "scenes/penalty-incline.yaml");
  GtkWidget *play = find_actionable (gtk_window_get_titlebar (GTK_WINDOW (f.window)),
                                     "win.play");
  g_assert_nonnull (play);
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (play)), ==,
                   "media-playback-start-symbolic");
  GtkWidget *view = GTK_WIDGET (cwb_app_window_viewport (f.window));
  click (view);
  press_key (view, XK_space, FALSE, FALSE);
  g_assert_true (action_state (f.window, "play"));
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (play)), ==,
                   "media-playback-pause-symbolic");
  press_key (view, XK_space, FALSE, FALSE);
  g_assert_false (action_state (f.window, "play"));
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (play)), ==,
                   "media-playback-start-symbolic");
  fixture_close (&f);
}

static gboolean
window_gone (gpointer data)
{
  return *(GtkWidget **) data == NULL;
}

/* The Plugins window ignored Escape and Ctrl+W: each closes it now. */
static void
test_plugins_window_closes_on_keys (void)
{
  SKIP_WITHOUT_X11 ();
  Fixture f = { 0 };
  fixture_open (&f, "scenes/penalty-incline.yaml");
  const struct { KeySym sym; gboolean control; } closers[] = { { XK_Escape, FALSE },
                                                                { XK_w, TRUE } };
  for (size_t k = 0; k < G_N_ELEMENTS (closers); k++)
    {
      GList *before = gtk_application_get_windows (GTK_APPLICATION (f.app));
      guint n_before = g_list_length (before);
      g_action_group_activate_action (G_ACTION_GROUP (f.app), "plugins", NULL);
      pump (200);
      GtkWidget *plugins = NULL;
      for (GList *l = gtk_application_get_windows (GTK_APPLICATION (f.app)); l != NULL;
           l = l->next)
        if (g_strcmp0 (gtk_window_get_title (l->data), "Plugins") == 0)
          plugins = l->data;
      if (plugins == NULL)
        /* Not an application window (transient, not added): found among the toplevels. */
        {
          GListModel *tops = gtk_window_get_toplevels ();
          for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
            {
              g_autoptr (GtkWindow) w = g_list_model_get_item (tops, i);
              if (g_strcmp0 (gtk_window_get_title (w), "Plugins") == 0)
                plugins = GTK_WIDGET (w);
            }
        }
      g_assert_nonnull (plugins);
      g_object_add_weak_pointer (G_OBJECT (plugins), (gpointer *) &plugins);
      Display *dpy = x_display (plugins);
      XSetInputFocus (dpy, gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (plugins))),
                      RevertToParent, CurrentTime);
      XFlush (dpy);
      pump (100);
      press_key (plugins, closers[k].sym, FALSE, closers[k].control);
      g_assert_true (iterate_until (window_gone, &plugins, 5));
      g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (f.app))),
                        ==, n_before);
    }
  fixture_close (&f);
}

/* Turns the mouse wheel by `notches` (negative: up) with the pointer over `widget`. */
static void
wheel (GtkWidget *widget, int notches)
{
  point_at (widget);
  for (int k = 0; k < ABS (notches); k++)
    press_button (widget, notches < 0 ? 4 : 5);
  pump (60);
}

/* The wheel over an integer field (a spin button: the penalty model's friction_sweeps)
 * scrolled its value (a FEM ball's resolution went from 6 to 4 and the world was rebuilt).
 * It scrolls the panel now: the value and the scene stay, the panel moves. */
static void
test_wheel_scrolls_the_panel (void)
{
  SKIP_WITHOUT_X11 ();
  Fixture f = { 0 };
  fixture_open (&f, "scenes/penalty-incline.yaml");
  cwb_app_window_select_body (f.window, "box");
  pump (100);
  GtkWidget *spin = field (f.window, "contact.friction_sweeps");
  g_assert_true (GTK_IS_SPIN_BUTTON (spin));
  reveal (spin);
  GtkScrolledWindow *panel
    = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (spin, GTK_TYPE_SCROLLED_WINDOW));
  GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (panel);
  double scrolled_before = gtk_adjustment_get_value (v);
  /* reveal leaves the field 40 px below the panel's top, so there is room upwards. */
  g_assert_cmpfloat (scrolled_before, >, 0);
  double value = gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin));
  guint64 revision = cwb_simulation_revision (cwb_app_window_simulation (f.window));
  wheel (spin, -2);
  /* The same field (an edit would have rebuilt the panel), with the same value. */
  g_assert_true (field (f.window, "contact.friction_sweeps") == spin);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, value);
  g_assert_cmpfloat (gtk_adjustment_get_value (v), <, scrolled_before);
  /* No edit: the world was not rebuilt. */
  g_assert_cmpuint (cwb_simulation_revision (cwb_app_window_simulation (f.window)), ==,
                    revision);
  fixture_close (&f);
}

int
main (int argc, char **argv)
{
  app_test_home ("cwb-test-input");
  g_test_init (&argc, &argv, NULL);
  if (gtk_init_check ())
    {
      GdkDisplay *display = gdk_display_get_default ();
      int event, error, major, minor;
      have_x11 = GDK_IS_X11_DISPLAY (display)
                 && XTestQueryExtension (gdk_x11_display_get_xdisplay (display), &event, &error,
                                         &major, &minor);
    }
  g_test_add_func ("/input/typing/name-field-keeps-its-keys", test_name_field_keeps_its_keys);
  g_test_add_func ("/input/typing/number-field-takes-a-period", test_number_field_takes_a_period);
  g_test_add_func ("/input/typing/view-keeps-its-shortcuts", test_view_keeps_its_shortcuts);
  g_test_add_func ("/input/typing/rename-keeps-the-motion", test_rename_keeps_the_motion);
  g_test_add_func ("/input/pointing/wheel-scrolls-the-panel", test_wheel_scrolls_the_panel);
  g_test_add_func ("/input/typing/play-button-shows-pause", test_play_button_shows_pause);
  g_test_add_func ("/input/typing/plugins-window-closes", test_plugins_window_closes_on_keys);
  return g_test_run ();
}

/* A/B compare in the window (issue 19, "What no peer has"): side B is the document's scene
 * with some values changed (a contact model, a solver, parameters), built from the run's
 * state when the compare starts, shown in a second view beside A's and stepped in lockstep
 * with it: play, pause, step and the history move both, neither runs more than
 * LOCKSTEP_LEAD steps ahead of the other, the cameras and overlays follow each other, B's
 * curves are drawn dashed over A's in the plots, and a line under the views reads their
 * difference (compare.h) at the last step both made. Reset starts both over; an edit that
 * rebuilds A's world ends the compare (B would no longer be A's scene with the changes). */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "window_private.h"

/* How many steps one side may run ahead of the other while playing: enough that neither
 * waits on the other at every frame (a frame of real time is 3 steps at 5 ms), few enough
 * that the two views show nearly the same moment. */
#define LOCKSTEP_LEAD 8

static GtkWidget *
side_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_widget_add_css_class (label, "cwb-compare-side");
  gtk_widget_set_halign (label, GTK_ALIGN_START);
  gtk_widget_set_valign (label, GTK_ALIGN_START);
  gtk_widget_set_margin_start (label, 8);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_set_can_target (label, FALSE);
  return label;
}

/* "A: proximity, constraint" for a snapshot's plugins. */
static char *
side_title (const char *side, const CwbSnapshot *s, char *const *changes)
{
  g_autofree char *joined = changes != NULL ? g_strjoinv ("; ", (char **) changes) : NULL;
  return g_strdup_printf ("%s: %s, %s%s%s%s", side,
                          s->contact_model != NULL ? s->contact_model : "no contact model",
                          s->solver, joined != NULL ? "  (" : "", joined != NULL ? joined : "",
                          joined != NULL ? ")" : "");
}

static GtkWidget *
side_view (GtkWidget *viewport, GtkLabel **label)
{
  GtkWidget *overlay = gtk_overlay_new ();
  gtk_widget_set_hexpand (overlay, TRUE);
  gtk_widget_set_vexpand (overlay, TRUE);
  gtk_overlay_set_child (GTK_OVERLAY (overlay), viewport);
  *label = GTK_LABEL (side_label (""));
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), GTK_WIDGET (*label));
  return overlay;
}

/* The two views side by side, with the readout under them, in place of A's view. */
static void
show_sides (CwbAppWindow *self)
{
  GtkWidget *a = GTK_WIDGET (self->viewport);
  gboolean had_focus = gtk_widget_has_focus (a);
  gtk_root_set_focus (GTK_ROOT (self), NULL);
  g_object_ref (a);
  gtk_paned_set_start_child (self->view_paned, NULL);
  GtkWidget *views = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_start_child (GTK_PANED (views), side_view (a, &self->compare_a_label));
  gtk_paned_set_end_child (GTK_PANED (views), side_view (GTK_WIDGET (self->compare_viewport),
                                                          &self->compare_b_label));
  gtk_paned_set_shrink_start_child (GTK_PANED (views), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (views), FALSE);
  g_object_unref (a);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (box), views);
  self->compare_readout = GTK_LABEL (gtk_label_new ("B against A: no step yet"));
  gtk_label_set_xalign (self->compare_readout, 0);
  gtk_label_set_wrap (self->compare_readout, TRUE);
  gtk_widget_set_margin_start (GTK_WIDGET (self->compare_readout), 8);
  gtk_widget_set_margin_end (GTK_WIDGET (self->compare_readout), 8);
  gtk_widget_set_margin_top (GTK_WIDGET (self->compare_readout), 2);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->compare_readout), 2);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->compare_readout));
  gtk_paned_set_start_child (self->view_paned, box);
  if (had_focus)
    gtk_widget_grab_focus (a);
  /* Half the width each, once the pane has its size. */
  int width = gtk_widget_get_width (GTK_WIDGET (self->view_paned));
  gtk_paned_set_position (GTK_PANED (views), width > 0 ? width / 2 : 500);
}

/* Back to A's view alone. */
static void
hide_sides (CwbAppWindow *self)
{
  GtkWidget *a = GTK_WIDGET (self->viewport);
  /* The panes keep a pointer to the child that had the focus: let go of it before the
   * views leave them, and give it back to A's view after. */
  gboolean had_focus = gtk_widget_has_focus (a)
                       || gtk_widget_has_focus (GTK_WIDGET (self->compare_viewport));
  gtk_root_set_focus (GTK_ROOT (self), NULL);
  g_object_ref (a);
  GtkWidget *overlay = gtk_widget_get_parent (a);
  gtk_overlay_set_child (GTK_OVERLAY (overlay), NULL);
  gtk_paned_set_start_child (self->view_paned, a);
  g_object_unref (a);
  if (had_focus)
    gtk_widget_grab_focus (a);
  self->compare_readout = NULL;
  self->compare_a_label = self->compare_b_label = NULL;
}

static gboolean
carry_into (CwbWorld *world, gpointer data, GError **error)
{
  cwb_world_carry_state (data, world, NULL, NULL);
  return TRUE;
}

static void
set_compare_actions (CwbAppWindow *self)
{
  GAction *end = g_action_map_lookup_action (G_ACTION_MAP (self), "compare-end");
  if (end != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (end), self->compare != NULL);
}

gboolean
cwb_app_window_compare (CwbAppWindow *self, char *const *changes, GError **error)
{
  g_return_val_if_fail (CWB_APP_IS_WINDOW (self), FALSE);
  if (cwb_app_window_busy (self, error))
    return FALSE;
  g_autoptr (CwbScene) scene = cwb_scene_copy (cwb_document_scene (self->document));
  if (!cwb_scene_apply_sets (scene, changes, error))
    return FALSE;
  g_action_group_change_action_state (G_ACTION_GROUP (self), "play",
                                      g_variant_new_boolean (FALSE));
  cwb_simulation_pause (self->simulation);
  cwb_app_window_end_compare (self);
  /* B's world builds off the UI thread (a heavy FEM body takes seconds); the compare starts
   * when it is built. */
  return cwb_app_window_build_compare (self, g_steal_pointer (&scene), changes, error);
}

gboolean
cwb_app_window_compare_built (CwbAppWindow *self, CwbWorld *world, CwbScene *scene,
                              char *const *changes, GError **error)
{
  g_autoptr (CwbWorld) owned_world = world;
  g_autoptr (CwbScene) owned_scene = scene;
  /* B starts from A's newest state (its carried bodies; a changed body from its
   * description). */
  if (!cwb_simulation_edit (self->simulation, carry_into, owned_world, error))
    return FALSE;
  CwbSimulation *b = cwb_simulation_new (g_steal_pointer (&owned_world), NULL);
  self->compare = b;
  self->compare_scene = g_steal_pointer (&owned_scene);
  self->compare_changes = g_strdupv ((char **) changes);
  self->compare_stats_cursor = 0;
  self->compare_readout_step = G_MAXUINT64;
  g_autoptr (CwbSnapshot) a = cwb_simulation_latest (self->simulation);
  self->compare_world_serial = a->world_serial;
  self->compare_viewport = CWB_APP_VIEWPORT (cwb_app_viewport_new ());
  *cwb_app_viewport_overlays (self->compare_viewport) = *cwb_app_viewport_overlays (self->viewport);
  cwb_app_viewport_copy_looks (self->compare_viewport, self->viewport);
  cwb_app_viewport_set_simulation (self->compare_viewport, b);
  *cwb_app_viewport_camera (self->compare_viewport) = *cwb_app_viewport_camera (self->viewport);
  self->compare_camera = *cwb_app_viewport_camera (self->viewport);
  show_sides (self);
  cwb_plot_panel_clear_compare (self->plots);
  cwb_app_window_pace (self);
  set_compare_actions (self);
  return TRUE;
}

void
cwb_app_window_end_compare (CwbAppWindow *self)
{
  g_return_if_fail (CWB_APP_IS_WINDOW (self));
  if (self->compare == NULL)
    return;
  cwb_app_viewport_set_simulation (self->compare_viewport, NULL);
  hide_sides (self);
  self->compare_viewport = NULL;
  g_clear_pointer (&self->compare, cwb_simulation_free);
  g_clear_pointer (&self->compare_scene, cwb_scene_free);
  g_clear_pointer (&self->compare_changes, g_strfreev);
  if (self->plots != NULL)
    cwb_plot_panel_clear_compare (self->plots);
  set_compare_actions (self);
}

CwbSimulation *
cwb_app_window_compare_simulation (CwbAppWindow *self)
{
  g_return_val_if_fail (CWB_APP_IS_WINDOW (self), NULL);
  return self->compare;
}

CwbAppViewport *
cwb_app_window_compare_viewport (CwbAppWindow *self)
{
  g_return_val_if_fail (CWB_APP_IS_WINDOW (self), NULL);
  return self->compare_viewport;
}

const char *
cwb_app_window_compare_readout (CwbAppWindow *self)
{
  g_return_val_if_fail (CWB_APP_IS_WINDOW (self), NULL);
  return self->compare_readout != NULL ? gtk_label_get_text (self->compare_readout) : NULL;
}

/* ---- following A: transport, lockstep, views, plots, readout ---------------------------- */

void
cwb_app_window_compare_play (CwbAppWindow *self, gboolean play)
{
  if (self->compare == NULL)
    return;
  if (play)
    cwb_simulation_play (self->compare);
  else
    {
      /* Paused, both stand at the same step: the one behind catches up. */
      cwb_simulation_pause (self->simulation);
      cwb_simulation_pause (self->compare);
      g_autoptr (CwbSnapshot) a = cwb_simulation_latest (self->simulation);
      g_autoptr (CwbSnapshot) b = cwb_simulation_latest (self->compare);
      CwbSimulation *behind = a->steps < b->steps ? self->simulation : self->compare;
      guint64 lead = a->steps < b->steps ? b->steps : a->steps;
      guint64 lag = a->steps < b->steps ? a->steps : b->steps;
      for (guint64 k = lag; k < lead; k++)
        cwb_simulation_step (behind);
      cwb_simulation_set_stop_at (self->simulation, 0);
      cwb_simulation_set_stop_at (self->compare, 0);
    }
}

void
cwb_app_window_compare_step (CwbAppWindow *self, int n)
{
  if (self->compare == NULL)
    return;
  cwb_simulation_pause (self->compare);
  for (int k = 0; k < n; k++)
    cwb_simulation_step (self->compare);
}

/* The history index of B's entry at `steps` steps, or -1 when B keeps none. */
static gssize
compare_index_at (CwbSimulation *b, guint64 steps)
{
  size_t len = cwb_simulation_history_len (b);
  if (len == 0)
    return -1;
  g_autoptr (CwbSnapshot) newest = cwb_simulation_history_get (b, len - 1);
  if (newest->steps < steps || newest->steps - steps >= len)
    return -1;
  size_t index = len - 1 - (size_t) (newest->steps - steps);
  g_autoptr (CwbSnapshot) entry = cwb_simulation_history_get (b, index);
  return entry->steps == steps ? (gssize) index : -1;
}

void
cwb_app_window_compare_seek (CwbAppWindow *self)
{
  if (self->compare == NULL)
    return;
  g_autoptr (CwbSnapshot) a = cwb_simulation_latest (self->simulation);
  gssize index = compare_index_at (self->compare, a->steps);
  if (index >= 0)
    cwb_simulation_seek (self->compare, (size_t) index);
}

void
cwb_app_window_compare_pace (CwbAppWindow *self, gboolean realtime, double speed)
{
  if (self->compare != NULL)
    cwb_simulation_set_realtime (self->compare, realtime, speed);
}

/* Neither side more than LOCKSTEP_LEAD steps ahead of the other while the run plays. */
static void
keep_lockstep (CwbAppWindow *self, const CwbSnapshot *a, const CwbSnapshot *b)
{
  g_autoptr (GVariant) play = g_action_group_get_action_state (G_ACTION_GROUP (self), "play");
  if (!g_variant_get_boolean (play))
    return;
  guint64 target = MIN (a->steps, b->steps) + LOCKSTEP_LEAD;
  CwbSimulation *sides[2] = { self->simulation, self->compare };
  guint64 steps[2] = { a->steps, b->steps };
  for (int k = 0; k < 2; k++)
    {
      cwb_simulation_set_stop_at (sides[k], target);
      if (steps[k] < target && !cwb_simulation_is_playing (sides[k]))
        cwb_simulation_play (sides[k]);
    }
}

/* The camera one view's user moved, given to the other; the overlays follow A's. */
static void
follow_views (CwbAppWindow *self)
{
  CwbCamera *ca = cwb_app_viewport_camera (self->viewport);
  CwbCamera *cb = cwb_app_viewport_camera (self->compare_viewport);
  if (memcmp (cb, &self->compare_camera, sizeof *cb) != 0)
    *ca = *cb;
  else if (memcmp (ca, &self->compare_camera, sizeof *ca) != 0)
    *cb = *ca;
  if (memcmp (ca, &self->compare_camera, sizeof *ca) != 0)
    {
      self->compare_camera = *ca;
      cwb_app_viewport_queue_draw (self->viewport);
      cwb_app_viewport_queue_draw (self->compare_viewport);
    }
  CwbOverlayOptions *oa = cwb_app_viewport_overlays (self->viewport);
  CwbOverlayOptions *ob = cwb_app_viewport_overlays (self->compare_viewport);
  if (memcmp (oa, ob, sizeof *oa) != 0)
    {
      *ob = *oa;
      cwb_app_viewport_queue_draw (self->compare_viewport);
    }
}

/* B's steps since the last call, dashed in the plots. */
static void
follow_plots (CwbAppWindow *self)
{
  g_autoptr (GArray) stats = g_array_new (FALSE, FALSE, sizeof (CwbStepStats));
  cwb_simulation_stats_since (self->compare, &self->compare_stats_cursor, stats);
  for (guint k = 0; k < stats->len; k++)
    {
      const CwbStepStats *st = &g_array_index (stats, CwbStepStats, k);
      cwb_plot_panel_push_compare (self->plots, st);
    }
}

/* The difference at the last step both sides made, under the views. */
static void
follow_readout (CwbAppWindow *self, const CwbSnapshot *a, const CwbSnapshot *b)
{
  g_autofree char *title_a = side_title ("A", a, NULL);
  g_autofree char *title_b = side_title ("B", b, self->compare_changes);
  gtk_label_set_text (self->compare_a_label, title_a);
  gtk_label_set_text (self->compare_b_label, title_b);
  /* Measured once a common step: the frames between show the same. */
  guint64 both = MIN (a->steps, b->steps);
  if (both == self->compare_readout_step)
    return;
  g_autoptr (CwbSnapshot) a_then = NULL, b_then = NULL;
  gssize ia = compare_index_at (self->simulation, both);
  gssize ib = compare_index_at (self->compare, both);
  if (ia < 0 || ib < 0)
    return;
  a_then = cwb_simulation_history_get (self->simulation, (size_t) ia);
  b_then = cwb_simulation_history_get (self->compare, (size_t) ib);
  CwbCompareMeasure m;
  cwb_compare_snapshots (a_then, b_then, &m);
  g_autofree char *bodies
    = m.matched > 0
        ? g_strdup_printf ("bodies up to %.3g m apart (%s), turned up to %.3g\u00b0",
                           m.max_distance, a_then->bodies[m.farthest].name,
                           m.max_angle * 180 / G_PI)
        : g_strdup ("no moving body in both");
  g_autofree char *text = g_strdup_printf (
    "B against A at step %" G_GUINT64_FORMAT " (t = %.4f s): %s; kinetic energy %.4g J (A), "
    "%.4g J (B); contacts %zu (A), %zu (B)", both, a_then->time, bodies,
    m.kinetic_energy[0], m.kinetic_energy[1], m.contacts[0], m.contacts[1]);
  gtk_label_set_text (self->compare_readout, text);
  self->compare_readout_step = both;
}

/* B from its scene's start, for a reset of A (built here, on the UI thread: a reset of a
 * heavy scene waits for it). */
static CwbSimulation *
restart_side (CwbAppWindow *self, GError **error)
{
  CwbWorld *world = cwb_world_new (self->compare_scene, self->registry, error);
  return world != NULL ? cwb_simulation_new (world, NULL) : NULL;
}

gboolean
cwb_app_window_compare_follow_edit (CwbAppWindow *self, gboolean carry,
                                    const char *const *except, const char *const *renamed,
                                    GError **error)
{
  if (self->compare == NULL)
    return TRUE;
  /* B is A's edited scene with the same changes, its bodies carried (or restarted) as A's
   * were. Built here, as for a reset. */
  g_autoptr (CwbScene) scene = cwb_scene_copy (cwb_document_scene (self->document));
  if (!cwb_scene_apply_sets (scene, self->compare_changes, error))
    return FALSE;
  CwbWorld *world = cwb_world_new (scene, self->registry, error);
  if (world == NULL)
    return FALSE;
  cwb_simulation_replace_world (self->compare, world, carry, except, renamed);
  g_clear_pointer (&self->compare_scene, cwb_scene_free);
  self->compare_scene = g_steal_pointer (&scene);
  g_autoptr (CwbSnapshot) a = cwb_simulation_latest (self->simulation);
  self->compare_world_serial = a->world_serial;
  self->compare_readout_step = G_MAXUINT64;
  return TRUE;
}

/* A's world was replaced: a reset starts B over too; an edit ends the compare. */
static gboolean
follow_rebuild (CwbAppWindow *self, const CwbSnapshot *a)
{
  if (a->world_serial == self->compare_world_serial)
    return TRUE;
  g_autoptr (GError) error = NULL;
  CwbSimulation *b = a->steps == 0 ? restart_side (self, &error) : NULL;
  if (b == NULL)
    {
      g_autofree char *why = g_strdup_printf (
        "Compare ended: %s (start it again from the menu's Compare)",
        error != NULL ? error->message : "the scene was edited, so B is no longer this scene "
                                         "with its changes");
      cwb_app_window_end_compare (self);
      cwb_app_window_show_notice (self, why);
      return FALSE;
    }
  cwb_app_viewport_set_simulation (self->compare_viewport, b);
  cwb_simulation_free (self->compare);
  self->compare = b;
  self->compare_stats_cursor = 0;
  self->compare_readout_step = G_MAXUINT64;
  self->compare_world_serial = a->world_serial;
  cwb_plot_panel_clear_compare (self->plots);
  cwb_app_window_pace (self);
  return TRUE;
}

void
cwb_app_window_compare_follow (CwbAppWindow *self)
{
  if (self->compare == NULL)
    return;
  g_autoptr (CwbSnapshot) a = cwb_simulation_latest (self->simulation);
  if (!follow_rebuild (self, a))
    return;
  g_autofree char *failure = cwb_simulation_take_error (self->compare);
  if (failure != NULL)
    {
      g_autofree char *message = g_strdup_printf ("B: %s", failure);
      cwb_app_window_show_error (self, message);
    }
  g_autoptr (CwbSnapshot) b = cwb_simulation_latest (self->compare);
  keep_lockstep (self, a, b);
  follow_views (self);
  follow_plots (self);
  follow_readout (self, a, b);
}

/* ---- the Compare dialog ----------------------------------------------------------------- */

typedef struct CompareDialog {
  CwbAppWindow *window;
  GtkWindow *dialog;
  GtkDropDown *contact, *solver;
  GPtrArray *contact_names, *solver_names;   /* "" first: keep A's */
  GtkEntry *others;
  GtkLabel *error;
} CompareDialog;

static void
compare_dialog_free (CompareDialog *d)
{
  g_ptr_array_unref (d->contact_names);
  g_ptr_array_unref (d->solver_names);
  g_free (d);
}

static GtkDropDown *
plugin_chooser (CwbRegistry *registry, CwbPluginKind kind, GPtrArray *names)
{
  GtkDropDown *chooser = GTK_DROP_DOWN (gtk_drop_down_new (NULL, NULL));
  cwb_app_window_fill_chooser (chooser, names, registry, kind, "as in A");
  return chooser;
}

/* The dialog's choices as "KEY=VALUE" changes: the plugins, then each ';'-separated item of
 * the field. */
static GStrv
dialog_changes (CompareDialog *d)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  guint c = gtk_drop_down_get_selected (d->contact);
  if (c > 0 && c < d->contact_names->len)
    {
      g_autofree char *set = g_strdup_printf ("contact.model=%s",
                                              (char *) d->contact_names->pdata[c]);
      g_strv_builder_add (builder, set);
    }
  guint s = gtk_drop_down_get_selected (d->solver);
  if (s > 0 && s < d->solver_names->len)
    {
      g_autofree char *set = g_strdup_printf ("solver.name=%s",
                                              (char *) d->solver_names->pdata[s]);
      g_strv_builder_add (builder, set);
    }
  g_auto (GStrv) items = g_strsplit (gtk_editable_get_text (GTK_EDITABLE (d->others)), ";", -1);
  for (char **item = items; *item != NULL; item++)
    {
      g_strstrip (*item);
      if (**item != '\0')
        g_strv_builder_add (builder, *item);
    }
  return g_strv_builder_end (builder);
}

static void
dialog_accept (CompareDialog *d)
{
  g_auto (GStrv) changes = dialog_changes (d);
  g_autoptr (GError) error = NULL;
  if (changes[0] == NULL)
    {
      gtk_label_set_text (d->error, "Choose what B changes: a contact model, a solver, or "
                                    "values such as solver.iterations=20");
      gtk_widget_set_visible (GTK_WIDGET (d->error), TRUE);
      return;
    }
  if (!cwb_app_window_compare (d->window, changes, &error))
    {
      gtk_label_set_text (d->error, error->message);
      gtk_widget_set_visible (GTK_WIDGET (d->error), TRUE);
      return;
    }
  gtk_window_destroy (d->dialog);
}

static void
on_accept (GtkWidget *widget, gpointer data)
{
  dialog_accept (data);
}

static void
on_cancel (GtkWidget *widget, gpointer data)
{
  CompareDialog *d = data;
  gtk_window_destroy (d->dialog);
}

static gboolean
close_on_key (GtkWidget *widget, GVariant *args, gpointer data)
{
  gtk_window_destroy (GTK_WINDOW (widget));
  return TRUE;
}

static GtkWidget *
labelled (const char *text, GtkWidget *field)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_size_request (label, 110, -1);
  gtk_box_append (GTK_BOX (row), label);
  gtk_widget_set_hexpand (field, TRUE);
  gtk_box_append (GTK_BOX (row), field);
  return row;
}

void
cwb_app_window_open_compare_dialog (CwbAppWindow *self)
{
  CompareDialog *d = g_new0 (CompareDialog, 1);
  d->window = self;
  d->contact_names = g_ptr_array_new_with_free_func (g_free);
  d->solver_names = g_ptr_array_new_with_free_func (g_free);
  d->dialog = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_title (d->dialog, "Compare");
  gtk_window_set_transient_for (d->dialog, GTK_WINDOW (self));
  gtk_window_set_modal (d->dialog, TRUE);
  gtk_window_set_default_size (d->dialog, 520, -1);
  g_object_set_data_full (G_OBJECT (d->dialog), "cwb-compare-dialog", d,
                          (GDestroyNotify) compare_dialog_free);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  gtk_widget_set_margin_start (box, 16);
  gtk_widget_set_margin_end (box, 16);
  gtk_widget_set_margin_top (box, 16);
  gtk_widget_set_margin_bottom (box, 16);
  GtkWidget *intro = gtk_label_new (
    "B runs beside this scene (A), from its current state, stepped in lockstep with it: the "
    "same scene with these changes.");
  gtk_label_set_wrap (GTK_LABEL (intro), TRUE);
  gtk_label_set_xalign (GTK_LABEL (intro), 0);
  gtk_box_append (GTK_BOX (box), intro);
  d->contact = plugin_chooser (self->registry, CWB_PLUGIN_CONTACT_MODEL, d->contact_names);
  gtk_widget_set_tooltip_text (GTK_WIDGET (d->contact), "B's contact model");
  gtk_box_append (GTK_BOX (box), labelled ("Contact model", GTK_WIDGET (d->contact)));
  d->solver = plugin_chooser (self->registry, CWB_PLUGIN_SOLVER, d->solver_names);
  gtk_widget_set_tooltip_text (GTK_WIDGET (d->solver), "B's solver");
  gtk_box_append (GTK_BOX (box), labelled ("Solver", GTK_WIDGET (d->solver)));
  d->others = GTK_ENTRY (gtk_entry_new ());
  gtk_entry_set_placeholder_text (d->others, "e.g. solver.iterations=20; bodies.ball.friction=0.1");
  gtk_widget_set_tooltip_text (GTK_WIDGET (d->others),
                               "B's other changes: KEY=VALUE as --set takes them, ';' between");
  gtk_box_append (GTK_BOX (box), labelled ("Other changes", GTK_WIDGET (d->others)));
  g_signal_connect (d->others, "activate", G_CALLBACK (on_accept), d);
  d->error = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (d->error, TRUE);
  gtk_label_set_xalign (d->error, 0);
  gtk_widget_add_css_class (GTK_WIDGET (d->error), "error");
  gtk_widget_set_visible (GTK_WIDGET (d->error), FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (d->error));

  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  GtkWidget *cancel = gtk_button_new_with_mnemonic ("_Cancel");
  g_signal_connect (cancel, "clicked", G_CALLBACK (on_cancel), d);
  GtkWidget *accept = gtk_button_new_with_mnemonic ("C_ompare");
  gtk_widget_add_css_class (accept, "suggested-action");
  g_signal_connect (accept, "clicked", G_CALLBACK (on_accept), d);
  gtk_box_append (GTK_BOX (buttons), cancel);
  gtk_box_append (GTK_BOX (buttons), accept);
  gtk_box_append (GTK_BOX (box), buttons);
  gtk_window_set_child (d->dialog, box);
  gtk_window_set_default_widget (d->dialog, accept);
  /* Escape and Ctrl+W close it, as every other window of the workbench. */
  GtkEventController *keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (
    GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("Escape|<Control>w"),
                      gtk_callback_action_new (close_on_key, NULL, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (d->dialog), keys);
  gtk_window_present (d->dialog);
  gtk_widget_grab_focus (GTK_WIDGET (d->others));
}

/* The main window (window.h): layout, actions, and keeping the document and the running
 * world in step. */
#include <math.h>

#include <cwb/vecmath.h>

#include "plugins_window.h"
#include "widget_renderer.h"
#include "recorder.h"
#include "picking.h"
#include "window_private.h"

/* Unsaved changes are written to the autosave file this often. */
#define AUTOSAVE_INTERVAL_S 30
/* A duplicated body appears this far along x from the original, so both stay visible. */
#define DUPLICATE_OFFSET_M 0.3
/* The most steps one click of Step takes. */
#define STEPS_PER_CLICK_MAX 100000

G_DEFINE_FINAL_TYPE (CwbAppWindow, cwb_app_window, GTK_TYPE_APPLICATION_WINDOW)

void
cwb_app_window_show_error (CwbAppWindow *self, const char *message)
{
  g_free (self->last_error);
  self->last_error = g_strdup (message);
  g_message ("%s", message);
  gtk_label_set_text (self->error_label, message);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
}

void
cwb_app_window_hide_error (CwbAppWindow *self)
{
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
}

/* ---- keeping the world in step with the document ------------------------------------- */

/* What takes an edit of the document back when the world cannot follow it: an undo when it
 * added a step (an edit that changed nothing adds none). */
static CwbAppRevert
revert_edit (CwbAppWindow *self, guint64 revision_before)
{
  return cwb_document_revision (self->document) != revision_before ? CWB_APP_REVERT_UNDO
                                                                  : CWB_APP_REVERT_NONE;
}

/* Rebuilds after an edit of the document (revision_before: the revision before it), the
 * bodies going on except those named in `except`. */
static gboolean
rebuild_after_edit (CwbAppWindow *self, guint64 revision_before, const char *const *except,
                    const char *select, GError **error)
{
  CwbAppRebuild how = { .carry = TRUE, .except = except,
                        .revert = revert_edit (self, revision_before), .select = select };
  return cwb_app_window_rebuild (self, &how, error);
}

/* The same after a rename: the body goes on under its new name. */
static gboolean
rebuild_after_rename (CwbAppWindow *self, guint64 revision_before, const char *old_name,
                      const char *new_name, GError **error)
{
  const char *const renamed[] = { old_name, new_name, NULL };
  CwbAppRebuild how = { .carry = TRUE, .renamed = renamed,
                        .revert = revert_edit (self, revision_before) };
  return cwb_app_window_rebuild (self, &how, error);
}

static gboolean
snapshot_has_body (const CwbSnapshot *s, const char *name)
{
  for (size_t b = 0; b < s->n_bodies; b++)
    if (strcmp (s->bodies[b].name, name) == 0)
      return TRUE;
  return FALSE;
}

/* The bodies the document's scene names differently from the world at the same place (an
 * undone or redone rename), in pairs old then new, NULL-terminated; they carry their state
 * and keep their look and selection as a rename in the panel does. */
static GStrv
renames_from_world (CwbAppWindow *self)
{
  const CwbScene *scene = cwb_document_scene (self->document);
  g_autoptr (CwbSnapshot) s = cwb_simulation_latest (self->simulation);
  g_autoptr (GStrvBuilder) pairs = g_strv_builder_new ();
  for (size_t i = 0; s != NULL && i < MIN (s->n_bodies, scene->bodies->len); i++)
    {
      const char *was = s->bodies[i].name;
      const char *now = ((const CwbBodyDesc *) scene->bodies->pdata[i])->name;
      if (strcmp (was, now) == 0 || cwb_scene_find_body (scene, was) != NULL
          || snapshot_has_body (s, now))
        continue;
      g_strv_builder_add (pairs, was);
      g_strv_builder_add (pairs, now);
      cwb_app_viewport_rename_body (self->viewport, was, now);
      if (g_strcmp0 (self->selected_body, was) == 0)
        {
          g_free (self->selected_body);
          self->selected_body = g_strdup (now);
        }
    }
  return g_strv_builder_end (pairs);
}

void
cwb_app_window_follow_document (CwbAppWindow *self, CwbAppRevert revert)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) renamed = renames_from_world (self);
  CwbAppRebuild how = { .carry = TRUE, .revert = revert,
                        .renamed = (const char *const *) renamed };
  if (!cwb_app_window_rebuild (self, &how, &error))
    cwb_app_window_show_error (self, error->message);
  cwb_app_window_refresh_document (self);
}

/* Which body a --set key names, and its field ("bodies.box.position" -> box, position). */
static gboolean
body_key (const CwbScene *scene, const char *key, char **name, const char **field)
{
  if (!g_str_has_prefix (key, "bodies."))
    return FALSE;
  const char *rest = key + strlen ("bodies.");
  /* Body names may hold dots: match the longest scene body name that prefixes the rest. */
  size_t best = 0;
  for (guint i = 0; i < scene->bodies->len; i++)
    {
      const char *n = ((CwbBodyDesc *) scene->bodies->pdata[i])->name;
      size_t len = strlen (n);
      if (len > best && strncmp (rest, n, len) == 0 && rest[len] == '.')
        best = len;
    }
  if (best == 0)
    return FALSE;
  *name = g_strndup (rest, best);
  *field = rest + best + 1;
  return TRUE;
}


/* A rectangle's shape.size_x or shape.size_y (the panel's fields for the two entries of its
 * size, window_panels.c) as the scene's shape.size [w, h], the other entry kept. */
static gboolean
set_rectangle_extent (CwbAppWindow *self, const CwbBodyDesc *body, int axis, const char *key,
                      const char *value, GError **error)
{
  g_autoptr (CwbSceneNode) node = cwb_scene_node_parse (value, NULL, error);
  double size[2] = { body->shape.size[0], body->shape.size[1] };
  if (node == NULL || !cwb_scene_node_get_double (node, key, &size[axis], error))
    return FALSE;
  char w[G_ASCII_DTOSTR_BUF_SIZE], h[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *text = g_strdup_printf ("[%s, %s]", cwb_scene_format_double (w, size[0]),
                                           cwb_scene_format_double (h, size[1]));
  g_autofree char *size_key = g_strconcat ("bodies.", body->name, ".shape.size", NULL);
  return cwb_document_set (self->document, size_key, text, error);
}

static gboolean
apply_body_edit (CwbAppWindow *self, const char *name, const char *field, const char *key,
                 const char *value, GError **error)
{
  const CwbBodyDesc *body = cwb_scene_find_body (cwb_document_scene (self->document), name);
  guint64 revision = cwb_document_revision (self->document);
  if (strcmp (field, "name") == 0)
    {
      if (!cwb_document_rename_body (self->document, name, value, error))
        return FALSE;
      if (g_strcmp0 (self->selected_body, name) == 0)
        {
          g_free (self->selected_body);
          self->selected_body = g_strdup (value);
        }
      cwb_app_viewport_rename_body (self->viewport, name, value);
      /* The renamed body goes on from where it was (it had jumped back to its description,
       * tearing a chain it was linked in). */
      return rebuild_after_rename (self, revision, name, value, error);
    }
  if (strcmp (field, "rotation") == 0)
    {
      g_autoptr (CwbSceneNode) node = cwb_scene_node_parse (value, NULL, error);
      double degrees[3], q[4];
      if (node == NULL || !cwb_scene_node_get_vec (node, key, degrees, 3, error))
        return FALSE;
      cwb_quat_from_euler_deg (q, degrees);
      if (!cwb_document_set_body_pose (self->document, name, body->position, q, error))
        return FALSE;
    }
  else if (body->shape.kind == CWB_SHAPE_RECTANGLE
           && (strcmp (field, "shape.size_x") == 0 || strcmp (field, "shape.size_y") == 0))
    {
      if (!set_rectangle_extent (self, body, field[strlen ("shape.size_")] == 'y', key, value,
                                 error))
        return FALSE;
    }
  else if (!cwb_document_set (self->document, key, value, error))
    return FALSE;
  /* A pose or velocity edit restarts that body from its new description; any other field
   * rebuilds it with its state carried over when its model keeps the same DOFs. */
  static const char *const restarting[] = {
    "position", "orientation", "rotation", "linear_velocity", "angular_velocity", "model",
    "shape",
  };
  gboolean restart = FALSE;
  for (size_t k = 0; k < G_N_ELEMENTS (restarting); k++)
    restart |= g_str_has_prefix (field, restarting[k]);
  const char *except[] = { name, NULL };
  return rebuild_after_edit (self, revision, restart ? except : NULL, NULL, error);
}

gboolean
cwb_app_window_apply (CwbAppWindow *self, const char *key, const char *value, GError **error)
{
  if (cwb_app_window_busy (self, error))
    return FALSE;
  const CwbScene *scene = cwb_document_scene (self->document);
  guint64 revision = cwb_document_revision (self->document);
  gboolean ok;
  g_autofree char *body = NULL;
  const char *field = NULL;
  /* The document first, then the world; when the world refuses, the job takes the document's
   * edit back (window_jobs.c). */
  if (g_str_has_prefix (key, "contact.") || g_str_has_prefix (key, "solver."))
    ok = cwb_document_set (self->document, key, value, error)
         && cwb_app_window_edit_plugin (self,
                                        g_str_has_prefix (key, "contact.")
                                          ? CWB_PLUGIN_CONTACT_MODEL : CWB_PLUGIN_SOLVER,
                                        NULL, TRUE, revert_edit (self, revision), error);
  else if (body_key (scene, key, &body, &field))
    ok = apply_body_edit (self, body, field, key, value, error);
  else
    ok = cwb_document_set (self->document, key, value, error)
         && rebuild_after_edit (self, revision, NULL, NULL, error);
  cwb_app_window_refresh_document (self);
  return ok;
}

/* The view's settings (overlay scales, x-ray, section): applied to the viewport, not to the
 * scene. The editor has already checked the value against the section's schema. */
static gboolean
apply_view_setting (CwbAppWindow *self, const char *key, const char *value)
{
  if (!g_str_has_prefix (key, "view."))
    return FALSE;
  g_autoptr (GError) error = NULL;
  if (!cwb_render_view_set (cwb_app_viewport_overlays (self->viewport), key + strlen ("view."),
                            value, &error))
    cwb_app_window_show_error (self, error->message);
  cwb_app_viewport_queue_draw (self->viewport);
  return TRUE;
}

static void
property_edited (CwbPropertyEditor *editor, const char *key, const char *value,
                 CwbAppWindow *self)
{
  if (apply_view_setting (self, key, value))
    return;
  g_autoptr (GError) error = NULL;
  if (cwb_app_window_apply (self, key, value, &error))
    cwb_app_window_hide_error (self);
  else
    cwb_app_window_show_error (self, error->message);
}

/* ---- transport ------------------------------------------------------------------------ */

static void
set_play_state (CwbAppWindow *self, gboolean playing)
{
  GAction *play = g_action_map_lookup_action (G_ACTION_MAP (self), "play");
  g_simple_action_set_state (G_SIMPLE_ACTION (play), g_variant_new_boolean (playing));
}

static void
play_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  CwbAppWindow *self = data;
  if (g_variant_get_boolean (state))
    cwb_app_window_end_phases (self);
  if (g_variant_get_boolean (state))
    cwb_simulation_play (self->simulation);
  else
    cwb_simulation_pause (self->simulation);
  g_simple_action_set_state (action, state);
  cwb_app_window_compare_play (self, g_variant_get_boolean (state));
}

static void
step_phase_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  cwb_app_window_step_phase (data);
}

static void
step_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  cwb_app_window_end_phases (self);
  set_play_state (self, FALSE);
  cwb_simulation_pause (self->simulation);
  /* As many steps as the field beside the button says (a lecture's "step N"). */
  int n = self->steps_per_click != NULL
            ? gtk_spin_button_get_value_as_int (self->steps_per_click) : 1;
  for (int k = 0; k < MAX (n, 1); k++)
    cwb_simulation_step (self->simulation);
  cwb_app_window_compare_step (self, MAX (n, 1));
}

static void
reset_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  cwb_app_window_end_phases (self);
  g_autoptr (GError) error = NULL;
  CwbAppRebuild how = { .restart = TRUE };
  if (!cwb_app_window_rebuild (self, &how, &error))
    cwb_app_window_show_error (self, error->message);
}

/* The number a menu choice stands for ("0.25", "30"), or 0 when it is not a positive one. */
static double
positive_choice (GVariant *value)
{
  double x = g_ascii_strtod (g_variant_get_string (value, NULL), NULL);
  return x > 0 ? x : 0;
}

/* Real time on or off, at the speed menu's choice (the "speed" action's state). */
void
cwb_app_window_pace (CwbAppWindow *self)
{
  g_autoptr (GVariant) realtime = g_action_group_get_action_state (G_ACTION_GROUP (self),
                                                                    "realtime");
  g_autoptr (GVariant) speed = g_action_group_get_action_state (G_ACTION_GROUP (self), "speed");
  cwb_simulation_set_realtime (self->simulation, g_variant_get_boolean (realtime),
                               positive_choice (speed));
  cwb_app_window_compare_pace (self, g_variant_get_boolean (realtime), positive_choice (speed));
}

static void
realtime_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  g_simple_action_set_state (action, state);
  cwb_app_window_pace (data);
}

static void
history_move (CwbAppWindow *self, int direction)
{
  size_t len = cwb_simulation_history_len (self->simulation);
  gssize at = cwb_simulation_history_position (self->simulation);
  size_t current = at >= 0 ? (size_t) at : len - 1;
  cwb_app_window_end_phases (self);
  if ((direction < 0 && current == 0) || (direction > 0 && current + 1 >= len))
    return;
  set_play_state (self, FALSE);
  cwb_simulation_seek (self->simulation, direction < 0 ? current - 1 : current + 1);
  cwb_app_window_compare_seek (self);
}

static void
history_back_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  history_move (data, -1);
}

static void
history_forward_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  history_move (data, +1);
}

/* The speed of the real-time pacing ("0.1" .. "2": simulated seconds per wall second), from
 * the header bar's speed menu; slow motion for a lecture. */
static void
speed_changed (GSimpleAction *action, GVariant *value, gpointer data)
{
  CwbAppWindow *self = data;
  double speed = positive_choice (value);
  if (speed == 0)
    return;
  g_simple_action_set_state (action, value);
  cwb_app_window_pace (self);
  if (self->speed_button != NULL)
    {
      g_autofree char *label = g_strdup_printf ("%g\u00d7", speed);
      gtk_menu_button_set_label (self->speed_button, label);
    }
}

/* ---- plugins -------------------------------------------------------------------------- */

static void
swap_plugin (CwbAppWindow *self, CwbPluginKind kind, const char *name)
{
  g_autoptr (GError) error = NULL;
  /* The world first: a plugin that refuses the scene leaves the previous one in place, and
   * the document is only changed once the swap took (window_jobs.c). */
  if (!cwb_app_window_edit_plugin (self, kind, name, FALSE, CWB_APP_REVERT_NONE, &error))
    cwb_app_window_show_error (self, error->message);
}

static void
contact_model_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  const char *name = g_variant_get_string (parameter, NULL);
  swap_plugin (data, CWB_PLUGIN_CONTACT_MODEL, name[0] != '\0' ? name : NULL);
}

static void
solver_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  swap_plugin (data, CWB_PLUGIN_SOLVER, g_variant_get_string (parameter, NULL));
}

static void
dismiss_error_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  cwb_app_window_hide_error (data);
}

/* The mouse spring's stiffness, chosen in the View menu as its frequency in Hz ("1", "3",
 * "10", "30"): used from the next ctrl+drag. */
static void
grab_frequency_changed (GSimpleAction *action, GVariant *value, gpointer data)
{
  CwbAppWindow *self = data;
  double hz = positive_choice (value);
  if (hz == 0)
    return;
  cwb_app_viewport_set_grab_frequency (self->viewport, hz);
  g_simple_action_set_state (action, value);
}

/* ---- undo ----------------------------------------------------------------------------- */

static void
undo_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  g_autoptr (GError) error = NULL;
  if (!cwb_document_can_undo (self->document))
    return;
  if (!cwb_document_undo (self->document, &error))
    {
      cwb_app_window_show_error (self, error->message);
      return;
    }
  cwb_app_window_follow_document (self, CWB_APP_REVERT_REDO);
}

static void
redo_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  g_autoptr (GError) error = NULL;
  if (!cwb_document_can_redo (self->document))
    return;
  if (!cwb_document_redo (self->document, &error))
    {
      cwb_app_window_show_error (self, error->message);
      return;
    }
  cwb_app_window_follow_document (self, CWB_APP_REVERT_UNDO);
}

/* ---- bodies --------------------------------------------------------------------------- */

void
cwb_app_window_add_body (CwbAppWindow *self, CwbBodyDesc *body)
{
  g_autoptr (GError) error = NULL;
  if (cwb_app_window_busy (self, &error))
    {
      cwb_scene_body_free (body);
      cwb_app_window_show_error (self, error->message);
      return;
    }
  guint64 revision = cwb_document_revision (self->document);
  const char *name = cwb_document_add_body (self->document, body, &error);
  if (name == NULL || !rebuild_after_edit (self, revision, NULL, name, &error))
    cwb_app_window_show_error (self, error->message);
  cwb_app_window_refresh_document (self);
}

/* Where a new body of extent `size` goes: at the centre of the view (the camera's target),
 * raised in steps of its size until its bounding box meets no body's, so it shows where the
 * user looks and starts free of every other body and of the ground. */
static void
free_spot_in_view (CwbAppWindow *self, double size, double position[3])
{
  cwb_v3_copy (position, cwb_app_viewport_camera (self->viewport)->target);
  CwbSnapshot *s = cwb_app_viewport_snapshot (self->viewport);
  if (s == NULL)
    return;
  for (int tries = 0; tries < 1000; tries++)
    {
      gboolean overlaps = FALSE;
      for (size_t b = 0; b < s->n_bodies && !overlaps; b++)
        {
          double lo[3], hi[3];
          if (!cwb_snapshot_body_bounds (&s->bodies[b], lo, hi))
            continue;
          overlaps = TRUE;
          for (int k = 0; k < 3; k++)
            overlaps = overlaps && position[k] + size / 2 > lo[k] && position[k] - size / 2 < hi[k];
        }
      if (!overlaps)
        return;
      position[2] += size;
    }
}

static void
add_body_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  const char *kind = g_variant_get_string (parameter, NULL);
  static const struct { const char *name; CwbShapeKind kind; } shapes[] = {
    { "box", CWB_SHAPE_BOX }, { "sphere", CWB_SHAPE_SPHERE }, { "cylinder", CWB_SHAPE_CYLINDER },
    { "capsule", CWB_SHAPE_CAPSULE }, { "torus", CWB_SHAPE_TORUS },
    { "rectangle", CWB_SHAPE_RECTANGLE },
  };
  CwbBodyDesc *body = cwb_scene_body_new ();
  for (size_t k = 0; k < G_N_ELEMENTS (shapes); k++)
    if (strcmp (kind, shapes[k].name) == 0)
      body->shape.kind = shapes[k].kind;
  /* The size of the scene's bodies (the median moving one's; 0.2 m, a size a hand holds, in
   * a scene without one), in the middle of the view, clear of the others. */
  CwbSnapshot *s = cwb_app_viewport_snapshot (self->viewport);
  double size = s != NULL ? cwb_snapshot_median_moving_size (s) : 0;
  if (!(size > 0))
    size = 0.2;
  cwb_v3_set (body->shape.size, size, size, size);
  body->shape.radius = size / 2;
  body->shape.height = size;
  body->shape.major_radius = 0.375 * size;   /* outer diameter: size */
  body->shape.minor_radius = 0.125 * size;
  body->shape.resolution = 24;
  if (body->shape.kind == CWB_SHAPE_RECTANGLE)
    {
      /* A size x size sheet on the format's default grid. It is added fixed: the rigid
       * model, every new body's, gives a free body mass from a closed surface only, and an
       * open rectangle has none (a cloth model moves it). */
      body->shape.size[2] = 0;
      body->shape.resolution = 16;
      body->fixed = TRUE;
    }
  free_spot_in_view (self, size, body->position);
  cwb_app_window_add_body (self, body);
}

static void
delete_body_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  if (self->selected_body == NULL)
    return;
  g_autoptr (GError) error = NULL;
  guint64 revision = cwb_document_revision (self->document);
  if (!cwb_document_remove_body (self->document, self->selected_body, &error)
      || !rebuild_after_edit (self, revision, NULL, NULL, &error))
    cwb_app_window_show_error (self, error->message);
  g_clear_pointer (&self->selected_body, g_free);
  cwb_app_viewport_select (self->viewport, -1, -1);
  cwb_app_window_refresh_document (self);
}

static void
duplicate_body_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  if (self->selected_body == NULL)
    return;
  g_autoptr (GError) error = NULL;
  const double offset[3] = { DUPLICATE_OFFSET_M, 0, 0 };
  guint64 revision = cwb_document_revision (self->document);
  const char *name = cwb_document_duplicate_body (self->document, self->selected_body, offset,
                                                  &error);
  if (name == NULL || !rebuild_after_edit (self, revision, NULL, name, &error))
    cwb_app_window_show_error (self, error->message);
  cwb_app_window_refresh_document (self);
}

/* How far a body moved by `drag` and turned by `turn` about its centre of mass must rise so
 * that none of its points ends below the top face of a ground (a fixed `ground` shape: a
 * slab whose top face is its local z = 0, perhaps tilted into an incline) over whose
 * footprint it lies: at a low camera angle a drag in the view plane runs steeply down, and
 * a body pushed through the ground falls forever. 0 when it stays above. */
static double
lift_above_ground (const CwbScene *scene, const CwbSnapshot *s, size_t moved,
                   const double drag[3], const double turn[4])
{
  const CwbSnapshotBody *b = &s->bodies[moved];
  double lift = 0;
  for (size_t g = 0; g < s->n_bodies; g++)
    {
      const CwbBodyDesc *ground = cwb_scene_find_body (scene, s->bodies[g].name);
      if (g == moved || ground == NULL || ground->shape.kind != CWB_SHAPE_GROUND)
        continue;
      const double *q = ground->orientation, z_axis[3] = { 0, 0, 1 };
      const double inverse[4] = { q[0], -q[1], -q[2], -q[3] };
      double up[3];
      cwb_quat_rotate (up, ground->orientation, z_axis);
      if (up[2] <= 1e-6)
        continue;   /* a wall or a ceiling: rising does not take a body out of it */
      for (size_t k = 0; k < b->n_points; k++)
        {
          double arm[3], p[3], local[3];
          cwb_v3_sub (arm, &b->positions[3 * k], b->summary.centroid);
          cwb_quat_rotate (p, turn, arm);
          cwb_v3_add (p, p, b->summary.centroid);
          cwb_v3_add (p, p, drag);
          cwb_v3_sub (p, p, ground->position);
          cwb_quat_rotate (local, inverse, p);
          if (local[2] < 0 && fabs (local[0]) <= ground->shape.size[0] / 2
              && fabs (local[1]) <= ground->shape.size[1] / 2)
            lift = fmax (lift, -local[2] / up[2]);   /* rising by t raises it t up[2] */
        }
    }
  return lift;
}

/* A moved body's point inside a fixed body other than a ground (those lift it, above): the
 * fixed body's name and how many of the moved body's points are inside it, the first one
 * found. The move is not refused (a user may mean to put a body in a basket's wall to see
 * what the contact model does with it), but said. */
static const char *
fixed_body_entered (const CwbScene *scene, const CwbSnapshot *s, size_t moved,
                    const double drag[3], const double turn[4], size_t *inside)
{
  const CwbSnapshotBody *b = &s->bodies[moved];
  for (size_t f = 0; f < s->n_bodies; f++)
    {
      const CwbBodyDesc *desc = cwb_scene_find_body (scene, s->bodies[f].name);
      if (f == moved || !s->bodies[f].fixed || desc == NULL
          || desc->shape.kind == CWB_SHAPE_GROUND)
        continue;
      *inside = 0;
      for (size_t k = 0; k < b->n_points; k++)
        {
          double arm[3], p[3];
          cwb_v3_sub (arm, &b->positions[3 * k], b->summary.centroid);
          cwb_quat_rotate (p, turn, arm);
          cwb_v3_add (p, p, b->summary.centroid);
          cwb_v3_add (p, p, drag);
          *inside += cwb_render_point_inside (&s->bodies[f], p);
        }
      if (*inside > 0)
        return s->bodies[f].name;
    }
  return NULL;
}

static void
body_moved (CwbAppViewport *viewport, gint64 body, double dx, double dy, double dz, double rx,
            double ry, double rz, CwbAppWindow *self)
{
  CwbSnapshot *snapshot = cwb_app_viewport_snapshot (viewport);
  if (snapshot == NULL || body < 0 || (size_t) body >= snapshot->n_bodies)
    return;
  const char *name = snapshot->bodies[body].name;
  const CwbBodyDesc *desc = cwb_scene_find_body (cwb_document_scene (self->document), name);
  g_autoptr (GError) error = NULL;
  if (desc == NULL)
    return;
  if (cwb_app_window_busy (self, &error))
    {
      cwb_app_window_show_error (self, error->message);
      return;
    }
  /* The body goes where it was seen plus the drag: its current centre of mass moved, its
   * current orientation turned (about that centre), which become its new description. */
  double position[3], orientation[4], turn[4];
  double drag[3] = { dx, dy, dz };
  const double rotation[3] = { rx, ry, rz };
  cwb_quat_from_rotvec (turn, rotation);
  /* Never into the ground: the body is lifted onto its top face. */
  drag[2] += lift_above_ground (cwb_document_scene (self->document), snapshot, (size_t) body,
                                drag, turn);
  size_t inside = 0;
  const char *entered = fixed_body_entered (cwb_document_scene (self->document), snapshot,
                                            (size_t) body, drag, turn, &inside);
  g_autofree char *warning = entered == NULL ? NULL : g_strdup_printf (
    "'%s' now has %zu of its %zu points inside the fixed body '%s': the contact model will "
    "push it out, hard for a deep overlap (Ctrl+Z undoes the move)", name, inside,
    snapshot->bodies[body].n_points, entered);
  cwb_v3_add (position, snapshot->bodies[body].summary.centroid, drag);
  cwb_quat_mul (orientation, turn, snapshot->bodies[body].summary.orientation);
  const char *except[] = { name, NULL };
  guint64 revision = cwb_document_revision (self->document);
  if (!cwb_document_set_body_pose (self->document, name, position, orientation, &error)
      || !rebuild_after_edit (self, revision, except, NULL, &error))
    cwb_app_window_show_error (self, error->message);
  else if (warning != NULL)
    cwb_app_window_show_notice (self, warning);
  cwb_app_window_refresh_document (self);
}

void
cwb_app_window_pick (CwbAppWindow *self, gssize body, gssize contact)
{
  CwbSnapshot *snapshot = cwb_app_viewport_snapshot (self->viewport);
  self->picked_contact = contact;
  if (body >= 0 && snapshot != NULL && (size_t) body < snapshot->n_bodies)
    cwb_app_window_select_body (self, snapshot->bodies[body].name);
  else if (contact < 0)
    cwb_app_window_select_body (self, NULL);
  cwb_app_viewport_select (self->viewport, body, contact);
  cwb_app_contact_table_set_picked (self->contact_table, contact);
  cwb_app_window_refresh_inspector (self);
}

static void
picked (CwbAppViewport *viewport, gint64 body, gint64 contact, CwbAppWindow *self)
{
  cwb_app_window_pick (self, (gssize) body, (gssize) contact);
}

/* ---- construction --------------------------------------------------------------------- */

static gboolean
close_idle (gpointer data)
{
  cwb_app_window_close_now (data);
  return G_SOURCE_REMOVE;
}

/* Closes once the frame being drawn is done: destroying the window from inside its own
 * snapshot would pull the widgets from under GTK. */
static void
close_after_frame (CwbAppWindow *self)
{
  /* At default priority, ahead of the next frame: a redraw every frame (bench or probe mode)
   * would otherwise starve an idle-priority callback. */
  g_idle_add_full (G_PRIORITY_DEFAULT, close_idle, g_object_ref (self), g_object_unref);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Median and 95th percentile of one field of the timings (NAN entries left out). */
static void
timing_quantiles (GArray *timings, size_t offset, double *median, double *p95)
{
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint k = 0; k < timings->len; k++)
    {
      double v = *(const double *) (const void *) ((const char *) &g_array_index (
                                                     timings, CwbAppViewportTiming, k) + offset);
      if (isfinite (v))
        g_array_append_val (values, v);
    }
  *median = *p95 = NAN;
  if (values->len == 0)
    return;
  qsort (values->data, values->len, sizeof (double), compare_doubles);
  *median = g_array_index (values, double, values->len / 2);
  *p95 = g_array_index (values, double, MIN (values->len - 1, (guint) (0.95 * values->len)));
}

static void
bench_frame (CwbAppWindow *self, CwbAppViewport *viewport)
{
  GArray *timings = cwb_app_viewport_timings (viewport);
  if (timings->len == 1)
    {
      self->bench_start_us = g_get_monotonic_time ();
      g_autoptr (CwbSnapshot) s = cwb_simulation_latest (self->simulation);
      self->bench_start_steps = s->steps;
    }
  if ((int) timings->len < self->bench_frames)
    return;
  double seconds = (double) (g_get_monotonic_time () - self->bench_start_us) * 1e-6;
  g_autoptr (CwbSnapshot) s = cwb_simulation_latest (self->simulation);
  double interval, interval95, render, render95, latency, latency95;
  timing_quantiles (timings, G_STRUCT_OFFSET (CwbAppViewportTiming, interval_ms), &interval,
                    &interval95);
  timing_quantiles (timings, G_STRUCT_OFFSET (CwbAppViewportTiming, render_ms), &render, &render95);
  timing_quantiles (timings, G_STRUCT_OFFSET (CwbAppViewportTiming, latency_ms), &latency,
                    &latency95);
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (viewport));
  printf ("bench-gl: %s\n", cwb_app_viewport_gl_renderer (viewport));
  printf ("bench-widgets: %s\n", cwb_app_widget_renderer_name (GTK_WIDGET (self)));
  printf ("bench: frames=%u width=%d height=%d bodies=%zu contacts=%u steps_per_s=%.1f "
          "interval_ms=%.2f interval_p95_ms=%.2f render_ms=%.2f render_p95_ms=%.2f "
          "latency_ms=%.2f latency_p95_ms=%.2f\n",
          timings->len, gtk_widget_get_width (GTK_WIDGET (viewport)) * scale,
          gtk_widget_get_height (GTK_WIDGET (viewport)) * scale, s->n_bodies, s->frames->len,
          seconds > 0 ? (double) (s->steps - self->bench_start_steps) / seconds : 0.0,
          interval, interval95, render, render95, latency, latency95);
  fflush (stdout);
  self->bench_frames = 0;
  /* Bench mode redraws every frame; left on, the frame clock would keep the main loop busy
   * and the close below would never get its turn. */
  cwb_app_viewport_set_bench (viewport, FALSE);
  cwb_simulation_pause (self->simulation);
  close_after_frame (self);
}

/* The panels follow the run from the frame clock, never from inside a frame being drawn
 * (changing labels there would resize widgets in the middle of GTK's snapshot). */
static gboolean
window_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  CwbAppWindow *self = CWB_APP_WINDOW (widget);
  cwb_app_window_compare_follow (self);
  cwb_app_window_refresh_run (self);
  if (self->bench_waiting && !cwb_simulation_is_playing (self->simulation))
    {
      self->bench_waiting = FALSE;
      cwb_app_viewport_set_bench (self->viewport, TRUE);
    }
  return G_SOURCE_CONTINUE;
}

static void
frame_drawn (CwbAppViewport *viewport, CwbAppWindow *self)
{
  if (self->bench_frames > 0)
    bench_frame (self, viewport);
  if (self->self_test_frames <= 0)
    return;
  self->self_test_best = MAX (self->self_test_best, cwb_app_viewport_probed_pixels (viewport));
  if (--self->self_test_frames > 0)
    return;
  cwb_app_viewport_set_probe (viewport, FALSE);
  /* --self-test: report and quit; blank means fewer than 1 % of the pixels drawn. */
  int width = gtk_widget_get_width (GTK_WIDGET (viewport));
  int height = gtk_widget_get_height (GTK_WIDGET (viewport));
  const char *error = cwb_app_viewport_error (viewport);
  g_autoptr (CwbSnapshot) snapshot = cwb_simulation_latest (self->simulation);
  gboolean blank = self->self_test_best * 100 < (gint64) width * height;
  printf ("self-test: %s: %d x %d viewport, %" G_GINT64_FORMAT " pixels drawn, %" G_GUINT64_FORMAT
          " steps, t = %g s, %u contacts, GL %s, widgets %s, %s%s\n",
          cwb_document_path (self->document) != NULL ? cwb_document_path (self->document)
                                                     : "untitled",
          width, height, self->self_test_best, snapshot->steps, snapshot->time,
          snapshot->frames->len, cwb_app_viewport_gl_renderer (viewport),
          cwb_app_widget_renderer_name (GTK_WIDGET (self)), blank ? "BLANK" : "ok",
          error != NULL ? error : "");
  fflush (stdout);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  if (blank || error != NULL)
    cwb_app_application_set_exit_status (CWB_APP_APPLICATION (app), 1);
  cwb_simulation_pause (self->simulation);
  close_after_frame (self);
}

static void
compare_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  cwb_app_window_open_compare_dialog (data);
}

static void
compare_end_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  cwb_app_window_end_compare (data);
}

/* Where Record puts its clips: the user's Videos folder (XDG), else the home folder. */
static char *
clip_path (void)
{
  const char *videos = g_get_user_special_dir (G_USER_DIRECTORY_VIDEOS);
  g_autofree char *dir = g_strdup (videos != NULL ? videos : g_get_home_dir ());
  g_mkdir_with_parents (dir, 0755);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y-%m-%d-%H%M%S");
  g_autofree char *name = g_strdup_printf ("contact-workbench-%s.webp", stamp);
  char *path = g_build_filename (dir, name, NULL);
  /* Two clips in one second: a suffix rather than overwriting the first. */
  for (int k = 2; g_file_test (path, G_FILE_TEST_EXISTS); k++)
    {
      g_free (path);
      g_autofree char *other = g_strdup_printf ("contact-workbench-%s-%d.webp", stamp, k);
      path = g_build_filename (dir, other, NULL);
    }
  return path;
}

/* Record on: the view's frames from now; off: the clip written beside the user's videos,
 * and the bar says where. */
static void
record_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  CwbAppWindow *self = data;
  g_autoptr (GError) error = NULL;
  gboolean on = g_variant_get_boolean (state);
  if (on == cwb_app_viewport_recording (self->viewport))
    return;
  if (on)
    {
      if (!cwb_app_viewport_start_recording (self->viewport, &error))
        {
          g_autofree char *message = g_strdup_printf ("Record: %s", error->message);
          cwb_app_window_show_error (self, message);
          return;
        }
      g_simple_action_set_state (action, state);
      return;
    }
  g_simple_action_set_state (action, state);
  g_autofree char *path = clip_path ();
  size_t frames = 0;
  if (!cwb_app_viewport_stop_recording (self->viewport, path, &frames, &error))
    {
      g_autofree char *message = g_strdup_printf ("Record: %s", error->message);
      cwb_app_window_show_error (self, message);
      return;
    }
  g_autofree char *notice = g_strdup_printf ("Clip saved: %s (%zu frames, %.1f s)", path,
                                             frames, (double) frames / CWB_RENDER_CLIP_FPS);
  cwb_app_window_show_notice (self, notice);
}

static const GActionEntry window_actions[] = {
  { "play", NULL, NULL, "false", play_changed, { 0 } },
  { "step", step_activated, NULL, NULL, NULL, { 0 } },
  { "step-phase", step_phase_activated, NULL, NULL, NULL, { 0 } },
  { "reset", reset_activated, NULL, NULL, NULL, { 0 } },
  { "realtime", NULL, NULL, "true", realtime_changed, { 0 } },
  { "history-back", history_back_activated, NULL, NULL, NULL, { 0 } },
  { "history-forward", history_forward_activated, NULL, NULL, NULL, { 0 } },
  { "undo", undo_activated, NULL, NULL, NULL, { 0 } },
  { "redo", redo_activated, NULL, NULL, NULL, { 0 } },
  { "contact-model", contact_model_activated, "s", "''", NULL, { 0 } },
  { "solver", solver_activated, "s", "''", NULL, { 0 } },
  { "grab-frequency", NULL, "s", "'3'", grab_frequency_changed, { 0 } },
  { "speed", NULL, "s", "'1'", speed_changed, { 0 } },
  { "dismiss-error", dismiss_error_activated, NULL, NULL, NULL, { 0 } },
  { "add-body", add_body_activated, "s", NULL, NULL, { 0 } },
  { "delete-body", delete_body_activated, NULL, NULL, NULL, { 0 } },
  { "duplicate-body", duplicate_body_activated, NULL, NULL, NULL, { 0 } },
  { "compare", compare_activated, NULL, NULL, NULL, { 0 } },
  { "compare-end", compare_end_activated, NULL, NULL, NULL, { 0 } },
  { "record", NULL, NULL, "false", record_changed, { 0 } },
};

/* The play button shows what a click does: pause while the run plays. */
static void
play_icon_follows (GAction *play, GParamSpec *pspec, GtkButton *button)
{
  g_autoptr (GVariant) state = g_action_get_state (play);
  gboolean playing = g_variant_get_boolean (state);
  gtk_button_set_icon_name (button, playing ? "media-playback-pause-symbolic"
                                            : "media-playback-start-symbolic");
}

/* The window's single-key shortcuts, in the bubble phase: a key acts only when the focused
 * widget did not take it, so a text field keeps every key it edits with (letters, space,
 * ".", Delete, the arrows, Home), and the view, which takes none, gets them all. */
static void
add_key_shortcuts (CwbAppWindow *self)
{
  static const struct { const char *trigger, *action; } keys[] = {
    { "space", "win.play" },
    { "period", "win.step" },
    { "comma", "win.step-phase" },
    { "f", "win.frame-selected" },
    { "Home", "win.reset-camera" },
    { "Delete", "win.delete-body" },
    { "Left", "win.history-back" },
    { "Right", "win.history-forward" },
    { "c", "win.overlay-cones" },
    { "w", "win.overlay-wireframe" },
    { "x", "win.xray" },
    { "l", "win.labels" },
    { "h", "win.hide-body" },
    { "t", "win.translucent-body" },
    { "i", "win.isolate-body" },
    { "<Shift>h", "win.show-all-bodies" },
    { "Escape", "win.cancel-job" },
  };
  GtkEventController *controller = gtk_shortcut_controller_new ();
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_BUBBLE);
  for (size_t k = 0; k < G_N_ELEMENTS (keys); k++)
    gtk_shortcut_controller_add_shortcut (
      GTK_SHORTCUT_CONTROLLER (controller),
      gtk_shortcut_new (gtk_shortcut_trigger_parse_string (keys[k].trigger),
                        gtk_named_action_new (keys[k].action)));
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}

static GtkWidget *
header_bar (CwbAppWindow *self)
{
  GtkWidget *header = gtk_header_bar_new ();
  struct { const char *icon, *action, *tip; gboolean toggle; } buttons[] = {
    { "document-open-symbolic", "win.open", "Open a scene (Ctrl+O)", FALSE },
    { "document-save-symbolic", "win.save", "Save (Ctrl+S)", FALSE },
    { "media-playback-start-symbolic", "win.play", "Play / pause (Space)", TRUE },
    { "media-skip-forward-symbolic", "win.step", "Single step (.)", FALSE },
    { "media-seek-forward-symbolic", "win.step-phase",
      "Step phase by phase: the solver's stages of one step, one at a time (,)", FALSE },
    { "view-refresh-symbolic", "win.reset", "Reset to the scene's initial state (Ctrl+R)", FALSE },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (buttons); k++)
    {
      GtkWidget *b = buttons[k].toggle ? gtk_toggle_button_new () : gtk_button_new ();
      gtk_button_set_icon_name (GTK_BUTTON (b), buttons[k].icon);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (b), buttons[k].action);
      gtk_widget_set_tooltip_text (b, buttons[k].tip);
      /* A click leaves the focus where it was: space after a click on Reset must play, not
       * press Reset again. */
      gtk_widget_set_focus_on_click (b, FALSE);
      if (strcmp (buttons[k].action, "win.play") == 0)
        g_signal_connect_object (g_action_map_lookup_action (G_ACTION_MAP (self), "play"),
                                 "notify::state", G_CALLBACK (play_icon_follows), b, 0);
      gtk_header_bar_pack_start (GTK_HEADER_BAR (header), b);
      if (strcmp (buttons[k].action, "win.step") == 0)
        {
          self->steps_per_click = GTK_SPIN_BUTTON (
            gtk_spin_button_new_with_range (1, STEPS_PER_CLICK_MAX, 1));
          gtk_widget_set_tooltip_text (GTK_WIDGET (self->steps_per_click),
                                       "Steps per click of Step (and per press of .)");
          gtk_editable_set_width_chars (GTK_EDITABLE (self->steps_per_click), 4);
          gtk_header_bar_pack_start (GTK_HEADER_BAR (header),
                                     GTK_WIDGET (self->steps_per_click));
        }
    }
  GtkWidget *realtime = gtk_toggle_button_new_with_label ("Real time");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (realtime), "win.realtime");
  gtk_widget_set_tooltip_text (realtime,
                               "Pace the simulation with the wall clock; off: as fast as possible");
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), realtime);
  /* The pace of real time: slow motion down to a tenth. */
  GMenu *speeds = g_menu_new ();
  static const char *const speed_items[][2] = {
    { "Slow motion 0.1\u00d7", "0.1" }, { "0.25\u00d7", "0.25" }, { "0.5\u00d7", "0.5" },
    { "Real time 1\u00d7", "1" }, { "2\u00d7", "2" },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (speed_items); k++)
    {
      g_autoptr (GMenuItem) item = g_menu_item_new (speed_items[k][0], NULL);
      g_menu_item_set_action_and_target_value (item, "win.speed",
                                               g_variant_new_string (speed_items[k][1]));
      g_menu_append_item (speeds, item);
    }
  self->speed_button = GTK_MENU_BUTTON (gtk_menu_button_new ());
  gtk_menu_button_set_label (self->speed_button, "1\u00d7");
  gtk_menu_button_set_menu_model (self->speed_button, G_MENU_MODEL (speeds));
  g_object_unref (speeds);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->speed_button),
                               "Speed of real time: simulated seconds per second");
  gtk_widget_set_focus_on_click (GTK_WIDGET (self->speed_button), FALSE);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), GTK_WIDGET (self->speed_button));

  GtkBuilder *builder = gtk_builder_new_from_resource ("/org/contactworkbench/Workbench/menus.ui");
  GtkWidget *menu = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (menu), "open-menu-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu),
                                  G_MENU_MODEL (gtk_builder_get_object (builder, "primary-menu")));
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), menu);
  GtkWidget *view = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (view), "view-reveal-symbolic");
  gtk_widget_set_tooltip_text (view, "Overlays and camera");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (view),
                                  G_MENU_MODEL (gtk_builder_get_object (builder, "view-menu")));
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), view);
  cwb_app_window_fill_recent_menu (G_MENU (gtk_builder_get_object (builder, "recent-menu")));
  g_object_unref (builder);

  self->solver_chooser = GTK_DROP_DOWN (gtk_drop_down_new (NULL, NULL));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->solver_chooser), "Solver");
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), GTK_WIDGET (self->solver_chooser));
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), gtk_label_new ("Solver"));
  self->contact_chooser = GTK_DROP_DOWN (gtk_drop_down_new (NULL, NULL));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->contact_chooser), "Contact model");
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), GTK_WIDGET (self->contact_chooser));
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), gtk_label_new ("Contact"));
  return header;
}

static void
chooser_selected (GtkDropDown *chooser, GParamSpec *pspec, CwbAppWindow *self)
{
  if (self->updating)
    return;
  gboolean contact = chooser == self->contact_chooser;
  GPtrArray *names = contact ? self->contact_names : self->solver_names;
  guint k = gtk_drop_down_get_selected (chooser);
  if (k >= names->len)
    return;
  g_action_group_activate_action (G_ACTION_GROUP (self), contact ? "contact-model" : "solver",
                                  g_variant_new_string (names->pdata[k]));
}

void
cwb_app_window_fill_chooser (GtkDropDown *chooser, GPtrArray *names, CwbRegistry *registry,
                             CwbPluginKind kind, const char *empty_label)
{
  GtkStringList *labels = gtk_string_list_new (NULL);
  if (empty_label != NULL)
    {
      g_ptr_array_add (names, g_strdup (""));
      gtk_string_list_append (labels, empty_label);
    }
  g_autoptr (GPtrArray) plugins = cwb_registry_list (registry, kind);
  for (guint k = 0; k < plugins->len; k++)
    {
      const CwbPluginDesc *desc = plugins->pdata[k];
      g_ptr_array_add (names, g_strdup (desc->name));
      gtk_string_list_append (labels, desc->name);
    }
  gtk_drop_down_set_model (chooser, G_LIST_MODEL (labels));
  g_object_unref (labels);
}

static void
cwb_app_window_dispose (GObject *object)
{
  CwbAppWindow *self = CWB_APP_WINDOW (object);
  cwb_app_window_stop_job (self);
  if (self->autosave_source != 0)
    {
      g_source_remove (self->autosave_source);
      self->autosave_source = 0;
    }
  if (self->viewport != NULL)
    cwb_app_viewport_set_simulation (self->viewport, NULL);
  if (self->compare_viewport != NULL)
    cwb_app_viewport_set_simulation (self->compare_viewport, NULL);
  g_clear_pointer (&self->compare, cwb_simulation_free);
  g_clear_pointer (&self->compare_scene, cwb_scene_free);
  g_clear_pointer (&self->compare_changes, g_strfreev);
  g_clear_pointer (&self->simulation, cwb_simulation_free);
  /* Tearing the widgets down unselects the body list's row, after the viewport is gone: a
   * selection then has nothing to show it. */
  if (self->body_list != NULL)
    g_signal_handlers_disconnect_by_data (self->body_list, self);
  if (self->body_table != NULL)
    g_signal_handlers_disconnect_by_data (self->body_table, self);
  if (self->contact_table != NULL)
    g_signal_handlers_disconnect_by_data (self->contact_table, self);
  G_OBJECT_CLASS (cwb_app_window_parent_class)->dispose (object);
}

static void
cwb_app_window_finalize (GObject *object)
{
  CwbAppWindow *self = CWB_APP_WINDOW (object);
  g_clear_pointer (&self->document, cwb_document_free);
  g_clear_pointer (&self->contact_names, g_ptr_array_unref);
  g_clear_pointer (&self->solver_names, g_ptr_array_unref);
  g_clear_pointer (&self->stats_buffer, g_array_unref);
  g_clear_pointer (&self->phases, g_ptr_array_unref);
  g_free (self->selected_body);
  g_free (self->last_error);
  g_free (self->notice);
  G_OBJECT_CLASS (cwb_app_window_parent_class)->finalize (object);
}

static void
cwb_app_window_class_init (CwbAppWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = cwb_app_window_dispose;
  G_OBJECT_CLASS (klass)->finalize = cwb_app_window_finalize;
  GTK_WINDOW_CLASS (klass)->close_request = cwb_app_window_close_request;
}

static void
cwb_app_window_init (CwbAppWindow *self)
{
  self->picked_contact = -1;
  self->contact_names = g_ptr_array_new_with_free_func (g_free);
  self->solver_names = g_ptr_array_new_with_free_func (g_free);
  self->stats_buffer = g_array_new (FALSE, FALSE, sizeof (CwbStepStats));
}

static void
build_layout (CwbAppWindow *self)
{
  gtk_window_set_titlebar (GTK_WINDOW (self), header_bar (self));
  gtk_window_set_default_size (GTK_WINDOW (self), 1400, 900);

  GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  self->error_revealer = GTK_REVEALER (gtk_revealer_new ());
  self->error_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->error_label, TRUE);
  gtk_label_set_selectable (self->error_label, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->error_label), TRUE);
  gtk_label_set_xalign (self->error_label, 0);
  /* The bar stays until the next success or its close button. */
  GtkWidget *error_bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (error_bar, "cwb-error");
  gtk_box_append (GTK_BOX (error_bar), GTK_WIDGET (self->error_label));
  GtkWidget *dismiss = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_widget_set_tooltip_text (dismiss, "Dismiss");
  gtk_button_set_has_frame (GTK_BUTTON (dismiss), FALSE);
  gtk_widget_set_valign (dismiss, GTK_ALIGN_START);
  gtk_widget_set_focus_on_click (dismiss, FALSE);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (dismiss), "win.dismiss-error");
  gtk_box_append (GTK_BOX (error_bar), dismiss);
  gtk_revealer_set_child (self->error_revealer, error_bar);
  gtk_box_append (GTK_BOX (outer), GTK_WIDGET (self->error_revealer));
  gtk_box_append (GTK_BOX (outer), cwb_app_window_build_job_bar (self));

  GtkWidget *main_paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_widget_set_vexpand (main_paned, TRUE);
  GtkWidget *view_paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  self->viewport = CWB_APP_VIEWPORT (cwb_app_viewport_new ());
  gtk_paned_set_start_child (GTK_PANED (view_paned), GTK_WIDGET (self->viewport));
  GtkWidget *bottom = self->bottom = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_paned_set_end_child (GTK_PANED (view_paned), bottom);
  gtk_paned_set_resize_end_child (GTK_PANED (view_paned), FALSE);
  gtk_paned_set_position (GTK_PANED (view_paned), 620);
  self->main_paned = GTK_PANED (main_paned);
  self->view_paned = GTK_PANED (view_paned);
  gtk_paned_set_start_child (GTK_PANED (main_paned), view_paned);
  GtkWidget *sidebar = self->sidebar = gtk_notebook_new ();
  gtk_widget_set_size_request (sidebar, 380, -1);
  gtk_paned_set_end_child (GTK_PANED (main_paned), sidebar);
  gtk_paned_set_resize_end_child (GTK_PANED (main_paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (main_paned), FALSE);
  gtk_box_append (GTK_BOX (outer), main_paned);
  gtk_window_set_child (GTK_WINDOW (self), outer);

  cwb_app_window_build_panels (self, sidebar, bottom);
  g_signal_connect (self->properties, "edited", G_CALLBACK (property_edited), self);
  g_signal_connect (self->viewport, "picked", G_CALLBACK (picked), self);
  g_signal_connect (self->viewport, "body-moved", G_CALLBACK (body_moved), self);
  g_signal_connect (self->viewport, "frame-drawn", G_CALLBACK (frame_drawn), self);

  cwb_app_window_accept_drops (self);
}

CwbScene *
cwb_app_window_load_scene (const char *path, char **sets, GError **error)
{
  g_autoptr (CwbScene) scene = path != NULL ? cwb_scene_load (path, error) : cwb_scene_new ();
  if (scene == NULL)
    return NULL;
  /* --set overrides change the scene as loaded, like a headless run's: not an edit. */
  if (!cwb_scene_apply_sets (scene, sets, error))
    return NULL;
  return g_steal_pointer (&scene);
}

CwbAppWindow *
cwb_app_window_new_with (CwbAppApplication *app, CwbDocument *document, CwbWorld *world)
{
  CwbRegistry *registry = cwb_app_application_registry (app);
  CwbAppWindow *self = g_object_new (CWB_APP_TYPE_WINDOW, "application", app, NULL);
  self->registry = registry;
  self->document = document;
  self->simulation = cwb_simulation_new (world, NULL);
  g_action_map_add_action_entries (G_ACTION_MAP (self), window_actions,
                                   G_N_ELEMENTS (window_actions), self);
  cwb_app_window_add_file_actions (self);
  cwb_app_window_add_job_actions (self);
  g_simple_action_set_enabled (
    G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "compare-end")), FALSE);
  build_layout (self);
  cwb_app_window_add_view_actions (self);
  add_key_shortcuts (self);
  cwb_app_window_fill_chooser (self->contact_chooser, self->contact_names, registry,
                               CWB_PLUGIN_CONTACT_MODEL, "none");
  cwb_app_window_fill_chooser (self->solver_chooser, self->solver_names, registry,
                               CWB_PLUGIN_SOLVER, NULL);
  g_signal_connect (self->contact_chooser, "notify::selected", G_CALLBACK (chooser_selected), self);
  g_signal_connect (self->solver_chooser, "notify::selected", G_CALLBACK (chooser_selected), self);
  cwb_app_viewport_set_simulation (self->viewport, self->simulation);
  gtk_widget_add_tick_callback (GTK_WIDGET (self), window_tick, NULL, NULL);
  self->shown_revision = G_MAXUINT64;
  cwb_app_window_refresh_document (self);
  cwb_app_window_remember_recent (cwb_document_path (document));
  self->autosave_source = g_timeout_add_seconds (AUTOSAVE_INTERVAL_S, cwb_app_window_autosave_tick,
                                                 self);
  return self;
}

void
cwb_app_window_take_view (CwbAppWindow *self, CwbAppWindow *from)
{
  if (gtk_window_is_maximized (GTK_WINDOW (from)))
    gtk_window_maximize (GTK_WINDOW (self));
  else
    {
      /* The default size follows the user's resizing (GTK 4) and counts what the window's
       * own size does not (its decorations' margin): the same window again. */
      int width, height;
      gtk_window_get_default_size (GTK_WINDOW (from), &width, &height);
      gtk_window_set_default_size (GTK_WINDOW (self), width, height);
    }
  gtk_paned_set_position (self->main_paned, gtk_paned_get_position (from->main_paned));
  gtk_paned_set_position (self->view_paned, gtk_paned_get_position (from->view_paned));
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->sidebar),
                                 gtk_notebook_get_current_page (GTK_NOTEBOOK (from->sidebar)));
  /* Stateful actions through their state, so the menus and toggles show it. */
  g_auto (GStrv) actions = g_action_group_list_actions (G_ACTION_GROUP (from));
  for (char **name = actions; *name != NULL; name++)
    if (g_str_has_prefix (*name, "overlay-") || strcmp (*name, "grab-frequency") == 0
        || strcmp (*name, "realtime") == 0 || strcmp (*name, "speed") == 0
        || strcmp (*name, "xray") == 0 || strcmp (*name, "section") == 0
        || strcmp (*name, "legend") == 0 || strcmp (*name, "labels") == 0
        || strcmp (*name, "contact-labels") == 0)
      {
        g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (from),
                                                                       *name);
        if (state != NULL && g_action_group_has_action (G_ACTION_GROUP (self), *name))
          g_action_group_change_action_state (G_ACTION_GROUP (self), *name, state);
      }
  const CwbOverlayOptions *o = cwb_app_viewport_overlays (from->viewport);
  CwbOverlayOptions *to = cwb_app_viewport_overlays (self->viewport);
  to->force_scale = o->force_scale;
  to->vector_scale = o->vector_scale;
  to->element_field = o->element_field;
  to->element_scale = o->element_scale;
  to->particle_field = o->particle_field;
  to->particle_scale = o->particle_scale;
  to->particle_style = o->particle_style;
  to->xray_opacity = o->xray_opacity;
  to->section_offset = o->section_offset;
  const CwbCamera *camera = cwb_app_viewport_camera (from->viewport);
  CwbCamera *own = cwb_app_viewport_camera (self->viewport);
  own->yaw = camera->yaw;
  own->pitch = camera->pitch;
  own->fov_y = camera->fov_y;
}

void
cwb_app_window_start (CwbAppWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  const CwbAppOptions *options = cwb_app_application_options (CWB_APP_APPLICATION (app));
  g_auto (GStrv) compare = cwb_app_application_take_compare (CWB_APP_APPLICATION (app));
  g_autoptr (GError) compare_error = NULL;
  if (compare != NULL && !cwb_app_window_compare (self, compare, &compare_error))
    {
      g_autofree char *message = g_strdup_printf ("--compare: %s", compare_error->message);
      cwb_app_window_show_error (self, message);
    }
  if (options->bench_frames <= 0 && options->self_test_frames <= 0)
    {
      cwb_app_window_offer_recovery (self);
      return;
    }
  if (options->bench_frames > 0)
    {
      self->bench_frames = options->bench_frames;
      cwb_render_overlay_options_all (cwb_app_viewport_overlays (self->viewport));
      self->bench_waiting = options->bench_paused && options->self_test_steps > 0;
      cwb_app_viewport_set_bench (self->viewport, !self->bench_waiting);
    }
  else
    {
      self->self_test_frames = options->self_test_frames;
      cwb_app_viewport_set_probe (self->viewport, TRUE);
    }
  if (options->self_test_steps > 0)
    {
      cwb_simulation_set_realtime (self->simulation, FALSE, 1);
      cwb_simulation_set_stop_at (self->simulation, (guint64) options->self_test_steps);
      cwb_simulation_play (self->simulation);
    }
}

CwbAppWindow *
cwb_app_window_new (CwbAppApplication *app, const char *path, char **sets, GError **error)
{
  g_autoptr (CwbScene) scene = cwb_app_window_load_scene (path, sets, error);
  if (scene == NULL)
    return NULL;
  g_autoptr (CwbDocument) document = cwb_document_new (g_steal_pointer (&scene), path);
  CwbWorld *world = cwb_world_new (cwb_document_scene (document),
                                   cwb_app_application_registry (app), error);
  if (world == NULL)
    return NULL;
  CwbAppWindow *self = cwb_app_window_new_with (app, g_steal_pointer (&document), world);
  cwb_app_window_start (self);
  return self;
}

CwbDocument *
cwb_app_window_document (CwbAppWindow *self)
{
  return self->document;
}

CwbSimulation *
cwb_app_window_simulation (CwbAppWindow *self)
{
  return self->simulation;
}

CwbAppViewport *
cwb_app_window_viewport (CwbAppWindow *self)
{
  return self->viewport;
}

CwbPropertyEditor *
cwb_app_window_properties (CwbAppWindow *self)
{
  return self->properties;
}

CwbPlotPanel *
cwb_app_window_plots (CwbAppWindow *self)
{
  return self->plots;
}

const char *
cwb_app_window_selected_body (CwbAppWindow *self)
{
  return self->selected_body;
}

gssize
cwb_app_window_picked_contact (CwbAppWindow *self)
{
  return self->picked_contact;
}

gboolean
cwb_app_window_error_shown (CwbAppWindow *self)
{
  return gtk_revealer_get_reveal_child (self->error_revealer);
}

const char *
cwb_app_window_status (CwbAppWindow *self)
{
  return gtk_label_get_text (self->status_label);
}

const char *
cwb_app_window_last_error (CwbAppWindow *self)
{
  return self->last_error;
}

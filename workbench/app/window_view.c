/* What the window's view shows (window_private.h): the overlays, the legend and labels,
 * how each body is drawn (hidden, translucent, isolated, x-ray), the section plane and the
 * camera's framing, as actions of the View menu and the keys. The view only: nothing here
 * changes the scene. */
#include <string.h>

#include "window_private.h"

static void
overlay_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  CwbAppWindow *self = data;
  const char *name = g_action_get_name (G_ACTION (action)) + strlen ("overlay-");
  gboolean *flag = cwb_render_overlay_flag (cwb_app_viewport_overlays (self->viewport), name);
  if (flag != NULL)
    *flag = g_variant_get_boolean (state);
  g_simple_action_set_state (action, state);
  cwb_app_viewport_queue_draw (self->viewport);
}

/* The compare view draws its bodies as A's does. */
static void
looks_changed (CwbAppWindow *self)
{
  if (self->compare_viewport != NULL)
    cwb_app_viewport_copy_looks (self->compare_viewport, self->viewport);
  cwb_app_window_refresh_body_list (self);
}

void
cwb_app_window_set_body_look (CwbAppWindow *self, const char *name, CwbAppBodyLook look)
{
  /* Showing a body while another is isolated shows every body. */
  if (look != CWB_APP_BODY_HIDDEN && cwb_app_viewport_isolated (self->viewport) != NULL
      && g_strcmp0 (cwb_app_viewport_isolated (self->viewport), name) != 0)
    cwb_app_viewport_isolate (self->viewport, NULL);
  cwb_app_viewport_set_body_look (self->viewport, name, look);
  looks_changed (self);
}

/* h, t: the selected body hidden or shown, translucent or opaque. */
static void
toggle_body_look (CwbAppWindow *self, CwbAppBodyLook look)
{
  if (self->selected_body == NULL)
    {
      cwb_app_window_show_notice (self, "Select a body first (click it in the view or the "
                                        "Scene list)");
      return;
    }
  CwbAppBodyLook now = cwb_app_viewport_body_look (self->viewport, self->selected_body);
  cwb_app_window_set_body_look (self, self->selected_body,
                                now == look ? CWB_APP_BODY_SHOWN : look);
}

static void
hide_body_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  toggle_body_look (data, CWB_APP_BODY_HIDDEN);
}

static void
translucent_body_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  toggle_body_look (data, CWB_APP_BODY_TRANSLUCENT);
}

/* i: only the selected body drawn; again: every body. */
static void
isolate_body_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  const char *isolated = cwb_app_viewport_isolated (self->viewport);
  if (self->selected_body == NULL && isolated == NULL)
    {
      cwb_app_window_show_notice (self, "Select a body to isolate first");
      return;
    }
  cwb_app_viewport_isolate (self->viewport, g_strcmp0 (isolated, self->selected_body) == 0
                                              ? NULL : self->selected_body);
  looks_changed (self);
}

static void
show_all_bodies_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  cwb_app_viewport_isolate (self->viewport, NULL);
  looks_changed (self);
}

/* The view's on/off settings (x-ray, legend, labels): the action's name is the view key's,
 * with '-' for '_'. */
static void
view_toggle_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  CwbAppWindow *self = data;
  g_autofree char *key = g_strdup (g_action_get_name (G_ACTION (action)));
  g_strdelimit (key, "-", '_');
  if (!cwb_render_view_set (cwb_app_viewport_overlays (self->viewport), key,
                            g_variant_get_boolean (state) ? "true" : "false", NULL))
    return;
  g_simple_action_set_state (action, state);
  cwb_app_viewport_queue_draw (self->viewport);
}

static void
section_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  CwbAppWindow *self = data;
  g_autoptr (GError) error = NULL;
  if (!cwb_render_view_set (cwb_app_viewport_overlays (self->viewport), "section",
                            g_variant_get_string (state, NULL), &error))
    return;
  g_simple_action_set_state (action, state);
  cwb_app_viewport_queue_draw (self->viewport);
}

static void
frame_selected_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  cwb_app_viewport_frame_selected (self->viewport);
}

static void
reset_camera_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  cwb_app_viewport_reset_camera (self->viewport);
}

static const GActionEntry view_actions[] = {
  { "frame-selected", frame_selected_activated, NULL, NULL, NULL, { 0 } },
  { "reset-camera", reset_camera_activated, NULL, NULL, NULL, { 0 } },
  { "xray", NULL, NULL, "false", view_toggle_changed, { 0 } },
  { "legend", NULL, NULL, "true", view_toggle_changed, { 0 } },
  { "labels", NULL, NULL, "false", view_toggle_changed, { 0 } },
  { "contact-labels", NULL, NULL, "false", view_toggle_changed, { 0 } },
  { "section", NULL, "s", "'none'", section_changed, { 0 } },
  { "hide-body", hide_body_activated, NULL, NULL, NULL, { 0 } },
  { "translucent-body", translucent_body_activated, NULL, NULL, NULL, { 0 } },
  { "isolate-body", isolate_body_activated, NULL, NULL, NULL, { 0 } },
  { "show-all-bodies", show_all_bodies_activated, NULL, NULL, NULL, { 0 } },
};

void
cwb_app_window_add_view_actions (CwbAppWindow *self)
{
  CwbOverlayOptions *o = cwb_app_viewport_overlays (self->viewport);
  for (size_t k = 0; k < CWB_RENDER_OVERLAY_COUNT; k++)
    {
      g_autofree char *name = g_strconcat ("overlay-", cwb_render_overlay_names[k], NULL);
      GSimpleAction *action = g_simple_action_new_stateful (
        name, NULL, g_variant_new_boolean (*cwb_render_overlay_flag (o, cwb_render_overlay_names[k])));
      g_signal_connect (action, "change-state", G_CALLBACK (overlay_changed), self);
      g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (action));
      g_object_unref (action);
    }
  g_action_map_add_action_entries (G_ACTION_MAP (self), view_actions, G_N_ELEMENTS (view_actions),
                                   self);
}

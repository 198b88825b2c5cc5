/* The window's files (window_private.h): open, save and save as through the core's atomic
 * save, the prompt before unsaved changes are lost, recent files, autosave and the recovery
 * offered at the next start, files dropped on the window, and CSV export of the plots. */
#include <glib/gstdio.h>

#include <cwb/vecmath.h>

#include "window_private.h"

/* What a file chooser does with the path the user accepted. */
typedef void (*PathChosen) (CwbAppWindow *self, const char *path);

typedef struct FileRequest {
  CwbAppWindow *self;
  PathChosen then;
} FileRequest;

static void
file_chosen (GtkNativeDialog *dialog, int response, FileRequest *request)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      if (path != NULL)
        request->then (request->self, path);
    }
  g_object_unref (dialog);
}

/* Shows a native file chooser filtered to `patterns`; `then` gets the accepted path.
 * `name` pre-fills a save dialog (NULL for none). */
static void
choose_file (CwbAppWindow *self, const char *title, GtkFileChooserAction action,
             const char *accept, const char *filter_name, const char *const *patterns,
             const char *name, PathChosen then)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action,
                                                              accept, "_Cancel");
  GtkFileFilter *filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, filter_name);
  for (const char *const *p = patterns; *p != NULL; p++)
    gtk_file_filter_add_pattern (filter, *p);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  if (name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  FileRequest *request = g_new (FileRequest, 1);
  *request = (FileRequest){ self, then };
  g_signal_connect_data (dialog, "response", G_CALLBACK (file_chosen), request,
                         (GClosureNotify) (void (*) (void)) g_free, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* A rigid body of a mesh file, dropped from 1 m above the origin. */
static void
add_mesh_body (CwbAppWindow *self, const char *path)
{
  /* A scene file is UTF-8 text: a file whose name is not (from a folder in another
   * encoding) could not be saved in it, so it is refused here, where the user chose it. */
  if (!g_utf8_validate (path, -1, NULL))
    {
      g_autofree char *shown = g_filename_display_name (path);
      g_autofree char *message = g_strdup_printf (
        "%s: the file's name is not UTF-8 text, which a scene cannot hold: rename the file",
        shown);
      cwb_app_window_show_error (self, message);
      return;
    }
  CwbBodyDesc *body = cwb_scene_body_new ();
  body->shape.kind = CWB_SHAPE_MESH;
  body->shape.mesh_file = g_strdup (path);
  body->shape.scale = 1;
  cwb_v3_set (body->position, 0, 0, 1);
  cwb_app_window_add_body (self, body);
}

static const char *const mesh_patterns[] = { "*.obj", "*.ply", "*.stl", "*.OBJ", "*.PLY",
                                             "*.STL", NULL };
static const char *const scene_patterns[] = { "*.yaml", "*.yml", NULL };

static void
add_mesh_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  choose_file (data, "Add a mesh body", GTK_FILE_CHOOSER_ACTION_OPEN, "_Add",
               "Meshes (OBJ, PLY, STL)", mesh_patterns, NULL, add_mesh_body);
}

void
cwb_app_window_remember_recent (const char *path)
{
  if (path == NULL)
    return;
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  if (uri != NULL)
    gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
}

static gboolean
save_to (CwbAppWindow *self, const char *path)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = path != NULL ? cwb_document_save_as (self->document, path, &error)
                             : cwb_document_save (self->document, &error);
  if (!ok)
    cwb_app_window_show_error (self, error->message);
  else
    cwb_app_window_remember_recent (cwb_document_path (self->document));
  cwb_app_window_refresh_document (self);
  return ok;
}

static void
save_as_path (CwbAppWindow *self, const char *path)
{
  save_to (self, path);
}

static void
save_as_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  choose_file (data, "Save the scene as", GTK_FILE_CHOOSER_ACTION_SAVE, "_Save",
               "Scenes (YAML)", scene_patterns, "scene.yaml", save_as_path);
}

static void
save_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  CwbAppWindow *self = data;
  if (cwb_document_path (self->document) == NULL)
    save_as_activated (action, parameter, data);
  else
    save_to (self, NULL);
}

/* Asks before `then` runs over unsaved changes: save, discard or cancel. */
typedef void (*AfterConfirm) (CwbAppWindow *self, gpointer data);
typedef struct Confirm {
  CwbAppWindow *self;
  AfterConfirm then;
  gpointer data;
  GDestroyNotify free_data;
} Confirm;

static void
confirm_response (GtkDialog *dialog, int response, Confirm *c)
{
  gboolean go = FALSE;
  if (response == GTK_RESPONSE_ACCEPT)
    go = cwb_document_path (c->self->document) != NULL && save_to (c->self, NULL);
  else if (response == GTK_RESPONSE_REJECT)
    {
      cwb_document_discard_autosave (c->self->document);
      go = TRUE;
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (go)
    c->then (c->self, c->data);
  if (c->free_data != NULL)
    c->free_data (c->data);
  g_free (c);
}

static void
confirm_unsaved (CwbAppWindow *self, AfterConfirm then, gpointer data, GDestroyNotify free_data)
{
  if (!cwb_document_is_dirty (self->document))
    {
      then (self, data);
      if (free_data != NULL)
        free_data (data);
      return;
    }
  g_autofree char *name = cwb_document_display_name (self->document);
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL,
                                              GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                              "Save the changes to %s?", name);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                            "Your changes are lost if you don't save them.");
  gtk_dialog_add_buttons (GTK_DIALOG (dialog), "_Cancel", GTK_RESPONSE_CANCEL,
                          "_Discard", GTK_RESPONSE_REJECT, NULL);
  if (cwb_document_path (self->document) != NULL)
    gtk_dialog_add_button (GTK_DIALOG (dialog), "_Save", GTK_RESPONSE_ACCEPT);
  Confirm *c = g_new0 (Confirm, 1);
  *c = (Confirm){ self, then, data, free_data };
  g_signal_connect (dialog, "response", G_CALLBACK (confirm_response), c);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
open_in_window (CwbAppWindow *self, gpointer data)
{
  const char *path = data;
  g_autoptr (GError) error = NULL;
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  /* The new window replaces this one once its world is built (window_jobs.c). */
  if (!cwb_app_window_open (CWB_APP_APPLICATION (app), self, path, NULL, &error))
    cwb_app_window_show_error (self, error->message);
}

static void
open_path (CwbAppWindow *self, const char *path)
{
  confirm_unsaved (self, open_in_window, g_strdup (path), g_free);
}

static void
open_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  choose_file (data, "Open a scene", GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "Scenes (YAML)",
               scene_patterns, NULL, open_path);
}

static void
open_recent_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  open_path (data, g_variant_get_string (parameter, NULL));
}

static void
export_to (CwbAppWindow *self, const char *path)
{
  g_autoptr (GError) error = NULL;
  if (!cwb_plot_panel_export_csv (self->plots, path, &error))
    cwb_app_window_show_error (self, error->message);
}

static void
export_csv_activated (GSimpleAction *action, GVariant *parameter, gpointer data)
{
  static const char *const csv[] = { "*.csv", NULL };
  choose_file (data, "Export the plots", GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "CSV", csv,
               "run.csv", export_to);
}

/* Scenes and meshes dropped on the window: a scene opens, a mesh becomes a body. */
static gboolean
files_dropped (GtkDropTarget *target, const GValue *value, double x, double y,
               CwbAppWindow *self)
{
  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  for (GSList *l = g_value_get_boxed (value); l != NULL; l = l->next)
    {
      g_autofree char *path = g_file_get_path (l->data);
      if (path == NULL)
        continue;
      g_autofree char *lower = g_ascii_strdown (path, -1);
      if (g_str_has_suffix (lower, ".yaml") || g_str_has_suffix (lower, ".yml"))
        {
          open_path (self, path);
          return TRUE;
        }
      if (g_str_has_suffix (lower, ".obj") || g_str_has_suffix (lower, ".ply")
          || g_str_has_suffix (lower, ".stl"))
        {
          add_mesh_body (self, path);
        }
    }
  return TRUE;
}

/* ---- autosave and closing ------------------------------------------------------------- */

gboolean
cwb_app_window_autosave_tick (gpointer data)
{
  CwbAppWindow *self = data;
  g_autoptr (GError) error = NULL;
  if (!cwb_document_autosave (self->document, &error))
    g_warning ("autosave: %s", error->message);
  return G_SOURCE_CONTINUE;
}

static void
close_confirmed (CwbAppWindow *self, gpointer data)
{
  cwb_document_discard_autosave (self->document);
  cwb_app_window_close_now (self);
}

gboolean
cwb_app_window_close_request (GtkWindow *window)
{
  CwbAppWindow *self = CWB_APP_WINDOW (window);
  if (self->closing)
    return FALSE;
  confirm_unsaved (self, close_confirmed, NULL, NULL);
  return TRUE;
}

void
cwb_app_window_close_now (CwbAppWindow *self)
{
  self->closing = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

/* ---- recovery ------------------------------------------------------------------------- */

static void
recovery_response (GtkDialog *dialog, int response, CwbAppWindow *self)
{
  char *autosave = g_object_get_data (G_OBJECT (dialog), "autosave");
  g_autoptr (GError) error = NULL;
  if (response == GTK_RESPONSE_ACCEPT)
    {
      if (cwb_app_window_busy (self, &error)
          || !cwb_document_recover (self->document, autosave, &error))
        cwb_app_window_show_error (self, error->message);
      else
        cwb_app_window_follow_document (self, CWB_APP_REVERT_UNDO);
    }
  else if (response == GTK_RESPONSE_REJECT)
    g_unlink (autosave);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

void
cwb_app_window_offer_recovery (CwbAppWindow *self)
{
  g_autofree char *autosave = cwb_document_find_recovery (cwb_document_path (self->document));
  if (autosave == NULL)
    return;
  g_autofree char *name = cwb_document_display_name (self->document);
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL,
                                              GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                              "Recover unsaved changes to %s?", name);
  gtk_message_dialog_format_secondary_text (
    GTK_MESSAGE_DIALOG (dialog),
    "A previous session ended before saving them. Recovering makes them an edit you can "
    "undo; discarding deletes the autosave.");
  gtk_dialog_add_buttons (GTK_DIALOG (dialog), "_Discard", GTK_RESPONSE_REJECT, "_Later",
                          GTK_RESPONSE_CANCEL, "_Recover", GTK_RESPONSE_ACCEPT, NULL);
  g_object_set_data_full (G_OBJECT (dialog), "autosave", g_steal_pointer (&autosave), g_free);
  g_signal_connect (dialog, "response", G_CALLBACK (recovery_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The scenes opened or saved lately, newest first. */
void
cwb_app_window_fill_recent_menu (GMenu *menu)
{
  /* Enough to come back to the scenes of the day, few enough to read at a glance. */
  const guint max_items = 10;
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  guint n = 0;
  for (GList *l = items; l != NULL && n < max_items; l = l->next)
    {
      const char *uri = gtk_recent_info_get_uri (l->data);
      g_autofree char *path = g_filename_from_uri (uri, NULL, NULL);
      if (path == NULL || !(g_str_has_suffix (path, ".yaml") || g_str_has_suffix (path, ".yml"))
          || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      g_autofree char *label = g_path_get_basename (path);
      GMenuItem *item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent",
                                               g_variant_new_string (path));
      g_menu_append_item (menu, item);
      g_object_unref (item);
      n++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

static const GActionEntry file_actions[] = {
  { "open", open_activated, NULL, NULL, NULL, { 0 } },
  { "open-recent", open_recent_activated, "s", NULL, NULL, { 0 } },
  { "save", save_activated, NULL, NULL, NULL, { 0 } },
  { "save-as", save_as_activated, NULL, NULL, NULL, { 0 } },
  { "export-csv", export_csv_activated, NULL, NULL, NULL, { 0 } },
  { "add-mesh", add_mesh_activated, NULL, NULL, NULL, { 0 } },
};

void
cwb_app_window_add_file_actions (CwbAppWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), file_actions, G_N_ELEMENTS (file_actions),
                                   self);
}

void
cwb_app_window_accept_drops (CwbAppWindow *self)
{
  GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (files_dropped), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}

/* The plugins window (plugins_window.h): one list row per library the registry found, in the
 * registry's order. The window copies everything it shows when it is built, so it keeps no
 * pointer into the registry (nor into a plugin's description, which lives in the library). */
#include "plugins_window.h"

/* Shown for a field that is absent or empty. */
#define NONE_TEXT "\u2014"

/* The columns of a row's first line, aligned across rows (and with the header) by one size
 * group each. */
typedef enum Column {
  COLUMN_STATUS,
  COLUMN_KIND,
  COLUMN_NAME,
  COLUMN_VERSION,
  COLUMN_ABI,
  COLUMN_COUNT,
} Column;

static const char *
or_none (const char *text)
{
  return text != NULL && text[0] != '\0' ? text : NONE_TEXT;
}

static GtkWidget *
new_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  return label;
}

/* A label that wraps (summaries, help texts, refusal reasons) and can be selected and copied
 * (a reason is what a user pastes into a bug report). */
static GtkWidget *
new_text_label (const char *text)
{
  GtkWidget *label = new_label (text);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  return label;
}

static GtkWidget *
new_bold_label (const char *text)
{
  GtkWidget *label = new_label (text);
  PangoAttrList *attrs = pango_attr_list_new ();
  pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  gtk_label_set_attributes (GTK_LABEL (label), attrs);
  pango_attr_list_unref (attrs);
  return label;
}

/* Appends the cells of a row's first line to `line`, each in its column's size group. */
static void
append_cells (GtkWidget *line, GtkSizeGroup *groups[COLUMN_COUNT], GtkWidget *cells[COLUMN_COUNT])
{
  for (int c = 0; c < COLUMN_COUNT; c++)
    {
      gtk_size_group_add_widget (groups[c], cells[c]);
      gtk_box_append (GTK_BOX (line), cells[c]);
    }
}

static GtkWidget *
status_cell (CwbPluginStatus status)
{
  gboolean loaded = status == CWB_PLUGIN_STATUS_LOADED;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *icon = gtk_image_new_from_icon_name (loaded ? "emblem-ok-symbolic"
                                                         : "dialog-error-symbolic");
  GtkWidget *label = new_label (loaded ? "Loaded" : "Refused");
  /* The theme's colours for good and bad news, so that both read on light and dark. */
  gtk_widget_add_css_class (box, loaded ? "success" : "error");
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), label);
  return box;
}

/* ---- a loaded plugin's details ------------------------------------------------------------ */

static GtkWidget *
params_table (const CwbPluginDesc *desc)
{
  if (desc->n_params == 0 || desc->params == NULL)
    return new_label ("No parameters.");

  static const char *const headers[] = {
    "Parameter", "Type", "Unit", "Default", "Range or choices", "Help",
  };
  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (grid), 16);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  for (int c = 0; c < (int) G_N_ELEMENTS (headers); c++)
    gtk_grid_attach (GTK_GRID (grid), new_bold_label (headers[c]), c, 0, 1, 1);

  for (size_t k = 0; k < desc->n_params; k++)
    {
      const CwbParamSpec *spec = &desc->params[k];
      g_autofree char *range = cwb_param_spec_range_text (spec);
      const char *cells[] = {
        spec->name, cwb_param_type_name (spec->type), or_none (spec->unit),
        or_none (spec->default_value), or_none (range),
      };
      int row = (int) k + 1;
      for (int c = 0; c < (int) G_N_ELEMENTS (cells); c++)
        {
          GtkWidget *label = new_label (or_none (cells[c]));
          gtk_label_set_selectable (GTK_LABEL (label), TRUE);
          gtk_widget_set_valign (label, GTK_ALIGN_START);
          gtk_grid_attach (GTK_GRID (grid), label, c, row, 1, 1);
        }
      GtkWidget *help = new_text_label (or_none (spec->help));
      /* The help column takes what is left of the width; it wraps rather than widening the
       * window past the screen. */
      gtk_label_set_max_width_chars (GTK_LABEL (help), 60);
      gtk_widget_set_hexpand (help, TRUE);
      gtk_grid_attach (GTK_GRID (grid), help, (int) G_N_ELEMENTS (cells), row, 1, 1);
    }
  return grid;
}

static GtkWidget *
details_expander (const CwbPluginDesc *desc)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_margin_start (box, 24);
  gtk_widget_set_margin_top (box, 4);
  gtk_widget_set_margin_bottom (box, 4);
  gtk_box_append (GTK_BOX (box), new_text_label (or_none (desc->summary)));
  gtk_box_append (GTK_BOX (box), params_table (desc));

  g_autofree char *title = g_strdup_printf ("Summary and %zu parameter%s", desc->n_params,
                                            desc->n_params == 1 ? "" : "s");
  GtkWidget *expander = gtk_expander_new (title);
  gtk_expander_set_child (GTK_EXPANDER (expander), box);
  return expander;
}

/* ---- rows --------------------------------------------------------------------------------- */

static GtkWidget *
file_row (const CwbPluginFile *file, GtkSizeGroup *groups[COLUMN_COUNT])
{
  const CwbPluginDesc *desc = file->status == CWB_PLUGIN_STATUS_LOADED ? file->desc : NULL;
  GtkWidget *cells[COLUMN_COUNT];
  cells[COLUMN_STATUS] = status_cell (file->status);
  if (desc != NULL)
    {
      g_autofree char *version = g_strdup_printf ("version %s", or_none (desc->version));
      g_autofree char *abi = g_strdup_printf ("ABI %u.%u", desc->abi_major, desc->abi_minor);
      cells[COLUMN_KIND] = new_label (or_none (cwb_plugin_kind_name (desc->kind)));
      cells[COLUMN_NAME] = new_bold_label (or_none (desc->name));
      cells[COLUMN_VERSION] = new_label (version);
      cells[COLUMN_ABI] = new_label (abi);
    }
  else
    {
      /* A refused library's description is not to be trusted (or there is none): nothing of
       * it is shown, only the file and the reason. */
      for (int c = COLUMN_KIND; c < COLUMN_COUNT; c++)
        cells[c] = new_label (NONE_TEXT);
    }

  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 16);
  append_cells (line, groups, cells);
  GtkWidget *path = new_label (file->path);
  gtk_label_set_selectable (GTK_LABEL (path), TRUE);
  /* The file name is the end of the path: keep it visible when the path is long. */
  gtk_label_set_ellipsize (GTK_LABEL (path), PANGO_ELLIPSIZE_START);
  gtk_widget_set_tooltip_text (path, file->path);
  gtk_widget_set_hexpand (path, TRUE);
  gtk_widget_add_css_class (path, "dim-label");
  gtk_box_append (GTK_BOX (line), path);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (box, 8);
  gtk_widget_set_margin_end (box, 8);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_box_append (GTK_BOX (box), line);
  if (desc != NULL)
    gtk_box_append (GTK_BOX (box), details_expander (desc));
  else
    {
      GtkWidget *reason = new_text_label (or_none (file->reason));
      gtk_widget_add_css_class (reason, "error");
      gtk_box_append (GTK_BOX (box), reason);
    }

  GtkWidget *row = gtk_list_box_row_new ();
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  return row;
}

static GtkWidget *
header_line (GtkSizeGroup *groups[COLUMN_COUNT])
{
  static const char *const titles[COLUMN_COUNT] = {
    [COLUMN_STATUS] = "Status", [COLUMN_KIND] = "Kind", [COLUMN_NAME] = "Name",
    [COLUMN_VERSION] = "Version", [COLUMN_ABI] = "ABI",
  };
  GtkWidget *cells[COLUMN_COUNT];
  for (int c = 0; c < COLUMN_COUNT; c++)
    cells[c] = new_bold_label (titles[c]);
  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 16);
  /* The rows' margins plus the list's own frame, so the header sits over the columns. */
  gtk_widget_set_margin_start (line, 9);
  gtk_widget_set_margin_end (line, 9);
  append_cells (line, groups, cells);
  gtk_box_append (GTK_BOX (line), new_bold_label ("File"));
  return line;
}

GtkWindow *
cwb_plugins_window_new (GtkWindow *parent, const CwbRegistry *registry)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (registry != NULL, NULL);

  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_title (window, "Plugins");
  /* Closed as dialogs are: Escape or Ctrl+W. */
  GtkEventController *keys = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (
    GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                   gtk_keyval_trigger_new (GDK_KEY_w,
                                                                           GDK_CONTROL_MASK)),
                      gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (GTK_WIDGET (window), keys);
  gtk_window_set_default_size (window, 960, 600);
  if (parent != NULL)
    {
      gtk_window_set_transient_for (window, parent);
      gtk_window_set_destroy_with_parent (window, TRUE);
    }

  /* Size groups are kept alive by the widgets in them: the references taken here go at the
   * end of this function. */
  GtkSizeGroup *groups[COLUMN_COUNT];
  for (int c = 0; c < COLUMN_COUNT; c++)
    groups[c] = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);

  size_t n = cwb_registry_n_files (registry);
  size_t n_loaded = 0;
  GtkWidget *list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "rich-list");
  gtk_list_box_set_show_separators (GTK_LIST_BOX (list), TRUE);
  gtk_list_box_set_placeholder (GTK_LIST_BOX (list),
                                new_label ("No plugin library was found in the plugin folders."));
  for (size_t i = 0; i < n; i++)
    {
      const CwbPluginFile *file = cwb_registry_file (registry, i);
      n_loaded += file->status == CWB_PLUGIN_STATUS_LOADED;
      gtk_list_box_append (GTK_LIST_BOX (list), file_row (file, groups));
    }

  g_autofree char *counts = g_strdup_printf ("%zu plugin file%s: %zu loaded, %zu refused", n,
                                             n == 1 ? "" : "s", n_loaded, n - n_loaded);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), list);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_has_frame (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_widget_set_vexpand (scrolled, TRUE);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_box_append (GTK_BOX (box), new_label (counts));
  gtk_box_append (GTK_BOX (box), header_line (groups));
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_window_set_child (window, box);

  for (int c = 0; c < COLUMN_COUNT; c++)
    g_object_unref (groups[c]);
  return window;
}

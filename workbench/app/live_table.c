/* A live table (live_table.h): rows that change in place, cells that follow them, and a
 * column view that sorts them by the clicked column. */
#include <math.h>
#include <string.h>

#include "live_table.h"

struct _CwbAppLiveRow {
  GObject parent;
  guint index;
  gpointer values;
  GDestroyNotify clear;
};

G_DEFINE_FINAL_TYPE (CwbAppLiveRow, cwb_app_live_row, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
cwb_app_live_row_finalize (GObject *object)
{
  CwbAppLiveRow *self = CWB_APP_LIVE_ROW (object);
  if (self->clear != NULL)
    self->clear (self->values);
  g_free (self->values);
  G_OBJECT_CLASS (cwb_app_live_row_parent_class)->finalize (object);
}

static void
cwb_app_live_row_class_init (CwbAppLiveRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cwb_app_live_row_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
cwb_app_live_row_init (CwbAppLiveRow *self)
{
}

CwbAppLiveRow *
cwb_app_live_row_new (guint index, gsize size, GDestroyNotify clear)
{
  CwbAppLiveRow *self = g_object_new (CWB_APP_TYPE_LIVE_ROW, NULL);
  self->index = index;
  self->values = g_malloc0 (size);
  self->clear = clear;
  return self;
}

guint
cwb_app_live_row_index (CwbAppLiveRow *self)
{
  return self->index;
}

gpointer
cwb_app_live_row_values (CwbAppLiveRow *self)
{
  return self->values;
}

void
cwb_app_live_row_changed (CwbAppLiveRow *self)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* ---- cells ------------------------------------------------------------------------------ */

#define COLUMN_KEY "cwb-live-column"

static double
number_of (const CwbAppLiveColumn *column, gconstpointer values)
{
  double value;
  memcpy (&value, (const char *) values + column->number, sizeof value);
  return value;
}

static void
show_cell (CwbAppLiveRow *row, GtkLabel *label)
{
  const CwbAppLiveColumn *column = g_object_get_data (G_OBJECT (label), COLUMN_KEY);
  g_autoptr (GString) text = g_string_new (NULL);
  if (column->format != NULL)
    column->format (row->values, text);
  else
    g_string_append_printf (text, "%.*g", column->number_digits,
                            number_of (column, row->values));
  /* Most updates change only some cells: the others keep their layout. */
  if (strcmp (gtk_label_get_text (label), text->str) != 0)
    gtk_label_set_text (label, text->str);
}

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *item, const CwbAppLiveColumn *column)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_widget_set_name (label, column->id);
  gtk_label_set_xalign (GTK_LABEL (label), column->numeric ? 1 : 0);
  if (column->numeric)
    gtk_widget_add_css_class (label, "numeric");
  /* GTK 4.8's column titles take no tooltip: the cells say what the column is. */
  if (column->tooltip != NULL)
    gtk_widget_set_tooltip_text (label, column->tooltip);
  g_object_set_data (G_OBJECT (label), COLUMN_KEY, (gpointer) column);
  gtk_list_item_set_child (item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  CwbAppLiveRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  show_cell (row, GTK_LABEL (label));
  g_signal_connect_object (row, "changed", G_CALLBACK (show_cell), label, 0);
}

static void
cell_unbind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  CwbAppLiveRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  if (row != NULL && label != NULL)
    g_signal_handlers_disconnect_by_func (row, show_cell, label);
}

/* ---- the view --------------------------------------------------------------------------- */

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer data)
{
  const CwbAppLiveColumn *column = data;
  const CwbAppLiveRow *ra = a, *rb = b;
  int c = column->compare != NULL
            ? column->compare (ra->values, rb->values)
            : cwb_app_live_compare_doubles (number_of (column, ra->values),
                                            number_of (column, rb->values));
  if (c != 0)
    return c < 0 ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  /* Equal values keep the order the table lists them in, whatever order they were in. */
  return ra->index < rb->index ? GTK_ORDERING_SMALLER
         : ra->index > rb->index ? GTK_ORDERING_LARGER
                                 : GTK_ORDERING_EQUAL;
}

GtkColumnView *
cwb_app_live_table_new (GListModel *rows, const CwbAppLiveColumn *columns, size_t n_columns)
{
  GtkColumnView *view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  GtkSortListModel *sorted = gtk_sort_list_model_new (rows, NULL);
  gtk_sort_list_model_set_sorter (sorted, gtk_column_view_get_sorter (view));
  GtkSingleSelection *selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_single_selection_set_selected (selection, GTK_INVALID_LIST_POSITION);
  gtk_column_view_set_model (view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  gtk_column_view_set_show_column_separators (view, TRUE);
  gtk_column_view_set_reorderable (view, FALSE);

  for (size_t k = 0; k < n_columns; k++)
    {
      const CwbAppLiveColumn *c = &columns[k];
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), (gpointer) c);
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), NULL);
      g_signal_connect (factory, "unbind", G_CALLBACK (cell_unbind), NULL);
      GtkColumnViewColumn *column = gtk_column_view_column_new (c->title, factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      if (c->compare != NULL || c->number_digits > 0)
        {
          GtkCustomSorter *sorter = gtk_custom_sorter_new (compare_rows, (gpointer) c, NULL);
          gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
          g_object_unref (sorter);
        }
      gtk_column_view_append_column (view, column);
      g_object_unref (column);
    }
  return view;
}

GtkSingleSelection *
cwb_app_live_table_selection (GtkColumnView *view)
{
  return GTK_SINGLE_SELECTION (gtk_column_view_get_model (view));
}

void
cwb_app_live_table_resort (GtkColumnView *view)
{
  /* The sort model sorts again when its sorter says it changed; the sorter is the view's
   * (the clicked columns), whose order is what changed here, as the values moved. The
   * selection follows its row to the row's new position. */
  GtkSorter *sorter = gtk_column_view_get_sorter (view);
  if (gtk_sorter_get_order (sorter) != GTK_SORTER_ORDER_NONE)
    gtk_sorter_changed (sorter, GTK_SORTER_CHANGE_DIFFERENT);
}

GtkColumnViewColumn *
cwb_app_live_table_column (GtkColumnView *view, const char *title)
{
  GListModel *columns = gtk_column_view_get_columns (view);
  for (guint k = 0; k < g_list_model_get_n_items (columns); k++)
    {
      g_autoptr (GtkColumnViewColumn) column = g_list_model_get_item (columns, k);
      if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        return column;   /* the view holds it */
    }
  return NULL;
}

gssize
cwb_app_live_table_position (GtkColumnView *view, guint index)
{
  GListModel *rows = G_LIST_MODEL (gtk_column_view_get_model (view));
  for (guint k = 0; k < g_list_model_get_n_items (rows); k++)
    {
      g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (rows, k);
      if (row->index == index)
        return (gssize) k;
    }
  return -1;
}

/* The list view inside the column view, which knows how to scroll to a row. */
static GtkWidget *
inner_list (GtkColumnView *view)
{
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (view)); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_LIST_VIEW (c))
      return c;
  return NULL;
}

void
cwb_app_live_table_select (GtkColumnView *view, gssize position)
{
  GtkSingleSelection *selection = cwb_app_live_table_selection (view);
  gtk_single_selection_set_selected (selection, position >= 0 ? (guint) position
                                                              : GTK_INVALID_LIST_POSITION);
  GtkWidget *list = inner_list (view);
  if (position >= 0 && list != NULL)
    gtk_widget_activate_action (list, "list.scroll-to-item", "u", (guint) position);
}

int
cwb_app_live_compare_doubles (double a, double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) - isnan (b);
  return (a > b) - (a < b);
}

/* A live table (the sidebar's Bodies and Contacts tabs): a GtkColumnView over rows whose
 * values a running simulation changes several times a second. A row keeps its object while
 * its values change, so the row the user selected stays selected and the column the user
 * sorted by stays the sort: the shown cells re-show a row's values on its "changed" signal,
 * and cwb_app_live_table_resort puts the rows back in that column's order. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CWB_APP_TYPE_LIVE_ROW (cwb_app_live_row_get_type ())
G_DECLARE_FINAL_TYPE (CwbAppLiveRow, cwb_app_live_row, CWB_APP, LIVE_ROW, GObject)

/* A row of item `index` of what the table lists (a body, a contact frame), with `size` bytes
 * of values, zeroed; `clear` (may be NULL) frees what the values own when the row goes. */
CwbAppLiveRow *cwb_app_live_row_new (guint index, gsize size, GDestroyNotify clear);
guint cwb_app_live_row_index (CwbAppLiveRow *row);
gpointer cwb_app_live_row_values (CwbAppLiveRow *row);
/* After its values changed: its shown cells show them again (signal "changed"). */
void cwb_app_live_row_changed (CwbAppLiveRow *row);

/* How a cell shows a row's values, and how two rows' values compare (<0, 0, >0). */
typedef void (*CwbAppLiveFormat) (gconstpointer values, GString *text);
typedef int (*CwbAppLiveCompare) (gconstpointer a, gconstpointer b);

typedef struct CwbAppLiveColumn {
  const char *id;                /* the cells' widget name, for tests and CSS */
  const char *title;
  const char *tooltip;           /* each cell's (NULL: none) */
  CwbAppLiveFormat format;       /* NULL: the double at `number`, to `number_digits` */
  CwbAppLiveCompare compare;     /* NULL: by that double, or, without, no sorting */
  gboolean numeric;              /* right-aligned, figures of one width */
  /* A column that shows one double of the values (CWB_APP_LIVE_NUMBER): its offset, and
   * the significant digits it is printed with (0: not such a column). */
  gsize number;
  int number_digits;
} CwbAppLiveColumn;

/* The tail of a column showing the double `field` of `type` to `digits` significant digits,
 * sorting by it. */
#define CWB_APP_LIVE_NUMBER(type, field, digits)                                             \
  NULL, NULL, TRUE, offsetof (type, field), digits

/* A column view of `rows` (a GListModel of CwbAppLiveRow, taken), in the rows' order until a
 * column's title is clicked, then sorted by that column (rows that compare equal in the
 * order of their index); one row selectable, none at first. `columns` are borrowed for the
 * view's life (static tables). */
GtkColumnView *cwb_app_live_table_new (GListModel *rows, const CwbAppLiveColumn *columns,
                                       size_t n_columns);
/* The view's selection, over the rows in the view's order. */
GtkSingleSelection *cwb_app_live_table_selection (GtkColumnView *view);
/* After rows' values changed: the rows in the sorted column's order again, the selected row
 * still selected. Nothing to do while no column sorts. */
void cwb_app_live_table_resort (GtkColumnView *view);
/* The column titled `title`, or NULL. */
GtkColumnViewColumn *cwb_app_live_table_column (GtkColumnView *view, const char *title);
/* Where the row of item `index` is in the view's order, or -1. */
gssize cwb_app_live_table_position (GtkColumnView *view, guint index);
/* Selects the row at `position` in the view's order (-1: none) and scrolls it into view. */
void cwb_app_live_table_select (GtkColumnView *view, gssize position);

/* The order of numeric columns: numbers ascending, NaN ("does not apply") after them. */
int cwb_app_live_compare_doubles (double a, double b);

G_END_DECLS

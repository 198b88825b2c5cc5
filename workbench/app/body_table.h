/* The sidebar's Bodies tab: one row per body of the state shown (the snapshot the view
 * draws, while the run plays and when the history scrubber moves): its name, body model,
 * whether it is fixed, the position of its centre of mass, its speed and velocity, its
 * angular speed, its kinetic energy and how many contact frames touch it. Every column
 * sorts (numbers as numbers); a click on a row selects that body, as the Scene list does.
 * The rows are updated in place while the number of bodies stays the same, so the selected
 * row and the sort stay put while the run plays. */
#pragma once

#include <gtk/gtk.h>

#include "live_table.h"
#include "snapshot.h"

G_BEGIN_DECLS

/* One row's values (cwb_app_live_row_values of a row of cwb_app_body_table_rows). */
typedef struct CwbAppBodyValues {
  char *name;
  char *model;               /* body-model plugin */
  gboolean fixed;
  double centroid[3];        /* centre of mass, world, m */
  double rotation[3];        /* orientation as rotations about x, y, z (degrees, x first) */
  double velocity[3];        /* of the centre of mass, m/s */
  double speed;              /* |velocity| */
  double angular_speed;      /* |angular velocity|, rad/s */
  double kinetic_energy;     /* the body model's summary, J */
  guint contacts;            /* contact frames with the body on either side */
} CwbAppBodyValues;

#define CWB_APP_TYPE_BODY_TABLE (cwb_app_body_table_get_type ())
G_DECLARE_FINAL_TYPE (CwbAppBodyTable, cwb_app_body_table, CWB_APP, BODY_TABLE, GtkBox)

/* Signal "body-picked" (const char *name): the user clicked the row of that body. */
GtkWidget *cwb_app_body_table_new (void);
/* Shows the bodies of `snapshot` (borrowed; NULL: none). Showing the state already shown
 * (same world, same step) does nothing. */
void cwb_app_body_table_show (CwbAppBodyTable *table, const CwbSnapshot *snapshot);
/* Selects the row of the body `name` (NULL: none), without "body-picked": the table follows
 * a selection made elsewhere. */
void cwb_app_body_table_select (CwbAppBodyTable *table, const char *name);
/* The body of the selected row, or NULL. */
const char *cwb_app_body_table_selected (CwbAppBodyTable *table);
GtkColumnView *cwb_app_body_table_view (CwbAppBodyTable *table);
/* The rows (CwbAppLiveRow, index: the body's in the snapshot) in the table's order. */
GListModel *cwb_app_body_table_rows (CwbAppBodyTable *table);

G_END_DECLS

/* The sidebar's Contacts tab: the contact frames of the state shown, one row each: index,
 * bodies ("a on b"), normal force f_n, tangential force |f_t|, the friction ratio
 * gauge / (mu f_n) as the Inspector shows it (1 on the friction set's boundary), state
 * (stick, slip, open), gap, intersection volume and point. Every column sorts (numbers as
 * numbers), so sorting by f_n finds the largest force. A click on a row picks that contact;
 * Previous and Next pick the one before or after the picked one in the table's order, and a
 * label says where it is ("contact 3 of 17"). The rows are updated in place as the run plays,
 * so the sort and the picked row stay. */
#pragma once

#include <gtk/gtk.h>

#include "live_table.h"
#include "snapshot.h"

G_BEGIN_DECLS

/* One row's values (cwb_app_live_row_values of a row of cwb_app_contact_table_rows, whose
 * index is the frame's too). */
typedef struct CwbAppContactValues {
  guint index;                 /* the frame's in snapshot->frames */
  char *body_a, *body_b;       /* names, "environment" for no body */
  double normal_force;         /* f_n = force[0], N */
  double tangential_force;     /* |f_t| = hypot (force[1], force[2]), N */
  double friction_ratio;       /* cwb_friction_gauge / (mu f_n); NAN unless f_n, mu > 0 */
  CwbContactState state;
  double gap;                  /* m */
  double volume;               /* m^3; 0 for a point contact */
  double point[3];             /* the frame's origin, world */
} CwbAppContactValues;

#define CWB_APP_TYPE_CONTACT_TABLE (cwb_app_contact_table_get_type ())
G_DECLARE_FINAL_TYPE (CwbAppContactTable, cwb_app_contact_table, CWB_APP, CONTACT_TABLE, GtkBox)

/* Signal "contact-picked" (gint64 contact): the user picked that frame (a click on its row,
 * Previous or Next). */
GtkWidget *cwb_app_contact_table_new (void);
/* Shows the contact frames of `snapshot` (borrowed; NULL: none). Showing the state already
 * shown (same world, same step) does nothing. */
void cwb_app_contact_table_show (CwbAppContactTable *table, const CwbSnapshot *snapshot);
/* The picked frame (-1: none): its row is selected, without "contact-picked" (the table
 * follows a pick made in the view). */
void cwb_app_contact_table_set_picked (CwbAppContactTable *table, gssize contact);
gssize cwb_app_contact_table_picked (CwbAppContactTable *table);
/* Previous (direction -1) or Next (+1), as the buttons do: picks the row before or after the
 * picked one in the table's order (the first, or the last, when none is picked; the ends
 * stay) and emits "contact-picked". */
void cwb_app_contact_table_step (CwbAppContactTable *table, int direction);
/* "contact 3 of 17": the picked row's place in the table's order. */
const char *cwb_app_contact_table_position_text (CwbAppContactTable *table);
GtkColumnView *cwb_app_contact_table_view (CwbAppContactTable *table);
/* The rows (CwbAppLiveRow) in the table's order. */
GListModel *cwb_app_contact_table_rows (CwbAppContactTable *table);

G_END_DECLS

/* The Contacts tab (contact_table.h): the contact frames of the state shown, live, and
 * stepping the picked one through them in the table's order. */
#include <math.h>
#include <string.h>

#include <cwb/coulomb.h>
#include <cwb/vecmath.h>

#include "contact_table.h"

struct _CwbAppContactTable {
  GtkBox parent;
  GListStore *rows;            /* CwbAppLiveRow, row k for frame k */
  GtkColumnView *view;
  GtkWidget *previous, *next;
  GtkLabel *position;          /* "contact 3 of 17" */
  gssize picked;               /* frame index, -1: none */
  gboolean shown;              /* a snapshot is shown: */
  guint64 shown_serial, shown_steps;   /* ... its world and step */
  gboolean updating;           /* the table changes its own rows or selection: no signal */
};

G_DEFINE_FINAL_TYPE (CwbAppContactTable, cwb_app_contact_table, GTK_TYPE_BOX)

enum { SIGNAL_CONTACT_PICKED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- columns ---------------------------------------------------------------------------- */

#define VALUES(p) ((const CwbAppContactValues *) (p))

static void
clear_values (gpointer data)
{
  CwbAppContactValues *v = data;
  g_free (v->body_a);
  g_free (v->body_b);
}

static void
format_index (gconstpointer v, GString *text)
{
  g_string_append_printf (text, "%u", VALUES (v)->index);
}

static int
compare_index (gconstpointer a, gconstpointer b)
{
  return (VALUES (a)->index > VALUES (b)->index) - (VALUES (a)->index < VALUES (b)->index);
}

static void
format_bodies (gconstpointer v, GString *text)
{
  g_string_append_printf (text, "%s on %s", VALUES (v)->body_a, VALUES (v)->body_b);
}

static int
compare_bodies (gconstpointer a, gconstpointer b)
{
  int c = g_strcmp0 (VALUES (a)->body_a, VALUES (b)->body_a);
  return c != 0 ? c : g_strcmp0 (VALUES (a)->body_b, VALUES (b)->body_b);
}

static void
format_friction_ratio (gconstpointer v, GString *text)
{
  double r = VALUES (v)->friction_ratio;
  if (isnan (r))
    g_string_append (text, "—");
  else
    g_string_append_printf (text, "%.3f", r);
}

static int
compare_friction_ratio (gconstpointer a, gconstpointer b)
{
  return cwb_app_live_compare_doubles (VALUES (a)->friction_ratio, VALUES (b)->friction_ratio);
}

static void
format_state (gconstpointer v, GString *text)
{
  switch (VALUES (v)->state)
    {
    case CWB_CONTACT_STICK:
      g_string_append (text, "stick");
      break;
    case CWB_CONTACT_SLIP:
      g_string_append (text, "slip");
      break;
    case CWB_CONTACT_OPEN:
    default:
      g_string_append (text, "open");
      break;
    }
}

static int
compare_state (gconstpointer a, gconstpointer b)
{
  return (int) VALUES (a)->state - (int) VALUES (b)->state;
}

static void
format_volume (gconstpointer v, GString *text)
{
  if (VALUES (v)->volume > 0)
    g_string_append_printf (text, "%.3g", VALUES (v)->volume);
  else
    g_string_append (text, "—");
}

static int
compare_volume (gconstpointer a, gconstpointer b)
{
  return cwb_app_live_compare_doubles (VALUES (a)->volume, VALUES (b)->volume);
}

static void
format_point (gconstpointer v, GString *text)
{
  const double *p = VALUES (v)->point;
  g_string_append_printf (text, "[%.3f, %.3f, %.3f]", p[0], p[1], p[2]);
}

static int
compare_point (gconstpointer a, gconstpointer b)
{
  for (int k = 0; k < 3; k++)
    {
      int c = cwb_app_live_compare_doubles (VALUES (a)->point[k], VALUES (b)->point[k]);
      if (c != 0)
        return c;
    }
  return 0;
}

static const CwbAppLiveColumn columns[] = {
  { "index", "#", "The frame's index, as the Inspector and the view count them", format_index,
    compare_index, TRUE, 0, 0 },
  { "bodies", "Bodies", "Body a on body b (the normal points from b to a)", format_bodies,
    compare_bodies, FALSE, 0, 0 },
  { "normal-force", "f_n (N)", "Normal force on body a",
    CWB_APP_LIVE_NUMBER (CwbAppContactValues, normal_force, 4) },
  { "tangential-force", "|f_t| (N)", "Tangential (friction) force on body a",
    CWB_APP_LIVE_NUMBER (CwbAppContactValues, tangential_force, 4) },
  { "friction-ratio", "f_t / μ f_n",
    "|f_t| / (mu f_n) for the friction cone, (|f_t1| + |f_t2|) / (mu f_n) for the pyramid: "
    "1 on the friction set's boundary (slip), below it inside (stick); — without a normal "
    "force", format_friction_ratio, compare_friction_ratio, TRUE, 0, 0 },
  { "state", "State", "stick: inside the friction set; slip: on it; open: no force",
    format_state, compare_state, FALSE, 0, 0 },
  { "gap", "Gap (m)", "Signed distance, below 0 when the bodies overlap",
    CWB_APP_LIVE_NUMBER (CwbAppContactValues, gap, 3) },
  { "volume", "Volume (m³)", "Intersection volume of a volume contact", format_volume,
    compare_volume, TRUE, 0, 0 },
  { "point", "Point (m)", "The contact point, world frame (sorts by x, then y, then z)",
    format_point, compare_point, TRUE, 0, 0 },
};

/* ---- rows and the picked one ---------------------------------------------------------- */

static void
replace_text (char **slot, const char *text)
{
  if (g_strcmp0 (*slot, text) != 0)
    {
      g_free (*slot);
      *slot = g_strdup (text);
    }
}

static void
fill_values (CwbAppContactValues *v, const CwbSnapshot *s, guint k)
{
  const CwbContactFrame *f = &g_array_index (s->frames, CwbContactFrame, k);
  v->index = k;
  replace_text (&v->body_a, f->body_a < s->n_bodies ? s->bodies[f->body_a].name : "environment");
  replace_text (&v->body_b, f->body_b < s->n_bodies ? s->bodies[f->body_b].name : "environment");
  v->normal_force = f->force[0];
  v->tangential_force = hypot (f->force[1], f->force[2]);
  /* As the Inspector: the friction set's gauge over mu f_n (cwb/coulomb.h). */
  v->friction_ratio = f->force[0] > 0 && f->mu > 0
                        ? cwb_friction_gauge (s->friction_law, &f->force[1]) / (f->mu * f->force[0])
                        : NAN;
  v->state = f->state;
  v->gap = f->gap;
  v->volume = f->volume;
  cwb_v3_copy (v->point, f->origin);
}

/* The label and the buttons say where the picked row is in the table's order. */
static void
show_position (CwbAppContactTable *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  gssize at = self->picked >= 0
                ? cwb_app_live_table_position (self->view, (guint) self->picked)
                : -1;
  g_autofree char *text = n == 0   ? g_strdup ("no contacts")
                          : at < 0 ? g_strdup_printf ("%u contacts, none picked", n)
                                   : g_strdup_printf ("contact %zd of %u", at + 1, n);
  gtk_label_set_text (self->position, text);
  gtk_widget_set_sensitive (self->previous, n > 0 && at != 0);
  gtk_widget_set_sensitive (self->next, n > 0 && at != (gssize) n - 1);
}

/* The selection follows self->picked: the row of that frame, or none. */
static void
apply_picked (CwbAppContactTable *self)
{
  GtkSingleSelection *selection = cwb_app_live_table_selection (self->view);
  CwbAppLiveRow *current = gtk_single_selection_get_selected_item (selection);
  if (!(current != NULL && self->picked >= 0
        && cwb_app_live_row_index (current) == (guint) self->picked))
    {
      gssize at = self->picked >= 0
                    ? cwb_app_live_table_position (self->view, (guint) self->picked)
                    : -1;
      if (at >= 0 || current != NULL)
        cwb_app_live_table_select (self->view, at);
    }
  show_position (self);
}

void
cwb_app_contact_table_show (CwbAppContactTable *self, const CwbSnapshot *s)
{
  if (s != NULL && self->shown && s->world_serial == self->shown_serial
      && s->steps == self->shown_steps)
    return;
  self->updating = TRUE;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  guint n_frames = s != NULL ? s->frames->len : 0;
  /* Row k stays frame k's: rows are added or removed at the end only, so the selected row
   * keeps its object (and its place in the sort) while the frame count changes. */
  for (guint k = 0; k < MIN (n, n_frames); k++)
    {
      g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (G_LIST_MODEL (self->rows), k);
      fill_values (cwb_app_live_row_values (row), s, k);
      cwb_app_live_row_changed (row);
    }
  if (n_frames < n)
    g_list_store_splice (self->rows, n_frames, n - n_frames, NULL, 0);
  else if (n_frames > n)
    {
      /* Filled before the view sees them. */
      g_autoptr (GPtrArray) added = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint k = n; k < n_frames; k++)
        {
          CwbAppLiveRow *row = cwb_app_live_row_new (k, sizeof (CwbAppContactValues),
                                                     clear_values);
          fill_values (cwb_app_live_row_values (row), s, k);
          g_ptr_array_add (added, row);
        }
      g_list_store_splice (self->rows, n, 0, added->pdata, added->len);
    }
  cwb_app_live_table_resort (self->view);
  self->shown = s != NULL;
  self->shown_serial = s != NULL ? s->world_serial : 0;
  self->shown_steps = s != NULL ? s->steps : 0;
  apply_picked (self);
  self->updating = FALSE;
}

void
cwb_app_contact_table_set_picked (CwbAppContactTable *self, gssize contact)
{
  self->picked = MAX (contact, -1);
  self->updating = TRUE;
  apply_picked (self);
  self->updating = FALSE;
}

gssize
cwb_app_contact_table_picked (CwbAppContactTable *self)
{
  return self->picked;
}

void
cwb_app_contact_table_step (CwbAppContactTable *self, int direction)
{
  GListModel *rows = cwb_app_contact_table_rows (self);
  gssize n = (gssize) g_list_model_get_n_items (rows);
  if (n == 0 || direction == 0)
    return;
  gssize at = self->picked >= 0
                ? cwb_app_live_table_position (self->view, (guint) self->picked)
                : -1;
  gssize to = at < 0 ? (direction > 0 ? 0 : n - 1)
                     : CLAMP (at + (direction > 0 ? 1 : -1), 0, n - 1);
  if (to == at)
    return;
  g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (rows, (guint) to);
  self->picked = cwb_app_live_row_index (row);
  self->updating = TRUE;
  apply_picked (self);
  self->updating = FALSE;
  g_signal_emit (self, signals[SIGNAL_CONTACT_PICKED], 0, (gint64) self->picked);
}

const char *
cwb_app_contact_table_position_text (CwbAppContactTable *self)
{
  return gtk_label_get_text (self->position);
}

GtkColumnView *
cwb_app_contact_table_view (CwbAppContactTable *self)
{
  return self->view;
}

GListModel *
cwb_app_contact_table_rows (CwbAppContactTable *self)
{
  return G_LIST_MODEL (gtk_column_view_get_model (self->view));
}

/* A click on a row: that contact is picked. */
static void
selection_changed (GtkSingleSelection *selection, GParamSpec *pspec, CwbAppContactTable *self)
{
  if (self->updating)
    return;
  CwbAppLiveRow *row = gtk_single_selection_get_selected_item (selection);
  if (row == NULL)
    return;
  self->picked = cwb_app_live_row_index (row);
  show_position (self);
  g_signal_emit (self, signals[SIGNAL_CONTACT_PICKED], 0, (gint64) self->picked);
}

/* A sort by another column moves the picked row: the label says where to. */
static void
sorter_changed (GtkSorter *sorter, GtkSorterChange change, CwbAppContactTable *self)
{
  show_position (self);
}

static void
previous_clicked (GtkButton *button, CwbAppContactTable *self)
{
  cwb_app_contact_table_step (self, -1);
}

static void
next_clicked (GtkButton *button, CwbAppContactTable *self)
{
  cwb_app_contact_table_step (self, +1);
}

/* ---- construction --------------------------------------------------------------------- */

static void
cwb_app_contact_table_dispose (GObject *object)
{
  CwbAppContactTable *self = CWB_APP_CONTACT_TABLE (object);
  if (self->view != NULL)
    {
      g_signal_handlers_disconnect_by_data (cwb_app_live_table_selection (self->view), self);
      g_signal_handlers_disconnect_by_data (gtk_column_view_get_sorter (self->view), self);
    }
  self->view = NULL;
  G_OBJECT_CLASS (cwb_app_contact_table_parent_class)->dispose (object);
}

static void
cwb_app_contact_table_class_init (CwbAppContactTableClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = cwb_app_contact_table_dispose;
  signals[SIGNAL_CONTACT_PICKED] = g_signal_new ("contact-picked", G_TYPE_FROM_CLASS (klass),
                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 1, G_TYPE_INT64);
}

static void
cwb_app_contact_table_init (CwbAppContactTable *self)
{
  self->picked = -1;
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 6);

  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->previous = gtk_button_new_with_label ("Previous");
  gtk_widget_set_tooltip_text (self->previous, "Pick the contact above the picked one");
  g_signal_connect (self->previous, "clicked", G_CALLBACK (previous_clicked), self);
  self->next = gtk_button_new_with_label ("Next");
  gtk_widget_set_tooltip_text (self->next, "Pick the contact below the picked one");
  g_signal_connect (self->next, "clicked", G_CALLBACK (next_clicked), self);
  self->position = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->position, 0);
  gtk_box_append (GTK_BOX (bar), self->previous);
  gtk_box_append (GTK_BOX (bar), self->next);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->position));
  gtk_box_append (GTK_BOX (self), bar);

  self->rows = g_list_store_new (CWB_APP_TYPE_LIVE_ROW);
  /* The view takes the store. */
  self->view = cwb_app_live_table_new (G_LIST_MODEL (self->rows), columns,
                                       G_N_ELEMENTS (columns));
  g_signal_connect (cwb_app_live_table_selection (self->view), "notify::selected-item",
                    G_CALLBACK (selection_changed), self);
  g_signal_connect (gtk_column_view_get_sorter (self->view), "changed",
                    G_CALLBACK (sorter_changed), self);
  GtkWidget *sw = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (sw), GTK_WIDGET (self->view));
  gtk_widget_set_vexpand (sw, TRUE);
  gtk_box_append (GTK_BOX (self), sw);
  GtkWidget *hint = gtk_label_new ("The state shown in the view · click a title to sort · "
                                   "click a row to pick the contact and turn the view to it");
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_widget_add_css_class (hint, "dim-label");
  gtk_box_append (GTK_BOX (self), hint);
  show_position (self);
}

GtkWidget *
cwb_app_contact_table_new (void)
{
  return g_object_new (CWB_APP_TYPE_CONTACT_TABLE, NULL);
}

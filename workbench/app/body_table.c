/* The Bodies tab (body_table.h): the per-body values of the state shown, live. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "body_table.h"

struct _CwbAppBodyTable {
  GtkBox parent;
  GListStore *rows;            /* CwbAppLiveRow, in the snapshot's body order */
  GtkColumnView *view;
  char *selected;              /* the body whose row is selected, or NULL */
  gboolean shown;              /* a snapshot is shown: */
  guint64 shown_serial, shown_steps;   /* ... its world and step */
  gboolean updating;           /* the table changes its own rows or selection: no signal */
};

G_DEFINE_FINAL_TYPE (CwbAppBodyTable, cwb_app_body_table, GTK_TYPE_BOX)

enum { SIGNAL_BODY_PICKED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- columns ---------------------------------------------------------------------------- */

static void
clear_values (gpointer data)
{
  CwbAppBodyValues *v = data;
  g_free (v->name);
  g_free (v->model);
}

static int
compare_vectors (const double a[3], const double b[3])
{
  for (int k = 0; k < 3; k++)
    {
      int c = cwb_app_live_compare_doubles (a[k], b[k]);
      if (c != 0)
        return c;
    }
  return 0;
}

static void
format_name (gconstpointer v, GString *text)
{
  g_string_append (text, ((const CwbAppBodyValues *) v)->name);
}

static int
compare_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (((const CwbAppBodyValues *) a)->name, ((const CwbAppBodyValues *) b)->name);
}

static void
format_model (gconstpointer v, GString *text)
{
  g_string_append (text, ((const CwbAppBodyValues *) v)->model);
}

static int
compare_model (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (((const CwbAppBodyValues *) a)->model,
                    ((const CwbAppBodyValues *) b)->model);
}

static void
format_fixed (gconstpointer v, GString *text)
{
  g_string_append (text, ((const CwbAppBodyValues *) v)->fixed ? "fixed" : "");
}

static int
compare_fixed (gconstpointer a, gconstpointer b)
{
  return (int) ((const CwbAppBodyValues *) a)->fixed - (int) ((const CwbAppBodyValues *) b)->fixed;
}

static void
format_rotation (gconstpointer v, GString *text)
{
  const double *r = ((const CwbAppBodyValues *) v)->rotation;
  g_string_append_printf (text, "[%.1f, %.1f, %.1f]", r[0], r[1], r[2]);
}

static int
compare_rotation (gconstpointer a, gconstpointer b)
{
  return compare_vectors (((const CwbAppBodyValues *) a)->rotation,
                          ((const CwbAppBodyValues *) b)->rotation);
}

static void
format_position (gconstpointer v, GString *text)
{
  const double *p = ((const CwbAppBodyValues *) v)->centroid;
  g_string_append_printf (text, "[%.3f, %.3f, %.3f]", p[0], p[1], p[2]);
}

static int
compare_position (gconstpointer a, gconstpointer b)
{
  return compare_vectors (((const CwbAppBodyValues *) a)->centroid,
                          ((const CwbAppBodyValues *) b)->centroid);
}

static void
format_velocity (gconstpointer v, GString *text)
{
  const double *u = ((const CwbAppBodyValues *) v)->velocity;
  g_string_append_printf (text, "[%.3g, %.3g, %.3g]", u[0], u[1], u[2]);
}

static int
compare_velocity (gconstpointer a, gconstpointer b)
{
  return compare_vectors (((const CwbAppBodyValues *) a)->velocity,
                          ((const CwbAppBodyValues *) b)->velocity);
}

static void
format_contacts (gconstpointer v, GString *text)
{
  g_string_append_printf (text, "%u", ((const CwbAppBodyValues *) v)->contacts);
}

static int
compare_contacts (gconstpointer a, gconstpointer b)
{
  guint x = ((const CwbAppBodyValues *) a)->contacts, y = ((const CwbAppBodyValues *) b)->contacts;
  return (x > y) - (x < y);
}

static const CwbAppLiveColumn columns[] = {
  { "name", "Body", "The body's name", format_name, compare_name, FALSE, 0, 0 },
  { "model", "Model", "Body-model plugin", format_model, compare_model, FALSE, 0, 0 },
  { "fixed", "Fixed", "A fixed body never moves", format_fixed, compare_fixed, FALSE, 0, 0 },
  { "position", "Position (m)", "Centre of mass, world frame (sorts by x, then y, then z)",
    format_position, compare_position, TRUE, 0, 0 },
  { "rotation", "Rotation (°)",
    "Orientation: rotations about x, then y, then z, as the Properties panel's rotation",
    format_rotation, compare_rotation, TRUE, 0, 0 },
  { "speed", "|v| (m/s)", "Speed of the centre of mass",
    CWB_APP_LIVE_NUMBER (CwbAppBodyValues, speed, 4) },
  { "velocity", "v (m/s)", "Velocity of the centre of mass, world frame (sorts by x, y, z)",
    format_velocity, compare_velocity, TRUE, 0, 0 },
  { "angular-speed", "|ω| (rad/s)", "Angular speed",
    CWB_APP_LIVE_NUMBER (CwbAppBodyValues, angular_speed, 4) },
  { "kinetic-energy", "KE (J)", "Kinetic energy, translation and rotation (and deformation)",
    CWB_APP_LIVE_NUMBER (CwbAppBodyValues, kinetic_energy, 4) },
  { "contacts", "Contacts", "Contact frames touching the body", format_contacts,
    compare_contacts, TRUE, 0, 0 },
};

/* ---- rows --------------------------------------------------------------------------------- */

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
fill_values (CwbAppBodyValues *v, const CwbSnapshotBody *body, guint contacts)
{
  const CwbBodySummary *s = &body->summary;
  replace_text (&v->name, body->name);
  replace_text (&v->model, body->model);
  v->fixed = body->fixed;
  cwb_v3_copy (v->centroid, s->centroid);
  cwb_quat_to_euler_deg (v->rotation, s->orientation);
  cwb_v3_copy (v->velocity, s->linear_velocity);
  v->speed = cwb_v3_norm (s->linear_velocity);
  v->angular_speed = cwb_v3_norm (s->angular_velocity);
  v->kinetic_energy = s->kinetic_energy;
  v->contacts = contacts;
}

/* The selection follows self->selected: the row of that body, or none. */
static void
apply_selection (CwbAppBodyTable *self)
{
  GtkSingleSelection *selection = cwb_app_live_table_selection (self->view);
  CwbAppLiveRow *current = gtk_single_selection_get_selected_item (selection);
  if (current != NULL
      && g_strcmp0 (((CwbAppBodyValues *) cwb_app_live_row_values (current))->name,
                    self->selected) == 0)
    return;
  gssize position = -1;
  GListModel *rows = G_LIST_MODEL (selection);
  for (guint k = 0; self->selected != NULL && k < g_list_model_get_n_items (rows); k++)
    {
      g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (rows, k);
      if (g_strcmp0 (((CwbAppBodyValues *) cwb_app_live_row_values (row))->name,
                     self->selected) == 0)
        position = (gssize) k;
    }
  if (position >= 0 || current != NULL)
    cwb_app_live_table_select (self->view, position);
}

void
cwb_app_body_table_show (CwbAppBodyTable *self, const CwbSnapshot *s)
{
  if (s != NULL && self->shown && s->world_serial == self->shown_serial
      && s->steps == self->shown_steps)
    return;
  self->updating = TRUE;
  GListModel *store = G_LIST_MODEL (self->rows);
  guint n = g_list_model_get_n_items (store);
  size_t n_bodies = s != NULL ? s->n_bodies : 0;
  g_autofree guint *contacts = g_new0 (guint, MAX (n_bodies, 1));
  for (guint k = 0; s != NULL && k < s->frames->len; k++)
    {
      const CwbContactFrame *f = &g_array_index (s->frames, CwbContactFrame, k);
      if (f->body_a < n_bodies)
        contacts[f->body_a]++;
      if (f->body_b < n_bodies && f->body_b != f->body_a)
        contacts[f->body_b]++;
    }
  if (n == n_bodies)
    {
      /* The rows keep their objects: their cells re-show the new values. */
      for (size_t b = 0; b < n_bodies; b++)
        {
          g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (store, (guint) b);
          fill_values (cwb_app_live_row_values (row), &s->bodies[b], contacts[b]);
          cwb_app_live_row_changed (row);
        }
    }
  else
    {
      /* Bodies came or went: new rows, filled before the view sees them. */
      g_autoptr (GPtrArray) added = g_ptr_array_new_with_free_func (g_object_unref);
      for (size_t b = 0; b < n_bodies; b++)
        {
          CwbAppLiveRow *row = cwb_app_live_row_new ((guint) b, sizeof (CwbAppBodyValues),
                                                     clear_values);
          fill_values (cwb_app_live_row_values (row), &s->bodies[b], contacts[b]);
          g_ptr_array_add (added, row);
        }
      g_list_store_splice (self->rows, 0, n, added->pdata, added->len);
    }
  cwb_app_live_table_resort (self->view);
  self->shown = s != NULL;
  self->shown_serial = s != NULL ? s->world_serial : 0;
  self->shown_steps = s != NULL ? s->steps : 0;
  apply_selection (self);
  self->updating = FALSE;
}

void
cwb_app_body_table_select (CwbAppBodyTable *self, const char *name)
{
  if (g_strcmp0 (name, self->selected) != 0)
    {
      g_free (self->selected);
      self->selected = g_strdup (name);
    }
  self->updating = TRUE;
  apply_selection (self);
  self->updating = FALSE;
}

const char *
cwb_app_body_table_selected (CwbAppBodyTable *self)
{
  return self->selected;
}

GtkColumnView *
cwb_app_body_table_view (CwbAppBodyTable *self)
{
  return self->view;
}

GListModel *
cwb_app_body_table_rows (CwbAppBodyTable *self)
{
  return G_LIST_MODEL (gtk_column_view_get_model (self->view));
}

/* A click on a row: that body is picked. */
static void
selection_changed (GtkSingleSelection *selection, GParamSpec *pspec, CwbAppBodyTable *self)
{
  if (self->updating)
    return;
  CwbAppLiveRow *row = gtk_single_selection_get_selected_item (selection);
  if (row == NULL)
    return;
  const char *name = ((CwbAppBodyValues *) cwb_app_live_row_values (row))->name;
  replace_text (&self->selected, name);
  g_signal_emit (self, signals[SIGNAL_BODY_PICKED], 0, name);
}

/* ---- construction --------------------------------------------------------------------- */

static void
cwb_app_body_table_dispose (GObject *object)
{
  CwbAppBodyTable *self = CWB_APP_BODY_TABLE (object);
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_data (cwb_app_live_table_selection (self->view), self);
  self->view = NULL;
  G_OBJECT_CLASS (cwb_app_body_table_parent_class)->dispose (object);
}

static void
cwb_app_body_table_finalize (GObject *object)
{
  CwbAppBodyTable *self = CWB_APP_BODY_TABLE (object);
  g_free (self->selected);
  G_OBJECT_CLASS (cwb_app_body_table_parent_class)->finalize (object);
}

static void
cwb_app_body_table_class_init (CwbAppBodyTableClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = cwb_app_body_table_dispose;
  G_OBJECT_CLASS (klass)->finalize = cwb_app_body_table_finalize;
  signals[SIGNAL_BODY_PICKED] = g_signal_new ("body-picked", G_TYPE_FROM_CLASS (klass),
                                              G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                              G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
cwb_app_body_table_init (CwbAppBodyTable *self)
{
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  self->rows = g_list_store_new (CWB_APP_TYPE_LIVE_ROW);
  /* The view takes the store. */
  self->view = cwb_app_live_table_new (G_LIST_MODEL (self->rows), columns,
                                       G_N_ELEMENTS (columns));
  g_signal_connect (cwb_app_live_table_selection (self->view), "notify::selected-item",
                    G_CALLBACK (selection_changed), self);
  GtkWidget *sw = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (sw), GTK_WIDGET (self->view));
  gtk_widget_set_vexpand (sw, TRUE);
  gtk_box_append (GTK_BOX (self), sw);
  GtkWidget *hint = gtk_label_new ("The state shown in the view · click a title to sort · "
                                   "click a row to select the body");
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_widget_add_css_class (hint, "dim-label");
  gtk_box_append (GTK_BOX (self), hint);
}

GtkWidget *
cwb_app_body_table_new (void)
{
  return g_object_new (CWB_APP_TYPE_BODY_TABLE, NULL);
}

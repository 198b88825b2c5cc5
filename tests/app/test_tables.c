/* The sidebar's Bodies and Contacts tabs (body_table.h, contact_table.h) built from a real
 * world: the default scene (three boxes stacked on the ground, a ball, a FEM jelly, a ring)
 * stepped a few dozen times headless, its snapshot shown. The rows must say what the
 * snapshot says, stay the same objects (selection and sort with them) while the run goes on,
 * sort numerically by the clicked column, and Previous / Next must walk the sorted order. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <cwb/coulomb.h>
#include <cwb/vecmath.h>

#include "app_test_home.h"
#include "body_table.h"
#include "contact_table.h"
#include "registry.h"
#include "world.h"

/* gtk_init_check's answer: every test here needs GTK, and skips without a display. */
static gboolean have_display;

#define SKIP_WITHOUT_DISPLAY()                                                               \
  do                                                                                         \
    {                                                                                        \
      if (!have_display)                                                                     \
        {                                                                                    \
          g_test_skip ("no display (gtk_init_check failed): run under xvfb-run");           \
          return;                                                                            \
        }                                                                                    \
    }                                                                                        \
  while (0)

/* The summary's kinetic energy against 1/2 m |v|^2 + 1/2 omega . L from the same summary
 * (a rigid body's, Goldstein eq. 5.3 with L = I omega): they differ by round-off only. */
#define KINETIC_ENERGY_REL_TOL 1e-12

/* ---- a world to show ---------------------------------------------------------------------- */

typedef struct World {
  CwbRegistry *registry;
  CwbScene *scene;
  CwbWorld *world;
} World;

static void
world_open (World *w, const char *relative)
{
  g_autofree char *path = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), relative, NULL);
  g_autoptr (GError) error = NULL;
  w->registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (w->registry);
  cwb_registry_scan (w->registry);
  w->scene = cwb_scene_load (path, &error);
  g_assert_no_error (error);
  w->world = cwb_world_new (w->scene, w->registry, &error);
  g_assert_no_error (error);
}

static CwbSnapshot *
world_step (World *w, int steps)
{
  g_autoptr (GError) error = NULL;
  for (int k = 0; k < steps; k++)
    g_assert_true (cwb_world_step (w->world, &error));
  g_assert_no_error (error);
  return cwb_snapshot_capture (w->world, NULL);
}

static void
world_close (World *w)
{
  cwb_world_free (w->world);
  cwb_scene_free (w->scene);
  cwb_registry_free (w->registry);
}

static const CwbAppBodyValues *
body_values (GListModel *rows, guint position)
{
  g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (rows, position);
  return cwb_app_live_row_values (row);   /* the model holds the row */
}

static const CwbAppContactValues *
contact_values (GListModel *rows, guint position)
{
  g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (rows, position);
  return cwb_app_live_row_values (row);
}

static guint
row_index (GListModel *rows, guint position)
{
  g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (rows, position);
  return cwb_app_live_row_index (row);
}

/* Frames of `s` with `body` on either side, counted here independently of the table. */
static guint
count_contacts (const CwbSnapshot *s, size_t body)
{
  guint n = 0;
  for (guint k = 0; k < s->frames->len; k++)
    {
      const CwbContactFrame *f = &g_array_index (s->frames, CwbContactFrame, k);
      n += f->body_a == body || f->body_b == body;
    }
  return n;
}

/* Every row of the body table against the snapshot's summaries. */
static void
assert_bodies_match (GListModel *rows, const CwbSnapshot *s)
{
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, s->n_bodies);
  guint rigid = 0, touching = 0;
  for (guint p = 0; p < s->n_bodies; p++)
    {
      guint b = row_index (rows, p);
      g_assert_cmpuint (b, <, s->n_bodies);
      const CwbAppBodyValues *v = body_values (rows, p);
      const CwbSnapshotBody *body = &s->bodies[b];
      const CwbBodySummary *sum = &body->summary;
      g_assert_cmpstr (v->name, ==, body->name);
      g_assert_cmpstr (v->model, ==, body->model);
      g_assert_cmpint (v->fixed, ==, body->fixed);
      for (int k = 0; k < 3; k++)
        {
          g_assert_cmpfloat (v->centroid[k], ==, sum->centroid[k]);

          g_assert_cmpfloat (v->velocity[k], ==, sum->linear_velocity[k]);
        }
      /* The rotation column turned back into a quaternion is the body's orientation (up to
       * sign), to 1e-12: a few trigonometric round-offs. */
      double q[4];
      cwb_quat_from_euler_deg (q, v->rotation);
      double dot = q[0] * sum->orientation[0] + q[1] * sum->orientation[1]
                   + q[2] * sum->orientation[2] + q[3] * sum->orientation[3];
      g_assert_cmpfloat_with_epsilon (fabs (dot), 1, 1e-12);
      g_assert_cmpfloat (v->speed, ==, cwb_v3_norm (sum->linear_velocity));
      g_assert_cmpfloat (v->angular_speed, ==, cwb_v3_norm (sum->angular_velocity));
      g_assert_cmpfloat (v->kinetic_energy, ==, sum->kinetic_energy);
      if (strcmp (body->model, "rigid") == 0)
        {
          double v2 = cwb_v3_dot (sum->linear_velocity, sum->linear_velocity);
          double expected = 0.5 * sum->mass * v2
                            + 0.5 * cwb_v3_dot (sum->angular_velocity, sum->angular_momentum);
          g_assert_cmpfloat (fabs (v->kinetic_energy - expected), <=,
                             KINETIC_ENERGY_REL_TOL * fabs (expected) + DBL_MIN);
          rigid++;
        }
      g_assert_cmpuint (v->contacts, ==, count_contacts (s, b));
      touching += v->contacts > 0;
    }
  /* The default scene: five rigid bodies besides the ground and the jelly; the stack rests. */
  g_assert_cmpuint (rigid, >=, 5);
  g_assert_cmpuint (touching, >=, 4);
}

static void
assert_kinetic_energy_descending (GListModel *rows)
{
  for (guint p = 1; p < g_list_model_get_n_items (rows); p++)
    g_assert_cmpfloat (body_values (rows, p - 1)->kinetic_energy, >=,
                       body_values (rows, p)->kinetic_energy);
}

static gboolean
mapped (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_height (data) > 0;
}

static void
iterate_until (gboolean (*done) (gpointer), gpointer data)
{
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!done (data))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, FALSE);
    }
  /* And what the first frame set off. */
  for (int k = 0; k < 50; k++)
    g_main_context_iteration (NULL, FALSE);
}

/* The label named `id` in the same row as `cell` (the cells' parents are a row's widget). */
static GtkLabel *
sibling_cell (GtkWidget *cell, const char *id)
{
  GtkWidget *row = gtk_widget_get_parent (gtk_widget_get_parent (cell));
  for (GtkWidget *c = gtk_widget_get_first_child (row); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *label = gtk_widget_get_first_child (c);
      if (GTK_IS_LABEL (label) && g_strcmp0 (gtk_widget_get_name (label), id) == 0)
        return GTK_LABEL (label);
    }
  return NULL;
}

/* Collects the labels named `id` under `root`. */
static void
find_cells (GtkWidget *root, const char *id, GPtrArray *out)
{
  if (GTK_IS_LABEL (root) && g_strcmp0 (gtk_widget_get_name (root), id) == 0)
    g_ptr_array_add (out, root);
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    find_cells (c, id, out);
}

/* Each shown row's kinetic-energy cell shows that body's kinetic energy now. */
static void
assert_cells_show (GtkWidget *view, const CwbSnapshot *s)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  find_cells (view, "name", names);
  guint checked = 0;
  for (guint k = 0; k < names->len; k++)
    {
      const char *name = gtk_label_get_text (names->pdata[k]);
      GtkLabel *energy = sibling_cell (names->pdata[k], "kinetic-energy");
      g_assert_nonnull (energy);
      for (size_t b = 0; b < s->n_bodies; b++)
        if (strcmp (s->bodies[b].name, name) == 0)
          {
            g_autofree char *expected = g_strdup_printf ("%.4g",
                                                         s->bodies[b].summary.kinetic_energy);
            g_assert_cmpstr (gtk_label_get_text (energy), ==, expected);
            checked++;
          }
    }
  g_assert_cmpuint (checked, ==, s->n_bodies);
}

static void
count_signal (GObject *table, const char *name, guint *count)
{
  (*count)++;
}

/* ---- Bodies ------------------------------------------------------------------------------ */

/* The rows say what the snapshot's summaries say; selected and sorted by kinetic energy,
 * 20 steps later the same row objects hold the new values, the same body is selected, the
 * order is by the new energies, and the shown cells show them. */
static void
test_body_rows (void)
{
  SKIP_WITHOUT_DISPLAY ();
  World w;
  world_open (&w, "scenes/default.yaml");
  g_autoptr (CwbSnapshot) s = world_step (&w, 40);
  g_assert_cmpuint (s->frames->len, >, 0);

  GtkWidget *window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 500);
  CwbAppBodyTable *table = CWB_APP_BODY_TABLE (cwb_app_body_table_new ());
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (table));
  guint picked = 0;
  g_signal_connect (table, "body-picked", G_CALLBACK (count_signal), &picked);
  cwb_app_body_table_show (table, s);
  GListModel *rows = cwb_app_body_table_rows (table);
  assert_bodies_match (rows, s);
  /* Unsorted: the scene's order. */
  for (guint p = 0; p < s->n_bodies; p++)
    g_assert_cmpuint (row_index (rows, p), ==, p);

  GtkColumnView *view = cwb_app_body_table_view (table);
  GtkColumnViewColumn *energy = cwb_app_live_table_column (view, "KE (J)");
  g_assert_nonnull (energy);
  gtk_column_view_sort_by_column (view, energy, GTK_SORT_DESCENDING);
  assert_kinetic_energy_descending (rows);
  cwb_app_body_table_select (table, "box-2");
  g_assert_cmpstr (cwb_app_body_table_selected (table), ==, "box-2");
  GtkSingleSelection *selection = GTK_SINGLE_SELECTION (rows);
  CwbAppLiveRow *selected = gtk_single_selection_get_selected_item (selection);
  g_assert_nonnull (selected);
  g_assert_cmpstr (((CwbAppBodyValues *) cwb_app_live_row_values (selected))->name, ==,
                   "box-2");
  g_assert_cmpuint (picked, ==, 0);   /* following a selection is no pick */

  gtk_window_present (GTK_WINDOW (window));
  iterate_until (mapped, view);
  assert_cells_show (GTK_WIDGET (view), s);

  /* The run goes on: same objects, new values. */
  g_autoptr (GPtrArray) before = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint p = 0; p < s->n_bodies; p++)
    g_ptr_array_add (before, g_list_model_get_item (rows, p));
  g_autoptr (CwbSnapshot) later = world_step (&w, 20);
  g_assert_cmpuint (later->steps, ==, s->steps + 20);
  cwb_app_body_table_show (table, later);
  assert_bodies_match (rows, later);
  assert_kinetic_energy_descending (rows);
  for (guint p = 0; p < later->n_bodies; p++)
    {
      g_autoptr (CwbAppLiveRow) row = g_list_model_get_item (rows, p);
      g_assert_true (g_ptr_array_find (before, row, NULL));
    }
  g_assert_true (gtk_single_selection_get_selected_item (selection) == selected);
  g_assert_cmpuint (picked, ==, 0);
  iterate_until (mapped, view);
  assert_cells_show (GTK_WIDGET (view), later);

  /* A user's click on a row (the selection set as a click sets it) picks that body. */
  gssize ball = -1;
  for (guint p = 0; p < later->n_bodies; p++)
    if (strcmp (body_values (rows, p)->name, "ball") == 0)
      ball = p;
  g_assert_cmpint (ball, >=, 0);
  gtk_single_selection_set_selected (selection, (guint) ball);
  g_assert_cmpuint (picked, ==, 1);
  g_assert_cmpstr (cwb_app_body_table_selected (table), ==, "ball");

  gtk_window_destroy (GTK_WINDOW (window));
  world_close (&w);
}

/* ---- Contacts ----------------------------------------------------------------------------- */

static void
record_pick (CwbAppContactTable *table, gint64 contact, gint64 *out)
{
  *out = contact;
}

/* The rows say what the frames say, the sort by f_n is numeric both ways, and Previous /
 * Next walk the sorted order, clamped at its ends. */
static void
test_contact_rows (void)
{
  SKIP_WITHOUT_DISPLAY ();
  World w;
  world_open (&w, "scenes/default.yaml");
  g_autoptr (CwbSnapshot) s = world_step (&w, 40);
  guint n = s->frames->len;
  /* Three boxes stacked on the ground: four corners each at least. */
  g_assert_cmpuint (n, >=, 12);

  g_autoptr (CwbAppContactTable) table
    = CWB_APP_CONTACT_TABLE (g_object_ref_sink (cwb_app_contact_table_new ()));
  gint64 picked = -2;
  g_signal_connect (table, "contact-picked", G_CALLBACK (record_pick), &picked);
  cwb_app_contact_table_show (table, s);
  GListModel *rows = cwb_app_contact_table_rows (table);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n);
  guint with_force = 0;
  for (guint p = 0; p < n; p++)
    {
      guint k = row_index (rows, p);
      g_assert_cmpuint (k, ==, p);   /* unsorted: the frames' order */
      const CwbContactFrame *f = &g_array_index (s->frames, CwbContactFrame, k);
      const CwbAppContactValues *v = contact_values (rows, p);
      g_assert_cmpuint (v->index, ==, k);
      g_assert_cmpstr (v->body_a, ==,
                       f->body_a < s->n_bodies ? s->bodies[f->body_a].name : "environment");
      g_assert_cmpstr (v->body_b, ==,
                       f->body_b < s->n_bodies ? s->bodies[f->body_b].name : "environment");
      g_assert_cmpfloat (v->normal_force, ==, f->force[0]);
      g_assert_cmpfloat (v->tangential_force, ==, hypot (f->force[1], f->force[2]));
      if (f->force[0] > 0 && f->mu > 0)
        g_assert_cmpfloat (v->friction_ratio, ==,
                           cwb_friction_gauge (s->friction_law, &f->force[1])
                             / (f->mu * f->force[0]));
      else
        g_assert_true (isnan (v->friction_ratio));
      g_assert_cmpint (v->state, ==, f->state);
      g_assert_cmpfloat (v->gap, ==, f->gap);
      g_assert_cmpfloat (v->volume, ==, f->volume);
      for (int d = 0; d < 3; d++)
        g_assert_cmpfloat (v->point[d], ==, f->origin[d]);
      with_force += f->force[0] > 0;
    }
  /* The forces differ (the stack's weight grows downwards), so the order means something. */
  g_assert_cmpuint (with_force, >=, 12);
  g_autofree char *none = g_strdup_printf ("%u contacts, none picked", n);
  g_assert_cmpstr (cwb_app_contact_table_position_text (table), ==, none);

  GtkColumnView *view = cwb_app_contact_table_view (table);
  GtkColumnViewColumn *normal = cwb_app_live_table_column (view, "f_n (N)");
  g_assert_nonnull (normal);
  gtk_column_view_sort_by_column (view, normal, GTK_SORT_ASCENDING);
  for (guint p = 1; p < n; p++)
    g_assert_cmpfloat (contact_values (rows, p - 1)->normal_force, <=,
                       contact_values (rows, p)->normal_force);
  gtk_column_view_sort_by_column (view, normal, GTK_SORT_DESCENDING);
  for (guint p = 1; p < n; p++)
    g_assert_cmpfloat (contact_values (rows, p - 1)->normal_force, >=,
                       contact_values (rows, p)->normal_force);
  g_assert_cmpfloat (contact_values (rows, 0)->normal_force, >,
                     contact_values (rows, n - 1)->normal_force);

  /* Next from none picks the largest force, then each next in the order. */
  GtkSingleSelection *selection = GTK_SINGLE_SELECTION (rows);
  for (guint p = 0; p < 3; p++)
    {
      cwb_app_contact_table_step (table, +1);
      g_assert_cmpint (picked, ==, (gint64) row_index (rows, p));
      g_assert_cmpint (cwb_app_contact_table_picked (table), ==, picked);
      g_assert_cmpuint (gtk_single_selection_get_selected (selection), ==, p);
      g_autofree char *text = g_strdup_printf ("contact %u of %u", p + 1, n);
      g_assert_cmpstr (cwb_app_contact_table_position_text (table), ==, text);
    }
  cwb_app_contact_table_step (table, -1);
  g_assert_cmpint (picked, ==, (gint64) row_index (rows, 1));
  cwb_app_contact_table_step (table, -1);
  g_assert_cmpint (picked, ==, (gint64) row_index (rows, 0));
  /* At the first row Previous stays. */
  picked = -2;
  cwb_app_contact_table_step (table, -1);
  g_assert_cmpint (picked, ==, -2);
  g_assert_cmpint (cwb_app_contact_table_picked (table), ==, (gint64) row_index (rows, 0));

  /* A pick made elsewhere (the view): the row follows, no signal. */
  guint last = row_index (rows, n - 1);
  cwb_app_contact_table_set_picked (table, last);
  g_assert_cmpint (picked, ==, -2);
  g_assert_cmpuint (gtk_single_selection_get_selected (selection), ==, n - 1);
  cwb_app_contact_table_step (table, +1);   /* at the last row Next stays */
  g_assert_cmpint (picked, ==, -2);

  /* The run goes on: the picked frame's row is still selected, still sorted. */
  g_autoptr (CwbSnapshot) later = world_step (&w, 5);
  cwb_app_contact_table_show (table, later);
  guint m = later->frames->len;
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, m);
  for (guint p = 1; p < m; p++)
    g_assert_cmpfloat (contact_values (rows, p - 1)->normal_force, >=,
                       contact_values (rows, p)->normal_force);
  for (guint p = 0; p < m; p++)
    {
      const CwbAppContactValues *v = contact_values (rows, p);
      g_assert_cmpfloat (v->normal_force, ==,
                         g_array_index (later->frames, CwbContactFrame, v->index).force[0]);
    }
  if (last < m)
    {
      CwbAppLiveRow *row = gtk_single_selection_get_selected_item (selection);
      g_assert_nonnull (row);
      g_assert_cmpuint (cwb_app_live_row_index (row), ==, last);
    }
  else
    g_assert_null (gtk_single_selection_get_selected_item (selection));
  world_close (&w);
}

int
main (int argc, char **argv)
{
  app_test_home ("cwb-test-tables");
  g_test_init (&argc, &argv, NULL);
  have_display = gtk_init_check ();
  g_test_add_func ("/app/tables/bodies", test_body_rows);
  g_test_add_func ("/app/tables/contacts", test_contact_rows);
  return g_test_run ();
}

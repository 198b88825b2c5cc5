/* The `ldi` model on many bodies (plugins/contact-ldi/ldi_model.c, pair_ldi.c, contact_id.c):
 * one LDI per overlapping pair over its overlap, with only the triangles that can bound the
 * pair's intersection there, kept from one detection to the next; the automatic pixel size;
 * the contacts' identities.
 *
 *   - engulfed: a small box wholly inside a large one, whose faces all lie outside the pair's
 *     box: the culled LDI keeps the large box's faces below it, so the rays still know they
 *     start inside the large box, and the volume is the small box's (closed form, exact on
 *     pixel boundaries);
 *   - reuse: three boxes in a stack, the top one moved between two detections of one model
 *     instance: the kept pairs and the re-rasterised one give bitwise the contact set a fresh
 *     instance measures; a detection with nothing moved gives it again;
 *   - auto-pixel: pixel_size 0 takes the smaller body's size 6 V / A over pixels_per_body
 *     (the rows' tolerance is half that pixel, the spans carry it);
 *   - identity packing: distinct (pair, cell) give distinct, non-zero ids, packed or hashed;
 *   - identity at rest: a box resting on the ground, one volume and 5 cm cells: three
 *     consecutive steps' contacts carry the same ids, unique within each set. */
#include <math.h>

#include <cwb/cwb.h>

#include "contact_id.h"
#include "ldi_fixture.h"
#include "registry.h"
#include "world_fixture.h"
#include "world_private.h"

/* Faces on pixel boundaries: each image counts a box's volume as a sum of equal terms,
 * exact to a few ulps (as tests/ldi/test_ldi_model.c). */
#define TOLERANCE 1e-12
#define PIXEL 0.01

/* ---- The model through its vtable on hand-placed bodies ---------------------------------- */

typedef struct Scene {
  guint n;
  TestBody *bodies[4];
  CwbGeometry geometries[4];
  double friction[4];
  gboolean fixed[4];
} Scene;

static void
scene_add (Scene *scene, TestBody *body, gboolean fixed)
{
  guint b = scene->n++;
  scene->bodies[b] = body;
  scene->friction[b] = 0.5;
  scene->fixed[b] = fixed;
}

static void
scene_sync (Scene *scene)
{
  for (guint b = 0; b < scene->n; b++)
    {
      TestBody *body = scene->bodies[b];
      scene->geometries[b] = (CwbGeometry) {
        .struct_size = sizeof (CwbGeometry),
        .kind = CWB_GEOMETRY_SURFACE,
        .body = b,
        .n_points = body->surface.n_vertices,
        .positions = (double *) body->surface.positions,
        .triangles = body->surface.triangles,
        .n_triangles = body->surface.n_triangles,
        .closed = TRUE,
      };
    }
}

static void
scene_clear (Scene *scene)
{
  for (guint b = 0; b < scene->n; b++)
    test_body_free (scene->bodies[b]);
}

static CwbContactQuery
scene_query (Scene *scene)
{
  scene_sync (scene);
  return (CwbContactQuery) {
    .struct_size = sizeof (CwbContactQuery),
    .geometries = scene->geometries,
    .n_geometries = scene->n,
    .friction = scene->friction,
    .n_bodies = scene->n,
    .h = 0.005,
    .pass = CWB_CONTACT_PASS_VELOCITY,
    .body_fixed = scene->fixed,
  };
}

/* A model instance with the given parameters (names, and values as scene text). */
typedef struct Model {
  CwbRegistry *registry;
  const CwbContactModelVTable *vt;
  void *self;
  CwbContactSet set;
  CwbInspection inspection;
} Model;

static void
model_init (Model *m, const char *const *names, const CwbParamValue *values, guint n)
{
  m->registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (m->registry);
  cwb_registry_scan (m->registry);
  const CwbPluginDesc *desc = cwb_registry_find (m->registry, CWB_PLUGIN_CONTACT_MODEL, "ldi");
  g_assert_nonnull (desc);
  m->vt = desc->vtable;
  CwbParamSpec specs[8];
  CwbParamValue vals[8];
  g_assert_cmpuint (n, <=, 8);
  for (guint k = 0; k < n; k++)
    {
      const CwbParamSpec *spec = NULL;
      for (size_t j = 0; j < desc->n_params; j++)
        if (strcmp (desc->params[j].name, names[k]) == 0)
          spec = &desc->params[j];
      g_assert_nonnull (spec);
      specs[k] = *spec;
      vals[k] = values[k];
    }
  CwbParamSet set = { .struct_size = sizeof set, .specs = specs, .values = vals, .n = n };
  CwbContactModelCreateInfo info = { .struct_size = sizeof info, .params = &set };
  g_autoptr (GError) error = NULL;
  m->self = m->vt->create (&info, NULL, &error);
  g_assert_no_error (error);
  cwb_contact_set_init (&m->set);
  cwb_inspection_init (&m->inspection);
}

static void
model_clear (Model *m)
{
  m->vt->destroy (m->self);
  cwb_contact_set_destroy (&m->set);
  cwb_inspection_destroy (&m->inspection);
  cwb_registry_free (m->registry);
}

static void
model_attach (Model *m, Scene *scene)
{
  CwbContactQuery query = scene_query (scene);
  g_autoptr (GError) error = NULL;
  g_assert_true (m->vt->attach (m->self, &query, &error));
}

/* Detects and models the scene as it is now, into m->set and m->inspection. */
static void
model_run (Model *m, Scene *scene)
{
  CwbContactQuery query = scene_query (scene);
  g_autoptr (GError) error = NULL;
  cwb_contact_set_clear (&m->set);
  cwb_inspection_clear (&m->inspection);
  g_assert_true (m->vt->detect (m->self, &query, &error));
  g_assert_true (m->vt->model (m->self, &query, &m->set, &m->inspection, &error));
}

static const char *const fixed_names[] = { "pixel_size", "threads", "multi_volume" };

static void
fixed_values (CwbParamValue values[3], double pixel, gboolean multi_volume)
{
  values[0] = (CwbParamValue) { .type = CWB_PARAM_DOUBLE, .d = pixel };
  values[1] = (CwbParamValue) { .type = CWB_PARAM_INT, .i = 0 };   /* pairs over threads */
  values[2] = (CwbParamValue) { .type = CWB_PARAM_BOOL, .b = multi_volume };
}

static double
span_volume (const CwbInspection *inspection, uint32_t a, uint32_t b)
{
  double sum = 0;
  for (guint s = 0; s < inspection->spans->len; s++)
    {
      const CwbInspectSpan *span = &g_array_index (inspection->spans, CwbInspectSpan, s);
      if (span->body_a == a && span->body_b == b)
        sum += span->length * span->pixel_size * span->pixel_size;
    }
  return sum / 3;
}

static void
test_engulfed (void)
{
  Scene scene = { 0 };
  double big[3] = { 1, 1, 1 }, small[3] = { 0.2, 0.2, 0.2 }, origin[3] = { 0, 0, 0 };
  scene_add (&scene, test_body_box (big, origin, NULL, 0), FALSE);
  scene_add (&scene, test_body_box (small, origin, NULL, 1), FALSE);
  Model m;
  CwbParamValue values[3];
  fixed_values (values, PIXEL, FALSE);
  model_init (&m, fixed_names, values, 3);
  model_attach (&m, &scene);
  model_run (&m, &scene);
  /* Wholly inside, the small box's volume has no normal (its gradient cancels): no frame,
   * but every interval is shown. */
  g_assert_cmpfloat (fabs (span_volume (&m.inspection, 0, 1) - 0.008), <, TOLERANCE);
  model_clear (&m);
  scene_clear (&scene);
}

/* The sets' frames, rows, weights and identities, bitwise. */
static void
assert_sets_equal (const CwbContactSet *a, const CwbContactSet *b)
{
  g_assert_cmpuint (a->frames->len, ==, b->frames->len);
  g_assert_cmpuint (a->rows->len, ==, b->rows->len);
  g_assert_cmpuint (a->weights->len, ==, b->weights->len);
  g_assert_cmpuint (a->contact_ids->len, ==, a->frames->len);
  g_assert_cmpuint (b->contact_ids->len, ==, b->frames->len);
  g_assert_cmpmem (a->frames->data, a->frames->len * sizeof (CwbContactFrame), b->frames->data,
                   b->frames->len * sizeof (CwbContactFrame));
  g_assert_cmpmem (a->rows->data, a->rows->len * sizeof (CwbConstraintRow), b->rows->data,
                   b->rows->len * sizeof (CwbConstraintRow));
  g_assert_cmpmem (a->weights->data, a->weights->len * sizeof (CwbPointWeight),
                   b->weights->data, b->weights->len * sizeof (CwbPointWeight));
  g_assert_cmpmem (a->contact_ids->data, a->contact_ids->len * sizeof (guint64),
                   b->contact_ids->data, b->contact_ids->len * sizeof (guint64));
}

/* A fixed slab, a box sunk 1 cm into it, a second box sunk 1 cm into the first, offset so
 * that no face lies on a pixel centre. */
static void
stack_init (Scene *scene)
{
  double slab[3] = { 2, 2, 0.5 }, box[3] = { 0.3, 0.3, 0.3 };
  double slab_at[3] = { 0, 0, -0.25 }, low_at[3] = { 0.0131, -0.0217, 0.1403 };
  double high_at[3] = { 0.0523, 0.0311, 0.4309 };
  double q[4] = { 0.9961946980917455, 0, 0, 0.08715574274765817 };   /* 10 degrees about z */
  scene_add (scene, test_body_box (slab, slab_at, NULL, 0), TRUE);
  scene_add (scene, test_body_box (box, low_at, q, 1), FALSE);
  scene_add (scene, test_body_box (box, high_at, NULL, 2), FALSE);
}

static void
test_reuse (gconstpointer data)
{
  gboolean multi_volume = GPOINTER_TO_INT (data);
  Scene scene = { 0 };
  stack_init (&scene);
  CwbParamValue values[3];
  fixed_values (values, 0.007, multi_volume);
  Model kept, fresh;
  model_init (&kept, fixed_names, values, 3);
  model_attach (&kept, &scene);
  model_run (&kept, &scene);
  g_assert_cmpuint (kept.set.frames->len, >=, 2);

  /* The top box moves (the lower pair keeps its LDI), and again by less than the margin
   * (its pair keeps its box). */
  double moves[2][3] = { { 0.0013, -0.0007, -0.0011 }, { 0.0002, 0.0001, 0.0003 } };
  for (int k = 0; k < 2; k++)
    {
      test_body_translate (scene.bodies[2], moves[k]);
      model_run (&kept, &scene);
      model_init (&fresh, fixed_names, values, 3);
      model_attach (&fresh, &scene);
      model_run (&fresh, &scene);
      assert_sets_equal (&kept.set, &fresh.set);
      model_clear (&fresh);
    }
  /* Nothing moved: every pair keeps its LDI and volumes. */
  CwbContactSet before;
  cwb_contact_set_init (&before);
  g_array_append_vals (before.frames, kept.set.frames->data, kept.set.frames->len);
  g_array_append_vals (before.rows, kept.set.rows->data, kept.set.rows->len);
  g_array_append_vals (before.weights, kept.set.weights->data, kept.set.weights->len);
  g_array_append_vals (before.contact_ids, kept.set.contact_ids->data,
                       kept.set.contact_ids->len);
  model_run (&kept, &scene);
  assert_sets_equal (&before, &kept.set);
  cwb_contact_set_destroy (&before);
  model_clear (&kept);
  scene_clear (&scene);
}

static void
test_auto_pixel (void)
{
  Scene scene = { 0 };
  stack_init (&scene);
  const char *names[] = { "pixel_size", "pixels_per_body", "threads", "multi_volume" };
  CwbParamValue values[] = {
    { .type = CWB_PARAM_DOUBLE, .d = 0 },
    { .type = CWB_PARAM_DOUBLE, .d = 20 },
    { .type = CWB_PARAM_INT, .i = 1 },
    { .type = CWB_PARAM_BOOL, .b = FALSE },   /* one volume per pair: two frames */
  };
  Model m;
  model_init (&m, names, values, 4);
  model_attach (&m, &scene);
  model_run (&m, &scene);
  /* Every pair has a 0.3 m cube as its smaller body (6 V / A = its side; the slab's is 1.0,
   * whatever the cubes' turn): 0.3 / 20, to two digits. */
  double h = 0.015;
  g_assert_cmpuint (m.set.frames->len, ==, 2);
  for (guint r = 0; r < m.set.rows->len; r++)
    {
      const CwbConstraintRow *row = &g_array_index (m.set.rows, CwbConstraintRow, r);
      if (row->kind == CWB_ROW_NORMAL)
        g_assert_cmpfloat (fabs (row->tolerance - 0.5 * h), <, 1e-15);
    }
  g_assert_cmpuint (m.inspection.spans->len, >, 0);
  for (guint s = 0; s < m.inspection.spans->len; s++)
    g_assert_cmpfloat (fabs (g_array_index (m.inspection.spans, CwbInspectSpan, s).pixel_size
                             - h), <, 1e-15);
  model_clear (&m);
  scene_clear (&scene);
}

/* ---- Identities --------------------------------------------------------------------------- */

static guint
id_hash (gconstpointer p)
{
  guint64 x = *(const guint64 *) p;
  return (guint) (x ^ (x >> 32));
}

static gboolean
id_equal (gconstpointer a, gconstpointer b)
{
  return *(const guint64 *) a == *(const guint64 *) b;
}

/* Every (pair, cell) in a grid that crosses the packed form's limits: all ids distinct and
 * non-zero. */
static void
test_id_packing (void)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (id_hash, id_equal, g_free, NULL);
  const uint32_t bodies[] = { 0, 1, 2, 2047, 2048, 70000 };
  const int64_t coords[] = { -5000, -4096, -4095, -1, 0, 1, 4095, 4096 };
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (bodies); i++)
    for (guint j = i + 1; j < G_N_ELEMENTS (bodies); j++)
      {
        guint64 *pair = g_new (guint64, 1);
        *pair = contact_id (bodies[i], bodies[j], NULL);
        g_assert_cmpuint (*pair, !=, 0);
        g_assert_false (g_hash_table_contains (seen, pair));
        g_hash_table_add (seen, pair);
        n++;
        for (guint x = 0; x < G_N_ELEMENTS (coords); x++)
          for (guint y = 0; y < G_N_ELEMENTS (coords); y++)
            for (guint z = 0; z < G_N_ELEMENTS (coords); z++)
              {
                int64_t cell[3] = { coords[x], coords[y], coords[z] };
                guint64 *id = g_new (guint64, 1);
                *id = contact_id (bodies[i], bodies[j], cell);
                g_assert_cmpuint (*id, !=, 0);
                g_assert_false (g_hash_table_contains (seen, id));
                g_hash_table_add (seen, id);
                n++;
              }
      }
  g_assert_cmpuint (g_hash_table_size (seen), ==, n);
}

static void
assert_ids_unique (const CwbContactSet *set)
{
  g_assert_cmpuint (set->contact_ids->len, ==, set->frames->len);
  g_autoptr (GHashTable) seen = g_hash_table_new (id_hash, id_equal);
  for (guint f = 0; f < set->frames->len; f++)
    {
      guint64 *id = &g_array_index (set->contact_ids, guint64, f);
      g_assert_cmpuint (*id, !=, 0);
      g_assert_false (g_hash_table_contains (seen, id));
      g_hash_table_add (seen, id);
    }
}

static GArray *
ids_copy (const CwbContactSet *set)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_append_vals (ids, set->contact_ids->data, set->contact_ids->len);
  return ids;
}

/* A 0.2 m box dropped 2 mm on the ground, turned 10 degrees about z, at rest after 0.6 s. */
static void
test_id_at_rest (gconstpointer data)
{
  gboolean multi_volume = GPOINTER_TO_INT (data);
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: ldi, pixel_size: 0.005, multi_volume: %s, cell_size: 0.05 }\n"
    "solver: { name: constraint, iterations: 500, tolerance: 1.0e-12, friction: cone,\n"
    "          normal_constraint: velocity, stabilization_iterations: 10 }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [2, 2, 0.5] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0.013, -0.021, 0.102], orientation: [0.9961946980917455, 0, 0, "
    "0.08715574274765817] }\n"
    "    material: { density: 500, friction: 0.5 }\n", multi_volume ? "true" : "false");
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 120);
  g_autoptr (GArray) previous = NULL;
  for (int k = 0; k < 3; k++)
    {
      fixture_step (world, 1);
      /* The step's contacts: its velocity pass's, at the free configuration (resting, the
       * box ends each step touching, its volume within round-off). */
      const CwbContactSet *set = cwb_world_contacts (world);
      guint least = multi_volume ? 4 : 1;   /* the box's base spans several 5 cm cells */
      g_assert_cmpuint (set->frames->len, >=, least);
      assert_ids_unique (set);
      if (previous != NULL)
        {
          g_assert_cmpuint (previous->len, ==, set->contact_ids->len);
          g_assert_cmpmem (previous->data, previous->len * sizeof (guint64),
                           set->contact_ids->data, set->contact_ids->len * sizeof (guint64));
          g_array_unref (previous);
        }
      previous = ids_copy (set);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/pairs/engulfed", test_engulfed);
  g_test_add_data_func ("/ldi/pairs/reuse", GINT_TO_POINTER (FALSE), test_reuse);
  g_test_add_data_func ("/ldi/pairs/reuse-cells", GINT_TO_POINTER (TRUE), test_reuse);
  g_test_add_func ("/ldi/pairs/auto-pixel", test_auto_pixel);
  g_test_add_func ("/ldi/identity/packing", test_id_packing);
  g_test_add_data_func ("/ldi/identity/at-rest", GINT_TO_POINTER (FALSE), test_id_at_rest);
  g_test_add_data_func ("/ldi/identity/at-rest-cells", GINT_TO_POINTER (TRUE), test_id_at_rest);
  return g_test_run ();
}

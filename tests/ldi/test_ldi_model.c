/* The contact model `ldi` (plugins/contact-ldi/ldi_model.c) through the built module's vtable
 * on hand-placed boxes, against hand-computed contacts: a small box sunk into a large one
 * (one frame: volume, area, mean depth, normal, centre, the normal row's weights summing to
 * +n on a and -n on b, the tolerance of sec. 4.3, the friction rows of eq. 21 and the pass
 * that drops them, the spans), the same as multi-volume cells, separated and fixed pairs, and
 * the refusal of open surfaces and particles. */
#include <math.h>

#include <cwb/cwb.h>

#include "ldi_fixture.h"
#include "registry.h"
#include "world_private.h"

/* The boxes' faces lie on pixel boundaries (multiples of PIXEL from the snapped region
 * origin), never through a pixel centre, so each image counts the overlap exactly: volumes,
 * areas and depths are sums of a few thousand equal terms, exact to a few ulps of 1e-3
 * (relative 1e-13). 1e-10 leaves room for the sums' rounding. */
#define TOLERANCE 1e-10
#define PIXEL 0.01
#define DEPTH 0.02      /* how far the small box sinks into the large one */
#define FOOTPRINT 0.5   /* side of the small box */

typedef struct Scene {
  TestBody *bodies[2];
  CwbGeometry geometries[2];
  double friction[2];
  gboolean fixed[2];
} Scene;

static void
scene_sync (Scene *scene)
{
  for (int b = 0; b < 2; b++)
    {
      TestBody *body = scene->bodies[b];
      scene->geometries[b] = (CwbGeometry) {
        .struct_size = sizeof (CwbGeometry),
        .kind = CWB_GEOMETRY_SURFACE,
        .body = (uint32_t) b,
        .n_points = body->surface.n_vertices,
        .positions = (double *) body->surface.positions,
        .triangles = body->surface.triangles,
        .n_triangles = body->surface.n_triangles,
        .closed = TRUE,
      };
    }
}

/* Body 0: the unit box centred on the origin (top face z = 0.5). Body 1: a box of side
 * FOOTPRINT centred at (0.1, 0.05), its bottom DEPTH below body 0's top: the overlap is
 * [-0.15, 0.35] x [-0.2, 0.3] x [0.48, 0.5]. */
static void
scene_init (Scene *scene, double mu, double lift)
{
  double big[3] = { 1, 1, 1 }, small[3] = { FOOTPRINT, FOOTPRINT, FOOTPRINT };
  double origin[3] = { 0, 0, 0 };
  double centre[3] = { 0.1, 0.05, 0.5 - DEPTH + FOOTPRINT / 2 + lift };
  scene->bodies[0] = test_body_box (big, origin, NULL, 0);
  scene->bodies[1] = test_body_box (small, centre, NULL, 1);
  scene->friction[0] = scene->friction[1] = mu;
  scene->fixed[0] = scene->fixed[1] = FALSE;
  scene_sync (scene);
}

static void
scene_clear (Scene *scene)
{
  test_body_free (scene->bodies[0]);
  test_body_free (scene->bodies[1]);
}

static CwbContactQuery
scene_query (Scene *scene, CwbContactPass pass)
{
  return (CwbContactQuery) {
    .struct_size = sizeof (CwbContactQuery),
    .geometries = scene->geometries,
    .n_geometries = 2,
    .friction = scene->friction,
    .n_bodies = 2,
    .h = 0.005,
    .pass = pass,
    .body_fixed = scene->fixed,
  };
}

typedef struct Output {
  CwbContactSet set;
  CwbInspection inspection;
} Output;

/* The contact set and inspection arrays, as the host hands them over. */
static void
output_init (Output *out)
{
  cwb_contact_set_init (&out->set);
  cwb_inspection_init (&out->inspection);
}

static void
output_clear (Output *out)
{
  cwb_contact_set_destroy (&out->set);
  cwb_inspection_destroy (&out->inspection);
}

/* The built `ldi` module, found as the host finds it. */
static const CwbPluginDesc *
ldi_plugin (CwbRegistry **registry)
{
  *registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (*registry);
  cwb_registry_scan (*registry);
  const CwbPluginDesc *desc = cwb_registry_find (*registry, CWB_PLUGIN_CONTACT_MODEL, "ldi");
  g_assert_nonnull (desc);
  return desc;
}

/* The model's parameters: pixel_size PIXEL, one thread (the result does not depend on it:
 * tests/ldi/test_ldi_raster.c), and multi-volume cells of `cell_size` when > 0. */
typedef struct Params {
  CwbParamValue values[4];
  const CwbParamSpec *specs[4];
  CwbParamSpec flat[4];
  CwbParamSet set;
} Params;

static void
params_init (Params *p, const CwbPluginDesc *desc, double cell_size)
{
  const char *names[] = { "pixel_size", "threads", "multi_volume", "cell_size" };
  CwbParamValue values[] = {
    { .type = CWB_PARAM_DOUBLE, .d = PIXEL },
    { .type = CWB_PARAM_INT, .i = 1 },
    { .type = CWB_PARAM_BOOL, .b = cell_size > 0 },
    { .type = CWB_PARAM_DOUBLE, .d = cell_size > 0 ? cell_size : 1 },
  };
  for (int k = 0; k < 4; k++)
    {
      const CwbParamSpec *spec = NULL;
      for (size_t j = 0; j < desc->n_params; j++)
        if (strcmp (desc->params[j].name, names[k]) == 0)
          spec = &desc->params[j];
      g_assert_nonnull (spec);
      p->flat[k] = *spec;
      p->values[k] = values[k];
    }
  p->set = (CwbParamSet) { .struct_size = sizeof p->set, .specs = p->flat, .values = p->values,
                           .n = 4 };
}

/* Runs create, attach, detect and model; FALSE (with the attach error) if attach refuses. */
static gboolean
run_model (Scene *scene, CwbContactPass pass, double cell_size, Output *out, GError **error)
{
  g_autoptr (CwbRegistry) registry = NULL;
  const CwbPluginDesc *desc = ldi_plugin (&registry);
  const CwbContactModelVTable *vt = desc->vtable;
  Params params;
  params_init (&params, desc, cell_size);
  CwbContactModelCreateInfo info = { .struct_size = sizeof info, .params = &params.set };
  void *model = vt->create (&info, NULL, error);
  g_assert_nonnull (model);
  CwbContactQuery query = scene_query (scene, pass);
  output_init (out);
  if (!vt->attach (model, &query, error))
    {
      vt->destroy (model);
      return FALSE;
    }
  g_assert_true (vt->detect (model, &query, error));
  g_assert_true (vt->model (model, &query, &out->set, &out->inspection, error));
  vt->destroy (model);
  return TRUE;
}

static void
assert_v3 (const double a[3], double x, double y, double z)
{
  g_assert_cmpfloat (fabs (a[0] - x), <, TOLERANCE);
  g_assert_cmpfloat (fabs (a[1] - y), <, TOLERANCE);
  g_assert_cmpfloat (fabs (a[2] - z), <, TOLERANCE);
}

/* The sums of a row's weights over each body's points. */
static void
row_sums (const CwbContactSet *set, guint r, double sum_a[3], double sum_b[3])
{
  const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, r);
  memset (sum_a, 0, 3 * sizeof (double));
  memset (sum_b, 0, 3 * sizeof (double));
  for (uint32_t k = 0; k < row->n_weights; k++)
    {
      const CwbPointWeight *w = &g_array_index (set->weights, CwbPointWeight,
                                                row->first_weight + k);
      cwb_v3_add (w->geometry == 0 ? sum_a : sum_b, w->geometry == 0 ? sum_a : sum_b, w->w);
    }
}

static void
test_box_on_box (void)
{
  Scene scene;
  scene_init (&scene, 0.4, 0);
  Output out;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out, &error));
  const CwbContactSet *set = &out.set;
  g_assert_cmpuint (set->frames->len, ==, 1);
  const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, 0);
  double volume = FOOTPRINT * FOOTPRINT * DEPTH, area = FOOTPRINT * FOOTPRINT;
  g_assert_cmpuint (frame->body_a, ==, 0);
  g_assert_cmpuint (frame->body_b, ==, 1);
  g_assert_cmpfloat (fabs (frame->volume - volume), <, TOLERANCE);
  /* A = the sum of the positive A_k (eq. 20): the small box's bottom face, its footprint. */
  g_assert_cmpfloat (fabs (frame->area - area), <, TOLERANCE);
  g_assert_cmpfloat (fabs (frame->gap + DEPTH), <, TOLERANCE);
  /* From b (the small box, above) towards a: down. */
  assert_v3 (frame->normal, 0, 0, -1);
  g_assert_cmpfloat (fabs (cwb_v3_dot (frame->t1, frame->normal)), <, TOLERANCE);
  g_assert_cmpfloat (fabs (cwb_v3_dot (frame->t2, frame->normal)), <, TOLERANCE);
  g_assert_cmpfloat (fabs (cwb_v3_dot (frame->t1, frame->t2)), <, TOLERANCE);
  double cross[3];
  cwb_v3_cross (cross, frame->normal, frame->t1);
  assert_v3 (cross, frame->t2[0], frame->t2[1], frame->t2[2]);
  /* Both surfaces weigh 0.25 and their pixels are the footprint's: the centre is the
   * footprint's centre, halfway through the depth. */
  assert_v3 (frame->origin, 0.1, 0.05, 0.5 - DEPTH / 2);
  g_assert_cmpfloat (frame->mu, ==, 0.4);
  g_assert_cmpuint (frame->first_row, ==, 0);
  g_assert_cmpuint (frame->n_rows, ==, 3);
  g_assert_cmpfloat (fabs (set->intersection_volume - volume), <, TOLERANCE);
  g_assert_cmpfloat (fabs (set->max_penetration - DEPTH), <, TOLERANCE);

  /* The normal row: g = -V / A, weights -dV/dp_k / A summing to +n on a and -n on b. */
  g_assert_cmpuint (set->rows->len, ==, 3);
  const CwbConstraintRow *normal = &g_array_index (set->rows, CwbConstraintRow, 0);
  g_assert_cmpint (normal->kind, ==, CWB_ROW_NORMAL);
  g_assert_cmpfloat (fabs (normal->violation + DEPTH), <, TOLERANCE);
  g_assert_cmpfloat (fabs (normal->tolerance - 0.5 * PIXEL), <, TOLERANCE);   /* sec. 4.3 */
  double sum_a[3], sum_b[3];
  row_sums (set, 0, sum_a, sum_b);
  assert_v3 (sum_a, 0, 0, -1);
  assert_v3 (sum_b, 0, 0, 1);
  /* The tangent rows: -A_k t / A, summing to +t on a and -t on b. */
  for (guint r = 1; r <= 2; r++)
    {
      const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, r);
      g_assert_cmpint (row->kind, ==, CWB_ROW_TANGENT);
      g_assert_cmpfloat (row->violation, ==, 0);
      const double *t = r == 1 ? frame->t1 : frame->t2;
      row_sums (set, r, sum_a, sum_b);
      assert_v3 (sum_a, t[0], t[1], t[2]);
      assert_v3 (sum_b, -t[0], -t[1], -t[2]);
    }

  /* The spans add up to three times the volume (one per axis), each at the pixel size. */
  g_assert_cmpuint (out.inspection.spans->len, >, 0);
  double span_volume = 0;
  for (guint s = 0; s < out.inspection.spans->len; s++)
    {
      const CwbInspectSpan *span = &g_array_index (out.inspection.spans, CwbInspectSpan, s);
      g_assert_cmpuint (span->body_a, ==, 0);
      g_assert_cmpuint (span->body_b, ==, 1);
      g_assert_cmpfloat (span->pixel_size, ==, PIXEL);
      span_volume += span->length * PIXEL * PIXEL;
    }
  g_assert_cmpfloat (fabs (span_volume / 3 - volume), <, TOLERANCE);
  g_assert_cmpuint (out.inspection.vectors->len, >, 0);
  g_assert_cmpuint (out.inspection.cells->len, ==, 0);
  output_clear (&out);

  /* A position pass (post-stabilization) has no friction rows. */
  g_assert_true (run_model (&scene, CWB_CONTACT_PASS_POSITION, 0, &out, &error));
  g_assert_cmpuint (out.set.frames->len, ==, 1);
  g_assert_cmpuint (out.set.rows->len, ==, 1);
  output_clear (&out);
  scene_clear (&scene);

  /* Nor has a frictionless pair. */
  scene_init (&scene, 0, 0);
  g_assert_true (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out, &error));
  g_assert_cmpuint (out.set.rows->len, ==, 1);
  output_clear (&out);
  scene_clear (&scene);
}

/* Multi-volume (sec. 5): cells of 0.1 on the world grid (the region's origin is rounded down
 * to a multiple of the cell size) cut the footprint [-0.15, 0.35] x [-0.2, 0.3] into 6 x 5
 * cells, the first and last columns half cells. Each is a contact of its own whose volume is
 * the overlap's part in the cell (cell walls lie on pixel boundaries, so it is exact), with
 * the mono-volume contact's normal and depth; each cell's normal row sums to zero over a
 * common translation (action and reaction per cell), and the cells add up to the mono-volume
 * contact. Cells whose walls meet a face within an ulp get slivers of 1e-20 m^3 from the
 * intervals: the model drops those (below 1e-6 voxel). */
static void
test_multi_volume (void)
{
  Scene scene;
  scene_init (&scene, 0.4, 0);
  Output out;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0.1, &out, &error));
  const CwbContactSet *set = &out.set;
  g_assert_cmpuint (set->frames->len, ==, 30);
  g_assert_cmpuint (out.inspection.cells->len, ==, 30);
  double footprint_min[2] = { -0.15, -0.2 }, footprint_max[2] = { 0.35, 0.3 };
  double total = 0, area = 0;
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      const CwbInspectCell *cell = &g_array_index (out.inspection.cells, CwbInspectCell, f);
      g_assert_cmpuint (cell->frame, ==, f);
      double cell_area = 1;
      for (int k = 0; k < 2; k++)
        cell_area *= MIN (cell->max[k], footprint_max[k]) - MAX (cell->min[k], footprint_min[k]);
      assert_v3 (frame->normal, 0, 0, -1);
      g_assert_cmpfloat (fabs (frame->volume - cell_area * DEPTH), <, TOLERANCE);
      g_assert_cmpfloat (fabs (frame->area - cell_area), <, TOLERANCE);
      g_assert_cmpfloat (fabs (frame->gap + DEPTH), <, TOLERANCE);
      g_assert_cmpfloat (fabs (cell->volume - frame->volume), <, TOLERANCE);
      total += frame->volume;
      area += frame->area;
      double sum_a[3], sum_b[3], sum[3];
      row_sums (set, frame->first_row, sum_a, sum_b);
      cwb_v3_add (sum, sum_a, sum_b);
      assert_v3 (sum, 0, 0, 0);
      assert_v3 (sum_a, 0, 0, -1);
      /* The cell holds the contact's centre. */
      for (int k = 0; k < 3; k++)
        {
          g_assert_cmpfloat (frame->origin[k], >=, cell->min[k] - TOLERANCE);
          g_assert_cmpfloat (frame->origin[k], <=, cell->max[k] + TOLERANCE);
        }
    }
  g_assert_cmpfloat (fabs (total - FOOTPRINT * FOOTPRINT * DEPTH), <, TOLERANCE);
  g_assert_cmpfloat (fabs (area - FOOTPRINT * FOOTPRINT), <, TOLERANCE);
  output_clear (&out);
  scene_clear (&scene);
}

/* No contact: the small box lifted 1 mm clear (bounding boxes apart); and a sunk pair of two
 * fixed bodies, which nothing can move. */
static void
test_no_contact (void)
{
  Scene scene;
  scene_init (&scene, 0.4, DEPTH + 0.001);
  Output out;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out, &error));
  g_assert_cmpuint (out.set.frames->len, ==, 0);
  g_assert_cmpfloat (out.set.intersection_volume, ==, 0);
  output_clear (&out);
  scene_clear (&scene);

  scene_init (&scene, 0.4, 0);
  scene.fixed[0] = scene.fixed[1] = TRUE;
  g_assert_true (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out, &error));
  g_assert_cmpuint (out.set.frames->len, ==, 0);
  output_clear (&out);
  scene.fixed[1] = FALSE;
  g_assert_true (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out, &error));
  g_assert_cmpuint (out.set.frames->len, ==, 1);
  output_clear (&out);
  scene_clear (&scene);
}

/* An open surface (one triangle dropped), particles without radii (the model builds their
 * surface from them) and a geometry of an unknown kind are refused at attach, the message
 * naming the body and what is wrong. (Particles with radii are served through their
 * reconstructed surface: /sph/container/rest/ldi.) */
static void
test_refusals (void)
{
  Scene scene;
  scene_init (&scene, 0.4, 0);
  scene.geometries[1].n_triangles -= 1;
  Output out;
  g_autoptr (GError) error = NULL;
  g_assert_false (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "body 1"));
  g_assert_nonnull (strstr (error->message, "boundary edge"));
  g_clear_error (&error);
  output_clear (&out);

  scene_sync (&scene);
  scene.geometries[0].kind = CWB_GEOMETRY_PARTICLES;
  g_assert_false (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out, &error));
  g_assert_nonnull (strstr (error->message, "body 0"));
  g_assert_nonnull (strstr (error->message, "particles have no radii"));
  g_clear_error (&error);
  output_clear (&out);

  scene.geometries[0].kind = (CwbGeometryKind) 7;
  g_assert_false (run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out, &error));
  g_assert_nonnull (strstr (error->message, "body 0"));
  g_assert_nonnull (strstr (error->message, "of kind 7"));
  output_clear (&out);
  scene_clear (&scene);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/model/box-on-box", test_box_on_box);
  g_test_add_func ("/ldi/model/multi-volume", test_multi_volume);
  g_test_add_func ("/ldi/model/no-contact", test_no_contact);
  g_test_add_func ("/ldi/model/refusals", test_refusals);
  return g_test_run ();
}

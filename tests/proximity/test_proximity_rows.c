/* The proximity contact model's rows (plugins/contact-proximity), through the built module's
 * vtable on hand-built geometries, against hand-computed contacts: a point inside a unit cube
 * (frame, gap, normal, weights: +n on the point, -h_j n on the triangle, the b side summing to
 * -n; orthonormal right-handed tangents; the friction rows and the pass that drops them), a
 * point outside near an edge within the margin (and the margin stated as the set's reach),
 * two geometries that cannot move, a particle's sphere against the cube, and the refusal of
 * particles without radii. */
#include <math.h>

#include <cwb/cwb.h>

#include "mesh.h"
#include "registry.h"

/* Every expected value below is a sum of a few products of numbers of magnitude <= 1 given to
 * a few decimals: exact to a few ulps; 1e-12 leaves ample room. */
#define TOLERANCE 1e-12

/* The two geometries of every case: a unit cube B (body 0) centred on the origin, with the
 * primitives' vertex layout (vertex i has bit k set on the + side of axis k), and one probe
 * point A (body 1), a point cloud (open, no triangles: it penetrates but is not penetrated). */
typedef struct Scene {
  CwbMesh *cube;
  double point[3];
  CwbGeometry geometries[2];
  double friction[2];
  gboolean fixed[2];   /* what the fake host says (by geometry = body) */
  gboolean announce_fixed;   /* say it in body_fixed (ABI 1.4): no point response then */
  int point_responses;       /* calls to the fake point_response */
} Scene;

static void
scene_init (Scene *scene, const double point[3], double mu_cube, double mu_point)
{
  CwbShapeDesc shape = { .kind = CWB_SHAPE_BOX, .size = { 1, 1, 1 } };
  g_autoptr (GError) error = NULL;
  scene->cube = cwb_mesh_from_shape (&shape, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (scene->cube->closed);
  cwb_v3_copy (scene->point, point);
  scene->geometries[0] = (CwbGeometry) {
    .struct_size = sizeof (CwbGeometry),
    .kind = CWB_GEOMETRY_SURFACE,
    .body = 0,
    .n_points = cwb_mesh_n_vertices (scene->cube),
    .positions = (double *) (void *) scene->cube->vertices->data,
    .triangles = (const uint32_t *) (const void *) scene->cube->triangles->data,
    .n_triangles = cwb_mesh_n_triangles (scene->cube),
    .closed = TRUE,
  };
  scene->geometries[1] = (CwbGeometry) {
    .struct_size = sizeof (CwbGeometry),
    .kind = CWB_GEOMETRY_SURFACE,
    .body = 1,
    .n_points = 1,
    .positions = scene->point,
  };
  scene->friction[0] = mu_cube;
  scene->friction[1] = mu_point;
  scene->fixed[0] = scene->fixed[1] = FALSE;
  scene->announce_fixed = FALSE;
  scene->point_responses = 0;
}

static void
scene_clear (Scene *scene)
{
  cwb_mesh_free (scene->cube);
}

/* A fake host: each point moves by the force on it (unit compliance), points of a fixed
 * geometry not at all. Enough for the model's question "can this geometry move". */
static void
fake_point_response (void *host_data, const CwbPointWeight *forces, size_t n_forces,
                     const CwbPointWeight *at, size_t n_at, double *displacements)
{
  Scene *scene = host_data;
  scene->point_responses++;
  memset (displacements, 0, 3 * n_at * sizeof (double));
  for (size_t a = 0; a < n_at; a++)
    for (size_t f = 0; f < n_forces; f++)
      if (forces[f].geometry == at[a].geometry && forces[f].point == at[a].point
          && !scene->fixed[at[a].geometry])
        cwb_v3_add (&displacements[3 * a], &displacements[3 * a], forces[f].w);
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
    .host_data = scene,
    .point_response = fake_point_response,
    .body_fixed = scene->announce_fixed ? scene->fixed : NULL,
  };
}

/* The contact set and inspection arrays, as the host hands them over (scalars NAN). */
typedef struct Output {
  CwbContactSet set;
  CwbInspection inspection;
} Output;

static void
output_init (Output *out)
{
  out->set = (CwbContactSet) {
    .struct_size = sizeof (CwbContactSet),
    .frames = g_array_new (FALSE, FALSE, sizeof (CwbContactFrame)),
    .rows = g_array_new (FALSE, FALSE, sizeof (CwbConstraintRow)),
    .weights = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight)),
    .forces = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight)),
    .stiffness = g_array_new (FALSE, FALSE, sizeof (CwbPointStiffness)),
    .intersection_volume = NAN,
    .max_penetration = NAN,
  };
  out->inspection = (CwbInspection) {
    .struct_size = sizeof (CwbInspection),
    .spans = g_array_new (FALSE, FALSE, sizeof (CwbInspectSpan)),
    .voxels = g_array_new (FALSE, FALSE, sizeof (CwbInspectVoxel)),
    .cells = g_array_new (FALSE, FALSE, sizeof (CwbInspectCell)),
    .vectors = g_array_new (FALSE, FALSE, sizeof (CwbInspectVector)),
  };
}

static void
output_clear (Output *out)
{
  g_array_unref (out->set.frames);
  g_array_unref (out->set.rows);
  g_array_unref (out->set.weights);
  g_array_unref (out->set.forces);
  g_array_unref (out->set.stiffness);
  g_array_unref (out->inspection.spans);
  g_array_unref (out->inspection.voxels);
  g_array_unref (out->inspection.cells);
  g_array_unref (out->inspection.vectors);
}

/* The built `proximity` module, found as the host finds it (the build tree's plugins). */
static const CwbPluginDesc *
proximity_plugin (CwbRegistry **registry)
{
  *registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (*registry);
  cwb_registry_scan (*registry);
  const CwbPluginDesc *desc = cwb_registry_find (*registry, CWB_PLUGIN_CONTACT_MODEL,
                                                 "proximity");
  g_assert_nonnull (desc);
  return desc;
}

/* Runs attach, detect and model on the scene with the given margin (0: the default). */
static void
run_model (Scene *scene, CwbContactPass pass, double margin, Output *out)
{
  g_autoptr (CwbRegistry) registry = NULL;
  const CwbPluginDesc *desc = proximity_plugin (&registry);
  const CwbContactModelVTable *vt = desc->vtable;
  CwbParamValue value = { .type = CWB_PARAM_DOUBLE, .d = margin };
  const CwbParamSpec *margin_spec = NULL;
  for (size_t k = 0; k < desc->n_params; k++)
    if (strcmp (desc->params[k].name, "margin") == 0)
      margin_spec = &desc->params[k];
  g_assert_nonnull (margin_spec);
  CwbParamSet params = { .struct_size = sizeof params, .specs = margin_spec, .values = &value,
                         .n = 1 };
  CwbContactModelCreateInfo info = { .struct_size = sizeof info, .params = &params };
  g_autoptr (GError) error = NULL;
  void *model = vt->create (&info, NULL, &error);
  g_assert_no_error (error);
  CwbContactQuery query = scene_query (scene, pass);
  g_assert_true (vt->attach (model, &query, &error));
  g_assert_true (vt->detect (model, &query, &error));
  output_init (out);
  g_assert_true (vt->model (model, &query, &out->set, &out->inspection, &error));
  g_assert_no_error (error);
  vt->destroy (model);
}

static void
assert_v3 (const double a[3], double x, double y, double z)
{
  g_assert_cmpfloat (fabs (a[0] - x), <, TOLERANCE);
  g_assert_cmpfloat (fabs (a[1] - y), <, TOLERANCE);
  g_assert_cmpfloat (fabs (a[2] - z), <, TOLERANCE);
}

/* A row of a point contact between the probe and the cube: the probe's point first with
 * weight `direction`, then triangle vertices with weights -h_j direction, h_j >= 0 summing to
 * 1 (so the b side sums to -direction) and placing sum_j h_j p_j at the frame's origin. */
static void
assert_point_row (const Scene *scene, const CwbContactSet *set, guint r, CwbRowKind kind,
                  const double direction[3], guint n_weights)
{
  const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, r);
  const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, row->frame);
  g_assert_cmpint (row->kind, ==, kind);
  g_assert_cmpuint (row->n_weights, ==, n_weights);
  g_assert_cmpfloat (row->tolerance, ==, 0);
  const CwbPointWeight *w = &g_array_index (set->weights, CwbPointWeight, row->first_weight);
  g_assert_cmpuint (w[0].geometry, ==, 1);
  g_assert_cmpuint (w[0].point, ==, 0);
  assert_v3 (w[0].w, direction[0], direction[1], direction[2]);
  double b_sum[3] = { 0, 0, 0 }, location[3] = { 0, 0, 0 }, h_sum = 0;
  for (guint k = 1; k < row->n_weights; k++)
    {
      g_assert_cmpuint (w[k].geometry, ==, 0);
      double h = -cwb_v3_dot (w[k].w, direction);
      g_assert_cmpfloat (h, >, 0);
      h_sum += h;
      cwb_v3_add (b_sum, b_sum, w[k].w);
      cwb_v3_axpy (location, h, &scene->geometries[0].positions[3 * w[k].point]);
    }
  assert_v3 (b_sum, -direction[0], -direction[1], -direction[2]);
  g_assert_cmpfloat (fabs (h_sum - 1), <, TOLERANCE);
  assert_v3 (location, frame->origin[0], frame->origin[1], frame->origin[2]);
}

/* (n, t1, t2) unit, orthogonal and right-handed: n x t1 = t2. */
static void
assert_frame_basis (const CwbContactFrame *frame)
{
  double cross[3];
  g_assert_cmpfloat (fabs (cwb_v3_norm (frame->normal) - 1), <, TOLERANCE);
  g_assert_cmpfloat (fabs (cwb_v3_norm (frame->t1) - 1), <, TOLERANCE);
  g_assert_cmpfloat (fabs (cwb_v3_norm (frame->t2) - 1), <, TOLERANCE);
  g_assert_cmpfloat (fabs (cwb_v3_dot (frame->normal, frame->t1)), <, TOLERANCE);
  g_assert_cmpfloat (fabs (cwb_v3_dot (frame->normal, frame->t2)), <, TOLERANCE);
  g_assert_cmpfloat (fabs (cwb_v3_dot (frame->t1, frame->t2)), <, TOLERANCE);
  cwb_v3_cross (cross, frame->normal, frame->t1);
  assert_v3 (cross, frame->t2[0], frame->t2[1], frame->t2[2]);
}

/* The point (0.1, 0.2, 0.49), 1 cm under the cube's top face z = 0.5 (within the default
 * max_depth of 2 cm): its closest point
 * (0.1, 0.2, 0.5) lies in the top face's triangle (v4, v7, v6) = ((-.5, -.5), (.5, .5),
 * (-.5, .5)) at h = (0.3, 0.6, 0.1) (solve -.5 h4 + .5 h7 - .5 h6 = 0.1,
 * -.5 h4 + .5 h7 + .5 h6 = 0.2, sum 1). So: one frame at (0.1, 0.2, 0.5) with n = (0, 0, 1),
 * gap -0.01, mu = sqrt(0.4 * 0.9) = 0.6, body_a the point's, body_b the cube's; a normal row
 * g = -0.01 with weights +n on the point and -(0.3, 0.6, 0.1) n on v4, v7, v6; two tangent
 * rows; max penetration 0.01, no volume; the depth vector (0, 0, 0.01) at the point. */
static void
test_point_inside (void)
{
  Scene scene;
  const double point[3] = { 0.1, 0.2, 0.49 };
  scene_init (&scene, point, 0.4, 0.9);
  Output out;
  run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out);
  const CwbContactSet *set = &out.set;
  g_assert_cmpuint (set->frames->len, ==, 1);
  g_assert_cmpuint (set->rows->len, ==, 3);
  const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, 0);
  assert_v3 (frame->origin, 0.1, 0.2, 0.5);
  assert_v3 (frame->normal, 0, 0, 1);
  assert_frame_basis (frame);
  g_assert_cmpfloat (fabs (frame->gap + 0.01), <, TOLERANCE);
  g_assert_cmpfloat (fabs (frame->mu - 0.6), <, TOLERANCE);
  g_assert_cmpuint (frame->body_a, ==, 1);
  g_assert_cmpuint (frame->body_b, ==, 0);
  g_assert_cmpuint (frame->first_row, ==, 0);
  g_assert_cmpuint (frame->n_rows, ==, 3);
  g_assert_cmpfloat (frame->volume, ==, 0);

  const CwbConstraintRow *normal = &g_array_index (set->rows, CwbConstraintRow, 0);
  g_assert_cmpfloat (fabs (normal->violation + 0.01), <, TOLERANCE);
  assert_point_row (&scene, set, 0, CWB_ROW_NORMAL, frame->normal, 4);
  assert_point_row (&scene, set, 1, CWB_ROW_TANGENT, frame->t1, 4);
  assert_point_row (&scene, set, 2, CWB_ROW_TANGENT, frame->t2, 4);
  for (guint r = 1; r < 3; r++)
    g_assert_cmpfloat (g_array_index (set->rows, CwbConstraintRow, r).violation, ==, 0);
  /* The b side by hand: vertices 4, 7, 6 with h = 0.3, 0.6, 0.1. */
  const CwbPointWeight *w = &g_array_index (set->weights, CwbPointWeight, normal->first_weight);
  const uint32_t vertices[3] = { 4, 7, 6 };
  const double h[3] = { 0.3, 0.6, 0.1 };
  for (int j = 0; j < 3; j++)
    {
      g_assert_cmpuint (w[1 + j].point, ==, vertices[j]);
      assert_v3 (w[1 + j].w, 0, 0, -h[j]);
    }

  g_assert_cmpfloat (fabs (set->max_penetration - 0.01), <, TOLERANCE);
  g_assert_true (isnan (set->intersection_volume));
  g_assert_cmpuint (set->forces->len, ==, 0);
  g_assert_cmpuint (out.inspection.vectors->len, ==, 1);
  const CwbInspectVector *depth = &g_array_index (out.inspection.vectors, CwbInspectVector, 0);
  g_assert_cmpint (depth->kind, ==, CWB_VECTOR_DEPTH);
  g_assert_cmpuint (depth->geometry, ==, 1);
  assert_v3 (depth->origin, 0.1, 0.2, 0.49);
  assert_v3 (depth->vector, 0, 0, 0.01);
  output_clear (&out);

  /* A post-stabilization pass needs no friction rows; nor does a frictionless pair. */
  run_model (&scene, CWB_CONTACT_PASS_POSITION, 0, &out);
  g_assert_cmpuint (out.set.rows->len, ==, 1);
  g_assert_cmpuint (g_array_index (out.set.frames, CwbContactFrame, 0).n_rows, ==, 1);
  assert_point_row (&scene, &out.set, 0, CWB_ROW_NORMAL, (const double[3]) { 0, 0, 1 }, 4);
  output_clear (&out);
  scene.friction[0] = 0;
  run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out);
  g_assert_cmpuint (out.set.rows->len, ==, 1);
  g_assert_cmpfloat (g_array_index (out.set.frames, CwbContactFrame, 0).mu, ==, 0);
  output_clear (&out);
  scene_clear (&scene);
}

/* The point (0.52, 0.1, 0.53), off the cube's edge x = z = 0.5 by (0.02, 0, 0.03): no contact
 * without a margin; with a 5 cm margin one at the edge point (0.5, 0.1, 0.5), gap
 * hypot(0.02, 0.03) > 0, normal (0.02, 0, 0.03) / gap, the b side on the edge's two vertices
 * only (the third barycentric coordinate is 0), no penetration and no depth vector. */
static void
test_point_near_edge (void)
{
  Scene scene;
  const double point[3] = { 0.52, 0.1, 0.53 };
  scene_init (&scene, point, 0.5, 0.5);
  Output out;
  run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out);
  g_assert_cmpuint (out.set.frames->len, ==, 0);
  g_assert_cmpfloat (out.set.max_penetration, ==, 0);
  output_clear (&out);

  run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0.05, &out);
  const CwbContactSet *set = &out.set;
  g_assert_cmpuint (set->frames->len, ==, 1);
  g_assert_cmpuint (set->rows->len, ==, 3);
  const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, 0);
  double gap = hypot (0.02, 0.03);
  assert_v3 (frame->origin, 0.5, 0.1, 0.5);
  assert_v3 (frame->normal, 0.02 / gap, 0, 0.03 / gap);
  assert_frame_basis (frame);
  g_assert_cmpfloat (fabs (frame->gap - gap), <, TOLERANCE);
  g_assert_cmpfloat (fabs (g_array_index (set->rows, CwbConstraintRow, 0).violation - gap), <,
                     TOLERANCE);
  assert_point_row (&scene, set, 0, CWB_ROW_NORMAL, frame->normal, 3);
  assert_point_row (&scene, set, 1, CWB_ROW_TANGENT, frame->t1, 3);
  assert_point_row (&scene, set, 2, CWB_ROW_TANGENT, frame->t2, 3);
  g_assert_cmpfloat (set->max_penetration, ==, 0);
  g_assert_cmpuint (out.inspection.vectors->len, ==, 0);
  /* Every pair within the margin is in the set: its reach (ABI 1.11). */
  g_assert_cmpfloat (set->reach, ==, 0.05);
  output_clear (&out);
  scene_clear (&scene);
}

/* A contact neither side can move carries no row a solver could satisfy: left out. The
 * model learns it from body_fixed where the host gives it (ABI 1.4), asking no point
 * response (a factorisation for a deformable body), else from the point response. */
static void
test_fixed_pair (gconstpointer announce)
{
  Scene scene;
  const double point[3] = { 0.1, 0.2, 0.49 };
  scene_init (&scene, point, 0.5, 0.5);
  scene.announce_fixed = GPOINTER_TO_INT (announce);
  scene.fixed[0] = scene.fixed[1] = TRUE;
  Output out;
  run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out);
  g_assert_cmpuint (out.set.frames->len, ==, 0);
  g_assert_cmpuint (out.set.rows->len, ==, 0);
  g_assert_cmpfloat (out.set.max_penetration, ==, 0);
  output_clear (&out);
  /* One side free is enough. */
  scene.fixed[1] = FALSE;
  run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out);
  g_assert_cmpuint (out.set.frames->len, ==, 1);
  if (scene.announce_fixed)
    g_assert_cmpint (scene.point_responses, ==, 0);
  else
    g_assert_cmpint (scene.point_responses, >, 0);
  output_clear (&out);
  scene_clear (&scene);
}

/* A particle is a sphere: its centre joins the surface with the gap measured from the sphere.
 * Radius 5 mm at the probe points of test_point_inside's geometry: centre 1 cm under the top
 * face penetrates by 0.005 + 0.01 = 0.015; centre 3 mm above it by 0.005 - 0.003 = 0.002
 * (outward normal +z both times, the same triangle weights as a point); centre 0.1 m above
 * it: no contact. Expected values are exact sums of decimals (TOLERANCE). */
static void
test_particle_sphere (void)
{
  const double heights[] = { 0.49, 0.503, 0.6 }, gaps[] = { -0.015, -0.002, NAN };
  for (size_t c = 0; c < G_N_ELEMENTS (heights); c++)
    {
      Scene scene;
      const double point[3] = { 0.1, 0.2, heights[c] }, radius = 0.005, mass = 1e-3;
      scene_init (&scene, point, 0.4, 0.9);
      scene.geometries[1].kind = CWB_GEOMETRY_PARTICLES;
      scene.geometries[1].radii = &radius;
      scene.geometries[1].masses = &mass;
      Output out;
      run_model (&scene, CWB_CONTACT_PASS_VELOCITY, 0, &out);
      const CwbContactSet *set = &out.set;
      if (isnan (gaps[c]))
        g_assert_cmpuint (set->frames->len, ==, 0);
      else
        {
          g_assert_cmpuint (set->frames->len, ==, 1);
          const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, 0);
          assert_v3 (frame->normal, 0, 0, 1);
          g_assert_cmpfloat (fabs (frame->gap - gaps[c]), <, TOLERANCE);
          const CwbConstraintRow *normal = &g_array_index (set->rows, CwbConstraintRow, 0);
          g_assert_cmpfloat (fabs (normal->violation - gaps[c]), <, TOLERANCE);
          assert_point_row (&scene, set, 0, CWB_ROW_NORMAL, frame->normal, 4);
          g_assert_cmpfloat (fabs (set->max_penetration + gaps[c]), <, TOLERANCE);
        }
      output_clear (&out);
      scene_clear (&scene);
    }
}

/* Particles without radii are not spheres: refused at attach, naming the body. */
static void
test_refuses_particles_without_radii (void)
{
  g_autoptr (CwbRegistry) registry = NULL;
  const CwbPluginDesc *desc = proximity_plugin (&registry);
  const CwbContactModelVTable *vt = desc->vtable;
  CwbParamSet params = { .struct_size = sizeof params };
  CwbContactModelCreateInfo info = { .struct_size = sizeof info, .params = &params };
  g_autoptr (GError) error = NULL;
  void *model = vt->create (&info, NULL, &error);
  const double centre[3] = { 0, 0, 0 }, mass = 1;
  CwbGeometry particles = { .struct_size = sizeof (CwbGeometry),
                            .kind = CWB_GEOMETRY_PARTICLES, .body = 3, .n_points = 1,
                            .positions = (double *) centre, .masses = &mass };
  CwbContactQuery query = { .struct_size = sizeof query, .geometries = &particles,
                            .n_geometries = 1 };
  g_assert_false (vt->attach (model, &query, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "body 3"));
  g_assert_nonnull (strstr (error->message, "proximity"));
  vt->destroy (model);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proximity/rows/point-inside", test_point_inside);
  g_test_add_func ("/proximity/rows/point-near-edge", test_point_near_edge);
  g_test_add_data_func ("/proximity/rows/fixed-pair", GINT_TO_POINTER (FALSE), test_fixed_pair);
  g_test_add_data_func ("/proximity/rows/fixed-pair-announced", GINT_TO_POINTER (TRUE),
                        test_fixed_pair);
  g_test_add_func ("/proximity/rows/particle-sphere", test_particle_sphere);
  g_test_add_func ("/proximity/rows/refuses-particles-without-radii",
                   test_refuses_particles_without_radii);
  return g_test_run ();
}

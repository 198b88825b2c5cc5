/* The rigid mapping against independent references: positions against the mesh moved by
 * the creation pose, J against central finite differences of apply() under the body's
 * integrate_position, J^T as the adjoint of J, the geometric stiffness against finite
 * differences of J^T f, and velocities = J v. */
#include <float.h>

#include "test_plugin.h"

/* Central differences with step eps: truncation O(eps^2 |r| |dq|^3) ~ 1e-12 and round-off
 * O(DBL_EPSILON |p| / eps) ~ 1e-9 for positions of order 10 and eps = 1e-6; 1e-7 absolute
 * leaves a factor 100 and is still far below any first-order mistake (~1). */
#define FD_STEP 1e-6
#define FD_TOLERANCE 1e-7
/* Identities that hold to round-off (same arithmetic in another order): a few ulps of the
 * magnitudes involved (~10). */
#define ROUNDOFF_TOLERANCE (1e3 * DBL_EPSILON)

typedef struct Fixture {
  const CwbBodyModelVTable *body_vt;
  const CwbMappingVTable *map_vt;
  TestShape *shape;
  void *body, *map;
  size_t n;
  double q[7], v[6];
} Fixture;

static void
fixture_setup (Fixture *fx, gconstpointer data)
{
  fx->body_vt = test_rigid_body_vtable (NULL);
  fx->map_vt = test_rigid_mapping_vtable ();
  /* An off-centre asymmetric box so that the centre of mass is not the mesh origin. */
  fx->shape = test_shape_box (0.6, 1.0, 1.8);
  double id[9], shift[3] = { 0.3, -0.2, 0.5 };
  cwb_m3_identity (id);
  test_shape_transform (fx->shape, id, shift);

  CwbBodyCreateInfo info = test_body_info ("mapped", fx->shape, 700, FALSE, NULL);
  double theta[3] = { -0.5, 0.8, 1.3 };
  cwb_quat_from_rotvec (info.orientation, theta);
  cwb_v3_set (info.position, 4.0, -3.0, 7.0);
  cwb_v3_set (info.linear_velocity, 0.5, 1.5, -0.7);
  cwb_v3_set (info.angular_velocity, 2.0, -1.0, 0.3);
  g_autoptr (GError) error = NULL;
  fx->body = fx->body_vt->create (&info, test_host (), &error);
  g_assert_no_error (error);
  fx->body_vt->init_state (fx->body, fx->q, fx->v);

  CwbBodyInfo bi;
  fx->body_vt->get_info (fx->body, &bi);
  CwbMappingCreateInfo mi = { .struct_size = sizeof mi, .name = "mapped", .body = &bi };
  fx->map = fx->map_vt->create (&mi, test_host (), &error);
  g_assert_no_error (error);
  CwbGeometryLayout layout;
  fx->map_vt->get_layout (fx->map, &layout);
  g_assert_cmpint (layout.kind, ==, CWB_GEOMETRY_SURFACE);
  g_assert_true (layout.closed);
  g_assert_cmpuint (layout.n_triangles, ==, fx->shape->surface.n_triangles);
  g_assert_cmpmem (layout.triangles, layout.n_triangles * 3 * sizeof (uint32_t),
                   fx->shape->triangles, layout.n_triangles * 3 * sizeof (uint32_t));
  fx->n = layout.n_points;
  g_assert_cmpuint (fx->n, ==, 8);
}

static void
fixture_teardown (Fixture *fx, gconstpointer data)
{
  fx->map_vt->destroy (fx->map);
  fx->body_vt->destroy (fx->body);
  test_shape_free (fx->shape);
}

/* Positions at q (+) s dq. */
static void
positions_at (Fixture *fx, const double *dq, double s, double *p)
{
  double qs[7];
  fx->body_vt->integrate_position (fx->body, fx->q, dq, s, qs);
  fx->map_vt->apply (fx->map, qs, NULL, p, NULL);
}

static const double DQ[6] = { 0.4, -0.9, 0.3, 0.7, 0.2, -1.1 };

static void
test_positions (Fixture *fx, gconstpointer data)
{
  /* The pose places the mesh frame: point k is at position + R v_k (mesh coordinates). */
  double theta[3] = { -0.5, 0.8, 1.3 }, quat[4], pos[3] = { 4.0, -3.0, 7.0 };
  cwb_quat_from_rotvec (quat, theta);
  double p[24];
  fx->map_vt->apply (fx->map, fx->q, NULL, p, NULL);
  for (size_t k = 0; k < fx->n; k++)
    {
      double expected[3];
      cwb_quat_rotate (expected, quat, &fx->shape->vertices[3 * k]);
      cwb_v3_add (expected, expected, pos);
      for (int i = 0; i < 3; i++)
        g_assert_cmpfloat_with_epsilon (p[3 * k + i], expected[i], ROUNDOFF_TOLERANCE);
    }
}

static void
test_j_finite_differences (Fixture *fx, gconstpointer data)
{
  double plus[24], minus[24], jdq[24];
  positions_at (fx, DQ, FD_STEP, plus);
  positions_at (fx, DQ, -FD_STEP, minus);
  fx->map_vt->apply_j (fx->map, fx->q, DQ, jdq);
  for (size_t i = 0; i < 3 * fx->n; i++)
    g_assert_cmpfloat_with_epsilon (jdq[i], (plus[i] - minus[i]) / (2 * FD_STEP), FD_TOLERANCE);
}

static void
forces_fill (const Fixture *fx, CwbPointWeight *f)
{
  for (size_t k = 0; k < fx->n; k++)
    {
      f[k] = (CwbPointWeight) { .geometry = 0, .point = (uint32_t) k };
      cwb_v3_set (f[k].w, sin (1.0 + k), cos (2.0 * k), 0.5 - 0.1 * (double) k);
    }
}

static void
test_jt_adjoint (Fixture *fx, gconstpointer data)
{
  CwbPointWeight f[8];
  forces_fill (fx, f);
  double jdq[24], r[6] = { 0 };
  fx->map_vt->apply_j (fx->map, fx->q, DQ, jdq);
  fx->map_vt->apply_jt (fx->map, fx->q, f, fx->n, r);
  double lhs = 0, rhs = 0;
  for (size_t k = 0; k < fx->n; k++)
    lhs += cwb_v3_dot (&jdq[3 * k], f[k].w);
  for (int i = 0; i < 6; i++)
    rhs += DQ[i] * r[i];
  g_assert_cmpfloat_with_epsilon (lhs, rhs, ROUNDOFF_TOLERANCE);

  /* Accumulates rather than overwrites. */
  double r2[6] = { 1, 1, 1, 1, 1, 1 };
  fx->map_vt->apply_jt (fx->map, fx->q, f, fx->n, r2);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat_with_epsilon (r2[i], r[i] + 1, ROUNDOFF_TOLERANCE);
}

static void
jt_at (Fixture *fx, const CwbPointWeight *f, double s, double *r)
{
  double qs[7];
  fx->body_vt->integrate_position (fx->body, fx->q, DQ, s, qs);
  memset (r, 0, 6 * sizeof (double));
  fx->map_vt->apply_jt (fx->map, qs, f, fx->n, r);
}

static void
test_geometric_stiffness (Fixture *fx, gconstpointer data)
{
  CwbPointWeight f[8];
  forces_fill (fx, f);
  double plus[6], minus[6], kdq[6] = { 0 };
  jt_at (fx, f, FD_STEP, plus);
  jt_at (fx, f, -FD_STEP, minus);
  g_assert_nonnull (fx->map_vt->geometric_stiffness_apply);
  fx->map_vt->geometric_stiffness_apply (fx->map, fx->q, f, fx->n, DQ, kdq);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat_with_epsilon (kdq[i], (plus[i] - minus[i]) / (2 * FD_STEP), FD_TOLERANCE);
  /* The torque does change: the test is not vacuous. */
  g_assert_cmpfloat (cwb_v3_norm (kdq + 3), >, 0.1);
}

static void
test_velocities (Fixture *fx, gconstpointer data)
{
  double p[24], pdot[24], jv[24];
  fx->map_vt->apply (fx->map, fx->q, fx->v, p, pdot);
  fx->map_vt->apply_j (fx->map, fx->q, fx->v, jv);
  for (size_t i = 0; i < 3 * fx->n; i++)
    g_assert_cmpfloat_with_epsilon (pdot[i], jv[i], ROUNDOFF_TOLERANCE);
}

/* `sample: volume`: the box of 0.6 x 1.0 x 1.8 m filled by a lattice of 0.2 m, 3 x 5 x 9
 * particles whose spheres hold the box's volume and whose masses the body's, centred on the
 * centre of mass, inside the moved box, carried with the body's velocity field. */
static void
test_volume_particles (void)
{
  const CwbBodyModelVTable *body_vt = test_rigid_body_vtable (NULL);
  const CwbPluginDesc *map_desc = test_plugin_load ("CWB_RIGID_MAPPING_PLUGIN",
                                                    CWB_PLUGIN_MAPPING, "rigid");
  const CwbMappingVTable *map_vt = map_desc->vtable;
  TestShape *shape = test_shape_box (0.6, 1.0, 1.8);
  CwbBodyCreateInfo info = test_body_info ("grains", shape, 700, FALSE, NULL);
  double theta[3] = { -0.5, 0.8, 1.3 }, q[7], v[6];
  cwb_quat_from_rotvec (info.orientation, theta);
  cwb_v3_set (info.position, 4.0, -3.0, 7.0);
  cwb_v3_set (info.linear_velocity, 0.5, 1.5, -0.7);
  cwb_v3_set (info.angular_velocity, 2.0, -1.0, 0.3);
  g_autoptr (GError) error = NULL;
  void *body = body_vt->create (&info, test_host (), &error);
  g_assert_no_error (error);
  body_vt->init_state (body, q, v);
  CwbBodyInfo bi;
  body_vt->get_info (body, &bi);
  TestParams params;
  test_params_init (&params, map_desc);
  test_params_set_enum (&params, "sample", "volume");
  test_params_set_double (&params, "particle_spacing", 0.2);
  CwbMappingCreateInfo mi = { .struct_size = sizeof mi, .name = "grains", .body = &bi,
                              .params = &params.set };
  void *map = map_vt->create (&mi, test_host (), &error);
  g_assert_no_error (error);
  CwbGeometryLayout layout;
  map_vt->get_layout (map, &layout);
  g_assert_cmpint (layout.kind, ==, CWB_GEOMETRY_PARTICLES);
  g_assert_cmpuint (layout.n_points, ==, 135);
  g_assert_cmpuint (layout.n_triangles, ==, 0);
  size_t n = layout.n_points;
  double volume = 0, mass = 0;
  for (size_t k = 0; k < n; k++)
    {
      volume += 4.0 / 3.0 * G_PI * pow (layout.radii[k], 3);
      mass += layout.masses[k];
    }
  g_assert_cmpfloat_with_epsilon (volume, 0.6 * 1.0 * 1.8, ROUNDOFF_TOLERANCE);
  g_assert_cmpfloat_with_epsilon (mass, bi.mass, ROUNDOFF_TOLERANCE * bi.mass);
  g_autofree double *p = g_new (double, 3 * n), *pdot = g_new (double, 3 * n);
  map_vt->apply (map, q, v, p, pdot);
  double mean[3] = { 0, 0, 0 }, rot[9];
  cwb_quat_to_m3 (rot, q + 3);
  for (size_t k = 0; k < n; k++)
    {
      cwb_v3_axpy (mean, 1.0 / (double) n, &p[3 * k]);
      double arm[3], local[3], expected[3];
      cwb_v3_sub (arm, &p[3 * k], q);
      cwb_m3t_mul_v3 (local, rot, arm);
      /* Cell centres of the box: half a spacing in from its faces. */
      const double half[3] = { 0.3, 0.5, 0.9 };
      for (int a = 0; a < 3; a++)
        g_assert_cmpfloat (fabs (local[a]), <=, half[a] - 0.1 + ROUNDOFF_TOLERANCE);
      cwb_v3_cross (expected, v + 3, arm);
      cwb_v3_add (expected, expected, v);
      for (int a = 0; a < 3; a++)
        g_assert_cmpfloat_with_epsilon (pdot[3 * k + a], expected[a], ROUNDOFF_TOLERANCE);
    }
  for (int a = 0; a < 3; a++)
    g_assert_cmpfloat_with_epsilon (mean[a], q[a], ROUNDOFF_TOLERANCE);
  map_vt->destroy (map);
  body_vt->destroy (body);
  test_shape_free (shape);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add ("/rigid/mapping/" path, Fixture, NULL, fixture_setup, fn, \
                                  fixture_teardown)
  ADD ("positions", test_positions);
  ADD ("j-finite-differences", test_j_finite_differences);
  ADD ("jt-adjoint", test_jt_adjoint);
  ADD ("geometric-stiffness", test_geometric_stiffness);
  ADD ("velocities", test_velocities);
  g_test_add_func ("/rigid/mapping/volume-particles", test_volume_particles);
  return g_test_run ();
}

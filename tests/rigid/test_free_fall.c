/* Free fall of a rigid body: symplectic Euler has the exact discrete solution
 *   v_n = v_0 + n h g,   x_n = x_0 + n h v_0 + h^2 g n (n + 1) / 2
 * (x_n = x_0 + h sum_{k=1..n} v_k), so the only error allowed is round-off. A fixed body
 * does not move at all. */
#include <float.h>

#include "test_plugin.h"

#define N_STEPS 1000
#define STEP 1e-3

/* Round-off bound of the recurrences: each step rounds v once (relative eps/2 of |v|) and x
 * once, and x also sums the step-by-step errors of v times h, so after n steps
 *   |dv| <= n eps max|v|,   |dx| <= n eps (max|x| + n h max|v|).
 * A factor 2 covers the products h g and h v that are rounded too. */
#define ROUNDOFF_FACTOR 2.0

static void
test_free_fall (void)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) box = test_shape_box (0.5, 0.3, 0.2);
  CwbBodyCreateInfo info = test_body_info ("falling", box, 1000, FALSE, NULL);
  cwb_v3_set (info.position, 1.0, -2.0, 5.0);
  cwb_v3_set (info.linear_velocity, 1.5, 0.25, 3.0);
  g_autoptr (GError) error = NULL;
  void *body = vt->create (&info, test_host (), &error);
  g_assert_no_error (error);

  double q[7], v[6], qn[7], vn[6];
  vt->init_state (body, q, v);
  double x0[3], v0[3];
  memcpy (x0, q, sizeof x0);
  memcpy (v0, v, sizeof v0);
  const double g[3] = { 0.3, -0.1, -9.81 };

  double vmax = 0, xmax = 0;
  for (int n = 0; n < N_STEPS; n++)
    {
      CwbFreeMotion fm = { .struct_size = sizeof fm, .h = STEP, .q = q, .v = v,
                           .q_free = qn, .v_free = vn };
      memcpy (fm.gravity, g, sizeof g);
      vt->free_motion (body, &fm);
      memcpy (q, qn, sizeof q);
      memcpy (v, vn, sizeof v);
      vmax = MAX (vmax, cwb_v3_norm (v));
      xmax = MAX (xmax, cwb_v3_norm (q));
    }

  const double n = N_STEPS, h = STEP;
  double tol_v = ROUNDOFF_FACTOR * n * DBL_EPSILON * vmax;
  double tol_x = ROUNDOFF_FACTOR * n * DBL_EPSILON * (xmax + n * h * vmax);
  for (int i = 0; i < 3; i++)
    {
      double v_exact = v0[i] + n * h * g[i];
      double x_exact = x0[i] + n * h * v0[i] + h * h * g[i] * n * (n + 1) / 2;
      g_assert_cmpfloat_with_epsilon (v[i], v_exact, tol_v);
      g_assert_cmpfloat_with_epsilon (q[i], x_exact, tol_x);
      /* No rotation: omega stays exactly zero. */
      g_assert_cmpfloat (v[3 + i], ==, 0.0);
    }
  g_assert_cmpfloat_with_epsilon (q[3], 1.0, 4 * DBL_EPSILON);
  for (int i = 4; i < 7; i++)
    g_assert_cmpfloat (q[i], ==, 0.0);
  vt->destroy (body);
}

static void
test_fixed_body_stays (void)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) box = test_shape_box (2, 2, 0.5);
  CwbBodyCreateInfo info = test_body_info ("ground", box, 0, TRUE, NULL);
  cwb_v3_set (info.position, 0, 0, -1);
  cwb_v3_set (info.linear_velocity, 1, 2, 3);      /* ignored for a fixed body */
  cwb_v3_set (info.angular_velocity, 0.1, 0, 0);
  g_autoptr (GError) error = NULL;
  void *body = vt->create (&info, test_host (), &error);
  g_assert_no_error (error);

  double q[7], v[6], qn[7], vn[6];
  vt->init_state (body, q, v);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (v[i], ==, 0.0);
  const double f[6] = { 10, 20, 30, 1, 2, 3 };
  CwbFreeMotion fm = { .struct_size = sizeof fm, .h = 0.01, .gravity = { 0, 0, -9.81 },
                       .q = q, .v = v, .f_ext = f, .q_free = qn, .v_free = vn };
  vt->free_motion (body, &fm);
  g_assert_cmpmem (qn, sizeof qn, q, sizeof q);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (vn[i], ==, 0.0);

  const double dv[6] = { 1, 1, 1, 1, 1, 1 };
  vt->integrate_position (body, q, dv, 0.01, qn);
  g_assert_cmpmem (qn, sizeof qn, q, sizeof q);

  CwbBodyInfo bi;
  vt->get_info (body, &bi);
  g_assert_true (bi.fixed);
  g_assert_cmpuint (bi.nq, ==, 7);
  g_assert_cmpuint (bi.nv, ==, 6);
  vt->destroy (body);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rigid/free-fall/discrete-solution", test_free_fall);
  g_test_add_func ("/rigid/free-fall/fixed-body-stays", test_fixed_body_stays);
  return g_test_run ();
}

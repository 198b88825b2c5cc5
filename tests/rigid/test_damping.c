/* Damping parameters: with no forces, linear and angular velocity decay as exp(-c h) per
 * step, so after n steps v_n = v_0 e^{-c n h}, and x_n = x_0 + h v_0 r (1 - r^n) / (1 - r)
 * with r = e^{-c h} (the positions sum the damped velocities). A cube is used for the
 * angular part: its inertia is isotropic, so omega itself (not only |L|) decays. */
#include <float.h>

#include "test_plugin.h"

#define N_STEPS 1000
#define STEP 1e-3
#define LINEAR_DAMPING 2.0
#define ANGULAR_DAMPING 3.0

/* n steps of one multiplication each (plus the cube's inertia being isotropic only to a
 * few ulps): relative round-off grows at most like n * few eps = 1e3 * 4 * 2.2e-16 ~ 1e-12. */
#define DECAY_TOLERANCE 1e-11

static void
test_decay (void)
{
  const CwbPluginDesc *desc;
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (&desc);
  TestParams params;
  test_params_init (&params, desc);
  test_params_set_double (&params, "linear_damping", LINEAR_DAMPING);
  test_params_set_double (&params, "angular_damping", ANGULAR_DAMPING);

  g_autoptr (TestShape) cube = test_shape_box (0.5, 0.5, 0.5);
  CwbBodyCreateInfo info = test_body_info ("damped", cube, 800, FALSE, &params);
  cwb_v3_set (info.linear_velocity, 2.0, -1.0, 0.5);
  cwb_v3_set (info.angular_velocity, 1.0, 3.0, -2.0);
  g_autoptr (GError) error = NULL;
  void *body = vt->create (&info, test_host (), &error);
  g_assert_no_error (error);

  double q[7], v[6], qn[7], vn[6], q0[7], v0[6];
  vt->init_state (body, q, v);
  memcpy (q0, q, sizeof q);
  memcpy (v0, v, sizeof v);
  for (int n = 0; n < N_STEPS; n++)
    {
      CwbFreeMotion fm = { .struct_size = sizeof fm, .h = STEP, .q = q, .v = v,
                           .q_free = qn, .v_free = vn };
      vt->free_motion (body, &fm);
      memcpy (q, qn, sizeof q);
      memcpy (v, vn, sizeof v);
    }

  double decay_l = exp (-LINEAR_DAMPING * N_STEPS * STEP);
  double decay_a = exp (-ANGULAR_DAMPING * N_STEPS * STEP);
  double r = exp (-LINEAR_DAMPING * STEP);
  double sum = r * (1 - pow (r, N_STEPS)) / (1 - r);
  for (int i = 0; i < 3; i++)
    {
      g_assert_cmpfloat_with_epsilon (v[i], v0[i] * decay_l, DECAY_TOLERANCE * fabs (v0[i]));
      g_assert_cmpfloat_with_epsilon (v[3 + i], v0[3 + i] * decay_a,
                                      DECAY_TOLERANCE * cwb_v3_norm (v0 + 3));
      g_assert_cmpfloat_with_epsilon (q[i], q0[i] + STEP * v0[i] * sum,
                                      DECAY_TOLERANCE * fabs (v0[i]));
    }
  vt->destroy (body);
}

static void
test_params_changed (void)
{
  /* Damping switched on at run time takes effect on the next step. */
  const CwbPluginDesc *desc;
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (&desc);
  TestParams params;
  test_params_init (&params, desc);
  g_autoptr (TestShape) cube = test_shape_box (1, 1, 1);
  CwbBodyCreateInfo info = test_body_info ("damped", cube, 800, FALSE, &params);
  cwb_v3_set (info.linear_velocity, 1.0, 0, 0);
  void *body = vt->create (&info, test_host (), NULL);
  g_assert_nonnull (body);
  test_params_set_double (&params, "linear_damping", LINEAR_DAMPING);
  vt->params_changed (body, &params.set);

  double q[7], v[6], qn[7], vn[6];
  vt->init_state (body, q, v);
  CwbFreeMotion fm = { .struct_size = sizeof fm, .h = STEP, .q = q, .v = v,
                       .q_free = qn, .v_free = vn };
  vt->free_motion (body, &fm);
  g_assert_cmpfloat_with_epsilon (vn[0], exp (-LINEAR_DAMPING * STEP), 4 * DBL_EPSILON);
  vt->destroy (body);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rigid/damping/exponential-decay", test_decay);
  g_test_add_func ("/rigid/damping/params-changed", test_params_changed);
  return g_test_run ();
}

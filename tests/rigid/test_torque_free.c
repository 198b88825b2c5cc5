/* A torque-free asymmetric body (box 1 x 2 x 3, principal moments in the ratio 13 : 10 : 5)
 * spun about its unstable intermediate axis with a small perturbation: it tumbles (the spin
 * about that axis flips sign every few seconds), and the scheme must keep the world angular
 * momentum and the kinetic energy over 10^4 steps. */
#include <float.h>

#include "test_plugin.h"

#define N_STEPS 10000
#define STEP 1e-3

/* The angular step keeps L exact by construction (it turns the body by an exact rotation
 * that maps L_b onto L_b+) and conserves T exactly in exact arithmetic (implicit midpoint
 * rule). What is left is round-off: per step a few ulps from the Newton stop (4 eps |L|)
 * and the products R I R^T omega, accumulated linearly in the worst case over 10^4 steps:
 * ~10 eps * 1e4 = 2e-11. 1e-10 keeps a factor 5 above that and is still nine orders below
 * the O(h) per-period drift of an explicit gyroscopic update. */
#define CONSERVATION_TOLERANCE 1e-10

static void
run_tumble (gboolean rotated_start)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) box = test_shape_box (1, 2, 3);
  CwbBodyCreateInfo info = test_body_info ("tumbler", box, 100, FALSE, NULL);

  /* Spin 5 rad/s about the body's y axis (intermediate moment), 1e-3 off-axis. */
  double omega_b[3] = { 5e-3, 5.0, 5e-3 }, rot[9];
  if (rotated_start)
    {
      double theta[3] = { 0.4, -1.2, 0.7 };
      cwb_quat_from_rotvec (info.orientation, theta);
    }
  cwb_quat_to_m3 (rot, info.orientation);
  cwb_m3_mul_v3 (info.angular_velocity, rot, omega_b);
  g_autoptr (GError) error = NULL;
  void *body = vt->create (&info, test_host (), &error);
  g_assert_no_error (error);

  double q[7], v[6], qn[7], vn[6];
  vt->init_state (body, q, v);
  CwbBodySummary s0, s;
  vt->summary (body, q, v, &s0);
  double l0 = cwb_v3_norm (s0.angular_momentum);

  double max_dl = 0, max_de = 0, min_spin = G_MAXDOUBLE;
  for (int n = 0; n < N_STEPS; n++)
    {
      CwbFreeMotion fm = { .struct_size = sizeof fm, .h = STEP, .q = q, .v = v,
                           .q_free = qn, .v_free = vn };
      vt->free_motion (body, &fm);
      memcpy (q, qn, sizeof q);
      memcpy (v, vn, sizeof v);

      vt->summary (body, q, v, &s);
      double dl[3];
      cwb_v3_sub (dl, s.angular_momentum, s0.angular_momentum);
      max_dl = MAX (max_dl, cwb_v3_norm (dl) / l0);
      max_de = MAX (max_de, fabs (s.kinetic_energy - s0.kinetic_energy) / s0.kinetic_energy);

      /* Spin about the body's y axis: omega_b = R^T omega. */
      double wb[3];
      cwb_quat_to_m3 (rot, q + 3);
      cwb_m3t_mul_v3 (wb, rot, v + 3);
      min_spin = MIN (min_spin, wb[1]);
    }
  g_test_message ("max |dL|/|L| = %.3g, max |dT|/T = %.3g, min body y spin = %.3f",
                  max_dl, max_de, min_spin);
  g_assert_cmpfloat (max_dl, <=, CONSERVATION_TOLERANCE);
  g_assert_cmpfloat (max_de, <=, CONSERVATION_TOLERANCE);
  /* It did tumble: the spin about the intermediate axis reversed (the closed-form flip time
   * is ~ ln(1/1e-3) / (5 sqrt(3 * 5 / (13 * 5))) ~ 3 s, within the 10 s simulated). */
  g_assert_cmpfloat (min_spin, <, -4.0);
  /* The quaternion stays unit. */
  double qn2 = q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6];
  g_assert_cmpfloat_with_epsilon (qn2, 1.0, 8 * DBL_EPSILON);
  vt->destroy (body);
}

static void
test_tumble (void)
{
  run_tumble (FALSE);
}

static void
test_tumble_rotated (void)
{
  run_tumble (TRUE);
}

/* A constant world torque on the same tumbling body: the torque impulse goes straight into
 * the world momentum and the gyroscopic drift conserves it, so L_n = L_0 + n h tau
 * (angular impulse theorem), to the same round-off as above. The force part of f_ext
 * leaves the angular motion alone. */
static void
test_constant_torque (void)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) box = test_shape_box (1, 2, 3);
  CwbBodyCreateInfo info = test_body_info ("twisted", box, 100, FALSE, NULL);
  cwb_v3_set (info.angular_velocity, 0.5, 3.0, -1.0);
  void *body = vt->create (&info, test_host (), NULL);
  g_assert_nonnull (body);

  double q[7], v[6], qn[7], vn[6];
  vt->init_state (body, q, v);
  CwbBodySummary s0, s;
  vt->summary (body, q, v, &s0);
  const double f[6] = { 5.0, -2.0, 1.0, 20.0, -35.0, 12.0 };
  for (int n = 0; n < N_STEPS; n++)
    {
      CwbFreeMotion fm = { .struct_size = sizeof fm, .h = STEP, .q = q, .v = v, .f_ext = f,
                           .q_free = qn, .v_free = vn };
      vt->free_motion (body, &fm);
      memcpy (q, qn, sizeof q);
      memcpy (v, vn, sizeof v);
    }
  vt->summary (body, q, v, &s);
  double expected[3], scale = 0;
  cwb_v3_copy (expected, s0.angular_momentum);
  cwb_v3_axpy (expected, N_STEPS * STEP, f + 3);
  scale = cwb_v3_norm (expected);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (s.angular_momentum[i], expected[i],
                                    CONSERVATION_TOLERANCE * scale);
  vt->destroy (body);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rigid/torque-free/intermediate-axis", test_tumble);
  g_test_add_func ("/rigid/torque-free/intermediate-axis-rotated", test_tumble_rotated);
  g_test_add_func ("/rigid/torque-free/constant-torque-impulse", test_constant_torque);
  return g_test_run ();
}

/* Compliance of a rigid body: C = h^2 M^-1 (Saupin 2008 eq. 14 with no internal forces), so
 * C (M x) = h^2 x for both the exact and the warped kind; a fixed body has zero compliance. */
#include <float.h>

#include "test_plugin.h"

/* C M x inverts a 3x3 inertia (adjugate) and applies it after rotating twice: round-off of
 * order cond(I) * few eps; the box below has cond(I) < 10, so 1e-13 relative is ample. */
#define INVERSE_TOLERANCE 1e-13

static void
test_compliance_inverts_mass (void)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) box = test_shape_box (0.4, 0.9, 1.6);
  CwbBodyCreateInfo info = test_body_info ("block", box, 1200, FALSE, NULL);
  double theta[3] = { 0.9, 0.2, -0.6 };
  cwb_quat_from_rotvec (info.orientation, theta);
  void *body = vt->create (&info, test_host (), NULL);
  g_assert_nonnull (body);

  double q[7], v[6];
  vt->init_state (body, q, v);
  const double h = 0.01;
  const double x[6] = { 0.3, -1.2, 2.0, 0.7, 0.1, -0.4 };
  double mx[6], cmx[6];
  vt->mass_apply (body, q, x, mx);
  for (int kind = CWB_COMPLIANCE_EXACT; kind <= CWB_COMPLIANCE_WARPED; kind++)
    {
      vt->compliance_apply (body, q, h, kind, mx, cmx);
      for (int i = 0; i < 6; i++)
        g_assert_cmpfloat_with_epsilon (cmx[i], h * h * x[i], INVERSE_TOLERANCE * h * h * 2.0);
    }
  vt->destroy (body);
}

static void
test_fixed_zero (void)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) box = test_shape_box (1, 1, 1);
  CwbBodyCreateInfo info = test_body_info ("wall", box, 1000, TRUE, NULL);
  void *body = vt->create (&info, test_host (), NULL);
  g_assert_nonnull (body);
  double q[7], v[6], dq[6];
  vt->init_state (body, q, v);
  const double r[6] = { 1, 2, 3, 4, 5, 6 };
  for (int kind = CWB_COMPLIANCE_EXACT; kind <= CWB_COMPLIANCE_WARPED; kind++)
    {
      memset (dq, 0xff, sizeof dq);   /* NaN pattern: every entry must be written */
      vt->compliance_apply (body, q, 0.01, kind, r, dq);
      for (int i = 0; i < 6; i++)
        g_assert_cmpfloat (dq[i], ==, 0.0);
    }
  vt->destroy (body);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rigid/compliance/inverts-mass", test_compliance_inverts_mass);
  g_test_add_func ("/rigid/compliance/fixed-zero", test_fixed_zero);
  return g_test_run ();
}

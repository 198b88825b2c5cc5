/* External stiffness and damping operators (a penalty contact's K = df/dq, B = df/dv) are
 * taken implicitly: with K = -k I3, B = -b I3 on the linear DOFs, no gravity and no force,
 * the linearised backward Euler step (M - h B - h^2 K) dv = h^2 K v has the closed form
 *   v+ = v (m + h b) / (m + h b + h^2 k),   x+ = x + h v+. */
#include <float.h>

#include "test_plugin.h"

#define SPRING_K 5e4    /* N/m: stiff, h^2 k / m = 0.05 at the step below */
#define DAMPER_B 30.0   /* N s/m */
#define STEP 1e-2

/* One 6x6 LU solve of a well-conditioned diagonal-dominant system: a few ulps. */
#define SOLVE_TOLERANCE (64 * DBL_EPSILON)

typedef struct LinearDiag {
  double d;
} LinearDiag;

/* y = d [x_lin, 0]. */
static void
linear_diag_apply (void *data, const double *x, double *y)
{
  const LinearDiag *op = data;
  for (int i = 0; i < 3; i++)
    {
      y[i] = op->d * x[i];
      y[3 + i] = 0;
    }
}

static void
test_spring_damper_step (void)
{
  const CwbBodyModelVTable *vt = test_rigid_body_vtable (NULL);
  g_autoptr (TestShape) cube = test_shape_box (1, 1, 1);
  CwbBodyCreateInfo info = test_body_info ("sprung", cube, 100, FALSE, NULL);
  cwb_v3_set (info.linear_velocity, 1.0, -2.0, 0.5);
  void *body = vt->create (&info, test_host (), NULL);
  g_assert_nonnull (body);
  CwbBodyInfo bi;
  vt->get_info (body, &bi);
  const double m = bi.mass, h = STEP;

  double q[7], v[6], qn[7], vn[6];
  vt->init_state (body, q, v);
  LinearDiag kd = { -SPRING_K }, bd = { -DAMPER_B };
  CwbLinearOperator k = { linear_diag_apply, &kd }, b = { linear_diag_apply, &bd };
  CwbFreeMotion fm = { .struct_size = sizeof fm, .h = h, .q = q, .v = v, .k_ext = &k,
                       .b_ext = &b, .q_free = qn, .v_free = vn };
  vt->free_motion (body, &fm);

  double factor = (m + h * DAMPER_B) / (m + h * DAMPER_B + h * h * SPRING_K);
  for (int i = 0; i < 3; i++)
    {
      g_assert_cmpfloat_with_epsilon (vn[i], v[i] * factor, SOLVE_TOLERANCE * fabs (v[i]));
      g_assert_cmpfloat_with_epsilon (qn[i], q[i] + h * v[i] * factor,
                                      SOLVE_TOLERANCE * (fabs (q[i]) + fabs (v[i])));
      g_assert_cmpfloat (vn[3 + i], ==, 0.0);
    }
  vt->destroy (body);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rigid/implicit-stiffness/spring-damper-step", test_spring_damper_step);
  return g_test_run ();
}

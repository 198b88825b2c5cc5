/* The penalty model's stiffness, as the host hands it to implicit integrators
 * (CwbStepContext.contact_stiffness_apply = J^T K J), against finite differences of the
 * forces themselves (J^T f): a box with one corner 2 mm inside the ground, translated. The
 * force of a single contact is linear in its depth (its effective mass depends on the
 * orientation only), so the two agree to round-off. Friction is off: the stiffness blocks
 * are the normal forces' (a frictional force's derivative has no such blocks). */
#include <math.h>

#include "world_fixture.h"
#include "world_private.h"

/* Translation step of the difference quotient (m), and the tolerance: the force is exactly
 * linear in the translation, so only the round-off of two force evaluations of order 1e2 N
 * over 1e-4 m remains (1e-9 relative is ample). */
#define FD_STEP 1e-4
#define FD_TOLERANCE 1e-9

/* The box is placed 2 mm deep and at rest: an overlap the model would close by its
 * max_depenetration a step (a bounded response), so the bound is lifted here, where the
 * stiffness of the unbounded law is what is checked. */
static const char *scene_yaml =
  "world: { dt: 0.005, gravity: [0, 0, 0] }\n"
  "contact: { model: penalty, max_depenetration: 1 }\n"
  "solver: { name: predictor-corrector, implicit_contacts: true }\n"
  "bodies:\n"
  "  - name: ground\n"
  "    shape: { type: ground }\n"
  "    fixed: true\n"
  "    material: { friction: 0 }\n"
  "  - name: box\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  /* Turned so that one corner is lowest: about x by 0.3 rad, then about y by 0.4 rad. */
  "    pose: { position: [0, 0, 0.5], orientation: [0.9589, 0.1417, 0.1963, 0.1440] }\n"
  "    material: { density: 500, friction: 0 }\n";

/* Generalized contact forces on the box (nv = 6) for the box's position offset by dz. */
static void
forces_at (CwbWorld *world, const double *q0, double dz, double r[6])
{
  size_t nq, nv;
  double *q = cwb_world_q (world, &nq);
  double *v = cwb_world_v (world, &nv);
  memcpy (q, q0, nq * sizeof (double));
  q[world->slots[1].q_offset + 2] += dz;
  memset (v, 0, nv * sizeof (double));
  g_autoptr (GError) error = NULL;
  CwbContactSet *set = world->ctx.detect (&world->ctx, q, v, CWB_CONTACT_PASS_VELOCITY, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (set->frames->len, ==, 1);
  g_autofree double *all = g_new0 (double, nv);
  world->ctx.point_forces_to_dofs (&world->ctx, all);
  memcpy (r, all + world->slots[1].v_offset, 6 * sizeof (double));
}

static void
test_stiffness_matches_forces (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, scene_yaml);
  size_t nq;
  double *q = cwb_world_q (world, &nq);
  /* Lower the box until its lowest point is 2 mm under the ground's top (z = 0). */
  size_t n;
  const CwbGeometry *g = cwb_world_geometries (world, &n);
  double lowest = INFINITY;
  for (size_t p = 0; p < g[1].n_points; p++)
    lowest = MIN (lowest, g[1].positions[3 * p + 2]);
  q[world->slots[1].q_offset + 2] -= lowest + 0.002;
  g_autofree double *q0 = g_memdup2 (q, nq * sizeof (double));

  double r0[6], r1[6], df[6];
  forces_at (world, q0, FD_STEP, r1);
  forces_at (world, q0, 0, r0);   /* last: the stiffness is taken at this configuration */
  const double dz[6] = { 0, 0, 1, 0, 0, 0 };
  world->ctx.contact_stiffness_apply (&world->ctx, 1, dz, df);
  double scale = 0;
  for (int i = 0; i < 6; i++)
    scale = MAX (scale, fabs (df[i]));
  g_assert_cmpfloat (scale, >, 0);
  g_assert_cmpfloat (r0[2], >, 0);   /* the ground pushes the box up */
  for (int i = 0; i < 6; i++)
    {
      double quotient = (r1[i] - r0[i]) / FD_STEP;
      g_test_message ("dof %d: finite difference %.9g, stiffness %.9g", i, quotient, df[i]);
      g_assert_cmpfloat (fabs (quotient - df[i]), <, FD_TOLERANCE * scale + 1e-6);
    }
  /* Pushing the box up relieves the contact: d(f_z)/dz < 0. */
  g_assert_cmpfloat (df[2], <, 0);
}

/* A frictionless box resting face down, its contact forces integrated explicitly and then
 * implicitly (the predictor-corrector's implicit_contacts): both come to rest. The forces are
 * linear in the depth (k d) and taken at the predicted state, which at rest lies g h^2 deeper
 * than the state. Explicitly the weight is carried by k (d + g h^2); implicitly the solver
 * hands over f(q_p) - K (q_p - q) = k d, so the weight is carried by k d: the implicit rest is
 * exactly g h^2 deeper. */
static double
resting_penetration (gboolean implicit_contacts, double *last_speed)
{
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: penalty }\n"
    "solver: { name: predictor-corrector, implicit_contacts: %s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground }\n"
    "    fixed: true\n"
    "    material: { friction: 0 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0, 0, 0.1] }\n"
    "    material: { density: 500, friction: 0 }\n",
    implicit_contacts ? "true" : "false");
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 400);
  CwbBodySummary s;
  cwb_world_body_summary (world, 1, &s);
  *last_speed = cwb_v3_norm (s.linear_velocity);
  return 0.1 - s.centroid[2];
}

static void
test_implicit_rests (void)
{
  double explicit_speed, implicit_speed;
  double explicit_depth = resting_penetration (FALSE, &explicit_speed);
  double implicit_depth = resting_penetration (TRUE, &implicit_speed);
  g_test_message ("resting: %.6g m, %.3g m/s explicit; %.6g m, %.3g m/s implicit",
                  explicit_depth, explicit_speed, implicit_depth, implicit_speed);
  g_assert_cmpfloat (explicit_depth, >, 0);
  /* At rest by the criterion; the difference g h^2 = 2.45e-4 m to 1e-9 m (the
   * round-off of the forces' balance against the weight). */
  g_assert_cmpfloat (explicit_speed, <, 1e-6);
  g_assert_cmpfloat (implicit_speed, <, 1e-6);
  g_assert_cmpfloat (fabs (implicit_depth - explicit_depth - 9.81 * 0.005 * 0.005), <, 1e-9);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/stiffness/finite-differences", test_stiffness_matches_forces);
  g_test_add_func ("/penalty/stiffness/implicit-rests", test_implicit_rests);
  return g_test_run ();
}

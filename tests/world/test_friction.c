/* A box on the test half-space through the whole pipeline (scene, rigid body and mapping,
 * contact model, constraint solver with block Gauss-Seidel), for both friction sets of the
 * solver (`friction: cone`, the exact Coulomb cone; `friction: pyramid`, Allard 2010
 * eq. 9-10): resting contact, the inclined plane against Coulomb's closed form, a push along
 * the diagonal t1 + t2 of the contact frames where the two sets differ, and after every step
 * every contact against Signorini's and Coulomb's laws, measured on the position-level
 * solve (normal_constraint: position) whose rows the checks read. */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define BOX 0.2          /* box side, m: a cube, see LAW_DRIFT_PER_ROW */
#define MU 0.5
#define DT 0.005
#define SOLVER_TOLERANCE 1e-12   /* m, the scenes' solver.tolerance */

/* A resting box must not creep: position-level Signorini (Saupin 2008 eq. 19) removes the
 * whole free-motion penetration each step, so drift is only the PGS residual. 1e-9 m over
 * 400 steps sits far above that residual (tolerance 1e-12 m per solve) and far below any
 * visible creep. */
#define REST_DRIFT_TOLERANCE 1e-9
/* The bound on the sliding acceleration's relative error on the incline. */
#define SLIDE_RELATIVE_TOLERANCE 0.02
/* A sticking box: after the first step, velocity along the plane below 1e-6 m/s. */
#define STICK_VELOCITY_TOLERANCE 1e-6
/* The pushed box's acceleration against its closed form. Each step the solver leaves a
 * corner's displacement within 11 x 1e-12 m of exact (LAW_DRIFT_PER_ROW), a velocity error
 * of 11e-12 / h = 2.2e-9 m/s, which over the 200 measured steps changes the mean
 * acceleration by at most 2 x 2.2e-9 / (200 h) = 4.4e-9 m/s^2, 1e-8 of the 0.7 m/s^2 the
 * slowest case slides at; 1e-6 relative leaves room for round-off over 200 steps. */
#define PUSH_RELATIVE_TOLERANCE 1e-6

/* ---- the laws after every step ----------------------------------------------------------- */

/* The box's bottom corners are its only contacts and, for a cube, every contact row has the
 * same W_ii = H_i C H_i^T = h^2 (1/m + |r x d|^2 / I) = 4 h^2 / m (|r x d|^2 = BOX^2 / 2 for
 * the normal and both tangents, I = m BOX^2 / 6), so |W_ij| / W_jj <= 1. After the sweep
 * that stopped the solve (every row changed by |df_j| W_jj <= residual), a row lies at most
 * (rows - 1) x residual from a value at which its frame met the laws exactly (the
 * argument of drift_bounds in tests/solver/test_block_gauss_seidel.c; for a cube's corner
 * the pyramid's face coordinates are W_tt's eigenvectors, so they do not couple). */
#define LAW_DRIFT_PER_ROW 1.0
/* The gap and slip are read off the mapped corners after the step, a few ulps of a
 * coordinate of order 1 m (2e-16): 1e-13 m leaves a factor of ~500. */
#define GEOMETRY_ROUNDOFF 1e-13

/* Every contact of the world's last step against Signorini and the friction law
 * (cwb_contact_law_check), measured on the bodies after the step, independently of the
 * solver: the gap of the contact's corner to the plane, and its slip h t_k . v. The solver
 * linearised the rigid map at the free configuration, which the corner misses by at most a
 * second-order term of the step's rotation, d theta <= h (|w_before| + |w_after|):
 * |d theta|^2 |r| / 2 on the gap and h |w_after| |d theta| |r| on the slip. Returns the
 * number of sliding contacts; each sliding contact is also reported SLIP by the host. */
static int
check_laws (CwbWorld *world, CwbFrictionLaw law, const double normal[3], double w_before)
{
  const CwbContactSet *set = cwb_world_contacts (world);
  if (set->rows->len == 0)
    return 0;
  g_assert_cmpint (set->friction_law, ==, law);
  const CwbStepStats *stats = cwb_world_last_stats (world);
  g_assert_cmpfloat (stats->solver_residual, <=, SOLVER_TOLERANCE);
  CwbBodySummary s;
  cwb_world_body_summary (world, 0, &s);
  double w_after = cwb_v3_norm (s.angular_velocity);
  double h = cwb_world_dt (world), lever = BOX * sqrt (3) / 2;
  double d_theta = h * (w_before + w_after);
  double drift = LAW_DRIFT_PER_ROW * (set->rows->len - 1) * stats->solver_residual;
  double gap_tolerance = drift + d_theta * d_theta * lever / 2 + GEOMETRY_ROUNDOFF;
  double slip_tolerance = M_SQRT2 * drift + h * w_after * d_theta * lever + GEOMETRY_ROUNDOFF;

  const CwbGeometry *geometries = cwb_world_geometries (world, NULL);
  int sliding = 0;
  for (guint k = 0; k < set->frames->len; k++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, k);
      const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow,
                                                    frame->first_row);
      const CwbPointWeight *w = &g_array_index (set->weights, CwbPointWeight, row->first_weight);
      const double *x = &geometries[w->geometry].positions[3 * w->point];
      const double *v = &geometries[w->geometry].velocities[3 * w->point];
      double gap = cwb_v3_dot (normal, x);
      double slip[2] = { h * cwb_v3_dot (frame->t1, v), h * cwb_v3_dot (frame->t2, v) };
      unsigned broken = cwb_contact_law_check (law, frame->mu, gap, frame->force[0],
                                               &frame->force[1], slip, gap_tolerance,
                                               slip_tolerance);
      if (broken != 0)
        g_test_message ("contact %u: gap %.3g, force (%.9g, %.9g, %.9g), slip (%.3g, %.3g), "
                        "tolerances %.3g %.3g: broken 0x%x", k, gap, frame->force[0],
                        frame->force[1], frame->force[2], slip[0], slip[1], gap_tolerance,
                        slip_tolerance, broken);
      g_assert_cmpuint (broken, ==, 0);
      if (frame->force[0] > 0 && cwb_friction_dual (law, slip) > slip_tolerance)
        {
          sliding++;
          g_assert_cmpint (frame->state, ==, CWB_CONTACT_SLIP);
        }
    }
  return sliding;
}

/* Steps n times, checking the laws after each; returns the sliding contacts of the last. */
static int
step_checked (CwbWorld *world, int n, CwbFrictionLaw law, const double normal[3])
{
  int sliding = 0;
  for (int k = 0; k < n; k++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, 0, &s);
      fixture_step (world, 1);
      sliding = check_laws (world, law, normal, cwb_v3_norm (s.angular_velocity));
    }
  return sliding;
}

/* ---- scenes -------------------------------------------------------------------------------- */

static const char *
law_name (CwbFrictionLaw law)
{
  return law == CWB_FRICTION_PYRAMID ? "pyramid" : "cone";
}

static const char *
dtostr (char buf[G_ASCII_DTOSTR_BUF_SIZE], double value)
{
  return g_ascii_dtostr (buf, G_ASCII_DTOSTR_BUF_SIZE, value);
}

/* The box's bottom face lies on the plane through the origin with normal (sin a, 0, cos a):
 * both the plane and the box are rotated by a about y; gravity is `gravity`. */
static char *
box_scene (double angle, const double gravity[3], CwbFrictionLaw law)
{
  double n[3] = { sin (angle), 0, cos (angle) };
  char buf[9][G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf (
    "world: { dt: %g, gravity: [%s, %s, %s] }\n"
    "contact: { model: halfspace, normal: [%s, 0, %s], margin: 0.001 }\n"
    "solver: { name: constraint, iterations: 500, tolerance: %g, friction: %s,\n"
    "          normal_constraint: position, stabilization_iterations: 0 }\n"
    "bodies:\n"
    "  - name: box\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [%s, 0, %s], orientation: [%s, 0, %s, 0] }\n"
    "    material: { density: 500, friction: %g }\n",
    DT, dtostr (buf[0], gravity[0]), dtostr (buf[1], gravity[1]), dtostr (buf[2], gravity[2]),
    dtostr (buf[3], n[0]), dtostr (buf[4], n[2]), SOLVER_TOLERANCE, law_name (law),
    BOX, BOX, BOX, dtostr (buf[5], n[0] * BOX / 2), dtostr (buf[6], n[2] * BOX / 2),
    dtostr (buf[7], cos (angle / 2)), dtostr (buf[8], sin (angle / 2)), MU);
}

static char *
incline_scene (double angle, CwbFrictionLaw law)
{
  const double gravity[3] = { 0, 0, -G };
  return box_scene (angle, gravity, law);
}

static void
incline_normal (double angle, double n[3])
{
  cwb_v3_set (n, sin (angle), 0, cos (angle));
}

/* ---- rest and the inclined plane ----------------------------------------------------------- */

/* Both sets: on this incline the downhill direction is the half-space's -t2 (cwb_v3_tangents
 * of (sin a, 0, cos a) gives t1 = y, t2 = (-cos a, 0, sin a)), a corner of the pyramid, where
 * it reaches the cone's mu f_n: the closed forms are Coulomb's for both. */

static void
test_rest (gconstpointer data)
{
  CwbFrictionLaw law = GPOINTER_TO_INT (data);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (0, law);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double n[3];
  incline_normal (0, n);
  g_assert_cmpint (step_checked (world, 400, law, n), ==, 0);
  CwbBodySummary s;
  cwb_world_body_summary (world, 0, &s);
  g_assert_cmpfloat (fabs (s.centroid[2] - BOX / 2), <, REST_DRIFT_TOLERANCE);
  g_assert_cmpfloat (fabs (s.centroid[0]), <, REST_DRIFT_TOLERANCE);
  g_assert_cmpfloat (cwb_v3_norm (s.linear_velocity), <, REST_DRIFT_TOLERANCE / DT);
  /* The four bottom corners carry the weight: sum of normal forces = m g. */
  const CwbContactSet *set = cwb_world_contacts (world);
  double sum = 0;
  for (guint f = 0; f < set->frames->len; f++)
    sum += g_array_index (set->frames, CwbContactFrame, f).force[0];
  g_assert_cmpfloat (fabs (sum - s.mass * G), <, 1e-6 * s.mass * G);
}

static void
test_incline_sticks (gconstpointer data)
{
  CwbFrictionLaw law = GPOINTER_TO_INT (data);
  double angle = 0.8 * atan (MU);   /* below the critical angle atan(mu) */
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle, law);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double n[3];
  incline_normal (angle, n);
  for (int k = 0; k < 400; k++)
    {
      step_checked (world, 1, law, n);
      g_assert_cmpfloat (fabs (fixture_downhill_velocity (world, 0, angle)), <,
                         STICK_VELOCITY_TOLERANCE);
    }
  /* Statics: the contact forces hold the weight's downhill component m g sin a and its
   * normal component m g cos a, and each lies inside its friction set (checked above with
   * the other laws). Which corner carries how much is statically indeterminate for a rigid
   * box on a rigid plane (any distribution with these sums is a Coulomb solution), so single
   * corners may sit on their set's boundary while the box sticks: the lighter uphill corners
   * do here. That is checked no further. */
  CwbBodySummary s;
  cwb_world_body_summary (world, 0, &s);
  const CwbContactSet *set = cwb_world_contacts (world);
  double total[3] = { 0, 0, 0 };
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      double world_force[3];
      fixture_frame_force (frame, world_force);
      cwb_v3_add (total, total, world_force);
      if (frame->force[0] > 0)
        g_assert_cmpint (frame->state, !=, CWB_CONTACT_OPEN);
    }
  /* The contacts balance gravity: total = m g (0, 0, 1) to the PGS tolerance. */
  double weight = s.mass * G;
  g_assert_cmpfloat (fabs (total[0]), <, 1e-6 * weight);
  g_assert_cmpfloat (fabs (total[1]), <, 1e-6 * weight);
  g_assert_cmpfloat (fabs (total[2] - weight), <, 1e-6 * weight);
}

static void
test_incline_slides (gconstpointer data)
{
  CwbFrictionLaw law = GPOINTER_TO_INT (data);
  double angle = 1.3 * atan (MU);   /* above the critical angle */
  double expected = G * (sin (angle) - MU * cos (angle));
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle, law);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double n[3];
  incline_normal (angle, n);
  step_checked (world, 20, law, n);   /* past the first contact step */
  double v0 = fixture_downhill_velocity (world, 0, angle);
  const int steps = 200;
  g_assert_cmpint (step_checked (world, steps, law, n), ==, 4);
  double measured = (fixture_downhill_velocity (world, 0, angle) - v0) / (steps * DT);
  g_test_message ("sliding (%s): measured %.6f m/s^2, Coulomb %.6f m/s^2", law_name (law),
                  measured, expected);
  g_assert_cmpfloat (fabs (measured - expected), <, SLIDE_RELATIVE_TOLERANCE * expected);
  fixture_assert_loaded_frames_slip (world);
}

/* ---- the push along the diagonal ----------------------------------------------------------- */

/* A box on the flat plane (normal z; the half-space's t1 = y, t2 = -x) pushed along
 * d = (t1 + t2) / sqrt 2 by gravity's horizontal part gamma d (a uniform push of m gamma).
 * The cone holds up to mu m g in every direction; the pyramid |f_t1| + |f_t2| <= mu f_n
 * (Allard 2010 eq. 9-10) holds only mu m g / sqrt 2 along d, its face's distance from the
 * axis. Sliding along d the box accelerates at gamma - mu g (cone) or gamma - mu g / sqrt 2
 * (pyramid), and not across d (by symmetry; each contact sticks in the other face
 * coordinate). At gamma = 0.85 mu g the cone sticks and the pyramid slides; at 1.3 mu g both
 * slide, at different rates. */
typedef struct PushCase {
  CwbFrictionLaw law;
  double gamma;   /* in units of mu g */
} PushCase;

static void
push_direction (double d[3])
{
  const double z[3] = { 0, 0, 1 };
  double t1[3], t2[3];
  cwb_v3_tangents (z, t1, t2);
  cwb_v3_add (d, t1, t2);
  cwb_v3_normalize (d);
}

static char *
push_scene (double gamma, CwbFrictionLaw law)
{
  double d[3], gravity[3] = { 0, 0, -G };
  push_direction (d);
  cwb_v3_axpy (gravity, gamma * MU * G, d);
  return box_scene (0, gravity, law);
}

/* The expected acceleration along d, 0 when the set holds the push. */
static double
push_expected (CwbFrictionLaw law, double gamma)
{
  double hold = law == CWB_FRICTION_PYRAMID ? M_SQRT1_2 : 1;
  return gamma > hold ? (gamma - hold) * MU * G : 0;
}

/* Runs a pushed box and checks its motion along and across d against the closed form. */
static void
check_push (CwbWorld *world, CwbFrictionLaw law, double gamma)
{
  const double z[3] = { 0, 0, 1 };
  double d[3];
  push_direction (d);
  double expected = push_expected (law, gamma);
  step_checked (world, 20, law, z);
  CwbBodySummary before, after;
  cwb_world_body_summary (world, 0, &before);
  const int steps = 200;
  int sliding = step_checked (world, steps, law, z);
  cwb_world_body_summary (world, 0, &after);
  double dv[3];
  cwb_v3_sub (dv, after.linear_velocity, before.linear_velocity);
  double along = cwb_v3_dot (dv, d) / (steps * DT);
  double across = hypot (dv[0] - cwb_v3_dot (dv, d) * d[0], dv[1] - cwb_v3_dot (dv, d) * d[1]);
  g_test_message ("%s pushed at %.2f mu g: %.9f m/s^2 along d (closed form %.9f), velocity "
                  "change across d %.3g m/s, %d contacts sliding", law_name (law), gamma, along,
                  expected, across, sliding);
  if (expected == 0)
    {
      g_assert_cmpfloat (cwb_v3_norm (after.linear_velocity), <, STICK_VELOCITY_TOLERANCE);
      g_assert_cmpint (sliding, ==, 0);
    }
  else
    {
      g_assert_cmpfloat (fabs (along - expected), <, PUSH_RELATIVE_TOLERANCE * expected);
      g_assert_cmpint (sliding, ==, 4);
    }
  g_assert_cmpfloat (across, <, STICK_VELOCITY_TOLERANCE);
}

static void
test_push (gconstpointer data)
{
  const PushCase *c = data;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = push_scene (c->gamma, c->law);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  check_push (world, c->law, c->gamma);
}

/* `friction` is live: a world built with the cone holds the 0.85 mu g push; switched to the
 * pyramid between steps (params_changed, no re-creation) the same box slides at the
 * pyramid's rate. */
static void
test_live_switch (void)
{
  const double gamma = 0.85;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = push_scene (gamma, CWB_FRICTION_CONE);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  check_push (world, CWB_FRICTION_CONE, gamma);

  g_autofree char *tolerance = g_strdup_printf ("%g", SOLVER_TOLERANCE);
  g_autoptr (GPtrArray) params = fixture_params ("iterations", "500", "tolerance", tolerance,
                                                 "friction", "pyramid",
                                                 "normal_constraint", "position",
                                                 "stabilization_iterations", "0", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_world_set_plugin_params (world, CWB_PLUGIN_SOLVER, params, &error));
  g_assert_no_error (error);
  check_push (world, CWB_FRICTION_PYRAMID, gamma);

  /* A word outside the choices is refused and the pyramid stays. */
  g_autoptr (GPtrArray) square = fixture_params ("friction", "square", NULL);
  g_assert_false (cwb_world_set_plugin_params (world, CWB_PLUGIN_SOLVER, square, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  fixture_step (world, 1);
  g_assert_cmpint (cwb_world_contacts (world)->friction_law, ==, CWB_FRICTION_PYRAMID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static const CwbFrictionLaw laws[] = { CWB_FRICTION_CONE, CWB_FRICTION_PYRAMID };
  for (size_t k = 0; k < G_N_ELEMENTS (laws); k++)
    {
      gconstpointer law = GINT_TO_POINTER (laws[k]);
      g_autofree char *rest = g_strdup_printf ("/world/contact/%s/rest", law_name (laws[k]));
      g_autofree char *sticks = g_strdup_printf ("/world/contact/%s/incline-sticks",
                                                 law_name (laws[k]));
      g_autofree char *slides = g_strdup_printf ("/world/contact/%s/incline-slides",
                                                 law_name (laws[k]));
      g_test_add_data_func (rest, law, test_rest);
      g_test_add_data_func (sticks, law, test_incline_sticks);
      g_test_add_data_func (slides, law, test_incline_slides);
    }
  static const PushCase pushes[] = {
    { CWB_FRICTION_CONE, 0.85 },
    { CWB_FRICTION_PYRAMID, 0.85 },
    { CWB_FRICTION_CONE, 1.3 },
    { CWB_FRICTION_PYRAMID, 1.3 },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (pushes); k++)
    {
      g_autofree char *path = g_strdup_printf ("/world/contact/%s/diagonal-push-%.2f",
                                               law_name (pushes[k].law), pushes[k].gamma);
      g_test_add_data_func (path, &pushes[k], test_push);
    }
  g_test_add_func ("/world/contact/live-friction-switch", test_live_switch);
  return g_test_run ();
}

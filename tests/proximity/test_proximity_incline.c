/* Coulomb's inclined plane through the whole pipeline with the proximity model and the
 * constraint solver: a rigid box on a fixed, tilted ground slab (both meshes, both bodies;
 * fixture_incline_scene).
 * The closed form: the box sticks while tan(theta) <= mu, and above slides with acceleration
 * g (sin theta - mu cos theta). */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define MU 0.5
#define BOX 0.2
#define DT 0.005
/* A sticking box: velocity along the plane below 1e-6 m/s at every step (the half-space's
 * bound, tests/world/test_friction.c). */
#define STICK_VELOCITY 1e-6
/* The sliding acceleration's relative error. The rows are exact for a face on a face (each
 * corner's normal is the slab's) and the solver's Coulomb disk solve puts a sliding force
 * exactly on the cone, opposite the slip, so the measurement departs from the closed form only
 * by the solver's residual: 1e-12 m per step is 2e-10 m/s per step, 4e-8 m/s over the 200
 * steps against a velocity change of 1.2 m/s, relative 3e-8. 1e-6 leaves room for rounding. */
#define SLIDE_RELATIVE_TOLERANCE 1e-6
/* The contact forces balance the weight while the box sticks: relative 1e-6 (the solve's
 * residual), as for the half-space. */
#define FORCE_RELATIVE_TOLERANCE 1e-6

#define SOLVER "name: constraint, iterations: 500, tolerance: 1.0e-12"

static void
test_sticks (void)
{
  double angle = atan (0.8 * MU);   /* below the critical angle atan(mu) */
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = fixture_incline_scene (angle, BOX, MU, DT, "model: proximity",
                                                 SOLVER);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double worst = 0;
  for (int k = 0; k < 400; k++)
    {
      fixture_step (world, 1);
      worst = MAX (worst, fabs (fixture_downhill_velocity (world, 1, angle)));
    }
  g_test_message ("sticking: largest downhill speed %.3g m/s", worst);
  g_assert_cmpfloat (worst, <, STICK_VELOCITY);

  /* Statics: the four bottom corners hold the weight, each force inside its cone (how the
   * weight is shared among them is statically indeterminate, so no single corner is
   * checked further), each normal the slab's. */
  CwbBodySummary s;
  cwb_world_body_summary (world, 1, &s);
  const CwbContactSet *set = cwb_world_contacts (world);
  g_assert_cmpuint (set->frames->len, ==, 4);
  double normal[3] = { sin (angle), 0, cos (angle) }, total[3] = { 0, 0, 0 };
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      g_assert_cmpuint (frame->body_a, ==, 1);
      g_assert_cmpuint (frame->body_b, ==, 0);
      g_assert_cmpfloat (cwb_v3_dot (frame->normal, normal), >, 1 - 1e-12);
      g_assert_cmpfloat (hypot (frame->force[1], frame->force[2]), <=,
                         MU * frame->force[0] * (1 + 1e-9));
      double force[3];
      fixture_frame_force (frame, force);
      cwb_v3_add (total, total, force);
    }
  double weight = s.mass * G;
  g_assert_cmpfloat (fabs (total[0]), <, FORCE_RELATIVE_TOLERANCE * weight);
  g_assert_cmpfloat (fabs (total[1]), <, FORCE_RELATIVE_TOLERANCE * weight);
  g_assert_cmpfloat (fabs (total[2] - weight), <, FORCE_RELATIVE_TOLERANCE * weight);
}

static void
test_slides (void)
{
  double angle = atan (1.3 * MU);   /* above the critical angle */
  double expected = G * (sin (angle) - MU * cos (angle));
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = fixture_incline_scene (angle, BOX, MU, DT, "model: proximity",
                                                 SOLVER);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  /* Past the first contact steps, then 200 steps. */
  double measured = fixture_downhill_acceleration (world, 1, angle, 20, 200);
  g_test_message ("sliding: measured %.12f m/s^2, Coulomb %.12f m/s^2", measured, expected);
  g_assert_cmpfloat (fabs (measured - expected), <, SLIDE_RELATIVE_TOLERANCE * expected);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, ==, 4);
  fixture_assert_loaded_frames_slip (world);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proximity/incline/sticks", test_sticks);
  g_test_add_func ("/proximity/incline/slides", test_slides);
  return g_test_run ();
}

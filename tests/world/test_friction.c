/* A box on the test half-space through the whole pipeline (scene, rigid body and mapping,
 * contact model, constraint solver with projected Gauss-Seidel and the Coulomb cone):
 * resting contact, and the inclined plane against Coulomb's closed form. */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define BOX 0.2          /* box side, m */
#define MU 0.5
#define DT 0.005

/* A resting box must not creep: position-level Signorini (Saupin 2008 eq. 19) removes the
 * whole free-motion penetration each step, so drift is only the PGS residual. 1e-9 m over
 * 400 steps sits far above that residual (tolerance 1e-12 m per solve) and far below any
 * visible creep. */
#define REST_DRIFT_TOLERANCE 1e-9
/* The bound on the sliding acceleration's relative error. */
#define SLIDE_RELATIVE_TOLERANCE 0.02
/* A sticking box: after the first step, velocity along the plane below 1e-6 m/s. */
#define STICK_VELOCITY_TOLERANCE 1e-6

/* The box's bottom face lies on the plane through the origin with normal (sin a, 0, cos a):
 * both the plane and the box are rotated by a about y. */
static char *
incline_scene (double angle)
{
  double n[3] = { sin (angle), 0, cos (angle) };
  char buf[6][G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf (
    "world: { dt: %g, gravity: [0, 0, %g] }\n"
    "contact: { model: halfspace, normal: [%s, 0, %s], margin: 0.001 }\n"
    "solver: { name: constraint, iterations: 500, tolerance: 1.0e-12 }\n"
    "bodies:\n"
    "  - name: box\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [%s, 0, %s], orientation: [%s, 0, %s, 0] }\n"
    "    material: { density: 500, friction: %g }\n",
    DT, -G,
    g_ascii_dtostr (buf[0], sizeof buf[0], n[0]), g_ascii_dtostr (buf[1], sizeof buf[1], n[2]),
    BOX, BOX, BOX,
    g_ascii_dtostr (buf[2], sizeof buf[2], n[0] * BOX / 2),
    g_ascii_dtostr (buf[3], sizeof buf[3], n[2] * BOX / 2),
    g_ascii_dtostr (buf[4], sizeof buf[4], cos (angle / 2)),
    g_ascii_dtostr (buf[5], sizeof buf[5], sin (angle / 2)), MU);
}

static void
test_rest (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (0);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 400);
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
test_incline_sticks (void)
{
  double angle = 0.8 * atan (MU);   /* below the critical angle atan(mu) */
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  for (int k = 0; k < 400; k++)
    {
      fixture_step (world, 1);
      g_assert_cmpfloat (fabs (fixture_downhill_velocity (world, 0, angle)), <,
                         STICK_VELOCITY_TOLERANCE);
    }
  /* Statics: the contact forces hold the weight's downhill component m g sin a and its
   * normal component m g cos a, and each lies inside its friction cone. Which corner carries
   * how much is statically indeterminate for a rigid box on a rigid plane (any distribution
   * with these sums is a Coulomb solution), so single corners may sit on their cone while
   * the box sticks: the lighter uphill corners do here. That is checked no further. */
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
      g_assert_cmpfloat (hypot (frame->force[1], frame->force[2]), <=,
                         MU * frame->force[0] * (1 + 1e-9));
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
test_incline_slides (void)
{
  double angle = 1.3 * atan (MU);   /* above the critical angle */
  double expected = G * (sin (angle) - MU * cos (angle));
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  /* Past the first contact step, then 200 steps. */
  double measured = fixture_downhill_acceleration (world, 0, angle, 20, 200);
  g_test_message ("sliding: measured %.6f m/s^2, Coulomb %.6f m/s^2", measured, expected);
  g_assert_cmpfloat (fabs (measured - expected), <, SLIDE_RELATIVE_TOLERANCE * expected);
  fixture_assert_loaded_frames_slip (world);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/world/contact/rest", test_rest);
  g_test_add_func ("/world/contact/incline-sticks", test_incline_sticks);
  g_test_add_func ("/world/contact/incline-slides", test_incline_slides);
  return g_test_run ();
}

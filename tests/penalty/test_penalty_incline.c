/* The penalty model through the whole pipeline: a box on a fixed inclined ground slab, the
 * `penalty` contact model and the `predictor-corrector` solver (Lazarevych sec. 5, "a box
 * on an inclined plane": tan theta_c = mu).
 *   - below the critical angle a box at rest stays at rest: its velocity decays below
 *     1e-6 m/s and stays there (the paper's relative velocity drops to ~1e-9);
 *   - above it, it slides with Coulomb's acceleration g (sin theta - mu cos theta), within
 *     5 % (the bound);
 *   - below it, a sliding box decelerates and comes to rest: the transition from sliding to
 *     sticking. */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define MU 0.5
#define BOX 0.2
#define DT 0.005
/* The bounds. */
#define STICK_VELOCITY 1e-6
#define SLIDE_RELATIVE_TOLERANCE 0.05

/* A ground slab and a box resting on it, both turned by `angle` about y: the slab's top face
 * is the plane through the origin with normal (sin a, 0, cos a). */
static char *
incline_scene (double angle, double downhill_speed, gboolean implicit_contacts)
{
  char b[8][G_ASCII_DTOSTR_BUF_SIZE];
  double n[3] = { sin (angle), 0, cos (angle) };
  /* Downhill: (cos a, 0, -sin a). */
  return g_strdup_printf (
    "world: { dt: %g, gravity: [0, 0, %g] }\n"
    "contact: { model: penalty }\n"
    "solver: { name: predictor-corrector, implicit_contacts: %s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [6, 2, 0.5] }\n"
    "    pose: { orientation: [%s, 0, %s, 0] }\n"
    "    fixed: true\n"
    "    material: { friction: %g }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [%s, 0, %s], orientation: [%s, 0, %s, 0] }\n"
    "    velocity: { linear: [%s, 0, %s] }\n"
    "    material: { density: 500, friction: %g }\n",
    DT, -G, implicit_contacts ? "true" : "false",
    g_ascii_dtostr (b[0], sizeof b[0], cos (angle / 2)),
    g_ascii_dtostr (b[1], sizeof b[1], sin (angle / 2)), MU, BOX, BOX, BOX,
    g_ascii_dtostr (b[2], sizeof b[2], n[0] * BOX / 2),
    g_ascii_dtostr (b[3], sizeof b[3], n[2] * BOX / 2),
    g_ascii_dtostr (b[4], sizeof b[4], cos (angle / 2)),
    g_ascii_dtostr (b[5], sizeof b[5], sin (angle / 2)),
    g_ascii_dtostr (b[6], sizeof b[6], downhill_speed * cos (angle)),
    g_ascii_dtostr (b[7], sizeof b[7], -downhill_speed * sin (angle)), MU);
}

static double
downhill_velocity (CwbWorld *world, double angle)
{
  CwbBodySummary s;
  cwb_world_body_summary (world, 1, &s);
  return s.linear_velocity[0] * cos (angle) - s.linear_velocity[2] * sin (angle);
}

static double
speed (CwbWorld *world)
{
  CwbBodySummary s;
  cwb_world_body_summary (world, 1, &s);
  return cwb_v3_norm (s.linear_velocity);
}

static void
check_sticks (gboolean implicit_contacts)
{
  double angle = atan (0.8 * MU);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle, 0, implicit_contacts);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 200);   /* 1 s to settle onto the plane */
  double worst = 0;
  for (int k = 0; k < 400; k++)
    {
      fixture_step (world, 1);
      worst = MAX (worst, speed (world));
    }
  g_test_message ("sticking box (%s contact forces): largest speed over the last 2 s %.3g m/s",
                  implicit_contacts ? "implicit" : "explicit", worst);
  g_assert_cmpfloat (worst, <, STICK_VELOCITY);

  /* What the overlays draw: one frame per contact (the box's four bottom corners), each
   * sticking, pushing the box out of the plane, its friction inside the cone, with an
   * identity of its own (ABI 1.6); and a depth vector per contact. */
  const CwbContactSet *set = cwb_world_contacts (world);
  g_assert_cmpuint (set->frames->len, ==, 4);
  g_assert_cmpuint (set->rows->len, ==, 0);
  double normal[3] = { sin (angle), 0, cos (angle) };
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      g_assert_cmpint (frame->state, ==, CWB_CONTACT_STICK);
      g_assert_cmpuint (frame->body_a, ==, 1);
      g_assert_cmpuint (frame->body_b, ==, 0);
      g_assert_cmpfloat (cwb_v3_dot (frame->normal, normal), >, 1 - 1e-9);
      g_assert_cmpfloat (frame->force[0], >, 0);
      g_assert_cmpfloat (hypot (frame->force[1], frame->force[2]), <=, MU * frame->force[0]);
      g_assert_cmpuint (cwb_contact_set_id (set, f), !=, 0);
      for (guint e = 0; e < f; e++)
        g_assert_cmpuint (cwb_contact_set_id (set, e), !=, cwb_contact_set_id (set, f));
    }
  const CwbInspection *inspection = cwb_world_inspection (world);
  guint depths = 0;
  for (guint k = 0; k < inspection->vectors->len; k++)
    depths += g_array_index (inspection->vectors, CwbInspectVector, k).kind == CWB_VECTOR_DEPTH;
  g_assert_cmpuint (depths, ==, set->frames->len);
}

static void
test_sticks (void)
{
  check_sticks (FALSE);
}

static void
test_slides (void)
{
  double angle = atan (1.3 * MU);
  double expected = G * (sin (angle) - MU * cos (angle));
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle, 0, FALSE);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 40);
  double v0 = downhill_velocity (world, angle);
  const int steps = 100;
  fixture_step (world, steps);
  double measured = (downhill_velocity (world, angle) - v0) / (steps * DT);
  g_test_message ("sliding: measured %.5f m/s^2, Coulomb %.5f m/s^2", measured, expected);
  g_assert_cmpfloat (fabs (measured - expected), <, SLIDE_RELATIVE_TOLERANCE * expected);
}

static void
test_comes_to_rest (void)
{
  double angle = atan (0.6 * MU);
  double v0 = 0.5;
  /* Coulomb: decelerates at g (mu cos a - sin a) and stops after v0 / that. */
  double deceleration = G * (MU * cos (angle) - sin (angle));
  double stop_time = v0 / deceleration;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle, v0, FALSE);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  /* Still sliding at half the stopping time, at about half the speed. */
  fixture_step (world, (int) (0.5 * stop_time / DT));
  double half = downhill_velocity (world, angle);
  g_test_message ("at t = %.3f s: %.4f m/s (Coulomb %.4f)", cwb_world_time (world), half,
                  v0 - deceleration * cwb_world_time (world));
  g_assert_cmpfloat (fabs (half - (v0 - deceleration * cwb_world_time (world))), <,
                     SLIDE_RELATIVE_TOLERANCE * v0);
  /* At rest a while after it. */
  fixture_step (world, (int) (0.5 * stop_time / DT) + 200);
  double worst = 0;
  for (int k = 0; k < 200; k++)
    {
      fixture_step (world, 1);
      worst = MAX (worst, speed (world));
    }
  g_test_message ("after stopping: largest speed %.3g m/s", worst);
  g_assert_cmpfloat (worst, <, STICK_VELOCITY);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/incline/sticks", test_sticks);
  g_test_add_func ("/penalty/incline/slides", test_slides);
  g_test_add_func ("/penalty/incline/comes-to-rest", test_comes_to_rest);
  return g_test_run ();
}

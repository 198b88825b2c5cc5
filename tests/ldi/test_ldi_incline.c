/* Coulomb's inclined plane with volume contacts (Allard 2010 sec. 4.2): a rigid box on a
 * fixed, tilted ground slab (fixture_incline_scene), the `ldi` model, and the constraint
 * solver running Algorithm 1 (velocity rows, then post-stabilization). The closed form: the
 * box sticks while tan(theta) < mu, and above slides with acceleration
 * g (sin theta - mu cos theta).
 *
 * Multi-volume cells (sec. 5) are the model for this: the friction at the box's base tips it
 * forward by mu h m g (h the height of its centre of mass over the base), which pressure
 * growing towards the front cells must balance, so cells must be small enough that the
 * front ones' centres lie beyond mu h: 5 cm cells under a 20 cm box put them 7.5 cm out
 * against mu h = 5 cm (10 cm cells, 5 cm out, leave the box on the edge of tipping over).
 * One volume carries one uniform pressure through the patch's centre and cannot balance
 * that moment: the box rocks on its contact as it goes (asserted only as stick or slide).
 *
 * The gradient is measured along the surfaces' normals (`gradient: normal`, the default);
 * with eq. 12-14's per-axis images the cells' normals on this 32 degree face jump by degrees
 * between steps and the slide stalls (docs/plugins/ldi.md). */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define MU 0.5
#define BOX 0.2
#define DT 0.005
#define PIXEL "0.005"

#define SOLVER "name: constraint, iterations: 500, tolerance: 1.0e-12, " \
               "normal_constraint: velocity, stabilization_iterations: 10"

/* A sticking box: downhill speed below 1e-6 m/s at every step, as the point-contact incline
 * (tests/proximity/test_proximity_incline.c): the tangent rows hold the area-weighted
 * relative velocity at zero to the solver's residual (1e-12 m per step). */
#define STICK_VELOCITY 1e-6
/* A sliding box's mean acceleration over half a second against the closed form, absolute:
 * measured equal to 1e-7 m/s^2 (the solver stops at 1e-12 m per step); 1e-4 leaves margin
 * and still catches the slightest kick. Before the thin corners of the intersection were
 * left out of the gradient (a strip of the box's front face under the ground's top,
 * sub-pixel thin, caught by a row of pixels now and then: intersection_volume.c), such
 * kicks cost 0.02 m/s^2 over the half second, and once threw the box off the slope; with
 * eq. 12-14's gradient the slide stalls. */
#define SLIDE_ACCELERATION 1e-4
/* One volume, over a second on the slope after half a second of landing: a box that sticks
 * moves less than 0.1 mm (it rocks on its single row, downhill speed within +-6e-4 m/s over
 * a 0.6 s cycle, so a few hundredths of a millimetre either way), one that slides at least
 * half the closed form's distance (measured 113 % of it at 1.25 times the critical
 * slope; it rocks as it goes). */
#define MONO_STICK_DISTANCE 1e-4
#define MONO_SLIDE_FRACTION 0.5

static char *
incline_scene (double angle, gboolean multi_volume)
{
  g_autofree char *contact = g_strdup_printf ("model: ldi, pixel_size: " PIXEL ", "
                                              "multi_volume: %s, cell_size: 0.05",
                                              multi_volume ? "true" : "false");
  return fixture_incline_scene (angle, BOX, MU, DT, contact, SOLVER);
}

static double
closed_form_acceleration (double angle)
{
  return G * (sin (angle) - MU * cos (angle));
}

static void
test_sticks_multi (void)
{
  double angle = atan (0.8 * MU);   /* below the critical angle atan(mu) */
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle, TRUE);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 20);   /* landing on the slab */
  double worst = 0;
  for (int k = 0; k < 200; k++)
    {
      fixture_step (world, 1);
      worst = MAX (worst, fabs (fixture_downhill_velocity (world, 1, angle)));
    }
  g_test_message ("sticking (multi-volume): largest downhill speed %.3g m/s", worst);
  g_assert_cmpfloat (worst, <, STICK_VELOCITY);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, >=, 1);
}

/* Above the critical slope: the closed form's acceleration, every loaded cell on its cone. */
static void
test_slides_multi (void)
{
  const double factors[] = { 1.25, 1.5, 2 };
  for (guint i = 0; i < G_N_ELEMENTS (factors); i++)
    {
      double angle = atan (factors[i] * MU);
      g_autoptr (CwbRegistry) registry = fixture_registry ();
      g_autofree char *yaml = incline_scene (angle, TRUE);
      g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
      double measured = fixture_downhill_acceleration (world, 1, angle, 10, 100);
      double expected = closed_form_acceleration (angle);
      g_test_message ("tan(theta) = %.2f mu: acceleration %.7f m/s^2, closed form %.7f",
                      factors[i], measured, expected);
      g_assert_cmpfloat (fabs (measured - expected), <, SLIDE_ACCELERATION);
      fixture_assert_loaded_frames_slip (world);
    }
}

/* One volume: sticks below the critical slope, slides above it. */
static void
test_mono_volume (void)
{
  const double factors[] = { 0.8, 1.25 };
  for (guint i = 0; i < G_N_ELEMENTS (factors); i++)
    {
      double angle = atan (factors[i] * MU);
      g_autoptr (CwbRegistry) registry = fixture_registry ();
      g_autofree char *yaml = incline_scene (angle, FALSE);
      g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
      fixture_step (world, (int) lround (0.5 / DT));   /* landing */
      CwbBodySummary start, end;
      cwb_world_body_summary (world, 1, &start);
      double v0 = fixture_downhill_velocity (world, 1, angle);
      fixture_step (world, (int) lround (1.0 / DT));
      cwb_world_body_summary (world, 1, &end);
      double downhill[3] = { cos (angle), 0, -sin (angle) }, moved[3];
      cwb_v3_sub (moved, end.centroid, start.centroid);
      double distance = cwb_v3_dot (moved, downhill);
      double a = closed_form_acceleration (angle);
      double expected = a > 0 ? v0 + a / 2 : 0;   /* over t = 1 s */
      g_test_message ("one volume, tan(theta) = %.2f mu: %.4g m downhill in 1 s, closed form "
                      "%.4g m; %u contact", factors[i], distance, expected,
                      cwb_world_contacts (world)->frames->len);
      g_assert_cmpuint (cwb_world_contacts (world)->frames->len, <=, 1);
      if (expected == 0)
        g_assert_cmpfloat (fabs (distance), <, MONO_STICK_DISTANCE);
      else
        g_assert_cmpfloat (distance, >, MONO_SLIDE_FRACTION * expected);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/incline/sticks-multi-volume", test_sticks_multi);
  g_test_add_func ("/ldi/incline/slides-multi-volume", test_slides_multi);
  g_test_add_func ("/ldi/incline/mono-volume", test_mono_volume);
  return g_test_run ();
}

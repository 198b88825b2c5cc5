/* Coulomb's inclined plane with volume contacts (Allard 2010 sec. 4.2): a rigid box on a
 * fixed, tilted ground slab (fixture_incline_scene), the `ldi` model, and the constraint
 * solver running Algorithm 1 (velocity rows, then post-stabilization). The closed form: the
 * box sticks while tan(theta) < mu, and above slides with acceleration
 * g (sin theta - mu cos theta).
 *
 * Only sticking with multi-volume cells is asserted so far. Measured and not yet met (issue 6's
 * note): a single volume contact leaves the box free to rock (one row, one direction of six)
 * and it creeps at 2e-2 m/s; sliding comes out 18 % slow with one volume and stalls with
 * cells, which points at the contact normal estimated from the summed gradients (sec. 4.2),
 * noisy by about 2 degrees on a face tilted against the LDI axes. */
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

static char *
incline_scene (double angle, gboolean multi_volume)
{
  g_autofree char *contact = g_strdup_printf ("model: ldi, pixel_size: " PIXEL ", "
                                              "multi_volume: %s, cell_size: 0.1",
                                              multi_volume ? "true" : "false");
  return fixture_incline_scene (angle, BOX, MU, DT, contact, SOLVER);
}

static void
sticks (gboolean multi_volume)
{
  double angle = atan (0.8 * MU);   /* below the critical angle atan(mu) */
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = incline_scene (angle, multi_volume);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 20);   /* landing on the slab */
  double worst = 0;
  for (int k = 0; k < 200; k++)
    {
      fixture_step (world, 1);
      worst = MAX (worst, fabs (fixture_downhill_velocity (world, 1, angle)));
    }
  g_test_message ("sticking (%s): largest downhill speed %.3g m/s",
                  multi_volume ? "multi-volume" : "mono-volume", worst);
  g_assert_cmpfloat (worst, <, STICK_VELOCITY);
  const CwbContactSet *set = cwb_world_contacts (world);
  g_assert_cmpuint (set->frames->len, >=, 1);
  if (!multi_volume)
    g_assert_cmpuint (set->frames->len, ==, 1);
}

static void test_sticks_multi (void) { sticks (TRUE); }

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/incline/sticks-multi-volume", test_sticks_multi);
  return g_test_run ();
}

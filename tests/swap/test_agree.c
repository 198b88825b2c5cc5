/* Models agree where physics gives one answer (issue 18, item 5): the same scenes under every
 * contact model, each with its solver and both at their defaults, against closed forms.
 *
 *   - incline: a 0.2 m box (density 500, mu 0.5) on a fixed slab tilted at angles drawn
 *     around atan(mu) (seeded: every run draws the same ones): below it the box sticks,
 *     above it slides with a = g (sin theta - mu cos theta) (Coulomb);
 *   - stack: three boxes of 1, 0.8 and 0.6 m dropped 1 to 2 mm onto each other rest at the
 *     heights their sides give, 0.5, 1.4 and 2.1 m, less each model's rest layer;
 *   - ball: a rigid 0.1 m ball (24 segments) dropped 1 mm onto a facet of its mesh rests at
 *     the facet's distance from its centre, less the layer;
 *   - fem-ball: the soft ball of scenes/ldi-grasp.yaml (r = 4 cm, E = 5e4 Pa, nu 0.3, 1000
 *     kg/m^3, FEM resolution 6) resting on a facet on the ground: its centre's drop, which
 *     every model must give alike, and which Hertz's contact of a sphere under a central
 *     load of its weight bounds from above.
 *
 * Each model's numbers and error are printed as the rows of docs/validation.md's table
 * ("Contact models against each other") and bounded by what that model documents. */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define MU 0.5
#define BOX 0.2
#define DT 0.005
/* Angles around atan(mu) = 26.57 degrees, alternately below and above it by 0.5 to 5
 * degrees, drawn from this seed; closer than 0.5 degree a slide's acceleration (under 0.09
 * m/s^2) is a few times what the landing leaves. */
#define ANGLE_SEED 18
#define ANGLES 8
#define ANGLE_SPREAD_DEG 5.0
#define ANGLE_GAP_DEG 0.5
/* A sticking box: its downhill speed over the measured half second, as the single-model
 * incline tests (tests/proximity/test_proximity_incline.c): every model measured under
 * 2e-9 m/s. */
#define STICK_SPEED 1e-6
/* A resting ball or stack: issue 16's bound for resting scenes, 1e-8 J. */
#define REST_ENERGY 1e-8

typedef struct ModelCase {
  const char *name;
  const char *contact;
  const char *solver;
  /* The largest relative error of a sliding box's acceleration, and why. */
  double slide_error;
  /* How far below its closed-form height a resting body may sit per contact under it, m:
   * the model's rest layer for a body of side `side` at step h (layer_of). */
  double (*layer_of) (double side, double h);
} ModelCase;

/* proximity: exact contact, to the solve's tolerance (1e-4 g h^2) over the rows under a
 * body; 1e-6 m. */
static double
exact_layer (double side, double h)
{
  return 1e-6;
}

/* ldi: a flat contact's mean depth V / A held within target_depth, half a pixel of the
 * pair's smaller body (side / 32 at the defaults). */
static double
ldi_layer (double side, double h)
{
  return 0.5 * side / 32;
}

/* penalty: the springs rest where they carry the weight, a part of g h^2 (what gravity moves
 * a body in one step, which the forces close by the end of the next); measured 0.1 g h^2. */
static double
penalty_layer (double side, double h)
{
  return G * h * h;
}

static const ModelCase models[] = {
  /* The laws hold to 1e-8 m a step: the slide to 1e-12 relative (measured). */
  { "proximity", "model: proximity", "name: constraint", 1e-6, exact_layer },
  /* The box's base on 5 cm cells of 6.2 mm pixels: the slide within 0.07 % of Coulomb's
   * (measured), where one volume per pair slid 4.5 to 15 % fast (issue 18). The ball's
   * facet (about 8 pixels) inside one default 8-pixel cell is one volume, split at the
   * ball's vertices so that it holds a tilt (docs/plugins/ldi.md, "A small flat patch:
   * split at its vertices"); as one volume the ball rocked at 1.6e-5 J. */
  { "ldi", "model: ldi", "name: constraint", 1e-3, ldi_layer },
  /* The forces' friction sweeps: 3e-9 relative (measured). */
  { "penalty", "model: penalty", "name: predictor-corrector", 1e-6, penalty_layer },
};

/* The k-th angle: below atan(mu) for even k, above for odd k, by a seeded draw within
 * [ANGLE_GAP_DEG, ANGLE_SPREAD_DEG] degrees. */
static double
draw_angle (GRand *rand, int k)
{
  double offset = g_rand_double_range (rand, ANGLE_GAP_DEG, ANGLE_SPREAD_DEG);
  return atan (MU) + (k % 2 == 0 ? -offset : offset) * G_PI / 180;
}

static void
test_incline (gconstpointer data)
{
  const ModelCase *m = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (ANGLE_SEED);
  for (int k = 0; k < ANGLES; k++)
    {
      double angle = draw_angle (rand, k);
      g_autoptr (CwbRegistry) registry = fixture_registry ();
      g_autofree char *yaml = fixture_incline_scene (angle, BOX, MU, DT, m->contact, m->solver);
      g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
      double expected = G * (sin (angle) - MU * cos (angle));
      /* Half a second to land and settle, then half a second measured. */
      fixture_step (world, 100);
      double v0 = fixture_downhill_velocity (world, 1, angle), fastest = fabs (v0);
      for (int s = 0; s < 100; s++)
        {
          fixture_step (world, 1);
          fastest = MAX (fastest, fabs (fixture_downhill_velocity (world, 1, angle)));
        }
      double a = (fixture_downhill_velocity (world, 1, angle) - v0) / (100 * DT);
      if (expected <= 0)
        {
          g_test_message ("| incline %.2f deg | %s | sticks | fastest %.2g m/s |",
                          angle * 180 / G_PI, m->name, fastest);
          g_assert_cmpfloat (fastest, <, STICK_SPEED);
        }
      else
        {
          double error = (a - expected) / expected;
          g_test_message ("| incline %.2f deg | %s | slides at %.5g m/s^2 | Coulomb %.5g, "
                          "error %.2g |", angle * 180 / G_PI, m->name, a, expected, error);
          g_assert_cmpfloat (fabs (error), <, m->slide_error);
        }
    }
}

/* ---- resting bodies ------------------------------------------------------------------- */

static const char stack_yaml[] =
  "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
  "contact: { %s }\n"
  "solver: { %s }\n"
  "bodies:\n"
  FIXTURE_THREE_BOX_STACK_BODIES;

static void
test_stack (gconstpointer data)
{
  const ModelCase *m = data;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = g_strdup_printf (stack_yaml, m->contact, m->solver);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 200);
  /* Each box's closed-form height, its side and the layers under it: one per contact down
   * to the ground, each of the smaller body's side. */
  const double expected[] = { 0.5, 1.4, 2.1 }, side[] = { 1, 0.8, 0.6 };
  double layers = 0;
  for (size_t b = 1; b <= 3; b++)
    {
      layers += m->layer_of (side[b - 1], 0.01);
      CwbBodySummary s;
      cwb_world_body_summary (world, b, &s);
      double below = expected[b - 1] - s.centroid[2];
      g_test_message ("| stack box %zu | %s | %.6f m | %.1f, %.2g m below (layers %.2g m) | "
                      "%.2g J |", b, m->name, s.centroid[2], expected[b - 1], below, layers,
                      s.kinetic_energy);
      g_assert_cmpfloat (fabs (below), <=, layers);
      g_assert_cmpfloat (s.kinetic_energy, <, REST_ENERGY);
    }
}

static const char ball_yaml[] =
  "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
  "contact: { %s }\n"
  "solver: { %s }\n"
  "bodies:\n"
  "  - name: ground\n"
  "    shape: { type: ground, size: [2, 2, 0.5] }\n"
  "    fixed: true\n"
  "    material: { friction: 0.8 }\n"
  "  - name: ball\n"
  "%s"
  "    shape: { type: sphere, radius: %g, resolution: 24 }\n"
  "%s"
  "    material: { density: 1000, friction: 0.8 }\n"
  "%s";

/* The ball's scene under `m`: resting on a facet of its mesh (fixture_sphere_facet_down)
 * `above` over the ground, with the body's `model` lines and `model_params` line (both may be
 * ""); the facet's distance from the centre into *facet. */
static char *
ball_scene (const ModelCase *m, double radius, double above, const char *model,
            const char *model_params, double *facet)
{
  g_autofree char *pose = fixture_sphere_facet_down_pose (radius, 24, 0.013, -0.007, 0, above,
                                                          facet);
  return g_strdup_printf (ball_yaml, m->contact, m->solver, model, radius, pose, model_params);
}

static void
test_ball (gconstpointer data)
{
  const ModelCase *m = data;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  double facet;
  g_autofree char *yaml = ball_scene (m, 0.1, 0.001, "", "", &facet);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 200);
  CwbBodySummary s;
  cwb_world_body_summary (world, 1, &s);
  double below = facet - s.centroid[2], layer = m->layer_of (0.2, DT);
  g_test_message ("| ball | %s | %.6f m | facet at %.6f, %.2g m below (layer %.2g m) | %.2g J |",
                  m->name, s.centroid[2], facet, below, layer, s.kinetic_energy);
  g_assert_cmpfloat (fabs (below), <=, layer);
  g_assert_cmpfloat (s.kinetic_energy, <, REST_ENERGY);
}

/* ---- a soft ball's sag ------------------------------------------------------------------ */

#define FEM_RADIUS 0.04
#define FEM_YOUNG 5.0e4
#define FEM_POISSON 0.3

/* How far the ball's centre rests below where the rigid facet would hold it under `m`,
 * averaged over 0.5 s after 1.5 s of landing and ringing; how much of it is in the ground
 * (its lowest point's depth) is printed beside it. */
static double
fem_drop (const ModelCase *m)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  double facet;
  g_autofree char *yaml = ball_scene (
    m, FEM_RADIUS, 0.0005, "    model: fem\n    mapping: barycentric\n",
    "    model_params: { young_modulus: 5.0e4, poisson_ratio: 0.3, resolution: 6,\n"
    "                    rayleigh_stiffness: 0.005 }\n", &facet);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 300);
  double drop = 0, depth = 0;
  for (int k = 0; k < 100; k++)
    {
      fixture_step (world, 1);
      CwbBodySummary s;
      cwb_world_body_summary (world, 1, &s);
      drop += (facet - s.centroid[2]) / 100;
      depth += -fixture_body_lowest_point (world, 1) / 100;
    }
  g_test_message ("| fem ball | %s | centre %.3g m below the rigid rest | %.2g m of it in the "
                  "ground | deformation %.3g m |", m->name, drop, depth, drop - depth);
  return drop;
}

/* Every model rests the ball's centre between a quarter of Hertz's approach and all of it,
 * and the models agree within a factor 1.25 (the issue measured 0.64, 1.33 and 2.14 mm: a
 * factor 3.3). Hertz, for the ball's weight F = m g at its centre on a rigid plane: delta =
 * (9 F^2 / (16 R E*^2))^(1/3), E* = E / (1 - nu^2): 3.2 mm. Its weight is a body force spread
 * through the ball, not a load at the centre, and six linear FEM cells across it are much
 * stiffer than the continuum (the contact patch lies in one cell), so the drop is less: 1.17
 * to 1.29 mm measured, 37 to 41 % of Hertz's; the bounds catch a ball that does not deform
 * or one that sinks. How the drop divides differs: the point models hold the ball at the
 * ground to 2 um and it deforms by all of it; ldi lets it 0.29 mm into the ground (its layer,
 * up to half a pixel of 0.08 m / 32) and, pressing as one volume over the patch rather than
 * on a few nodes, deforms it less (0.88 mm). */
static void
test_fem_ball (void)
{
  double volume = 4.0 / 3.0 * G_PI * pow (FEM_RADIUS, 3);
  double weight = 1000 * volume * G;
  double e_star = FEM_YOUNG / (1 - FEM_POISSON * FEM_POISSON);
  double hertz = cbrt (9 * weight * weight / (16 * FEM_RADIUS * e_star * e_star));
  double least = INFINITY, most = 0;
  for (size_t i = 0; i < G_N_ELEMENTS (models); i++)
    {
      double drop = fem_drop (&models[i]);
      g_assert_cmpfloat (drop, >, hertz / 4);
      g_assert_cmpfloat (drop, <, hertz);
      least = MIN (least, drop);
      most = MAX (most, drop);
    }
  g_test_message ("Hertz's approach %.3g m; the models' drops %.3g to %.3g m", hertz, least,
                  most);
  g_assert_cmpfloat (most, <, 1.25 * least);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS (models); i++)
    {
      g_autofree char *incline = g_strdup_printf ("/agree/incline/%s", models[i].name);
      g_test_add_data_func (incline, &models[i], test_incline);
      g_autofree char *stack = g_strdup_printf ("/agree/stack/%s", models[i].name);
      g_test_add_data_func (stack, &models[i], test_stack);
      g_autofree char *ball = g_strdup_printf ("/agree/ball/%s", models[i].name);
      g_test_add_data_func (ball, &models[i], test_ball);
    }
  g_test_add_func ("/agree/fem-ball", test_fem_ball);
  return g_test_run ();
}

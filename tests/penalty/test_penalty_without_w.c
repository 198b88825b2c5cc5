/* The penalty model's normal forces solved without W (past its `mobility_memory`, as the
 * rain's 40 FEM cows are from about 7 600 contacts on) hold a deformable body as the coupled
 * solve does. Before, past the budget each contact kept only its own mobility, scaled by the
 * contacts it shares its bodies with, and the forces were one Jacobi step of that law: a body
 * with many contacts on the ground sank until those scaled springs carried it (the rain's
 * cows 3.4 cm into the floor, these two through it). Now the same law is iterated with the
 * true coupled response (pair_mobility_apply) and its fixed point is W's Gauss-Seidel one.
 *
 * A soft FEM ball (test_agree's: r = 4 cm, resolution 6) and a Spot cow (the rain's: 0.12
 * scale, resolution 8), E = 5e4 Pa, nu 0.3, on the ground at the penalty model's defaults
 * with the predictor-corrector solver, once with W stored (`mobility_memory` at its default)
 * and once with none (`mobility_memory: 0`): after landing and ringing, their centres'
 * heights and their lowest points' depths in the ground, averaged over the last steps. */
#include <math.h>

#include "world_fixture.h"

/* The two solves stop on the same law at different iterates (W's sweeps to 1e-6 of the
 * deepest penetration, the iterations without W at their cap of 100 a step, carried on by
 * the warm start): measured, the ball's centre 1 um apart and its depth 2.2 um against -3 um
 * (hovering), both under g h^2 = 0.25 mm, what a step of gravity moves. Bound: each depth
 * and the ball's centres within g h^2 of each other. The cow bounces and rocks (this soft,
 * it rings for seconds), and its two runs land it in different poses, so only its depth is
 * compared: measured 0.039 mm with W and 0.006 mm without, after 1.25 s. Without the
 * coupled iterations the ball and the cow fell through the ground (8.9 m and out of sight
 * by 1 s). */
#define DT 0.005
#define G 9.81
#define REST_BOUND (G * DT * DT)

static const char scene_yaml[] =
  "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
  "contact: { model: penalty, mobility_memory: %g }\n"
  "solver: { name: predictor-corrector }\n"
  "bodies:\n"
  "  - name: ground\n"
  "    shape: { type: box, size: [1.8, 1.8, 0.1] }\n"
  "    pose: { position: [0, 0, -0.05] }\n"
  "    fixed: true\n"
  "    material: { friction: 0.4 }\n"
  "  - name: soft\n"
  "    model: fem\n"
  "    mapping: barycentric\n"
  "%s"
  "    material: { density: 1000, friction: 0.4 }\n"
  "    model_params: { young_modulus: 5.0e4, poisson_ratio: 0.3, resolution: %d,\n"
  "                    rayleigh_stiffness: 0.005 }\n";

typedef struct Rest {
  double height;   /* the centre's, m */
  double depth;    /* the lowest point's below the ground's top, m */
  double energy;   /* kinetic, at the end, J */
} Rest;

static Rest
rest_of (const char *shape, int resolution, double memory, int settle, int measure)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = g_strdup_printf (scene_yaml, memory, shape, resolution);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, settle);
  Rest r = { 0, 0, 0 };
  for (int k = 0; k < measure; k++)
    {
      fixture_step (world, 1);
      CwbBodySummary s;
      cwb_world_body_summary (world, 1, &s);
      r.height += s.centroid[2] / measure;
      r.energy = s.kinetic_energy;
      r.depth += -fixture_body_lowest_point (world, 1) / measure;
    }
  return r;
}

/* Both at rest within REST_BOUND of the ground's top, and, where `same_rest`, of each
 * other. */
static void
compare (const char *name, const char *shape, int resolution, int settle, int measure,
         gboolean same_rest)
{
  Rest with = rest_of (shape, resolution, 320, settle, measure);
  Rest without = rest_of (shape, resolution, 0, settle, measure);
  g_test_message ("%s with W: centre %.7f m, %.3g m deep, %.2g J; without: centre %.7f m, "
                  "%.3g m deep, %.2g J", name, with.height, with.depth, with.energy,
                  without.height, without.depth, without.energy);
  g_assert_cmpfloat (with.depth, <, REST_BOUND);
  g_assert_cmpfloat (without.depth, <, REST_BOUND);
  if (same_rest)
    g_assert_cmpfloat (fabs (without.height - with.height), <, REST_BOUND);
}

static void
test_fem_ball (void)
{
  double facet;
  g_autofree char *pose = fixture_sphere_facet_down_pose (0.04, 24, 0.013, -0.007, 0, 0.0005,
                                                          &facet);
  g_autofree char *shape = g_strdup_printf ("    shape: { type: sphere, radius: 0.04, "
                                            "resolution: 24 }\n%s", pose);
  compare ("ball", shape, 6, 300, 100, TRUE);
}

static void
test_fem_cow (void)
{
  g_autofree char *mesh = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "data", "meshes",
                                            "spot.obj", NULL);
  /* The rain's first cow's orientation, its lowest point 2 cm above the ground. */
  g_autofree char *shape = g_strdup_printf (
    "    shape: { type: mesh, file: %s, scale: 0.12 }\n"
    "    pose: { position: [0, 0, 0.12], orientation: [-0.707425, -0.090321, -0.319099, "
    "0.624154] }\n", mesh);
  compare ("cow", shape, 8, 250, 50, FALSE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/without-w/fem-ball", test_fem_ball);
  g_test_add_func ("/penalty/without-w/fem-cow", test_fem_cow);
  return g_test_run ();
}

/* CwbContactQuery.point_response, the host's J C J^T f, against the closed form of a rigid
 * cube: a force f at a corner r (from the centre of mass) moves that corner over one step h
 * by h^2 (f / m + (I^-1 (r x f)) x r); a cube's inertia is isotropic, I = m s^2 / 6. */
#include <math.h>

#include "world_fixture.h"
#include "world_private.h"

#define SIDE 0.4
#define DENSITY 500.0
#define DT 0.01
/* A handful of products of order-1 numbers: round-off, 1e-12 relative. */
#define RESPONSE_TOLERANCE 1e-12

static const char *scene_yaml =
  "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
  "bodies:\n"
  "  - name: cube\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [1, 2, 3] }\n"
  "    material: { density: 500 }\n"
  "  - name: anchor\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [5, 0, 0] }\n"
  "    fixed: true\n";

/* The point of geometry 0 farthest along (1, 1, 1): a corner. */
static uint32_t
corner (CwbWorld *world, double r[3])
{
  size_t n;
  const CwbGeometry *g = cwb_world_geometries (world, &n);
  uint32_t best = 0;
  for (uint32_t p = 1; p < g[0].n_points; p++)
    if (g[0].positions[3 * p] + g[0].positions[3 * p + 1] + g[0].positions[3 * p + 2]
        > g[0].positions[3 * best] + g[0].positions[3 * best + 1] + g[0].positions[3 * best + 2])
      best = p;
  const double centre[3] = { 1, 2, 3 };
  cwb_v3_sub (r, &g[0].positions[3 * best], centre);
  return best;
}

static void
test_rigid_corner (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, scene_yaml);
  double r[3];
  uint32_t p = corner (world, r);
  CwbPointWeight force = { .geometry = 0, .point = p, .w = { 0.3, -1.0, 2.0 } };
  CwbPointWeight at = { .geometry = 0, .point = p };
  double dp[3];
  cwb_world_point_response (world, &force, 1, &at, 1, dp);

  double m = DENSITY * SIDE * SIDE * SIDE, inertia = m * SIDE * SIDE / 6;
  double torque[3], dtheta[3], expected[3];
  cwb_v3_cross (torque, r, force.w);
  cwb_v3_scale (dtheta, torque, DT * DT / inertia);
  cwb_v3_cross (expected, dtheta, r);
  cwb_v3_axpy (expected, DT * DT / m, force.w);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (fabs (dp[i] - expected[i]), <, RESPONSE_TOLERANCE * cwb_v3_norm (expected));
}

/* Forces act on their own body only; fixed bodies do not move; responses add up. */
static void
test_bodies_and_linearity (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, scene_yaml);
  double r[3];
  uint32_t p = corner (world, r);
  CwbPointWeight forces[2] = {
    { .geometry = 0, .point = p, .w = { 1, 0, 0 } },
    { .geometry = 0, .point = 0, .w = { 0, 0, -2 } },
  };
  CwbPointWeight at[3] = { { .geometry = 0, .point = p }, { .geometry = 1, .point = 3 },
                           { .geometry = 0, .point = 5 } };
  double both[9], first[9], second[9];
  cwb_world_point_response (world, forces, 2, at, 3, both);
  cwb_world_point_response (world, &forces[0], 1, at, 3, first);
  cwb_world_point_response (world, &forces[1], 1, at, 3, second);
  for (int i = 0; i < 9; i++)
    g_assert_cmpfloat (fabs (both[i] - (first[i] + second[i])), <, 1e-15);
  /* The anchor (geometry 1) got no force and is fixed anyway. */
  for (int i = 3; i < 6; i++)
    g_assert_cmpfloat (both[i], ==, 0);
  g_assert_cmpfloat (cwb_v3_norm (&both[6]), >, 0);

  /* A force on the fixed anchor moves nothing. */
  CwbPointWeight on_anchor = { .geometry = 1, .point = 0, .w = { 5, 5, 5 } };
  cwb_world_point_response (world, &on_anchor, 1, at, 3, both);
  for (int i = 0; i < 9; i++)
    g_assert_cmpfloat (both[i], ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/world/point-response/rigid-corner", test_rigid_corner);
  g_test_add_func ("/world/point-response/bodies-and-linearity", test_bodies_and_linearity);
  return g_test_run ();
}

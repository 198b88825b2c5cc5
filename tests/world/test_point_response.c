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

/* Three cubes and the anchor, forces and query points interleaved across them (no two
 * neighbours on one geometry, a point queried twice, a force on the fixed anchor): the
 * response is computed in runs of one geometry with no sort, and must equal the closed form
 * per cube, sum over its forces of h^2 (f / m + (I^-1 (r_f x f)) x r_at) (I isotropic, so
 * the cubes' turns do not matter), to round-off, and equal the sum of one-force calls. */
static const char *cubes_yaml =
  "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
  "bodies:\n"
  "  - name: a\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [0, 0, 1] }\n"
  "    material: { density: 500 }\n"
  "  - name: b\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [2, 0, 1], orientation: [0.9589, 0.1417, 0.1963, 0.1440] }\n"
  "    material: { density: 500 }\n"
  "  - name: c\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [0, 3, 1], orientation: [0.8, 0.6, 0, 0] }\n"
  "    material: { density: 500 }\n"
  "  - name: anchor\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [5, 0, 0] }\n"
  "    fixed: true\n";

static const double cube_centres[3][3] = { { 0, 0, 1 }, { 2, 0, 1 }, { 0, 3, 1 } };

static void
closed_form (const CwbGeometry *g, const CwbPointWeight *forces, size_t n_forces,
             const CwbPointWeight *at, double dp[3])
{
  double m = DENSITY * SIDE * SIDE * SIDE, inertia = m * SIDE * SIDE / 6;
  memset (dp, 0, 3 * sizeof (double));
  if (at->geometry > 2)
    return;   /* the anchor is fixed */
  const double *centre = cube_centres[at->geometry];
  double r_at[3];
  cwb_v3_sub (r_at, &g[at->geometry].positions[3 * at->point], centre);
  for (size_t k = 0; k < n_forces; k++)
    {
      if (forces[k].geometry != at->geometry)
        continue;
      double r_f[3], torque[3], dtheta[3], turn[3];
      cwb_v3_sub (r_f, &g[at->geometry].positions[3 * forces[k].point], centre);
      cwb_v3_cross (torque, r_f, forces[k].w);
      cwb_v3_scale (dtheta, torque, DT * DT / inertia);
      cwb_v3_cross (turn, dtheta, r_at);
      cwb_v3_add (dp, dp, turn);
      cwb_v3_axpy (dp, DT * DT / m, forces[k].w);
    }
}

static void
test_interleaved (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, cubes_yaml);
  size_t n;
  const CwbGeometry *g = cwb_world_geometries (world, &n);
  g_assert_cmpuint (n, ==, 4);
  const CwbPointWeight forces[] = {
    { .geometry = 1, .point = 2, .w = { 1, -2, 0.5 } },
    { .geometry = 0, .point = 7, .w = { 0, 0, 3 } },
    { .geometry = 2, .point = 1, .w = { -1, 1, 1 } },
    { .geometry = 1, .point = 5, .w = { 0.3, 0, -1 } },
    { .geometry = 3, .point = 0, .w = { 9, 9, 9 } },
    { .geometry = 0, .point = 3, .w = { 2, 1, 0 } },
    { .geometry = 0, .point = 3, .w = { -0.5, 0, 1 } },
  };
  const CwbPointWeight at[] = {
    { .geometry = 0, .point = 0 }, { .geometry = 2, .point = 6 }, { .geometry = 1, .point = 2 },
    { .geometry = 0, .point = 7 }, { .geometry = 3, .point = 1 }, { .geometry = 1, .point = 4 },
    { .geometry = 0, .point = 0 }, { .geometry = 2, .point = 1 },
  };
  size_t nf = G_N_ELEMENTS (forces), na = G_N_ELEMENTS (at);
  double together[3 * G_N_ELEMENTS (at)], summed[3 * G_N_ELEMENTS (at)] = { 0 };
  cwb_world_point_response (world, forces, nf, at, na, together);
  double largest = 0;
  for (size_t k = 0; k < na; k++)
    {
      double expected[3];
      closed_form (g, forces, nf, &at[k], expected);
      largest = MAX (largest, cwb_v3_norm (expected));
    }
  g_assert_cmpfloat (largest, >, 0);
  for (size_t k = 0; k < na; k++)
    {
      double expected[3];
      closed_form (g, forces, nf, &at[k], expected);
      for (int i = 0; i < 3; i++)
        g_assert_cmpfloat (fabs (together[3 * k + i] - expected[i]), <,
                           RESPONSE_TOLERANCE * largest);
    }
  /* One call with all the forces is the sum of one call per force (linearity; the sums are
   * taken in another order, so to round-off). */
  for (size_t f = 0; f < nf; f++)
    {
      double one[3 * G_N_ELEMENTS (at)];
      cwb_world_point_response (world, &forces[f], 1, at, na, one);
      for (size_t i = 0; i < 3 * na; i++)
        summed[i] += one[i];
    }
  for (size_t i = 0; i < 3 * na; i++)
    g_assert_cmpfloat (fabs (together[i] - summed[i]), <, RESPONSE_TOLERANCE * largest);
  /* The same point queried twice gets the same answer, to the bit. */
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (together[i], ==, together[18 + i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/world/point-response/rigid-corner", test_rigid_corner);
  g_test_add_func ("/world/point-response/bodies-and-linearity", test_bodies_and_linearity);
  g_test_add_func ("/world/point-response/interleaved", test_interleaved);
  return g_test_run ();
}

/* The viewport's camera and picking, without GL: rays through the view against the
 * projection they invert, the view plane a grabbed point is dragged in, the turn a drag gives
 * a body, and what a ray picks in a snapshot of two boxes (closed forms from their sizes). */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "camera.h"
#include "picking.h"
#include "world_fixture.h"

/* Double arithmetic through a handful of products of unit vectors and lengths of order 1 to
 * 10 m: exact to about 1e-15 relative; this leaves a wide margin and still catches any
 * mistake in the geometry (a sign, a swapped axis), which is of order 1. */
#define GEOMETRY_TOLERANCE 1e-9

static CwbCamera
oblique_camera (void)
{
  CwbCamera camera;
  cwb_render_camera_default (&camera);
  camera.target[0] = 0.3;
  camera.target[1] = -0.2;
  camera.target[2] = 0.1;
  camera.distance = 4;
  camera.yaw = 0.7;
  camera.pitch = 0.4;
  return camera;
}

/* Normalized device coordinates of p through the camera's own matrix. */
static void
project (const CwbCamera *camera, double aspect, const double p[3], double *x, double *y)
{
  float m[16];
  double eye[3];
  cwb_render_camera_matrices (camera, aspect, m, eye);
  double clip[4];
  for (int r = 0; r < 4; r++)
    clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
  *x = clip[0] / clip[3];
  *y = clip[1] / clip[3];
}

static double
distance_to_ray (const double p[3], const double origin[3], const double direction[3])
{
  double d[3], along[3];
  cwb_v3_sub (d, p, origin);
  cwb_v3_scale (along, direction, cwb_v3_dot (d, direction));
  cwb_v3_sub (d, d, along);
  return cwb_v3_norm (d);
}

/* A ray at the point where p projects passes through p. The matrix is single precision, so
 * the projected coordinates carry float rounding (about 1e-7 relative): checked to 1e-5 m
 * at a few metres. */
static void
test_ray_inverts_projection (void)
{
  CwbCamera camera = oblique_camera ();
  const double aspect = 1.6;
  const double points[][3] = { { 0.3, -0.2, 0.1 }, { 1, 0.5, -0.3 }, { -0.8, 0.2, 0.9 } };
  for (size_t k = 0; k < G_N_ELEMENTS (points); k++)
    {
      double x, y, origin[3], direction[3];
      project (&camera, aspect, points[k], &x, &y);
      cwb_render_camera_ray (&camera, aspect, x, y, origin, direction);
      g_assert_cmpfloat_with_epsilon (cwb_v3_norm (direction), 1, GEOMETRY_TOLERANCE);
      g_assert_cmpfloat (distance_to_ray (points[k], origin, direction), <, 1e-5);
    }
  /* The centre of the view looks at the target. */
  double origin[3], direction[3];
  cwb_render_camera_ray (&camera, aspect, 0, 0, origin, direction);
  g_assert_cmpfloat (distance_to_ray (camera.target, origin, direction), <, GEOMETRY_TOLERANCE);
}

/* The dragged point stays in the plane through the grabbed point facing the camera, under the
 * cursor. */
static void
test_view_plane_point (void)
{
  CwbCamera camera = oblique_camera ();
  const double aspect = 1.6, through[3] = { 0.5, 0.1, 0.4 };
  double origin[3], forward[3], point[3], ray_origin[3], ray[3], d[3];
  cwb_render_camera_ray (&camera, aspect, 0, 0, origin, forward);
  cwb_render_camera_view_plane_point (&camera, aspect, 0.3, -0.45, through, point);
  cwb_v3_sub (d, point, through);
  g_assert_cmpfloat_with_epsilon (cwb_v3_dot (d, forward), 0, GEOMETRY_TOLERANCE);
  cwb_render_camera_ray (&camera, aspect, 0.3, -0.45, ray_origin, ray);
  g_assert_cmpfloat (distance_to_ray (point, ray_origin, ray), <, GEOMETRY_TOLERANCE);
}

/* Turning: the rotation is about the view axis, and it takes the pivot-to-cursor direction
 * at the start of the drag to the one at its end; a quarter sweep around a pivot at the
 * centre of the view of a square viewport is a quarter turn. */
static void
test_turn (void)
{
  CwbCamera camera = oblique_camera ();
  const double aspect = 1;
  double pivot[3];
  cwb_v3_copy (pivot, camera.target);
  const double strokes[][4] = { { 0.5, 0, 0, 0.5 }, { 0.2, 0.3, -0.4, 0.1 }, { 0, -0.5, 0.5, 0 } };
  for (size_t k = 0; k < G_N_ELEMENTS (strokes); k++)
    {
      const double *s = strokes[k];
      double rotation[3], q[4], a[3], b[3], turned[3], origin[3], forward[3], cross[3];
      cwb_render_camera_turn (&camera, aspect, pivot, s[0], s[1], s[2], s[3], rotation);
      cwb_render_camera_ray (&camera, aspect, 0, 0, origin, forward);
      cwb_v3_cross (cross, rotation, forward);
      g_assert_cmpfloat (cwb_v3_norm (cross), <, GEOMETRY_TOLERANCE);
      cwb_render_camera_view_plane_point (&camera, aspect, s[0], s[1], pivot, a);
      cwb_render_camera_view_plane_point (&camera, aspect, s[2], s[3], pivot, b);
      cwb_v3_sub (a, a, pivot);
      cwb_v3_sub (b, b, pivot);
      cwb_quat_from_rotvec (q, rotation);
      cwb_quat_rotate (turned, q, a);
      cwb_v3_scale (turned, turned, 1 / cwb_v3_norm (turned));
      cwb_v3_scale (b, b, 1 / cwb_v3_norm (b));
      for (int i = 0; i < 3; i++)
        g_assert_cmpfloat_with_epsilon (turned[i], b[i], GEOMETRY_TOLERANCE);
      if (k == 0)
        g_assert_cmpfloat_with_epsilon (cwb_v3_norm (rotation), G_PI / 2, GEOMETRY_TOLERANCE);
    }
}

/* Two boxes of the shared fixture at rest before the first step: "resting", 0.2 m cube centred
 * at (0, 0, 0.1), and "tumbling", 0.3 x 0.2 x 0.1 m centred at (1, 0, 2). Hidden bodies (the
 * view's looks) are not picked; a point is inside a closed surface by the parity of the
 * surface's crossings along a ray. */
static void
test_pick (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
  CwbPickHit hit;
  /* Straight down onto the resting cube at (0.05, -0.03): its top face, z = 0.2, 4.8 m away. */
  const double origin[3] = { 0.05, -0.03, 5 }, down[3] = { 0, 0, -1 };
  g_assert_true (cwb_render_pick_body (snapshot, NULL, origin, down, &hit));
  g_assert_cmpstr (snapshot->bodies[hit.body].name, ==, "resting");
  g_assert_cmpfloat_with_epsilon (hit.distance, 4.8, GEOMETRY_TOLERANCE);
  const double expected[3] = { 0.05, -0.03, 0.2 };
  double from_weights[3] = { 0, 0, 0 };
  for (int k = 0; k < 3; k++)
    {
      g_assert_cmpfloat_with_epsilon (hit.position[k], expected[k], GEOMETRY_TOLERANCE);
      cwb_v3_axpy (from_weights, hit.weights[k],
                   &snapshot->bodies[hit.body].positions[3 * hit.points[k]]);
    }
  /* The barycentric weights rebuild the hit from the triangle's vertices (what the spring
   * follows as the body moves). */
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat_with_epsilon (from_weights[k], expected[k], GEOMETRY_TOLERANCE);
  /* Along x at the tumbling box's height: the nearer box is hit first, on its face x = 0.85. */
  const double side[3] = { -3, 0.02, 2.01 }, along_x[3] = { 1, 0, 0 };
  g_assert_true (cwb_render_pick_body (snapshot, NULL, side, along_x, &hit));
  g_assert_cmpstr (snapshot->bodies[hit.body].name, ==, "tumbling");
  g_assert_cmpfloat_with_epsilon (hit.position[0], 0.85, GEOMETRY_TOLERANCE);
  /* Past both: nothing; pointing away: nothing. */
  const double above[3] = { 0, 0, 5 }, up[3] = { 0, 0, 1 }, miss[3] = { 3, 3, 5 };
  g_assert_false (cwb_render_pick_body (snapshot, NULL, above, up, &hit));
  g_assert_false (cwb_render_pick_body (snapshot, NULL, miss, down, &hit));
  /* A body hidden in the view is not hit: the ray goes on past it. */
  const char *resting[] = { "resting", NULL }, *tumbling[] = { "tumbling", NULL };
  CwbOverlayOptions hide = { .hidden_bodies = resting };
  gboolean found = cwb_render_pick_body (snapshot, &hide, origin, down, &hit);
  g_assert_true (!found || strcmp (snapshot->bodies[hit.body].name, "resting") != 0);
  CwbOverlayOptions isolate = { .isolated_bodies = resting };
  g_assert_false (cwb_render_pick_body (snapshot, &isolate, side, along_x, &hit));
  isolate.isolated_bodies = tumbling;
  g_assert_true (cwb_render_pick_body (snapshot, &isolate, side, along_x, &hit));
  g_assert_cmpstr (snapshot->bodies[hit.body].name, ==, "tumbling");
  /* Inside the resting cube [-0.1, 0.1]^2 x [0, 0.2]: its centre and a point 1 mm in from a
   * corner; outside: 1 mm past a face, above it, far away. */
  const CwbSnapshotBody *cube = &snapshot->bodies[0];
  g_assert_cmpstr (cube->name, ==, "resting");
  const double in[][3] = { { 0, 0, 0.1 }, { 0.099, -0.099, 0.199 }, { -0.05, 0.02, 0.001 } };
  const double out[][3] = { { 0.101, 0, 0.1 }, { 0, 0, 0.201 }, { 2, 3, 4 }, { 0, 0, -0.05 } };
  for (size_t k = 0; k < G_N_ELEMENTS (in); k++)
    g_assert_true (cwb_render_point_inside (cube, in[k]));
  for (size_t k = 0; k < G_N_ELEMENTS (out); k++)
    g_assert_false (cwb_render_point_inside (cube, out[k]));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/camera/ray-inverts-projection", test_ray_inverts_projection);
  g_test_add_func ("/render/camera/view-plane-point", test_view_plane_point);
  g_test_add_func ("/render/camera/turn", test_turn);
  g_test_add_func ("/render/picking/bodies", test_pick);
  return g_test_run ();
}

/* Orbit camera (camera.h). */
#include <math.h>

#include <cwb/vecmath.h>

#include "camera.h"

void
cwb_render_camera_default (CwbCamera *camera)
{
  *camera = (CwbCamera){
    .target = { 0, 0, 0.3 },
    .distance = 2.5,
    .yaw = -0.6 * G_PI,
    .pitch = G_PI / 9,
    .fov_y = G_PI / 4,
  };
}

static void
eye_position (const CwbCamera *camera, double eye[3])
{
  double c = cos (camera->pitch);
  cwb_v3_set (eye, c * cos (camera->yaw), c * sin (camera->yaw), sin (camera->pitch));
  cwb_v3_scale (eye, eye, camera->distance);
  cwb_v3_add (eye, eye, camera->target);
}

void
cwb_render_camera_frame (CwbCamera *camera, const double lo[3], const double hi[3])
{
  double centre[3], half[3];
  cwb_v3_add (centre, lo, hi);
  cwb_v3_scale (centre, centre, 0.5);
  cwb_v3_sub (half, hi, lo);
  double radius = MAX (0.5 * cwb_v3_norm (half), 0.05);
  cwb_v3_copy (camera->target, centre);
  /* The bounding sphere fits the vertical field of view with a margin of 10 %. */
  camera->distance = 1.1 * radius / sin (0.5 * camera->fov_y);
}

/* The camera's basis: forward f (eye to target), side s and up u. */
static void
basis (const CwbCamera *camera, double eye[3], double f[3], double s[3], double u[3])
{
  const double up[3] = { 0, 0, 1 };
  eye_position (camera, eye);
  cwb_v3_sub (f, camera->target, eye);
  cwb_v3_normalize (f);
  cwb_v3_cross (s, f, up);
  if (cwb_v3_normalize (s) == 0)
    cwb_v3_set (s, 1, 0, 0);   /* looking straight down: any side vector */
  cwb_v3_cross (u, s, f);
}

/* out = a b for column-major 4x4 matrices. */
static void
multiply (double out[16], const double a[16], const double b[16])
{
  double r[16];
  for (int c = 0; c < 4; c++)
    for (int row = 0; row < 4; row++)
      {
        double s = 0;
        for (int k = 0; k < 4; k++)
          s += a[4 * k + row] * b[4 * c + k];
        r[4 * c + row] = s;
      }
  memcpy (out, r, sizeof r);
}

void
cwb_render_camera_matrices (const CwbCamera *camera, double aspect, float view_projection[16],
                            double eye[3])
{
  /* View: look from eye at target with z up (gluLookAt). */
  double f[3], s[3], u[3];
  basis (camera, eye, f, s, u);
  double view[16] = {
    s[0], u[0], -f[0], 0,
    s[1], u[1], -f[1], 0,
    s[2], u[2], -f[2], 0,
    -cwb_v3_dot (s, eye), -cwb_v3_dot (u, eye), cwb_v3_dot (f, eye), 1,
  };
  /* Projection: perspective, near and far planes scaled with the distance so that depth
   * precision follows the zoom. */
  double near = camera->distance / 100, far = camera->distance * 100;
  double t = 1 / tan (0.5 * camera->fov_y);
  double projection[16] = {
    t / aspect, 0, 0, 0,
    0, t, 0, 0,
    0, 0, (far + near) / (near - far), -1,
    0, 0, 2 * far * near / (near - far), 0,
  };
  double vp[16];
  multiply (vp, projection, view);
  for (int k = 0; k < 16; k++)
    view_projection[k] = (float) vp[k];
}

void
cwb_render_camera_ray (const CwbCamera *camera, double aspect, double x, double y,
                       double origin[3], double direction[3])
{
  double f[3], s[3], u[3];
  basis (camera, origin, f, s, u);
  double half = tan (0.5 * camera->fov_y);
  cwb_v3_copy (direction, f);
  cwb_v3_axpy (direction, x * half * aspect, s);
  cwb_v3_axpy (direction, y * half, u);
  cwb_v3_normalize (direction);
}

void
cwb_render_camera_orbit (CwbCamera *camera, double dyaw, double dpitch)
{
  /* Short of the poles, where the view's side vector would flip. */
  const double max_pitch = 0.49 * G_PI;
  camera->yaw = fmod (camera->yaw + dyaw, 2 * G_PI);
  camera->pitch = CLAMP (camera->pitch + dpitch, -max_pitch, max_pitch);
}

void
cwb_render_camera_pan (CwbCamera *camera, double dx, double dy)
{
  double eye[3], f[3], s[3], u[3];
  basis (camera, eye, f, s, u);
  /* One unit of (dx, dy) is the half height of the view at the target's distance, so the
   * point under the cursor follows it. */
  double scale = camera->distance * tan (0.5 * camera->fov_y);
  cwb_v3_axpy (camera->target, -dx * scale, s);
  cwb_v3_axpy (camera->target, -dy * scale, u);
}

void
cwb_render_camera_zoom (CwbCamera *camera, double factor)
{
  /* Bounded so that neither the near plane (distance / 100) nor the far one loses the scene. */
  camera->distance = CLAMP (camera->distance * factor, 1e-3, 1e4);
}

void
cwb_render_camera_view_plane_point (const CwbCamera *camera, double aspect, double x, double y,
                                    const double through[3], double point[3])
{
  double origin[3], direction[3], eye[3], f[3], s[3], u[3];
  cwb_render_camera_ray (camera, aspect, x, y, origin, direction);
  basis (camera, eye, f, s, u);
  /* The plane through `through` facing the camera: (p - through) . f = 0. */
  double denominator = cwb_v3_dot (direction, f);
  double t = denominator > 1e-12 ? (cwb_v3_dot (through, f) - cwb_v3_dot (origin, f)) / denominator
                                 : 0;
  cwb_v3_copy (point, origin);
  cwb_v3_axpy (point, t, direction);
}

void
cwb_render_camera_turn (const CwbCamera *camera, double aspect, const double pivot[3],
                        double x0, double y0, double x1, double y1, double rotation[3])
{
  double start[3], now[3], eye[3], f[3], s[3], u[3], a[3], b[3], axb[3];
  cwb_render_camera_view_plane_point (camera, aspect, x0, y0, pivot, start);
  cwb_render_camera_view_plane_point (camera, aspect, x1, y1, pivot, now);
  basis (camera, eye, f, s, u);
  cwb_v3_sub (a, start, pivot);
  cwb_v3_sub (b, now, pivot);
  cwb_v3_cross (axb, a, b);
  /* a and b both lie in the plane facing the camera, so a x b is along f: the signed angle
   * from a to b about f. */
  cwb_v3_scale (rotation, f, atan2 (cwb_v3_dot (f, axb), cwb_v3_dot (a, b)));
}

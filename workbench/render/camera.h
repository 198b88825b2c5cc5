/* The viewport's camera: an orbit around a target point (z up), as users know from SOFA and
 * MuJoCo's simulate: yaw and pitch turn around the target, distance zooms, the target pans. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct CwbCamera {
  double target[3];
  double distance;       /* m */
  double yaw, pitch;     /* rad; pitch > 0 looks down */
  double fov_y;          /* rad */
} CwbCamera;

void cwb_render_camera_default (CwbCamera *camera);
/* Points the camera at the box [lo, hi] from its current direction, far enough to see all. */
void cwb_render_camera_frame (CwbCamera *camera, const double lo[3], const double hi[3]);
/* Eye position and the view-projection matrix (column-major, for GL) at an aspect ratio. */
void cwb_render_camera_matrices (const CwbCamera *camera, double aspect, float view_projection[16],
                                 double eye[3]);

/* A ray through the view at normalized device coordinates x, y in [-1, 1] (y up), from the
 * eye; direction is unit. */
void cwb_render_camera_ray (const CwbCamera *camera, double aspect, double x, double y,
                            double origin[3], double direction[3]);
/* Turns around the target (radians); pitch stays short of the poles. */
void cwb_render_camera_orbit (CwbCamera *camera, double dyaw, double dpitch);
/* Moves the target in the view plane; dx, dy in half view heights (NDC units of y). */
void cwb_render_camera_pan (CwbCamera *camera, double dx, double dy);
/* Multiplies the distance (below 1 zooms in). */
void cwb_render_camera_zoom (CwbCamera *camera, double factor);
/* Where the ray at (x, y) meets the plane facing the camera through `through` (dragging a
 * grabbed point in the view plane). */
void cwb_render_camera_view_plane_point (const CwbCamera *camera, double aspect, double x,
                                         double y, const double through[3], double point[3]);
/* Turning a body with the mouse: the rotation vector about the view axis through `pivot`
 * that takes the cursor's direction from the pivot at (x0, y0) to that at (x1, y1) (the
 * angle the cursor swept around the pivot on screen; the point under the cursor follows). */
void cwb_render_camera_turn (const CwbCamera *camera, double aspect, const double pivot[3],
                             double x0, double y0, double x1, double y1, double rotation[3]);

G_END_DECLS

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

G_END_DECLS

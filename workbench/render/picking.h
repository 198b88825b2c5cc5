/* Picking: what lies under the cursor in a snapshot. A ray (camera.h) against every body's
 * triangles for selection and the mouse spring, and against the contact points for the
 * inspector. No GL: tests check it directly. */
#pragma once

#include "overlays.h"

G_BEGIN_DECLS

typedef struct CwbPickHit {
  size_t body;
  size_t triangle;
  uint32_t points[3];      /* the triangle's vertices */
  double weights[3];       /* barycentric coordinates of the hit */
  double distance;         /* along the ray */
  double position[3];
} CwbPickHit;

/* The nearest triangle the ray hits, of the bodies drawn with `options` (a hidden body is
 * not hit; NULL: any body); FALSE when it hits none. */
gboolean cwb_render_pick_body (const CwbSnapshot *snapshot, const CwbOverlayOptions *options,
                               const double origin[3], const double direction[3],
                               CwbPickHit *hit);

/* Whether point p lies inside the closed surface of `body` (the parity of the surface's
 * crossings along a ray from p); FALSE for a body without triangles. */
gboolean cwb_render_point_inside (const CwbSnapshotBody *body, const double p[3]);

/* The contact frame whose origin lies nearest the ray within `angle` (radians, seen from the
 * ray's origin), in front of `max_distance`; -1 when none. */
gssize cwb_render_pick_contact (const CwbSnapshot *snapshot, const double origin[3],
                                const double direction[3], double angle, double max_distance);

G_END_DECLS

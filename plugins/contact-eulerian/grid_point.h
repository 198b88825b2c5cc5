/* How a grid point moves with a body: its kinematic coefficients dr/dq (Faure 2007 sec. 5.1).
 * The point is an affine combination of four of the body's surface points, the closest
 * triangle's vertices and the vertex farthest from that triangle's plane on its inner side,
 * r = sum w_k x_k with sum w_k = 1: for a rigid body this carries r exactly as the body does
 * (sec. 5.3, v + w x (r - o)), for a deformable surface it extends the surface's motion
 * linearly. A force f at the point goes to those points as w_k f (Q = dr/dq^T f), a velocity
 * comes back as sum w_k v_k. */
#pragma once

#include <cwb/cwb.h>

#include "density_grid.h"

G_BEGIN_DECLS

/* At most this many points carry a grid point: a surface's four, or the heaviest of the
 * volume particles around it (particle_density.h), eight of them for particles on a lattice
 * no finer than the grid. */
#define GRID_POINT_TERMS 8

typedef struct GridPoint {
  uint32_t point[GRID_POINT_TERMS];   /* the geometry's points */
  double weight[GRID_POINT_TERMS];    /* their affine weights, summing to 1 (0: unused) */
} GridPoint;

/* Point (i, j, k) of the density's box as it moves with geometry g, the geometry the density
 * was sampled from (each triangle's apex is kept in the density, found once a sampling). */
void grid_point_map (BodyDensity *d, const CwbGeometry *g, int i, int j, int k,
                     GridPoint *m);

/* The velocity g carries the grid point at (zero without velocities). */
void grid_point_velocity (const CwbGeometry *g, const GridPoint *m, double v[3]);

G_END_DECLS

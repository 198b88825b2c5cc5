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
  /* d weight / d r: how each weight changes as the point moves against the geometry's points
   * (the barycentric coordinates' gradients in the points' tetrahedron; zero where not
   * known: particles, a flat geometry). The point stays fixed in space while the body moves
   * by dx_n, so the weights change by -gradient_m . sum_n w_n dx_n (appendix B's
   * body-side term, docs/plugins/eulerian.md). */
  double gradient[GRID_POINT_TERMS][3];
  /* How the body's density at the point moves with each point: a surface's density is the
   * surface's, carried at the point by the closest point's barycentric weights (the apex
   * carries none); a particle density's by the weights themselves. Equal to `weight` where
   * the body moves rigidly under the point; a deformable body's nodes moving alone tell
   * the two apart (appendix B's stiffness, eulerian_model.c). */
  double carry[GRID_POINT_TERMS];
  /* Where the density is a face's or an edge's (the closest point inside triangle
   * point[0..2] or on one of its sides): its gradient is turn * normal (normal from the
   * closest point to the point), and the feature turning as its vertices move turns the
   * gradient with it (appendix B's stiffness). turn is 0 elsewhere; edge the side's unit
   * direction for an edge, zero for a face. */
  double turn;
  double normal[3];
  double edge[3];
} GridPoint;

/* Point (i, j, k) of the density's box as it moves with geometry g, the geometry the density
 * was sampled from. `apexes` (uint32_t per triangle of g, kept by the caller for as long as
 * g's triangles stay the same; sized and filled here) holds each triangle's apex, chosen
 * the first time the triangle carries a point and kept after: chosen anew at every
 * sampling, a deformable body's apex jumps between vertices at equal depth (a box's bottom
 * corners) as a node moves by a hair, and with it the nodes' shares of the force. */
void grid_point_map (const BodyDensity *d, const CwbGeometry *g, GArray *apexes, int i, int j,
                     int k, GridPoint *m);

/* The velocity g carries the grid point at (zero without velocities). */
void grid_point_velocity (const CwbGeometry *g, const GridPoint *m, double v[3]);

G_END_DECLS

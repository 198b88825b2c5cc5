/* A body whose nodes are points of one equal mass (a fluid's particles: sph, grid-fluid): its
 * mass properties at rest, its summary at a state, and an owning copy of its reference
 * surface. */
#pragma once

#include <cwb/body_model.h>

G_BEGIN_DECLS

/* The centre of mass and the inertia about it (row-major 3 x 3) of n points (3 n values) of
 * mass m each. */
void point_masses_properties (const double *points, size_t n, double m, double com[3],
                              double inertia[9]);

/* The summary of n points of mass m each at q, v (3 n each): centroid, linear and angular
 * momentum (about the centroid), kinetic energy; orientation identity. A fixed body reports
 * no momentum nor energy. */
void point_masses_summary (const double *q, const double *v, size_t n, double m,
                           gboolean fixed, CwbBodySummary *out);

/* A surface mesh owning its arrays. */
typedef struct SurfaceCopy {
  CwbSurfaceMesh mesh;
  double *vertices;
  uint32_t *triangles;
  char *source;
} SurfaceCopy;

void surface_copy_init (SurfaceCopy *copy, const CwbSurfaceMesh *surface);
void surface_copy_clear (SurfaceCopy *copy);

/* The head of a body model whose DOFs are n points of mass m each (nq = nv = 3 n): the
 * model's instance begins with it, so that the operators below serve as its vtable's
 * entries. C = h^2 M^-1 (Saupin 2008 eq. 14 without the fluid's pressure stiffness): each
 * point answers its own force alone; a fixed body has none. It holds what such a body
 * describes of itself (get_info) and where it was placed (init_state). */
typedef struct PointMasses {
  size_t n;
  double m;
  gboolean fixed;
  char *name;
  double mass;             /* what get_info reports (0 for a fixed body) */
  double *rest;            /* 3 n: the points in the shape's (mesh) frame */
  double *radii, *masses;  /* n each, for the particles mapping */
  double com_mesh[3], inertia[9];
  double position[3], orientation[4], linear_velocity[3], angular_velocity[3];
  SurfaceCopy reference;
} PointMasses;

/* Frees what the head owns (not the head itself). */
void point_masses_clear (PointMasses *points);

/* The body's description: its DOFs, mass, reference surface, rest nodes with their radii and
 * masses, centre of mass and inertia. */
void point_masses_get_info (void *self, CwbBodyInfo *info);

/* The first `n` rest points placed at the body's pose and moving with its velocities into q
 * and v (3 n each); at rest for a fixed body. */
void point_masses_place (const PointMasses *points, size_t n, double *q, double *v);

void point_masses_integrate_position (void *self, const double *q, const double *dv, double h,
                                      double *q_out);
void point_masses_compliance_apply (void *self, const double *q, double h, CwbCompliance kind,
                                    const double *r, double *dq);
gboolean point_masses_compliance_diagonal (void *self, const double *q, double h,
                                           CwbCompliance kind, double *diagonal);
void point_masses_mass_apply (void *self, const double *q, const double *x, double *y);
void point_masses_body_summary (void *self, const double *q, const double *v,
                                CwbBodySummary *out);

G_END_DECLS

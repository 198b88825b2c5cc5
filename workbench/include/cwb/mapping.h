/* Mappings (SOFA's first-class mappings): from a body's DOFs to the geometry contact models
 * see. Positions p(q), velocities J v with J = dp/dq, forces back with J^T, and the geometric
 * stiffness d(J^T f)/dq (Faure 2007 sec. 5; Allard 2010's chain rule dV/dq = dV/dp dp/dq). */
#pragma once

#include <cwb/body_model.h>

G_BEGIN_DECLS

typedef struct CwbMappingCreateInfo {
  size_t struct_size;
  const char *name;             /* the body's scene name */
  const CwbParamSet *params;    /* the mapping's own declared parameters */
  const CwbBodyInfo *body;      /* the body it maps, with its reference surface */
} CwbMappingCreateInfo;

/* The constant part of the geometry: kind, counts and topology. Arrays stay owned by the
 * mapping instance and valid until it is destroyed. */
typedef struct CwbGeometryLayout {
  size_t struct_size;
  CwbGeometryKind kind;
  size_t n_points;
  const uint32_t *triangles;
  size_t n_triangles;
  gboolean closed;
  const double *radii;
  const double *masses;
} CwbGeometryLayout;

typedef struct CwbMappingVTable {
  size_t struct_size;

  void *(*create) (const CwbMappingCreateInfo *info, const CwbHostServices *host, GError **error);
  void (*destroy) (void *self);
  void (*get_layout) (void *self, CwbGeometryLayout *layout);

  /* positions = p(q) and velocities = J(q) v, both 3 * n_points, world frame. */
  void (*apply) (void *self, const double *q, const double *v, double *positions,
                 double *velocities);

  /* dp = J(q) dq for an nv-space increment (3 * n_points out). */
  void (*apply_j) (void *self, const double *q, const double *dq, double *dp);

  /* r += J(q)^T f for sparse point forces (f[k].w on point f[k].point; the geometry field
   * is ignored). r has nv entries and is accumulated into, not overwritten. */
  void (*apply_jt) (void *self, const double *q, const CwbPointWeight *f, size_t n, double *r);

  /* Optional: df += K_geo dq with K_geo = d(J(q)^T f)/dq, the geometric stiffness of the
   * mapping under the point forces f (zero for linear mappings such as barycentric). */
  void (*geometric_stiffness_apply) (void *self, const double *q, const CwbPointWeight *f,
                                     size_t n, const double *dq, double *df);
  void (*params_changed) (void *self, const CwbParamSet *params);

  /* ABI 1.1, optional: dp = J(q) dq at the listed points only (3 * n out), so that a
   * contact's response costs O(1) rather than O(points). The host falls back to apply_j. */
  void (*apply_j_points) (void *self, const double *q, const double *dq,
                          const uint32_t *points, size_t n, double *dp);

  /* ABI 1.20, optional: the velocity DOFs that J(q)^T of a force at `point` writes into
   * (the nonzero columns of the point's three rows of J), at most `capacity` of them into
   * dofs, in any order; returns how many there are (more than capacity: the caller reads r
   * densely). apply_jt must write nowhere else. It lets the host build a contact row's
   * H = J^T w in the DOFs it touches rather than in all nv (a fluid's thousands). */
  size_t (*point_dofs) (void *self, uint32_t point, uint32_t *dofs, size_t capacity);
} CwbMappingVTable;

G_END_DECLS

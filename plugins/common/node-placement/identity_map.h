/* The operators of a mapping whose geometry's points are the body's nodes themselves (the
 * particles mapping's fluid particles, the identity mapping's cloth vertices):
 *
 *   p_k = q_k,   pdot_k = v_k,   J = I,   r_k += f_k (J^T),
 *
 * linear, so the geometric stiffness is zero. The mapping's instance begins with an
 * IdentityMap, so these serve as its vtable's entries. */
#pragma once

#include <cwb/mapping.h>

G_BEGIN_DECLS

typedef struct IdentityMap {
  size_t n_points;
} IdentityMap;

void identity_map_apply (void *self, const double *q, const double *v, double *positions,
                         double *velocities);
void identity_map_apply_j (void *self, const double *q, const double *dq, double *dp);
void identity_map_apply_j_points (void *self, const double *q, const double *dq,
                                  const uint32_t *points, size_t n, double *dp);
void identity_map_apply_jt (void *self, const double *q, const CwbPointWeight *f, size_t n,
                            double *r);
/* A point's force moves that point's three DOFs alone. */
size_t identity_map_point_dofs (void *self, uint32_t point, uint32_t *dofs, size_t capacity);

G_END_DECLS

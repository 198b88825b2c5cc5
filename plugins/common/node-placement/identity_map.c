/* The identity mapping's operators (identity_map.h). */
#include <string.h>

#include <cwb/vecmath.h>

#include "identity_map.h"

void
identity_map_apply (void *self, const double *q, const double *v, double *positions,
                    double *velocities)
{
  IdentityMap *map = self;
  if (positions != NULL)
    memcpy (positions, q, 3 * map->n_points * sizeof (double));
  if (velocities != NULL && v != NULL)
    memcpy (velocities, v, 3 * map->n_points * sizeof (double));
}

void
identity_map_apply_j (void *self, const double *q, const double *dq, double *dp)
{
  IdentityMap *map = self;
  memcpy (dp, dq, 3 * map->n_points * sizeof (double));
}

void
identity_map_apply_j_points (void *self, const double *q, const double *dq,
                             const uint32_t *points, size_t n, double *dp)
{
  IdentityMap *map = self;
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (points[i] < map->n_points);
      cwb_v3_copy (&dp[3 * i], &dq[3 * points[i]]);
    }
}

void
identity_map_apply_jt (void *self, const double *q, const CwbPointWeight *f, size_t n,
                       double *r)
{
  IdentityMap *map = self;
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (f[i].point < map->n_points);
      cwb_v3_add (&r[3 * f[i].point], &r[3 * f[i].point], f[i].w);
    }
}

size_t
identity_map_point_dofs (void *self, uint32_t point, uint32_t *dofs, size_t capacity)
{
  IdentityMap *map = self;
  g_return_val_if_fail (point < map->n_points, 0);
  for (size_t c = 0; c < 3 && c < capacity; c++)
    dofs[c] = 3 * point + (uint32_t) c;
  return 3;
}

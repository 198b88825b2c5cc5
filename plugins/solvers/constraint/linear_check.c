#include "linear_check.h"

void
linear_check_init (LinearCheck *check)
{
  geometry_points_init (&check->free_points);
  check->kept = FALSE;
}

void
linear_check_clear (LinearCheck *check)
{
  geometry_points_clear (&check->free_points);
}

gboolean
linear_check_applies (const CwbContactSet *set)
{
  return CWB_STRUCT_HAS (set, CwbContactSet, reach) && set->reach > 0
         && set->stabilization_passes <= 1;
}

void
linear_check_keep (LinearCheck *check, CwbStepContext *ctx, const CwbContactSet *set)
{
  check->kept = FALSE;
  if (!linear_check_applies (set) || !CWB_STRUCT_HAS (ctx, CwbStepContext, map_geometries)
      || ctx->map_geometries == NULL)
    return;
  geometry_points_keep (&check->free_points, ctx);
  check->kept = TRUE;
}

gboolean
linear_check_measure (LinearCheck *check, CwbStepContext *ctx, const CwbContactSet *set,
                      const gboolean *skip_frame, double *violation, double *penetration)
{
  if (!check->kept || !linear_check_applies (set))
    return FALSE;
  check->kept = FALSE;
  ctx->map_geometries (ctx, ctx->q, ctx->v);
  if (!(2 * geometry_points_largest_motion (&check->free_points, ctx) < set->reach))
    return FALSE;
  size_t n = 0;
  const CwbGeometry *geometries = ctx->geometries (ctx, &n);
  const CwbPointWeight *weights = (const CwbPointWeight *) (const void *) set->weights->data;
  double worst = 0, deepest = 0;
  for (guint i = 0; i < set->rows->len; i++)
    {
      const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, i);
      if (row->kind != CWB_ROW_NORMAL)
        continue;
      double gap = row->violation;
      for (uint32_t k = row->first_weight; k < row->first_weight + row->n_weights; k++)
        {
          const CwbPointWeight *w = &weights[k];
          if (w->geometry >= n || w->point >= geometries[w->geometry].n_points)
            return FALSE;
          double d[3];
          cwb_v3_sub (d, &geometries[w->geometry].positions[3 * w->point],
                      geometry_points_at (&check->free_points, w->geometry, w->point));
          gap += cwb_v3_dot (w->w, d);
        }
      deepest = MAX (deepest, -gap);
      if (skip_frame == NULL || row->frame >= set->frames->len || !skip_frame[row->frame])
        worst = MAX (worst, -(gap + row->tolerance));
    }
  *violation = worst;
  *penetration = deepest;
  return TRUE;
}

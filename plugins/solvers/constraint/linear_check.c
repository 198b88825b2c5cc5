#include "linear_check.h"

void
linear_check_init (LinearCheck *check)
{
  check->free_points = g_array_new (FALSE, FALSE, sizeof (double));
  check->first_point = g_array_new (FALSE, FALSE, sizeof (size_t));
  check->kept = FALSE;
}

void
linear_check_clear (LinearCheck *check)
{
  g_clear_pointer (&check->free_points, g_array_unref);
  g_clear_pointer (&check->first_point, g_array_unref);
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
  size_t n = 0;
  const CwbGeometry *geometries = ctx->geometries (ctx, &n);
  g_array_set_size (check->first_point, (guint) (n + 1));
  size_t *first = (size_t *) (void *) check->first_point->data;
  first[0] = 0;
  for (size_t g = 0; g < n; g++)
    first[g + 1] = first[g] + 3 * geometries[g].n_points;
  g_array_set_size (check->free_points, (guint) first[n]);
  double *points = (double *) (void *) check->free_points->data;
  for (size_t g = 0; g < n; g++)
    if (geometries[g].n_points > 0)
      memcpy (points + first[g], geometries[g].positions,
              3 * geometries[g].n_points * sizeof (double));
  check->kept = TRUE;
}

/* The largest distance a point moved from the kept free configuration; INFINITY when the
 * geometries are no longer the ones kept. */
static double
largest_motion (const LinearCheck *check, const CwbGeometry *geometries, size_t n)
{
  if (check->first_point->len != n + 1)
    return INFINITY;
  const size_t *first = (const size_t *) (const void *) check->first_point->data;
  const double *points = (const double *) (const void *) check->free_points->data;
  double largest2 = 0;
  for (size_t g = 0; g < n; g++)
    {
      if (first[g + 1] - first[g] != 3 * geometries[g].n_points)
        return INFINITY;
      const double *from = points + first[g];
      for (size_t i = 0; i < 3 * geometries[g].n_points; i += 3)
        {
          double d[3];
          cwb_v3_sub (d, &geometries[g].positions[i], &from[i]);
          largest2 = MAX (largest2, cwb_v3_dot (d, d));
        }
    }
  return sqrt (largest2);
}

gboolean
linear_check_measure (LinearCheck *check, CwbStepContext *ctx, const CwbContactSet *set,
                      const gboolean *skip_frame, double *violation, double *penetration)
{
  if (!check->kept || !linear_check_applies (set))
    return FALSE;
  check->kept = FALSE;
  ctx->map_geometries (ctx, ctx->q, ctx->v);
  size_t n = 0;
  const CwbGeometry *geometries = ctx->geometries (ctx, &n);
  if (!(2 * largest_motion (check, geometries, n) < set->reach))
    return FALSE;
  const size_t *first = (const size_t *) (const void *) check->first_point->data;
  const double *points = (const double *) (const void *) check->free_points->data;
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
                      &points[first[w->geometry] + 3 * w->point]);
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

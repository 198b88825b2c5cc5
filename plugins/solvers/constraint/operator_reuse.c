#include "operator_reuse.h"

/* How far a row weight (a normal or tangent times a barycentric coordinate, dimensionless,
 * at most 1) may have moved from the one the operator was built with: ten times the
 * relative motion the solver lets the points make (1e-7 of the bodies' size), so that the
 * points' motion decides. A weight this small counts as none: a contact point on a
 * triangle's edge is given with or without the opposite vertex's zero weight, and on a
 * face's diagonal by either triangle, from one detection to the next. */
#define WEIGHT_CHANGE 1e-6

typedef struct RowKey {
  CwbRowKind kind;
  uint32_t frame, first_weight, n_weights;
} RowKey;

static inline gboolean
negligible (const CwbPointWeight *w)
{
  return fabs (w->w[0]) <= WEIGHT_CHANGE && fabs (w->w[1]) <= WEIGHT_CHANGE
         && fabs (w->w[2]) <= WEIGHT_CHANGE;
}

/* Whether `now` has a weight on the same point within WEIGHT_CHANGE of w. */
static gboolean
has_weight (const CwbPointWeight *now, uint32_t n, const CwbPointWeight *w)
{
  for (uint32_t k = 0; k < n; k++)
    if (now[k].geometry == w->geometry && now[k].point == w->point)
      {
        CwbPointWeight change = *w;
        cwb_v3_sub (change.w, now[k].w, w->w);
        return negligible (&change);
      }
  return FALSE;
}

/* The common case of same_weights, checked first: the same points in the same order, each
 * weight within WEIGHT_CHANGE of the one before and negligible where it was. Where a row
 * names each point once (as the contact models write them), same_weights holds then too. */
static gboolean
same_in_order (const CwbPointWeight *now, const CwbPointWeight *then, uint32_t n)
{
  for (uint32_t k = 0; k < n; k++)
    {
      if (now[k].geometry != then[k].geometry || now[k].point != then[k].point
          || fabs (now[k].w[0] - then[k].w[0]) > WEIGHT_CHANGE
          || fabs (now[k].w[1] - then[k].w[1]) > WEIGHT_CHANGE
          || fabs (now[k].w[2] - then[k].w[2]) > WEIGHT_CHANGE)
        return FALSE;
      /* Within WEIGHT_CHANGE of each other, both are negligible or neither where either is
       * larger than twice that in some component. */
      if (fabs (then[k].w[0]) <= 2 * WEIGHT_CHANGE && fabs (then[k].w[1]) <= 2 * WEIGHT_CHANGE
          && fabs (then[k].w[2]) <= 2 * WEIGHT_CHANGE
          && negligible (&now[k]) != negligible (&then[k]))
        return FALSE;
    }
  return TRUE;
}

/* Whether two rows' weights act on the same points with the same weights, up to
 * WEIGHT_CHANGE, in any order. */
static gboolean
same_weights (const CwbPointWeight *now, uint32_t n_now, const CwbPointWeight *then,
              uint32_t n_then)
{
  if (n_now == n_then && same_in_order (now, then, n_now))
    return TRUE;
  uint32_t counted_now = 0, counted_then = 0;
  for (uint32_t k = 0; k < n_now; k++)
    counted_now += !negligible (&now[k]);
  for (uint32_t k = 0; k < n_then; k++)
    if (!negligible (&then[k]))
      {
        counted_then++;
        if (!has_weight (now, n_now, &then[k]))
          return FALSE;
      }
  return counted_now == counted_then;
}

typedef struct FrameKey {
  uint32_t body_a, body_b, first_row, n_rows;
  double mu;
} FrameKey;

void
operator_reuse_init (OperatorReuse *reuse)
{
  memset (reuse, 0, sizeof *reuse);
  reuse->rows = g_array_new (FALSE, FALSE, sizeof (RowKey));
  reuse->frames = g_array_new (FALSE, FALSE, sizeof (FrameKey));
  reuse->weights = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  reuse->ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  reuse->skipped = g_array_new (FALSE, FALSE, sizeof (gboolean));
  geometry_points_init (&reuse->points);
  reuse->row_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  reuse->entries = g_array_new (FALSE, FALSE, sizeof (CwbDofEntry));
}

void
operator_reuse_clear (OperatorReuse *reuse)
{
  g_clear_pointer (&reuse->rows, g_array_unref);
  g_clear_pointer (&reuse->frames, g_array_unref);
  g_clear_pointer (&reuse->weights, g_array_unref);
  g_clear_pointer (&reuse->ids, g_array_unref);
  g_clear_pointer (&reuse->skipped, g_array_unref);
  geometry_points_clear (&reuse->points);
  g_clear_pointer (&reuse->row_start, g_array_unref);
  g_clear_pointer (&reuse->entries, g_array_unref);
}

void
operator_reuse_forget (OperatorReuse *reuse)
{
  reuse->kept = FALSE;
  reuse->structure_kept = FALSE;
}

void
operator_reuse_forget_operator (OperatorReuse *reuse)
{
  reuse->kept = FALSE;
}

static RowKey
row_key (const CwbConstraintRow *row)
{
  return (RowKey) { row->kind, row->frame, row->first_weight, row->n_weights };
}

static FrameKey
frame_key (const CwbContactFrame *frame)
{
  return (FrameKey) { frame->body_a, frame->body_b, frame->first_row, frame->n_rows,
                      frame->mu };
}

static gboolean
same_skipped (const OperatorReuse *reuse, const CwbContactSet *set, const gboolean *skipped)
{
  if (skipped == NULL || set->frames->len == 0)
    return reuse->skipped->len == 0;
  return reuse->skipped->len == set->frames->len
         && memcmp (reuse->skipped->data, skipped, set->frames->len * sizeof (gboolean)) == 0;
}

static gboolean
same_structure (const OperatorReuse *reuse, const CwbContactSet *set, const gboolean *skipped)
{
  if (reuse->rows->len != set->rows->len || reuse->frames->len != set->frames->len
      || reuse->ids->len != set->contact_ids->len || !same_skipped (reuse, set, skipped))
    return FALSE;
  if (set->contact_ids->len > 0
      && memcmp (reuse->ids->data, set->contact_ids->data,
                 set->contact_ids->len * sizeof (guint64)) != 0)
    return FALSE;
  const CwbPointWeight *now = (const CwbPointWeight *) (const void *) set->weights->data;
  const CwbPointWeight *then = (const CwbPointWeight *) (const void *) reuse->weights->data;
  for (guint i = 0; i < set->rows->len; i++)
    {
      const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, i);
      const RowKey *key = &g_array_index (reuse->rows, RowKey, i);
      if (row->kind != key->kind || row->frame != key->frame
          || !same_weights (now + row->first_weight, row->n_weights, then + key->first_weight,
                            key->n_weights))
        return FALSE;
    }
  for (guint i = 0; i < set->frames->len; i++)
    {
      FrameKey key = frame_key (&g_array_index (set->frames, CwbContactFrame, i));
      if (memcmp (&key, &g_array_index (reuse->frames, FrameKey, i), sizeof key) != 0)
        return FALSE;
    }
  return TRUE;
}

OperatorReuseMatch
operator_reuse_match (const OperatorReuse *reuse, CwbStepContext *ctx, const CwbContactSet *set,
                      const gboolean *skipped)
{
  /* kept implies structure_kept: both are set by operator_reuse_keep, and only the latter
   * outlives operator_reuse_forget_operator. */
  if (!reuse->structure_kept || set->rows->len == 0 || !same_structure (reuse, set, skipped))
    return OPERATOR_REUSE_NONE;
  if (reuse->kept
      && geometry_points_largest_motion (&reuse->points, ctx) <= reuse->allowed_motion)
    return OPERATOR_REUSE_OPERATOR;
  return OPERATOR_REUSE_STRUCTURE;
}

static void
copy_into (GArray *to, const void *from, guint n)
{
  g_array_set_size (to, n);
  if (n > 0)
    memcpy (to->data, from, (size_t) n * g_array_get_element_size (to));
}

void
operator_reuse_keep (OperatorReuse *reuse, CwbStepContext *ctx, const CwbContactSet *set,
                     const gboolean *skipped, const CwbDofRows *h, double allowed_motion)
{
  reuse->kept = allowed_motion > 0;
  reuse->structure_kept = TRUE;
  reuse->allowed_motion = allowed_motion;
  g_array_set_size (reuse->rows, set->rows->len);
  for (guint i = 0; i < set->rows->len; i++)
    g_array_index (reuse->rows, RowKey, i)
      = row_key (&g_array_index (set->rows, CwbConstraintRow, i));
  g_array_set_size (reuse->frames, set->frames->len);
  for (guint i = 0; i < set->frames->len; i++)
    g_array_index (reuse->frames, FrameKey, i)
      = frame_key (&g_array_index (set->frames, CwbContactFrame, i));
  copy_into (reuse->weights, set->weights->data, set->weights->len);
  copy_into (reuse->ids, set->contact_ids->data, set->contact_ids->len);
  copy_into (reuse->skipped, skipped, skipped != NULL ? set->frames->len : 0);
  if (!reuse->kept)
    return;

  geometry_points_keep (&reuse->points, ctx);

  copy_into (reuse->row_start, h->row_start, (guint) (h->n_rows + 1));
  copy_into (reuse->entries, h->entries, (guint) h->row_start[h->n_rows]);
  reuse->h = (CwbDofRows) {
    .n_rows = h->n_rows,
    .row_start = (const size_t *) (const void *) reuse->row_start->data,
    .entries = (const CwbDofEntry *) (const void *) reuse->entries->data,
  };
}

const CwbDofRows *
operator_reuse_h (const OperatorReuse *reuse)
{
  return &reuse->h;
}

/* What a solve on the velocity pass's kept operator (operator_reuse.h) takes from the one
 * before it. A settled stack's guess is the last step's forces themselves, so the guess's
 * displacement is the last one's, and each row's value at the guess differs from the last
 * solve's end only by the change of delta_free: neither needs a pass over the operator (one
 * pass costs about half a sweep, and the first after the detection more, its data out of the
 * cache). */
#include "bgs_solver.h"

/* The displacement is summed afresh every this many solves so that round-off cannot build
 * up in it. */
#define INCREMENTAL_SOLVES 64

void
last_solve_init (LastSolve *last)
{
  memset (last, 0, sizeof *last);
  last->f = g_array_new (FALSE, FALSE, sizeof (double));
  last->entry_dq = g_array_new (FALSE, FALSE, sizeof (double));
  last->own_dq = g_array_new (FALSE, FALSE, sizeof (double));
  last->hdq = g_array_new (FALSE, FALSE, sizeof (double));
}

void
last_solve_clear (LastSolve *last)
{
  g_clear_pointer (&last->f, g_array_unref);
  g_clear_pointer (&last->entry_dq, g_array_unref);
  g_clear_pointer (&last->own_dq, g_array_unref);
  g_clear_pointer (&last->hdq, g_array_unref);
}

/* Whether the last solve was made on this problem's operator, for rows and DOFs alike. */
static gboolean
serves (const BgsSolver *s, const BgsProblem *p)
{
  const LastSolve *last = &s->last;
  return p->operator_kept && p->nv > 0 && last->operator_id == s->operator_id
         && last->f->len == p->n_rows && last->own_dq->len == p->nv
         && last->entry_dq->len == p->nv;
}

gboolean
bgs_last_forces (const BgsSolver *s, size_t n_rows, double factor, double *f)
{
  const LastSolve *last = &s->last;
  if (last->operator_id != s->operator_id || last->f->len != n_rows || n_rows == 0)
    return FALSE;
  const double *last_f = (const double *) last->f->data;
  for (size_t i = 0; i < n_rows; i++)
    f[i] = factor * last_f[i];
  return TRUE;
}

const double *
last_solve_apply (BgsSolver *s, const BgsProblem *p, const double *f, double *dq)
{
  LastSolve *last = &s->last;
  if (!serves (s, p) || last->incremental >= INCREMENTAL_SOLVES)
    {
      last->incremental = 0;
      g_array_set_size (last->entry_dq, (guint) p->nv);
      if (p->nv > 0)
        memcpy (last->entry_dq->data, dq, p->nv * sizeof (double));
      for (size_t i = 0; i < p->n_rows; i++)
        apply_force (s, p, i, f[i], dq);
      return NULL;
    }
  last->incremental++;
  const double *last_f = (const double *) last->f->data;
  const double *own = (const double *) last->own_dq->data;
  double *entry = (double *) last->entry_dq->data;
  gboolean same = last->measured;
  for (size_t d = 0; d < p->nv; d++)
    {
      same = same && dq[d] == entry[d];
      entry[d] = dq[d];
      dq[d] += own[d];
    }
  for (size_t i = 0; i < p->n_rows; i++)
    if (f[i] != last_f[i])
      {
        apply_force (s, p, i, f[i] - last_f[i], dq);
        same = FALSE;
      }
  return same ? (const double *) last->hdq->data : NULL;
}

void
last_solve_keep (BgsSolver *s, const BgsProblem *p, const double *f, const double *dq,
                 const double *end_values)
{
  LastSolve *last = &s->last;
  if (p->nv == 0 || last->entry_dq->len != p->nv)
    {
      last->operator_id = 0;
      return;
    }
  last->operator_id = s->operator_id;
  g_array_set_size (last->f, (guint) p->n_rows);
  if (p->n_rows > 0)
    memcpy (last->f->data, f, p->n_rows * sizeof (double));
  g_array_set_size (last->own_dq, (guint) p->nv);
  double *own = (double *) last->own_dq->data;
  const double *entry = (const double *) last->entry_dq->data;
  for (size_t d = 0; d < p->nv; d++)
    own[d] = dq[d] - entry[d];
  last->measured = end_values != NULL;
  if (!last->measured)
    return;
  g_array_set_size (last->hdq, (guint) p->n_rows);
  double *hdq = (double *) last->hdq->data;
  for (size_t i = 0; i < p->n_rows; i++)
    hdq[i] = end_values[i] - p->delta_free[i];
}

/* Projected block Gauss-Seidel on the unbuilt Delassus operator W = H C H^T (see the header). */
#include "bgs_solver.h"

#include "frame_rows.h"

BgsSolver *
bgs_solver_new (void)
{
  BgsSolver *s = g_new0 (BgsSolver, 1);
  s->spans = g_array_new (FALSE, FALSE, sizeof (RowSpan));
  s->segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  s->entries = g_array_new (FALSE, FALSE, sizeof (FlatEntry));
  s->pool = g_array_new (FALSE, FALSE, sizeof (double));
  s->spare_segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  s->spare_entries = g_array_new (FALSE, FALSE, sizeof (FlatEntry));
  s->spare_pool = g_array_new (FALSE, FALSE, sizeof (double));
  s->row_pool = g_array_new (FALSE, FALSE, sizeof (double));
  s->spare_row_pool = g_array_new (FALSE, FALSE, sizeof (double));
  s->diagonal = g_array_new (FALSE, FALSE, sizeof (double));
  s->blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  s->loose_rows = g_array_new (FALSE, FALSE, sizeof (int));
  s->island_blocks = g_array_new (FALSE, FALSE, sizeof (guint));
  s->order_keys = g_array_new (FALSE, FALSE, sizeof (HeightKey));
  s->island_loose = g_array_new (FALSE, FALSE, sizeof (guint));
  s->block_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->loose_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->history = g_array_new (FALSE, FALSE, sizeof (double));
  s->values = g_array_new (FALSE, FALSE, sizeof (double));
  s->start_values = g_array_new (FALSE, FALSE, sizeof (double));
  s->r = g_array_new (FALSE, FALSE, sizeof (double));
  s->direct = island_direct_new ();
  s->active = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->active_residual = g_array_new (FALSE, FALSE, sizeof (double));
  s->active_force = g_array_new (FALSE, FALSE, sizeof (double));
  s->direct_force = g_array_new (FALSE, FALSE, sizeof (double));
  s->island_rows = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->entry_force = g_array_new (FALSE, FALSE, sizeof (double));
  s->block_state = g_array_new (FALSE, FALSE, sizeof (guint8));
  s->solved_part = g_array_new (FALSE, FALSE, sizeof (guint8));
  last_solve_init (&s->last);
  s->end_values = g_array_new (FALSE, FALSE, sizeof (double));
  return s;
}

void
bgs_solver_free (BgsSolver *s)
{
  if (s == NULL)
    return;
  g_array_unref (s->spans);
  g_array_unref (s->segments);
  g_array_unref (s->entries);
  g_array_unref (s->pool);
  g_array_unref (s->spare_segments);
  g_array_unref (s->spare_entries);
  g_array_unref (s->spare_pool);
  g_array_unref (s->row_pool);
  g_array_unref (s->spare_row_pool);
  g_array_unref (s->diagonal);
  g_array_unref (s->blocks);
  g_array_unref (s->loose_rows);
  g_array_unref (s->island_blocks);
  g_array_unref (s->order_keys);
  g_array_unref (s->island_loose);
  g_array_unref (s->block_start);
  g_array_unref (s->loose_start);
  g_array_unref (s->history);
  g_array_unref (s->values);
  g_array_unref (s->start_values);
  g_array_unref (s->r);
  island_direct_free (s->direct);
  g_array_unref (s->active);
  g_array_unref (s->active_residual);
  g_array_unref (s->active_force);
  g_array_unref (s->direct_force);
  g_array_unref (s->island_rows);
  g_array_unref (s->entry_force);
  g_array_unref (s->block_state);
  g_array_unref (s->solved_part);
  last_solve_clear (&s->last);
  g_array_unref (s->end_values);
  g_free (s);
}

const double *
bgs_residual_history (const BgsSolver *s, size_t *n)
{
  *n = s->history->len;
  return (const double *) s->history->data;
}

/* ---- W, unbuilt ---------------------------------------------------------------------- */

static const CwbBodySlot *
slot (const BgsProblem *p, uint32_t body)
{
  return &p->bodies[body];
}

static gboolean
frame_skipped (const BgsProblem *p, size_t frame)
{
  return p->skip_frame != NULL && frame < p->n_frames && p->skip_frame[frame];
}

/* A row is kept densely (RowSpan.dense) when on each of its bodies it has at least this
 * share of the body's DOFs: a rigid body's six always; a deformable body's few nodes among
 * its many never. */
#define DENSE_ROW_SHARE 0.5

/* DOFs a window of a diagonal body's column may skip between two of the row's DOFs rather
 * than start another segment: one particle's (a segment costs about as much to visit). */
#define WINDOW_GAP 3

/* Row i's segment over entries [e, end) of one body, the body's DOFs first .. first + count:
 * C H^T over them (through the body's diagonal, or its compliance over the whole body), and
 * the row's H there for a dense row. */
static void
add_segment (BgsSolver *s, const BgsProblem *p, uint32_t body, size_t e, size_t end,
             size_t first, size_t count, const double *diagonal, gboolean dense)
{
  g_array_set_size (s->r, count);
  double *r = (double *) s->r->data;
  memset (r, 0, count * sizeof (double));
  for (; e < end; e++)
    r[p->h->entries[e].dof - first] += p->h->entries[e].value;
  Segment seg = { .body = body, .offset = s->pool->len, .row_offset = s->row_pool->len,
                  .v_offset = (uint32_t) (slot (p, body)->v_offset + first),
                  .nv = (uint32_t) count, .first_dof = (uint32_t) first };
  g_array_set_size (s->pool, s->pool->len + (guint) count);
  double *column = &g_array_index (s->pool, double, seg.offset);
  if (diagonal != NULL)
    for (size_t d = 0; d < count; d++)
      column[d] = diagonal[first + d] * r[d];
  else
    p->compliance (p->compliance_data, body, r, column);
  if (dense)
    g_array_append_vals (s->row_pool, r, (guint) count);
  g_array_append_val (s->segments, seg);
}

/* Builds the columns C H_i^T, one body at a time, and the rows' entries of H with their
 * flat DOF indices, in the rows' order (relocate_rows lays them out in the sweep's); a dense
 * row's H after each column. */
static void
build_columns (BgsSolver *s, const BgsProblem *p)
{
  g_array_set_size (s->spans, (guint) p->n_rows);
  g_array_set_size (s->segments, 0);
  g_array_set_size (s->pool, 0);
  g_array_set_size (s->row_pool, 0);
  RowSpan *spans = (RowSpan *) s->spans->data;
  for (size_t i = 0; i < p->n_rows; i++)
    {
      size_t e = p->h->row_start[i], end = p->h->row_start[i + 1];
      spans[i] = (RowSpan) { .first_entry = (uint32_t) e, .end_entry = (uint32_t) end,
                             .first_segment = s->segments->len };
      if (frame_skipped (p, p->rows[i].frame))
        e = end;   /* no column: the row moves nothing */
      /* Dense when every body's run of entries is (entries are sorted by body, then DOF:
       * one run per body). */
      gboolean dense = e < end;
      for (size_t run = e; run < end;)
        {
          uint32_t body = p->h->entries[run].body;
          size_t count = 0;
          for (; run < end && p->h->entries[run].body == body; run++)
            count++;
          dense = dense && (double) count >= DENSE_ROW_SHARE * (double) slot (p, body)->nv;
        }
      spans[i].dense = dense;
      while (e < end)
        {
          uint32_t body = p->h->entries[e].body;
          size_t run_end = e;
          while (run_end < end && p->h->entries[run_end].body == body)
            run_end++;
          /* A body of diagonal compliance answers the row on the row's own DOFs alone: its
           * segments are windows over them, one per run of nearby DOFs, not the body's nv
           * (a fluid's row under a density model touches the particles about a grid point,
           * whose indices lie thousands of DOFs apart). */
          const double *diagonal = p->compliance_diagonal != NULL
                                     ? p->compliance_diagonal (p->compliance_data, body)
                                     : NULL;
          if (diagonal == NULL)
            {
              add_segment (s, p, body, e, run_end, 0, slot (p, body)->nv, NULL, dense);
              e = run_end;
              continue;
            }
          while (e < run_end)
            {
              size_t first = p->h->entries[e].dof, last = first, window_end = e + 1;
              while (window_end < run_end && p->h->entries[window_end].dof >= first
                     && p->h->entries[window_end].dof <= last + 1 + WINDOW_GAP)
                {
                  last = MAX (last, p->h->entries[window_end].dof);
                  window_end++;
                }
              add_segment (s, p, body, e, window_end, first, last - first + 1, diagonal,
                           dense);
              e = window_end;
            }
        }
      spans[i].end_segment = s->segments->len;
    }
  size_t n_entries = p->h->row_start[p->n_rows];
  g_array_set_size (s->entries, (guint) n_entries);
  FlatEntry *flat = (FlatEntry *) s->entries->data;
  for (size_t e = 0; e < n_entries; e++)
    flat[e] = (FlatEntry) { .at = slot (p, p->h->entries[e].body)->v_offset
                                  + p->h->entries[e].dof,
                            .value = p->h->entries[e].value };
}

/* Copies row i's entries, segments and pool values to the ends of the spare arrays. */
static void
relocate_row (BgsSolver *s, size_t i)
{
  RowSpan *span = &g_array_index (s->spans, RowSpan, i);
  RowSpan moved = { .first_entry = s->spare_entries->len,
                    .first_segment = s->spare_segments->len, .dense = span->dense };
  /* A dense row's value reads its H from the pool: its flat entries are not kept. */
  if (!span->dense && span->end_entry > span->first_entry)
    g_array_append_vals (s->spare_entries,
                         &g_array_index (s->entries, FlatEntry, span->first_entry),
                         (guint) (span->end_entry - span->first_entry));
  for (size_t k = span->first_segment; k < span->end_segment; k++)
    {
      Segment seg = g_array_index (s->segments, Segment, k);
      uint32_t offset = s->spare_pool->len;
      g_array_append_vals (s->spare_pool, &g_array_index (s->pool, double, seg.offset), seg.nv);
      seg.offset = offset;
      if (span->dense)
        {
          offset = s->spare_row_pool->len;
          g_array_append_vals (s->spare_row_pool,
                               &g_array_index (s->row_pool, double, seg.row_offset), seg.nv);
          seg.row_offset = offset;
        }
      g_array_append_val (s->spare_segments, seg);
    }
  moved.end_entry = s->spare_entries->len;
  moved.end_segment = s->spare_segments->len;
  *span = moved;
}

static void
swap_arrays (GArray **a, GArray **b)
{
  GArray *t = *a;
  *a = *b;
  *b = t;
}

/* Lays the rows' data out in the blocks' order (each block's rows together, then every other
 * row in its own order) so that a sweep in that order reads it in sequence.
 * The flush 40-row pyramid's 28 000 rows hold about 10 MB of entries and columns, more than
 * the cache; read in the height order from the rows' own (the contact model's), a sweep
 * cost about three times one read in sequence (docs/plugins/constraint.md). */
static void
relocate_rows (BgsSolver *s, const BgsProblem *p)
{
  g_array_set_size (s->spare_entries, 0);
  g_array_set_size (s->spare_segments, 0);
  g_array_set_size (s->spare_pool, 0);
  g_array_set_size (s->spare_row_pool, 0);
  g_autofree guint8 *moved = g_new0 (guint8, MAX (p->n_rows, 1));
  const Block *blocks = (const Block *) s->blocks->data;
  for (guint b = 0; b < s->blocks->len; b++)
    {
      relocate_row (s, (size_t) blocks[b].normal);
      moved[blocks[b].normal] = 1;
      for (int a = 0; a < blocks[b].n_tangents; a++)
        {
          relocate_row (s, (size_t) blocks[b].tangent[a]);
          moved[blocks[b].tangent[a]] = 1;
        }
    }
  for (size_t i = 0; i < p->n_rows; i++)
    if (!moved[i])
      relocate_row (s, i);
  swap_arrays (&s->entries, &s->spare_entries);
  swap_arrays (&s->segments, &s->spare_segments);
  swap_arrays (&s->pool, &s->spare_pool);
  swap_arrays (&s->row_pool, &s->spare_row_pool);
}

/* H_i . (C H_j^T): one entry of W. */
static double
w_entry (const BgsSolver *s, const BgsProblem *p, size_t i, size_t j)
{
  const Segment *segs = (const Segment *) s->segments->data;
  const RowSpan *span = &g_array_index (s->spans, RowSpan, j);
  const double *pool = (const double *) s->pool->data;
  double sum = 0;
  for (size_t e = p->h->row_start[i]; e < p->h->row_start[i + 1]; e++)
    {
      const CwbDofEntry *entry = &p->h->entries[e];
      for (size_t k = span->first_segment; k < span->end_segment; k++)
        if (segs[k].body == entry->body && entry->dof >= segs[k].first_dof
            && entry->dof - segs[k].first_dof < segs[k].nv)
          {
            sum += entry->value * pool[segs[k].offset + entry->dof - segs[k].first_dof];
            break;
          }
    }
  return sum;
}

/* The frame's 2x2 tangential block of W; a frame with one tangent row is solved on the t1
 * axis of the disk, with a unit response along the missing t2 that no force can excite
 * (its c_2 is 0). */
static void
tangential_block (const Block *block, double w_tt[4])
{
  w_tt[0] = block->w[4];
  w_tt[1] = block->n_tangents == 2 ? block->w[5] : 0;
  w_tt[2] = block->n_tangents == 2 ? block->w[7] : 0;
  w_tt[3] = block->n_tangents == 2 ? block->w[8] : 1;
}

/* The island a frame is swept with: its own, or, for a frame given none (one whose rows
 * touch no moving body), one more island after the given ones. */
static uint32_t
island_of (const BgsProblem *p, size_t frame)
{
  if (p->frame_island == NULL)
    return 0;
  return MIN (p->frame_island[frame], (uint32_t) p->n_islands);
}

static size_t
island_count (const BgsProblem *p)
{
  return p->frame_island != NULL ? p->n_islands + 1 : 1;
}

/* Groups the rows into frame blocks (normal row, then its tangent rows); rows that belong to
 * no such block (bilateral rows, a tangent row without a normal) are solved one by one. */
static void
build_blocks (BgsSolver *s, const BgsProblem *p)
{
  g_array_set_size (s->blocks, 0);
  g_array_set_size (s->loose_rows, 0);
  g_array_set_size (s->diagonal, p->n_rows);
  double *diag = (double *) s->diagonal->data;
  for (size_t i = 0; i < p->n_rows; i++)
    diag[i] = w_entry (s, p, i, i);

  for (size_t fr = 0; fr < p->n_frames; fr++)
    {
      const CwbContactFrame *frame = &p->frames[fr];
      size_t first = frame->first_row, n = frame->n_rows;
      if (n == 0 || first + n > p->n_rows || frame_skipped (p, fr))
        continue;
      size_t k = 0;
      int idx[3];
      int n_tangents = frame_block_rows (p->rows, p->n_rows, frame, idx);
      if (n_tangents >= 0)
        {
          Block block = { .normal = idx[0], .tangent = { idx[1], idx[2] },
                          .n_tangents = n_tangents, .mu = frame->mu };
          k = 1 + (size_t) n_tangents;
          for (int a = 0; a < 1 + block.n_tangents; a++)
            for (int b = 0; b < 1 + block.n_tangents; b++)
              block.w[3 * a + b] = a == b ? diag[idx[a]] : w_entry (s, p, idx[a], idx[b]);
          double w_tt[4];
          tangential_block (&block, w_tt);
          cwb_coulomb_disk_factor (w_tt, &block.disk);
          block.island = island_of (p, fr);
          g_array_append_val (s->blocks, block);
        }
      for (; k < n; k++)
        {
          int row = (int) (first + k);
          g_array_append_val (s->loose_rows, row);
        }
    }
}

/* ---- the sweeps ---------------------------------------------------------------------- */

/* The pyramid of Allard 2010 eq. 9-10 (|f_1| + |f_2| <= radius, cwb/coulomb.h) by projected
 * Gauss-Seidel, one row at a time, in its face coordinates u = P f, where it is the box
 * |u_k| <= radius / sqrt 2: row k takes the u_k that zeroes its slip with the other row
 * fixed, (P w P u + P c)_k = 0, clamped to its interval. Complementarity in each face
 * coordinate (slip only on a face, against it) is then eq. 9-10's. With one tangent row the
 * pyramid meets the t1 axis in |f_1| <= radius, clamped the same way. */
static void
pyramid_solve (const double w[4], const double c[2], double radius, int n_tangents,
               const double f_old[2], double f[2])
{
  f[0] = f[1] = 0;
  if (n_tangents == 1)
    {
      if (w[0] > 0)
        f[0] = CLAMP (-c[0] / w[0], -radius, radius);
      return;
    }
  double half = radius * CWB_SQRT1_2;
  double u[2], cu[2];
  cwb_pyramid_faces (f_old, u);
  cwb_pyramid_faces (c, cu);
  /* P w P, with P = [[1, 1], [1, -1]] / sqrt 2. */
  double wu[4] = { 0.5 * (w[0] + w[1] + w[2] + w[3]), 0.5 * (w[0] - w[1] + w[2] - w[3]),
                   0.5 * (w[0] + w[1] - w[2] - w[3]), 0.5 * (w[0] - w[1] - w[2] + w[3]) };
  for (int k = 0; k < 2; k++)
    {
      int other = 1 - k;
      double w_kk = wu[3 * k];
      u[k] = w_kk > 0 ? CLAMP (-(cu[k] + wu[2 * k + other] * u[other]) / w_kk, -half, half) : 0;
    }
  cwb_pyramid_faces (u, f);
}

/* The current value of row i, also kept in values[i]; with `motion`, the largest move since
 * what values held is kept there. */
static inline double
record_value (const BgsSolver *s, const BgsProblem *p, size_t i, const double *dq,
              double *values, double *motion)
{
  double value = row_value (s, p, i, dq);
  if (motion != NULL)
    *motion = larger (*motion, fabs (value - values[i]));
  values[i] = value;
  return value;
}

/* Row i's value where the sweep reads it for the row's own update, and the motion measure
 * of the sweep at that row: how far the value moved since the same point of the sweep
 * before (s->values; the first sweep's measure is taken apart, in sweep_island). */
static inline double
observe (const BgsSolver *s, const BgsProblem *p, size_t i, const double *dq, double *motion)
{
  return record_value (s, p, i, dq, (double *) s->values->data, motion);
}

static double
solve_block (const BgsSolver *s, const BgsProblem *p, const Block *block, double *f, double *dq,
             double *motion)
{
  double change = 0;
  int n = block->normal;
  double w_nn = block->w[0];
  /* Signorini (Saupin eq. 1, with Allard eq. 19's tolerance): project f_n onto f_n >= 0
   * after a Newton step on delta_n + tol = 0. */
  double value_n = observe (s, p, n, dq, motion);
  double fn = 0;
  if (w_nn > 0)
    fn = larger (0, f[n] - (value_n + row_tolerance (p, n)) / w_nn);
  change = larger (change, set_force (s, p, n, fn, f, dq));
  if (block->n_tangents == 0)
    return change;

  /* Coulomb: the tangential forces in the friction set of radius mu f_n, against the frame's
   * 2x2 tangential block with f_n fixed; c is the slip the other forces leave. */
  double radius = p->friction ? block->mu * fn : 0;
  int t[2] = { block->tangent[0], block->tangent[1] };
  double w_tt[4];
  tangential_block (block, w_tt);
  double f_old[2] = { f[t[0]], t[1] >= 0 ? f[t[1]] : 0 };
  double c[2] = { 0, 0 };
  for (int a = 0; a < block->n_tangents; a++)
    c[a] = observe (s, p, t[a], dq, motion) - w_tt[2 * a] * f_old[0] - w_tt[2 * a + 1] * f_old[1];
  double ft[2];
  if (p->friction_law == CWB_FRICTION_PYRAMID)
    pyramid_solve (w_tt, c, radius, block->n_tangents, f_old, ft);
  else
    /* The cone (Saupin eq. 2), solved exactly on the disk with the block factored once. */
    cwb_coulomb_disk_solve_factored (&block->disk, c, radius, ft);
  for (int a = 0; a < block->n_tangents; a++)
    change = larger (change, set_force (s, p, t[a], ft[a], f, dq));
  return change;
}

static double
solve_loose_row (const BgsSolver *s, const BgsProblem *p, size_t i, double *f, double *dq,
                 double *motion)
{
  double w = g_array_index (s->diagonal, double, i);
  const CwbConstraintRow *row = &p->rows[i];
  double current = observe (s, p, i, dq, motion);
  double value = 0;
  if (w > 0 && row->kind == CWB_ROW_BILATERAL)
    value = f[i] - current / w;
  else if (w > 0 && row->kind == CWB_ROW_NORMAL)
    value = larger (0, f[i] - (current + row_tolerance (p, i)) / w);
  /* A tangent row with no normal row to bound it carries no force. */
  return set_force (s, p, i, value, f, dq);
}

/* Along the order direction, then by index (a total order: the sort is deterministic). */
static gboolean
key_before (const HeightKey *a, const HeightKey *b)
{
  return a->height < b->height || (a->height == b->height && a->block < b->block);
}

/* Sorts one island's blocks `ib[0, n)` by key_before, their frames' origins along the
 * problem's order direction taken from this problem's frames: a bottom-up merge sort on
 * their keys, which the solver runs at every step (a generic sort calling a comparison
 * through a pointer took 7 % of a settled 20-row step).
 *
 * The order is made again at every solve, a kept operator's too (BgsProblem.operator_kept).
 * Kept from the step the operator was built in (an operator kept for up to 1e-6 of the
 * bodies' size), the order of a settled pyramid's contacts of one layer (level to
 * round-off) stayed the same step after step, and one sweep a step left the same error
 * behind each time: on the flush 20-row pyramid the gap under force grew by 6e-10 m a step
 * to the tolerance, and 29 steps of 300 ended at the cap (40 rows: 134). Sorted again from
 * the heights of the step, the same round-off reorders a layer from step to step, as a
 * freshly built operator's order does: 1.05 sweeps a step, none capped
 * (docs/plugins/constraint.md). */
static void
sort_by_height (BgsSolver *s, const BgsProblem *p, const Block *blocks, guint *ib, size_t n)
{
  g_array_set_size (s->order_keys, (guint) (2 * n));
  HeightKey *from = (HeightKey *) s->order_keys->data, *to = from + n;
  for (size_t k = 0; k < n; k++)
    {
      const CwbContactFrame *frame = &p->frames[p->rows[blocks[ib[k]].normal].frame];
      from[k] = (HeightKey) { cwb_v3_dot (frame->origin, p->order_direction), ib[k] };
    }
  for (size_t width = 1; width < n; width *= 2)
    {
      for (size_t lo = 0; lo < n; lo += 2 * width)
        {
          size_t mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n);
          size_t a = lo, b = mid, out = lo;
          while (a < mid && b < hi)
            to[out++] = key_before (&from[b], &from[a]) ? from[b++] : from[a++];
          while (a < mid)
            to[out++] = from[a++];
          while (b < hi)
            to[out++] = from[b++];
        }
      HeightKey *swap = from;
      from = to;
      to = swap;
    }
  for (size_t k = 0; k < n; k++)
    ib[k] = from[k].block;
}

/* How thick a layer is, in tolerances: the spread of a settled layer's contact heights
 * (its load on compliant contacts, round-off: 1e-8 m on the flush pyramids, with a
 * tolerance of 1e-7 m) and the motion a kept operator allows, well inside it. */
#define LAYER_TOLERANCES 100

/* The next draw of a xorshift64* generator (Vigna 2016): a layer's turn, deterministic. */
static guint64
layer_draw (guint64 *state)
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1Dull;
}

/* A kept operator's island in the order its blocks are laid out (the height order of the
 * step it was built in), each layer (a run of blocks level within LAYER_TOLERANCES
 * tolerances along the order direction) walked from a block and in a direction drawn anew
 * at each solve (`turn`: the solves since the build). FALSE where the heights of this
 * problem's frames fall along the stored order by more than a layer: the island is then
 * sorted afresh (sort_by_height, whose order is total).
 *
 * A settled stack's layer walked in one order step after step left the same error behind
 * each time, and the gap under force grew to the tolerance. Sorted afresh from each step's
 * heights, round-off shuffled each layer, which ended that, but a sweep then read a
 * layer's data in no order of memory. Drawn this way, the order changes as the shuffle did
 * and the data is read in sequence, forwards or backwards, with one jump a layer; walking
 * each layer forwards and backwards in turn instead (a fixed two-step cycle) left some
 * trajectories of the 20-row pyramid factoring for hundreds of steps
 * (docs/plugins/constraint.md, "The operator kept from step to step"). */
static gboolean
layered_order (BgsSolver *s, const BgsProblem *p, const Block *blocks, guint *ib, size_t n,
               guint64 turn)
{
  /* Heights are along the order direction as given (not a unit vector). */
  double thickness = LAYER_TOLERANCES * p->tolerance * cwb_v3_norm (p->order_direction);
  g_array_set_size (s->order_keys, (guint) MAX (n, 1));
  guint *out = (guint *) (void *) s->order_keys->data;
  size_t first = 0;
  double layer = -INFINITY;
  guint64 state = turn * 0x9E3779B97F4A7C15ull + 1;
  for (size_t k = 0; k <= n; k++)
    {
      double height = INFINITY;
      if (k < n)
        {
          const CwbContactFrame *frame = &p->frames[p->rows[blocks[ib[k]].normal].frame];
          height = cwb_v3_dot (frame->origin, p->order_direction);
          if (height < layer - thickness)
            return FALSE;
          if (height <= layer + thickness)
            continue;
        }
      size_t len = k - first;
      if (len > 0)
        {
          guint64 draw = layer_draw (&state);
          size_t start = (size_t) ((draw >> 1) % len);
          gboolean backwards = (draw >> 63) != 0;
          for (size_t j = 0; j < len; j++)
            {
              size_t at = (start + j) % len;
              out[first + j] = ib[first + (backwards ? len - 1 - at : at)];
            }
        }
      first = k;
      layer = height;
    }
  memcpy (ib, out, n * sizeof (guint));
  return TRUE;
}

/* Orders the blocks and the loose rows by island (a counting sort that keeps their order
 * within an island). */
static void
group_islands (BgsSolver *s, const BgsProblem *p)
{
  size_t n_islands = island_count (p);
  const Block *blocks = (const Block *) s->blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  g_array_set_size (s->block_start, n_islands + 1);
  g_array_set_size (s->loose_start, n_islands + 1);
  size_t *bs = (size_t *) s->block_start->data, *ls = (size_t *) s->loose_start->data;
  memset (bs, 0, (n_islands + 1) * sizeof (size_t));
  memset (ls, 0, (n_islands + 1) * sizeof (size_t));
  for (guint b = 0; b < s->blocks->len; b++)
    bs[blocks[b].island + 1]++;
  for (guint k = 0; k < s->loose_rows->len; k++)
    ls[island_of (p, p->rows[loose[k]].frame) + 1]++;
  for (size_t i = 0; i < n_islands; i++)
    {
      bs[i + 1] += bs[i];
      ls[i + 1] += ls[i];
    }
  g_array_set_size (s->island_blocks, s->blocks->len);
  g_array_set_size (s->island_loose, s->loose_rows->len);
  guint *ib = (guint *) s->island_blocks->data, *il = (guint *) s->island_loose->data;
  /* Fill from each island's start, moving a copy of the starts along. */
  g_autofree size_t *next = g_new (size_t, 2 * n_islands);
  memcpy (next, bs, n_islands * sizeof (size_t));
  memcpy (next + n_islands, ls, n_islands * sizeof (size_t));
  for (guint b = 0; b < s->blocks->len; b++)
    ib[next[blocks[b].island]++] = b;
  for (guint k = 0; k < s->loose_rows->len; k++)
    il[next[n_islands + island_of (p, p->rows[loose[k]].frame)]++] = k;
  if (p->order_direction[0] == 0 && p->order_direction[1] == 0 && p->order_direction[2] == 0)
    return;
  for (size_t i = 0; i < n_islands; i++)
    if (!p->operator_kept
        || !layered_order (s, p, blocks, ib + bs[i], bs[i + 1] - bs[i], s->kept_solves))
      sort_by_height (s, p, blocks, ib + bs[i], bs[i + 1] - bs[i]);
}

/* Puts the blocks themselves in the sweep order of this problem (all islands together; the
 * grouping by island keeps it within each), at the build of an operator: later steps' sweeps
 * reorder only contacts of a layer level to round-off, so the blocks' order, and the rows'
 * data laid out in it (relocate_rows), stay that of the sweep. */
static void
order_blocks (BgsSolver *s, const BgsProblem *p)
{
  size_t n = s->blocks->len;
  if (n < 2 || (p->order_direction[0] == 0 && p->order_direction[1] == 0
                && p->order_direction[2] == 0))
    return;
  g_autofree guint *order = g_new (guint, n);
  for (guint b = 0; b < n; b++)
    order[b] = b;
  sort_by_height (s, p, (const Block *) s->blocks->data, order, n);
  g_autofree Block *sorted = g_new (Block, n);
  for (size_t k = 0; k < n; k++)
    sorted[k] = g_array_index (s->blocks, Block, order[k]);
  memcpy (s->blocks->data, sorted, n * sizeof (Block));
}

/* record_value for every row of one island. */
static void
record_values (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0,
               size_t l1, const double *dq, double *values, double *motion)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const guint *il = (const guint *) s->island_loose->data;
  for (size_t k = b0; k < b1; k++)
    {
      const Block *block = &blocks[ib[k]];
      record_value (s, p, (size_t) block->normal, dq, values, motion);
      for (int a = 0; a < block->n_tangents; a++)
        record_value (s, p, (size_t) block->tangent[a], dq, values, motion);
    }
  for (size_t k = l0; k < l1; k++)
    record_value (s, p, (size_t) loose[il[k]], dq, values, motion);
}

/* Where a measure of the laws reads the rows' values: from `current` where not NULL (the
 * values a pass has just read from this dq), else delta_free_i + known[i] where each row's
 * H_i dq is known (last_solve_apply), else from dq. */
typedef struct ValueSource {
  const double *current;
  const double *known;
} ValueSource;

static inline double
read_value (const BgsSolver *s, const BgsProblem *p, size_t i, const double *dq,
            const ValueSource *source)
{
  if (source->current != NULL)
    return source->current[i];
  return source->known != NULL ? p->delta_free[i] + source->known[i] : row_value (s, p, i, dq);
}

/* Adds one contact frame's measure of the laws to `check` (bgs_check); the friction set's
 * excess only with `excess` (the stop does not read it). With `values`, the frame's rows'
 * values are kept there; they are read as `source` says. */
static void
check_block (const BgsSolver *s, const BgsProblem *p, const Block *block, const double *f,
             const double *dq, const ValueSource *source, gboolean excess, BgsCheck *check,
             double *values)
{
  int n = block->normal;
  double value_n = read_value (s, p, n, dq, source);
  if (values != NULL)
    values[n] = value_n;
  double gap = value_n + row_tolerance (p, n);
  double f_n = f[n];
  check->contacts++;
  check->penetration = larger (check->penetration, -gap);
  if (f_n > 0)
    check->complementarity = larger (check->complementarity, fabs (gap));
  double f_t[2] = { 0, 0 };
  for (int a = 0; a < block->n_tangents; a++)
    f_t[a] = f[block->tangent[a]];
  double radius = p->friction ? block->mu * fmax (f_n, 0) : 0;
  if (excess)
    check->friction_excess = larger (check->friction_excess,
                                     cwb_friction_gauge (p->friction_law, f_t) - radius);
  /* The slip is read only where there is friction to judge it by, or its values asked. */
  if (!(radius > 0) && values == NULL)
    return;
  double slip[2] = { 0, 0 };
  for (int a = 0; a < block->n_tangents; a++)
    {
      slip[a] = read_value (s, p, (size_t) block->tangent[a], dq, source);
      if (values != NULL)
        values[block->tangent[a]] = slip[a];
    }
  if (!(radius > 0))
    return;
  check->slip_error = larger (check->slip_error,
                              cwb_friction_dissipation_gap (p->friction_law, radius, f_t, slip)
                                / radius);
}

/* How far the island's forces and motion are from the laws, in metres: the largest of its
 * contacts' Signorini errors (the gap under force, or the penetration) and slip errors
 * (bgs_check), and of its loose rows' own laws. 0 at a solution whatever the split of the
 * forces among redundant contacts. A force outside the friction set is not measured: the
 * disk and pyramid steps never leave one there. */
static double
island_law_error (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0,
                  size_t l1, const double *f, const double *dq, const ValueSource *source,
                  double *values)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const guint *il = (const guint *) s->island_loose->data;
  BgsCheck check = { 0 };
  for (size_t k = b0; k < b1; k++)
    check_block (s, p, &blocks[ib[k]], f, dq, source, FALSE, &check, values);
  double error = larger (larger (check.penetration, check.complementarity), check.slip_error);
  for (size_t k = l0; k < l1; k++)
    {
      size_t i = (size_t) loose[il[k]];
      double value = read_value (s, p, i, dq, source);
      if (values != NULL)
        values[i] = value;
      if (p->rows[i].kind == CWB_ROW_BILATERAL)
        error = larger (error, fabs (value));
      else if (p->rows[i].kind == CWB_ROW_NORMAL)
        {
          value += row_tolerance (p, i);
          error = larger (error, f[i] > 0 ? fabs (value) : -value);
        }
    }
  return error;
}

double
bgs_island_law_error (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0,
                      size_t l1, const double *f, const double *dq, const double *known,
                      double *values)
{
  ValueSource source = { .known = known };
  return island_law_error (s, p, b0, b1, l0, l1, f, dq, &source, values);
}

/* At most this many sweeps between two measures of the laws once one was taken: the ratio
 * of the laws' violation to the cheap sign changes as the sweeps go, and a ratio taken too
 * high would otherwise keep the solve sweeping past its tolerance. */
#define LAW_CHECK_EVERY 8

/* Sweeps one island until the laws hold to the tolerance or the cap; returns the sweeps and
 * leaves the last residual in *residual. The history gets, per sweep, the largest residual
 * of any island so far.
 *
 * The stop reads the laws themselves (bgs_island_law_error): the largest violation of
 * Signorini's or Coulomb's law left by the forces and the motion, in metres. That costs half
 * a sweep (every row's value), so it is measured only once a cheaper sign says the sweeps
 * are settling: the smaller of the largest |delta f_i| W_ii (how far a row's own update
 * moved it) and the largest change of a row's value over the sweep (how far the bodies'
 * motion moved at any row), taken where the sweep reads the value for the row's own update,
 * against the same point of the sweep before (after the first sweep that costs no pass of
 * its own). The two differ where contacts are redundant (four corners of a box resting on
 * a face, a box on two others): forces may keep shifting among them along W's null space,
 * which moves no body. Neither bounds the error left (where Gauss-Seidel converges slowly
 * the change per sweep is a small part of it), so it opens the check rather than ending the
 * solve; after a check that failed, the sign is scaled by the ratio that check found, so
 * that the next comes when the laws are likely to hold rather than at every sweep. A
 * sweep's residual is the laws' violation where it was measured, the scaled sign
 * elsewhere. */
static int
sweep_island (BgsSolver *s, const BgsProblem *p, size_t island, const double *known, double *f,
              double *dq, double *residual, gboolean *measured)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const guint *il = (const guint *) s->island_loose->data;
  size_t b0 = g_array_index (s->block_start, size_t, island);
  size_t b1 = g_array_index (s->block_start, size_t, island + 1);
  size_t l0 = g_array_index (s->loose_start, size_t, island);
  size_t l1 = g_array_index (s->loose_start, size_t, island + 1);
  int sweeps = 0;
  *residual = 0;
  *measured = FALSE;
  /* The laws' violation over the cheap sign at the last check (at least 1), and the sweeps
   * since: the next check comes when the sign times this ratio reaches the tolerance, or
   * LAW_CHECK_EVERY sweeps after the last. */
  double ratio = 1;
  int last_check = -1;
  /* The rows' values at the start (the warm start's motion), for the first sweep's motion
   * measure. */
  double *start = (double *) s->start_values->data;
  if (p->stiffness == NULL || !bgs_start_direct (s, p, b0, b1, l0, l1, known, f, dq, start))
    record_values (s, p, b0, b1, l0, l1, dq, start, NULL);
  for (int it = 0; it < p->max_iterations; it++)
    {
      double change = 0, motion = 0;
      /* The rows' values at this sweep's end where its motion pass read them (the first
       * sweep's), which a measure of the laws right after it takes instead of reading them
       * again. */
      ValueSource source = { 0 };
      for (size_t k = b0; k < b1; k++)
        change = larger (change, solve_block (s, p, &blocks[ib[k]], f, dq, &motion));
      for (size_t k = l0; k < l1; k++)
        change = larger (change, solve_loose_row (s, p, (size_t) loose[il[k]], f, dq, &motion));
      /* From the second sweep on, a row's window (where it was read in the sweep before to
       * where it is read in this one) holds one update of every block of the island. The
       * first sweep has no such window: the first row's is empty, and a lone contact's own
       * update would never show. So its motion is measured from the start values to the
       * values at its end, in a pass of their own. */
      if (it == 0)
        {
          motion = 0;
          if (change > p->tolerance)
            {
              record_values (s, p, b0, b1, l0, l1, dq, start, &motion);
              source.current = start;
            }
        }
      change = fmin (change, motion);
      if ((guint) it >= s->history->len)
        {
          double zero = 0;
          g_array_append_val (s->history, zero);
        }
      if (change * ratio <= p->tolerance
          || (last_check >= 0 && it - last_check >= LAW_CHECK_EVERY))
        {
          double law = island_law_error (s, p, b0, b1, l0, l1, f, dq, &source,
                                         (double *) s->end_values->data);
          if (change > 0)
            ratio = fmax (1, law / change);
          last_check = it;
          change = law;
        }
      else
        change *= ratio;
      *measured = last_check == it;
      double *h = &g_array_index (s->history, double, it);
      *h = fmax (*h, change);
      sweeps = it + 1;
      *residual = change;
      if (change <= p->tolerance)
        break;
    }
  return sweeps;
}

void
bgs_solve (BgsSolver *s, const BgsProblem *p, double *f, double *dq, BgsResult *result)
{
  g_array_set_size (s->history, 0);
  if (!p->operator_kept)
    {
      build_columns (s, p);
      build_blocks (s, p);
      order_blocks (s, p);
      relocate_rows (s, p);
      s->operator_id++;
      /* A structure kept needs one before it (never 0, which names none). */
      if (!p->structure_kept || s->structure_id == 0)
        s->structure_id++;
      s->kept_solves = 0;
    }
  else
    s->kept_solves++;
  group_islands (s, p);
  g_array_set_size (s->values, (guint) MAX (p->n_rows, 1));
  g_array_set_size (s->start_values, (guint) MAX (p->n_rows, 1));
  /* Apply the initial guess so that dq and f agree. */
  const double *known = last_solve_apply (s, p, f, dq);
  g_array_set_size (s->end_values, (guint) MAX (p->n_rows, 1));
  double *end_values = (double *) s->end_values->data;
  for (size_t i = 0; i < p->n_rows; i++)
    end_values[i] = NAN;

  memset (result, 0, sizeof *result);
  if (p->n_rows == 0)
    {
      last_solve_keep (s, p, f, dq, NULL);
      return;
    }
  gboolean all_measured = TRUE;
  double work = 0;
  size_t items = 0;
  for (size_t island = 0; island < island_count (p); island++)
    {
      size_t n = g_array_index (s->block_start, size_t, island + 1)
                 - g_array_index (s->block_start, size_t, island)
                 + g_array_index (s->loose_start, size_t, island + 1)
                 - g_array_index (s->loose_start, size_t, island);
      if (n == 0)
        continue;
      double residual;
      gboolean measured;
      int sweeps = sweep_island (s, p, island, known, f, dq, &residual, &measured);
      all_measured = all_measured && measured;
      result->islands++;
      if (residual > p->tolerance)
        result->capped_islands++;
      result->iterations = MAX (result->iterations, sweeps);
      result->residual = fmax (result->residual, residual);
      work += (double) sweeps * (double) n;
      items += n;
    }
  result->mean_sweeps = items > 0 ? work / (double) items : 0;
  last_solve_keep (s, p, f, dq, all_measured ? end_values : NULL);
}

/* ---- the post-solve check -------------------------------------------------------------- */

void
bgs_check (const BgsSolver *s, const BgsProblem *p, const double *f, const double *dq,
           BgsCheck *check)
{
  memset (check, 0, sizeof *check);
  const Block *blocks = (const Block *) s->blocks->data;
  for (guint b = 0; b < s->blocks->len; b++)
    check_block (s, p, &blocks[b], f, dq, &(ValueSource){ 0 }, TRUE, check, NULL);
}

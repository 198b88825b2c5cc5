/* Projected block Gauss-Seidel on the unbuilt Delassus operator W = H C H^T (see the header). */
#include "block_gauss_seidel.h"

#include "frame_rows.h"

/* C H_i^T restricted to one body: nv values of the pool from `offset`, added into dq from
 * the body's first DOF v_offset (copied from its slot, so a sweep looks no body up). */
typedef struct Segment {
  uint32_t body;
  size_t offset;
  size_t v_offset, nv;
} Segment;

/* An entry of H with its DOF's place in the flat nv space (the body's v_offset + the DOF),
 * in H's order: a row's value reads dq directly. */
typedef struct FlatEntry {
  size_t at;
  double value;
} FlatEntry;

/* One contact frame's block: the normal row and up to two tangent rows (-1: none), the
 * frame's 3x3 block of W in (normal, t1, t2) order and, for the cone, its 2x2 tangential
 * block factored once for every disk solve of the solve (cwb/coulomb.h). */
typedef struct Block {
  int normal, tangent[2];
  int n_tangents;
  double mu;
  double w[9];
  CwbCoulombDisk disk;
  uint32_t island;
  double height;   /* the frame's origin along the problem's order direction */
} Block;

struct BgsSolver {
  GArray *segment_start;   /* size_t, n_rows + 1 */
  GArray *segments;        /* Segment */
  GArray *entries;         /* FlatEntry, parallel to H's entries */
  GArray *pool;            /* double: the columns C H_i^T */
  GArray *diagonal;        /* double: W_ii */
  GArray *blocks;          /* Block */
  GArray *loose_rows;      /* int: rows outside any normal block, solved one by one */
  GArray *island_blocks;   /* guint: block indices grouped by island */
  GArray *island_loose;    /* guint: indices into loose_rows grouped by island */
  GArray *block_start;     /* size_t, n_islands + 1: each island's run of island_blocks */
  GArray *loose_start;     /* size_t, n_islands + 1: each island's run of island_loose */
  GArray *history;         /* double: residual per sweep */
  GArray *values;          /* double per row: its value where the last sweep read it (the
                            * motion residual) */
  GArray *start_values;    /* double per row: its value before the first sweep */
  GArray *r;               /* double: scratch force of one body */
  IslandDirect *direct;
  GArray *active;          /* size_t: an island's active rows for the direct solve */
  GArray *active_residual, *active_force, *direct_force;   /* double per active row */
  GArray *block_state;     /* guint8 per block of the island: BLOCK_FIXED ... */
  GArray *island_rows;     /* size_t: the rows of the island being started cold */
  GArray *entry_force;     /* double per island row: its force on entry */
};

BgsSolver *
bgs_solver_new (void)
{
  BgsSolver *s = g_new0 (BgsSolver, 1);
  s->segment_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  s->entries = g_array_new (FALSE, FALSE, sizeof (FlatEntry));
  s->pool = g_array_new (FALSE, FALSE, sizeof (double));
  s->diagonal = g_array_new (FALSE, FALSE, sizeof (double));
  s->blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  s->loose_rows = g_array_new (FALSE, FALSE, sizeof (int));
  s->island_blocks = g_array_new (FALSE, FALSE, sizeof (guint));
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
  return s;
}

void
bgs_solver_free (BgsSolver *s)
{
  if (s == NULL)
    return;
  g_array_unref (s->segment_start);
  g_array_unref (s->segments);
  g_array_unref (s->entries);
  g_array_unref (s->pool);
  g_array_unref (s->diagonal);
  g_array_unref (s->blocks);
  g_array_unref (s->loose_rows);
  g_array_unref (s->island_blocks);
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
  g_free (s);
}

const double *
bgs_residual_history (const BgsSolver *s, size_t *n)
{
  *n = s->history->len;
  return (const double *) s->history->data;
}

/* ---- W, unbuilt ---------------------------------------------------------------------- */

/* The larger of two sizes; b when a is NaN is never needed (a residual starts at 0), and a
 * NaN b leaves a, as fmax does, without the libm call in the sweep's inner loop. */
static inline double
larger (double a, double b)
{
  return b > a ? b : a;
}

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

/* Builds the columns C H_i^T, one body at a time. */
static void
build_columns (BgsSolver *s, const BgsProblem *p)
{
  g_array_set_size (s->segment_start, 0);
  g_array_set_size (s->segments, 0);
  g_array_set_size (s->pool, 0);
  size_t zero = 0;
  g_array_append_val (s->segment_start, zero);
  for (size_t i = 0; i < p->n_rows; i++)
    {
      size_t e = p->h->row_start[i], end = p->h->row_start[i + 1];
      if (frame_skipped (p, p->rows[i].frame))
        e = end;   /* no column: the row moves nothing */
      while (e < end)
        {
          /* Entries are sorted by body, then DOF: one run per body. */
          uint32_t body = p->h->entries[e].body;
          size_t nv = slot (p, body)->nv;
          g_array_set_size (s->r, nv);
          double *r = (double *) s->r->data;
          memset (r, 0, nv * sizeof (double));
          for (; e < end && p->h->entries[e].body == body; e++)
            r[p->h->entries[e].dof] += p->h->entries[e].value;
          Segment seg = { .body = body, .offset = s->pool->len,
                          .v_offset = slot (p, body)->v_offset, .nv = nv };
          g_array_set_size (s->pool, s->pool->len + nv);
          p->compliance (p->compliance_data, body, r, &g_array_index (s->pool, double, seg.offset));
          g_array_append_val (s->segments, seg);
        }
      size_t n = s->segments->len;
      g_array_append_val (s->segment_start, n);
    }
  size_t n_entries = p->h->row_start[p->n_rows];
  g_array_set_size (s->entries, (guint) n_entries);
  FlatEntry *flat = (FlatEntry *) s->entries->data;
  for (size_t e = 0; e < n_entries; e++)
    flat[e] = (FlatEntry) { .at = slot (p, p->h->entries[e].body)->v_offset
                                  + p->h->entries[e].dof,
                            .value = p->h->entries[e].value };
}

/* H_i . (C H_j^T): one entry of W. */
static double
w_entry (const BgsSolver *s, const BgsProblem *p, size_t i, size_t j)
{
  const Segment *segs = (const Segment *) s->segments->data;
  const size_t *start = (const size_t *) s->segment_start->data;
  const double *pool = (const double *) s->pool->data;
  double sum = 0;
  for (size_t e = p->h->row_start[i]; e < p->h->row_start[i + 1]; e++)
    {
      const CwbDofEntry *entry = &p->h->entries[e];
      for (size_t k = start[j]; k < start[j + 1]; k++)
        if (segs[k].body == entry->body)
          {
            sum += entry->value * pool[segs[k].offset + entry->dof];
            break;
          }
    }
  return sum;
}

/* The row's current value: delta_free_i + H_i dq. */
static inline double
row_value (const BgsSolver *s, const BgsProblem *p, size_t i, const double *dq)
{
  const FlatEntry *flat = (const FlatEntry *) s->entries->data;
  double value = p->delta_free[i];
  for (size_t e = p->h->row_start[i], end = p->h->row_start[i + 1]; e < end; e++)
    value += flat[e].value * dq[flat[e].at];
  return value;
}

/* dq += C H_i^T df */
static void
apply_force (const BgsSolver *s, const BgsProblem *p, size_t i, double df, double *dq)
{
  if (df == 0)
    return;
  const Segment *segs = (const Segment *) s->segments->data;
  const size_t *start = (const size_t *) s->segment_start->data;
  const double *pool = (const double *) s->pool->data;
  for (size_t k = start[i]; k < start[i + 1]; k++)
    {
      double *out = dq + segs[k].v_offset;
      const double *column = pool + segs[k].offset;
      for (size_t d = 0; d < segs[k].nv; d++)
        out[d] += df * column[d];
    }
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
          block.height = cwb_v3_dot (frame->origin, p->order_direction);
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

/* Sets f_i to `value`, moving dq with it; returns |df| W_ii, the displacement it caused. */
static double
set_force (const BgsSolver *s, const BgsProblem *p, size_t i, double value, double *f, double *dq)
{
  double df = value - f[i];
  apply_force (s, p, i, df, dq);
  f[i] = value;
  return fabs (df) * g_array_index (s->diagonal, double, i);
}

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

/* The violation a normal row may keep: its tolerance (Allard 2010 eq. 19's eps_V) for
 * position-level rows, none for rates. */
static double
row_tolerance (const BgsProblem *p, size_t i)
{
  return p->rate_normals ? 0 : p->rows[i].tolerance;
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
static gint
compare_height (gconstpointer a, gconstpointer b, gpointer data)
{
  const Block *blocks = data;
  guint i = *(const guint *) a, j = *(const guint *) b;
  if (blocks[i].height != blocks[j].height)
    return blocks[i].height < blocks[j].height ? -1 : 1;
  return i < j ? -1 : i > j;
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
    g_qsort_with_data (ib + bs[i], (gint) (bs[i + 1] - bs[i]), sizeof (guint), compare_height,
                       (gpointer) blocks);
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

/* Adds one contact frame's measure of the laws to `check` (bgs_check); the friction set's
 * excess only with `excess` (the stop does not read it). */
static void
check_block (const BgsSolver *s, const BgsProblem *p, const Block *block, const double *f,
             const double *dq, gboolean excess, BgsCheck *check)
{
  int n = block->normal;
  double gap = row_value (s, p, n, dq) + row_tolerance (p, n);
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
  /* The slip is read only where there is friction to judge it by. */
  if (!(radius > 0))
    return;
  double slip[2] = { 0, 0 };
  for (int a = 0; a < block->n_tangents; a++)
    slip[a] = row_value (s, p, block->tangent[a], dq);
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
                  size_t l1, const double *f, const double *dq)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const guint *il = (const guint *) s->island_loose->data;
  BgsCheck check = { 0 };
  for (size_t k = b0; k < b1; k++)
    check_block (s, p, &blocks[ib[k]], f, dq, FALSE, &check);
  double error = larger (larger (check.penetration, check.complementarity), check.slip_error);
  for (size_t k = l0; k < l1; k++)
    {
      size_t i = (size_t) loose[il[k]];
      double value = row_value (s, p, i, dq);
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

/* ---- the direct start ----------------------------------------------------------------- */

/* A contact sticks, for the active set, while its tangential force stays below this share of
 * the friction set's size: one on the boundary slides, and keeps its force. */
#define STICK_SHARE 0.99
/* The rows' compliance in the direct solve over their mean W_ii. The solve changes the warm
 * start's forces by the least that brings the rows to their targets; the compliance bounds
 * that change along W's nearly singular directions (contact points a clip tolerance apart),
 * where a round-off-sized residual would otherwise ask for forces of 10^3 N, and it leaves
 * the rows off their targets by 1e-4 of what the change of force moves them, which the
 * sweeps remove (the values tried: docs/plugins/constraint.md). */
#define DIRECT_COMPLIANCE 1e-4
/* Direct solves at most for an island that starts cold (no contact with force on entry):
 * its first guess (every touching contact sticks) is corrected by what each solve asks of
 * it (correct_states); the flush pyramids' guesses hold after at most four. */
#define COLD_START_PASSES 8
/* A warm island whose forces on entry hold the laws to this share of the tolerance skips the
 * direct solve (start_direct). A settled pyramid's warm start holds them to 0.01 to 0.1 of
 * it; the factorisation is then most of the step (docs/plugins/constraint.md). */
#define DIRECT_SKIP_SHARE 0.1

/* A contact's part in the active set. */
enum { BLOCK_FIXED, BLOCK_NORMAL, BLOCK_STICK };

static void
add_active (BgsSolver *s, size_t row, double residual, double force)
{
  g_array_append_val (s->active, row);
  g_array_append_val (s->active_residual, residual);
  g_array_append_val (s->active_force, force);
}

/* The active rows of the island's blocks in their states, and of its loose rows (bilateral
 * rows, normal rows with force), each block's normal row first and its tangent rows after. */
static void
collect_active (BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0, size_t l1,
                const guint8 *state, const double *f, const double *dq)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const guint *il = (const guint *) s->island_loose->data;
  g_array_set_size (s->active, 0);
  g_array_set_size (s->active_residual, 0);
  g_array_set_size (s->active_force, 0);
  for (size_t k = b0; k < b1; k++)
    {
      if (state[k - b0] == BLOCK_FIXED)
        continue;
      const Block *block = &blocks[ib[k]];
      size_t n = (size_t) block->normal;
      add_active (s, n, row_value (s, p, n, dq) + row_tolerance (p, n), f[n]);
      if (state[k - b0] == BLOCK_STICK)
        for (int a = 0; a < block->n_tangents; a++)
          add_active (s, (size_t) block->tangent[a], row_value (s, p, block->tangent[a], dq),
                      f[block->tangent[a]]);
    }
  for (size_t k = l0; k < l1; k++)
    {
      size_t i = (size_t) loose[il[k]];
      if (p->rows[i].kind == CWB_ROW_BILATERAL)
        add_active (s, i, row_value (s, p, i, dq), f[i]);
      else if (p->rows[i].kind == CWB_ROW_NORMAL && f[i] > 0)
        add_active (s, i, row_value (s, p, i, dq) + row_tolerance (p, i), f[i]);
    }
}

/* Sets the active rows to the solved forces projected onto the laws: a normal force below
 * zero becomes zero, a tangential force outside the friction set is scaled onto it. The
 * normal forces go first, so that each contact's tangential forces are bounded by its own. */
static void
apply_solved (const BgsSolver *s, const BgsProblem *p, const double *solved, double *f,
              double *dq)
{
  const size_t *rows = (const size_t *) s->active->data;
  size_t n_active = s->active->len;
  for (size_t k = 0; k < n_active; k++)
    if (p->rows[rows[k]].kind != CWB_ROW_TANGENT)
      set_force (s, p, rows[k],
                 p->rows[rows[k]].kind == CWB_ROW_NORMAL ? larger (0, solved[k]) : solved[k],
                 f, dq);
  for (size_t k = 1; k < n_active; k++)
    {
      if (p->rows[rows[k]].kind != CWB_ROW_TANGENT || p->rows[rows[k - 1]].kind == CWB_ROW_TANGENT)
        continue;
      size_t normal = rows[k - 1];
      double ft[2] = { solved[k], 0 };
      int n_tangents = 1;
      if (k + 1 < n_active && p->rows[rows[k + 1]].kind == CWB_ROW_TANGENT)
        ft[n_tangents++] = solved[k + 1];
      double radius = p->frames[p->rows[normal].frame].mu * f[normal];
      double gauge = cwb_friction_gauge (p->friction_law, ft);
      double scale = gauge > radius ? (gauge > 0 ? radius / gauge : 0) : 1;
      for (int a = 0; a < n_tangents; a++)
        set_force (s, p, rows[k + (size_t) a], scale * ft[a], f, dq);
    }
}

/* Brings the tangential forces of the sliding contacts (BLOCK_NORMAL: held while their normal
 * force was solved) back into their friction sets, where the new normal force shrank them. */
static void
project_sliding (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1,
                 const guint8 *state, double *f, double *dq)
{
  if (!p->friction)
    return;
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  for (size_t k = b0; k < b1; k++)
    {
      const Block *block = &blocks[ib[k]];
      if (state[k - b0] != BLOCK_NORMAL || block->n_tangents == 0)
        continue;
      double ft[2] = { 0, 0 };
      for (int a = 0; a < block->n_tangents; a++)
        ft[a] = f[block->tangent[a]];
      double gauge = cwb_friction_gauge (p->friction_law, ft);
      double radius = block->mu * f[block->normal];
      if (gauge > radius)
        for (int a = 0; a < block->n_tangents; a++)
          set_force (s, p, (size_t) block->tangent[a], gauge > 0 ? ft[a] * radius / gauge : 0,
                     f, dq);
    }
}

/* Corrects the active set by what the last direct solve asked of it (`solved`, in the order
 * collect_active gave the rows): a contact whose normal force came out negative leaves it
 * (it opens), one that sticks with its tangential force outside the friction set slides.
 * Returns whether a contact changed its part. */
static gboolean
correct_states (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, guint8 *state,
                const double *solved)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  gboolean changed = FALSE;
  size_t at = 0;
  for (size_t k = b0; k < b1; k++)
    {
      guint8 *part = &state[k - b0];
      if (*part == BLOCK_FIXED)
        continue;
      const Block *block = &blocks[ib[k]];
      double f_n = solved[at];
      double ft[2] = { 0, 0 };
      if (*part == BLOCK_STICK)
        for (int a = 0; a < block->n_tangents; a++)
          ft[a] = solved[at + 1 + (size_t) a];
      at += 1 + (*part == BLOCK_STICK ? (size_t) block->n_tangents : 0);
      if (f_n < 0)
        *part = BLOCK_FIXED;
      else if (*part == BLOCK_STICK && cwb_friction_gauge (p->friction_law, ft) > block->mu * f_n)
        *part = BLOCK_NORMAL;
      else
        continue;
      changed = TRUE;
    }
  return changed;
}

/* Each contact's part in the direct start of a warm island (from the forces it starts
 * with): contacts with force, sticking where their tangential force is inside the friction
 * set. A contact open at the free configuration holds max (rate, gap) (a speculative row,
 * constraint_solver.c): not a linear row, so it keeps its force. */
static void
warm_states (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, const double *f,
             guint8 *state)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  for (size_t k = b0; k < b1; k++)
    {
      const Block *block = &blocks[ib[k]];
      size_t n = (size_t) block->normal;
      double ft[2] = { 0, 0 };
      for (int a = 0; a < block->n_tangents; a++)
        ft[a] = f[block->tangent[a]];
      if (!(f[n] > 0) || (p->rate_normals && p->rows[n].violation > 0))
        state[k - b0] = BLOCK_FIXED;
      else if (block->n_tangents > 0 && p->friction
               && cwb_friction_gauge (p->friction_law, ft) < STICK_SHARE * block->mu * f[n])
        state[k - b0] = BLOCK_STICK;
      else
        state[k - b0] = BLOCK_NORMAL;
    }
}

/* Whether no contact of the island carries force on entry (its first step, a new island, or
 * warm_start 0), and if so each contact's part in its direct start: every contact touching
 * or closing (its normal row's value within the tolerance) sticks. */
static gboolean
cold_states (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, const double *f,
             const double *dq, guint8 *state)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  for (size_t k = b0; k < b1; k++)
    if (f[blocks[ib[k]].normal] != 0)
      return FALSE;
  for (size_t k = b0; k < b1; k++)
    {
      const Block *block = &blocks[ib[k]];
      size_t n = (size_t) block->normal;
      if (row_value (s, p, n, dq) + row_tolerance (p, n) > p->tolerance)
        state[k - b0] = BLOCK_FIXED;
      else
        state[k - b0] = block->n_tangents > 0 && p->friction ? BLOCK_STICK : BLOCK_NORMAL;
    }
  return TRUE;
}

/* Keeps the forces of the island's rows (its blocks' and loose rows) on entry, to go back
 * to them (restore_entry). */
static void
keep_entry (BgsSolver *s, size_t b0, size_t b1, size_t l0, size_t l1, const double *f)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  const guint *il = (const guint *) s->island_loose->data;
  g_array_set_size (s->island_rows, 0);
  g_array_set_size (s->entry_force, 0);
  for (size_t k = b0; k < b1; k++)
    {
      const Block *block = &blocks[ib[k]];
      size_t row = (size_t) block->normal;
      g_array_append_val (s->island_rows, row);
      for (int a = 0; a < block->n_tangents; a++)
        {
          row = (size_t) block->tangent[a];
          g_array_append_val (s->island_rows, row);
        }
    }
  for (size_t k = l0; k < l1; k++)
    {
      size_t row = (size_t) loose[il[k]];
      g_array_append_val (s->island_rows, row);
    }
  for (guint k = 0; k < s->island_rows->len; k++)
    g_array_append_val (s->entry_force, f[g_array_index (s->island_rows, size_t, k)]);
}

static void
restore_entry (const BgsSolver *s, const BgsProblem *p, double *f, double *dq)
{
  for (guint k = 0; k < s->island_rows->len; k++)
    set_force (s, p, g_array_index (s->island_rows, size_t, k),
               g_array_index (s->entry_force, double, k), f, dq);
}

/* Starts the island from the direct solve of its active set (island_direct.h), the result
 * projected onto the laws. A warm island (contacts with force on entry) takes its set from
 * those forces (warm_states), one solve. A cold one guesses that every touching contact
 * sticks (cold_states) and corrects the guess by what each solve asked of it
 * (correct_states), solving again from the projected forces, the sliding contacts' held
 * tangential forces brought into their cones (project_sliding), and once more when the set
 * holds; at most COLD_START_PASSES solves (a primal active-set method). It is kept where the
 * set settled and the island is nearer the laws than with no force, else the island goes
 * back to its forces on entry. Gauss-Seidel from zero force took the flush 20-row pyramid's
 * first 21 steps to their 200-sweep cap, each leaving what the next had to finish; from the
 * cold start its first step takes 11 sweeps (docs/plugins/constraint.md, "A cold start").
 * The island keeps the forces it has when the set is too small or a solve fails. */
static void
start_direct (BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0, size_t l1,
              double *f, double *dq)
{
  const double *diag = (const double *) s->diagonal->data;
  g_array_set_size (s->block_state, (guint) MAX (b1 - b0, 1));
  guint8 *state = (guint8 *) s->block_state->data;
  int passes = 1;
  gboolean cold = cold_states (s, p, b0, b1, f, dq, state);
  double entry_law = 0;
  gboolean settled = FALSE;
  if (cold)
    {
      passes = COLD_START_PASSES;
      keep_entry (s, b0, b1, l0, l1, f);
      entry_law = island_law_error (s, p, b0, b1, l0, l1, f, dq);
    }
  else
    {
      /* A warm start that already holds the laws well within the tolerance needs no direct
       * solve: the sweeps confirm it in one. */
      if (island_law_error (s, p, b0, b1, l0, l1, f, dq) <= DIRECT_SKIP_SHARE * p->tolerance)
        return;
      warm_states (s, p, b0, b1, f, state);
    }
  for (int pass = 0; pass < passes; pass++)
    {
      collect_active (s, p, b0, b1, l0, l1, state, f, dq);
      if (s->active->len < BGS_DIRECT_MIN_ROWS)
        break;
      size_t n_active = s->active->len;
      const size_t *rows = (const size_t *) s->active->data;
      double mean_w = 0;
      for (size_t k = 0; k < n_active; k++)
        mean_w += diag[rows[k]];
      mean_w /= (double) n_active;
      DirectProblem direct = {
        .n_active = n_active,
        .rows = rows,
        .residual = (const double *) s->active_residual->data,
        .force = (const double *) s->active_force->data,
        .epsilon = DIRECT_COMPLIANCE * mean_w,
        .h = p->h,
        .bodies = p->bodies,
        .stiffness = p->stiffness,
        .stiffness_data = p->stiffness_data,
      };
      g_array_set_size (s->direct_force, (guint) n_active);
      double *solved = (double *) s->direct_force->data;
      if (!island_direct_solve (s->direct, &direct, solved))
        break;
      apply_solved (s, p, solved, f, dq);
      if (cold)
        project_sliding (s, p, b0, b1, state, f, dq);
      if (correct_states (s, p, b0, b1, state, solved))
        {
          settled = FALSE;
          continue;
        }
      if (!cold)
        return;
      /* The set holds: solved once more on it, the sliding contacts' forces (held while the
       * last solve ran, then projected) are those of the normal forces it found. */
      if (!settled && pass + 1 < passes)
        {
          settled = TRUE;
          continue;
        }
      /* A cold start is kept only where it is nearer the laws than no force at all. */
      if (!(island_law_error (s, p, b0, b1, l0, l1, f, dq) < entry_law))
        restore_entry (s, p, f, dq);
      return;
    }
  /* A cold guess that the passes did not settle (or that shrank below the direct solve's
   * size) is no start (a box pyramid swapped from proximity into ldi, its cells' set still
   * shrinking after eight, came apart from it). */
  if (cold)
    restore_entry (s, p, f, dq);
}

/* At most this many sweeps between two measures of the laws once one was taken: the ratio
 * of the laws' violation to the cheap sign changes as the sweeps go, and a ratio taken too
 * high would otherwise keep the solve sweeping past its tolerance. */
#define LAW_CHECK_EVERY 8

/* Sweeps one island until the laws hold to the tolerance or the cap; returns the sweeps and
 * leaves the last residual in *residual. The history gets, per sweep, the largest residual
 * of any island so far.
 *
 * The stop reads the laws themselves (island_law_error): the largest violation of
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
sweep_island (BgsSolver *s, const BgsProblem *p, size_t island, double *f, double *dq,
              double *residual)
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
  /* The laws' violation over the cheap sign at the last check (at least 1), and the sweeps
   * since: the next check comes when the sign times this ratio reaches the tolerance, or
   * LAW_CHECK_EVERY sweeps after the last. */
  double ratio = 1;
  int last_check = -1;
  /* The rows' values at the start (the warm start's motion), for the first sweep's motion
   * measure. */
  if (p->stiffness != NULL)
    start_direct (s, p, b0, b1, l0, l1, f, dq);
  double *start = (double *) s->start_values->data;
  record_values (s, p, b0, b1, l0, l1, dq, start, NULL);
  for (int it = 0; it < p->max_iterations; it++)
    {
      double change = 0, motion = 0;
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
            record_values (s, p, b0, b1, l0, l1, dq, start, &motion);
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
          double law = island_law_error (s, p, b0, b1, l0, l1, f, dq);
          if (change > 0)
            ratio = fmax (1, law / change);
          last_check = it;
          change = law;
        }
      else
        change *= ratio;
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
  build_columns (s, p);
  build_blocks (s, p);
  group_islands (s, p);
  g_array_set_size (s->values, (guint) MAX (p->n_rows, 1));
  g_array_set_size (s->start_values, (guint) MAX (p->n_rows, 1));
  /* Apply the initial guess so that dq and f agree. */
  for (size_t i = 0; i < p->n_rows; i++)
    apply_force (s, p, i, f[i], dq);

  memset (result, 0, sizeof *result);
  if (p->n_rows == 0)
    return;
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
      int sweeps = sweep_island (s, p, island, f, dq, &residual);
      result->islands++;
      if (residual > p->tolerance)
        result->capped_islands++;
      result->iterations = MAX (result->iterations, sweeps);
      result->residual = fmax (result->residual, residual);
      work += (double) sweeps * (double) n;
      items += n;
    }
  result->mean_sweeps = items > 0 ? work / (double) items : 0;
}

/* ---- the post-solve check -------------------------------------------------------------- */

void
bgs_check (const BgsSolver *s, const BgsProblem *p, const double *f, const double *dq,
           BgsCheck *check)
{
  memset (check, 0, sizeof *check);
  const Block *blocks = (const Block *) s->blocks->data;
  for (guint b = 0; b < s->blocks->len; b++)
    check_block (s, p, &blocks[b], f, dq, TRUE, check);
}

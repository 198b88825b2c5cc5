/* The block Gauss-Seidel solver's state and the small operations on it that its two files
 * share: the sweeps (block_gauss_seidel.c) and the direct start of an island's sweeps
 * (direct_start.c). Private to the constraint solver. */
#pragma once

#include "block_gauss_seidel.h"

G_BEGIN_DECLS

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

/* Where a row's data lies: its entries of H (FlatEntry) and its column's segments. Rows are
 * laid out in the blocks' order (each block's normal row, then its tangent rows), itself the
 * sweep order of the step the operator was built in, so that a sweep reads memory in
 * sequence (block_gauss_seidel.c, relocate_rows). */
typedef struct RowSpan {
  size_t first_entry, end_entry;
  size_t first_segment, end_segment;
} RowSpan;

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
} Block;

/* A block's place in the sweep order (block_gauss_seidel.c). */
typedef struct HeightKey {
  double height;
  guint block;
} HeightKey;

struct BgsSolver {
  GArray *spans;           /* RowSpan per row */
  GArray *segments;        /* Segment */
  GArray *entries;         /* FlatEntry */
  GArray *pool;            /* double: the columns C H_i^T */
  GArray *spare_segments, *spare_entries, *spare_pool;   /* relocate_rows' copies */
  GArray *diagonal;        /* double: W_ii */
  GArray *blocks;          /* Block */
  GArray *loose_rows;      /* int: rows outside any normal block, solved one by one */
  GArray *island_blocks;   /* guint: block indices grouped by island, each island's in its
                            * sweep order */
  GArray *order_keys;      /* HeightKey: scratch of the sweep order's sort, twice the blocks */
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
  guint64 operator_id;     /* counts the operators built: names the one in use */
};

/* The larger of two sizes; b when a is NaN is never needed (a residual starts at 0), and a
 * NaN b leaves a, as fmax does, without the libm call in the sweep's inner loop. */
static inline double
larger (double a, double b)
{
  return b > a ? b : a;
}

/* The row's current value: delta_free_i + H_i dq. */
static inline double
row_value (const BgsSolver *s, const BgsProblem *p, size_t i, const double *dq)
{
  const FlatEntry *flat = (const FlatEntry *) s->entries->data;
  const RowSpan *span = &g_array_index (s->spans, RowSpan, i);
  double value = p->delta_free[i];
  for (size_t e = span->first_entry; e < span->end_entry; e++)
    value += flat[e].value * dq[flat[e].at];
  return value;
}

/* dq += C H_i^T df */
static inline void
apply_force (const BgsSolver *s, const BgsProblem *p, size_t i, double df, double *dq)
{
  if (df == 0)
    return;
  const Segment *segs = (const Segment *) s->segments->data;
  const RowSpan *span = &g_array_index (s->spans, RowSpan, i);
  const double *pool = (const double *) s->pool->data;
  for (size_t k = span->first_segment; k < span->end_segment; k++)
    {
      double *out = dq + segs[k].v_offset;
      const double *column = pool + segs[k].offset;
      for (size_t d = 0; d < segs[k].nv; d++)
        out[d] += df * column[d];
    }
}

/* Sets f_i to `value`, moving dq with it; returns |df| W_ii, the displacement it caused. */
static inline double
set_force (const BgsSolver *s, const BgsProblem *p, size_t i, double value, double *f, double *dq)
{
  double df = value - f[i];
  apply_force (s, p, i, df, dq);
  f[i] = value;
  return fabs (df) * g_array_index (s->diagonal, double, i);
}

/* The violation a normal row may keep: its tolerance (Allard 2010 eq. 19's eps_V) for
 * position-level rows, none for rates. */
static inline double
row_tolerance (const BgsProblem *p, size_t i)
{
  return p->rate_normals ? 0 : p->rows[i].tolerance;
}

/* How far the island's forces and motion are from the laws (block_gauss_seidel.c); with
 * `values`, every row's value it read is kept there too (as record_values keeps them). */
double bgs_island_law_error (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1,
                             size_t l0, size_t l1, const double *f, const double *dq,
                             double *values);

/* Starts the island (its blocks b0 .. b1 and loose rows l0 .. l1 in the solver's island
 * order) from the direct solve of its active set, moving f and dq (direct_start.c). Returns
 * TRUE when it left f and dq as they were, having measured that the warm start needs no
 * direct solve, and kept every row's value in `values` on the way. */
gboolean bgs_start_direct (BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0,
                           size_t l1, double *f, double *dq, double *values);

G_END_DECLS

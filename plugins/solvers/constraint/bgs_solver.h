/* The block Gauss-Seidel solver's state and the small operations on it that its two files
 * share: the sweeps (block_gauss_seidel.c) and the direct start of an island's sweeps
 * (direct_start.c). Private to the constraint solver. */
#pragma once

#include "block_gauss_seidel.h"

G_BEGIN_DECLS

/* C H_i^T restricted to one body: nv values of the pool from `offset`, added into dq from
 * the body's first DOF v_offset (copied from its slot, so a sweep looks no body up). A row
 * that touches most DOFs of each of its bodies (a rigid body's six) keeps H_i restricted to
 * the body densely too, nv values of the row pool from `row_offset` (row_value). The pools
 * are apart so that a measure of the laws reads H alone. Indices are 32-bit, as the GArrays
 * holding them: a pass over the rows reads less. */
typedef struct Segment {
  uint32_t body;
  uint32_t offset, row_offset;
  uint32_t v_offset, nv;
  uint32_t first_dof;      /* the body's DOF the segment starts at: 0 for a whole column,
                            * the row's first DOF for a body of diagonal compliance, whose
                            * column is the row's own DOFs alone (v_offset and nv are then
                            * those of that window) */
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
  uint32_t first_entry, end_entry;
  uint32_t first_segment, end_segment;
  gboolean dense;          /* each segment has the row's H in the row pool */
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

/* What a solve leaves for the next one on the same operator (last_solve.c): its forces,
 * its share of the displacement and, where its laws were measured at its end, each row's
 * H_i dq there. */
typedef struct LastSolve {
  guint64 operator_id;     /* the operator it was made on; 0: nothing kept */
  GArray *f;               /* double per row: the forces it ended with */
  GArray *entry_dq;        /* double per DOF: dq as it came in (penalty forces through C) */
  GArray *own_dq;          /* double per DOF: its own share of dq, C H^T f */
  GArray *hdq;             /* double per row: H_i dq at its end, where `measured` */
  gboolean measured;       /* every island's last sweep ended with a measure of the laws */
  int incremental;         /* solves since own_dq was summed afresh */
} LastSolve;

struct BgsSolver {
  GArray *spans;           /* RowSpan per row */
  GArray *segments;        /* Segment */
  GArray *entries;         /* FlatEntry */
  GArray *pool;            /* double: the columns C H_i^T */
  GArray *row_pool;        /* double: the dense rows' H_i */
  GArray *spare_segments, *spare_entries, *spare_pool, *spare_row_pool;   /* relocate_rows'
                                                                           * copies */
  GArray *diagonal;        /* double: W_ii */
  GArray *blocks;          /* Block */
  GArray *loose_rows;      /* int: rows outside any normal block, solved one by one */
  GArray *island_blocks;   /* guint: block indices grouped by island, each island's in its
                            * sweep order */
  GArray *order_keys;      /* HeightKey: scratch of the sweep order's sort, twice the blocks
                            * (layered_order's, as guint) */
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
  GArray *solved_part;     /* guint8 per block: its part in the last direct solve */
  guint64 solved_part_structure;  /* the structure solved_part's blocks are of; 0: none */
  GArray *island_rows;     /* size_t: the rows of the island being started (direct_start.c) */
  GArray *entry_force;     /* double per island row: its force on entry */
  guint64 operator_id;     /* counts the operators built: names the one in use */
  guint64 structure_id;    /* counts the operators' structures (BgsProblem.structure_kept) */
  guint64 kept_solves;     /* solves on it since it was built (layered_order's turn) */
  GArray *end_values;      /* double per row: its value at the last measure of the laws */
  LastSolve last;          /* what the last solve left for the next one (last_solve.c) */
};

/* The larger of two sizes; b when a is NaN is never needed (a residual starts at 0), and a
 * NaN b leaves a, as fmax does, without the libm call in the sweep's inner loop. */
static inline double
larger (double a, double b)
{
  return b > a ? b : a;
}

/* A rigid body's DOFs: the loops over a segment take this length as a constant where it
 * is the segment's, and compile to a few vector operations. */
#define RIGID_DOFS 6

/* sum a_d x_d over one body's nv DOFs. */
static inline double
segment_dot (const double *a, const double *x, size_t nv)
{
  double sum = 0;
  if (nv == RIGID_DOFS)
    for (size_t d = 0; d < RIGID_DOFS; d++)
      sum += a[d] * x[d];
  else
    for (size_t d = 0; d < nv; d++)
      sum += a[d] * x[d];
  return sum;
}

/* out += s a over one body's nv DOFs. */
static inline void
segment_axpy (double *out, double s, const double *a, size_t nv)
{
  if (nv == RIGID_DOFS)
    for (size_t d = 0; d < RIGID_DOFS; d++)
      out[d] += s * a[d];
  else
    for (size_t d = 0; d < nv; d++)
      out[d] += s * a[d];
}

/* The row's current value: delta_free_i + H_i dq; a dense row's as one contiguous product
 * per body, which the compiler vectorizes (the flat entries gather dq one DOF at a time). */
static inline double
row_value (const BgsSolver *s, const BgsProblem *p, size_t i, const double *dq)
{
  const RowSpan *span = &g_array_index (s->spans, RowSpan, i);
  double value = p->delta_free[i];
  if (span->dense)
    {
      const Segment *segs = (const Segment *) s->segments->data;
      const double *row_pool = (const double *) s->row_pool->data;
      for (size_t k = span->first_segment; k < span->end_segment; k++)
        value += segment_dot (row_pool + segs[k].row_offset, dq + segs[k].v_offset,
                              segs[k].nv);
      return value;
    }
  const FlatEntry *flat = (const FlatEntry *) s->entries->data;
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
    segment_axpy (dq + segs[k].v_offset, df, pool + segs[k].offset, segs[k].nv);
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

/* How far the island's forces and motion are from the laws (block_gauss_seidel.c); the
 * rows' values read from dq, or from `known` where not NULL (each row's H_i dq,
 * last_solve_apply); with
 * `values`, every row's value is kept there too (as record_values keeps them). */
double bgs_island_law_error (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1,
                             size_t l0, size_t l1, const double *f, const double *dq,
                             const double *known, double *values);

/* Starts the island (its blocks b0 .. b1 and loose rows l0 .. l1 in the solver's island
 * order) from the direct solve of its active set, moving f and dq (direct_start.c); the rows'
 * values at the guess are `known` where not NULL. Returns TRUE when it left f and dq as they
 * were, having measured that the warm start needs no direct solve, and kept every row's
 * value in `values` on the way. */
gboolean bgs_start_direct (BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0,
                           size_t l1, const double *known, double *f, double *dq,
                           double *values);

/* ---- what a solve leaves for the next (last_solve.c) ----------------------------------- */

void last_solve_init (LastSolve *last);
void last_solve_clear (LastSolve *last);

/* dq += C H^T f for the solve's guess f. On the operator the last solve used, from what it
 * left: its own displacement and the columns of the rows whose force differs from its. When
 * the guess is the last forces themselves on the same entry dq, and the last solve measured
 * its laws at its end, returns each row's H_i dq at the guess (the last end's, known without
 * reading the operator; its value is delta_free_i plus that, read_value); NULL otherwise. */
const double *last_solve_apply (BgsSolver *s, const BgsProblem *p, const double *f, double *dq);

/* Keeps what the solve ending with f and dq leaves; `end_values` (NULL: not measured) are
 * every row's values at its end. */
void last_solve_keep (BgsSolver *s, const BgsProblem *p, const double *f, const double *dq,
                      const double *end_values);

G_END_DECLS

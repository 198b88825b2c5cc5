/* The direct start of an island's sweeps (see island_direct.h): the active set guessed from
 * the warm start, or, for an island with no force on entry, from its touching contacts and
 * corrected round by round; solved by island_direct_solve and projected onto the laws. */
#include "bgs_solver.h"

#include "island_direct.h"

#include <string.h>

/* A contact sticks, for the active set, while its tangential force stays below this share of
 * the friction set's size: one on the boundary slides, and keeps its force. */
#define STICK_SHARE 0.99
/* A contact whose tangential force is within this share of its friction set's size and its
 * edge is in doubt: it may be sticking at the edge or sliding. It keeps the part it had in
 * the last direct solve on blocks of the same structure (BgsSolver.solved_part), so that the
 * kept factor need not be modified for it: on a settled pyramid of 40 rows, a hundred such
 * contacts went between sticking and sliding at every step, each modification costing 0.1 ms
 * a row (docs/plugins/constraint.md, "Contacts at the friction set's edge"). Either part is
 * only a guess; the sweeps that follow bring the forces to the laws. */
#define EDGE_SHARE 0.95
/* A warm contact whose normal force is below this share of the island's mean (over its
 * contacts with force), and whose law holds to the tolerance at that force, is left out of
 * the direct solve with its force held, as one without force is: the sweeps that follow set
 * it. On a settled pyramid of 40 rows the contacts between the side faces of a row carry
 * 1e-4 of the mean or nothing, and 100 to 1 000 of them went in and out of the set at every
 * step (the kept factor modified for each); no contact carried between 1e-4 and 1e-1 of the
 * mean. A contact closing beyond its tolerance stays in the set whatever its force: one that
 * has just begun to carry the weight of a landing box (docs/plugins/constraint.md, "Slightly
 * loaded contacts"). */
#define SLIGHT_SHARE 1e-3
/* The rows' compliance in the direct solve over their mean W_ii. The solve changes the warm
 * start's forces by the least that brings the rows to their targets; the compliance bounds
 * that change along W's nearly singular directions (contact points a clip tolerance apart),
 * where a round-off-sized residual would otherwise ask for forces of 10^3 N, and it leaves
 * the rows off their targets by 1e-4 of what the change of force moves them, which the
 * sweeps remove (the values tried: docs/plugins/constraint.md). */
#define DIRECT_COMPLIANCE 1e-4
/* Direct solves at most for an island that starts cold (no contact with force on entry):
 * a frictionless one, then its guess (every contact that one loaded sticks) corrected by
 * what each solve asks of it (correct_states); the flush pyramids' guesses hold at once. */
#define COLD_START_PASSES 8
/* A warm island whose forces on entry hold the laws to this share of the tolerance skips the
 * direct solve (bgs_start_direct): a settled pyramid's, solved directly at the step before,
 * does at most steps (289 of 300 on 10 rows, 2 of 3 on 20 and 40). A larger share (0.1 until
 * 2026-12-01) let the sweeps alone hold a warm start that held the laws to 0.01 of the
 * tolerance, and a flush pyramid's slowest mode (a 20-row wall rocking about its base's edge)
 * gathered what each sweep left, to 4e-7 J, until the laws' error passed the share and a
 * direct solve took it back (docs/plugins/constraint.md, "Direct start of large islands"). */
#define DIRECT_SKIP_SHARE 1e-6

/* A contact's part in the active set. */
enum { BLOCK_FIXED, BLOCK_NORMAL, BLOCK_STICK };

/* The rows a block brings to the active set in its part: none held fixed, its normal row,
 * or its normal and tangent rows when it sticks (collect_active's order). */
static size_t
active_rows_of (const Block *block, guint8 part)
{
  if (part == BLOCK_FIXED)
    return 0;
  return 1 + (part == BLOCK_STICK ? (size_t) block->n_tangents : 0);
}

/* The most rows an island's blocks b0 .. b1 and loose rows l0 .. l1 can hold: a block has a
 * normal row and at most two tangent rows. */
static guint
island_row_bound (size_t b0, size_t b1, size_t l0, size_t l1)
{
  return (guint) (3 * (b1 - b0) + (l1 - l0));
}

/* How far a normal row's value exceeds its pure rate: 0 for a linear row; for a speculative
 * one (max (rate, gap)), its opening beyond the rate when that is within the tolerance, and
 * -1 beyond it. The direct start holds such a row at its rate (the contact neither closes
 * nor opens further, so its value after the solve is the opening, a law error within the
 * tolerance) rather than leaving it out with its force held: the loaded contacts of a
 * settled stack wander open and shut by a share of the tolerance from step to step, and left
 * out they changed K's active set at every step. Closing the opening instead gives a face's
 * redundant corners inconsistent targets, which K's near-rigid coupling turns into large
 * forces (docs/plugins/constraint.md, "Loaded contacts held at their rate"). */
static double
held_opening (const BgsProblem *p, size_t n)
{
  if (p->speculative == NULL || !p->speculative[n])
    return 0;
  if (p->speculative_rate == NULL)
    return -1;
  double opening = p->delta_free[n] - p->speculative_rate[n];
  return opening <= p->tolerance ? opening : -1;
}

/* The active set being collected: its rows, residuals and forces, written into arrays sized
 * once for every row of the island rather than appended row by row. */
typedef struct ActiveRows {
  size_t *row;
  double *residual, *force;
  size_t n;
  double diagonal_sum;     /* the sum of the rows' W_ii */
} ActiveRows;

static void
add_active (ActiveRows *active, size_t row, double residual, double force, double diagonal)
{
  active->row[active->n] = row;
  active->residual[active->n] = residual;
  active->force[active->n] = force;
  active->n++;
  active->diagonal_sum += diagonal;
}

/* The active rows of the island's blocks in their states, and of its loose rows (bilateral
 * rows, normal rows with force), each block's normal row first and its tangent rows after.
 * Returns the sum of their W_ii (a block's from its own W, which holds them). */
static double
collect_active (BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0, size_t l1,
                const guint8 *state, const double *f, const double *dq)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const guint *il = (const guint *) s->island_loose->data;
  const double *diag = (const double *) s->diagonal->data;
  guint most = island_row_bound (b0, b1, l0, l1);
  g_array_set_size (s->active, most);
  g_array_set_size (s->active_residual, most);
  g_array_set_size (s->active_force, most);
  ActiveRows active = { .row = (size_t *) s->active->data,
                        .residual = (double *) s->active_residual->data,
                        .force = (double *) s->active_force->data };
  for (size_t k = b0; k < b1; k++)
    {
      if (state[k - b0] == BLOCK_FIXED)
        continue;
      const Block *block = &blocks[ib[k]];
      size_t n = (size_t) block->normal;
      double held = MAX (held_opening (p, n), 0);
      add_active (&active, n, row_value (s, p, n, dq) + row_tolerance (p, n) - held, f[n],
                  block->w[0]);
      if (state[k - b0] == BLOCK_STICK)
        for (int a = 0; a < block->n_tangents; a++)
          add_active (&active, (size_t) block->tangent[a],
                      row_value (s, p, block->tangent[a], dq), f[block->tangent[a]],
                      block->w[4 * (a + 1)]);
    }
  for (size_t k = l0; k < l1; k++)
    {
      size_t i = (size_t) loose[il[k]];
      if (p->rows[i].kind == CWB_ROW_BILATERAL)
        add_active (&active, i, row_value (s, p, i, dq), f[i], diag[i]);
      else if (p->rows[i].kind == CWB_ROW_NORMAL && f[i] > 0)
        add_active (&active, i, row_value (s, p, i, dq) + row_tolerance (p, i), f[i], diag[i]);
    }
  g_array_set_size (s->active, (guint) active.n);
  g_array_set_size (s->active_residual, (guint) active.n);
  g_array_set_size (s->active_force, (guint) active.n);
  return active.diagonal_sum;
}

/* Sets row i from its solved force to its projected one: the solve has moved dq by the
 * solved forces already (DirectProblem.displacement), so only the projection's change is
 * applied. */
static void
set_projected (const BgsSolver *s, const BgsProblem *p, size_t i, double solved,
               double projected, double *f, double *dq)
{
  apply_force (s, p, i, projected - solved, dq);
  f[i] = projected;
}

/* Sets the active rows (in collect_active's order) to the solved forces projected onto the
 * laws, dq having moved with the solved ones: a normal force below zero becomes zero, a
 * tangential force outside the friction set is scaled onto it. The normal forces go first,
 * so that each contact's tangential forces are bounded by its own. It walks the island's
 * blocks as collect_active did rather than looking each row's kind and friction up in the
 * contact model's arrays, whose order is not the sweep's (docs/plugins/constraint.md, "The
 * direct start's passes in sequence"). */
static void
apply_solved (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1,
              const guint8 *state, const double *solved, double *f, double *dq)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const size_t *rows = (const size_t *) s->active->data;
  size_t n_active = s->active->len;
  size_t at = 0;
  for (size_t k = b0; k < b1; k++)
    {
      if (state[k - b0] == BLOCK_FIXED)
        continue;
      const Block *block = &blocks[ib[k]];
      set_projected (s, p, (size_t) block->normal, solved[at], larger (0, solved[at]), f, dq);
      at += active_rows_of (block, state[k - b0]);
    }
  /* The loose rows, after the blocks': bilateral rows and normal rows without tangents. */
  for (size_t k = at; k < n_active; k++)
    set_projected (s, p, rows[k], solved[k],
                   p->rows[rows[k]].kind == CWB_ROW_NORMAL ? larger (0, solved[k]) : solved[k],
                   f, dq);
  at = 0;
  for (size_t k = b0; k < b1; k++)
    {
      const Block *block = &blocks[ib[k]];
      size_t n_rows = active_rows_of (block, state[k - b0]);
      if (n_rows > 1)
        {
          double ft[2] = { solved[at + 1], n_rows > 2 ? solved[at + 2] : 0 };
          double radius = block->mu * f[block->normal];
          double gauge = cwb_friction_gauge (p->friction_law, ft);
          double scale = gauge > radius ? (gauge > 0 ? radius / gauge : 0) : 1;
          for (size_t a = 0; a + 1 < n_rows; a++)
            set_projected (s, p, (size_t) block->tangent[a], ft[a], scale * ft[a], f, dq);
        }
      at += n_rows;
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

/* The force below which a contact of the island is slightly loaded: SLIGHT_SHARE of the mean
 * normal force of its contacts with force (f), 0 where none has force. */
static double
slight_load (const BgsSolver *s, size_t b0, size_t b1, const double *f)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  double sum = 0;
  size_t loaded = 0;
  for (size_t k = b0; k < b1; k++)
    if (f[blocks[ib[k]].normal] > 0)
      {
        sum += f[blocks[ib[k]].normal];
        loaded++;
      }
  return loaded > 0 ? SLIGHT_SHARE * sum / (double) loaded : 0;
}

/* Corrects the active set by what the last direct solve asked of it (`solved`, in the order
 * collect_active gave the rows): a contact whose normal force came out negative leaves it
 * (it opens), one that sticks with its tangential force outside the friction set slides,
 * and one on its normal row alone whose normal force exceeds `stick_above` sticks (INFINITY:
 * none does; after the cold start's frictionless pass, a slight force: stick_loaded).
 * Returns whether a contact changed its part. */
static gboolean
correct_states (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, guint8 *state,
                const double *solved, double stick_above)
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
      at += active_rows_of (block, *part);
      if (f_n < 0)
        *part = BLOCK_FIXED;
      else if (*part == BLOCK_STICK && cwb_friction_gauge (p->friction_law, ft) > block->mu * f_n)
        *part = BLOCK_NORMAL;
      else if (*part == BLOCK_NORMAL && f_n > stick_above && block->n_tangents > 0)
        *part = BLOCK_STICK;
      else
        continue;
      changed = TRUE;
    }
  return changed;
}

/* After the cold start's frictionless pass: every contact it loaded by more than a slight
 * force (SLIGHT_SHARE of the mean) sticks, one it pulled leaves the set, and one it left
 * (nearly) unloaded keeps its normal row alone. Friction then holds only what the normal
 * forces leave unbalanced: guessing at once that every touching contact sticks let the
 * least-change solve put friction between the side faces of a pyramid's rows, which then
 * carried 3.4e6 N of the 40-row pyramid's 8.0e6 N weight against each other, 1 600 contacts
 * at the edge of their friction set (docs/plugins/constraint.md, "A cold start"). */
static void
stick_loaded (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, guint8 *state,
              const double *solved, const double *f)
{
  /* f holds the solved normal forces projected (apply_solved): their positive ones, and
   * none on the contacts out of the set, which a cold island gave none. */
  correct_states (s, p, b0, b1, state, solved, slight_load (s, b0, b1, f));
}

/* The tangent rows of the island's blocks in the set: those they bring when they stick. */
static size_t
tangent_rows (const BgsSolver *s, size_t b0, size_t b1, const guint8 *state)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  size_t n = 0;
  for (size_t k = b0; k < b1; k++)
    if (state[k - b0] != BLOCK_FIXED)
      n += (size_t) blocks[ib[k]].n_tangents;
  return n;
}

/* Each contact's part in the direct start of a warm island (from the forces it starts with
 * and the rows' values they give, `values`): contacts with force, but for those slightly
 * loaded whose law holds (SLIGHT_SHARE), sticking where their tangential force is inside
 * the friction set, and where it is near the set's edge (EDGE_SHARE) in the part it had in the last
 * direct solve, if that was on blocks of the same structure. A speculative row
 * (BgsProblem.speculative: max (rate, gap), a contact open at the start of the step) is not
 * a linear row: held at its rate when open by at most the tolerance beyond it
 * (held_opening), else it keeps its force. */
static void
warm_states (const BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, const double *f,
             const double *values, guint8 *state)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const guint8 *known_part = s->solved_part_structure == s->structure_id
                               ? (const guint8 *) s->solved_part->data : NULL;
  double slight = slight_load (s, b0, b1, f);
  for (size_t k = b0; k < b1; k++)
    {
      const Block *block = &blocks[ib[k]];
      size_t n = (size_t) block->normal;
      double ft[2] = { 0, 0 };
      for (int a = 0; a < block->n_tangents; a++)
        ft[a] = f[block->tangent[a]];
      gboolean slightly_loaded = !(f[n] > slight)
                                 && values[n] + row_tolerance (p, n) >= -p->tolerance;
      if (!(f[n] > 0) || slightly_loaded || held_opening (p, n) < 0)
        state[k - b0] = BLOCK_FIXED;
      else if (block->n_tangents == 0 || !p->friction)
        state[k - b0] = BLOCK_NORMAL;
      else
        {
          double gauge = cwb_friction_gauge (p->friction_law, ft);
          if (known_part != NULL && gauge >= EDGE_SHARE * block->mu * f[n]
              && known_part[ib[k]] != BLOCK_FIXED)
            state[k - b0] = known_part[ib[k]];
          else
            state[k - b0] = gauge < STICK_SHARE * block->mu * f[n] ? BLOCK_STICK : BLOCK_NORMAL;
        }
    }
}

/* Keeps each block's part in the direct solve just made, for the next warm start on blocks of
 * the same structure (warm_states). */
static void
keep_parts (BgsSolver *s, size_t b0, size_t b1, const guint8 *state)
{
  /* The blocks are rebuilt only with the operator, and the same in number where it keeps
   * the structure. */
  if (s->solved_part_structure != s->structure_id)
    {
      g_array_set_size (s->solved_part, s->blocks->len);
      memset (s->solved_part->data, BLOCK_FIXED, s->blocks->len);
      s->solved_part_structure = s->structure_id;
    }
  const guint *ib = (const guint *) s->island_blocks->data;
  guint8 *part = (guint8 *) s->solved_part->data;
  for (size_t k = b0; k < b1; k++)
    part[ib[k]] = state[k - b0];
}

/* Whether no contact of the island carries force on entry (its first step, a new island, or
 * warm_start 0), and if so each contact's part in its direct start's first, frictionless
 * pass: every contact touching or closing (its normal row's value within the tolerance)
 * with its normal row. */
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
      state[k - b0] = row_value (s, p, n, dq) + row_tolerance (p, n) > p->tolerance
                        ? BLOCK_FIXED : BLOCK_NORMAL;
    }
  return TRUE;
}

/* The island's rows (its blocks' and loose rows) into s->island_rows: K's pattern in the
 * direct solve, and the rows whose forces on entry a cold start keeps (keep_entry). */
static void
collect_island_rows (BgsSolver *s, size_t b0, size_t b1, size_t l0, size_t l1)
{
  const Block *blocks = (const Block *) s->blocks->data;
  const guint *ib = (const guint *) s->island_blocks->data;
  const int *loose = (const int *) s->loose_rows->data;
  const guint *il = (const guint *) s->island_loose->data;
  g_array_set_size (s->island_rows, island_row_bound (b0, b1, l0, l1));
  size_t *rows = (size_t *) s->island_rows->data;
  size_t n = 0;
  for (size_t k = b0; k < b1; k++)
    {
      const Block *block = &blocks[ib[k]];
      rows[n++] = (size_t) block->normal;
      for (int a = 0; a < block->n_tangents; a++)
        rows[n++] = (size_t) block->tangent[a];
    }
  for (size_t k = l0; k < l1; k++)
    rows[n++] = (size_t) loose[il[k]];
  g_array_set_size (s->island_rows, (guint) n);
}

/* Keeps the forces of the island's rows on entry, to go back to them (restore_entry). */
static void
keep_entry (BgsSolver *s, const double *f)
{
  g_array_set_size (s->entry_force, 0);
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
 * those forces (warm_states), one solve. A cold one solves its touching contacts without
 * friction first (cold_states), then guesses that those it loaded stick (stick_loaded) and
 * corrects the guess by what each solve asked of it (correct_states), solving again from
 * the projected forces, the sliding contacts' held tangential forces brought into their
 * cones (project_sliding), and once more when the set holds; at most COLD_START_PASSES
 * solves (a primal active-set method). It is kept where the set settled and the island is
 * nearer the laws than with no force, else the island goes back to its forces on entry.
 * Gauss-Seidel from zero force took the flush 20-row pyramid's first 21 steps to their
 * 200-sweep cap, each leaving what the next had to finish; from the cold start its first
 * step takes 4 sweeps (docs/plugins/constraint.md, "A cold start"). The island keeps the
 * forces it has when the set is too small or a solve fails. */
gboolean
bgs_start_direct (BgsSolver *s, const BgsProblem *p, size_t b0, size_t b1, size_t l0, size_t l1,
                  const double *known, double *f, double *dq, double *values)
{
  g_array_set_size (s->block_state, (guint) MAX (b1 - b0, 1));
  guint8 *state = (guint8 *) s->block_state->data;
  int passes = 1;
  gboolean cold = cold_states (s, p, b0, b1, f, dq, state);
  double entry_law = 0;
  gboolean settled = FALSE;
  if (cold)
    {
      passes = COLD_START_PASSES;
      collect_island_rows (s, b0, b1, l0, l1);
      keep_entry (s, f);
      entry_law = bgs_island_law_error (s, p, b0, b1, l0, l1, f, dq, known, NULL);
    }
  else
    {
      /* A warm start that already holds the laws well within the tolerance needs no direct
       * solve: the sweeps confirm it in one. */
      if (bgs_island_law_error (s, p, b0, b1, l0, l1, f, dq, known, values)
          <= DIRECT_SKIP_SHARE * p->tolerance)
        return TRUE;
      warm_states (s, p, b0, b1, f, values, state);
      collect_island_rows (s, b0, b1, l0, l1);
    }
  for (int pass = 0; pass < passes; pass++)
    {
      double diagonal_sum = collect_active (s, p, b0, b1, l0, l1, state, f, dq);
      gboolean frictionless_pass = cold && pass == 0 && p->friction;
      if (s->active->len + (frictionless_pass ? tangent_rows (s, b0, b1, state) : 0)
          < BGS_DIRECT_MIN_ROWS)
        break;
      size_t n_active = s->active->len;
      const size_t *rows = (const size_t *) s->active->data;
      double mean_w = diagonal_sum / (double) n_active;
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
        .operator_id = s->operator_id,
        .n_pattern_rows = s->island_rows->len,
        .pattern_rows = (const size_t *) s->island_rows->data,
        .displacement = dq,
      };
      g_array_set_size (s->direct_force, (guint) n_active);
      double *solved = (double *) s->direct_force->data;
      if (!island_direct_solve (s->direct, &direct, solved))
        break;
      apply_solved (s, p, b0, b1, state, solved, f, dq);
      keep_parts (s, b0, b1, state);
      if (!cold)
        return FALSE;
      project_sliding (s, p, b0, b1, state, f, dq);
      if (frictionless_pass)
        {
          stick_loaded (s, p, b0, b1, state, solved, f);
          continue;
        }
      if (correct_states (s, p, b0, b1, state, solved, INFINITY))
        {
          settled = FALSE;
          continue;
        }
      /* The set holds: solved once more on it, the sliding contacts' forces (held while the
       * last solve ran, then projected) are those of the normal forces it found. */
      if (!settled && pass + 1 < passes)
        {
          settled = TRUE;
          continue;
        }
      /* A cold start is kept only where it is nearer the laws than no force at all. */
      if (!(bgs_island_law_error (s, p, b0, b1, l0, l1, f, dq, NULL, NULL) < entry_law))
        restore_entry (s, p, f, dq);
      return FALSE;
    }
  /* A cold guess that the passes did not settle (or that shrank below the direct solve's
   * size) is no start (a box pyramid swapped from proximity into ldi, its cells' set still
   * shrinking after eight, came apart from it). */
  if (cold)
    {
      restore_entry (s, p, f, dq);
      return FALSE;
    }
  /* A warm island too small for the solve, or whose solve failed: as it came, its values
   * kept. */
  return TRUE;
}

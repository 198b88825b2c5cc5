/* The constraint solver: one time step as free motion, detection, a contact MLCP solved with
 * projected block Gauss-Seidel and Coulomb friction (the cone, or Allard 2010 eq. 9-10's
 * pyramid), corrective motion, and Allard 2010's post-stabilization loop (one pass by
 * default).
 *
 *   1. free motion (Saupin 2008 eq. 11-12): every body advances without contact to
 *      (q_free, v_free), through its own body model (linearised backward Euler for
 *      deformables, semi-implicit for rigid bodies);
 *   2. detection at q_free: the contact model's rows, with H = dg/dq chained through the
 *      mappings by the host (Saupin eq. 16-18);
 *   3. the MLCP of Saupin eq. 19, delta = H C H^T f + delta_free, with Signorini on the normal
 *      rows (delta_free = g(q_free)) and Coulomb on the tangent rows (delta_free = h H_t
 *      v_free, the tangential displacement over the step, so "stick" means no relative
 *      tangential velocity at the end of the step); with normal_constraint: velocity the
 *      normal rows are rates too (delta_free = h H_n v_free, Allard 2010 eq. 17: no contact
 *      deepens, and the penetration found at q_free is left to step 5); then the post-solve
 *      check of the laws on the result (bgs_check), logged under G_MESSAGES_DEBUG=constraint;
 *   4. corrective motion (Saupin eq. 14): dq = C (H^T f + J^T f_penalty), q = q_free (+) dq,
 *      v = v_free + dq / h;
 *   5. post-stabilization (Allard 2010 Algorithm 1, lines 4-9; eq. 18-19): while a normal
 *      row at the new configuration is violated beyond stabilization_tolerance, solve a
 *      frictionless position MLCP and move the positions only (velocities untouched, so no
 *      energy enters); the first check goes through the velocity pass's rows instead of a
 *      detection where the model states its reach and the correction is small
 *      (linear_check.h); a pass that leaves the rows more violated than it found them at
 *      the step's end is undone (rows that cannot all hold).
 *
 * Penalty point forces that the contact model returns with its rows are applied in step 4
 * through the same compliance, evaluated at the free configuration.
 *
 * The MLCP of step 3 is split into contact islands (contact_islands.h), each swept until it
 * reaches the tolerance, and starts from the forces the same contacts had in the last
 * step's velocity pass (warm_start.h); its operator is kept from step to step while the
 * contact set keeps its shape and the bodies barely move (operator_reuse.h). With `sleep`,
 * islands that stayed still fall asleep and skip stages 1, 3 and 4 until a wake rule wakes
 * them (sleep.h). */
#include <cwb/cwb.h>

#include "block_gauss_seidel.h"
#include "compliance_cache.h"
#include "contact_islands.h"
#include "linear_check.h"
#include "operator_reuse.h"
#include "sleep.h"
#include "warm_start.h"

/* The automatic stabilization_tolerance over the solver's tolerance. The velocity pass leaves
 * penetrations of the order of its stopping error: 3 to 12 times the tolerance on the flush
 * 10- and 20-row pyramids (docs/plugins/constraint.md); post-stabilization is for what it did
 * not cause (contacts found overlapping, deep impacts), so it starts above that. */
#define STABILIZATION_TOLERANCE_RATIO 100

/* A normal rate row open at the free configuration by at most this share of the tolerance
 * counts as touching: a pure rate, not the speculative max (rate, gap), which differs from
 * it by less than that. A settled stack's contacts wander open and shut by a share of the
 * tolerance from step to step, and a speculative row under force is left out of the direct
 * start (direct_start.c): on the flush 20-row pyramid those held up to 45 % of the load,
 * and its direct steps ended too far from the laws for the next step to skip. At the whole
 * tolerance nothing pinned a tall pyramid's base, which rocked out of its plane
 * (docs/plugins/constraint.md, "The touching gap"). */
#define TOUCHING_SHARE_OF_TOLERANCE 0.1
/* The automatic tolerance: this part of g h^2, what gravity moves a free body in one step
 * (9.8e-8 m at dt 0.01). A law error e left in a step is a velocity error e / h: 1e-4 g h
 * (1e-5 m/s at dt 0.01), which a resting stack does not turn into creep it can measure
 * (docs/plugins/constraint.md). Without gravity, this part of the moving bodies' median
 * size (their largest extent): the same 1e-7 m for metre bodies. */
#define TOLERANCE_OF_G_H2 1e-4
#define TOLERANCE_OF_SIZE 1e-7
/* The velocity pass's operator is kept while no point moves by more than the smaller of these
 * (operator_reuse.h): over the bodies' size, the relative change of the operator, and over
 * the tolerance, so that a solve asked for a tighter tolerance keeps it for less. At the
 * automatic tolerance (1e-4 g h^2) on metre bodies both give about 1e-7 m, and the error on a
 * resting body's correction (g h^2) is 1e-7 g h^2, a thousandth of the tolerance. Ten times
 * that (1e-6 of the size, 10 x tolerance) kept it longer but let the flush 20-row pyramid
 * under a gravity changed by 3e-5 of itself end 10 steps in a row at the cap, which the
 * operator built every step never did (docs/plugins/constraint.md). */
#define OPERATOR_MOTION_OF_SIZE 1e-7
#define OPERATOR_MOTION_OF_TOLERANCE 1
/* The sweeps a velocity pass on the kept operator may take before the operator is built again
 * and the step solved with it (velocity_pass): a settled stack's kept steps take 1 to 5. */
#define KEPT_OPERATOR_SWEEPS 16

typedef struct ConstraintSolver {
  int iterations;
  double tolerance;           /* as set: 0 is automatic */
  double step_tolerance;      /* the one this step's solves stop at (m) */
  CwbCompliance compliance;
  int stabilization_iterations;     /* as set: < 0 is automatic */
  int step_stabilization;           /* the passes this step may make */
  double stabilization_tolerance;   /* the penetration post-stabilization leaves (m) */
  CwbFrictionLaw friction;
  gboolean velocity_level;  /* normal rows as rates in the velocity pass (Allard 2010 eq. 17) */
  double warm_start_factor; /* the share of the kept forces the velocity pass starts from */
  gboolean order_by_gravity;  /* sweep each island's contacts from the top down */
  gboolean direct_start;      /* start large islands from a direct solve (island_direct.h) */
  gboolean keep_operator;     /* reuse the velocity pass's operator (operator_reuse.h) */
  SleepParams sleep_params;
  Sleep *sleep;
  GArray *frame_asleep;       /* gboolean per frame of the set being solved */
  BgsSolver *bgs;
  ComplianceCache *compliance_cache;   /* C of the velocity pass: at q_free, or where its
                                        * kept operator was built */
  ComplianceCache *position_compliance;   /* C of the position pass under way */
  ContactIslands islands;
  /* The position passes' own solver and islands, so that the velocity pass's operator
   * survives them from step to step. */
  BgsSolver *bgs_position;
  ContactIslands position_islands;
  OperatorReuse operator_reuse;
  WarmStart *warm_start;
  WarmStart *warm_position;   /* the last position pass's corrections, for the next one */
  /* The state the last step left, to tell a state replaced from outside the step (a
   * history restore, an edit) from one this solver advanced. */
  GArray *q_left, *v_left;
  double time_left;
  /* scratch, grown as needed, so a step allocates nothing once sizes settle */
  GArray *q_free, *v_free, *dq, *r, *f, *delta_free, *body_dq, *q_stabilized;
  GArray *speculative;     /* guint8 per row of the solve under way (BgsProblem.speculative) */
  GArray *speculative_rate; /* double per row: BgsProblem.speculative_rate */
  CwbContactSet snapshot;   /* the velocity pass's set, kept across stabilization */
  LinearCheck linear_check; /* the free configuration, for a check without a detection */
} ConstraintSolver;

static const CwbParamSpec constraint_params[] = {
  { "iterations", CWB_PARAM_INT, "1", "200", 1, 100000, NULL,
    "Maximum block Gauss-Seidel sweeps per solve" },
  { "tolerance", CWB_PARAM_DOUBLE, "m", "0", 0, 1, NULL,
    "Largest violation of the contact laws a solve may leave, as a displacement over the "
    "step: Signorini's gap under force or penetration, friction's slip where a contact "
    "should stick or slide against its force; 0: automatic, 1e-4 g h^2 (1e-7 of the moving "
    "bodies' size without gravity)" },
  { "compliance", CWB_PARAM_ENUM, "", "exact", 1, 0, "exact|warped",
    "Body compliance used for W = H C H^T: exact (Saupin 2008 eq. 21) or warped R C0 R^T "
    "(eq. 23); rigid bodies have one compliance" },
  { "stabilization_iterations", CWB_PARAM_INT, "1", "-1", -1, 100, NULL,
    "Post-stabilization passes per step at most (Allard 2010 Algorithm 1, lines 4-9): "
    "re-detect at the new positions and correct positions while a contact is violated; 0 "
    "turns it off; -1: automatic, as many as the contact model's rows need (1 for points, "
    "10 for ldi's volumes)" },
  { "stabilization_tolerance", CWB_PARAM_DOUBLE, "m", "0", 0, 1, NULL,
    "Penetration post-stabilization leaves: a pass runs when a contact is violated by more; "
    "0: automatic, 100 x tolerance (above what the velocity passes' own stopping error "
    "leaves over a few steps)" },
  { "friction", CWB_PARAM_ENUM, "", "cone", 1, 0, "pyramid|cone",
    "Friction set: cone |f_t| <= mu f_n solved exactly per contact (Duriez et al. 2006), or "
    "the four-sided pyramid |f_t1| + |f_t2| <= mu f_n of Allard 2010 eq. 9-10 solved row by "
    "row (equal to the cone along t1 and t2, 1/sqrt 2 of it between them)" },
  { "normal_constraint", CWB_PARAM_ENUM, "", "velocity", 1, 0, "position|velocity",
    "What the velocity pass holds on a contact: position, its gap at the end of the step "
    "(Saupin 2008 eq. 19: a penetration is undone by the velocity it takes), or velocity, "
    "its rate (Allard 2010 eq. 16-17, the default: a contact may not deepen; penetration is "
    "undone by post-stabilization, which moves positions without adding velocity, so keep "
    "stabilization_iterations at -1 or above 0)" },
  { "warm_start", CWB_PARAM_DOUBLE, "1", "1", 0, 1, NULL,
    "Share of the last step's force a contact that keeps its identity starts the solve from "
    "(0: every solve starts from zero force)" },
  { "order", CWB_PARAM_ENUM, "", "top_down", 1, 0, "top_down|model",
    "Order of the contacts in a sweep: top_down, from the highest along gravity to the "
    "lowest (a load change travels down a stack in one sweep), or model, the order the "
    "contact model gave" },
  { "direct_start", CWB_PARAM_BOOL, "", "true", 0, 1, NULL,
    "Start each island of rigid bodies with enough contacts under force from a sparse direct "
    "solve of the contacts that held it in the last step, then sweep: a stack's forces to "
    "the tolerance in a few sweeps where the sweeps alone would take hundreds; false: "
    "sweeps only" },
  { "keep_operator", CWB_PARAM_BOOL, "", "true", 0, 1, NULL,
    "Keep the velocity pass's operator (H and W's blocks) from step to step "
    "while the contact set keeps its contacts and no point moves by more than the smaller "
    "of 1e-7 of the moving bodies' median size and the tolerance; false: build it every "
    "step" },
  { "sleep", CWB_PARAM_BOOL, "", "false", 0, 1, NULL,
    "Let islands of bodies that stayed slower than sleep_speed for sleep_time sleep (no "
    "free motion, no solve, velocity zero) until a contact with an awake body, a drag, a "
    "parameter change or a replaced state wakes them" },
  { "sleep_speed", CWB_PARAM_DOUBLE, "m/s", "0", 0, 100, NULL,
    "Speed (largest of a body's points) below which a body counts as still; 0: automatic, "
    "min (0.01 g h, 1e-3 size / sleep_time) per body" },
  { "sleep_time", CWB_PARAM_DOUBLE, "s", "0.5", 0, 1000, NULL,
    "How long every body of an island must stay still before the island sleeps" },
};

static void
read_params (ConstraintSolver *self, const CwbParamSet *params)
{
  self->iterations = (int) cwb_param_int (params, "iterations", 200);
  self->tolerance = cwb_param_double (params, "tolerance", 0);
  self->compliance = cwb_param_int (params, "compliance", 0) == 1 ? CWB_COMPLIANCE_WARPED
                                                                 : CWB_COMPLIANCE_EXACT;
  self->stabilization_iterations = (int) cwb_param_int (params, "stabilization_iterations", -1);
  self->stabilization_tolerance = cwb_param_double (params, "stabilization_tolerance", 0);
  self->friction = g_strcmp0 (cwb_param_string (params, "friction", "cone"), "pyramid") == 0
                     ? CWB_FRICTION_PYRAMID : CWB_FRICTION_CONE;
  self->velocity_level = g_strcmp0 (cwb_param_string (params, "normal_constraint", "velocity"),
                                    "velocity") == 0;
  self->warm_start_factor = cwb_param_double (params, "warm_start", 1);
  self->order_by_gravity = g_strcmp0 (cwb_param_string (params, "order", "top_down"),
                                      "top_down") == 0;
  self->direct_start = cwb_param_bool (params, "direct_start", TRUE);
  self->keep_operator = cwb_param_bool (params, "keep_operator", TRUE);
  self->sleep_params.enabled = cwb_param_bool (params, "sleep", FALSE);
  self->sleep_params.speed = cwb_param_double (params, "sleep_speed", 0);
  self->sleep_params.time = cwb_param_double (params, "sleep_time", 0.5);
}

static GArray *
new_doubles (void)
{
  return g_array_new (FALSE, TRUE, sizeof (double));
}

static void
init_set (CwbContactSet *set)
{
  memset (set, 0, sizeof *set);
  set->struct_size = sizeof *set;
  set->frames = g_array_new (FALSE, FALSE, sizeof (CwbContactFrame));
  set->rows = g_array_new (FALSE, FALSE, sizeof (CwbConstraintRow));
  set->weights = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  set->forces = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  set->stiffness = g_array_new (FALSE, FALSE, sizeof (CwbPointStiffness));
  set->contact_ids = g_array_new (FALSE, FALSE, sizeof (guint64));
}

static void *
constraint_create (const CwbSolverCreateInfo *info, const CwbHostServices *host, GError **error)
{
  ConstraintSolver *self = g_new0 (ConstraintSolver, 1);
  read_params (self, info->params);
  self->bgs = bgs_solver_new ();
  self->bgs_position = bgs_solver_new ();
  contact_islands_init (&self->position_islands);
  operator_reuse_init (&self->operator_reuse);
  self->compliance_cache = compliance_cache_new ();
  self->position_compliance = compliance_cache_new ();
  self->q_free = new_doubles ();
  self->v_free = new_doubles ();
  self->dq = new_doubles ();
  self->r = new_doubles ();
  self->f = new_doubles ();
  self->delta_free = new_doubles ();
  self->speculative = g_array_new (FALSE, FALSE, sizeof (guint8));
  self->speculative_rate = g_array_new (FALSE, FALSE, sizeof (double));
  self->body_dq = new_doubles ();
  self->q_stabilized = new_doubles ();
  init_set (&self->snapshot);
  linear_check_init (&self->linear_check);
  contact_islands_init (&self->islands);
  self->warm_start = warm_start_new ();
  self->warm_position = warm_start_new ();
  self->sleep = sleep_new ();
  self->frame_asleep = g_array_new (FALSE, FALSE, sizeof (gboolean));
  self->q_left = new_doubles ();
  self->v_left = new_doubles ();
  self->time_left = NAN;
  return self;
}

static void
constraint_destroy (void *data)
{
  ConstraintSolver *self = data;
  bgs_solver_free (self->bgs);
  bgs_solver_free (self->bgs_position);
  contact_islands_clear (&self->position_islands);
  operator_reuse_clear (&self->operator_reuse);
  compliance_cache_free (self->compliance_cache);
  compliance_cache_free (self->position_compliance);
  g_array_unref (self->q_free);
  g_array_unref (self->v_free);
  g_array_unref (self->dq);
  g_array_unref (self->r);
  g_array_unref (self->f);
  g_array_unref (self->delta_free);
  g_array_unref (self->speculative);
  g_array_unref (self->speculative_rate);
  g_array_unref (self->body_dq);
  g_array_unref (self->q_stabilized);
  g_array_unref (self->snapshot.frames);
  g_array_unref (self->snapshot.rows);
  g_array_unref (self->snapshot.weights);
  g_array_unref (self->snapshot.forces);
  g_array_unref (self->snapshot.stiffness);
  g_array_unref (self->snapshot.contact_ids);
  linear_check_clear (&self->linear_check);
  contact_islands_clear (&self->islands);
  warm_start_free (self->warm_start);
  warm_start_free (self->warm_position);
  sleep_free (self->sleep);
  g_array_unref (self->frame_asleep);
  g_array_unref (self->q_left);
  g_array_unref (self->v_left);
  g_free (self);
}

static void
constraint_params_changed (void *data, const CwbParamSet *params)
{
  ConstraintSolver *self = data;
  read_params (self, params);
  operator_reuse_forget (&self->operator_reuse);
  /* Any change of the solver's parameters wakes every sleeping body (sleep.h). */
  sleep_wake_all (self->sleep);
}

/* A zeroed scratch array of n doubles. */
static double *
zeroed (GArray *a, size_t n)
{
  g_array_set_size (a, MAX (n, 1));
  memset (a->data, 0, a->len * sizeof (double));
  return (double *) a->data;
}

/* ---- compliance ---------------------------------------------------------------------- */

/* C r for the solve under way (compliance_cache_begin chose the configuration). */
static void
compliance_at (void *data, uint32_t body, const double *r, double *dq)
{
  compliance_cache_apply (data, body, r, dq);
}

/* C's diagonal of a body whose model declares it diagonal, else NULL. */
static const double *
diagonal_at (void *data, uint32_t body)
{
  return compliance_cache_diagonal (data, body);
}

/* C^-1 of a body for the direct start of the sweeps (island_direct.h). */
static const double *
stiffness_at (void *data, uint32_t body)
{
  return compliance_cache_stiffness (data, body);
}

/* ---- stages -------------------------------------------------------------------------- */

/* Every awake body's free motion; a sleeping body stays where it is, at rest. */
static void
free_motion (ConstraintSolver *self, CwbStepContext *ctx, double *q_free, double *v_free)
{
  const gboolean *asleep = sleep_asleep (self->sleep);
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *s = &ctx->bodies[b];
      if (asleep != NULL && asleep[b])
        {
          memcpy (q_free + s->q_offset, ctx->q + s->q_offset, s->nq * sizeof (double));
          memcpy (v_free + s->v_offset, ctx->v + s->v_offset, s->nv * sizeof (double));
          continue;
        }
      ctx->free_motion (ctx, b, ctx->q + s->q_offset, ctx->v + s->v_offset, NULL, NULL,
                        q_free + s->q_offset, v_free + s->v_offset);
    }
}

/* dq += C J^T f for the set's penalty point forces (Saupin eq. 14 with r = J^T f). */
static void
penalty_displacement (ConstraintSolver *self, CwbStepContext *ctx, const CwbContactSet *set,
                      double *dq)
{
  if (set->forces->len == 0)
    return;
  double *r = zeroed (self->r, ctx->nv);
  ctx->point_forces_to_dofs (ctx, r);
  const gboolean *asleep = sleep_asleep (self->sleep);
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *s = &ctx->bodies[b];
      if (s->fixed || (asleep != NULL && asleep[b]))
        continue;
      double *body_dq = zeroed (self->body_dq, s->nv);
      compliance_cache_apply (self->compliance_cache, b, r + s->v_offset, body_dq);
      for (size_t d = 0; d < s->nv; d++)
        dq[s->v_offset + d] += body_dq[d];
    }
}

/* The post-solve check (bgs_check) of the velocity pass, for G_MESSAGES_DEBUG=constraint: how
 * far the result is from Signorini's and Coulomb's laws. It costs one sweep, so it only runs
 * when the message would be shown. */
static void
log_check (ConstraintSolver *self, const BgsProblem *problem, const double *f, const double *dq,
           const BgsResult *result)
{
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    return;
  BgsCheck check;
  bgs_check (self->bgs, problem, f, dq, &check);
  g_debug ("post-solve check, %zu contacts (%s, %d sweeps, residual %.3g m): penetration "
           "%.3g m, gap under force %.3g m, friction outside its set %.3g N, slip error %.3g m",
           check.contacts, self->friction == CWB_FRICTION_PYRAMID ? "pyramid" : "cone",
           result->iterations, result->residual, check.penetration, check.complementarity,
           check.friction_excess, check.slip_error);
}

/* Per frame of `set`, whether it rests on sleeping bodies only (left out of the solves);
 * NULL when no body sleeps. */
static const gboolean *
frames_asleep (ConstraintSolver *self, const CwbContactSet *set)
{
  if (sleep_asleep (self->sleep) == NULL)
    return NULL;
  g_array_set_size (self->frame_asleep, MAX (set->frames->len, 1));
  gboolean *asleep = (gboolean *) self->frame_asleep->data;
  for (guint k = 0; k < set->frames->len; k++)
    asleep[k] = sleep_frame_asleep (self->sleep,
                                    &g_array_index (set->frames, CwbContactFrame, k));
  return asleep;
}

/* The penetration post-stabilization leaves (m): as set, or STABILIZATION_TOLERANCE_RATIO
 * times this step's tolerance. */
static double
stabilization_accepted (const ConstraintSolver *self)
{
  return self->stabilization_tolerance > 0 ? self->stabilization_tolerance
                                           : STABILIZATION_TOLERANCE_RATIO * self->step_tolerance;
}

static double median_moving_size (CwbStepContext *ctx);

/* The MLCP of one detected set: fills dq with C H^T f (added to what dq holds) and writes
 * the multipliers into the set's rows. With v (the velocity pass) the tangent rows get
 * delta_free = h H_t v, the tangential displacement of the step, friction applies and the
 * solve is the one reported; without v (a position pass) they carry no force. The solve
 * starts from the forces `cache` kept for the same contacts and leaves its own there; NULL
 * starts from zero. `skipped` is the set's frames_asleep, its frames left out. With `kept`
 * (the velocity pass only) it solves on the operator kept (operator_reuse.h). Returns
 * whether every island reached the tolerance. */
static gboolean
solve_contacts (ConstraintSolver *self, CwbStepContext *ctx, CwbContactSet *set,
                const gboolean *skipped, const double *v, WarmStart *cache, gboolean kept,
                gboolean structure_kept, double *dq)
{
  size_t m = set->rows->len;
  if (m == 0)
    return TRUE;
  /* The velocity pass keeps its operator from step to step where it still serves
   * (operator_reuse.h); the position passes build their own each time, apart. */
  gboolean velocity_pass = v != NULL;
  BgsSolver *bgs = velocity_pass ? self->bgs : self->bgs_position;
  ContactIslands *islands = velocity_pass ? &self->islands : &self->position_islands;
  ComplianceCache *compliance = velocity_pass ? self->compliance_cache
                                              : self->position_compliance;
  const CwbDofRows *h = kept ? operator_reuse_h (&self->operator_reuse) : ctx->dof_rows (ctx);
  CwbConstraintRow *rows = (CwbConstraintRow *) set->rows->data;
  double *delta_free = zeroed (self->delta_free, m);
  g_array_set_size (self->speculative, (guint) m);
  guint8 *speculative = (guint8 *) self->speculative->data;
  memset (speculative, 0, m);
  double *speculative_rate = zeroed (self->speculative_rate, m);
  gboolean rates = v != NULL && self->velocity_level;
  double accepted = stabilization_accepted (self);
  double touching_gap = TOUCHING_SHARE_OF_TOLERANCE * self->step_tolerance;
  for (size_t i = 0; i < m; i++)
    {
      if (rows[i].kind != CWB_ROW_TANGENT && !(rates && rows[i].kind == CWB_ROW_NORMAL))
        delta_free[i] = rows[i].violation;
      else if (v != NULL)
        {
          double rate = 0;
          for (size_t e = h->row_start[i]; e < h->row_start[i + 1]; e++)
            rate += h->entries[e].value * v[ctx->bodies[h->entries[e].body].v_offset
                                             + h->entries[e].dof];
          delta_free[i] = ctx->h * rate;
          /* A normal rate row may close what was open at the start of the step but no more:
           * max (h H v_end, g_free + H dq) >= 0, so a body approaching from the margin stops
           * at contact rather than at the margin (g_free above the touching gap), and an
           * impact the free motion carried through a surface ends at contact rather than at
           * its start-of-step height, from which it fell again (g_free < 0, but the start's
           * estimate g_free - h H v_free is open by more than the post-stabilization's
           * tolerance). Contacts touching at the start keep the pure rate row (Allard 2010
           * eq. 17), their penetration left to the post-stabilization: a resting stack's
           * rows stay rates (as position rows they took 4 times the sweeps on the 10-row
           * pyramid).
           *
           * A volume row's value is the mean depth V / A, which a cap's depth d makes d / 2
           * while H v is the rate of d itself: its start estimate reads a contact that
           * touched at the start as open by d / 2, and a body that came to rest on it would
           * be stopped again and again at half its sinking speed. So a volume row counts as
           * open at the start only when its contact also just began (no identity kept from
           * the last step, warm_start.h); it then closes V / A in this pass and the
           * post-stabilization the rest (Allard 2010 sec. 4.4's Newton iterations). */
          if (rows[i].kind != CWB_ROW_NORMAL)
            continue;
          const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame,
                                                         rows[i].frame);
          gboolean volume_row = frame->volume > 0 || frame->area > 0;
          gboolean open_at_start
            = rows[i].violation > touching_gap
              || (rows[i].violation - delta_free[i] > accepted
                  && (!volume_row || !warm_start_kept (cache, set, rows[i].frame)));
          speculative_rate[i] = delta_free[i];   /* the pure rate */
          if (open_at_start)
            delta_free[i] = MAX (delta_free[i], rows[i].violation);
          speculative[i] = open_at_start;
        }
    }
  BgsProblem problem = {
    .n_rows = m,
    .rows = rows,
    .n_frames = set->frames->len,
    .frames = (const CwbContactFrame *) set->frames->data,
    .h = h,
    .bodies = ctx->bodies,
    .delta_free = delta_free,
    .rate_normals = rates,
    .speculative = speculative,
    .speculative_rate = speculative_rate,
    .nv = ctx->nv,
    .compliance = compliance_at,
    .compliance_diagonal = diagonal_at,
    .compliance_data = compliance,
    .friction = v != NULL,
    .friction_law = self->friction,
    .max_iterations = kept ? MIN (self->iterations, KEPT_OPERATOR_SWEEPS) : self->iterations,
    .tolerance = self->step_tolerance,
    .skip_frame = skipped,
    /* The velocity pass only: a position pass's guess (the last step's corrections) pulled
     * a third of its contacts on the 40-row pyramid (docs/plugins/constraint.md). */
    .stiffness = self->direct_start && v != NULL ? stiffness_at : NULL,
    .stiffness_data = compliance,
  };
  if (!kept)
    contact_islands_build (islands, ctx->n_bodies, set, h);
  problem.frame_island = (const uint32_t *) islands->frame_island->data;
  problem.n_islands = islands->n_islands;
  problem.operator_kept = kept;
  problem.structure_kept = structure_kept;
  if (self->order_by_gravity)
    cwb_v3_copy (problem.order_direction, ctx->gravity);
  double *f = zeroed (self->f, m);
  /* On the kept operator the last forces serve row by row; otherwise they are found by
   * the contacts' identities and turned into the new frames (warm_start.h). */
  if (cache != NULL && self->warm_start_factor > 0
      && !(kept && bgs_last_forces (bgs, m, self->warm_start_factor, f)))
    warm_start_guess (cache, set, self->friction, self->warm_start_factor, f);
  BgsResult result;
  bgs_solve (bgs, &problem, f, dq, &result);
  if (velocity_pass && !kept)
    operator_reuse_keep (&self->operator_reuse, ctx, set, skipped, h,
                         self->keep_operator
                           ? MIN (OPERATOR_MOTION_OF_TOLERANCE * self->step_tolerance,
                                  OPERATOR_MOTION_OF_SIZE * median_moving_size (ctx))
                           : 0);
  if (cache != NULL)
    warm_start_store (cache, set, f);
  for (size_t i = 0; i < m; i++)
    rows[i].lambda = f[i];
  if (v != NULL)
    {
      size_t n_history;
      const double *history = bgs_residual_history (bgs, &n_history);
      ctx->report_solve (ctx, result.iterations, result.residual, history, n_history);
      if (CWB_STRUCT_HAS (ctx, CwbStepContext, report_solve_limits))
        ctx->report_solve_limits (ctx, self->iterations, self->step_tolerance);
      /* The host judges stick and slip against the set the forces were bounded by. */
      if (CWB_STRUCT_HAS (set, CwbContactSet, friction_law))
        set->friction_law = self->friction;
      log_check (self, &problem, f, dq, &result);
    }
  return result.capped_islands == 0;
}

/* q = q_from (+) dq and, when v_from is given, v = v_from + dq / h (Saupin eq. 14: the
 * displacement C r over the step is a velocity change of C r / h). */
static void
corrective_motion (ConstraintSolver *self, CwbStepContext *ctx, const double *q_from,
                   const double *v_from, double *dq)
{
  const gboolean *asleep = sleep_asleep (self->sleep);
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *s = &ctx->bodies[b];
      double *dv = dq + s->v_offset;
      for (size_t d = 0; d < s->nv; d++)
        dv[d] /= ctx->h;
      if (s->fixed || (asleep != NULL && asleep[b]))
        memcpy (ctx->q + s->q_offset, q_from + s->q_offset, s->nq * sizeof (double));
      else
        ctx->integrate_position (ctx, b, q_from + s->q_offset, dv, ctx->h,
                                 ctx->q + s->q_offset);
      if (v_from != NULL)
        for (size_t d = 0; d < s->nv; d++)
          ctx->v[s->v_offset + d] = v_from[s->v_offset + d] + (s->fixed ? 0 : dv[d]);
    }
}

static void
copy_array (GArray *to, const GArray *from)
{
  g_array_set_size (to, from->len);
  if (from->len > 0)
    memcpy (to->data, from->data, (size_t) from->len * g_array_get_element_size ((GArray *) from));
}

static void
copy_set (CwbContactSet *to, const CwbContactSet *from)
{
  copy_array (to->frames, from->frames);
  copy_array (to->rows, from->rows);
  copy_array (to->weights, from->weights);
  copy_array (to->forces, from->forces);
  copy_array (to->stiffness, from->stiffness);
  if (CWB_STRUCT_HAS (from, CwbContactSet, contact_ids) && from->contact_ids != NULL)
    copy_array (to->contact_ids, from->contact_ids);
  else
    g_array_set_size (to->contact_ids, 0);
  to->intersection_volume = from->intersection_volume;
  to->max_penetration = from->max_penetration;
  if (CWB_STRUCT_HAS (to, CwbContactSet, friction_law)
      && CWB_STRUCT_HAS (from, CwbContactSet, friction_law))
    to->friction_law = from->friction_law;
  if (CWB_STRUCT_HAS (to, CwbContactSet, stabilization_passes)
      && CWB_STRUCT_HAS (from, CwbContactSet, stabilization_passes))
    to->stabilization_passes = from->stabilization_passes;
  if (CWB_STRUCT_HAS (to, CwbContactSet, reach) && CWB_STRUCT_HAS (from, CwbContactSet, reach))
    to->reach = from->reach;
}

/* The largest violation of a normal row beyond its tolerance, 0 when all hold; rows of the
 * frames `asleep` (frames_asleep), which no pass moves, are left out. */
static double
worst_violation (const CwbContactSet *set, const gboolean *asleep)
{
  double worst = 0;
  for (guint i = 0; i < set->rows->len; i++)
    {
      const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, i);
      if (asleep != NULL && row->frame < set->frames->len && asleep[row->frame])
        continue;
      if (row->kind == CWB_ROW_NORMAL)
        worst = MAX (worst, -(row->violation + row->tolerance));
    }
  return worst;
}

/* Allard 2010 Algorithm 1, lines 4-9, with the position MLCP of eq. 18-19. The contact set
 * the step reports (forces, frames) stays the velocity pass's: the stabilization's
 * multipliers are position corrections, not forces. What the last detection measured at the
 * step's final positions (the violation left, the volume, the penetration) goes to the
 * report; when every pass corrected, one more detection measures the result. */
static gboolean
post_stabilize (ConstraintSolver *self, CwbStepContext *ctx, CwbContactSet *velocity_set,
                GError **error)
{
  double accepted = stabilization_accepted (self);
  int passes = 0;
  double violation = NAN, volume = NAN, penetration = NAN;
  /* A check the velocity pass's rows can make needs no detection (linear_check.h). */
  if (linear_check_measure (&self->linear_check, ctx, velocity_set,
                            frames_asleep (self, velocity_set), &violation, &penetration)
      && violation <= accepted)
    {
      if (CWB_STRUCT_HAS (ctx, CwbStepContext, report_stabilization))
        ctx->report_stabilization (ctx, 0, violation, velocity_set->intersection_volume,
                                   penetration);
      return TRUE;
    }
  copy_set (&self->snapshot, velocity_set);
  double first = INFINITY;   /* the violation the step's end was found with */
  for (int k = 0; k <= self->step_stabilization; k++)
    {
      /* Each detection overwrites the world's set (the same one velocity_set points to). */
      CwbContactSet *set = ctx->detect (ctx, ctx->q, ctx->v, CWB_CONTACT_PASS_POSITION, error);
      if (set == NULL)
        return FALSE;
      const gboolean *asleep = frames_asleep (self, set);
      double found = worst_violation (set, asleep);
      /* A pass that leaves the contacts more violated than the step's end found them is
       * undone, and the passes stop: its rows cannot all hold (a box wider than the clamp
       * it is pressed into), and their multipliers, grown against each other, moved it
       * along whatever the rows do not balance (out of the clamp, 0.3 m up in ten steps
       * under the eulerian model: potential energy no force gave). Against the last pass
       * instead, it undid ldi's passes, which wander by a fraction of a pixel's depth once
       * they are below it (2.6e-5 m, then 5.5e-5 m, in ldi-grasp's first step). */
      if (k > 0 && found > first)
        {
          memcpy (ctx->q, self->q_stabilized->data, ctx->nq * sizeof (double));
          if (k == 1)
            warm_start_forget (self->warm_position);
          passes--;
          break;
        }
      if (k == 0)
        first = found;
      violation = found;
      volume = set->intersection_volume;
      penetration = set->max_penetration;
      if (violation <= accepted || k == self->step_stabilization)
        break;
      compliance_cache_begin (self->position_compliance, ctx, ctx->q, self->compliance);
      double *dq = zeroed (self->dq, ctx->nv);
      /* The first pass starts from the first pass of the last step: the correction the
       * velocity pass's slow error asked for then, which it tends to ask for again. A later
       * pass of the same step corrects what is left after that one, so it starts cold. */
      solve_contacts (self, ctx, set, asleep, NULL, k == 0 ? self->warm_position : NULL, FALSE,
                      FALSE, dq);
      double *q = zeroed (self->q_stabilized, ctx->nq);
      memcpy (q, ctx->q, ctx->nq * sizeof (double));
      corrective_motion (self, ctx, q, NULL, dq);
      passes++;
    }
  copy_set (velocity_set, &self->snapshot);
  if (CWB_STRUCT_HAS (ctx, CwbStepContext, report_stabilization))
    ctx->report_stabilization (ctx, passes, violation, volume, penetration);
  return TRUE;
}

/* Whether ctx's state is the one the last step left: FALSE after a restore from the history,
 * an edit or a rebuild, which the solver is not told of otherwise. */
static gboolean
state_continues (const ConstraintSolver *self, const CwbStepContext *ctx)
{
  return self->q_left->len == ctx->nq && self->v_left->len == ctx->nv
         && ctx->time == self->time_left
         && (ctx->nq == 0 || memcmp (self->q_left->data, ctx->q, ctx->nq * sizeof (double)) == 0)
         && (ctx->nv == 0 || memcmp (self->v_left->data, ctx->v, ctx->nv * sizeof (double)) == 0);
}

static void
remember_state (ConstraintSolver *self, const CwbStepContext *ctx)
{
  g_array_set_size (self->q_left, (guint) ctx->nq);
  g_array_set_size (self->v_left, (guint) ctx->nv);
  if (ctx->nq > 0)
    memcpy (self->q_left->data, ctx->q, ctx->nq * sizeof (double));
  if (ctx->nv > 0)
    memcpy (self->v_left->data, ctx->v, ctx->nv * sizeof (double));
  self->time_left = ctx->time + ctx->h;
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The median of the moving bodies' sizes (the largest extent of each geometry's box), from
 * the geometries the host mapped last; 0 when none moves. */
static double
median_moving_size (CwbStepContext *ctx)
{
  size_t n = 0;
  const CwbGeometry *geometries = ctx->geometries (ctx, &n);
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (double));
  for (size_t g = 0; g < n; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      if (geometry->body >= ctx->n_bodies || ctx->bodies[geometry->body].fixed
          || geometry->n_points == 0)
        continue;
      double size = cwb_geometry_size (geometry);
      if (isfinite (size))
        g_array_append_val (sizes, size);
    }
  if (sizes->len == 0)
    return 0;
  g_array_sort (sizes, compare_doubles);
  return g_array_index (sizes, double, sizes->len / 2);
}

/* The tolerance of this step's solves: the parameter, or the automatic one from gravity and
 * the step (the bodies' size without gravity), published for the report and the property
 * editor; likewise the automatic stabilization tolerance. */
static void
resolve_tolerances (ConstraintSolver *self, CwbStepContext *ctx)
{
  self->step_tolerance = self->tolerance;
  if (self->tolerance <= 0)
    {
      double g = cwb_v3_norm (ctx->gravity);
      self->step_tolerance = g > 0 ? TOLERANCE_OF_G_H2 * g * ctx->h * ctx->h
                                   : TOLERANCE_OF_SIZE * median_moving_size (ctx);
      /* No gravity and nothing moving: any positive bound (nothing will be solved). */
      if (!(self->step_tolerance > 0))
        self->step_tolerance = TOLERANCE_OF_SIZE;
    }
  if (!CWB_STRUCT_HAS (ctx, CwbStepContext, report_derived) || ctx->report_derived == NULL)
    return;
  if (self->tolerance <= 0)
    ctx->report_derived (ctx, "tolerance", self->step_tolerance);
  if (self->stabilization_tolerance <= 0 && self->stabilization_iterations != 0)
    ctx->report_derived (ctx, "stabilization_tolerance", stabilization_accepted (self));
}

/* The post-stabilization passes this step may make: the parameter, or what the contact
 * model's rows ask for in `set` (CwbContactSet.stabilization_passes, 1 when it says
 * nothing), published for the report and the property editor. */
static void
resolve_stabilization (ConstraintSolver *self, CwbStepContext *ctx, const CwbContactSet *set)
{
  self->step_stabilization = self->stabilization_iterations;
  if (self->stabilization_iterations >= 0)
    return;
  uint32_t asked = CWB_STRUCT_HAS (set, CwbContactSet, stabilization_passes)
                     ? set->stabilization_passes : 0;
  self->step_stabilization = asked > 0 ? (int) MIN (asked, 100u) : 1;
  if (CWB_STRUCT_HAS (ctx, CwbStepContext, report_derived) && ctx->report_derived != NULL)
    ctx->report_derived (ctx, "stabilization_iterations", self->step_stabilization);
}

/* Step 3: the velocity pass's MLCP at the free configuration, on the operator kept from an
 * earlier step where it still serves (operator_reuse.h) and keeping the compliance it was
 * built with, so that the direct start's C^-1 is the one its columns were made of. A kept
 * operator on which the sweeps do not reach the tolerance within KEPT_OPERATOR_SWEEPS is
 * built again, and the step solved with it from the forces reached. Returns dq. */
static double *
velocity_pass (ConstraintSolver *self, CwbStepContext *ctx, CwbContactSet *set,
               const double *q_free, const double *v_free)
{
  const gboolean *skipped = frames_asleep (self, set);
  OperatorReuseMatch match = operator_reuse_match (&self->operator_reuse, ctx, set, skipped);
  gboolean kept = self->keep_operator && match == OPERATOR_REUSE_OPERATOR;
  gboolean structure_kept = match != OPERATOR_REUSE_NONE;
  for (;;)
    {
      if (!kept)
        compliance_cache_begin (self->compliance_cache, ctx, q_free, self->compliance);
      double *dq = zeroed (self->dq, ctx->nv);
      penalty_displacement (self, ctx, set, dq);
      if (solve_contacts (self, ctx, set, skipped, v_free, self->warm_start, kept,
                          structure_kept, dq)
          || !kept)
        return dq;
      operator_reuse_forget_operator (&self->operator_reuse);
      kept = FALSE;
    }
}

/* The stages of a step (Allard 2010 Algorithm 1), as phase stepping shows them. */
enum { STAGE_FREE_MOTION, STAGE_DETECTION, STAGE_SOLVE, STAGE_CORRECTION, STAGE_STABILIZATION };
static const CwbSolverStage constraint_stages[] = {
  [STAGE_FREE_MOTION] = { "free motion",
    "Each body moves as if nothing touched it: one linearised backward Euler step of its own "
    "dynamics under gravity (Allard 2010 Alg. 1 line 1; Saupin 2008 eq. 11-12).", 0 },
  [STAGE_DETECTION] = { "detection and modelling",
    "At the free positions the contact model finds where bodies meet and writes one "
    "constraint row per contact and friction direction, with its frame (Alg. 1 line 2).",
    CWB_STAGE_CONTACTS },
  [STAGE_SOLVE] = { "contact solve",
    "The MLCP W f = -g / h with Coulomb's cone is solved for the forces by block "
    "Gauss-Seidel, W = H C H^T from each body's compliance (Alg. 1 line 3; Saupin 2008 "
    "eq. 16-18). The bodies have not moved yet.", CWB_STAGE_CONTACTS | CWB_STAGE_FORCES },
  [STAGE_CORRECTION] = { "corrective motion",
    "Each body moves by its compliance times the forces, dq = C H^T f, from the free "
    "positions (Alg. 1 line 3).", CWB_STAGE_CONTACTS | CWB_STAGE_FORCES },
  [STAGE_STABILIZATION] = { "stabilization",
    "What overlap remains is measured again and removed by position-level solves "
    "(Alg. 1 lines 4-9); the step ends here.", CWB_STAGE_CONTACTS | CWB_STAGE_FORCES },
};

/* Tells the host (when it records stages) that `stage` ended leaving (q, v). */
static void
stage_done (CwbStepContext *ctx, uint32_t stage, const double *q, const double *v)
{
  if (CWB_STRUCT_HAS (ctx, CwbStepContext, stage_done) && ctx->stage_done != NULL)
    ctx->stage_done (ctx, stage, q, v);
}

static gboolean
advance (ConstraintSolver *self, CwbStepContext *ctx, GError **error)
{
  resolve_tolerances (self, ctx);
  double *q_free = zeroed (self->q_free, ctx->nq);
  double *v_free = zeroed (self->v_free, ctx->nv);
  if (self->sleep_params.enabled)
    sleep_begin_step (self->sleep, ctx);
  CwbContactSet *set;
  for (;;)
    {
      free_motion (self, ctx, q_free, v_free);
      set = ctx->detect (ctx, q_free, v_free, CWB_CONTACT_PASS_VELOCITY, error);
      if (set == NULL)
        return FALSE;
      /* A contact that reaches a sleeping island from an awake body wakes it; the free
       * motion and the detection are then redone with it awake (each round wakes at least
       * one island, so this ends). */
      if (!self->sleep_params.enabled || !sleep_wake_touched (self->sleep, ctx, set))
        break;
    }
  stage_done (ctx, STAGE_FREE_MOTION, q_free, v_free);
  stage_done (ctx, STAGE_DETECTION, q_free, v_free);
  resolve_stabilization (self, ctx, set);
  if (self->step_stabilization > 0)
    linear_check_keep (&self->linear_check, ctx, set);
  double *dq = velocity_pass (self, ctx, set, q_free, v_free);
  stage_done (ctx, STAGE_SOLVE, q_free, v_free);
  corrective_motion (self, ctx, q_free, v_free, dq);
  stage_done (ctx, STAGE_CORRECTION, ctx->q, ctx->v);

  if (self->step_stabilization > 0)
    {
      if (!post_stabilize (self, ctx, set, error))
        return FALSE;
      stage_done (ctx, STAGE_STABILIZATION, ctx->q, ctx->v);
    }
  if (self->sleep_params.enabled)
    sleep_end_step (self->sleep, ctx, &self->sleep_params);
  return TRUE;
}

/* What the solver kept from the last step (its forces, its operator, its sleeping islands),
 * for a state that does not continue it or a step that failed. */
static void
forget_last_step (ConstraintSolver *self)
{
  warm_start_forget (self->warm_start);
  warm_start_forget (self->warm_position);
  operator_reuse_forget (&self->operator_reuse);
  sleep_wake_all (self->sleep);
}

static gboolean
constraint_step (void *data, CwbStepContext *ctx, GError **error)
{
  ConstraintSolver *self = data;
  /* The kept forces belong to the state this solver left; a resumed or edited run starts
   * cold (docs/plugins/constraint.md). */
  if (!state_continues (self, ctx))
    forget_last_step (self);
  if (!self->sleep_params.enabled)
    sleep_wake_all (self->sleep);
  gboolean ok = advance (self, ctx, error);
  if (ok)
    remember_state (self, ctx);
  else
    forget_last_step (self);
  return ok;
}

static const CwbSolverVTable constraint_vtable = {
  .struct_size = sizeof (CwbSolverVTable),
  .create = constraint_create,
  .destroy = constraint_destroy,
  .step = constraint_step,
  .params_changed = constraint_params_changed,
  .solves = CWB_CONTACT_OUTPUT_ROWS | CWB_CONTACT_OUTPUT_FORCES,
  .stages = constraint_stages,
  .n_stages = G_N_ELEMENTS (constraint_stages),
};

static const CwbPluginDesc constraint_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "constraint",
  .version = "1.8.0",
  .summary = "Free motion, contact MLCP by block Gauss-Seidel with Coulomb friction (cone or "
             "pyramid), corrective motion, optional post-stabilization (Saupin 2008, "
             "Allard 2010)",
  .params = constraint_params,
  .n_params = G_N_ELEMENTS (constraint_params),
  .vtable = &constraint_vtable,
};

CWB_DEFINE_PLUGIN (constraint_desc)

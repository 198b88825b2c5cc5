/* The predictor-corrector solver `predictor-corrector` (Spillmann et al. 2007; Lazarevych et
 * al. sec. 3.1) for contact models that return forces:
 *   1. predictor: every body integrates its internal and external forces without contact,
 *      (q, v) -> (q_p, v_p), through its body model's free motion;
 *   2. detection and response at the predicted state (the contact model sizes its forces so
 *      that the penetrations at t + dt close);
 *   3. corrector: every body integrates again from (q, v), now with the contact forces
 *      J^T f as external forces; with `implicit_contacts`, also with their stiffness
 *      K = J^T (df/dp) J as k_ext, so a body model with an implicit step integrates the
 *      contact forces implicitly. The forces were taken at the predicted state q_p, and the
 *      body model linearises k_ext about q, so the force handed over is
 *      f(q_p) - K (q_p - q), with q_p - q = h v_p in velocity space (Saupin 2008 eq. 12):
 *      f(q_p) + K (q_next - q_p) is then what acts. Their velocity derivative B (the
 *      damping, ABI 1.15) goes as b_ext the same way: taken at v_p, handed over as
 *      f - B (v_p - v), so that f(v_p) + B (v_next - v_p) acts. A body's step takes only
 *      its own blocks; where blocks join two moving bodies, block Gauss-Seidel sweeps over
 *      the bodies add each one's neighbours' part (couple_bodies, ABI 1.17), each sweep's
 *      result mixed with the last ones' (Anderson).
 * Nothing in it knows which contact model runs: it reads the contact set's point forces. A
 * contact model that returns constraint rows is refused with a message (they need the
 * constraint solver's MLCP). */
#include <cwb/cwb.h>

#include <lapacke.h>

/* The coupled corrector's sweeps stop when no velocity changed by more than this share of
 * the largest velocity (at least COUPLING_FLOOR, m/s or rad/s). */
#define COUPLING_TOLERANCE 1e-6
#define COUPLING_FLOOR 1e-3
/* Anderson's mixing of the coupled corrector's sweeps keeps this many past sweeps. */
#define ANDERSON_DEPTH 5

/* `implicit_contacts`, in the order of its choices. */
typedef enum ImplicitContacts {
  IMPLICIT_AUTOMATIC,
  IMPLICIT_ALWAYS,
  IMPLICIT_NEVER,
} ImplicitContacts;

typedef struct PredictorCorrector {
  ImplicitContacts implicit_mode;   /* the parameter */
  uint32_t model_outputs;           /* what the paired contact model declares (ABI 1.19) */
  int coupling_sweeps;
  GArray *q_predicted, *v_predicted, *r, *q_next, *v_next, *dq;   /* double scratch */
  GArray *coupled_dq, *body_f;                                    /* double scratch */
  GArray *anderson;         /* double scratch: Anderson's histories */
  gboolean accelerate;      /* `coupling_acceleration` */
} PredictorCorrector;

static const CwbParamSpec pc_params[] = {
  { "implicit_contacts", CWB_PARAM_ENUM, "", "automatic", 0, 0, "automatic|true|false",
    "Hand the contact forces' stiffness and damping to the body models' implicit step "
    "(k_ext, b_ext) in the corrector; false: the forces act explicitly, as in Spillmann "
    "2007; automatic: implicitly where the contact model asks for it (its forces sized for "
    "an implicit step, as Faure 2007's penalty), explicitly otherwise" },
  { "coupling_acceleration", CWB_PARAM_BOOL, "", "true", 0, 1, NULL,
    "Mix the coupling sweeps' last velocities (Anderson acceleration, depth 5): the "
    "sweeps' fixed point reached in fewer sweeps where the bodies are strongly coupled" },
  { "coupling_sweeps", CWB_PARAM_INT, "", "50", 1, 10000, NULL,
    "With implicit_contacts, the most Gauss-Seidel sweeps over the bodies that couple their "
    "implicit steps through the stiffness between bodies (each body's own is in its step); "
    "they stop once no velocity changes by more than 1e-6 of the largest" },
};

/* k_ext and b_ext of one body: the host's contact stiffness and damping in its DOFs. */
typedef struct BodyStiffness {
  CwbStepContext *ctx;
  uint32_t body;
} BodyStiffness;

static void
body_stiffness_apply (void *data, const double *x, double *y)
{
  BodyStiffness *k = data;
  k->ctx->contact_stiffness_apply (k->ctx, k->body, x, y);
}

static void
body_damping_apply (void *data, const double *x, double *y)
{
  BodyStiffness *k = data;
  k->ctx->contact_damping_apply (k->ctx, k->body, x, y);
}

static GArray *
new_doubles (void)
{
  return g_array_new (FALSE, TRUE, sizeof (double));
}

/* Whether the contact forces are integrated implicitly: the parameter, or where it is
 * automatic, whether the paired contact model asks for it. */
static gboolean
implicit_contacts (const PredictorCorrector *self)
{
  return self->implicit_mode == IMPLICIT_ALWAYS
         || (self->implicit_mode == IMPLICIT_AUTOMATIC
             && (self->model_outputs & CWB_CONTACT_OUTPUT_IMPLICIT_FORCES) != 0);
}

static void *
pc_create (const CwbSolverCreateInfo *info, const CwbHostServices *host, GError **error)
{
  PredictorCorrector *self = g_new0 (PredictorCorrector, 1);
  self->implicit_mode = (ImplicitContacts) cwb_param_int (info->params, "implicit_contacts",
                                                         IMPLICIT_AUTOMATIC);
  self->coupling_sweeps = (int) cwb_param_int (info->params, "coupling_sweeps", 50);
  self->accelerate = cwb_param_bool (info->params, "coupling_acceleration", TRUE);
  self->anderson = new_doubles ();
  self->dq = new_doubles ();
  self->coupled_dq = new_doubles ();
  self->body_f = new_doubles ();
  self->q_predicted = new_doubles ();
  self->v_predicted = new_doubles ();
  self->r = new_doubles ();
  self->q_next = new_doubles ();
  self->v_next = new_doubles ();
  return self;
}

static void
pc_destroy (void *data)
{
  PredictorCorrector *self = data;
  g_array_unref (self->q_predicted);
  g_array_unref (self->v_predicted);
  g_array_unref (self->r);
  g_array_unref (self->q_next);
  g_array_unref (self->v_next);
  g_array_unref (self->dq);
  g_array_unref (self->coupled_dq);
  g_array_unref (self->body_f);
  g_array_unref (self->anderson);
  g_free (self);
}

static double *
zeroed (GArray *a, size_t n)
{
  g_array_set_size (a, MAX (n, 1));
  memset (a->data, 0, a->len * sizeof (double));
  return (double *) a->data;
}

/* Body b from (ctx->q, ctx->v) over one step with generalized forces f_b (its nv, or NULL)
 * and, when `stiff`, the contact stiffness as k_ext, when `damped` their damping as b_ext;
 * into its slots of the system's q_out and v_out. */
static void
integrate_body (CwbStepContext *ctx, uint32_t b, const double *f_b, gboolean stiff,
                gboolean damped, double *q_out, double *v_out)
{
  const CwbBodySlot *s = &ctx->bodies[b];
  BodyStiffness k = { ctx, b };
  CwbLinearOperator k_ext = { body_stiffness_apply, &k };
  CwbLinearOperator b_ext = { body_damping_apply, &k };
  const double *q = ctx->q + s->q_offset, *v = ctx->v + s->v_offset;
  if (damped)
    ctx->free_motion_damped (ctx, b, q, v, f_b, stiff ? &k_ext : NULL, &b_ext,
                             q_out + s->q_offset, v_out + s->v_offset);
  else
    ctx->free_motion (ctx, b, q, v, f_b, stiff ? &k_ext : NULL, q_out + s->q_offset,
                      v_out + s->v_offset);
}

/* Every body, with generalized forces f (nv, or NULL). */
static void
integrate (CwbStepContext *ctx, const double *f, gboolean stiff, gboolean damped,
           double *q_out, double *v_out)
{
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    integrate_body (ctx, b, f != NULL ? f + ctx->bodies[b].v_offset : NULL, stiff, damped,
                    q_out, v_out);
}

/* Whether `blocks` couple two bodies that move. */
static gboolean
blocks_couple (const CwbStepContext *ctx, const GArray *blocks)
{
  for (guint k = 0; blocks != NULL && k < blocks->len; k++)
    {
      const CwbPointStiffness *block = &g_array_index (blocks, CwbPointStiffness, k);
      if (block->geometry_a != block->geometry_b && block->geometry_a < ctx->n_bodies
          && block->geometry_b < ctx->n_bodies && !ctx->bodies[block->geometry_a].fixed
          && !ctx->bodies[block->geometry_b].fixed)
        return TRUE;
    }
  return FALSE;
}

/* Whether the set's stiffness (or, `damped`, its damping) couples two bodies that move, and
 * the host can apply it. */
static gboolean
has_coupling (const CwbStepContext *ctx, const CwbContactSet *set, gboolean damped)
{
  if (!CWB_STRUCT_HAS (ctx, CwbStepContext, contact_coupling_apply)
      || ctx->contact_coupling_apply == NULL)
    return FALSE;
  return blocks_couple (ctx, set->stiffness) || (damped && blocks_couple (ctx, set->damping));
}

/* Anderson's mixing (Anderson 1965, type II; Walker and Ni 2011) of a fixed-point
 * iteration x -> g (x): after each sweep, x <- g - dG gamma with gamma minimising
 * |r - dR gamma|, r = g - x the residual and dG, dR the differences of g and r between
 * the last ANDERSON_DEPTH sweeps (column-major, n a column, in one scratch array). */
typedef struct Anderson {
  size_t n;
  double *x;                 /* the sweep's input, set by the caller before the sweep */
  double *g_last, *r_last, *r;
  double *dg, *dr;           /* ANDERSON_DEPTH columns each, a ring */
  double *a, *b;             /* the least-squares problem, overwritten by dgels */
  int stored, next;          /* columns held, and the one the next sweep writes */
  gboolean started;          /* g_last and r_last hold a sweep */
} Anderson;

static void
anderson_begin (Anderson *m, GArray *scratch, size_t n)
{
  double *p = zeroed (scratch, n * (4 + 3 * ANDERSON_DEPTH + 1));
  *m = (Anderson) { .n = n, .x = p, .g_last = p + n, .r_last = p + 2 * n, .r = p + 3 * n };
  m->dg = m->r + n;
  m->dr = m->dg + n * ANDERSON_DEPTH;
  m->a = m->dr + n * ANDERSON_DEPTH;
  m->b = m->a + n * ANDERSON_DEPTH;
}

/* The sweep turned m->x into g: records it and, from the second sweep on, replaces g by the
 * mix. FALSE where g is left as it is (the first sweep, or a least-squares failure, after
 * which the history starts again). */
static gboolean
anderson_mix (Anderson *m, double *g)
{
  size_t n = m->n;
  for (size_t d = 0; d < n; d++)
    m->r[d] = g[d] - m->x[d];
  if (m->started)
    {
      for (size_t d = 0; d < n; d++)
        {
          m->dg[m->next * n + d] = g[d] - m->g_last[d];
          m->dr[m->next * n + d] = m->r[d] - m->r_last[d];
        }
      m->next = (m->next + 1) % ANDERSON_DEPTH;
      m->stored = MIN (m->stored + 1, ANDERSON_DEPTH);
    }
  memcpy (m->g_last, g, n * sizeof (double));
  memcpy (m->r_last, m->r, n * sizeof (double));
  m->started = TRUE;
  if (m->stored == 0)
    return FALSE;
  memcpy (m->a, m->dr, n * m->stored * sizeof (double));
  memcpy (m->b, m->r, n * sizeof (double));
  if (LAPACKE_dgels (LAPACK_COL_MAJOR, 'N', (lapack_int) n, m->stored, 1, m->a,
                     (lapack_int) n, m->b, (lapack_int) n) != 0)
    {
      m->stored = m->next = 0;
      return FALSE;
    }
  for (int c = 0; c < m->stored; c++)
    for (size_t d = 0; d < n; d++)
      g[d] -= m->b[c] * m->dg[c * n + d];
  return TRUE;
}

/* What the coupling forces of the next sweep are taken from: dv = v - v_p and dq = h dv. */
static void
coupled_motion (const CwbStepContext *ctx, const double *v, const double *v_p, double *dv,
                double *dq)
{
  for (size_t d = 0; d < ctx->nv; d++)
    {
      dv[d] = v[d] - v_p[d];
      dq[d] = ctx->h * dv[d];
    }
}

/* The corrector with the stiffness between bodies (Faure 2007's implicit step takes the
 * contact stiffness of every pair; each body model's step takes only its own blocks): block
 * Gauss-Seidel over the bodies, each integrated again with the forces its neighbours'
 * latest motions add, K_bc h (v_c - v_p,c) and, `damped`, B_bc (v_c - v_p,c) (the
 * linearisations about the predicted state, as shift_linearisation's and shift_damping's),
 * until no velocity changes by more than COUPLING_TOLERANCE of the
 * largest; with `coupling_acceleration` each sweep's velocities mixed with the last
 * sweeps' (anderson_mix). (q_next, v_next) hold the uncoupled corrector on entry. Returns the sweeps made,
 * and the last sweep's largest change over the largest velocity in *residual. */
static int
couple_bodies (PredictorCorrector *self, CwbStepContext *ctx, const double *v_p,
               const double *r, gboolean damped, double *q_next, double *v_next,
               double *residual)
{
  double *dq = zeroed (self->coupled_dq, 2 * ctx->nv), *dv = dq + ctx->nv;
  coupled_motion (ctx, v_next, v_p, dv, dq);
  size_t largest_nv = 0;
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    largest_nv = MAX (largest_nv, ctx->bodies[b].nv);
  double *f = zeroed (self->body_f, 2 * largest_nv), *coupling = f + largest_nv;
  Anderson mixing;
  anderson_begin (&mixing, self->anderson, ctx->nv);
  gboolean mixed = FALSE;   /* the last sweep's velocities were mixed, q_next is behind */
  for (int sweep = 1; sweep <= self->coupling_sweeps; sweep++)
    {
      double change = 0, largest = COUPLING_FLOOR;
      memcpy (mixing.x, v_next, ctx->nv * sizeof (double));
      for (uint32_t b = 0; b < ctx->n_bodies; b++)
        {
          const CwbBodySlot *s = &ctx->bodies[b];
          if (s->fixed)
            continue;
          ctx->contact_coupling_apply (ctx, b, dq, damped ? dv : NULL, coupling);
          for (size_t d = 0; d < s->nv; d++)
            f[d] = r[s->v_offset + d] + coupling[d];
          integrate_body (ctx, b, f, TRUE, damped, q_next, v_next);
          for (size_t d = s->v_offset; d < s->v_offset + s->nv; d++)
            {
              change = MAX (change, fabs (v_next[d] - mixing.x[d]));
              largest = MAX (largest, fabs (v_next[d]));
              dv[d] = v_next[d] - v_p[d];
              dq[d] = ctx->h * dv[d];
            }
        }
      *residual = change / largest;
      if (*residual <= COUPLING_TOLERANCE)
        return sweep;
      mixed = self->accelerate && anderson_mix (&mixing, v_next);
      if (mixed)
        coupled_motion (ctx, v_next, v_p, dv, dq);
    }
  /* Stopped at the cap on mixed velocities: their positions. */
  for (uint32_t b = 0; mixed && b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *s = &ctx->bodies[b];
      if (!s->fixed)
        ctx->integrate_position (ctx, b, ctx->q + s->q_offset, v_next + s->v_offset, ctx->h,
                                 q_next + s->q_offset);
    }
  return self->coupling_sweeps;
}

static gboolean
has_contact_stiffness (const CwbStepContext *ctx)
{
  return CWB_STRUCT_HAS (ctx, CwbStepContext, contact_stiffness_apply)
         && ctx->contact_stiffness_apply != NULL;
}

/* Whether the set holds the forces' damping and the host can hand it over (ABI 1.15). */
static gboolean
has_contact_damping (const CwbStepContext *ctx, const CwbContactSet *set)
{
  return CWB_STRUCT_HAS (ctx, CwbStepContext, free_motion_damped)
         && ctx->free_motion_damped != NULL && ctx->contact_damping_apply != NULL
         && CWB_STRUCT_HAS (set, CwbContactSet, damping) && set->damping != NULL
         && set->damping->len > 0;
}

/* r -= K (h v_p) per body: the force at q_p seen from the linearisation point q. */
static void
shift_linearisation (PredictorCorrector *self, CwbStepContext *ctx, const double *v_p, double *r)
{
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *s = &ctx->bodies[b];
      double *dq = zeroed (self->dq, 2 * s->nv), *df = dq + s->nv;
      for (size_t d = 0; d < s->nv; d++)
        dq[d] = ctx->h * v_p[s->v_offset + d];
      ctx->contact_stiffness_apply (ctx, b, dq, df);
      for (size_t d = 0; d < s->nv; d++)
        r[s->v_offset + d] -= df[d];
    }
}

/* r -= B (v_p - v) per body: the damping force at v_p seen from the velocity v the body
 * model linearises b_ext about. */
static void
shift_damping (PredictorCorrector *self, CwbStepContext *ctx, const double *v_p, double *r)
{
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *s = &ctx->bodies[b];
      double *dv = zeroed (self->dq, 2 * s->nv), *df = dv + s->nv;
      for (size_t d = 0; d < s->nv; d++)
        dv[d] = v_p[s->v_offset + d] - ctx->v[s->v_offset + d];
      ctx->contact_damping_apply (ctx, b, dv, df);
      for (size_t d = 0; d < s->nv; d++)
        r[s->v_offset + d] -= df[d];
    }
}

/* The stages of a step, as phase stepping shows them. */
enum { STAGE_PREDICTOR, STAGE_RESPONSE, STAGE_CORRECTOR };
static const CwbSolverStage pc_stages[] = {
  [STAGE_PREDICTOR] = { "predictor",
    "Each body integrates its own forces and gravity without contact, (q, v) -> (q_p, v_p) "
    "(Spillmann 2007; Lazarevych sec. 3.1, step 1).", 0 },
  [STAGE_RESPONSE] = { "detection and response",
    "At the predicted state the contact model finds the penetrations and sizes the penalty "
    "forces that close them over the step (step 2).", CWB_STAGE_CONTACTS | CWB_STAGE_FORCES },
  [STAGE_CORRECTOR] = { "corrector",
    "Each body integrates again from (q, v), now with the contact forces J^T f (and, with "
    "implicit_contacts, their stiffness and damping, the bodies swept until the forces "
    "between them agree) as external forces (step 3); the step ends here.",
    CWB_STAGE_CONTACTS | CWB_STAGE_FORCES },
};

static void
stage_done (CwbStepContext *ctx, uint32_t stage, const double *q, const double *v)
{
  if (CWB_STRUCT_HAS (ctx, CwbStepContext, stage_done) && ctx->stage_done != NULL)
    ctx->stage_done (ctx, stage, q, v);
}

static gboolean
pc_step (void *data, CwbStepContext *ctx, GError **error)
{
  PredictorCorrector *self = data;
  /* What `automatic` resolved to, beside the scene's other derived values (1: implicit). */
  if (self->implicit_mode == IMPLICIT_AUTOMATIC
      && CWB_STRUCT_HAS (ctx, CwbStepContext, report_derived) && ctx->report_derived != NULL)
    ctx->report_derived (ctx, "implicit_contacts", implicit_contacts (self) ? 1 : 0);
  double *q_p = zeroed (self->q_predicted, ctx->nq);
  double *v_p = zeroed (self->v_predicted, ctx->nv);
  integrate (ctx, NULL, FALSE, FALSE, q_p, v_p);
  stage_done (ctx, STAGE_PREDICTOR, q_p, v_p);

  CwbContactSet *set = ctx->detect (ctx, q_p, v_p, CWB_CONTACT_PASS_VELOCITY, error);
  if (set == NULL)
    return FALSE;
  if (set->rows->len > 0)
    {
      g_set_error_literal (error, g_quark_from_string ("predictor-corrector"), 0,
                           "the contact model returns constraint rows, which the "
                           "predictor-corrector solver cannot solve: use the solver "
                           "'constraint' with it");
      return FALSE;
    }
  double *r = zeroed (self->r, ctx->nv);
  ctx->point_forces_to_dofs (ctx, r);
  gboolean stiff = implicit_contacts (self) && set->stiffness->len > 0;
  if (stiff && !has_contact_stiffness (ctx))
    {
      g_set_error_literal (error, g_quark_from_string ("predictor-corrector"), 0,
                           "implicit_contacts needs a host of ABI 1.1 or later");
      return FALSE;
    }
  gboolean damped = implicit_contacts (self) && has_contact_damping (ctx, set);
  stage_done (ctx, STAGE_RESPONSE, q_p, v_p);
  if (stiff)
    shift_linearisation (self, ctx, v_p, r);
  if (damped)
    shift_damping (self, ctx, v_p, r);
  double *q_next = zeroed (self->q_next, ctx->nq);
  double *v_next = zeroed (self->v_next, ctx->nv);
  integrate (ctx, r, stiff, damped, q_next, v_next);
  if (stiff && has_coupling (ctx, set, damped))
    {
      double residual = 0;
      int sweeps = couple_bodies (self, ctx, v_p, r, damped, q_next, v_next, &residual);
      ctx->report_solve (ctx, sweeps, residual, NULL, 0);
      if (CWB_STRUCT_HAS (ctx, CwbStepContext, report_solve_limits)
          && ctx->report_solve_limits != NULL)
        ctx->report_solve_limits (ctx, self->coupling_sweeps, COUPLING_TOLERANCE);
    }
  memcpy (ctx->q, q_next, ctx->nq * sizeof (double));
  memcpy (ctx->v, v_next, ctx->nv * sizeof (double));
  stage_done (ctx, STAGE_CORRECTOR, ctx->q, ctx->v);
  return TRUE;
}

static void
pc_params_changed (void *data, const CwbParamSet *params)
{
  PredictorCorrector *self = data;
  self->implicit_mode = (ImplicitContacts) cwb_param_int (params, "implicit_contacts",
                                                         IMPLICIT_AUTOMATIC);
  self->coupling_sweeps = (int) cwb_param_int (params, "coupling_sweeps", 50);
  self->accelerate = cwb_param_bool (params, "coupling_acceleration", TRUE);
}

static void
pc_contact_outputs_changed (void *data, uint32_t outputs)
{
  PredictorCorrector *self = data;
  self->model_outputs = outputs;
}

static gboolean
pc_contact_forces_implicit (void *data)
{
  const PredictorCorrector *self = data;
  return implicit_contacts (self);
}

static const CwbSolverVTable pc_vtable = {
  .struct_size = sizeof (CwbSolverVTable),
  .create = pc_create,
  .destroy = pc_destroy,
  .step = pc_step,
  .params_changed = pc_params_changed,
  .solves = CWB_CONTACT_OUTPUT_FORCES,
  .stages = pc_stages,
  .n_stages = G_N_ELEMENTS (pc_stages),
  .contact_forces_implicit = pc_contact_forces_implicit,
  .contact_outputs_changed = pc_contact_outputs_changed,
};

static const CwbPluginDesc pc_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "predictor-corrector",
  .version = "1.0.0",
  .summary = "Predictor, contact forces at the predicted state, corrector that re-integrates "
             "with them (Spillmann 2007)",
  .params = pc_params,
  .n_params = G_N_ELEMENTS (pc_params),
  .vtable = &pc_vtable,
};

CWB_DEFINE_PLUGIN (pc_desc)

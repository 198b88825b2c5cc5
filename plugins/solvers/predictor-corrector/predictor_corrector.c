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
 *      f - B (v_p - v), so that f(v_p) + B (v_next - v_p) acts.
 * Nothing in it knows which contact model runs: it reads the contact set's point forces. A
 * contact model that returns constraint rows is refused with a message (they need the
 * constraint solver's MLCP). */
#include <cwb/cwb.h>

typedef struct PredictorCorrector {
  gboolean implicit_contacts;
  GArray *q_predicted, *v_predicted, *r, *q_next, *v_next, *dq;   /* double scratch */
} PredictorCorrector;

static const CwbParamSpec pc_params[] = {
  { "implicit_contacts", CWB_PARAM_BOOL, "", "false", 1, 0, NULL,
    "Hand the contact forces' stiffness and damping to the body models' implicit step "
    "(k_ext, b_ext) in the corrector; false: the forces act explicitly, as in Spillmann "
    "2007" },
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

static void *
pc_create (const CwbSolverCreateInfo *info, const CwbHostServices *host, GError **error)
{
  PredictorCorrector *self = g_new0 (PredictorCorrector, 1);
  self->implicit_contacts = cwb_param_bool (info->params, "implicit_contacts", FALSE);
  self->dq = new_doubles ();
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
  g_free (self);
}

static double *
zeroed (GArray *a, size_t n)
{
  g_array_set_size (a, MAX (n, 1));
  memset (a->data, 0, a->len * sizeof (double));
  return (double *) a->data;
}

/* Every body from (ctx->q, ctx->v) over one step with generalized forces f (nv, or NULL)
 * and, when `stiff`, the contact stiffness as k_ext, when `damped` their damping as b_ext. */
static void
integrate (CwbStepContext *ctx, const double *f, gboolean stiff, gboolean damped,
           double *q_out, double *v_out)
{
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *s = &ctx->bodies[b];
      BodyStiffness k = { ctx, b };
      CwbLinearOperator k_ext = { body_stiffness_apply, &k };
      CwbLinearOperator b_ext = { body_damping_apply, &k };
      const double *q = ctx->q + s->q_offset, *v = ctx->v + s->v_offset;
      const double *f_b = f != NULL ? f + s->v_offset : NULL;
      if (damped)
        ctx->free_motion_damped (ctx, b, q, v, f_b, stiff ? &k_ext : NULL, &b_ext,
                                 q_out + s->q_offset, v_out + s->v_offset);
      else
        ctx->free_motion (ctx, b, q, v, f_b, stiff ? &k_ext : NULL, q_out + s->q_offset,
                          v_out + s->v_offset);
    }
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
    "implicit_contacts, their stiffness and damping) as external forces (step 3); the step "
    "ends here.",
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
  gboolean stiff = self->implicit_contacts && set->stiffness->len > 0;
  if (stiff && !has_contact_stiffness (ctx))
    {
      g_set_error_literal (error, g_quark_from_string ("predictor-corrector"), 0,
                           "implicit_contacts needs a host of ABI 1.1 or later");
      return FALSE;
    }
  gboolean damped = self->implicit_contacts && has_contact_damping (ctx, set);
  stage_done (ctx, STAGE_RESPONSE, q_p, v_p);
  if (stiff)
    shift_linearisation (self, ctx, v_p, r);
  if (damped)
    shift_damping (self, ctx, v_p, r);
  double *q_next = zeroed (self->q_next, ctx->nq);
  double *v_next = zeroed (self->v_next, ctx->nv);
  integrate (ctx, r, stiff, damped, q_next, v_next);
  memcpy (ctx->q, q_next, ctx->nq * sizeof (double));
  memcpy (ctx->v, v_next, ctx->nv * sizeof (double));
  stage_done (ctx, STAGE_CORRECTOR, ctx->q, ctx->v);
  return TRUE;
}

static void
pc_params_changed (void *data, const CwbParamSet *params)
{
  PredictorCorrector *self = data;
  self->implicit_contacts = cwb_param_bool (params, "implicit_contacts", FALSE);
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

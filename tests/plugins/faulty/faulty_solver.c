/* A TEST-ONLY solver that misbehaves on purpose, so the host's guards can be tested: mode
 * "nan" advances the bodies by free motion and then writes a NaN into the first velocity (a
 * numerical blow-up); mode "error" fails the step with a message; mode "pump" makes every
 * velocity 4 times what the free motion gave (a divergence at finite, sub-light speeds, as
 * the mouse spring on a FEM snake grew). */
#include <cwb/cwb.h>

/* Its error domain through the ABI's macro: tests/world/test_world.c looks the name up after
 * the library is closed (/world/failure/error-domain-outlives-plugin). */
GQuark faulty_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-faulty-error-quark, faulty_error)

typedef struct Faulty {
  gboolean fail_with_error, pump;
} Faulty;

#define PUMP_FACTOR 4.0

static const CwbParamSpec faulty_params[] = {
  { "mode", CWB_PARAM_ENUM, "", "nan", 1, 0, "nan|error|pump",
    "nan: write a NaN into the state; error: fail the step; pump: 4 times the velocities" },
};

static void *
faulty_create (const CwbSolverCreateInfo *info, const CwbHostServices *host, GError **error)
{
  Faulty *self = g_new0 (Faulty, 1);
  const char *mode = cwb_param_string (info->params, "mode", "nan");
  self->fail_with_error = g_strcmp0 (mode, "error") == 0;
  self->pump = g_strcmp0 (mode, "pump") == 0;
  return self;
}

static void
faulty_destroy (void *self)
{
  g_free (self);
}

static gboolean
faulty_step (void *data, CwbStepContext *ctx, GError **error)
{
  Faulty *self = data;
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *s = &ctx->bodies[b];
      g_autofree double *q = g_new (double, s->nq);
      g_autofree double *v = g_new (double, s->nv);
      ctx->free_motion (ctx, b, ctx->q + s->q_offset, ctx->v + s->v_offset, NULL, NULL, q, v);
      memcpy (ctx->q + s->q_offset, q, s->nq * sizeof (double));
      memcpy (ctx->v + s->v_offset, v, s->nv * sizeof (double));
    }
  if (self->fail_with_error)
    {
      g_set_error_literal (error, faulty_error_quark (), 0, "deliberate failure");
      return FALSE;
    }
  if (self->pump)
    {
      for (size_t k = 0; k < ctx->nv; k++)
        ctx->v[k] *= PUMP_FACTOR;
      return TRUE;
    }
  if (ctx->nv > 0)
    ctx->v[ctx->nv - 1] = NAN;
  return TRUE;
}

static const CwbSolverVTable faulty_vtable = {
  .struct_size = sizeof (CwbSolverVTable),
  .create = faulty_create,
  .destroy = faulty_destroy,
  .step = faulty_step,
};

static const CwbPluginDesc faulty_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "faulty",
  .version = "1.0",
  .summary = "Test-only solver that blows up or fails on purpose",
  .params = faulty_params,
  .n_params = G_N_ELEMENTS (faulty_params),
  .vtable = &faulty_vtable,
};

CWB_DEFINE_PLUGIN (faulty_desc)

/* A TEST-ONLY body model: a fixed body (fixed_body.h) whose create stands for a long
 * precomputation (a FEM body's compliance matrix): `steps` steps of `step_ms` each, reporting
 * progress after each and stopping with G_IO_ERROR_CANCELLED when the host says the user
 * cancelled. The progress and cancellation tests of the core, the command line and the window
 * load it. */
#include "fixed_body.h"

static const CwbParamSpec slow_params[] = {
  { "steps", CWB_PARAM_INT, "", "20", 1, 1e6, NULL,
    "Steps of the pretended precomputation, each followed by a progress report" },
  { "step_ms", CWB_PARAM_DOUBLE, "ms", "10", 0, 1e4, NULL, "Duration of one step" },
};

static void *
slow_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  FixedBody *self = g_new0 (FixedBody, 1);
  fixed_init (self, info);
  gint64 steps = cwb_param_int (info->params, "steps", 20);
  double step_ms = cwb_param_double (info->params, "step_ms", 10);
  g_autofree char *what = g_strdup_printf ("body '%s': precomputing", info->name);
  for (gint64 k = 1; k <= steps; k++)
    {
      g_usleep ((gulong) (step_ms * 1000));
      if (!host->progress (host->host_data, what, (double) k / (double) steps))
        {
          g_free (self);
          g_autofree char *where = g_strdup_printf ("stopped after step %" G_GINT64_FORMAT
                                                    " of %" G_GINT64_FORMAT, k, steps);
          cwb_host_set_cancelled (error, where);
          return NULL;
        }
    }
  return self;
}

static const CwbBodyModelVTable slow_vtable = FIXED_BODY_VTABLE (slow_create);

static const CwbPluginDesc slow_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_BODY_MODEL,
  .name = "slow",
  .version = "1.0",
  .summary = "Test-only fixed body whose creation takes long, with progress and cancel",
  .params = slow_params,
  .n_params = G_N_ELEMENTS (slow_params),
  .vtable = &slow_vtable,
};

CWB_DEFINE_PLUGIN (slow_desc)

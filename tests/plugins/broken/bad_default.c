/* A schema whose default is not of its own type (BAD_DEFAULT_TEXT "fast" for a double), or
 * out of its own range (BAD_DEFAULT_TEXT "5" in [0, 1]): built twice, see meson.build. */
#include "broken_plugin.h"

static const CwbParamSpec bad_default_params[] = {
  { "iterations", CWB_PARAM_INT, "", "10", 1, 1000, NULL, "A valid parameter first" },
  { "speed", CWB_PARAM_DOUBLE, "1", BAD_DEFAULT_TEXT, 0, 1, NULL, "Its default is invalid" },
};

static const CwbSolverVTable bad_default_vtable = BROKEN_SOLVER_VTABLE;

static const CwbPluginDesc bad_default_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = BAD_DEFAULT_NAME,
  .version = "1.0",
  .summary = "Test-only: invalid default",
  .params = bad_default_params,
  .n_params = G_N_ELEMENTS (bad_default_params),
  .vtable = &bad_default_vtable,
};

CWB_DEFINE_PLUGIN (bad_default_desc)

/* A valid solver: it loads even though every other library of this folder is refused. Its
 * schema has one parameter of each printed shape (bounded, unbounded, enum, vec3). */
#include "broken_plugin.h"

static const CwbParamSpec good_params[] = {
  { "tolerance", CWB_PARAM_DOUBLE, "1", "1e-6", 0, 1, NULL, "Residual to stop at" },
  { "sweeps", CWB_PARAM_INT, "", "10", 1, 0, NULL, "Sweeps per step (unbounded)" },
  { "order", CWB_PARAM_ENUM, "", "forward", 1, 0, "forward|backward", "Sweep order" },
  { "bias", CWB_PARAM_VEC3, "m", "[0, 0, 1]", -1, 1, NULL, "A vector" },
};

static const CwbSolverVTable good_vtable = BROKEN_SOLVER_VTABLE;

static const CwbPluginDesc good_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "good",
  .version = "1.0",
  .summary = "Test-only solver that does nothing, validly",
  .params = good_params,
  .n_params = G_N_ELEMENTS (good_params),
  .vtable = &good_vtable,
};

CWB_DEFINE_PLUGIN (good_desc)

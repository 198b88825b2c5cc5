/* A description that claims to end before ABI 1.0's last field (params, vtable). */
#include "broken_plugin.h"

static const CwbSolverVTable small_desc_vtable = BROKEN_SOLVER_VTABLE;

static const CwbPluginDesc small_desc_desc = {
  .struct_size = offsetof (CwbPluginDesc, params),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "small-desc",
  .version = "1.0",
  .summary = "Test-only: description too small",
  .vtable = &small_desc_vtable,
};

CWB_DEFINE_PLUGIN (small_desc_desc)

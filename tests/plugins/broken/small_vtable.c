/* A solver vtable that claims to end before step: its operations cannot be trusted. */
#include "broken_plugin.h"

static const CwbSolverVTable small_vtable_vtable = {
  .struct_size = offsetof (CwbSolverVTable, step),
  .create = broken_create,
  .destroy = broken_destroy,
  .step = broken_step,
};

static const CwbPluginDesc small_vtable_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "small-vtable",
  .version = "1.0",
  .summary = "Test-only: vtable too small",
  .vtable = &small_vtable_vtable,
};

CWB_DEFINE_PLUGIN (small_vtable_desc)

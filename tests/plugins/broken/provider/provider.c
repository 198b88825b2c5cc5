/* A library that exports a valid entry symbol, for foreign-entry to link against. It lives in
 * a sub-folder so that scanning the broken folder (flat) does not load it for itself. */
#include "../broken_plugin.h"

static const CwbSolverVTable provider_vtable = BROKEN_SOLVER_VTABLE;

static const CwbPluginDesc provider_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "provided",
  .version = "1.0",
  .summary = "Test-only: the entry foreign-entry must not borrow",
  .vtable = &provider_vtable,
};

CWB_DEFINE_PLUGIN (provider_desc)

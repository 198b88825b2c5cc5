/* Built against a different ABI major: nothing past the version can be trusted. */
#include "broken_plugin.h"

static const CwbSolverVTable abi_major_vtable = BROKEN_SOLVER_VTABLE;

static const CwbPluginDesc abi_major_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR + 1,
  .abi_minor = 0,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "abi-major",
  .version = "1.0",
  .summary = "Test-only: ABI major of the future",
  .vtable = &abi_major_vtable,
};

CWB_DEFINE_PLUGIN (abi_major_desc)

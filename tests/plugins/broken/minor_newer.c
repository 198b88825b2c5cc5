/* Built against a newer minor ABI than the host's: minor bumps only append, so it loads. */
#include "broken_plugin.h"

static const CwbSolverVTable minor_newer_vtable = BROKEN_SOLVER_VTABLE;

static const CwbPluginDesc minor_newer_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR + 5,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "minor-newer",
  .version = "1.0",
  .summary = "Test-only solver built against a newer minor ABI",
  .vtable = &minor_newer_vtable,
};

CWB_DEFINE_PLUGIN (minor_newer_desc)

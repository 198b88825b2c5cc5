/* A kind the host does not know. */
#include "broken_plugin.h"

static const CwbSolverVTable unknown_kind_vtable = BROKEN_SOLVER_VTABLE;

static const CwbPluginDesc unknown_kind_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = (CwbPluginKind) 99,
  .name = "unknown-kind",
  .version = "1.0",
  .summary = "Test-only: kind 99",
  .vtable = &unknown_kind_vtable,
};

CWB_DEFINE_PLUGIN (unknown_kind_desc)

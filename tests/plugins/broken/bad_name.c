/* A name scenes could not write: upper case and a space. */
#include "broken_plugin.h"

static const CwbSolverVTable bad_name_vtable = BROKEN_SOLVER_VTABLE;

static const CwbPluginDesc bad_name_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "Bad Name",
  .version = "1.0",
  .summary = "Test-only: invalid name",
  .vtable = &bad_name_vtable,
};

CWB_DEFINE_PLUGIN (bad_name_desc)

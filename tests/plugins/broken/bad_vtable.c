/* A solver without its required step operation. */
#include "broken_plugin.h"

static const CwbSolverVTable bad_vtable_vtable = {
  .struct_size = sizeof (CwbSolverVTable),
  .create = broken_create,
  .destroy = broken_destroy,
};

static const CwbPluginDesc bad_vtable_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "bad-vtable",
  .version = "1.0",
  .summary = "Test-only: no step",
  .vtable = &bad_vtable_vtable,
};

CWB_DEFINE_PLUGIN (bad_vtable_desc)

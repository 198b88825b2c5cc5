/* References a function no library defines: with immediate binding (RTLD_NOW) the loader
 * fails at open, with its own message naming the symbol. */
#include "broken_plugin.h"

int cwb_test_undefined_function (void);

static void *
unresolved_create (const CwbSolverCreateInfo *info, const CwbHostServices *host,
                   GError **error)
{
  return GINT_TO_POINTER (cwb_test_undefined_function ());
}

static const CwbSolverVTable unresolved_vtable = {
  .struct_size = sizeof (CwbSolverVTable),
  .create = unresolved_create,
  .destroy = broken_destroy,
  .step = broken_step,
};

static const CwbPluginDesc unresolved_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_SOLVER,
  .name = "unresolved",
  .version = "1.0",
  .summary = "Test-only: needs a symbol nobody defines",
  .vtable = &unresolved_vtable,
};

CWB_DEFINE_PLUGIN (unresolved_desc)

/* A TEST-ONLY body model: a fixed body with the rigid body's state layout (fixed_body.h). It
 * exists so the world's editing tests have two body models with the same DOF counts:
 * cwb_world_carry_state must tell bodies apart by model, not by sizes alone. */
#include "fixed_body.h"

static void *
frozen_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  FixedBody *self = g_new0 (FixedBody, 1);
  fixed_init (self, info);
  return self;
}

static const CwbBodyModelVTable frozen_vtable = FIXED_BODY_VTABLE (frozen_create);

static const CwbPluginDesc frozen_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_BODY_MODEL,
  .name = "frozen",
  .version = "1.0",
  .summary = "Test-only fixed body with the rigid state layout",
  .vtable = &frozen_vtable,
};

CWB_DEFINE_PLUGIN (frozen_desc)

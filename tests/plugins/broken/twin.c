/* Two libraries (duplicate-a, duplicate-b) built from this file: both a contact model named
 * "twin". The first by sorted file name loads, the second is refused as a duplicate. */
#include <cwb/cwb.h>

static void *
twin_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host, GError **error)
{
  return g_new0 (int, 1);
}

static void
twin_destroy (void *self)
{
  g_free (self);
}

static gboolean
twin_attach (void *self, const CwbContactQuery *query, GError **error)
{
  return TRUE;
}

static gboolean
twin_detect (void *self, const CwbContactQuery *query, GError **error)
{
  return TRUE;
}

static gboolean
twin_model (void *self, const CwbContactQuery *query, CwbContactSet *set,
            CwbInspection *inspection, GError **error)
{
  return TRUE;
}

static const CwbContactModelVTable twin_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = twin_create,
  .destroy = twin_destroy,
  .attach = twin_attach,
  .detect = twin_detect,
  .model = twin_model,
};

static const CwbPluginDesc twin_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_CONTACT_MODEL,
  .name = "twin",
  .version = TWIN_VERSION,
  .summary = "Test-only contact model that finds no contact",
  .vtable = &twin_vtable,
};

CWB_DEFINE_PLUGIN (twin_desc)

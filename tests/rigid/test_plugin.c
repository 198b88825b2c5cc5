#include "test_plugin.h"

#include <stdio.h>

#include <gmodule.h>

const CwbPluginDesc *
test_plugin_load (const char *env_var, CwbPluginKind kind, const char *name)
{
  const char *path = g_getenv (env_var);
  if (path == NULL)
    g_error ("%s is not set: run this test through meson test", env_var);
  GModule *module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    g_error ("%s: %s", path, g_module_error ());
  /* Plugins stay loaded for the whole process, as in the host. */
  g_module_make_resident (module);
  gpointer symbol = NULL;
  if (!g_module_symbol (module, CWB_PLUGIN_ENTRY_SYMBOL, &symbol) || symbol == NULL)
    g_error ("%s: no entry symbol %s", path, CWB_PLUGIN_ENTRY_SYMBOL);
  CwbPluginEntryFunc entry = (CwbPluginEntryFunc) symbol;
  const CwbPluginDesc *desc = entry ();
  g_assert_nonnull (desc);
  g_assert_cmpuint (desc->abi_major, ==, CWB_ABI_MAJOR);
  g_assert_cmpint (desc->kind, ==, kind);
  g_assert_cmpstr (desc->name, ==, name);
  g_assert_nonnull (desc->vtable);
  return desc;
}

/* The index of `word` among an ENUM parameter's choices. */
static gint64
enum_index (const CwbParamSpec *spec, const char *word)
{
  g_auto (GStrv) choices = g_strsplit (spec->choices, "|", -1);
  for (gint64 k = 0; choices[k] != NULL; k++)
    if (strcmp (choices[k], word) == 0)
      return k;
  g_error ("parameter %s: no choice %s", spec->name, word);
  return -1;
}

void
test_params_init (TestParams *params, const CwbPluginDesc *desc)
{
  g_assert_cmpuint (desc->n_params, <=, TEST_PARAMS_MAX);
  memset (params, 0, sizeof *params);
  for (size_t k = 0; k < desc->n_params; k++)
    {
      const CwbParamSpec *spec = &desc->params[k];
      CwbParamValue *value = &params->values[k];
      value->type = spec->type;
      switch (spec->type)
        {
        case CWB_PARAM_BOOL:
          value->b = g_strcmp0 (spec->default_value, "true") == 0;
          break;
        case CWB_PARAM_DOUBLE:
          value->d = g_ascii_strtod (spec->default_value, NULL);
          break;
        case CWB_PARAM_INT:
          value->i = g_ascii_strtoll (spec->default_value, NULL, 10);
          break;
        case CWB_PARAM_ENUM:
          value->i = enum_index (spec, spec->default_value);
          value->s = spec->default_value;
          break;
        case CWB_PARAM_VEC3:
          g_assert_cmpint (sscanf (spec->default_value, "[%lf , %lf , %lf]", &value->v3[0],
                                   &value->v3[1], &value->v3[2]), ==, 3);
          break;
        default:
          g_error ("parameter %s: type %d not needed by these tests", spec->name, spec->type);
        }
    }
  params->set = (CwbParamSet) {
    .struct_size = sizeof (CwbParamSet),
    .specs = desc->params,
    .values = params->values,
    .n = desc->n_params,
  };
}

static CwbParamValue *
params_lookup (TestParams *params, const char *name)
{
  for (size_t k = 0; k < params->set.n; k++)
    if (strcmp (params->set.specs[k].name, name) == 0)
      return &params->values[k];
  g_error ("no parameter %s in the schema", name);
  return NULL;
}

void
test_params_set_double (TestParams *params, const char *name, double value)
{
  CwbParamValue *v = params_lookup (params, name);
  g_assert_cmpint (v->type, ==, CWB_PARAM_DOUBLE);
  v->d = value;
}

void
test_params_set_enum (TestParams *params, const char *name, const char *word)
{
  CwbParamValue *v = params_lookup (params, name);
  g_assert_cmpint (v->type, ==, CWB_PARAM_ENUM);
  v->i = enum_index (&params->set.specs[v - params->values], word);
  v->s = word;
}

void
test_params_set_bool (TestParams *params, const char *name, gboolean value)
{
  CwbParamValue *v = params_lookup (params, name);
  g_assert_cmpint (v->type, ==, CWB_PARAM_BOOL);
  v->b = value;
}

const CwbHostServices *
test_host (void)
{
  static const CwbHostServices host = {
    .struct_size = sizeof (CwbHostServices),
    .abi_major = CWB_ABI_MAJOR,
    .abi_minor = CWB_ABI_MINOR,
  };
  return &host;
}

CwbBodyCreateInfo
test_body_info (const char *name, const TestShape *shape, double density, gboolean fixed,
                const TestParams *params)
{
  return (CwbBodyCreateInfo) {
    .struct_size = sizeof (CwbBodyCreateInfo),
    .name = name,
    .params = params != NULL ? &params->set : NULL,
    .surface = &shape->surface,
    .density = density,
    .fixed = fixed,
    .orientation = { 1, 0, 0, 0 },
  };
}

const CwbBodyModelVTable *
test_rigid_body_vtable (const CwbPluginDesc **desc)
{
  const CwbPluginDesc *d = test_plugin_load ("CWB_RIGID_BODY_PLUGIN", CWB_PLUGIN_BODY_MODEL,
                                            "rigid");
  if (desc != NULL)
    *desc = d;
  return d->vtable;
}

const CwbMappingVTable *
test_rigid_mapping_vtable (void)
{
  return test_plugin_load ("CWB_RIGID_MAPPING_PLUGIN", CWB_PLUGIN_MAPPING, "rigid")->vtable;
}

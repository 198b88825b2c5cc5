/* Scene values against declared parameter schemas. The text of each value is parsed by
 * cwb_param_parse_text, the one parser of parameter values (defaults use it too), so a value
 * means the same whether it comes from a scene file, --set or a schema default. */
#include "param_bind.h"

#include "param_parse.h"

/* Flow text of a scalar or a sequence of scalars, as cwb_param_parse_text reads it; NULL and
 * a message for anything deeper, or for a quoted string where the spec wants no string. */
static char *
node_to_param_text (const CwbParamSpec *spec, const CwbSceneNode *node, char **why)
{
  if (node->kind == CWB_NODE_SCALAR)
    {
      if (node->quoted && spec->type != CWB_PARAM_STRING && spec->type != CWB_PARAM_ENUM)
        {
          *why = g_strdup_printf ("expected %s, got the string \"%s\"",
                                  spec->type == CWB_PARAM_BOOL ? "true or false" : "a number",
                                  node->scalar);
          return NULL;
        }
      return g_strdup (node->scalar);
    }
  if (node->kind == CWB_NODE_SEQUENCE)
    {
      g_autoptr (GString) text = g_string_new ("[");
      for (guint k = 0; k < node->items->len; k++)
        {
          const CwbSceneNode *item = g_ptr_array_index (node->items, k);
          if (item->kind != CWB_NODE_SCALAR)
            {
              *why = g_strdup ("expected a list of numbers, got a nested value");
              return NULL;
            }
          g_string_append_printf (text, "%s%s", k > 0 ? ", " : "", item->scalar);
        }
      g_string_append_c (text, ']');
      return g_string_free (g_steal_pointer (&text), FALSE);
    }
  *why = g_strdup ("expected a single value, got a mapping");
  return NULL;
}

gboolean
cwb_param_value_from_node (const CwbParamSpec *spec, const CwbSceneNode *node,
                           const char *field, CwbParamValue *out, GError **error)
{
  g_autofree char *why = NULL;
  g_autofree char *text = node_to_param_text (spec, node, &why);
  if (text == NULL || !cwb_param_parse_text (spec, text, out, &why))
    {
      cwb_scene_set_error (error,
                           why != NULL && strstr (why, "in [") != NULL ? CWB_SCENE_ERROR_RANGE
                                                                       : CWB_SCENE_ERROR_TYPE,
                           &node->loc, field, "%s", why != NULL ? why : "invalid value");
      return FALSE;
    }
  return TRUE;
}

static char *
known_names (const CwbParamSpec *specs, size_t n)
{
  if (n == 0)
    return g_strdup ("this plugin has no parameters");
  g_autoptr (GString) s = g_string_new ("expected one of: ");
  for (size_t k = 0; k < n; k++)
    g_string_append_printf (s, "%s%s", k > 0 ? ", " : "", specs[k].name);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

CwbParamBinding *
cwb_param_binding_new (const CwbParamSpec *specs, size_t n_specs, GPtrArray *params,
                       const char *field_prefix, GError **error)
{
  g_autoptr (CwbParamBinding) binding = g_new0 (CwbParamBinding, 1);
  binding->values = g_new0 (CwbParamValue, MAX (n_specs, 1));
  binding->set.struct_size = sizeof (CwbParamSet);
  binding->set.specs = specs;
  binding->set.values = binding->values;
  binding->set.n = n_specs;

  for (size_t k = 0; k < n_specs; k++)
    {
      g_autofree char *why = NULL;
      /* The registry refuses plugins whose defaults do not parse, so this cannot fail for a
       * loaded plugin; a failure here is a host bug. */
      if (!cwb_param_parse_text (&specs[k], specs[k].default_value, &binding->values[k], &why))
        g_error ("default of parameter '%s' does not parse: %s", specs[k].name, why);
    }

  for (guint i = 0; params != NULL && i < params->len; i++)
    {
      const CwbSceneParam *param = g_ptr_array_index (params, i);
      g_autofree char *field = g_strdup_printf ("%s.%s", field_prefix, param->name);
      size_t k = 0;
      while (k < n_specs && strcmp (specs[k].name, param->name) != 0)
        k++;
      if (k == n_specs)
        {
          g_autofree char *names = known_names (specs, n_specs);
          cwb_scene_set_error (error, CWB_SCENE_ERROR_UNKNOWN_FIELD, &param->key_loc, field,
                               "unknown parameter '%s' (%s)", param->name, names);
          return NULL;
        }
      if (!cwb_param_value_from_node (&specs[k], param->value, field, &binding->values[k],
                                      error))
        return NULL;
    }
  return g_steal_pointer (&binding);
}

CwbParamBinding *
cwb_param_binding_copy (const CwbParamBinding *binding)
{
  CwbParamBinding *copy = g_new0 (CwbParamBinding, 1);
  copy->values = g_memdup2 (binding->values, MAX (binding->set.n, 1) * sizeof (CwbParamValue));
  copy->set = binding->set;
  copy->set.values = copy->values;
  return copy;
}

void
cwb_param_binding_free (CwbParamBinding *binding)
{
  if (binding == NULL)
    return;
  g_free (binding->values);
  g_free (binding);
}

char *
cwb_param_value_to_text (const CwbParamSpec *spec, const CwbParamValue *value)
{
  char buf[3][G_ASCII_DTOSTR_BUF_SIZE];
  switch (spec->type)
    {
    case CWB_PARAM_BOOL:
      return g_strdup (value->b ? "true" : "false");
    case CWB_PARAM_INT:
      return g_strdup_printf ("%" G_GINT64_FORMAT, value->i);
    case CWB_PARAM_DOUBLE:
      return g_strdup (cwb_scene_format_double (buf[0], value->d));
    case CWB_PARAM_ENUM:
    case CWB_PARAM_STRING:
      return g_strdup (value->s != NULL ? value->s : "");
    case CWB_PARAM_VEC3:
      return g_strdup_printf ("[%s, %s, %s]",
                              cwb_scene_format_double (buf[0], value->v3[0]),
                              cwb_scene_format_double (buf[1], value->v3[1]),
                              cwb_scene_format_double (buf[2], value->v3[2]));
    default:
      return g_strdup ("");
    }
}

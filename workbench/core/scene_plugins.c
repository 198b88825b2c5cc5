/* A scene's contact model and solver: choosing another keeps the parameters of the one in use
 * for when it comes back (the sections' other_models), so that no plugin is given another's
 * parameters and none are lost (scene.h). */
#include <string.h>

#include "scene.h"

/* The parameters of a MAPPING node (key, value, ...) as a CwbSceneParam array. */
static GPtrArray *
params_of_node (const CwbSceneNode *mapping)
{
  GPtrArray *params = cwb_scene_params_new ();
  for (guint i = 0; mapping->items != NULL && i + 1 < mapping->items->len; i += 2)
    {
      const CwbSceneNode *key = mapping->items->pdata[i];
      cwb_scene_params_set (params, key->scalar,
                            cwb_scene_node_copy (mapping->items->pdata[i + 1]), &key->loc);
    }
  return params;
}

/* The reverse: a MAPPING node holding copies of the parameters, keys at their locations. */
static CwbSceneNode *
node_of_params (GPtrArray *params, const CwbSourceLoc *loc)
{
  CwbSceneNode *mapping = cwb_scene_node_new_container (CWB_NODE_MAPPING, loc);
  for (guint i = 0; i < params->len; i++)
    {
      const CwbSceneParam *param = params->pdata[i];
      g_ptr_array_add (mapping->items, cwb_scene_node_new_scalar (param->name, &param->key_loc));
      g_ptr_array_add (mapping->items, cwb_scene_node_copy (param->value));
    }
  return mapping;
}

static void
append_names (GString *out, GPtrArray *params)
{
  for (guint i = 0; i < params->len; i++)
    g_string_append_printf (out, "%s%s", i > 0 ? ", " : "",
                            ((const CwbSceneParam *) params->pdata[i])->name);
}

GPtrArray *
cwb_scene_kept_params (const CwbScene *scene, gboolean contact, const char *name)
{
  g_return_val_if_fail (scene != NULL, NULL);
  if (name == NULL)
    return NULL;
  const CwbSceneParam *kept = cwb_scene_params_find (contact ? scene->contact_kept
                                                             : scene->solver_kept, name);
  return kept != NULL ? params_of_node (kept->value) : NULL;
}

char *
cwb_scene_choose_plugin (CwbScene *scene, gboolean contact, const char *name,
                         const CwbSourceLoc *loc)
{
  g_return_val_if_fail (scene != NULL && (contact || name != NULL), NULL);
  char **current = contact ? &scene->contact_model : &scene->solver;
  const char *in_use = contact ? *current
                               : *current != NULL ? *current : CWB_SCENE_DEFAULT_SOLVER;
  GPtrArray *params = contact ? scene->contact_params : scene->solver_params;
  GPtrArray *kept = contact ? scene->contact_kept : scene->solver_kept;
  if (g_strcmp0 (name, in_use) == 0 && g_strcmp0 (name, *current) == 0)
    return NULL;

  g_autoptr (GString) note = g_string_new (NULL);
  /* Parameters with no model in use belong to none (the world refuses them): they stay. */
  if (in_use != NULL && params->len > 0 && g_strcmp0 (name, in_use) != 0)
    {
      g_string_append_printf (note, "the parameters of %s (", in_use);
      append_names (note, params);
      g_string_append (note, ") are kept for it in other_models");
      cwb_scene_params_set (kept, in_use, node_of_params (params, loc), loc);
      g_ptr_array_set_size (params, 0);
    }
  g_autoptr (GPtrArray) back = cwb_scene_kept_params (scene, contact, name);
  if (back != NULL)
    {
      g_string_append_printf (note, "%sthose kept for %s (", note->len > 0 ? "; " : "", name);
      append_names (note, back);
      g_string_append (note, ") are back");
      for (guint i = 0; i < back->len; i++)
        {
          const CwbSceneParam *param = back->pdata[i];
          cwb_scene_params_set (params, param->name, cwb_scene_node_copy (param->value),
                                &param->key_loc);
        }
      for (guint i = 0; i < kept->len; i++)
        if (strcmp (((const CwbSceneParam *) kept->pdata[i])->name, name) == 0)
          {
            g_ptr_array_remove_index (kept, i);
            break;
          }
    }
  g_free (*current);
  *current = g_strdup (name);
  *(contact ? &scene->contact_model_loc : &scene->solver_loc) = *loc;
  return note->len > 0 ? g_string_free (g_steal_pointer (&note), FALSE) : NULL;
}

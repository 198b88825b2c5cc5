/* --set KEY=VALUE overrides. The value is parsed as YAML (numbers, booleans, [x, y, z]) and
 * goes through the same checks as the scene file's value would (scene_decode.c); plugin
 * parameters are stored as nodes and checked against their schemas when the world is
 * built. Messages read "--set: KEY: what is wrong, expected what". */
#include <string.h>

#include "scene.h"
#include "scene_private.h"

static const CwbSourceLoc *
set_loc (void)
{
  static CwbSourceLoc loc = { NULL, 0, 0 };
  if (loc.file == NULL)
    loc.file = g_intern_static_string ("--set");
  return &loc;
}

static gboolean
set_unknown (GError **error, const char *field, const char *what)
{
  cwb_scene_set_error (error, CWB_SCENE_ERROR_UNKNOWN_FIELD, set_loc (), field, "%s", what);
  return FALSE;
}

static gboolean
set_param (GPtrArray *params, const char *name, const char *key, CwbSceneNode *value,
           GError **error)
{
  if (name[0] == '\0')
    {
      cwb_scene_node_free (value);
      return set_unknown (error, key, "empty parameter name");
    }
  cwb_scene_params_set (params, name, value, set_loc ());
  return TRUE;
}

static gboolean
set_world (CwbScene *scene, const char *rest, const char *key, const CwbSceneNode *value,
           GError **error)
{
  if (strcmp (rest, "dt") == 0)
    {
      double dt;
      if (!cwb_scene_node_get_double (value, key, &dt, error))
        return FALSE;
      if (!(dt > 0))
        {
          cwb_scene_set_error (error, CWB_SCENE_ERROR_RANGE, set_loc (), key,
                               "%g is out of range, expected a time step > 0", dt);
          return FALSE;
        }
      scene->dt = dt;
      return TRUE;
    }
  if (strcmp (rest, "gravity") == 0)
    return cwb_scene_node_get_vec (value, key, scene->gravity, 3, error);
  return set_unknown (error, key, "unknown field, expected world.dt or world.gravity");
}

/* shape.FIELD on a copy, so that a rejected value (or a type change that leaves required
 * fields unset) leaves the scene as it was. */
static gboolean
set_shape (CwbBodyDesc *body, const char *field_name, const char *key,
           const CwbSceneNode *value, GError **error)
{
  CwbShapeDesc shape = body->shape;
  shape.mesh_file = g_strdup (body->shape.mesh_file);
  shape.field = g_strdup (body->shape.field);
  gboolean ok = cwb_scene_decode_shape_field (&shape, field_name, value, key, error);
  if (ok && strcmp (field_name, "file") == 0)
    shape.file_loc = *set_loc ();
  g_autofree char *shape_field = g_strconcat ("bodies.", body->name, ".shape", NULL);
  ok = ok && cwb_scene_shape_check (&shape, set_loc (), shape_field, error);
  if (!ok)
    {
      g_free (shape.mesh_file);
      g_free (shape.field);
      return FALSE;
    }
  g_free (body->shape.mesh_file);
  g_free (body->shape.field);
  body->shape = shape;
  return TRUE;
}

static gboolean
set_body (CwbScene *scene, const char *rest, const char *key, CwbSceneNode *value,
          GError **error)
{
  const char *dot = strchr (rest, '.');
  if (dot == NULL || dot == rest || dot[1] == '\0')
    {
      cwb_scene_node_free (value);
      return set_unknown (error, key, "expected bodies.NAME.FIELD");
    }
  g_autofree char *name = g_strndup (rest, (gsize) (dot - rest));
  const char *field = dot + 1;
  CwbBodyDesc *body = cwb_scene_find_body (scene, name);
  if (body == NULL)
    {
      g_autoptr (GString) names = g_string_new (NULL);
      for (guint i = 0; i < scene->bodies->len; i++)
        g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                                ((CwbBodyDesc *) scene->bodies->pdata[i])->name);
      g_autofree char *what = g_strdup_printf ("no body named '%s', expected one of: %s", name,
                                               names->str);
      g_autofree char *body_field = g_strconcat ("bodies.", name, NULL);
      cwb_scene_node_free (value);
      return set_unknown (error, body_field, what);
    }

  /* The scene file's nested spellings work too: pose.position, material.friction ... */
  static const char *const aliases[][2] = {
    { "pose.position", "position" }, { "pose.orientation", "orientation" },
    { "velocity.linear", "linear_velocity" }, { "velocity.angular", "angular_velocity" },
    { "material.density", "density" }, { "material.friction", "friction" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (strcmp (field, aliases[i][0]) == 0)
      field = aliases[i][1];

  g_autoptr (CwbSceneNode) owned = value;
  if (cwb_scene_body_leaf_known (field))
    return cwb_scene_decode_body_leaf (body, field, owned, key, error);
  if (g_str_has_prefix (field, "shape."))
    return set_shape (body, field + strlen ("shape."), key, owned, error);
  if (g_str_has_prefix (field, "model_params."))
    return set_param (body->model_params, field + strlen ("model_params."), key,
                      g_steal_pointer (&owned), error);
  if (g_str_has_prefix (field, "mapping_params."))
    return set_param (body->mapping_params, field + strlen ("mapping_params."), key,
                      g_steal_pointer (&owned), error);
  if (strchr (field, '.') != NULL || strcmp (field, "name") == 0 || strcmp (field, "shape") == 0)
    return set_unknown (error, key,
                        "unknown field, expected a body field (model, mapping, fixed, position, "
                        "orientation, linear_velocity, angular_velocity, density, friction, "
                        "shape.FIELD) or a parameter of the body model or mapping");
  /* Any other word is a plugin parameter; the world moves it to the mapping's parameters
   * when only the mapping's schema has it (cwb_scene_params_move). */
  return set_param (body->model_params, field, key, g_steal_pointer (&owned), error);
}

gboolean
cwb_scene_apply_set (CwbScene *scene, const char *key, const char *value, GError **error)
{
  g_autofree char *note = NULL;
  if (!cwb_scene_apply_set_noted (scene, key, value, &note, error))
    return FALSE;
  if (note != NULL)
    g_message ("--set %s=%s: %s", key, value, note);
  return TRUE;
}

gboolean
cwb_scene_apply_set_noted (CwbScene *scene, const char *key, const char *value, char **note,
                           GError **error)
{
  g_return_val_if_fail (scene != NULL && key != NULL && value != NULL && note != NULL, FALSE);
  *note = NULL;
  /* A scene is UTF-8 text: a key or value that is not could be neither saved nor read. */
  if (!g_utf8_validate (key, -1, NULL))
    {
      g_autofree char *shown = g_strescape (key, NULL);
      cwb_scene_set_error (error, CWB_SCENE_ERROR_SYNTAX, set_loc (), shown,
                           "the key is not UTF-8 text");
      return FALSE;
    }
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (CwbSceneNode) node = cwb_scene_node_parse (value, set_loc (), &parse_error);
  if (node == NULL)
    {
      /* parse_error reads "--set: syntax error: ..."; name the key as every message does. */
      const char *problem = parse_error->message + strlen ("--set: ");
      cwb_scene_set_error (error, CWB_SCENE_ERROR_SYNTAX, set_loc (), key,
                           "cannot read the value '%s' (%s)", value, problem);
      return FALSE;
    }

  const char *dot = strchr (key, '.');
  g_autofree char *section = dot != NULL ? g_strndup (key, (gsize) (dot - key)) : g_strdup (key);
  const char *rest = dot != NULL ? dot + 1 : "";

  if (strcmp (section, "world") == 0)
    return set_world (scene, rest, key, node, error);
  if (strcmp (section, "contact") == 0 || strcmp (section, "solver") == 0)
    {
      gboolean contact = section[0] == 'c';
      const char *name_key = contact ? "model" : "name";
      if (strcmp (rest, name_key) == 0)
        {
          const char *text;
          if (!cwb_scene_node_get_string (node, key, &text, error))
            return FALSE;
          if (text[0] == '\0')
            {
              cwb_scene_set_error (error, CWB_SCENE_ERROR_TYPE, set_loc (), key,
                                   "empty, expected a plugin name");
              return FALSE;
            }
          /* The plugin in use keeps its parameters for when it comes back; the note tells
           * the user what moved, since the run will not use them. */
          *note = cwb_scene_choose_plugin (scene, contact, text, set_loc ());
          return TRUE;
        }
      return set_param (contact ? scene->contact_params : scene->solver_params, rest, key,
                        g_steal_pointer (&node), error);
    }
  if (strcmp (section, "bodies") == 0)
    return set_body (scene, rest, key, g_steal_pointer (&node), error);
  g_autofree char *what = g_strdup_printf ("unknown section '%s', expected one of world, "
                                           "contact, solver, bodies", section);
  return set_unknown (error, key, what);
}

/* contact.model or solver.name: the keys that choose a plugin. */
static gboolean
chooses_plugin (const char *set)
{
  return g_str_has_prefix (set, "contact.model=") || g_str_has_prefix (set, "solver.name=");
}

gboolean
cwb_scene_apply_assignment (CwbScene *scene, const char *set, char **note, GError **error)
{
  g_return_val_if_fail (scene != NULL && set != NULL && note != NULL, FALSE);
  *note = NULL;
  const char *eq = strchr (set, '=');
  if (eq == NULL || eq == set)
    {
      g_set_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_SYNTAX,
                   "--set %s: expected KEY=VALUE", set);
      return FALSE;
    }
  g_autofree char *key = g_strndup (set, (gsize) (eq - set));
  return cwb_scene_apply_set_noted (scene, key, eq + 1, note, error);
}

gboolean
cwb_scene_apply_sets (CwbScene *scene, char *const *sets, GError **error)
{
  g_return_val_if_fail (scene != NULL, FALSE);
  /* Two passes: the plugins first, so that every parameter given beside a new plugin is that
   * plugin's, wherever it stands on the command line. */
  for (int pass = 0; pass < 2; pass++)
    for (char *const *s = sets; s != NULL && *s != NULL; s++)
      {
        if (chooses_plugin (*s) != (pass == 0))
          continue;
        g_autofree char *note = NULL;
        if (!cwb_scene_apply_assignment (scene, *s, &note, error))
          return FALSE;
        if (note != NULL)
          g_message ("--set %s: %s", *s, note);
      }
  return TRUE;
}

#include "world_fixture.h"

const char *const fixture_two_boxes_yaml =
  "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
  "contact: { model: halfspace }\n"
  "solver: { name: constraint }\n"
  "bodies:\n"
  "  - name: resting\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 0.1] }\n"
  "  - name: tumbling\n"
  "    shape: { type: box, size: [0.3, 0.2, 0.1] }\n"
  "    pose: { position: [1, 0, 2] }\n"
  "    velocity: { linear: [0.5, 0, 3], angular: [0.1, 5, 0.2] }\n";

CwbRegistry *
fixture_registry (void)
{
  CwbRegistry *registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (registry);
  /* The test-only plugins (halfspace, faulty), ':'-separated. */
  const char *dirs = g_getenv ("CWB_TEST_PLUGIN_DIRS");
  g_assert_nonnull (dirs);
  g_auto (GStrv) list = g_strsplit (dirs, ":", -1);
  for (char **d = list; *d != NULL; d++)
    cwb_registry_add_dir (registry, *d);
  cwb_registry_scan (registry);
  return registry;
}

CwbWorld *
fixture_world (CwbRegistry *registry, const char *yaml)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (yaml, -1, "test.yaml", &error);
  g_assert_no_error (error);
  CwbWorld *world = cwb_world_new (scene, registry, &error);
  g_assert_no_error (error);
  return world;
}

CwbWorld *
fixture_world_from_file (CwbRegistry *registry, const char *relative_path,
                         const char *const *sets)
{
  g_autofree char *path = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), relative_path, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load (path, &error);
  g_assert_no_error (error);
  for (const char *const *set = sets; set != NULL && *set != NULL; set++)
    {
      const char *eq = strchr (*set, '=');
      g_assert_nonnull (eq);
      g_autofree char *key = g_strndup (*set, (gsize) (eq - *set));
      g_assert_true (cwb_scene_apply_set (scene, key, eq + 1, &error));
      g_assert_no_error (error);
    }
  CwbWorld *world = cwb_world_new (scene, registry, &error);
  g_assert_no_error (error);
  return world;
}

GPtrArray *
fixture_params (const char *first_name, ...)
{
  GPtrArray *params = g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_scene_param_free);
  va_list args;
  va_start (args, first_name);
  for (const char *name = first_name; name != NULL; name = va_arg (args, const char *))
    {
      const char *text = va_arg (args, const char *);
      CwbSourceLoc loc = { "test", 1, 1 };
      g_autoptr (GError) error = NULL;
      CwbSceneNode *node = cwb_scene_node_parse (text, &loc, &error);
      g_assert_no_error (error);
      cwb_scene_params_set (params, name, node, &loc);
    }
  va_end (args);
  return params;
}

void
fixture_step (CwbWorld *world, int n)
{
  for (int k = 0; k < n; k++)
    {
      g_autoptr (GError) error = NULL;
      cwb_world_step (world, &error);
      g_assert_no_error (error);
    }
}

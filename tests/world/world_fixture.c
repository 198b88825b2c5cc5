#include "world_fixture.h"

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

/* Shared set-up for the world tests: a registry with the build tree's plugins and the
 * test-only plugins, and worlds built from scene text. */
#pragma once

#include "registry.h"
#include "scene.h"
#include "world.h"

/* Two boxes on the test half-space: one resting (contact rows with friction every step), one
 * tumbling in flight (rotation in the state). The half-space keeps no memory between steps,
 * so a restored state replays exactly. */
extern const char *const fixture_two_boxes_yaml;

/* A registry with the default folders (the build tree's plugins) and the test plugins. */
CwbRegistry *fixture_registry (void);

/* A world from YAML text; fails the test with the error's message if it does not build. */
CwbWorld *fixture_world (CwbRegistry *registry, const char *yaml);

/* A world from a scene file of the source tree (path relative to CWB_SOURCE_DIR) with --set
 * style overrides ("KEY=VALUE", NULL-terminated, may be NULL); fails the test on an error.
 * The registry must outlive the world. */
CwbWorld *fixture_world_from_file (CwbRegistry *registry, const char *relative_path,
                                   const char *const *sets);

/* A parameter list as a scene section holds one (for cwb_world_set_plugin_params): NAME,
 * TEXT pairs, each TEXT parsed as a scene value, NULL-terminated. */
GPtrArray *fixture_params (const char *first_name, ...) G_GNUC_NULL_TERMINATED;

/* Steps n times, failing the test on the first error. */
void fixture_step (CwbWorld *world, int n);

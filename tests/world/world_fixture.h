/* Shared set-up for the world tests: a registry with the build tree's plugins and the
 * test-only plugins, and worlds built from scene text. */
#pragma once

#include "registry.h"
#include "scene.h"
#include "world.h"

/* A registry with the default folders (the build tree's plugins) and the test plugins. */
CwbRegistry *fixture_registry (void);

/* A world from YAML text; fails the test with the error's message if it does not build. */
CwbWorld *fixture_world (CwbRegistry *registry, const char *yaml);

/* Steps n times, failing the test on the first error. */
void fixture_step (CwbWorld *world, int n);

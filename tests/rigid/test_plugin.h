/* Loading built plugins the way the host does (GModule, entry symbol), and the small pieces
 * of host a test needs: a parameter set from a schema, a body from a shape. The rigid tests
 * and the barycentric mapping's tests share it. */
#pragma once

#include <cwb/cwb.h>

#include "test_shapes.h"

G_BEGIN_DECLS

/* Opens the library named by environment variable `env_var` (set by meson to the built
 * module), checks its entry symbol, ABI major, kind and name; aborts the test on failure. */
const CwbPluginDesc *test_plugin_load (const char *env_var, CwbPluginKind kind,
                                       const char *name);

#define TEST_PARAMS_MAX 24

/* A parameter set holding a schema's defaults, editable by name. */
typedef struct TestParams {
  CwbParamValue values[TEST_PARAMS_MAX];
  CwbParamSet set;
} TestParams;

void test_params_init (TestParams *params, const CwbPluginDesc *desc);
void test_params_set_double (TestParams *params, const char *name, double value);
void test_params_set_bool (TestParams *params, const char *name, gboolean value);
/* An ENUM parameter by its word. */
void test_params_set_enum (TestParams *params, const char *name, const char *word);

/* Host services with no callbacks: the plugins tested need none. */
const CwbHostServices *test_host (void);

/* Create info for a body of `shape` at the identity pose, at rest. */
CwbBodyCreateInfo test_body_info (const char *name, const TestShape *shape, double density,
                                  gboolean fixed, const TestParams *params);

/* The rigid body model's and mapping's vtables (loaded from CWB_RIGID_BODY_PLUGIN and
 * CWB_RIGID_MAPPING_PLUGIN), with their descriptions. */
const CwbBodyModelVTable *test_rigid_body_vtable (const CwbPluginDesc **desc);
const CwbMappingVTable *test_rigid_mapping_vtable (void);

G_END_DECLS

/* Malformed scenes: each case asserts the error code, and that the message starts with
 * "FILE:LINE:COL:" at the offending value (or key) and names the field. */
#include <string.h>

#include "mesh.h"
#include "scene.h"

typedef struct BadCase {
  const char *path;      /* test path */
  const char *yaml;
  CwbSceneError code;
  int line, column;
  const char *field;     /* expected right after the location */
} BadCase;

#define BODY "bodies:\n  - name: b\n"

static const BadCase bad_cases[] = {
  { "syntax/unclosed-flow", "world: {dt: 0.01\nbodies: []\n", CWB_SCENE_ERROR_SYNTAX, 2, 7,
    "syntax error" },
  { "syntax/tab-indent", "world:\n\tdt: 0.01\n", CWB_SCENE_ERROR_SYNTAX, 2, 1, "syntax error" },
  /* libyaml gives text that is not UTF-8 no line and column; the message counts them. */
  { "syntax/not-utf8", "world: {dt: 0.01}\nbodies:\n  - name: b\xff\n", CWB_SCENE_ERROR_SYNTAX, 3,
    12, "not UTF-8 text" },
  /* "a\0b" and "a\0c" would both be the name "a". */
  { "syntax/nul-escape", "bodies:\n  - name: \"a\\0b\"\n", CWB_SCENE_ERROR_SYNTAX, 2, 11,
    "a NUL character" },
  { "syntax/two-documents", "world: {}\n---\nworld: {}\n", CWB_SCENE_ERROR_SYNTAX, 2, 1,
    "more than one YAML document" },
  { "duplicate/key", "world:\n  dt: 0.1\n  dt: 0.2\n", CWB_SCENE_ERROR_DUPLICATE, 3, 3, "dt" },
  { "unknown/top-level", "world: {}\nbodys: []\n", CWB_SCENE_ERROR_UNKNOWN_FIELD, 2, 1,
    "bodys" },
  { "unknown/world", "world:\n  dt: 0.01\n  gravty: [0, 0, -9.81]\n",
    CWB_SCENE_ERROR_UNKNOWN_FIELD, 3, 3, "world.gravty" },
  { "unknown/body", BODY "    shape: {type: sphere, radius: 1}\n    colour: red\n",
    CWB_SCENE_ERROR_UNKNOWN_FIELD, 4, 5, "bodies.b.colour" },
  { "unknown/pose", BODY "    shape: {type: sphere, radius: 1}\n    pose: {positon: [0, 0, 0]}\n",
    CWB_SCENE_ERROR_UNKNOWN_FIELD, 4, 12, "bodies.b.pose.positon" },
  { "unknown/shape-field", BODY "    shape: {type: box, radius: 1}\n",
    CWB_SCENE_ERROR_UNKNOWN_FIELD, 3, 24, "bodies.b.shape.radius" },
  { "range/shape-type", BODY "    shape: {type: cone}\n", CWB_SCENE_ERROR_RANGE, 3, 19,
    "bodies.b.shape.type" },
  { "type/word-for-number", "world:\n  dt: abc\n", CWB_SCENE_ERROR_TYPE, 2, 7, "world.dt" },
  { "type/quoted-number", "world:\n  dt: \"0.01\"\n", CWB_SCENE_ERROR_TYPE, 2, 7, "world.dt" },
  { "type/infinite", "world:\n  dt: .inf\n", CWB_SCENE_ERROR_TYPE, 2, 7, "world.dt" },
  { "type/overflow", "world:\n  dt: 1e999\n", CWB_SCENE_ERROR_TYPE, 2, 7, "world.dt" },
  { "type/nan", "world:\n  dt: nan\n", CWB_SCENE_ERROR_TYPE, 2, 7, "world.dt" },
  { "type/short-vector", "world:\n  gravity: [0, -9.81]\n", CWB_SCENE_ERROR_TYPE, 2, 12,
    "world.gravity" },
  { "type/vector-item", "world:\n  gravity: [0, x, -9.81]\n", CWB_SCENE_ERROR_TYPE, 2, 16,
    "world.gravity[1]" },
  { "type/bool", BODY "    shape: {type: sphere, radius: 1}\n    fixed: yes\n",
    CWB_SCENE_ERROR_TYPE, 4, 12, "bodies.b.fixed" },
  { "type/bodies-mapping", "bodies:\n  b: {}\n", CWB_SCENE_ERROR_TYPE, 2, 3, "bodies" },
  { "type/resolution-float", BODY "    shape: {type: sphere, radius: 1, resolution: 8.5}\n",
    CWB_SCENE_ERROR_TYPE, 3, 50, "bodies.b.shape.resolution" },
  { "range/dt-zero", "world:\n  dt: 0\n", CWB_SCENE_ERROR_RANGE, 2, 7, "world.dt" },
  { "range/dt-negative", "world:\n  dt: -1\n", CWB_SCENE_ERROR_RANGE, 2, 7, "world.dt" },
  { "range/density", BODY "    shape: {type: sphere, radius: 1}\n    material: {density: -5}\n",
    CWB_SCENE_ERROR_RANGE, 4, 25, "bodies.b.material.density" },
  { "range/friction", BODY "    shape: {type: sphere, radius: 1}\n    material: {friction: -0.1}\n",
    CWB_SCENE_ERROR_RANGE, 4, 26, "bodies.b.material.friction" },
  { "range/size", BODY "    shape: {type: box, size: [1, 0, 1]}\n", CWB_SCENE_ERROR_RANGE, 3,
    30, "bodies.b.shape.size" },
  { "range/radius", BODY "    shape: {type: sphere, radius: -1}\n", CWB_SCENE_ERROR_RANGE, 3,
    35, "bodies.b.shape.radius" },
  { "range/resolution", BODY "    shape: {type: sphere, radius: 1, resolution: 2}\n",
    CWB_SCENE_ERROR_RANGE, 3, 50, "bodies.b.shape.resolution" },
  { "range/torus", BODY "    shape: {type: torus, major_radius: 1, minor_radius: 2}\n",
    CWB_SCENE_ERROR_RANGE, 3, 12, "bodies.b.shape.minor_radius" },
  { "range/zero-quaternion", BODY "    shape: {type: sphere, radius: 1}\n"
    "    pose: {orientation: [0, 0, 0, 0]}\n", CWB_SCENE_ERROR_RANGE, 4, 25,
    "bodies.b.pose.orientation" },
  { "missing/name", "bodies:\n  - shape: {type: sphere, radius: 1}\n",
    CWB_SCENE_ERROR_MISSING, 2, 5, "bodies[0].name" },
  { "missing/shape", BODY "    fixed: true\n", CWB_SCENE_ERROR_MISSING, 2, 5,
    "bodies.b.shape" },
  { "missing/shape-type", BODY "    shape: {radius: 1}\n", CWB_SCENE_ERROR_MISSING, 3, 12,
    "bodies.b.shape.type" },
  { "missing/box-size", BODY "    shape: {type: box}\n", CWB_SCENE_ERROR_MISSING, 3, 12,
    "bodies.b.shape.size" },
  /* The rectangle's size is [w, h]: a third entry (a box's size pasted in) is refused,
   * as are a zero extent, a missing size and a resolution below one cell. */
  { "range/rectangle-size", BODY "    shape: {type: rectangle, size: [1, 0]}\n",
    CWB_SCENE_ERROR_RANGE, 3, 36, "bodies.b.shape.size" },
  { "range/rectangle-size-negative", BODY "    shape: {type: rectangle, size: [-1, 2]}\n",
    CWB_SCENE_ERROR_RANGE, 3, 36, "bodies.b.shape.size" },
  { "type/rectangle-size-three", BODY "    shape: {type: rectangle, size: [1, 1, 0.1]}\n",
    CWB_SCENE_ERROR_TYPE, 3, 36, "bodies.b.shape.size" },
  { "type/rectangle-size-scalar", BODY "    shape: {type: rectangle, size: 1}\n",
    CWB_SCENE_ERROR_TYPE, 3, 36, "bodies.b.shape.size" },
  { "missing/rectangle-size", BODY "    shape: {type: rectangle, resolution: 8}\n",
    CWB_SCENE_ERROR_MISSING, 3, 12, "bodies.b.shape.size" },
  { "range/rectangle-resolution", BODY "    shape: {type: rectangle, size: [1, 1], "
    "resolution: 0}\n", CWB_SCENE_ERROR_RANGE, 3, 56, "bodies.b.shape.resolution" },
  { "unknown/rectangle-field", BODY "    shape: {type: rectangle, size: [1, 1], radius: 1}\n",
    CWB_SCENE_ERROR_UNKNOWN_FIELD, 3, 44, "bodies.b.shape.radius" },
  { "duplicate/body", BODY "    shape: {type: sphere, radius: 1}\n"
    "  - name: b\n    shape: {type: sphere, radius: 2}\n", CWB_SCENE_ERROR_DUPLICATE, 4, 11,
    "bodies[1].name" },
};

static void
test_bad_case (gconstpointer data)
{
  const BadCase *c = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (c->yaml, -1, "bad.yaml", &error);
  g_assert_null (scene);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_error (error, CWB_SCENE_ERROR, (gint) c->code);
  g_autofree char *prefix = g_strdup_printf ("bad.yaml:%d:%d: %s", c->line, c->column, c->field);
  if (!g_str_has_prefix (error->message, prefix))
    g_error ("message '%s' does not start with '%s'", error->message, prefix);
}

/* The messages of a rectangle's bad size say what is expected: two extents, and for three
 * that a rectangle is flat. */
static void
test_rectangle_size_messages (void)
{
  static const struct { const char *size, *expected; } cases[] = {
    { "[1, 1, 0.1]", "bad.yaml:3:36: bodies.b.shape.size: expected [w, h], the rectangle's "
                     "extents along x and y, got 3 values (a rectangle is flat: it has no "
                     "thickness)" },
    { "[1, 0]", "bad.yaml:3:36: bodies.b.shape.size: size[1] = 0 is out of range, expected "
                "extents > 0" },
    { "[1]", "bad.yaml:3:36: bodies.b.shape.size: expected [w, h], the rectangle's extents "
             "along x and y, got 1 value" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *yaml = g_strdup_printf (BODY "    shape: {type: rectangle, size: %s}\n",
                                               cases[i].size);
      g_autoptr (GError) error = NULL;
      g_autoptr (CwbScene) scene = cwb_scene_load_from_data (yaml, -1, "bad.yaml", &error);
      g_assert_null (scene);
      g_assert_nonnull (error);
      if (!g_str_has_prefix (error->message, cases[i].expected))
        g_error ("message '%s' does not start with '%s'", error->message, cases[i].expected);
    }
}

/* A missing mesh file is found when the shape is built, and reported at the file value. */
static void
test_missing_mesh_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (
    "bodies:\n  - name: bunny\n    shape: {type: mesh, file: x.obj}\n", -1, "scene.yaml",
    &error);
  g_assert_no_error (error);
  CwbBodyDesc *bunny = scene->bodies->pdata[0];
  g_autoptr (CwbMesh) mesh = cwb_mesh_from_shape (&bunny->shape, "/nonexistent-cwb", &error);
  g_assert_null (mesh);
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_MESH);
  g_assert_true (g_str_has_prefix (error->message,
                                   "scene.yaml:3:31: bodies.bunny.shape.file: no such file "
                                   "'x.obj'"));
}

static void
test_unreadable_scene_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load ("/nonexistent-cwb/scene.yaml", &error);
  g_assert_null (scene);
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, "/nonexistent-cwb/scene.yaml: "));
}

static void
test_node_getters (void)
{
  CwbSourceLoc loc = { "v.yaml", 1, 1 };
  g_autoptr (GError) error = NULL;
  double d;
  gint64 i;
  gboolean b;

  g_autoptr (CwbSceneNode) integer = cwb_scene_node_parse ("7", &loc, &error);
  g_assert_true (cwb_scene_node_get_double (integer, "x", &d, &error));
  g_assert_cmpfloat (d, ==, 7);
  g_assert_true (cwb_scene_node_get_int (integer, "x", &i, &error));
  g_assert_cmpint (i, ==, 7);

  g_autoptr (CwbSceneNode) real = cwb_scene_node_parse ("-2.5e-3", &loc, &error);
  g_assert_true (cwb_scene_node_get_double (real, "x", &d, &error));
  g_assert_cmpfloat (d, ==, -2.5e-3);
  g_assert_false (cwb_scene_node_get_int (real, "x", &i, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_TYPE);
  g_clear_error (&error);

  g_autoptr (CwbSceneNode) hex = cwb_scene_node_parse ("0x10", &loc, &error);
  g_assert_false (cwb_scene_node_get_double (hex, "x", &d, &error));
  g_clear_error (&error);

  g_autoptr (CwbSceneNode) yes = cwb_scene_node_parse ("true", &loc, &error);
  g_assert_true (cwb_scene_node_get_bool (yes, "x", &b, &error));
  g_assert_true (b);
  g_autoptr (CwbSceneNode) quoted = cwb_scene_node_parse ("'true'", &loc, &error);
  g_assert_false (cwb_scene_node_get_bool (quoted, "x", &b, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_TYPE);
  g_clear_error (&error);

  double v[3];
  g_autoptr (CwbSceneNode) vec = cwb_scene_node_parse ("[0, 0, -9.81]", &loc, &error);
  g_assert_true (cwb_scene_node_get_vec (vec, "g", v, 3, &error));
  g_assert_cmpfloat (v[2], ==, -9.81);
  g_assert_false (cwb_scene_node_get_vec (vec, "g", v, 4, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_TYPE);
  g_clear_error (&error);

  g_assert_null (cwb_scene_node_parse ("[1, 2", &loc, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_SYNTAX);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autofree char *path = g_strconcat ("/scene/errors/", bad_cases[i].path, NULL);
      g_test_add_data_func (path, &bad_cases[i], test_bad_case);
    }
  g_test_add_func ("/scene/errors/rectangle-size-messages", test_rectangle_size_messages);
  g_test_add_func ("/scene/errors/missing-mesh-file", test_missing_mesh_file);
  g_test_add_func ("/scene/errors/unreadable-file", test_unreadable_scene_file);
  g_test_add_func ("/scene/nodes/getters", test_node_getters);
  return g_test_run ();
}

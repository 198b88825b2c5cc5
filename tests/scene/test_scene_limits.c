/* The scene format's limits (issue 17: hostile and careless input). A scene may nest values
 * CWB_SCENE_MAX_DEPTH deep and hold CWB_SCENE_MAX_VALUES values with its aliases expanded;
 * past either, parsing stops with CWB_SCENE_ERROR_LIMIT at the value that crossed it, fast
 * and in bounded memory, where a deep nesting used to overflow the stack of the tree's
 * recursive free and an alias that names its own anchor doubled the scene 40 times. */
#include <string.h>

#include "scene.h"

static const CwbSourceLoc value_loc = { "v.yaml", 1, 1 };

/* depth nested flow sequences around a scalar: [[...[1]...]]. */
static char *
nested_flow (int depth)
{
  GString *s = g_string_new (NULL);
  for (int k = 0; k < depth; k++)
    g_string_append_c (s, '[');
  g_string_append_c (s, '1');
  for (int k = 0; k < depth; k++)
    g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void
assert_limit (const GError *error, const char *what)
{
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_LIMIT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, what));
}

/* Exactly at the limit parses; one level more does not. */
static void
test_depth_at_limit (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *inside = nested_flow (CWB_SCENE_MAX_DEPTH - 1);
  g_autoptr (CwbSceneNode) node = cwb_scene_node_parse (inside, &value_loc, &error);
  g_assert_no_error (error);
  g_assert_nonnull (node);
  g_autofree char *past = nested_flow (CWB_SCENE_MAX_DEPTH);
  g_assert_null (cwb_scene_node_parse (past, &value_loc, &error));
  assert_limit (error, "nest deeper than 64 levels");
}

/* The reproducer: 150 000 block sequences in one another (300 KB) crashed the
 * program; 100 000 brackets kept the parser busy for seconds. Now both stop at level 64,
 * at the line and column of the value that crossed it. */
static void
test_deep_scenes (void)
{
  GString *block = g_string_new ("zz:\n");
  for (int k = 0; k < 150000; k++)
    g_string_append (block, "- ");
  g_string_append (block, "1\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (block->str, (gssize) block->len,
                                                         "deep.yaml", &error);
  g_assert_null (scene);
  assert_limit (error, "deep.yaml:2:");
  g_string_free (block, TRUE);
  g_clear_error (&error);

  g_autofree char *brackets = nested_flow (100000);
  g_autofree char *flow = g_strconcat ("world: ", brackets, "\n", NULL);
  g_autoptr (CwbScene) scene2 = cwb_scene_load_from_data (flow, -1, "flow.yaml", &error);
  g_assert_null (scene2);
  assert_limit (error, "flow.yaml:1:");
}

/* An anchor that names itself (the 199-byte scene reached 5.6 GB) and the classic
 * "billion laughs": both are refused before the copies are made. */
static void
test_alias_expansion (void)
{
  GString *self = g_string_new ("solver:\n  name: constraint\n  s: &s [1");
  for (int k = 0; k < 40; k++)
    g_string_append (self, ", *s");
  g_string_append (self, "]\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (self->str, -1, "self.yaml", &error);
  g_assert_null (scene);
  assert_limit (error, "with its aliases expanded");
  g_string_free (self, TRUE);
  g_clear_error (&error);

  GString *laughs = g_string_new ("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
  for (char c = 'b'; c <= 'j'; c++)
    {
      g_string_append_printf (laughs, "%c: &%c [", c, c);
      for (int k = 0; k < 10; k++)
        g_string_append_printf (laughs, "%s*%c", k > 0 ? ", " : "", c - 1);
      g_string_append (laughs, "]\n");
    }
  g_autoptr (CwbScene) scene2 = cwb_scene_load_from_data (laughs->str, -1, "lol.yaml", &error);
  g_assert_null (scene2);
  assert_limit (error, "lol.yaml:");
  g_string_free (laughs, TRUE);
}

/* Aliases within the limits still share a value, as YAML means them to. */
static void
test_alias_still_works (void)
{
  const char *yaml = "bodies:\n"
                     "  - name: a\n"
                     "    shape: &ball {type: sphere, radius: 0.25}\n"
                     "  - name: b\n"
                     "    shape: *ball\n"
                     "    pose: {position: [0, 0, 1]}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (yaml, -1, "alias.yaml", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (scene->bodies->len, ==, 2);
  const CwbBodyDesc *a = scene->bodies->pdata[0], *b = scene->bodies->pdata[1];
  g_assert_cmpint (a->shape.kind, ==, b->shape.kind);
  g_assert_cmpfloat (b->shape.radius, ==, 0.25);
}

/* A torus at resolution 4096 (inside the resolution's range) would be 33.5 M triangles:
 * 3.2 GB and 30 s with no way out. It is refused when the scene is read, before any is
 * made, naming the largest resolution that fits; the one at the limit is accepted. */
static void
test_primitive_size (void)
{
#define TORUS_SCENE(n) "bodies:\n"                                                            \
                       "  - name: t\n"                                                        \
                       "    shape: {type: torus, major_radius: 1, minor_radius: 0.3, "        \
                       "resolution: " #n "}\n"
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) refused = cwb_scene_load_from_data (TORUS_SCENE (4096), -1, "torus.yaml",
                                                           &error);
  g_assert_null (refused);
  assert_limit (error, "torus.yaml:3:12: bodies.t.shape.resolution: 4096 makes 33554432 "
                       "triangles");
  g_assert_nonnull (strstr (error->message, "expected at most 1000"));
  g_clear_error (&error);
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (TORUS_SCENE (1000), -1, "torus.yaml",
                                                         &error);
  g_assert_no_error (error);
  g_assert_nonnull (scene);

  /* A square rectangle has 2 n^2 triangles: 1000 is the largest n within 2 000 000. */
#define RECTANGLE_SCENE(n) "bodies:\n"                                                      \
                           "  - name: r\n"                                                  \
                           "    shape: {type: rectangle, size: [1, 1], resolution: " #n "}\n"
  g_autoptr (CwbScene) big = cwb_scene_load_from_data (RECTANGLE_SCENE (1001), -1, "r.yaml",
                                                       &error);
  g_assert_null (big);
  assert_limit (error, "r.yaml:3:12: bodies.r.shape.resolution: 1001 makes 2004002 triangles");
  g_assert_nonnull (strstr (error->message, "expected at most 1000"));
  g_clear_error (&error);
  g_autoptr (CwbScene) fits = cwb_scene_load_from_data (RECTANGLE_SCENE (1000), -1, "r.yaml",
                                                        &error);
  g_assert_no_error (error);
  g_assert_nonnull (fits);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scene/limits/depth-at-limit", test_depth_at_limit);
  g_test_add_func ("/scene/limits/deep-scenes", test_deep_scenes);
  g_test_add_func ("/scene/limits/alias-expansion", test_alias_expansion);
  g_test_add_func ("/scene/limits/alias-still-works", test_alias_still_works);
  g_test_add_func ("/scene/limits/primitive-size", test_primitive_size);
  return g_test_run ();
}

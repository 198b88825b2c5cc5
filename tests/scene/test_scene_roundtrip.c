/* Scenes: load -> save -> load gives an equal scene (bit-identical doubles), the saved text is
 * stable on a second save, defaults are filled in, and saving is atomic. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "scene.h"

static char *
source_path (const char *relative)
{
  return g_build_filename (g_getenv ("CWB_SOURCE_DIR"), relative, NULL);
}

static void
test_roundtrip_full (void)
{
  g_autofree char *path = source_path ("tests/data/full-scene.yaml");
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) first = cwb_scene_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (first->bodies->len, ==, 7);

  g_autofree char *dir = g_dir_make_tmp ("cwb-scene-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *saved = g_build_filename (dir, "saved.yaml", NULL);
  g_assert_true (cwb_scene_save (first, saved, &error));
  g_assert_no_error (error);

  g_autoptr (CwbScene) second = cwb_scene_load (saved, &error);
  g_assert_no_error (error);
  g_assert_true (cwb_scene_equal (first, second));

  /* The text of a save is a fixed point: saving what was loaded from a save changes nothing. */
  g_autofree char *text1 = cwb_scene_to_yaml (first);
  g_autofree char *text2 = cwb_scene_to_yaml (second);
  g_assert_cmpstr (text1, ==, text2);

  /* Doubles whose shortest text needs 16 or 17 digits survive too. */
  CwbBodyDesc *ball = cwb_scene_find_body (second, "ball");
  g_assert_nonnull (ball);
  g_assert_true (ball->position[0] == 1.0 / 3.0);
  g_assert_true (ball->position[2] == 1e-300);

  /* Plugin parameters keep their nodes: a quoted value stays a string. */
  CwbSceneParam *mode = cwb_scene_params_find (second->contact_params, "mode");
  g_assert_nonnull (mode);
  g_assert_true (mode->value->quoted);
  CwbBodyDesc *spot = cwb_scene_find_body (second, "spot");
  g_assert_cmpuint (spot->model_params->len, ==, 3);
  g_assert_cmpuint (spot->mapping_params->len, ==, 1);
  g_assert_cmpstr (spot->shape.mesh_file, ==, "../../data/meshes/spot.obj");

  g_assert_cmpint (g_remove (saved), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_defaults (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (
    "bodies:\n  - name: b\n    shape: {type: sphere, radius: 1}\n", -1, "d.yaml", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (scene->dt, ==, 0.01);
  g_assert_cmpfloat (scene->gravity[2], ==, -9.81);
  g_assert_null (scene->contact_model);
  g_assert_null (scene->solver);
  CwbBodyDesc *b = scene->bodies->pdata[0];
  g_assert_cmpstr (b->model, ==, "rigid");
  g_assert_cmpstr (b->mapping, ==, "rigid");
  g_assert_cmpfloat (b->orientation[0], ==, 1);
  g_assert_cmpfloat (b->density, ==, 1000);
  g_assert_cmpfloat (b->friction, ==, 0.5);
  g_assert_false (b->fixed);
  g_assert_cmpint (b->shape.resolution, ==, 24);

  g_autoptr (CwbScene) empty = cwb_scene_load_from_data ("", -1, "e.yaml", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (empty->bodies->len, ==, 0);

  g_autoptr (CwbScene) ground = cwb_scene_load_from_data (
    "bodies:\n  - name: g\n    shape: {type: ground}\n", -1, "g.yaml", &error);
  g_assert_no_error (error);
  CwbBodyDesc *g = ground->bodies->pdata[0];
  g_assert_cmpfloat (g->shape.size[0], ==, 20);
  g_assert_cmpfloat (g->shape.size[2], ==, 1);
}

/* The open rectangle (docs/scene-format.md): parsed with its size [w, h] and resolution,
 * written back in that form, and read back as the same shape; its resolution defaults to
 * 16 grid cells. */
static void
test_roundtrip_rectangle (void)
{
  const char *yaml = "bodies:\n"
                     "  - name: sheet\n"
                     "    shape: {type: rectangle, size: [0.8, 0.30000000000000004], "
                     "resolution: 10}\n"
                     "    fixed: true\n"
                     "  - name: plain\n"
                     "    shape: {type: rectangle, size: [1, 2]}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) first = cwb_scene_load_from_data (yaml, -1, "rect.yaml", &error);
  g_assert_no_error (error);
  CwbBodyDesc *sheet = cwb_scene_find_body (first, "sheet");
  g_assert_cmpint (sheet->shape.kind, ==, CWB_SHAPE_RECTANGLE);
  g_assert_cmpfloat (sheet->shape.size[0], ==, 0.8);
  g_assert_true (sheet->shape.size[1] == 0.1 + 0.2);   /* 17 digits survive */
  g_assert_cmpfloat (sheet->shape.size[2], ==, 0);
  g_assert_cmpint (sheet->shape.resolution, ==, 10);
  g_assert_cmpint (cwb_scene_find_body (first, "plain")->shape.resolution, ==, 16);

  g_autofree char *text = cwb_scene_to_yaml (first);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "{type: rectangle, size: [0.8, 0.30000000000000004], "
                                  "resolution: 10}"));
  g_assert_nonnull (strstr (text, "{type: rectangle, size: [1, 2], resolution: 16}"));

  /* Through a file, as the GUI saves. */
  g_autofree char *dir = g_dir_make_tmp ("cwb-scene-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *saved = g_build_filename (dir, "saved.yaml", NULL);
  g_assert_true (cwb_scene_save (first, saved, &error));
  g_assert_no_error (error);
  g_autoptr (CwbScene) second = cwb_scene_load (saved, &error);
  g_assert_no_error (error);
  g_assert_true (cwb_scene_equal (first, second));
  g_autofree char *text2 = cwb_scene_to_yaml (second);
  g_assert_cmpstr (text, ==, text2);
  g_assert_cmpint (g_remove (saved), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A quaternion that is not of norm 1 is normalised (docs/scene-format.md); one that already
 * is keeps its bits. */
static void
test_orientation_normalised (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (
    "bodies:\n  - name: b\n    shape: {type: sphere, radius: 1}\n"
    "    pose: {orientation: [2, 0, 0, 0]}\n", -1, "q.yaml", &error);
  g_assert_no_error (error);
  CwbBodyDesc *b = scene->bodies->pdata[0];
  g_assert_cmpfloat (b->orientation[0], ==, 1);
}

/* cwb_scene_body_copy: every body of the full scene copies to an equal body (a scene of the
 * copies equals the original), and the copy owns all it holds: changing or freeing it leaves
 * the original as it was. */
static void
test_body_copy (void)
{
  g_autofree char *path = source_path ("tests/data/full-scene.yaml");
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) original = cwb_scene_load (path, &error);
  g_assert_no_error (error);
  g_autofree char *text_before = cwb_scene_to_yaml (original);

  g_autoptr (CwbScene) copies = cwb_scene_load (path, &error);
  g_assert_no_error (error);
  g_ptr_array_set_size (copies->bodies, 0);
  for (guint i = 0; i < original->bodies->len; i++)
    g_ptr_array_add (copies->bodies, cwb_scene_body_copy (original->bodies->pdata[i]));
  g_assert_true (cwb_scene_equal (original, copies));

  CwbBodyDesc *spot = cwb_scene_find_body (copies, "spot");
  g_free (spot->name);
  spot->name = g_strdup ("spot copy");
  g_free (spot->shape.mesh_file);
  spot->shape.mesh_file = g_strdup ("other.obj");
  CwbSceneParam *poisson = cwb_scene_params_find (spot->model_params, "poisson");
  g_free (poisson->value->scalar);
  poisson->value->scalar = g_strdup ("0.45");
  cwb_scene_params_set (spot->mapping_params, "added", cwb_scene_node_new_scalar ("1", NULL),
                        NULL);
  g_assert_false (cwb_scene_equal (original, copies));
  g_clear_pointer (&copies, cwb_scene_free);

  g_autofree char *text_after = cwb_scene_to_yaml (original);
  g_assert_cmpstr (text_before, ==, text_after);
}

static void
test_save_missing_folder (void)
{
  g_autoptr (CwbScene) scene = cwb_scene_new ();
  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_scene_save (scene, "/nonexistent-cwb-folder/sub/scene.yaml", &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent-cwb-folder/sub/scene.yaml"));
}

/* A failed save leaves the previous file as it was. */
static void
test_save_unwritable_keeps_file (void)
{
  if (geteuid () == 0)
    {
      g_test_skip ("running as root: folder permissions do not stop writes");
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cwb-scene-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (dir, "scene.yaml", NULL);
  g_assert_true (g_file_set_contents (path, "old contents\n", -1, &error));
  g_assert_cmpint (g_chmod (dir, 0555), ==, 0);

  g_autoptr (CwbScene) scene = cwb_scene_new ();
  g_assert_false (cwb_scene_save (scene, path, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO);

  g_autofree char *contents = NULL;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "old contents\n");
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Saving over a folder fails at the rename: the folder (and the temporary file) are gone
 * neither way round, whoever runs the test. */
static void
test_save_over_folder_fails_cleanly (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cwb-scene-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *target = g_build_filename (dir, "scene.yaml", NULL);
  g_assert_cmpint (g_mkdir (target, 0755), ==, 0);
  g_autofree char *inside = g_build_filename (target, "keep", NULL);
  g_assert_true (g_file_set_contents (inside, "x", -1, &error));

  g_autoptr (CwbScene) scene = cwb_scene_new ();
  g_assert_false (cwb_scene_save (scene, target, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO);
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));

  /* No temporary file left next to the target. */
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (listing) != NULL)
    n++;
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (g_remove (inside), ==, 0);
  g_assert_cmpint (g_rmdir (target), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* What the scene fuzzer found (docs/validation.md): a plain value YAML cannot write plain
 * (": " inside a list) comes back quoted, and a plain empty value (YAML's null) was written
 * as '', an empty string. Both must read back as the same scene, and a null stays null. */
static void
test_roundtrip_quoting_and_nulls (void)
{
  const char *yaml = "contact:\n"
                     "  offsets: [00 rows of boxes :ri 0.3]\n"
                     "  orientation:\n"
                     "    - 0.9\n"
                     "    - 0.1\n"
                     "    -\n"
                     "    - 0.3\n"
                     "  label: ~\n"
                     "  word: \"secant\"\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) first = cwb_scene_load_from_data (yaml, -1, "fuzzed.yaml", &error);
  g_assert_no_error (error);
  g_autofree char *text = cwb_scene_to_yaml (first);
  g_test_message ("%s", text);
  g_autoptr (CwbScene) second = cwb_scene_load_from_data (text, -1, "back.yaml", &error);
  g_assert_no_error (error);
  g_assert_true (cwb_scene_equal (first, second));
  g_assert_nonnull (strstr (text, "[0.9, 0.1, ~, 0.3]"));
  /* And quoting still matters where the plain text is a number: "1" is not 1. */
  g_autoptr (CwbScene) quoted = cwb_scene_load_from_data ("contact: {stiffness: \"1\"}\n", -1,
                                                          "q.yaml", &error);
  g_autoptr (CwbScene) plain = cwb_scene_load_from_data ("contact: {stiffness: 1}\n", -1,
                                                         "p.yaml", &error);
  g_assert_false (cwb_scene_equal (quoted, plain));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scene/roundtrip/full", test_roundtrip_full);
  g_test_add_func ("/scene/roundtrip/quoting-and-nulls", test_roundtrip_quoting_and_nulls);
  g_test_add_func ("/scene/roundtrip/defaults", test_defaults);
  g_test_add_func ("/scene/roundtrip/rectangle", test_roundtrip_rectangle);
  g_test_add_func ("/scene/roundtrip/orientation-normalised", test_orientation_normalised);
  g_test_add_func ("/scene/body/copy", test_body_copy);
  g_test_add_func ("/scene/save/missing-folder", test_save_missing_folder);
  g_test_add_func ("/scene/save/unwritable-keeps-file", test_save_unwritable_keeps_file);
  g_test_add_func ("/scene/save/over-folder", test_save_over_folder_fails_cleanly);
  return g_test_run ();
}

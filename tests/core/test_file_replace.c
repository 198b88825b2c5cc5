/* Saving without losing data (issue 17, item 3): cwb_file_replace keeps what the file is
 * (mode, symlink, contents on refusal), refuses what it cannot keep (hard links, read-only,
 * not a regular file), leaves no temporary, and a kill at any moment leaves the old or the
 * new text, never a cut one; cwb_scene_save refuses text that is not UTF-8 instead of
 * writing a truncated scene. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "file_replace.h"
#include "scene.h"

static char *
temp_folder (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("cwb-save-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

static char *
contents (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* The names in `dir` other than `keep` (NULL-terminated), as one string ("" when none). */
static char *
others (const char *dir, const char *const *keep)
{
  g_autoptr (GDir) folder = g_dir_open (dir, 0, NULL);
  GString *out = g_string_new (NULL);
  const char *name;
  while ((name = g_dir_read_name (folder)) != NULL)
    if (!g_strv_contains (keep, name))
      g_string_append_printf (out, "%s ", name);
  return g_string_free (out, FALSE);
}

static void
remove_folder (const char *dir)
{
  g_autoptr (GDir) folder = g_dir_open (dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (folder)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_chmod (path, 0644);
      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
test_keeps_mode_and_symlink (void)
{
  g_autofree char *dir = temp_folder ();
  g_autofree char *path = g_build_filename (dir, "scene.yaml", NULL);
  g_assert_true (g_file_set_contents (path, "old\n", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_file_replace (path, "new\n", 4, &error));
  g_assert_no_error (error);
  g_autofree char *text = contents (path);
  g_assert_cmpstr (text, ==, "new\n");
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0600);   /* a private scene stays private */

  /* Through a symlink: the link stays a link, its target gets the text. */
  g_autofree char *link = g_build_filename (dir, "link.yaml", NULL);
  g_assert_cmpint (symlink ("scene.yaml", link), ==, 0);
  g_assert_true (cwb_file_replace (link, "newer\n", 6, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_autofree char *text2 = contents (path);
  g_assert_cmpstr (text2, ==, "newer\n");

  /* A new file is made; nothing else is left in the folder. */
  g_autofree char *fresh = g_build_filename (dir, "fresh.yaml", NULL);
  g_assert_true (cwb_file_replace (fresh, "x\n", 2, &error));
  const char *keep[] = { "scene.yaml", "link.yaml", "fresh.yaml", NULL };
  g_autofree char *left = others (dir, keep);
  g_assert_cmpstr (left, ==, "");
  remove_folder (dir);
}

/* What it cannot keep, it refuses, the file unchanged and no temporary left. */
static void
test_refusals (void)
{
  g_autofree char *dir = temp_folder ();
  g_autofree char *path = g_build_filename (dir, "scene.yaml", NULL);
  g_autofree char *hard = g_build_filename (dir, "hard.yaml", NULL);
  g_assert_true (g_file_set_contents (path, "old\n", -1, NULL));
  g_assert_cmpint (link (path, hard), ==, 0);
  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_file_replace (path, "new\n", 4, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "2 hard links"));
  g_clear_error (&error);
  g_autofree char *text = contents (hard);
  g_assert_cmpstr (text, ==, "old\n");
  g_unlink (hard);

  /* Read-only (as root too: the owner's write bit is what is read). */
  g_assert_cmpint (g_chmod (path, 0444), ==, 0);
  g_assert_false (cwb_file_replace (path, "new\n", 4, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "read-only (mode 0444)"));
  g_clear_error (&error);
  g_autofree char *text2 = contents (path);
  g_assert_cmpstr (text2, ==, "old\n");

  g_assert_false (cwb_file_replace (dir, "new\n", 4, &error));
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);

  const char *keep[] = { "scene.yaml", NULL };
  g_autofree char *left = others (dir, keep);
  g_assert_cmpstr (left, ==, "");
  remove_folder (dir);
}

/* Killed at random moments while saving one of two texts over and over: the file always
 * holds one of them whole. A temporary a kill leaves (only between naming the new file and
 * renaming it) is gone after the next save. */
static void
test_killed_saves (void)
{
  g_autofree char *dir = temp_folder ();
  g_autofree char *path = g_build_filename (dir, "scene.yaml", NULL);
  GString *a = g_string_new (NULL), *b = g_string_new (NULL);
  for (int k = 0; k < 20000; k++)
    {
      g_string_append (a, "alpha: 1\n");
      g_string_append (b, "beta: 22\n");
    }
  g_assert_true (cwb_file_replace (path, a->str, a->len, NULL));
  GRand *rng = g_rand_new_with_seed (17);
  for (int kill_count = 0; kill_count < 40; kill_count++)
    {
      pid_t child = fork ();
      g_assert_cmpint (child, >=, 0);
      if (child == 0)
        {
          for (int k = 0;; k++)
            {
              const GString *t = k % 2 ? a : b;
              cwb_file_replace (path, t->str, t->len, NULL);
            }
        }
      g_usleep ((gulong) g_rand_int_range (rng, 200, 5000));
      kill (child, SIGKILL);
      int status;
      waitpid (child, &status, 0);
      g_autofree char *text = contents (path);
      g_assert_true (strcmp (text, a->str) == 0 || strcmp (text, b->str) == 0);
    }
  g_rand_free (rng);
  g_assert_true (cwb_file_replace (path, a->str, a->len, NULL));
  const char *keep[] = { "scene.yaml", NULL };
  g_autofree char *left = others (dir, keep);
  g_assert_cmpstr (left, ==, "");
  g_string_free (a, TRUE);
  g_string_free (b, TRUE);
  remove_folder (dir);
}

/* A mesh file name that is not UTF-8 (a GUI add or drop can bring one): libyaml's event for
 * it failed unchecked, and the save replaced a 1 269-byte scene by 825 bytes ending at
 * "file:". Now the save refuses, naming the text, and the file stays whole. */
static void
test_scene_save_refuses_bad_text (void)
{
  g_autofree char *dir = temp_folder ();
  g_autofree char *path = g_build_filename (dir, "scene.yaml", NULL);
  const char *yaml = "bodies:\n"
                     "  - name: bunny\n"
                     "    shape: {type: mesh, file: bunny.obj}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (yaml, -1, "scene.yaml", &error);
  g_assert_no_error (error);
  g_assert_true (cwb_scene_save (scene, path, &error));
  g_autofree char *before = contents (path);
  CwbBodyDesc *bunny = scene->bodies->pdata[0];
  g_free (bunny->shape.mesh_file);
  bunny->shape.mesh_file = g_strdup ("bunny-\xff.obj");
  g_assert_false (cwb_scene_save (scene, path, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "not UTF-8 (\"bunny-\\377.obj\")"));
  g_autofree char *after = contents (path);
  g_assert_cmpstr (after, ==, before);
  const char *keep[] = { "scene.yaml", NULL };
  g_autofree char *left = others (dir, keep);
  g_assert_cmpstr (left, ==, "");
  remove_folder (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/save/keeps-mode-and-symlink", test_keeps_mode_and_symlink);
  g_test_add_func ("/save/refusals", test_refusals);
  g_test_add_func ("/save/killed", test_killed_saves);
  g_test_add_func ("/save/scene-refuses-bad-text", test_scene_save_refuses_bad_text);
  return g_test_run ();
}

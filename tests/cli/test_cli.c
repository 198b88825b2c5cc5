/* The command-line contract (ARCHITECTURE.md): options, exit status 0 / 1 / 2, messages that
 * name file, line and column, the report written even when a run fails. */
#include <errno.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

typedef struct Outcome {
  int status;
  char *out;
  char *err;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_free (o->out);
  g_free (o->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Outcome, outcome_clear)

/* The built program's argv with the test plugin folders, owning its strings; the caller
 * appends its arguments and the terminating NULL. */
static GPtrArray *
cli_argv (void)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (g_getenv ("CWB_CLI")));
  g_auto (GStrv) dirs = g_strsplit (g_getenv ("CWB_TEST_PLUGIN_DIRS"), ":", -1);
  for (char **d = dirs; *d != NULL; d++)
    {
      g_ptr_array_add (argv, g_strdup ("--plugin-path"));
      g_ptr_array_add (argv, g_strdup (*d));
    }
  return argv;
}

/* Runs the built program with the test plugin folders and the given arguments. */
static Outcome
run_cli (const char *first, ...)
{
  g_autoptr (GPtrArray) argv = cli_argv ();
  va_list args;
  va_start (args, first);
  for (const char *a = first; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, g_strdup (a));
  va_end (args);
  g_ptr_array_add (argv, NULL);

  Outcome o = { 0 };
  int wait_status = 0;
  g_autoptr (GError) error = NULL;
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &o.out, &o.err,
                &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  o.status = WEXITSTATUS (wait_status);
  return o;
}

static char *tmp_dir;

static char *
write_scene (const char *name, const char *yaml)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  g_assert_true (g_file_set_contents (path, yaml, -1, NULL));
  return path;
}

static const char *good_scene =
  "world: { dt: 0.01 }\n"
  "contact: { model: halfspace }\n"
  "bodies:\n"
  "  - name: box\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 0.5] }\n";

static void
test_version (void)
{
  g_auto (Outcome) o = run_cli ("--version", NULL);
  g_assert_cmpint (o.status, ==, 0);
  g_assert_true (g_str_has_prefix (o.out, "contact-workbench "));
}

static void
test_list_plugins (void)
{
  g_auto (Outcome) o = run_cli ("--list-plugins", NULL);
  g_assert_cmpint (o.status, ==, 0);
  const char *expected[] = { "rigid", "body-model", "mapping", "constraint", "solver",
                             "halfspace", "contact-model", "iterations" };
  for (size_t k = 0; k < G_N_ELEMENTS (expected); k++)
    g_assert_nonnull (strstr (o.out, expected[k]));
}

static void
test_headless_run_writes_report (void)
{
  g_autofree char *scene = write_scene ("good.yaml", good_scene);
  g_autofree char *report = g_build_filename (tmp_dir, "good.json", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "20", "--report", report,
                                "--set", "world.dt=0.005", "--set", "solver.iterations=50",
                                NULL);
  g_assert_cmpint (o.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (parser, report, &error));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "steps"), ==, 20);
  g_assert_cmpfloat (json_object_get_double_member (root, "dt"), ==, 0.005);
  /* Progress is for terminals only: stderr is a pipe here, so it stays empty. */
  g_assert_cmpstr (o.err, ==, "");
}

/* On a terminal, a run shows its progress on stderr: step, simulated time, steps per second
 * and time left (the run above, on a pipe, printed none). */
static void
test_progress_on_terminal (void)
{
  g_autofree char *scene = write_scene ("progress.yaml", good_scene);
  g_autoptr (GPtrArray) argv = cli_argv ();
  const char *rest[] = { "--headless", scene, "--steps", "300", NULL };
  for (const char **a = rest; *a != NULL; a++)
    g_ptr_array_add (argv, g_strdup (*a));
  g_ptr_array_add (argv, NULL);

  int terminal = -1;
  pid_t pid = forkpty (&terminal, NULL, NULL, NULL);
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      execv (g_ptr_array_index (argv, 0), (char **) argv->pdata);
      _exit (127);
    }
  g_autoptr (GString) seen = g_string_new (NULL);
  char buf[4096];
  for (;;)
    {
      ssize_t n = read (terminal, buf, sizeof buf);
      if (n > 0)
        g_string_append_len (seen, buf, n);
      else if (n < 0 && errno == EINTR)
        continue;
      else
        break;   /* EOF, or EIO once the child closed its side */
    }
  close (terminal);
  int status = 0;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_test_message ("terminal output: %s", seen->str);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_nonnull (strstr (seen->str, "step 300/300"));
  g_assert_nonnull (strstr (seen->str, "t = 3.000 s"));
  g_assert_nonnull (strstr (seen->str, "steps/s"));
  g_assert_nonnull (strstr (seen->str, "s left"));
}

/* Exit 2 and a message that contains `needle` (e.g. "file:line:col"). */
static void
check_bad_input (const char *needle, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  va_list args;
  va_start (args, first);
  for (const char *a = first; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (args);
  while (argv->len < 8)
    g_ptr_array_add (argv, NULL);
  char **a = (char **) argv->pdata;
  g_auto (Outcome) o = run_cli (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
  g_test_message ("stderr: %s", o.err);
  g_assert_cmpint (o.status, ==, 2);
  g_assert_nonnull (strstr (o.err, needle));
}

static void
test_bad_arguments (void)
{
  g_autofree char *scene = write_scene ("args.yaml", good_scene);
  check_bad_input ("--steps", "--headless", scene, "--steps", "many", NULL);
  check_bad_input ("--bogus", "--bogus", NULL);
  check_bad_input ("KEY=VALUE", "--headless", scene, "--set", "world.dt", NULL);
  check_bad_input ("nowhere", "--headless", scene, "--set", "nowhere.x=1", NULL);
  check_bad_input ("contact.hardness", "--headless", scene, "--set", "contact.hardness=3",
                   NULL);
  check_bad_input ("solver.iterations", "--headless", scene, "--set", "solver.iterations=-5",
                   NULL);
  check_bad_input ("contact.normal", "--headless", scene, "--set", "contact.normal=yes", NULL);
  check_bad_input ("no-such-model", "--headless", scene, "--set", "contact.model=no-such-model",
                   NULL);
  check_bad_input ("one scene file", "--headless", scene, scene, NULL);
}

static void
test_bad_scenes (void)
{
  struct { const char *name, *yaml, *needle; } cases[] = {
    { "syntax.yaml", "world: { dt: 0.01\nbodies: [\n", "syntax.yaml:" },
    { "unknown-field.yaml", "world:\n  dt: 0.01\n  colour: red\n", "unknown-field.yaml:3:3" },
    { "wrong-type.yaml", "world:\n  dt: fast\n", "wrong-type.yaml:2:7" },
    { "range.yaml", "world:\n  dt: -1\n", "range.yaml:2:7" },
    { "plugin.yaml", "contact:\n  model: telepathy\n", "plugin.yaml:2:10" },
    { "mesh.yaml", "bodies:\n  - name: m\n    shape: { type: mesh, file: nowhere.obj }\n",
      "mesh.yaml:3:" },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *path = write_scene (cases[k].name, cases[k].yaml);
      check_bad_input (cases[k].needle, "--headless", path, "--steps", "1", NULL);
    }
}

/* A failing run exits 1, says why, and still writes the report with the last good state. */
static void
test_failed_run (void)
{
  g_autofree char *scene = write_scene ("faulty.yaml", good_scene);
  g_autofree char *report = g_build_filename (tmp_dir, "faulty.json", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "5", "--report", report,
                                "--set", "solver.name=faulty", NULL);
  g_assert_cmpint (o.status, ==, 1);
  g_assert_nonnull (strstr (o.err, "blow-up"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, report, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "steps"), ==, 0);
  g_assert_nonnull (strstr (json_object_get_string_member (root, "failure"), "blow-up"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("cwb-cli-XXXXXX", NULL);
  g_test_add_func ("/cli/version", test_version);
  g_test_add_func ("/cli/list-plugins", test_list_plugins);
  g_test_add_func ("/cli/headless-report", test_headless_run_writes_report);
  g_test_add_func ("/cli/progress-on-terminal", test_progress_on_terminal);
  g_test_add_func ("/cli/bad-arguments", test_bad_arguments);
  g_test_add_func ("/cli/bad-scenes", test_bad_scenes);
  g_test_add_func ("/cli/failed-run", test_failed_run);
  int status = g_test_run ();
  g_autofree char *cmd = NULL;
  GDir *dir = g_dir_open (tmp_dir, 0, NULL);
  for (const char *f; dir != NULL && (f = g_dir_read_name (dir)) != NULL;)
    {
      g_autofree char *p = g_build_filename (tmp_dir, f, NULL);
      g_unlink (p);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  return status;
}

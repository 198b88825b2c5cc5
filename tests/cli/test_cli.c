/* The command-line contract (ARCHITECTURE.md): options, exit status 0 / 1 / 2, messages that
 * name file, line and column, the report written even when a run fails; and the additive
 * --residuals CSV export. */
#include <errno.h>
#include <math.h>
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

/* A box resting on the half-space (within its margin): contact rows, so a solve, every step. */
static const char *resting_scene =
  "world: { dt: 0.005 }\n"
  "contact: { model: halfspace, margin: 0.001 }\n"
  "solver: { name: constraint, tolerance: 1.0e-12 }\n"
  "bodies:\n"
  "  - name: box\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 0.1] }\n"
  "    material: { friction: 0.5 }\n";

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

/* The report is JSON for every run: json-glib 1.6 wrote a step of 1e-8 s as "1e-08.0". The
 * report is parsed back, and its times are the exact doubles of n * dt. */
static void
test_report_tiny_numbers (void)
{
  g_autofree char *scene = write_scene ("tiny.yaml", good_scene);
  g_autofree char *report = g_build_filename (tmp_dir, "tiny.json", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "3", "--report", report,
                                "--set", "world.dt=1.0e-8", NULL);
  g_assert_cmpint (o.status, ==, 0);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (report, &text, NULL, NULL));
  g_assert_null (strstr (text, "e-08.0"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpfloat (json_object_get_double_member (root, "dt"), ==, 1e-8);
}

/* Runs the built program with the test plugin folders and `args` (NULL-terminated) on a
 * pseudo-terminal, as a user at a terminal would, and returns all it wrote there. When
 * `interrupt_at` is given, a Ctrl-C is typed once the output contains it (the terminal turns
 * it into SIGINT for the program, as a real one does). */
static char *
run_in_terminal (const char *const *args, const char *interrupt_at, int *status)
{
  g_autoptr (GPtrArray) argv = cli_argv ();
  for (const char *const *a = args; *a != NULL; a++)
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
  GString *seen = g_string_new (NULL);
  gboolean typed = FALSE;
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
      if (interrupt_at != NULL && !typed && strstr (seen->str, interrupt_at) != NULL)
        {
          g_assert_cmpint (write (terminal, "\x03", 1), ==, 1);
          typed = TRUE;
        }
    }
  close (terminal);
  g_assert_cmpint (waitpid (pid, status, 0), ==, pid);
  g_test_message ("terminal output: %s", seen->str);
  if (interrupt_at != NULL)
    g_assert_true (typed);
  return g_string_free (seen, FALSE);
}

/* On a terminal, a run shows its progress on stderr: step, simulated time, steps per second
 * and time left (the run above, on a pipe, printed none). */
static void
test_progress_on_terminal (void)
{
  g_autofree char *scene = write_scene ("progress.yaml", good_scene);
  const char *args[] = { "--headless", scene, "--steps", "300", NULL };
  int status = 0;
  g_autofree char *seen = run_in_terminal (args, NULL, &status);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_nonnull (strstr (seen, "step 300/300"));
  g_assert_nonnull (strstr (seen, "t = 3.000 s"));
  g_assert_nonnull (strstr (seen, "steps/s"));
  g_assert_nonnull (strstr (seen, "s left"));
}

/* A scene whose one body (the test-only "slow" model) takes `steps` steps of `step_ms` to
 * make, reporting its progress after each. */
static char *
write_slow_scene (const char *name, int steps, int step_ms)
{
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.01 }\n"
    "contact: { model: halfspace }\n"
    "bodies:\n"
    "  - name: slow\n"
    "    model: slow\n"
    "    model_params: { steps: %d, step_ms: %d }\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n", steps, step_ms);
  return write_scene (name, yaml);
}

/* A long build on a terminal draws "what: NN %" on one line, which is blanked before the run
 * goes on (the steps' line then starts on the same line, at its start). */
static void
test_build_progress_on_terminal (void)
{
  /* 40 steps of 20 ms: 0.8 s, several redraws at ten a second. */
  g_autofree char *scene = write_slow_scene ("slow-terminal.yaml", 40, 20);
  const char *args[] = { "--headless", scene, "--steps", "3", NULL };
  int status = 0;
  g_autofree char *seen = run_in_terminal (args, NULL, &status);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_true (g_str_has_prefix (seen, "\rbody 'slow': precomputing: "));
  g_assert_nonnull (strstr (seen, "body 'slow': precomputing: 100 %"));
  /* Throttled: far fewer redraws than the 40 reports (about 8 in 0.8 s; the first and the
   * last always). */
  guint redraws = 0;
  for (const char *p = seen; (p = strstr (p, "precomputing:")) != NULL; p++)
    redraws++;
  g_assert_cmpuint (redraws, >=, 2);
  g_assert_cmpuint (redraws, <=, 20);
  /* Blanked: spaces over the last one, and back to the start of the line. */
  const char *last = strstr (seen, "100 %");
  g_assert_nonnull (strstr (last, "\r                              "));
  g_assert_nonnull (strstr (last, "\rstep 3/3"));
}

/* Ctrl-C during a long build cancels it: exit status 1, a message naming the body, and no
 * report written. */
static void
test_build_interrupted (void)
{
  /* 500 steps of 20 ms: 10 s if Ctrl-C did not stop it. */
  g_autofree char *scene = write_slow_scene ("slow-interrupt.yaml", 500, 20);
  g_autofree char *report = g_build_filename (tmp_dir, "interrupted.json", NULL);
  const char *args[] = { "--headless", scene, "--steps", "3", "--report", report, NULL };
  int status = 0;
  gint64 start = g_get_monotonic_time ();
  g_autofree char *seen = run_in_terminal (args, "precomputing: ", &status);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_nonnull (strstr (seen, "contact-workbench: loading cancelled while body 'slow' was "
                                  "being built"));
  g_assert_false (g_file_test (report, G_FILE_TEST_EXISTS));
  /* Stopped at the next report (20 ms), not after the whole build (generous bound for a
   * loaded machine, still well below the 10 s of the build). */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

/* Off a terminal a long build prints nothing per report: one line once it has taken over a
 * second, nothing at all when it is quick. */
static void
test_build_progress_on_pipe (void)
{
  g_autofree char *quick = write_slow_scene ("slow-quick.yaml", 5, 1);
  g_auto (Outcome) o = run_cli ("--headless", quick, "--steps", "3", NULL);
  g_assert_cmpint (o.status, ==, 0);
  g_assert_cmpstr (o.err, ==, "");

  /* 30 steps of 50 ms: 1.5 s. */
  g_autofree char *slow = write_slow_scene ("slow-pipe.yaml", 30, 50);
  g_auto (Outcome) p = run_cli ("--headless", slow, "--steps", "3", NULL);
  g_test_message ("stderr: %s", p.err);
  g_assert_cmpint (p.status, ==, 0);
  g_assert_true (g_str_has_prefix (p.err, "contact-workbench: body 'slow': precomputing ("));
  g_assert_true (g_str_has_suffix (p.err, "taking a while)\n"));
  g_assert_cmpint (strchr (p.err, '\n') - p.err + 1, ==, (int) strlen (p.err));
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

/* Text beyond ASCII in --set, under the C locale as under a UTF-8 one (GOption used to
 * refuse every non-ASCII byte: main never set the locale, and converted from it), text
 * that is neither UTF-8 nor the locale's refused with the bytes shown; and a contact
 * parameter on a scene without a contact model refused (it used to run as if it applied). */
static void
test_set_text_and_orphans (void)
{
  const char *unicode_scene = "world: { dt: 0.01 }\n"
                              "bodies:\n"
                              "  - name: K\u00fcgel\n"
                              "    shape: { type: sphere, radius: 0.5 }\n";
  g_autofree char *scene = write_scene ("unicode.yaml", unicode_scene);
  const char *locales[] = { "C", "C.UTF-8" };
  g_autofree char *saved = g_strdup (g_getenv ("LC_ALL"));
  for (size_t k = 0; k < G_N_ELEMENTS (locales); k++)
    {
      g_setenv ("LC_ALL", locales[k], TRUE);
      g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "1", "--set",
                                    "bodies.K\u00fcgel.density=2000", NULL);
      g_test_message ("LC_ALL=%s: status %d, stderr: %s", locales[k], o.status, o.err);
      g_assert_cmpint (o.status, ==, 0);
    }
  g_setenv ("LC_ALL", "C", TRUE);
  check_bad_input ("not UTF-8 text", "--headless", scene, "--set", "bodies.K\xfcgel.density=1",
                   NULL);
  if (saved != NULL)
    g_setenv ("LC_ALL", saved, TRUE);
  else
    g_unsetenv ("LC_ALL");
  check_bad_input ("names no contact model", "--headless", scene, "--set",
                   "contact.anything=banana", NULL);
}

/* One row of a --residuals file. */
typedef struct ResidualRow {
  guint64 step, iteration;
  double residual;
} ResidualRow;

/* The rows of a --residuals file, checked for form: the header, then "step,iteration,residual"
 * with iterations counting 1, 2, ... within each step and steps increasing. */
static GArray *
read_residuals (const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (text, "\n"));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "step,iteration,residual");
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (ResidualRow));
  ResidualRow previous = { 0, 0, 0 };
  for (char **line = lines + 1; *line != NULL && **line != '\0'; line++)
    {
      g_auto (GStrv) cells = g_strsplit (*line, ",", -1);
      g_assert_cmpuint (g_strv_length (cells), ==, 3);
      char *end = NULL;
      ResidualRow row;
      row.step = g_ascii_strtoull (cells[0], &end, 10);
      g_assert_true (*end == '\0');
      row.iteration = g_ascii_strtoull (cells[1], &end, 10);
      g_assert_true (*end == '\0');
      row.residual = g_ascii_strtod (cells[2], &end);
      g_assert_true (*end == '\0');
      g_assert_cmpfloat (row.residual, >=, 0);
      if (row.step == previous.step)
        g_assert_cmpuint (row.iteration, ==, previous.iteration + 1);
      else
        {
          g_assert_cmpuint (row.step, >, previous.step);
          g_assert_cmpuint (row.iteration, ==, 1);
        }
      g_array_append_val (rows, row);
      previous = row;
    }
  return rows;
}

/* --residuals writes every iteration of every step: against the report of the same run, each
 * step has solver_iterations rows and its last row's residual is the step's solver_residual,
 * bit for bit (the text reads back exactly). Also with the pyramid (--set
 * solver.friction=pyramid); a friction set outside the choices is refused with exit 2. */
static void
test_residuals (void)
{
  g_autofree char *scene = write_scene ("resting.yaml", resting_scene);
  const char *laws[] = { "cone", "pyramid" };
  for (size_t l = 0; l < G_N_ELEMENTS (laws); l++)
    {
      g_autofree char *csv = g_strdup_printf ("%s/residuals-%s.csv", tmp_dir, laws[l]);
      g_autofree char *report = g_strdup_printf ("%s/residuals-%s.json", tmp_dir, laws[l]);
      g_autofree char *set = g_strdup_printf ("solver.friction=%s", laws[l]);
      g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "30", "--set", set,
                                    "--report", report, "--residuals", csv, NULL);
      g_test_message ("stderr: %s", o.err);
      g_assert_cmpint (o.status, ==, 0);
      g_autoptr (GArray) rows = read_residuals (csv);

      g_autoptr (JsonParser) parser = json_parser_new ();
      g_assert_true (json_parser_load_from_file (parser, report, NULL));
      JsonObject *root = json_node_get_object (json_parser_get_root (parser));
      JsonArray *per_step = json_object_get_array_member (root, "per_step");
      g_assert_cmpuint (json_array_get_length (per_step), ==, 30);
      guint r = 0;
      for (guint step = 1; step <= 30; step++)
        {
          JsonObject *st = json_array_get_object_element (per_step, step - 1);
          gint64 iterations = json_object_get_int_member (st, "solver_iterations");
          g_assert_cmpint (iterations, >, 0);
          for (gint64 k = 1; k <= iterations; k++, r++)
            {
              g_assert_cmpuint (r, <, rows->len);
              const ResidualRow *row = &g_array_index (rows, ResidualRow, r);
              g_assert_cmpuint (row->step, ==, step);
              g_assert_cmpuint (row->iteration, ==, k);
              if (k == iterations)
                g_assert_cmpfloat (row->residual, ==,
                                   json_object_get_double_member (st, "solver_residual"));
            }
        }
      g_assert_cmpuint (r, ==, rows->len);
    }
  check_bad_input ("solver.friction", "--headless", scene, "--set", "solver.friction=square",
                   NULL);

  /* A file that cannot be written fails the run (exit 1) with a message naming it. */
  g_autofree char *nowhere = g_build_filename (tmp_dir, "no-such-dir", "r.csv", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "2", "--residuals", nowhere,
                                NULL);
  g_assert_cmpint (o.status, ==, 1);
  g_assert_nonnull (strstr (o.err, "no-such-dir"));
}

/* A failing run exits 1, says why, and still writes the report with the last good state. */
static void
test_failed_run (void)
{
  g_autofree char *scene = write_scene ("faulty.yaml", good_scene);
  g_autofree char *report = g_build_filename (tmp_dir, "faulty.json", NULL);
  g_autofree char *residuals = g_build_filename (tmp_dir, "faulty.csv", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "5", "--report", report,
                                "--residuals", residuals, "--set", "solver.name=faulty", NULL);
  g_assert_cmpint (o.status, ==, 1);
  g_assert_nonnull (strstr (o.err, "blow-up"));
  /* The residuals of the steps done: none, so the header alone. */
  g_autoptr (GArray) rows = read_residuals (residuals);
  g_assert_cmpuint (rows->len, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, report, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "steps"), ==, 0);
  g_assert_nonnull (strstr (json_object_get_string_member (root, "failure"), "blow-up"));
}

/* ---- swaps from the command line (issue 18) ---------------------------------------------- */

/* The report of a run, parsed (the caller unrefs the parser). */
static JsonObject *
read_report (const char *path, JsonParser **parser)
{
  *parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (*parser, path, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (*parser));
}

/* A scene's contact model swapped with --set: the parameters of the model in use stay with
 * it (halfspace's offset and normal, which proximity does not have and would refuse), a note
 * says so, and a parameter given beside the new model is the new model's wherever it stands. */
static void
test_swap_keeps_parameters (void)
{
  const char *yaml = "world: { dt: 0.01 }\n"
                     "contact: { model: halfspace, offset: 0.0, normal: [0, 0, 1] }\n"
                     "bodies:\n"
                     "  - name: box\n"
                     "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
                     "    pose: { position: [0, 0, 0.5] }\n";
  g_autofree char *scene = write_scene ("swap.yaml", yaml);
  g_autofree char *report = g_build_filename (tmp_dir, "swap.json", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "3", "--report", report,
                                "--set", "contact.margin=0.002",
                                "--set", "contact.model=proximity", NULL);
  g_test_message ("stderr: %s", o.err);
  g_assert_cmpint (o.status, ==, 0);
  g_assert_nonnull (strstr (o.err, "the parameters of halfspace (offset, normal) are kept"));
  g_autoptr (JsonParser) parser = NULL;
  JsonObject *root = read_report (report, &parser);
  g_assert_cmpstr (json_object_get_string_member (root, "contact_model"), ==, "proximity");

  /* Back to the first model: its parameters return, and proximity's margin is kept aside. */
  g_auto (Outcome) back = run_cli ("--headless", scene, "--steps", "3",
                                   "--set", "contact.model=proximity",
                                   "--set", "contact.model=halfspace", NULL);
  g_assert_cmpint (back.status, ==, 0);
  g_assert_nonnull (strstr (back.err, "those kept for halfspace (offset, normal) are back"));
  /* A parameter the new model does not have is still refused, naming it. */
  check_bad_input ("contact.offset", "--headless", scene, "--set", "contact.offset=0.1",
                   "--set", "contact.model=proximity", NULL);
}

/* --at STEP:KEY=VALUE changes the scene during a headless run: a contact model swap and a
 * solver parameter in place, a world value through a rebuild that carries the bodies' states;
 * the report lists the changes and runs on to the last step. */
static void
test_changes_during_run (void)
{
  g_autofree char *scene = write_scene ("at.yaml", resting_scene);
  g_autofree char *report = g_build_filename (tmp_dir, "at.json", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "12", "--report", report,
                                "--at", "8:world.gravity=[0, 0, 0]",
                                "--at", "4:contact.model=proximity",
                                "--at", "4:solver.iterations=60", NULL);
  g_test_message ("stderr: %s", o.err);
  g_assert_cmpint (o.status, ==, 0);
  g_autoptr (JsonParser) parser = NULL;
  JsonObject *root = read_report (report, &parser);
  g_assert_cmpint (json_object_get_int_member (root, "steps"), ==, 12);
  g_assert_cmpstr (json_object_get_string_member (root, "contact_model"), ==, "proximity");
  JsonArray *changes = json_object_get_array_member (root, "changes");
  g_assert_cmpuint (json_array_get_length (changes), ==, 3);
  const struct { gint64 step; const char *set; } expected[] = {
    { 4, "contact.model=proximity" }, { 4, "solver.iterations=60" },
    { 8, "world.gravity=[0, 0, 0]" },
  };
  for (guint c = 0; c < 3; c++)
    {
      JsonObject *change = json_array_get_object_element (changes, c);
      g_assert_cmpint (json_object_get_int_member (change, "step"), ==, expected[c].step);
      g_assert_cmpstr (json_object_get_string_member (change, "set"), ==, expected[c].set);
    }
  /* The rebuilt world went on from the carried state: simulated time never jumps back. */
  JsonArray *steps = json_object_get_array_member (root, "per_step");
  for (guint k = 1; k < json_array_get_length (steps); k++)
    g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (steps, k),
                                                      "t"),
                       >, json_object_get_double_member (json_array_get_object_element (steps,
                                                                                        k - 1),
                                                         "t"));
}

/* Bad --at: checked before the run (exit 2), or refused when it comes (exit 1, the report's
 * failure, the steps done before it). */
static void
test_changes_refused (void)
{
  g_autofree char *scene = write_scene ("at-bad.yaml", good_scene);
  check_bad_input ("expected STEP:KEY=VALUE", "--headless", scene, "--at", "soon", NULL);
  check_bad_input ("the run ends after 5 steps", "--headless", scene, "--steps", "5", "--at",
                   "9:contact.model=proximity", NULL);
  check_bad_input ("--at 2: --set: world.dt", "--headless", scene, "--steps", "5", "--at",
                   "2:world.dt=-1", NULL);
  check_bad_input ("--at changes a headless run", scene, "--at", "2:world.dt=0.1", NULL);
  g_autofree char *report = g_build_filename (tmp_dir, "at-bad.json", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "6", "--report", report,
                                "--at", "3:contact.model=no-such-model", NULL);
  g_assert_cmpint (o.status, ==, 1);
  g_assert_nonnull (strstr (o.err, "no-such-model"));
  g_autoptr (JsonParser) parser = NULL;
  JsonObject *root = read_report (report, &parser);
  g_assert_cmpint (json_object_get_int_member (root, "steps"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (root, "contact_model"), ==, "halfspace");
  g_assert_nonnull (strstr (json_object_get_string_member (root, "failure"), "--at 3"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "changes")),
                    ==, 0);
}

/* ---- A/B compare (issue 19) ------------------------------------------------------------ */

/* Two boxes falling onto the half-space, one tumbling: under a change of friction the two
 * sides part once they land. */
static const char *compare_scene =
  "world: { dt: 0.005 }\n"
  "contact: { model: halfspace, margin: 0.001 }\n"
  "solver: { name: constraint }\n"
  "bodies:\n"
  "  - name: flat\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 0.15] }\n"
  "    velocity: { linear: [1, 0, 0] }\n"
  "    material: { friction: 0.5 }\n"
  "  - name: tumbling\n"
  "    shape: { type: box, size: [0.2, 0.1, 0.3] }\n"
  "    pose: { position: [1, 0, 0.3], orientation: [0.9, 0.3, 0.2, 0.1] }\n"
  "    velocity: { linear: [-1, 0.5, 0], angular: [0, 3, 1] }\n"
  "    material: { friction: 0.5 }\n";

/* The final centres of mass and orientations of a report's bodies, by name. */
static void
report_body (JsonObject *root, const char *name, double centroid[3], double orientation[4])
{
  JsonArray *bodies = json_object_get_array_member (root, "bodies");
  for (guint i = 0; i < json_array_get_length (bodies); i++)
    {
      JsonObject *body = json_array_get_object_element (bodies, i);
      if (strcmp (json_object_get_string_member (body, "name"), name) != 0)
        continue;
      JsonArray *c = json_object_get_array_member (body, "centroid");
      JsonArray *q = json_object_get_array_member (body, "orientation");
      for (guint k = 0; k < 3; k++)
        centroid[k] = json_array_get_double_element (c, k);
      for (guint k = 0; k < 4; k++)
        orientation[k] = json_array_get_double_element (q, k);
      return;
    }
  g_assert_not_reached ();
}

/* --compare: A (the scene) and B (with the change) step in lockstep in one process, and each
 * ends in the state of its own separate run, bit for bit (state hashes): stepping two worlds
 * side by side shares nothing between them. Each report names the other and holds the
 * difference after every step; the last one matches the two reports' final bodies (the
 * distance to 1e-12 m, rounding of one subtraction; the angle, from the orientations, to
 * 1e-9 rad: the report prints 17 digits, and the angle's acos-free formula loses none near
 * 0), and the two do differ (the change is felt). */
static void
test_compare_lockstep (void)
{
  g_autofree char *scene = write_scene ("compare.yaml", compare_scene);
  g_autofree char *report = g_build_filename (tmp_dir, "compare.json", NULL);
  g_autofree char *report_b = g_build_filename (tmp_dir, "compare.b.json", NULL);
  g_autofree char *alone_a = g_build_filename (tmp_dir, "alone-a.json", NULL);
  g_autofree char *alone_b = g_build_filename (tmp_dir, "alone-b.json", NULL);
  const char *change = "bodies.tumbling.material.friction=0.05";
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "120", "--report", report,
                                "--compare", change, "--compare", "solver.iterations=80",
                                NULL);
  g_test_message ("stdout: %s\nstderr: %s", o.out, o.err);
  g_assert_cmpint (o.status, ==, 0);
  g_assert_nonnull (strstr (o.out, "B against A after 120 steps of both"));
  g_auto (Outcome) a = run_cli ("--headless", scene, "--steps", "120", "--report", alone_a,
                                NULL);
  g_auto (Outcome) b = run_cli ("--headless", scene, "--steps", "120", "--report", alone_b,
                                "--set", change, "--set", "solver.iterations=80", NULL);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  /* Alone, a run prints nothing on stdout and its report has no compare. */
  g_assert_cmpstr (a.out, ==, "");

  g_autoptr (JsonParser) pa = NULL, pb = NULL, sa = NULL, sb = NULL;
  JsonObject *ra = read_report (report, &pa), *rb = read_report (report_b, &pb);
  JsonObject *solo_a = read_report (alone_a, &sa), *solo_b = read_report (alone_b, &sb);
  g_assert_cmpstr (json_object_get_string_member (ra, "state_hash"), ==,
                   json_object_get_string_member (solo_a, "state_hash"));
  g_assert_cmpstr (json_object_get_string_member (rb, "state_hash"), ==,
                   json_object_get_string_member (solo_b, "state_hash"));
  g_assert_true (json_object_get_null_member (solo_a, "compare"));

  JsonObject *ca = json_object_get_object_member (ra, "compare");
  JsonObject *cb = json_object_get_object_member (rb, "compare");
  g_assert_cmpstr (json_object_get_string_member (ca, "role"), ==, "a");
  g_assert_cmpstr (json_object_get_string_member (cb, "role"), ==, "b");
  g_assert_cmpstr (json_object_get_string_member (ca, "other_report"), ==, report_b);
  g_assert_cmpstr (json_object_get_string_member (cb, "other_report"), ==, report);
  JsonArray *changes = json_object_get_array_member (cb, "changes");
  g_assert_cmpuint (json_array_get_length (changes), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (changes, 0), ==, change);
  JsonArray *steps = json_object_get_array_member (cb, "per_step");
  g_assert_cmpuint (json_array_get_length (steps), ==, 120);
  JsonObject *last = json_array_get_object_element (steps, 119);
  g_assert_cmpint (json_object_get_int_member (last, "matched_bodies"), ==, 2);

  double distance = 0, angle = 0;
  const char *farthest = NULL;
  const char *names[] = { "flat", "tumbling" };
  for (size_t n = 0; n < 2; n++)
    {
      double ca_[3], cb_[3], qa[4], qb[4];
      report_body (ra, names[n], ca_, qa);
      report_body (rb, names[n], cb_, qb);
      double d = sqrt ((ca_[0] - cb_[0]) * (ca_[0] - cb_[0]) + (ca_[1] - cb_[1]) * (ca_[1] - cb_[1])
                       + (ca_[2] - cb_[2]) * (ca_[2] - cb_[2]));
      double dot = fabs (qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3]);
      angle = fmax (angle, 2 * acos (fmin (dot, 1)));
      if (farthest == NULL || d > distance)
        {
          distance = d;
          farthest = names[n];
        }
    }
  g_assert_cmpfloat (distance, >, 1e-3);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (last, "max_distance"), distance,
                                  1e-12);
  g_assert_cmpstr (json_object_get_string_member (last, "farthest_body"), ==, farthest);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (last, "max_angle"), angle, 1e-6);
  /* The energies are each side's own. */
  JsonArray *energy = json_object_get_array_member (last, "kinetic_energy");
  JsonArray *steps_a = json_object_get_array_member (ra, "per_step");
  JsonArray *steps_b = json_object_get_array_member (rb, "per_step");
  g_assert_cmpfloat_with_epsilon (json_array_get_double_element (energy, 0),
                                  json_object_get_double_member (
                                    json_array_get_object_element (steps_a, 119),
                                    "kinetic_energy"), 1e-12);
  g_assert_cmpfloat_with_epsilon (json_array_get_double_element (energy, 1),
                                  json_object_get_double_member (
                                    json_array_get_object_element (steps_b, 119),
                                    "kinetic_energy"), 1e-12);
}

/* A side that fails stops with its last good state and its report says why; the other runs
 * to the end; the run exits 1 naming the side. Bad --compare values are refused before
 * anything runs, naming the option. */
static void
test_compare_failures (void)
{
  g_autofree char *scene = write_scene ("compare-fail.yaml", good_scene);
  g_autofree char *report = g_build_filename (tmp_dir, "compare-fail.json", NULL);
  g_autofree char *report_b = g_build_filename (tmp_dir, "compare-fail.b.json", NULL);
  g_auto (Outcome) o = run_cli ("--headless", scene, "--steps", "5", "--report", report,
                                "--compare", "solver.name=faulty", NULL);
  g_test_message ("stdout: %s\nstderr: %s", o.out, o.err);
  g_assert_cmpint (o.status, ==, 1);
  g_assert_nonnull (strstr (o.err, "B: "));
  g_assert_nonnull (strstr (o.err, "blow-up"));
  g_assert_nonnull (strstr (o.out, "stopped"));
  g_autoptr (JsonParser) pa = NULL, pb = NULL;
  JsonObject *ra = read_report (report, &pa), *rb = read_report (report_b, &pb);
  g_assert_cmpint (json_object_get_int_member (ra, "steps"), ==, 5);
  g_assert_true (json_object_get_null_member (ra, "failure"));
  g_assert_cmpint (json_object_get_int_member (rb, "steps"), ==, 0);
  g_assert_nonnull (strstr (json_object_get_string_member (rb, "failure"), "blow-up"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_object_get_object_member (rb, "compare"), "per_step")), ==, 0);

  check_bad_input ("--compare: ", "--headless", scene, "--compare", "solver.no_such=1", NULL);
  check_bad_input ("--compare: ", "--headless", scene, "--compare", "contact.model=nothing",
                   NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("cwb-cli-XXXXXX", NULL);
  g_test_add_func ("/cli/version", test_version);
  g_test_add_func ("/cli/list-plugins", test_list_plugins);
  g_test_add_func ("/cli/headless-report", test_headless_run_writes_report);
  g_test_add_func ("/cli/report-tiny-numbers", test_report_tiny_numbers);
  g_test_add_func ("/cli/progress-on-terminal", test_progress_on_terminal);
  g_test_add_func ("/cli/build/progress-on-terminal", test_build_progress_on_terminal);
  g_test_add_func ("/cli/build/interrupted", test_build_interrupted);
  g_test_add_func ("/cli/build/progress-on-pipe", test_build_progress_on_pipe);
  g_test_add_func ("/cli/bad-arguments", test_bad_arguments);
  g_test_add_func ("/cli/bad-scenes", test_bad_scenes);
  g_test_add_func ("/cli/set-text-and-orphans", test_set_text_and_orphans);
  g_test_add_func ("/cli/failed-run", test_failed_run);
  g_test_add_func ("/cli/residuals", test_residuals);
  g_test_add_func ("/cli/swap/keeps-parameters", test_swap_keeps_parameters);
  g_test_add_func ("/cli/swap/changes-during-run", test_changes_during_run);
  g_test_add_func ("/cli/swap/changes-refused", test_changes_refused);
  g_test_add_func ("/cli/compare/lockstep", test_compare_lockstep);
  g_test_add_func ("/cli/compare/failures", test_compare_failures);
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

/* The plugin registry (registry.h, docs/plugin-loading.md): every refusal reason on a folder
 * of deliberately broken libraries (tests/plugins/broken), the good ones loading beside them,
 * the file list, --list-plugins output, module lifetime, and the default folders of a build. */
#include <dlfcn.h>
#include <stdio.h>

#include <glib/gstdio.h>

#include <cwb/cwb.h>

#include "registry.h"

/* ---- the registry's warnings ------------------------------------------------------------ */

/* Refusals are logged with g_warning, which GLib's test mode makes fatal: the "cwb" domain's
 * warnings are captured instead, so that the tests can check them. */
static GPtrArray *warnings;

static void
capture_warning (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  g_test_message ("warning: %s", message);
  g_ptr_array_add (warnings, g_strdup (message));
}

static gboolean
fatal_unless_registry_warning (const char *domain, GLogLevelFlags level, const char *message,
                               gpointer data)
{
  return !(g_strcmp0 (domain, "cwb") == 0 && (level & G_LOG_LEVEL_WARNING) != 0);
}

/* GLib resets the fatal handler at the start of each test case: each test calls this. */
static void
capture_warnings (void)
{
  g_ptr_array_set_size (warnings, 0);
  g_test_log_set_fatal_handler (fatal_unless_registry_warning, NULL);
}

static gboolean
warned (const char *line)
{
  for (guint i = 0; i < warnings->len; i++)
    if (g_strcmp0 (g_ptr_array_index (warnings, i), line) == 0)
      return TRUE;
  return FALSE;
}

/* ---- the broken folder ------------------------------------------------------------------ */

static const char *
broken_dir (void)
{
  const char *dir = g_getenv ("CWB_TEST_BROKEN_DIR");
  g_assert_nonnull (dir);
  return dir;
}

static CwbRegistry *
scan_broken (void)
{
  capture_warnings ();
  CwbRegistry *registry = cwb_registry_new ();
  cwb_registry_add_dir (registry, broken_dir ());
  cwb_registry_scan (registry);
  return registry;
}

typedef enum Match {
  MATCH_EXACT,
  MATCH_PREFIX,   /* reasons that quote the loader's text or a path we cannot predict */
} Match;

/* One library of the broken folder and what the registry must say about it. */
typedef struct Case {
  const char *file;
  CwbPluginStatus status;
  char *reason;     /* REFUSED: the reason, or its beginning (MATCH_PREFIX) */
  Match match;
  const char *also; /* MATCH_PREFIX: a text the rest of the reason must contain */
} Case;

#define ABI_1_0_DESC_SIZE (offsetof (CwbPluginDesc, vtable) + sizeof (void *))
#define ABI_1_0_SOLVER_VTABLE_SIZE (offsetof (CwbSolverVTable, params_changed) + sizeof (void *))

/* In sorted file-name order: the order of the scan. */
static GArray *
expected_cases (void)
{
  g_autofree char *duplicate_a = g_build_filename (broken_dir (), "duplicate-a.so", NULL);
  /* REFUSED with exactly this reason; REFUSED with a reason that starts with `prefix` and
   * goes on with `also` somewhere; LOADED. */
#define REFUSED(f, r) { .file = f, .status = CWB_PLUGIN_STATUS_REFUSED, .reason = r, .match = MATCH_EXACT, .also = NULL }
#define REFUSED_PREFIX(f, prefix, a) { .file = f, .status = CWB_PLUGIN_STATUS_REFUSED, .reason = g_strdup (prefix), .match = MATCH_PREFIX, .also = a }
#define LOADED(f) { .file = f, .status = CWB_PLUGIN_STATUS_LOADED, .reason = NULL, .match = MATCH_EXACT, .also = NULL }
  const Case cases[] = {
    REFUSED ("abi-major.so", g_strdup ("ABI major 2, host has 1")),
    REFUSED ("bad-default.so",
             g_strdup ("parameter 'speed': default 'fast' is invalid: expected a number, got fast")),
    REFUSED ("bad-name.so", g_strdup ("invalid name 'Bad Name' (must match [a-z][a-z0-9_-]*)")),
    REFUSED ("bad-range.so", g_strdup ("parameter 'speed': default '5' is invalid: "
                                       "expected a value in [0, 1], got 5")),
    REFUSED ("bad-vtable.so", g_strdup ("solver vtable lacks required operation 'step'")),
    LOADED ("duplicate-a.so"),
    REFUSED ("duplicate-b.so",
             g_strdup_printf ("duplicate: contact-model 'twin' already loaded from %s",
                              duplicate_a)),
    REFUSED_PREFIX ("foreign-entry.so",
                    "entry symbol 'cwb_plugin_entry' belongs to another library: ",
                    "provider/libcwb-entry-provider.so"),
    LOADED ("good.so"),
    LOADED ("minor-newer.so"),
    REFUSED ("no-entry.so", g_strdup ("no entry symbol 'cwb_plugin_entry'")),
    REFUSED_PREFIX ("not-a-library.so", "cannot open: ", "invalid ELF header"),
    REFUSED ("null-desc.so", g_strdup ("cwb_plugin_entry returned NULL")),
    REFUSED ("small-desc.so",
             g_strdup_printf ("description struct_size %zu is smaller than ABI 1.0's %zu",
                              offsetof (CwbPluginDesc, params), ABI_1_0_DESC_SIZE)),
    REFUSED ("small-vtable.so",
             g_strdup_printf ("solver vtable struct_size %zu is smaller than ABI 1.0's %zu",
                              offsetof (CwbSolverVTable, step), ABI_1_0_SOLVER_VTABLE_SIZE)),
    REFUSED ("unknown-kind.so", g_strdup ("unknown kind 99")),
    REFUSED_PREFIX ("unresolved.so", "cannot open: ",
                    "undefined symbol: cwb_test_undefined_function"),
  };
#undef REFUSED
#undef REFUSED_PREFIX
#undef LOADED
  GArray *list = g_array_sized_new (FALSE, FALSE, sizeof (Case), G_N_ELEMENTS (cases));
  g_array_append_vals (list, cases, G_N_ELEMENTS (cases));
  return list;
}

static void
free_cases (GArray *cases)
{
  for (guint i = 0; i < cases->len; i++)
    g_free (g_array_index (cases, Case, i).reason);
  g_array_free (cases, TRUE);
}

/* The module files of the folder, as the registry must see them: regular *.so files. */
static guint
count_module_files (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  guint n = 0;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_str_has_suffix (name, ".so") && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        n++;
    }
  return n;
}

/* One entry per file, in sorted order, each with its status: a file added to the folder
 * without a case here fails the test. */
static void
test_file_list (void)
{
  g_autoptr (CwbRegistry) registry = scan_broken ();
  GArray *cases = expected_cases ();
  g_assert_cmpuint (count_module_files (broken_dir ()), ==, cases->len);
  g_assert_cmpuint (cwb_registry_n_files (registry), ==, cases->len);
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = &g_array_index (cases, Case, i);
      const CwbPluginFile *f = cwb_registry_file (registry, i);
      g_autofree char *path = g_build_filename (broken_dir (), c->file, NULL);
      g_assert_cmpstr (f->path, ==, path);
      g_assert_cmpint (f->status, ==, c->status);
      if (c->status == CWB_PLUGIN_STATUS_LOADED)
        {
          g_assert_nonnull (f->desc);
          g_assert_null (f->reason);
        }
      else
        {
          g_assert_null (f->desc);
          g_assert_nonnull (f->reason);
          g_assert_null (strchr (f->reason, '\n'));
        }
    }
  free_cases (cases);
}

/* Every refusal has its own reason, and is logged as "PATH: REASON". */
static void
test_refusal_reasons (void)
{
  g_autoptr (CwbRegistry) registry = scan_broken ();
  GArray *cases = expected_cases ();
  guint n_refused = 0;
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = &g_array_index (cases, Case, i);
      const CwbPluginFile *f = cwb_registry_file (registry, i);
      if (c->status != CWB_PLUGIN_STATUS_REFUSED)
        continue;
      n_refused++;
      g_test_message ("%s: %s", f->path, f->reason);
      if (c->match == MATCH_EXACT)
        g_assert_cmpstr (f->reason, ==, c->reason);
      else
        {
          g_assert_true (g_str_has_prefix (f->reason, c->reason));
          g_assert_nonnull (strstr (f->reason + strlen (c->reason), c->also));
          /* The loader's message starts with the path, which the line names already. */
          g_assert_null (strstr (f->reason, f->path));
        }
      g_autofree char *line = g_strdup_printf ("%s: %s", f->path, f->reason);
      g_assert_true (warned (line));
    }
  /* Nothing else was warned about: one warning per refused file. */
  g_assert_cmpuint (warnings->len, ==, n_refused);
  free_cases (cases);
}

/* The refusals around them do not stop the valid libraries from loading. */
static void
test_good_plugins_load (void)
{
  g_autoptr (CwbRegistry) registry = scan_broken ();

  const CwbPluginDesc *good = cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "good");
  g_assert_nonnull (good);
  g_assert_cmpstr (good->summary, ==, "Test-only solver that does nothing, validly");
  g_assert_cmpuint (good->n_params, ==, 4);
  /* The kind is part of the key. */
  g_assert_null (cwb_registry_find (registry, CWB_PLUGIN_CONTACT_MODEL, "good"));

  /* A newer minor ABI is compatible. */
  const CwbPluginDesc *newer = cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "minor-newer");
  g_assert_nonnull (newer);
  g_assert_cmpuint (newer->abi_minor, ==, CWB_ABI_MINOR + 5);

  /* The first "twin" by file name is the one loaded. */
  const CwbPluginDesc *twin = cwb_registry_find (registry, CWB_PLUGIN_CONTACT_MODEL, "twin");
  g_assert_nonnull (twin);
  g_assert_cmpstr (twin->version, ==, "a");

  /* foreign-entry did not smuggle its dependency's plugin in. */
  g_assert_null (cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "provided"));
  /* Refused plugins are not found under their names either. */
  g_assert_null (cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "bad-vtable"));
  g_assert_null (cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "unknown-kind"));

  g_autoptr (GPtrArray) solvers = cwb_registry_list (registry, CWB_PLUGIN_SOLVER);
  g_assert_cmpuint (solvers->len, ==, 2);
  g_assert_true (g_ptr_array_index (solvers, 0) == good);
  g_assert_true (g_ptr_array_index (solvers, 1) == newer);
  g_autoptr (GPtrArray) bodies = cwb_registry_list (registry, CWB_PLUGIN_BODY_MODEL);
  g_assert_cmpuint (bodies->len, ==, 0);
}

static char *
print_to_string (const CwbRegistry *registry)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream (&text, &size);
  g_assert_nonnull (out);
  cwb_registry_print (registry, out);
  g_assert_cmpint (fclose (out), ==, 0);
  return text;
}

/* --list-plugins: the loaded plugins with their schemas, then the refused files. */
static void
test_print (void)
{
  g_autoptr (CwbRegistry) registry = scan_broken ();
  g_autofree char *text = print_to_string (registry);
  g_test_message ("%s", text);

  g_assert_nonnull (strstr (text, "loaded: 3\n"));
  /* The test plugins are built against this host's ABI (minor-newer: its minor + 5). */
  g_autofree char *good_line = g_strdup_printf (
    "\ngood         solver         version 1.0  ABI %d.%d\n", CWB_ABI_MAJOR, CWB_ABI_MINOR);
  g_autofree char *newer_line = g_strdup_printf (
    "\nminor-newer  solver         version 1.0  ABI %d.%d\n", CWB_ABI_MAJOR, CWB_ABI_MINOR + 5);
  g_autofree char *twin_line = g_strdup_printf (
    "\ntwin         contact-model  version a  ABI %d.%d\n", CWB_ABI_MAJOR, CWB_ABI_MINOR);
  g_assert_nonnull (strstr (text, good_line));
  g_assert_nonnull (strstr (text, newer_line));
  g_assert_nonnull (strstr (text, twin_line));
  g_autofree char *good_file = g_strdup_printf ("  file: %s/good.so\n", broken_dir ());
  g_assert_nonnull (strstr (text, good_file));
  /* The schema, one aligned line per parameter: name, type, unit, default, range or choices,
   * help. */
  g_assert_nonnull (strstr (text,
    "    parameter  type    unit  default    range             help\n"
    "    tolerance  double  1     1e-6       [0, 1]            Residual to stop at\n"
    "    sweeps     int     -     10         -                 Sweeps per step (unbounded)\n"
    "    order      enum    -     forward    forward|backward  Sweep order\n"
    "    bias       vec3    m     [0, 0, 1]  each in [-1, 1]   A vector\n"));
  g_assert_nonnull (strstr (text, "  parameters: none\n"));

  /* The refused section comes last and lists every refused file with its reason. */
  const char *refused = strstr (text, "\nrefused: 14\n");
  g_assert_nonnull (refused);
  g_assert_null (strstr (refused, "\ngood "));
  for (size_t i = 0; i < cwb_registry_n_files (registry); i++)
    {
      const CwbPluginFile *f = cwb_registry_file (registry, i);
      if (f->status != CWB_PLUGIN_STATUS_REFUSED)
        continue;
      g_autofree char *line = g_strdup_printf ("\n  %s: %s\n", f->path, f->reason);
      g_assert_nonnull (strstr (refused, line));
    }

  /* The folders searched, with where each came from. */
  g_autofree char *folder = g_strdup_printf ("\n  %s  (--plugin-path)\n", broken_dir ());
  g_assert_nonnull (strstr (text, folder));
}

/* A library stays open while the registry lives and is closed with it; a refused library is
 * closed at once. RTLD_NOLOAD asks the loader whether a file is loaded without loading it. */
static gboolean
is_loaded (const char *file)
{
  g_autofree char *path = g_build_filename (broken_dir (), file, NULL);
  void *handle = dlopen (path, RTLD_LAZY | RTLD_NOLOAD);
  if (handle != NULL)
    dlclose (handle);
  return handle != NULL;
}

static void
test_module_lifetime (void)
{
  capture_warnings ();
  g_assert_false (is_loaded ("good.so"));
  CwbRegistry *registry = scan_broken ();
  g_assert_true (is_loaded ("good.so"));
  g_assert_true (is_loaded ("duplicate-a.so"));
  g_assert_false (is_loaded ("duplicate-b.so"));
  g_assert_false (is_loaded ("bad-vtable.so"));
  g_assert_false (is_loaded ("foreign-entry.so"));
  cwb_registry_free (registry);
  g_assert_false (is_loaded ("good.so"));
  g_assert_false (is_loaded ("duplicate-a.so"));
}

/* The same file reached twice (the same folder twice, or through a symbolic link) is opened
 * and listed once: no "duplicate" refusal of a plugin by itself. */
static void
test_same_file_once (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("cwb-registry-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *target = g_build_filename (broken_dir (), "good.so", NULL);
  g_autofree char *link = g_build_filename (tmp, "linked-good.so", NULL);
  g_assert_cmpint (symlink (target, link), ==, 0);

  capture_warnings ();
  g_autoptr (CwbRegistry) registry = cwb_registry_new ();
  cwb_registry_add_dir (registry, broken_dir ());
  cwb_registry_add_dir (registry, broken_dir ());
  cwb_registry_add_dir (registry, tmp);
  cwb_registry_scan (registry);
  g_assert_cmpuint (cwb_registry_n_files (registry), ==, count_module_files (broken_dir ()));
  for (size_t i = 0; i < cwb_registry_n_files (registry); i++)
    {
      const CwbPluginFile *f = cwb_registry_file (registry, i);
      g_assert_true (g_str_has_prefix (f->path, broken_dir ()));
      if (f->reason != NULL)
        g_assert_false (g_str_has_prefix (f->reason, "duplicate: solver 'good'"));
    }
  g_assert_nonnull (cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "good"));

  g_assert_cmpint (g_unlink (link), ==, 0);
  g_assert_cmpint (g_rmdir (tmp), ==, 0);
}

/* A folder the user named that does not exist is a warning, not a failure. */
static void
test_missing_folder (void)
{
  capture_warnings ();
  g_autoptr (CwbRegistry) registry = cwb_registry_new ();
  cwb_registry_add_dir (registry, "/nonexistent/cwb-plugins");
  cwb_registry_add_dir (registry, broken_dir ());
  cwb_registry_scan (registry);
  g_assert_true (warned ("/nonexistent/cwb-plugins: plugin folder not found (--plugin-path)"));
  g_assert_nonnull (cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "good"));
  g_autofree char *text = print_to_string (registry);
  g_assert_nonnull (strstr (text, "\n  /nonexistent/cwb-plugins  (--plugin-path, not found)\n"));
}

/* The default folders of a build: the build tree's plugins (found recursively) and
 * CWB_PLUGIN_PATH; the test programs run from the build tree. */
static void
test_default_dirs (void)
{
  g_unsetenv ("CWB_PLUGIN_PATH");
  capture_warnings ();
  g_autoptr (CwbRegistry) registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (registry);
  cwb_registry_scan (registry);

  const CwbPluginDesc *body = cwb_registry_find (registry, CWB_PLUGIN_BODY_MODEL, "rigid");
  const CwbPluginDesc *mapping = cwb_registry_find (registry, CWB_PLUGIN_MAPPING, "rigid");
  const CwbPluginDesc *solver = cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "constraint");
  g_assert_nonnull (body);
  g_assert_nonnull (mapping);
  g_assert_nonnull (solver);

  /* All three from the build's plugin folder, where nothing is refused. (Only that folder is
   * checked: an install of the project on this machine would add refused duplicates.) */
  g_autofree char *plugin_dir = g_build_filename (g_getenv ("CWB_BUILD_DIR"), "plugins",
                                                  G_DIR_SEPARATOR_S, NULL);
  guint n_build = 0, n_found = 0;
  for (size_t i = 0; i < cwb_registry_n_files (registry); i++)
    {
      const CwbPluginFile *f = cwb_registry_file (registry, i);
      g_test_message ("%s: %s", f->path, f->reason != NULL ? f->reason : "loaded");
      if (!g_str_has_prefix (f->path, plugin_dir))
        continue;
      n_build++;
      g_assert_cmpint (f->status, ==, CWB_PLUGIN_STATUS_LOADED);
      n_found += f->desc == body || f->desc == mapping || f->desc == solver;
      /* Found in the nested build layout (plugins/KIND/NAME/FILE.so), not at the top. */
      g_assert_nonnull (strchr (f->path + strlen (plugin_dir), G_DIR_SEPARATOR));
    }
  g_assert_cmpuint (n_found, ==, 3);
  g_assert_cmpuint (n_build, >=, 3);
  /* The test-only plugins are in no default folder. */
  g_assert_null (cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "good"));
  g_assert_null (cwb_registry_find (registry, CWB_PLUGIN_CONTACT_MODEL, "halfspace"));
}

/* Entries named like libraries that are none (issue 17, item 7) are listed as refused with
 * why, never skipped in silence; a truncated library is refused before the loader maps it
 * (it died of SIGBUS there, even under --list-plugins); a file name with a newline cannot
 * forge a line of the listing. */
static void
test_hostile_folder (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cwb-plugins-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *dangling = g_build_filename (dir, "dangling.so", NULL);
  g_assert_cmpint (symlink ("nowhere.so", dangling), ==, 0);
  g_autofree char *loop_a = g_build_filename (dir, "loop-a.so", NULL);
  g_autofree char *loop_b = g_build_filename (dir, "loop-b.so", NULL);
  g_assert_cmpint (symlink ("loop-b.so", loop_a), ==, 0);
  g_assert_cmpint (symlink ("loop-a.so", loop_b), ==, 0);
  g_autofree char *fifo = g_build_filename (dir, "pipe.so", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_autofree char *folder = g_build_filename (dir, "folder.so", NULL);
  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  /* The first 4 KiB of a real plugin: its headers promise segments the file lacks. */
  g_autofree char *real = g_build_filename (g_getenv ("CWB_BUILD_DIR"), "plugins", "bodies",
                                            "rigid", "body-rigid.so", NULL);
  g_autofree char *bytes = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (real, &bytes, &length, NULL));
  g_assert_cmpuint (length, >, 4096);
  g_autofree char *truncated = g_build_filename (dir, "truncated.so", NULL);
  g_assert_true (g_file_set_contents (truncated, bytes, 4096, NULL));
  g_autofree char *forged = g_build_filename (dir, "evil\nloaded: 99.so", NULL);
  g_assert_true (g_file_set_contents (forged, "not a library", -1, NULL));

  capture_warnings ();
  g_autoptr (CwbRegistry) registry = cwb_registry_new ();
  cwb_registry_add_dir (registry, dir);
  cwb_registry_scan (registry);
  struct { const char *file, *reason; } expected[] = {
    { dangling, "a dangling symbolic link (to nowhere.so)" },
    { loop_a, "a loop of symbolic links" },
    { loop_b, "a loop of symbolic links" },
    { fifo, "a FIFO (named pipe), not a library file" },
    { folder, "a folder named like a library" },
    { truncated, "truncated: " },
    { forged, "cannot open: " },
  };
  g_assert_cmpuint (cwb_registry_n_files (registry), ==, G_N_ELEMENTS (expected));
  for (size_t k = 0; k < G_N_ELEMENTS (expected); k++)
    {
      const CwbPluginFile *found = NULL;
      for (size_t i = 0; i < cwb_registry_n_files (registry); i++)
        if (strcmp (cwb_registry_file (registry, i)->path, expected[k].file) == 0)
          found = cwb_registry_file (registry, i);
      g_assert_nonnull (found);
      g_test_message ("%s: %s", expected[k].file, found->reason);
      g_assert_cmpint (found->status, ==, CWB_PLUGIN_STATUS_REFUSED);
      g_assert_true (g_str_has_prefix (found->reason, expected[k].reason));
    }

  /* The listing: one line per refused file, the newline shown as \n. */
  char *listing = NULL;
  size_t listing_size = 0;
  FILE *out = open_memstream (&listing, &listing_size);
  cwb_registry_print (registry, out);
  fclose (out);
  g_autofree char *owned = listing;
  g_assert_null (strstr (listing, "\nloaded: 99"));
  g_assert_nonnull (strstr (listing, "evil\\nloaded: 99.so: cannot open"));
  g_assert_nonnull (strstr (listing, "\nloaded: 0\n"));
  g_assert_nonnull (strstr (listing, "\nrefused: 7\n"));

  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        g_rmdir (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

static void
test_plugin_path_variable (void)
{
  g_autofree char *value = g_strdup_printf ("/nonexistent/cwb-env::%s", broken_dir ());
  g_setenv ("CWB_PLUGIN_PATH", value, TRUE);
  capture_warnings ();
  g_autoptr (CwbRegistry) registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (registry);
  cwb_registry_scan (registry);
  g_unsetenv ("CWB_PLUGIN_PATH");

  g_assert_true (warned ("/nonexistent/cwb-env: plugin folder not found (CWB_PLUGIN_PATH)"));
  g_assert_nonnull (cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "good"));
  /* The build tree's plugins come first, the variable's after. */
  g_assert_nonnull (cwb_registry_find (registry, CWB_PLUGIN_SOLVER, "constraint"));
  const CwbPluginFile *first = cwb_registry_file (registry, 0);
  g_assert_true (g_str_has_prefix (first->path, g_getenv ("CWB_BUILD_DIR")));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  warnings = g_ptr_array_new_with_free_func (g_free);
  g_log_set_handler ("cwb", G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL, capture_warning, NULL);

  g_test_add_func ("/registry/broken/file-list", test_file_list);
  g_test_add_func ("/registry/broken/reasons", test_refusal_reasons);
  g_test_add_func ("/registry/broken/good-plugins-load", test_good_plugins_load);
  g_test_add_func ("/registry/broken/print", test_print);
  g_test_add_func ("/registry/module-lifetime", test_module_lifetime);
  g_test_add_func ("/registry/same-file-once", test_same_file_once);
  g_test_add_func ("/registry/missing-folder", test_missing_folder);
  g_test_add_func ("/registry/default-dirs", test_default_dirs);
  g_test_add_func ("/registry/plugin-path-variable", test_plugin_path_variable);
  g_test_add_func ("/registry/hostile-folder", test_hostile_folder);
  int status = g_test_run ();
  g_ptr_array_unref (warnings);
  return status;
}

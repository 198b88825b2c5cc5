/* No code of the host, of a contact model, of a solver or of the geometry helpers they share
 * names a body kind (issue 21: a fluid meets solids through the ABI alone, never through a
 * special case): no string literal in their sources is the name of a body-model plugin the
 * registry loads (rigid, fem, sph, grid-fluid, ...), and none includes a body model's own
 * header. The one exception is the scene format's documented default, a body with no `model`
 * or `mapping` being "rigid" (docs/scene-format.md), in the scene reader and the body
 * panel's template. Comments may name anything: the scanner reads code only. */
#include <string.h>

#include "registry.h"

/* Where the default may be written: the scene reader's defaults and the panel's template. */
static const char *const default_allowed[] = { "workbench/core/scene.c",
                                               "workbench/app/window_panels.c", NULL };
#define SCENE_DEFAULT_MODEL "rigid"

/* The folders whose code must not name a body kind, under the source root. */
static const char *const scanned[] = { "workbench", "plugins/contact-penalty",
                                       "plugins/contact-proximity", "plugins/contact-ldi",
                                       "plugins/contact-eulerian", "plugins/solvers",
                                       "plugins/common", NULL };

/* The string literals of C source `text` (comments and character literals skipped), and the
 * quoted #include paths among them, as they are written between the quotes. */
static void
literals_of (const char *text, GPtrArray *literals, GPtrArray *includes)
{
  const char *p = text;
  gboolean line_start = TRUE;
  while (*p != '\0')
    {
      if (p[0] == '/' && p[1] == '*')
        {
          const char *end = strstr (p + 2, "*/");
          p = end != NULL ? end + 2 : p + strlen (p);
          continue;
        }
      if (p[0] == '/' && p[1] == '/')
        {
          p = strchrnul (p, '\n');
          continue;
        }
      if (line_start && *p == '#')
        {
          const char *q = p + 1;
          while (*q == ' ' || *q == '\t')
            q++;
          if (g_str_has_prefix (q, "include") && strchr (q, '"') != NULL
              && strchr (q, '"') < strchrnul (q, '\n'))
            {
              const char *open = strchr (q, '"'), *close = strchr (open + 1, '"');
              if (close != NULL)
                g_ptr_array_add (includes, g_strndup (open + 1, (gsize) (close - open - 1)));
              p = strchrnul (q, '\n');
              continue;
            }
        }
      if (*p == '\'')
        {
          for (p++; *p != '\0' && *p != '\''; p++)
            if (*p == '\\' && p[1] != '\0')
              p++;
          p += *p != '\0';
          continue;
        }
      if (*p == '"')
        {
          GString *s = g_string_new (NULL);
          for (p++; *p != '\0' && *p != '"'; p++)
            {
              if (*p == '\\' && p[1] != '\0')
                g_string_append_c (s, *p++);
              g_string_append_c (s, *p);
            }
          p += *p != '\0';
          g_ptr_array_add (literals, g_string_free (s, FALSE));
          line_start = FALSE;
          continue;
        }
      if (*p == '\n')
        line_start = TRUE;
      else if (*p != ' ' && *p != '\t')
        line_start = FALSE;
      p++;
    }
}

/* The file names (basename) of every header under the body models' folders. */
static GHashTable *
body_model_headers (const char *root)
{
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *bodies = g_build_filename (root, "plugins", "bodies", NULL);
  g_autoptr (GDir) dir = g_dir_open (bodies, 0, NULL);
  g_assert_nonnull (dir);
  const char *model;
  while ((model = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (bodies, model, NULL);
      g_autoptr (GDir) files = g_dir_open (path, 0, NULL);
      const char *file;
      while (files != NULL && (file = g_dir_read_name (files)) != NULL)
        if (g_str_has_suffix (file, ".h"))
          g_hash_table_add (names, g_strdup (file));
    }
  return names;
}

typedef struct Scan {
  const char *root;
  GPtrArray *body_names;      /* the body-model plugins' names */
  GHashTable *body_headers;   /* their headers' file names */
  GPtrArray *findings;        /* "FILE: what" */
  size_t files;
} Scan;

static void
scan_file (Scan *scan, const char *relative)
{
  g_autofree char *path = g_build_filename (scan->root, relative, NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autoptr (GPtrArray) literals = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) includes = g_ptr_array_new_with_free_func (g_free);
  literals_of (text, literals, includes);
  gboolean default_ok = g_strv_contains (default_allowed, relative);
  for (guint i = 0; i < literals->len; i++)
    for (guint k = 0; k < scan->body_names->len; k++)
      {
        const char *name = g_ptr_array_index (scan->body_names, k);
        if (strcmp (g_ptr_array_index (literals, i), name) == 0
            && !(default_ok && strcmp (name, SCENE_DEFAULT_MODEL) == 0))
          g_ptr_array_add (scan->findings, g_strdup_printf ("%s: names the body model \"%s\"",
                                                            relative, name));
      }
  for (guint i = 0; i < includes->len; i++)
    {
      g_autofree char *base = g_path_get_basename (g_ptr_array_index (includes, i));
      g_autofree char *own_dir = g_path_get_dirname (path);
      g_autofree char *beside = g_build_filename (own_dir, base, NULL);
      if (g_hash_table_contains (scan->body_headers, base) && !g_file_test (beside,
                                                                           G_FILE_TEST_EXISTS))
        g_ptr_array_add (scan->findings, g_strdup_printf ("%s: includes the body model's "
                                                          "header \"%s\"", relative, base));
    }
  scan->files++;
}

static void
scan_dir (Scan *scan, const char *relative)
{
  g_autofree char *path = g_build_filename (scan->root, relative, NULL);
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  g_assert_nonnull (dir);
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (relative, name, NULL);
      g_autofree char *full = g_build_filename (scan->root, child, NULL);
      if (g_file_test (full, G_FILE_TEST_IS_DIR))
        scan_dir (scan, child);
      else if (g_str_has_suffix (name, ".c") || g_str_has_suffix (name, ".h"))
        scan_file (scan, child);
    }
}

/* The scanner itself: a comparison with a body kind's name in code is found, the same name
 * in a comment or inside a longer literal is not, and an include of a body's header is. */
static void
test_scanner (void)
{
  g_autoptr (GPtrArray) literals = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) includes = g_ptr_array_new_with_free_func (g_free);
  literals_of ("/* \"sph\" */ // \"fem\"\n#include \"sph_body.h\"\n"
               "if (strcmp (m, \"sph\") == 0 && c == '\"') puts (\"sph body\\\"\");\n",
               literals, includes);
  g_assert_cmpuint (literals->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (literals, 0), ==, "sph");
  g_assert_cmpstr (g_ptr_array_index (literals, 1), ==, "sph body\\\"");
  g_assert_cmpuint (includes->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (includes, 0), ==, "sph_body.h");
}

/* The sources: every body model the build's registry loads, and no host, contact-model,
 * solver or shared-helper source naming one or including its headers. */
static void
test_sources (void)
{
  const char *root = g_getenv ("CWB_SOURCE_DIR");
  g_assert_nonnull (root);
  g_autoptr (CwbRegistry) registry = cwb_registry_new ();
  cwb_registry_add_default_dirs (registry);
  cwb_registry_scan (registry);
  g_autoptr (GPtrArray) bodies = cwb_registry_list (registry, CWB_PLUGIN_BODY_MODEL);
  Scan scan = { .root = root, .body_names = g_ptr_array_new (),
                .body_headers = body_model_headers (root),
                .findings = g_ptr_array_new_with_free_func (g_free) };
  for (guint i = 0; i < bodies->len; i++)
    g_ptr_array_add (scan.body_names,
                     (gpointer) ((const CwbPluginDesc *) g_ptr_array_index (bodies, i))->name);
  /* The four the issue names, so that a registry missing them cannot pass the test. */
  const char *expected[] = { "rigid", "fem", "sph", "grid-fluid" };
  for (size_t k = 0; k < G_N_ELEMENTS (expected); k++)
    g_assert_nonnull (cwb_registry_find (registry, CWB_PLUGIN_BODY_MODEL, expected[k]));
  for (const char *const *d = scanned; *d != NULL; d++)
    scan_dir (&scan, *d);
  g_test_message ("%zu files scanned for %u body-model names and %u of their headers",
                  scan.files, scan.body_names->len, g_hash_table_size (scan.body_headers));
  for (guint i = 0; i < scan.findings->len; i++)
    g_test_message ("%s", (const char *) g_ptr_array_index (scan.findings, i));
  g_assert_cmpuint (scan.files, >, 100);
  g_assert_cmpuint (scan.findings->len, ==, 0);
  g_ptr_array_unref (scan.body_names);
  g_hash_table_unref (scan.body_headers);
  g_ptr_array_unref (scan.findings);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/body-neutrality/scanner", test_scanner);
  g_test_add_func ("/core/body-neutrality/sources", test_sources);
  return g_test_run ();
}

/* A home of the test's own for the GTK application tests: state, data (recent files) and
 * configuration in a temporary folder, so that a test never touches the user's files. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* Makes the folder (its path set as CWB_TEST_APP_DIR, inherited by subprocesses) unless a
 * parent test made it already. GTK's settings there keep recent files without an age limit:
 * GTK 4.8.3 leaks a 32-byte GDateTime each time it trims the recent-files list by age (at
 * every change and when an application shuts down), which LeakSanitizer would report as the
 * test's. Found with valgrind (g_date_time_new_now_utc under GtkApplication's shutdown) and
 * confirmed by this setting making the report go away. */
static inline void
app_test_home (const char *prefix)
{
  if (g_getenv ("CWB_TEST_APP_DIR") != NULL)
    return;
  g_autofree char *template = g_strconcat (prefix, "-XXXXXX", NULL);
  g_autofree char *dir = g_dir_make_tmp (template, NULL);
  g_assert_nonnull (dir);
  g_setenv ("CWB_TEST_APP_DIR", dir, TRUE);
  g_autofree char *state = g_build_filename (dir, "state", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_autofree char *data = g_build_filename (dir, "data", NULL);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_autofree char *gtk_config = g_build_filename (dir, "config", "gtk-4.0", NULL);
  g_autofree char *settings = g_build_filename (gtk_config, "settings.ini", NULL);
  g_assert_cmpint (g_mkdir_with_parents (gtk_config, 0700), ==, 0);
  g_assert_true (g_file_set_contents (settings, "[Settings]\ngtk-recent-files-max-age=-1\n",
                                      -1, NULL));
  g_autofree char *config = g_build_filename (dir, "config", NULL);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  /* The user's Videos folder (where Record puts clips) in here too. */
  g_autofree char *user_dirs = g_build_filename (config, "user-dirs.dirs", NULL);
  g_autofree char *videos = g_strdup_printf ("XDG_VIDEOS_DIR=\"%s/videos\"\n", dir);
  g_assert_true (g_file_set_contents (user_dirs, videos, -1, NULL));
}

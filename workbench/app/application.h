/* The GTK application: one GtkApplication (application id CWB_APP_ID) owning the plugin
 * registry, opening a window per scene, with the application-wide actions (quit, about,
 * plugins window, shortcuts) and the keyboard accelerators of the window actions. */
#pragma once

#include <gtk/gtk.h>

#include "registry.h"

G_BEGIN_DECLS

#define CWB_APP_ID "org.contactworkbench.Workbench"

#define CWB_APP_TYPE_APPLICATION (cwb_app_application_get_type ())
G_DECLARE_FINAL_TYPE (CwbAppApplication, cwb_app_application, CWB_APP, APPLICATION,
                      GtkApplication)

typedef struct CwbAppOptions {
  const char *scene_path;      /* the scene to open; NULL: an empty new scene */
  char **sets;                 /* --set overrides applied to it (NULL-terminated, may be NULL) */
  /* --self-test: draw this many frames (probing each), print what was drawn, run
   * self_test_steps steps meanwhile, and quit; exit status 1 when the view stayed blank. */
  int self_test_frames;
  int self_test_steps;
  /* --bench-frames: every overlay on, the simulation running as fast as it can when
   * self_test_steps > 0, the camera turned every frame; after this many frames print the
   * median frame interval, drawing time and input latency, and quit (bench/gui_frames.sh). */
  int bench_frames;
  /* With bench_frames: run the self_test_steps steps first and measure the frames after the
   * run has stopped (drawing a settled scene with its contacts, nothing stepping). */
  gboolean bench_paused;
  /* --compare: the first window opens as an A/B compare, B with these changes (KEY=VALUE,
   * NULL-terminated, may be NULL). */
  char **compare;
} CwbAppOptions;

/* Takes the registry. */
CwbAppApplication *cwb_app_application_new (CwbRegistry *registry, const CwbAppOptions *options);
CwbRegistry *cwb_app_application_registry (CwbAppApplication *app);
const CwbAppOptions *cwb_app_application_options (CwbAppApplication *app);
/* The command line's --compare changes for the first window that asks (then NULL): a
 * new reference the caller frees. */
char **cwb_app_application_take_compare (CwbAppApplication *app);
/* The exit status a self test asks for (0 otherwise). */
void cwb_app_application_set_exit_status (CwbAppApplication *app, int status);
int cwb_app_application_exit_status (CwbAppApplication *app);

/* Runs the application (the GUI entry of main): returns the process exit status. */
int cwb_app_run (CwbRegistry *registry, const CwbAppOptions *options);

G_END_DECLS

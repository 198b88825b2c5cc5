/* The window's internals, shared by window.c (layout, actions, document and simulation),
 * window_panels.c (the panels that show them: properties, bodies, inspector, transport),
 * window_files.c (files, autosave, recovery) and window_jobs.c (long work with its progress
 * bar). */
#pragma once

#include "body_table.h"
#include "contact_table.h"
#include "plot_panel.h"
#include "property_editor.h"
#include "window.h"
#include "world_job.h"

/* What a job does when it ends (window_jobs.c), on the UI thread; it may close the window. */
typedef void (*CwbAppWindowJobDone) (CwbAppWindow *self, CwbAppJob *job);

/* How a change of the document that the world could not follow is taken back. */
typedef enum CwbAppRevert {
  CWB_APP_REVERT_NONE,
  CWB_APP_REVERT_UNDO,      /* the edit was one document step */
  CWB_APP_REVERT_REDO,      /* the edit was an undo */
} CwbAppRevert;

struct _CwbAppWindow {
  GtkApplicationWindow parent;
  CwbRegistry *registry;            /* the application's */
  CwbDocument *document;
  CwbSimulation *simulation;

  CwbAppViewport *viewport;
  CwbPlotPanel *plots;
  CwbPropertyEditor *properties;
  GtkListBox *body_list;
  GtkWidget *inspector;             /* GtkGrid of the picked contact's values */
  CwbAppBodyTable *body_table;      /* the Bodies tab */
  CwbAppContactTable *contact_table;   /* the Contacts tab */
  GtkScale *scrubber;
  GtkLabel *time_label, *status_label, *error_label;
  GtkRevealer *error_revealer;
  GtkDropDown *contact_chooser, *solver_chooser;
  GPtrArray *contact_names, *solver_names;   /* char*, the choosers' order ("" for none) */
  gboolean updating;                /* panels being refreshed: ignore their signals */

  char *selected_body;
  gssize picked_contact;
  guint64 shown_revision;           /* document revision the panels show */
  guint64 shown_snapshot_steps;
  guint64 stats_cursor;
  GArray *stats_buffer;             /* CwbStepStats */
  gint64 last_panel_update_us;
  guint autosave_source;
  char *last_error;
  gboolean closing;
  GtkWidget *sidebar, *bottom;      /* the panels a job turns off (window_jobs.c) */
  GtkPaned *main_paned, *view_paned;   /* view | sidebar, and view / bottom panels */
  GtkSpinButton *steps_per_click;   /* beside Step */
  GtkMenuButton *speed_button;

  /* window_jobs.c: the long work the window waits on (NULL: none) and its bar */
  CwbAppJob *job;
  CwbAppWindowJobDone job_done;
  guint job_poll;
  GtkRevealer *job_revealer;
  GtkLabel *job_label;
  GtkProgressBar *job_bar;
  GtkWidget *job_cancel, *job_close;
  char *job_text;                   /* the last report shown ("what: NN %"), or NULL */
  char *notice;                     /* the last notice shown in the bar, or NULL */

  /* window_phases.c: the stages of the step being walked through (NULL: none), the one
   * shown, and its caption under the view */
  GPtrArray *phases;
  guint phase_at;
  GtkLabel *phase_label;

  /* window_compare.c: side B of an A/B compare (compare NULL: none) */
  CwbSimulation *compare;
  CwbAppViewport *compare_viewport;
  CwbScene *compare_scene;          /* B's scene: A's with the changes, for a restart */
  char **compare_changes;
  guint64 compare_stats_cursor;
  guint64 compare_world_serial;     /* A's world when B was built: another means a rebuild */
  CwbCamera compare_camera;         /* both views' camera at the last tick */
  GtkLabel *compare_readout, *compare_a_label, *compare_b_label;
  guint64 compare_readout_step;     /* the common step the readout is of; G_MAXUINT64: none */

  int self_test_frames;             /* frames left to draw in --self-test, 0: not testing */
  int bench_frames;                 /* --bench-frames, 0: not benchmarking */
  gboolean bench_waiting;           /* --bench-paused: measuring starts when the run stops */
  gint64 bench_start_us;
  guint64 bench_start_steps;
  gint64 self_test_best;            /* most pixels drawn in one probed frame */
};

/* window_panels.c */
void cwb_app_window_build_panels (CwbAppWindow *self, GtkWidget *sidebar, GtkWidget *bottom);
/* Takes over how `from` shows its scene: window size, panel positions, the Properties tab,
 * overlays and force scale, the camera's direction (the new scene is framed from it), the
 * mouse spring and real time; for a scene opened from that window. */
void cwb_app_window_take_view (CwbAppWindow *self, CwbAppWindow *from);
/* After a document change: body list, properties, choosers, title. */
void cwb_app_window_refresh_document (CwbAppWindow *self);
void cwb_app_window_refresh_body_list (CwbAppWindow *self);

/* Phase stepping (window_phases.c): the first call steps once recording the solver's
 * stages and shows the first; each next call shows the next stage, and after the last the
 * step's end. Play, step, the history and a reset end it. */
void cwb_app_window_step_phase (CwbAppWindow *self);
void cwb_app_window_end_phases (CwbAppWindow *self);
/* window_view.c: the View menu's actions (overlays, legend and labels, body looks, section,
 * camera), added to the window. */
void cwb_app_window_add_view_actions (CwbAppWindow *self);
/* Sets how the body `name` is drawn (in the compare view too) and shows it in the list. */
void cwb_app_window_set_body_look (CwbAppWindow *self, const char *name, CwbAppBodyLook look);
/* After a new snapshot (throttled): scrubber, time, status, inspector, body and contact
 * tables, plots. */
void cwb_app_window_refresh_run (CwbAppWindow *self);
void cwb_app_window_refresh_inspector (CwbAppWindow *self);

/* window.c */
void cwb_app_window_hide_error (CwbAppWindow *self);
/* What a click in the view picked (body, contact; -1: nothing), as the view's "picked" signal
 * says it: the body selected, the contact shown in the Inspector, the Contacts tab and the
 * view. */
void cwb_app_window_pick (CwbAppWindow *self, gssize body, gssize contact);
/* The scene file (NULL: a new empty scene) with --set overrides (may be NULL) applied. */
CwbScene *cwb_app_window_load_scene (const char *path, char **sets, GError **error);
/* A window on a document and its world (both taken), laid out, not yet shown. */
CwbAppWindow *cwb_app_window_new_with (CwbAppApplication *app, CwbDocument *document,
                                       CwbWorld *world);
/* What a window does first: the command line's test and benchmark modes, else the offer to
 * recover unsaved changes. */
void cwb_app_window_start (CwbAppWindow *self);
/* Adds a body (taken) to the document and the world, and selects it. */
void cwb_app_window_add_body (CwbAppWindow *self, CwbBodyDesc *body);
/* The document changed as a whole (undo, redo, recovery): the world follows, bodies keep
 * their state; `revert` takes the change back when the world cannot follow. */
void cwb_app_window_follow_document (CwbAppWindow *self, CwbAppRevert revert);

/* window_jobs.c: long work (world_job.h) with a progress bar and Cancel. Each function below
 * ends at once when the work is quick (FALSE with the error when it failed), else returns
 * TRUE and ends later; either way a failure or a cancel takes the edit back (`revert`, a
 * CwbAppRevert) so that the document says what the world is. */

typedef struct CwbAppRebuild {
  gboolean carry;                 /* bodies go on from their state (cwb_world_carry_state) */
  const char *const *except;      /* ... except these (NULL-terminated, may be NULL) */
  const char *const *renamed;     /* names in pairs, old then new (NULL-terminated, may be
                                   * NULL): a renamed body goes on too */
  CwbAppRevert revert;
  const char *select;             /* a body to select once built, or NULL */
  gboolean restart;               /* the run starts over: plots cleared */
} CwbAppRebuild;

/* TRUE, with the error saying why, while work runs: no other change may start. */
gboolean cwb_app_window_busy (CwbAppWindow *self, GError **error);
/* Builds a world from the document's scene and hands it to the simulation. */
gboolean cwb_app_window_rebuild (CwbAppWindow *self, const CwbAppRebuild *how, GError **error);
/* Swaps the contact model or solver (`name`, NULL: no contact model), or with `set_params`
 * applies the document's parameters of that kind to the running plugin; a swap reaches the
 * document once the world took it. */
gboolean cwb_app_window_edit_plugin (CwbAppWindow *self, CwbPluginKind kind, const char *name,
                                     gboolean set_params, CwbAppRevert revert, GError **error);
/* A status message in the bar above the view (a cancel's), until dismissed. */
void cwb_app_window_show_notice (CwbAppWindow *self, const char *message);
GtkWidget *cwb_app_window_build_job_bar (CwbAppWindow *self);
void cwb_app_window_add_job_actions (CwbAppWindow *self);
/* Cancels the work, if any, and waits for it (the window going away). */
void cwb_app_window_stop_job (CwbAppWindow *self);

/* window.c: a chooser of the plugins of one kind, their names in `names` in its order;
 * `empty_label` (NULL: none) first stands for "" (no plugin, or as it is). */
void cwb_app_window_fill_chooser (GtkDropDown *chooser, GPtrArray *names, CwbRegistry *registry,
                                  CwbPluginKind kind, const char *empty_label);
/* window.c: real time and its speed, from the actions' states, for A and B. */
void cwb_app_window_pace (CwbAppWindow *self);

/* window_compare.c: B follows A's transport (no-ops without a compare) */
void cwb_app_window_compare_play (CwbAppWindow *self, gboolean play);
void cwb_app_window_compare_step (CwbAppWindow *self, int n);
/* Builds side B's world from `scene` (taken) on a worker thread (window_jobs.c), the window
 * live meanwhile with a progress bar and Cancel; cwb_app_window_compare_built then starts the
 * compare with it (world and scene taken). */
gboolean cwb_app_window_build_compare (CwbAppWindow *self, CwbScene *scene,
                                       char *const *changes, GError **error);
gboolean cwb_app_window_compare_built (CwbAppWindow *self, CwbWorld *world, CwbScene *scene,
                                       char *const *changes, GError **error);
/* A's world was rebuilt for an edit of the scene: B gets the same edit (A's new scene with
 * B's changes), its bodies carried as A's were (`carry`, `except`, `renamed` as
 * cwb_simulation_replace_world takes them). FALSE when B's changes no longer apply (a body
 * they name was deleted) or its world does not build. */
gboolean cwb_app_window_compare_follow_edit (CwbAppWindow *self, gboolean carry,
                                             const char *const *except,
                                             const char *const *renamed, GError **error);
/* B shows its history entry at the step A's shown state is at. */
void cwb_app_window_compare_seek (CwbAppWindow *self);
void cwb_app_window_compare_pace (CwbAppWindow *self, gboolean realtime, double speed);
/* Every frame: lockstep, cameras and overlays, B's plots, the readout, B's failures; a
 * rebuilt A restarts B (a reset) or ends the compare (an edit). */
void cwb_app_window_compare_follow (CwbAppWindow *self);
/* The main menu's Compare...: what B changes, chosen and typed. */
void cwb_app_window_open_compare_dialog (CwbAppWindow *self);

/* window_files.c */
void cwb_app_window_add_file_actions (CwbAppWindow *self);
void cwb_app_window_accept_drops (CwbAppWindow *self);
void cwb_app_window_remember_recent (const char *path);
void cwb_app_window_fill_recent_menu (GMenu *menu);
gboolean cwb_app_window_autosave_tick (gpointer data);
gboolean cwb_app_window_close_request (GtkWindow *window);
void cwb_app_window_offer_recovery (CwbAppWindow *self);

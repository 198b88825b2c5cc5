/* The window's internals, shared by window.c (layout, actions, document and simulation) and
 * window_panels.c (the panels that show them: properties, bodies, inspector, transport). */
#pragma once

#include "plot_panel.h"
#include "property_editor.h"
#include "window.h"

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

  int self_test_frames;             /* frames left to draw in --self-test, 0: not testing */
  int bench_frames;                 /* --bench-frames, 0: not benchmarking */
  gboolean bench_waiting;           /* --bench-paused: measuring starts when the run stops */
  gint64 bench_start_us;
  guint64 bench_start_steps;
  gint64 self_test_best;            /* most pixels drawn in one probed frame */
};

/* window_panels.c */
void cwb_app_window_build_panels (CwbAppWindow *self, GtkWidget *sidebar, GtkWidget *bottom);
/* After a document change: body list, properties, choosers, title. */
void cwb_app_window_refresh_document (CwbAppWindow *self);
/* After a new snapshot (throttled): scrubber, time, status, inspector, plots. */
void cwb_app_window_refresh_run (CwbAppWindow *self);
void cwb_app_window_refresh_inspector (CwbAppWindow *self);

/* window.c */
void cwb_app_window_show_error (CwbAppWindow *self, const char *message);
/* Adds a body (taken) to the document and the world, and selects it. */
void cwb_app_window_add_body (CwbAppWindow *self, CwbBodyDesc *body);
/* The document changed as a whole (undo, redo, recovery): the world follows, bodies keep
 * their state. */
void cwb_app_window_follow_document (CwbAppWindow *self);

/* window_files.c */
void cwb_app_window_add_file_actions (CwbAppWindow *self);
void cwb_app_window_accept_drops (CwbAppWindow *self);
void cwb_app_window_remember_recent (const char *path);
void cwb_app_window_fill_recent_menu (GMenu *menu);
gboolean cwb_app_window_autosave_tick (gpointer data);
gboolean cwb_app_window_close_request (GtkWindow *window);
void cwb_app_window_offer_recovery (CwbAppWindow *self);

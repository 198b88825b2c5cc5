/* The plot panel: time series of the run (kinetic energy, contact count, intersection volume
 * or maximal penetration, solver iterations) and the last step's solver residual per
 * iteration and time per phase, drawn with cairo, with CSV export. Pushing a step's
 * statistics is cheap (an append); the panel redraws at most ten times a second, so plotting
 * never slows the simulation. */
#pragma once

#include <gtk/gtk.h>

#include "world.h"

G_BEGIN_DECLS

#define CWB_TYPE_PLOT_PANEL (cwb_plot_panel_get_type ())
G_DECLARE_FINAL_TYPE (CwbPlotPanel, cwb_plot_panel, CWB, PLOT_PANEL, GtkWidget)

GtkWidget *cwb_plot_panel_new (void);

/* Appends the statistics of one step (in time order). */
void cwb_plot_panel_push (CwbPlotPanel *panel, const CwbStepStats *stats);
/* Appends one step of side B of an A/B compare: drawn dashed over the run's curves, on the
 * same scales; truncate and clear drop B's steps too. */
void cwb_plot_panel_push_compare (CwbPlotPanel *panel, const CwbStepStats *stats);
/* Drops side B's steps (the compare ended). */
void cwb_plot_panel_clear_compare (CwbPlotPanel *panel);
/* The residual after each iteration of the latest step's solve. */
void cwb_plot_panel_set_residuals (CwbPlotPanel *panel, const double *residuals, size_t n);
/* The time the view shows when it is back in the history: a vertical line across the time
 * strips there; NAN (the newest state) draws none. */
void cwb_plot_panel_set_cursor (CwbPlotPanel *panel, double time);
/* Drops the steps after `time` (the user went back in the history and resumed). */
void cwb_plot_panel_truncate (CwbPlotPanel *panel, double time);
void cwb_plot_panel_clear (CwbPlotPanel *panel);
size_t cwb_plot_panel_n_steps (CwbPlotPanel *panel);

/* Writes every kept step as CSV (header row, then one row per step: t, kinetic_energy,
 * contacts, intersection_volume, max_penetration, solver_iterations, solver_residual and the
 * four phase times in ms; empty cells for NAN), atomically. */
gboolean cwb_plot_panel_export_csv (CwbPlotPanel *panel, const char *path, GError **error);
/* The same for any array of statistics (the panel's export calls it). */
gboolean cwb_step_stats_write_csv (const CwbStepStats *stats, size_t n, const char *path,
                                   GError **error);

G_END_DECLS

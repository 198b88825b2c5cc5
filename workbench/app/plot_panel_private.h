/* The plot panel's internals, shared by plot_panel.c (the widget and its history) and
 * plot_draw.c (the cairo drawing), and used by the tests: the history bound, the drawing
 * function (so that a test can draw on an image surface without a window) and the curve
 * colours (so that a test can tell a drawn curve from frames and labels). Not for the rest of
 * the application, which uses plot_panel.h. */
#pragma once

#include "plot_panel.h"

G_BEGIN_DECLS

/* Steps kept: the oldest are dropped beyond this. 200 000 steps of 88 bytes are about 18 MB,
 * minutes of a run at dt = 1 ms, and the CSV export of them stays around 50 MB. */
#define CWB_PLOT_PANEL_MAX_STEPS ((size_t) 200000)

/* The strips a user can show or hide. */
typedef enum CwbPlotStrip {
  CWB_PLOT_STRIP_KINETIC_ENERGY,
  CWB_PLOT_STRIP_CONTACTS,
  CWB_PLOT_STRIP_PENETRATION,   /* intersection volume, or max penetration when it has none */
  CWB_PLOT_STRIP_ITERATIONS,
  CWB_PLOT_STRIP_RESIDUAL,      /* the solve's final residual per step, log scale */
  CWB_PLOT_STRIP_LAST_STEP,     /* last: the time strips are those before it */     /* residual per iteration and phase times of the last step */
  CWB_PLOT_STRIP_COUNT,
} CwbPlotStrip;

/* Kept steps: a ring of `capacity` slots, `n` steps from `head`, oldest first, in time
 * order. */
typedef struct CwbPlotRing {
  CwbStepStats *steps;
  size_t capacity;
  size_t head;
  size_t n;
} CwbPlotRing;

/* The i-th kept step, oldest first. */
static inline const CwbStepStats *
cwb_plot_ring_step (const CwbPlotRing *ring, size_t i)
{
  return &ring->steps[(ring->head + i) % ring->capacity];
}

/* Where the last drawing put its time axis: time t0 at pixel x0, t1 at x1 (x1 > x0 when a
 * time plot was drawn), for turning the pointer's x into a time. */
typedef struct CwbPlotAxis {
  double t0, t1;
  double x0, x1;
} CwbPlotAxis;

/* What the drawing reads (plot_draw.c), borrowed from the panel for one draw. */
typedef struct CwbPlotView {
  CwbPlotRing run;             /* the run's steps (side A of an A/B compare) */
  CwbPlotRing compare;         /* side B's steps in an A/B compare (n = 0 otherwise): drawn
                                * dashed over the run's, on the same scales */
  const double *residuals;     /* the last step's residual per iteration */
  size_t n_residuals;
  gboolean visible[CWB_PLOT_STRIP_COUNT];
  double cursor;               /* the time the history shows (a vertical line), NAN: none */
  double hover_x, hover_y;     /* the pointer over the drawing, NAN: none */
  GString *hover_text;         /* out, may be NULL: what the hover label shows, "" for none */
  /* The time window shown (zoomed), as cwb_plot_panel_time_window gives it; NAN: every
   * kept step. */
  double zoom_from, zoom_to;
  CwbPlotAxis *axis;           /* out, may be NULL: where the time axis was drawn */
} CwbPlotView;

/* The i-th kept step of the run, oldest first. */
static inline const CwbStepStats *
cwb_plot_view_step (const CwbPlotView *view, size_t i)
{
  return cwb_plot_ring_step (&view->run, i);
}

/* Paints the whole plot area, `width` x `height`: its own background, then the visible strips.
 * Text goes through `layout` (its font is the labels'). */
void cwb_plot_view_draw (const CwbPlotView *view, cairo_t *cr, PangoLayout *layout, int width,
                         int height);

/* The panel's drawing (what its drawing area shows), on any cairo context: the view of its
 * history, the theme's font. */
void cwb_plot_panel_draw (CwbPlotPanel *panel, cairo_t *cr, int width, int height);

/* The colour of a strip's curve (for CWB_PLOT_STRIP_LAST_STEP: the residual's), 0-255 per
 * channel. No frame, label or background is drawn in these colours. */
void cwb_plot_strip_rgb (CwbPlotStrip strip, guint8 rgb[3]);
/* The value label the last drawing showed under the pointer ("t = 0.15 s: 1.151 J"), or NULL
 * when the pointer is over no time plot. */
const char *cwb_plot_panel_hover_text (CwbPlotPanel *panel);
/* Where the pointer is over the drawing (what the motion controller feeds in); NAN: away. */
void cwb_plot_panel_set_hover (CwbPlotPanel *panel, double x, double y);

/* The colour of side B's curve in a strip (dashed): the strip's halfway to white. */
void cwb_plot_compare_rgb (CwbPlotStrip strip, guint8 rgb[3]);

/* The time window the plots show: its ends, both NAN when it is every kept step; and
 * setting it (NAN, NAN: every step). A window ending at the newest step follows the run. */
void cwb_plot_panel_time_window (CwbPlotPanel *panel, double *from, double *to);
void cwb_plot_panel_set_time_window (CwbPlotPanel *panel, double from, double to);
/* Zooms the time window by `factor` (< 1: in) about the time under pixel x of the drawing,
 * as the wheel does; a window that would hold every kept step goes back to all. */
void cwb_plot_panel_zoom_at (CwbPlotPanel *panel, double x, double factor);

/* The colour of the grid lines under the time plots' curves. */
void cwb_plot_grid_rgb (guint8 rgb[3]);
/* The colour of the time cursor's line, distinct from every other colour drawn. */
void cwb_plot_cursor_rgb (guint8 rgb[3]);

G_END_DECLS

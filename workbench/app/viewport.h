/* The viewport: a GtkGLArea drawing the latest snapshot through the shared renderer (the one
 * --screenshot uses), with the orbit camera and the mouse:
 *   left drag orbits, right or middle drag pans, the wheel zooms;
 *   a click picks a contact (the nearest within a few pixels) or else a body;
 *   a double click frames what was clicked;
 *   ctrl + left drag pulls a body with a spring (the simulation's grab) while it runs;
 *   alt + left drag (or shift + left drag) moves a body, committed on release. */
#pragma once

#include <gtk/gtk.h>

#include "camera.h"
#include "overlays.h"
#include "simulation.h"

G_BEGIN_DECLS

#define CWB_APP_TYPE_VIEWPORT (cwb_app_viewport_get_type ())
G_DECLARE_FINAL_TYPE (CwbAppViewport, cwb_app_viewport, CWB_APP, VIEWPORT, GtkGLArea)

/* Signals:
 *   "picked" (gint64 body, gint64 contact): what a click hit, -1 for nothing;
 *   "body-moved" (gint64 body, double dx, double dy, double dz, double rx, double ry,
 *                 double rz): a drag that moved (shift) or turned (alt) a body: rotated by the
 *                 rotation vector r about its centre of mass, then translated by d;
 *   "frame-drawn" (): after each frame, for tests and the status bar. */
GtkWidget *cwb_app_viewport_new (void);

/* The simulation whose snapshots are drawn and whose grab the mouse spring sets (borrowed;
 * NULL detaches). The viewport follows its latest snapshot on each frame clock tick. */
void cwb_app_viewport_set_simulation (CwbAppViewport *viewport, CwbSimulation *simulation);
CwbSnapshot *cwb_app_viewport_snapshot (CwbAppViewport *viewport);   /* borrowed, may be NULL */

/* The mouse spring's natural frequency for the grabbed body's whole mass (Hz, default 3):
 * stiffness m omega^2 and damping 2 0.7 m omega, omega = 2 pi hz; used from the next grab. */
void cwb_app_viewport_set_grab_frequency (CwbAppViewport *viewport, double hz);
double cwb_app_viewport_grab_frequency (CwbAppViewport *viewport);

/* The overlays drawn; change them, then call cwb_app_viewport_queue_draw. */
CwbOverlayOptions *cwb_app_viewport_overlays (CwbAppViewport *viewport);
void cwb_app_viewport_queue_draw (CwbAppViewport *viewport);

void cwb_app_viewport_select (CwbAppViewport *viewport, gssize body, gssize contact);

/* How a body is drawn, by name: shown, hidden, or translucent (at the x-ray opacity). */
typedef enum CwbAppBodyLook {
  CWB_APP_BODY_SHOWN, CWB_APP_BODY_HIDDEN, CWB_APP_BODY_TRANSLUCENT,
} CwbAppBodyLook;
void cwb_app_viewport_set_body_look (CwbAppViewport *viewport, const char *name,
                                     CwbAppBodyLook look);
CwbAppBodyLook cwb_app_viewport_body_look (CwbAppViewport *viewport, const char *name);
/* Draws only the body `name` (NULL: every body again, and every hidden one shown). */
void cwb_app_viewport_isolate (CwbAppViewport *viewport, const char *name);
const char *cwb_app_viewport_isolated (CwbAppViewport *viewport);   /* NULL: none */
/* Phase stepping: shows `stage` (a snapshot of a solver's stage, referenced) in place of the
 * simulation's newest state until called with NULL, which follows the simulation again. */
void cwb_app_viewport_show_stage (CwbAppViewport *viewport, CwbSnapshot *stage);

/* A renamed body keeps its look. */
void cwb_app_viewport_rename_body (CwbAppViewport *viewport, const char *from, const char *to);
/* `to` draws its bodies as `from` does (the compare view follows A's). */
void cwb_app_viewport_copy_looks (CwbAppViewport *to, CwbAppViewport *from);
/* Frames every moving body, or the selected one. */
void cwb_app_viewport_frame_all (CwbAppViewport *viewport);
void cwb_app_viewport_frame_selected (CwbAppViewport *viewport);
void cwb_app_viewport_reset_camera (CwbAppViewport *viewport);
CwbCamera *cwb_app_viewport_camera (CwbAppViewport *viewport);

/* Frame statistics: frames drawn, and the drawing time of the last frame (ms; until the GPU
 * is done when probing or benchmarking, else only the CPU's part). */
guint64 cwb_app_viewport_frames (CwbAppViewport *viewport);
double cwb_app_viewport_last_frame_ms (CwbAppViewport *viewport);
/* When probing, each frame is read back (slow) and the number of pixels that differ from the
 * background is kept: tests and --self-test check that the view is not blank. */
void cwb_app_viewport_set_probe (CwbAppViewport *viewport, gboolean probe);
gint64 cwb_app_viewport_probed_pixels (CwbAppViewport *viewport);   /* -1 before a probe */
/* Benchmark mode: every frame clock tick turns the camera a little (a synthetic input) and
 * asks for a frame; each frame then records its drawing time (until the GPU is done) and the
 * latency from that input to the end of its drawing (ms, CwbAppViewportTiming). */
typedef struct CwbAppViewportTiming {
  double render_ms;
  double latency_ms;
  double interval_ms;    /* since the previous frame */
} CwbAppViewportTiming;
/* Record (recorder.h): from now on, the frames this view draws of new states, at most
 * CWB_RENDER_CLIP_FPS a simulated second, at the view's size now; FALSE with the reason
 * when it cannot start (a view too small). */
gboolean cwb_app_viewport_start_recording (CwbAppViewport *viewport, GError **error);
/* Ends it and writes the clip (animated WebP) to `path`; *frames (may be NULL) gets how many
 * it holds. FALSE with the reason when nothing could be written (no frame, a write error). */
gboolean cwb_app_viewport_stop_recording (CwbAppViewport *viewport, const char *path,
                                          size_t *frames, GError **error);
gboolean cwb_app_viewport_recording (CwbAppViewport *viewport);
void cwb_app_viewport_set_bench (CwbAppViewport *viewport, gboolean bench);
/* The timings recorded so far (CwbAppViewportTiming), owned by the viewport. */
GArray *cwb_app_viewport_timings (CwbAppViewport *viewport);

/* The overlay geometry of the last frame (counts of cones, arrows ...), or NULL before one. */
const CwbOverlayGeometry *cwb_app_viewport_overlay_geometry (CwbAppViewport *viewport);
/* The legend the view drew last (CwbLegendEntry, one per line), or NULL before any. */
const GArray *cwb_app_viewport_legend (CwbAppViewport *viewport);
/* The OpenGL renderer string of the context ("unknown" before realize). */
const char *cwb_app_viewport_gl_renderer (CwbAppViewport *viewport);
/* The renderer's error when the GL context or the shaders failed, else NULL. */
const char *cwb_app_viewport_error (CwbAppViewport *viewport);

G_END_DECLS

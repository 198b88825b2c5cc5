/* Text drawn over a frame: the legend of every active overlay (what each colour means, the
 * scales with their units), labels on bodies and, on demand, on contacts. Drawn with cairo
 * and Pango, over the GL view in the window and into screenshots and clips, from the same
 * snapshot, camera and options as the frame. */
#pragma once

#include <cairo.h>

#include "camera.h"
#include "overlays.h"

G_BEGIN_DECLS

/* One line of the legend: a swatch (a colour, or a ramp from `color` through `middle` to
 * `end` when `ramp`; none when color[3] is 0) and its text. */
typedef struct CwbLegendEntry {
  char text[160];
  float color[4], middle[4], end[4];
  gboolean ramp;
} CwbLegendEntry;

/* The legend of the frame drawn from `snapshot` with `options`, whose overlay scales were
 * `drawn`'s (the renderer's last overlays: automatic scales resolved): CwbLegendEntry, one
 * per line. Empty when options->legend is off. */
GArray *cwb_render_legend (const CwbSnapshot *snapshot, const CwbOverlayOptions *options,
                           const CwbOverlayGeometry *drawn);

/* The first line of `legend` whose text starts with `start`, or NULL. */
const CwbLegendEntry *cwb_render_legend_find (const GArray *legend, const char *start);

/* Draws the legend (bottom left), body labels and contact labels as the options ask, on a
 * frame of width x height pixels drawn with `camera`. */
void cwb_render_annotate (cairo_t *cr, const CwbSnapshot *snapshot, const CwbCamera *camera,
                          const CwbOverlayOptions *options, const CwbOverlayGeometry *drawn,
                          int width, int height);

/* Body and contact labels only (cwb_render_annotate's first part). */
void cwb_render_labels (cairo_t *cr, const CwbSnapshot *snapshot, const CwbCamera *camera,
                        const CwbOverlayOptions *options, int width, int height);

/* The legend drawn on an image of its box's size (ARGB32; NULL for an empty legend), to be
 * put where cwb_render_legend_place says: a view redraws it only when the legend changes
 * (cwb_render_legend_equal), not every frame. */
cairo_surface_t *cwb_render_legend_image (const GArray *legend);
gboolean cwb_render_legend_equal (const GArray *a, const GArray *b);
/* Where the legend's image of `image_height` goes on a frame `height` pixels high. */
void cwb_render_legend_place (int image_height, int height, double *x, double *y);

/* The same over RGBA pixels (top row first, opaque), in place: screenshots and clips. */
void cwb_render_annotate_rgba (guint8 *rgba, int width, int height, const CwbSnapshot *snapshot,
                               const CwbCamera *camera, const CwbOverlayOptions *options,
                               const CwbOverlayGeometry *drawn);

/* At most this many contacts are labelled, the largest normal forces first; no label is
 * drawn where it would cover one already drawn (body labels go first). */
#define CWB_RENDER_MAX_CONTACT_LABELS 40

/* A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `steps` parts;
 * 0 for an empty or non-finite span. Plot gridlines and legend scale bars. */
double cwb_render_nice_step (double span, int steps);

G_END_DECLS

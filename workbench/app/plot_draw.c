/* Drawing the plot panel's strips with cairo (plot_panel_private.h): stacked time series over
 * the kept steps, then the last step's residual per iteration and time per phase.
 *
 * Each series is reduced to one min/max column per pixel before it is stroked, so that the
 * cairo path has O(width) segments however long the history is; the scan that builds the
 * columns is one cheap pass over the kept steps. */
#include "plot_panel_private.h"
#include "annotations.h"

#include <math.h>
#include <string.h>

#include <pango/pangocairo.h>

/* Layout of the drawing, in pixels. */
#define MARGIN 8.0          /* around the whole drawing */
#define AXIS_LABEL_GAP 4.0  /* between a plot's min/max labels and its left edge */
/* The widest text "%.3g" writes, for the room left of a plot at the panel's font. */
#define WIDEST_LABEL "-8.88e-888"
#define TITLE_H 16.0        /* above a plot: its title and current value */
#define STRIP_GAP 6.0       /* between strips */
#define TIME_AXIS_H 14.0    /* under the last time strip: the time range */
#define LAST_STEP_SPLIT 0.6 /* residual plot's share of the last-step strip's width */
#define MIN_PLOT_SIDE 8.0   /* a plot smaller than this is not drawn */
#define CURVE_INSET 2.0     /* curves stay this far inside a plot's frame, so that the
                             * extremes are not hidden under it */
#define GRID_LINES_Y 4      /* about this many value lines a strip ... */
#define GRID_LINES_T 8      /* ... and time lines */
#define LABEL_GAP 6.0       /* the least room between two labels on an axis */

/* ---- colours ------------------------------------------------------------------------------
 * The panel paints its own dark neutral background, so the plot reads the same under light
 * and dark themes; curves are saturated mid-tones that stand out on it. Curve colours are
 * distinct from every other colour drawn (cwb_plot_strip_rgb promises it to tests). */

typedef struct Rgb {
  guint8 r, g, b;
} Rgb;

static const Rgb background_rgb = { 30, 31, 34 };
static const Rgb plot_rgb = { 40, 42, 46 };        /* inside a plot's frame */
static const Rgb frame_rgb = { 84, 87, 94 };
static const Rgb text_rgb = { 222, 222, 222 };
static const Rgb dim_text_rgb = { 158, 160, 166 };

static const Rgb grid_rgb = { 58, 61, 68 };        /* grid lines, faint on plot_rgb */
static const Rgb capped_rgb = { 235, 64, 52 };      /* a solve that stopped at its cap */
static const Rgb cursor_rgb = { 255, 255, 255 };    /* the time the history shows */

static const Rgb strip_rgb[CWB_PLOT_STRIP_COUNT] = {
  [CWB_PLOT_STRIP_KINETIC_ENERGY] = { 250, 153, 51 },   /* orange */
  [CWB_PLOT_STRIP_CONTACTS] = { 89, 191, 242 },         /* sky blue */
  [CWB_PLOT_STRIP_PENETRATION] = { 140, 217, 89 },      /* green */
  [CWB_PLOT_STRIP_ITERATIONS] = { 230, 115, 204 },      /* pink */
  [CWB_PLOT_STRIP_RESIDUAL] = { 64, 214, 190 },         /* teal */
  [CWB_PLOT_STRIP_LAST_STEP] = { 242, 217, 77 },        /* yellow: the residual */
};

static const Rgb phase_rgb[CWB_PHASE_COUNT] = {
  { 86, 135, 230 },   /* collision detection */
  { 224, 112, 72 },   /* contact modeling */
  { 96, 184, 140 },   /* mechanical motion */
  { 176, 128, 224 },  /* constraint solver */
};

static void
set_rgb (cairo_t *cr, Rgb c)
{
  cairo_set_source_rgb (cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

void
cwb_plot_cursor_rgb (guint8 rgb[3])
{
  rgb[0] = cursor_rgb.r;
  rgb[1] = cursor_rgb.g;
  rgb[2] = cursor_rgb.b;
}

/* Side B of a compare: the strip's colour halfway to white. */
static Rgb
compare_rgb (CwbPlotStrip strip)
{
  Rgb c = strip_rgb[strip];
  return (Rgb) { (guint8) ((c.r + 255) / 2), (guint8) ((c.g + 255) / 2),
                 (guint8) ((c.b + 255) / 2) };
}

void
cwb_plot_compare_rgb (CwbPlotStrip strip, guint8 rgb[3])
{
  g_return_if_fail (strip >= 0 && strip < CWB_PLOT_STRIP_COUNT);
  Rgb c = compare_rgb (strip);
  rgb[0] = c.r;
  rgb[1] = c.g;
  rgb[2] = c.b;
}

void
cwb_plot_grid_rgb (guint8 rgb[3])
{
  rgb[0] = grid_rgb.r;
  rgb[1] = grid_rgb.g;
  rgb[2] = grid_rgb.b;
}

void
cwb_plot_strip_rgb (CwbPlotStrip strip, guint8 rgb[3])
{
  g_return_if_fail (strip < CWB_PLOT_STRIP_COUNT);
  rgb[0] = strip_rgb[strip].r;
  rgb[1] = strip_rgb[strip].g;
  rgb[2] = strip_rgb[strip].b;
}

/* ---- drawing: curves ---------------------------------------------------------------------- */

typedef struct Rect {
  double x, y, w, h;
} Rect;

/* What one pixel column of a plot holds: the first and last value that fell in it (to join
 * it to its neighbours), its min and max (its vertical extent). */
typedef struct Column {
  double first, last, min, max;
  gboolean any;
  gboolean gap_before;   /* a missing value (NAN) came between this column and the previous */
} Column;

/* A sequence of points in increasing x; y NAN for a missing value. */
typedef struct Curve {
  size_t n;
  void (*at) (const void *data, size_t i, double *x, double *y);
  const void *data;
} Curve;

/* The curve reduced to `n_cols` columns over [x0, x1], and the range of its finite y. One pass
 * over the points; FALSE when no point is finite. With `window`, points outside [x0, x1] are
 * left out; without, they land in the end columns. */
static gboolean
decimate (const Curve *curve, double x0, double x1, gboolean window, Column *cols, int n_cols,
          double *y_lo, double *y_hi)
{
  memset (cols, 0, (size_t) n_cols * sizeof *cols);
  double span = x1 - x0;
  double lo = INFINITY, hi = -INFINITY;
  gboolean gap = FALSE;
  for (size_t i = 0; i < curve->n; i++)
    {
      double x, y;
      curve->at (curve->data, i, &x, &y);
      /* A zoomed window: points outside it are not drawn, nor count in the y range. */
      if (window && (x < x0 || x > x1))
        continue;
      if (!isfinite (y))
        {
          gap = TRUE;
          continue;
        }
      /* Clamped as a double, before the conversion: a point outside [x0, x1] (or at a NAN
       * time) lands in an end column instead of converting an out-of-range value. */
      double at = span > 0 && isfinite (x) ? round ((x - x0) / span * (n_cols - 1)) : 0;
      Column *col = &cols[(int) CLAMP (at, 0, n_cols - 1)];
      if (!col->any)
        {
          col->any = TRUE;
          col->first = col->min = col->max = y;
          col->gap_before = gap;
        }
      col->min = MIN (col->min, y);
      col->max = MAX (col->max, y);
      col->last = y;
      gap = FALSE;
      lo = MIN (lo, y);
      hi = MAX (hi, y);
    }
  *y_lo = lo;
  *y_hi = hi;
  return lo <= hi;
}

/* Widens a degenerate range so a constant series draws as a line in the middle. */
static void
pad_range (double *lo, double *hi)
{
  if (*hi - *lo > 1e-12 * MAX (fabs (*lo), fabs (*hi)))
    return;
  double d = *lo != 0 ? 0.1 * fabs (*lo) : 1.0;
  *lo -= d;
  *hi += d;
}

/* Strokes the columns in `plot`, y mapped from [lo, hi]: per column a vertical run through
 * first, min, max and last, joined to the previous column unless a NAN came between. */
/* Where value v of [lo, hi] is drawn in `plot` (curves and grid alike). */
static double
value_y (Rect plot, double lo, double hi, double v)
{
  double top = plot.y + CURVE_INSET, height = plot.h - 2 * CURVE_INSET;
  return top + height - (v - lo) * (height / (hi - lo));
}

static void
stroke_columns (cairo_t *cr, Rect plot, const Column *cols, int n_cols, double lo, double hi,
                Rgb colour)
{
#define MAP_Y(v) value_y (plot, lo, hi, (v))
  gboolean started = FALSE;
  for (int c = 0; c < n_cols; c++)
    {
      const Column *col = &cols[c];
      if (!col->any)
        continue;
      double x = plot.x + c + 0.5;
      if (!started || col->gap_before)
        cairo_move_to (cr, x, MAP_Y (col->first));
      else
        cairo_line_to (cr, x, MAP_Y (col->first));
      cairo_line_to (cr, x, MAP_Y (col->min));
      cairo_line_to (cr, x, MAP_Y (col->max));
      cairo_line_to (cr, x, MAP_Y (col->last));
      started = TRUE;
    }
#undef MAP_Y
  set_rgb (cr, colour);
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_stroke (cr);
}

/* ---- drawing: text and frames ------------------------------------------------------------- */

typedef enum Align {
  ALIGN_LEFT,
  ALIGN_RIGHT,
  ALIGN_CENTER,
} Align;

/* One line of text, its top at `y`, aligned on `x`. */
static void
draw_text (cairo_t *cr, PangoLayout *layout, const char *text, double x, double y, Align align,
           Rgb colour)
{
  pango_layout_set_text (layout, text, -1);
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  double left = align == ALIGN_LEFT ? x : align == ALIGN_RIGHT ? x - w : x - w / 2.0;
  set_rgb (cr, colour);
  cairo_move_to (cr, left, y);
  pango_cairo_show_layout (cr, layout);
}

/* A value with its unit, short ("1.234e-05 m^3", "12"); an em dash when missing. */
static char *
format_value (double value, const char *unit)
{
  if (!isfinite (value))
    return g_strdup ("\u2014");
  return unit != NULL && unit[0] != '\0' ? g_strdup_printf ("%.4g %s", value, unit)
                                         : g_strdup_printf ("%.4g", value);
}

static void
draw_plot_frame (cairo_t *cr, Rect plot)
{
  set_rgb (cr, plot_rgb);
  cairo_rectangle (cr, plot.x, plot.y, plot.w, plot.h);
  cairo_fill_preserve (cr);
  set_rgb (cr, frame_rgb);
  cairo_set_line_width (cr, 1.0);
  cairo_stroke (cr);
}

/* Title on the left from `x`, the current value right-aligned at the strip's end; the title
 * gives way (ellipsized) when both do not fit, the value being what changes. */
static void
draw_title (cairo_t *cr, PangoLayout *layout, Rect strip, double x, const char *title,
            const char *now)
{
  double room = strip.x + strip.w - x;
  if (now != NULL)
    {
      int w;
      pango_layout_set_text (layout, now, -1);
      pango_layout_get_pixel_size (layout, &w, NULL);
      draw_text (cr, layout, now, strip.x + strip.w, strip.y, ALIGN_RIGHT, text_rgb);
      room -= w + 12;
    }
  if (room <= 0)
    return;
  pango_layout_set_width (layout, (int) (room * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  draw_text (cr, layout, title, x, strip.y, ALIGN_LEFT, text_rgb);
  pango_layout_set_width (layout, -1);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_NONE);
}

/* The room left of a plot for its labels: the widest "%.3g" at the layout's font, so a
 * larger theme font widens it rather than clipping "5.33e+03" at the panel's edge. */
static double
label_gutter (PangoLayout *layout)
{
  int w;
  pango_layout_set_text (layout, WIDEST_LABEL, -1);
  pango_layout_get_pixel_size (layout, &w, NULL);
  return w + 2 * AXIS_LABEL_GAP;
}

/* The y range's labels, right-aligned left of the plot: max at the top, min at the bottom. */
static void
draw_y_labels (cairo_t *cr, PangoLayout *layout, Rect plot, const char *max_text,
               const char *min_text)
{
  int h;
  draw_text (cr, layout, max_text, plot.x - AXIS_LABEL_GAP, plot.y, ALIGN_RIGHT, dim_text_rgb);
  pango_layout_set_text (layout, min_text, -1);
  pango_layout_get_pixel_size (layout, NULL, &h);
  draw_text (cr, layout, min_text, plot.x - AXIS_LABEL_GAP, plot.y + plot.h - h, ALIGN_RIGHT,
             dim_text_rgb);
}

static void
draw_no_data (cairo_t *cr, PangoLayout *layout, Rect plot, const char *text)
{
  int h;
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, NULL, &h);
  draw_text (cr, layout, text, plot.x + plot.w / 2, plot.y + (plot.h - h) / 2, ALIGN_CENTER,
             dim_text_rgb);
}

/* ---- drawing: strips ---------------------------------------------------------------------- */

typedef enum Quantity {
  QUANTITY_KINETIC_ENERGY,
  QUANTITY_CONTACTS,
  QUANTITY_INTERSECTION_VOLUME,
  QUANTITY_MAX_PENETRATION,
  QUANTITY_ITERATIONS,
  QUANTITY_LOG_RESIDUAL,   /* log10 of the solve's final residual (m) */
} Quantity;

static double
quantity_value (const CwbStepStats *s, Quantity q)
{
  switch (q)
    {
    case QUANTITY_KINETIC_ENERGY: return s->kinetic_energy;
    case QUANTITY_CONTACTS: return (double) s->contacts;
    case QUANTITY_INTERSECTION_VOLUME: return s->intersection_volume;
    case QUANTITY_MAX_PENETRATION: return s->max_penetration;
    case QUANTITY_ITERATIONS: return s->solver_iterations >= 0 ? s->solver_iterations : NAN;
    case QUANTITY_LOG_RESIDUAL:
      return s->solver_iterations >= 0 && s->solver_residual > 0 ? log10 (s->solver_residual)
                                                                  : NAN;
    default: return NAN;
    }
}

typedef struct TimeCurve {
  const CwbPlotRing *ring;
  Quantity quantity;
} TimeCurve;

static void
time_curve_at (const void *data, size_t i, double *x, double *y)
{
  const TimeCurve *tc = data;
  const CwbStepStats *s = cwb_plot_ring_step (tc->ring, i);
  *x = s->time;
  *y = quantity_value (s, tc->quantity);
}

/* The penetration strip shows the intersection volume when the contact model measures one,
 * else the max penetration. Decided by the newest step that has either, because the contact
 * model can be swapped during a run. */
static Quantity
penetration_quantity (const CwbPlotView *view)
{
  for (size_t i = view->run.n; i > 0; i--)
    {
      const CwbStepStats *s = cwb_plot_view_step (view, i - 1);
      if (!isnan (s->intersection_volume))
        return QUANTITY_INTERSECTION_VOLUME;
      if (!isnan (s->max_penetration))
        return QUANTITY_MAX_PENETRATION;
    }
  return QUANTITY_INTERSECTION_VOLUME;
}

/* A red tick along the top of the iterations plot at every step whose solve stopped at its
 * sweep cap without reaching its tolerance (solver_converged 0), one per pixel column. */
static void
mark_capped_steps (const CwbPlotView *view, cairo_t *cr, Rect plot, double t0, double t1)
{
  const double tick = MIN (6, plot.h / 4);
  double last_x = -1;
  set_rgb (cr, capped_rgb);
  cairo_set_line_width (cr, 1);
  for (size_t i = 0; i < view->run.n; i++)
    {
      const CwbStepStats *s = cwb_plot_view_step (view, i);
      if (s->solver_converged != 0 || s->time < t0 || s->time > t1)
        continue;
      double x = t1 > t0 ? plot.x + (s->time - t0) / (t1 - t0) * plot.w : plot.x + plot.w;
      x = floor (x) + 0.5;
      if (x == last_x)
        continue;
      last_x = x;
      cairo_move_to (cr, x, plot.y);
      cairo_line_to (cr, x, plot.y + tick);
    }
  cairo_stroke (cr);
}

/* The kept step nearest in time to `t` (the steps are in time order). */
static const CwbStepStats *
nearest_step (const CwbPlotRing *ring, double t)
{
  size_t lo = 0, hi = ring->n - 1;
  while (hi - lo > 1)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (cwb_plot_ring_step (ring, mid)->time < t)
        lo = mid;
      else
        hi = mid;
    }
  double dlo = fabs (cwb_plot_ring_step (ring, lo)->time - t);
  double dhi = fabs (cwb_plot_ring_step (ring, hi)->time - t);
  return cwb_plot_ring_step (ring, dhi < dlo ? hi : lo);
}

/* The pointer over a time plot: the nearest step's time and value in a label beside it,
 * and a faint line at that step (written to view->hover_text as well). */
static void
draw_hover (const CwbPlotView *view, cairo_t *cr, PangoLayout *layout, Rect plot, double t0,
            double t1, Quantity q, gboolean log_scale, const char *unit)
{
  double x = view->hover_x, y = view->hover_y;
  if (view->run.n == 0 || isnan (x) || x < plot.x || x > plot.x + plot.w || y < plot.y
      || y > plot.y + plot.h)
    return;
  double t = t1 > t0 ? t0 + (x - plot.x) / plot.w * (t1 - t0) : t1;
  const CwbStepStats *s = nearest_step (&view->run, t);
  double value = quantity_value (s, q);
  g_autofree char *text_value = format_value (log_scale ? pow (10, value) : value, unit);
  g_autofree char *text = g_strdup_printf ("t = %.4g s: %s", s->time, text_value);
  if (view->compare.n > 0)
    {
      /* Side B's value at its step nearest to A's. */
      double value_b = quantity_value (nearest_step (&view->compare, s->time), q);
      g_autofree char *text_b = format_value (log_scale ? pow (10, value_b) : value_b, unit);
      g_autofree char *both = g_strdup_printf ("%s (A), %s (B)", text, text_b);
      g_free (text);
      text = g_steal_pointer (&both);
    }
  if (view->hover_text != NULL)
    g_string_assign (view->hover_text, text);
  double sx = t1 > t0 ? plot.x + (s->time - t0) / (t1 - t0) * plot.w : plot.x + plot.w;
  set_rgb (cr, dim_text_rgb);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, floor (sx) + 0.5, plot.y);
  cairo_line_to (cr, floor (sx) + 0.5, plot.y + plot.h);
  cairo_stroke (cr);
  /* The label on the side of the pointer with room, on the plot's background colour. */
  int w, h;
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  gboolean left = sx + 6 + w > plot.x + plot.w;
  double lx = left ? sx - 6 - w : sx + 6, ly = plot.y + 2;
  set_rgb (cr, plot_rgb);
  cairo_rectangle (cr, lx - 2, ly, w + 4, h);
  cairo_fill (cr);
  draw_text (cr, layout, text, lx, ly, ALIGN_LEFT, text_rgb);
}

/* The history's time as a vertical line through the plot, when it lies in [t0, t1]. */
static void
draw_cursor (const CwbPlotView *view, cairo_t *cr, Rect plot, double t0, double t1)
{
  if (isnan (view->cursor) || view->cursor < t0 || view->cursor > t1)
    return;
  double x = t1 > t0 ? plot.x + (view->cursor - t0) / (t1 - t0) * plot.w : plot.x + plot.w;
  x = floor (MIN (x, plot.x + plot.w - 1)) + 0.5;
  set_rgb (cr, cursor_rgb);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, x, plot.y);
  cairo_line_to (cr, x, plot.y + plot.h);
  cairo_stroke (cr);
}

/* The time axis: the zoomed window, else from the first to the last step of the run and of
 * side B together. */
static void
time_span (const CwbPlotView *view, double *t0, double *t1)
{
  const CwbPlotRing *rings[2] = { &view->run, &view->compare };
  *t0 = INFINITY;
  *t1 = -INFINITY;
  for (int k = 0; k < 2; k++)
    if (rings[k]->n > 0)
      {
        *t0 = fmin (*t0, cwb_plot_ring_step (rings[k], 0)->time);
        *t1 = fmax (*t1, cwb_plot_ring_step (rings[k], rings[k]->n - 1)->time);
      }
  if (*t0 > *t1)
    *t0 = *t1 = 0;
  if (view->zoom_to > view->zoom_from)
    {
      *t0 = view->zoom_from;
      *t1 = view->zoom_to;
    }
}

/* Faint lines at round values and times under a time plot's curves, the values labelled
 * left of it and, with `time_axis`, the times under it, where a label has room (the
 * range's own labels at the ends keep theirs). On a log scale the lines are whole decades. */
static void
draw_grid (cairo_t *cr, PangoLayout *layout, Rect plot, double lo, double hi,
           gboolean log_scale, double t0, double t1, gboolean time_axis)
{
  int label_h;
  pango_layout_set_text (layout, "0", -1);
  pango_layout_get_pixel_size (layout, NULL, &label_h);
  cairo_set_line_width (cr, 1.0);
  double step = cwb_render_nice_step (hi - lo, GRID_LINES_Y);
  if (log_scale)
    step = fmax (1, round (step));
  for (double k = ceil (lo / step); step > 0 && k * step <= hi; k++)
    {
      double v = k * step;
      double y = floor (value_y (plot, lo, hi, v)) + 0.5;
      set_rgb (cr, grid_rgb);
      cairo_move_to (cr, plot.x + 1, y);
      cairo_line_to (cr, plot.x + plot.w - 1, y);
      cairo_stroke (cr);
      /* Clear of the max label at the top and the min label at the bottom. */
      if (y - label_h / 2.0 < plot.y + label_h + 2
          || y + label_h / 2.0 > plot.y + plot.h - label_h - 2)
        continue;
      g_autofree char *text = g_strdup_printf ("%.3g", log_scale ? pow (10, v) : v);
      draw_text (cr, layout, text, plot.x - AXIS_LABEL_GAP, y - label_h / 2.0, ALIGN_RIGHT,
                 dim_text_rgb);
    }
  double time_step = cwb_render_nice_step (t1 - t0, GRID_LINES_T);
  if (!(time_step > 0))
    return;
  /* The axis's end labels, as draw_time_strip writes them: the room between them. */
  int w0 = 0, w1 = 0;
  g_autofree char *from = g_strdup_printf ("t = %.4g s", t0);
  g_autofree char *to = g_strdup_printf ("%.4g s", t1);
  pango_layout_set_text (layout, from, -1);
  pango_layout_get_pixel_size (layout, &w0, NULL);
  pango_layout_set_text (layout, to, -1);
  pango_layout_get_pixel_size (layout, &w1, NULL);
  double free_from = plot.x + w0 + LABEL_GAP, free_to = plot.x + plot.w - w1 - LABEL_GAP;
  for (double k = ceil (t0 / time_step); k * time_step <= t1; k++)
    {
      double t = k * time_step;
      double x = floor (plot.x + (t - t0) / (t1 - t0) * plot.w) + 0.5;
      set_rgb (cr, grid_rgb);
      cairo_move_to (cr, x, plot.y + 1);
      cairo_line_to (cr, x, plot.y + plot.h - 1);
      cairo_stroke (cr);
      if (!time_axis)
        continue;
      int w;
      g_autofree char *text = g_strdup_printf ("%g", t);
      pango_layout_set_text (layout, text, -1);
      pango_layout_get_pixel_size (layout, &w, NULL);
      if (x - w / 2.0 < free_from || x + w / 2.0 > free_to)
        continue;
      draw_text (cr, layout, text, x, plot.y + plot.h + 1, ALIGN_CENTER, dim_text_rgb);
      free_from = x + w / 2.0 + LABEL_GAP;
    }
}

static void
draw_time_strip (const CwbPlotView *view, cairo_t *cr, PangoLayout *layout, Rect strip,
                 CwbPlotStrip which, gboolean time_axis)
{
  Quantity q;
  const char *title, *unit;
  gboolean count = FALSE;
  switch (which)
    {
    case CWB_PLOT_STRIP_KINETIC_ENERGY:
      q = QUANTITY_KINETIC_ENERGY, title = "Kinetic energy (J)", unit = "J";
      break;
    case CWB_PLOT_STRIP_CONTACTS:
      q = QUANTITY_CONTACTS, title = "Contacts (count)", unit = "", count = TRUE;
      break;
    case CWB_PLOT_STRIP_PENETRATION:
      q = penetration_quantity (view);
      if (q == QUANTITY_INTERSECTION_VOLUME)
        title = "Intersection volume (m^3)", unit = "m^3";
      else
        title = "Max penetration (m)", unit = "m";
      break;
    case CWB_PLOT_STRIP_RESIDUAL:
      q = QUANTITY_LOG_RESIDUAL, title = "Solver residual at the end of each step (m, log)",
      unit = "m";
      break;
    default:
      q = QUANTITY_ITERATIONS, title = "Solver iterations (count; red: stopped at the cap)",
      unit = "", count = TRUE;
      break;
    }
  gboolean log_scale = q == QUANTITY_LOG_RESIDUAL;

  const CwbStepStats *newest = view->run.n > 0 ? cwb_plot_view_step (view, view->run.n - 1) : NULL;
  double newest_value = newest != NULL ? quantity_value (newest, q) : NAN;
  g_autofree char *now = newest != NULL ? format_value (log_scale ? pow (10, newest_value)
                                                                  : newest_value, unit)
                                        : NULL;
  double gutter = label_gutter (layout);
  draw_title (cr, layout, strip, strip.x + gutter, title, now);
  Rect plot = { strip.x + gutter, strip.y + TITLE_H, strip.w - gutter,
                strip.h - TITLE_H - (time_axis ? TIME_AXIS_H : 0) };
  if (plot.w < MIN_PLOT_SIDE || plot.h < MIN_PLOT_SIDE)
    return;
  draw_plot_frame (cr, plot);

  int n_cols = (int) plot.w;
  g_autofree Column *cols = g_new (Column, n_cols);
  g_autofree Column *cols_b = g_new (Column, n_cols);
  TimeCurve tc = { &view->run, q }, tc_b = { &view->compare, q };
  Curve curve = { view->run.n, time_curve_at, &tc };
  Curve curve_b = { view->compare.n, time_curve_at, &tc_b };
  double t0, t1;
  time_span (view, &t0, &t1);
  if (view->axis != NULL)
    *view->axis = (CwbPlotAxis) { t0, t1, plot.x, plot.x + plot.w };
  double lo, hi, lo_b, hi_b;
  gboolean any = decimate (&curve, t0, t1, TRUE, cols, n_cols, &lo, &hi);
  gboolean any_b = decimate (&curve_b, t0, t1, TRUE, cols_b, n_cols, &lo_b, &hi_b);
  if (any_b)
    {
      lo = any ? MIN (lo, lo_b) : lo_b;
      hi = any ? MAX (hi, hi_b) : hi_b;
      any = TRUE;
    }
  if (!any)
    {
      draw_no_data (cr, layout, plot, "no data");
    }
  else
    {
      /* Counts start at zero, so a change from 3 to 4 contacts does not fill the strip. */
      if (count)
        lo = MIN (lo, 0);
      pad_range (&lo, &hi);
      /* Three digits: the labels bound the range, the title's value gives the precision; on
       * a log scale the values the bounds stand for. */
      g_autofree char *max_text = g_strdup_printf ("%.3g", log_scale ? pow (10, hi) : hi);
      g_autofree char *min_text = g_strdup_printf ("%.3g", log_scale ? pow (10, lo) : lo);
      draw_grid (cr, layout, plot, lo, hi, log_scale, t0, t1, time_axis);
      draw_y_labels (cr, layout, plot, max_text, min_text);
      stroke_columns (cr, plot, cols, n_cols, lo, hi, strip_rgb[which]);
      if (any_b)
        {
          /* B dashed over A, so that where they agree both still show. */
          const double dash[] = { 6, 4 };
          cairo_set_dash (cr, dash, 2, 0);
          stroke_columns (cr, plot, cols_b, n_cols, lo, hi, compare_rgb (which));
          cairo_set_dash (cr, NULL, 0, 0);
        }
      if (q == QUANTITY_ITERATIONS)
        mark_capped_steps (view, cr, plot, t0, t1);
      draw_cursor (view, cr, plot, t0, t1);
      draw_hover (view, cr, layout, plot, t0, t1, q, log_scale, unit);
    }
  if (time_axis && view->run.n > 0)
    {
      g_autofree char *from = g_strdup_printf ("t = %.4g s", t0);
      g_autofree char *to = g_strdup_printf ("%.4g s", t1);
      draw_text (cr, layout, from, plot.x, plot.y + plot.h + 1, ALIGN_LEFT, dim_text_rgb);
      draw_text (cr, layout, to, plot.x + plot.w, plot.y + plot.h + 1, ALIGN_RIGHT,
                 dim_text_rgb);
    }
}

/* Iteration k (from 1) against log10 of its residual; non-positive residuals are missing. */
static void
residual_curve_at (const void *data, size_t i, double *x, double *y)
{
  const CwbPlotView *view = data;
  double r = view->residuals[i];
  *x = (double) (i + 1);
  *y = r > 0 ? log10 (r) : NAN;
}

static void
draw_residuals (const CwbPlotView *view, cairo_t *cr, PangoLayout *layout, Rect strip)
{
  size_t n = view->n_residuals;
  g_autofree char *now = n > 0 ? g_strdup_printf ("%.3g", view->residuals[n - 1]) : NULL;
  double gutter = label_gutter (layout);
  draw_title (cr, layout, strip, strip.x + gutter, "Residual per iteration", now);
  Rect plot = { strip.x + gutter, strip.y + TITLE_H, strip.w - gutter,
                strip.h - TITLE_H - TIME_AXIS_H };
  if (plot.w < MIN_PLOT_SIDE || plot.h < MIN_PLOT_SIDE)
    return;
  draw_plot_frame (cr, plot);

  int n_cols = (int) plot.w;
  g_autofree Column *cols = g_new (Column, n_cols);
  Curve curve = { view->n_residuals, residual_curve_at, view };
  double lo, hi;
  if (!decimate (&curve, 1, (double) view->n_residuals, FALSE, cols, n_cols, &lo, &hi))
    {
      draw_no_data (cr, layout, plot, "no solve");
      return;
    }
  /* Whole decades, so the labels read as powers of ten. */
  lo = floor (lo);
  hi = ceil (hi);
  if (hi <= lo)
    hi = lo + 1;
  g_autofree char *max_text = g_strdup_printf ("1e%+.0f", hi);
  g_autofree char *min_text = g_strdup_printf ("1e%+.0f", lo);
  draw_y_labels (cr, layout, plot, max_text, min_text);
  stroke_columns (cr, plot, cols, n_cols, lo, hi, strip_rgb[CWB_PLOT_STRIP_LAST_STEP]);
  g_autofree char *last = g_strdup_printf ("%zu", view->n_residuals);
  draw_text (cr, layout, "iteration 1", plot.x, plot.y + plot.h + 1, ALIGN_LEFT, dim_text_rgb);
  draw_text (cr, layout, last, plot.x + plot.w, plot.y + plot.h + 1, ALIGN_RIGHT, dim_text_rgb);
}

/* The last step's time per phase as one stacked horizontal bar, with a legend under it. */
static void
draw_phases (const CwbPlotView *view, cairo_t *cr, PangoLayout *layout, Rect strip)
{
  const CwbStepStats *last = view->run.n > 0 ? cwb_plot_view_step (view, view->run.n - 1) : NULL;
  double total = 0;
  for (int p = 0; last != NULL && p < CWB_PHASE_COUNT; p++)
    if (isfinite (last->phase_ms[p]) && last->phase_ms[p] > 0)
      total += last->phase_ms[p];
  g_autofree char *now = last != NULL ? g_strdup_printf ("%.3g ms", total) : NULL;
  draw_title (cr, layout, strip, strip.x, "Phase times", now);

  int line_h;
  pango_layout_set_text (layout, "Xg", -1);
  pango_layout_get_pixel_size (layout, NULL, &line_h);
  Rect bar = { strip.x, strip.y + TITLE_H + 2, strip.w, MIN (14.0, strip.h / 5) };
  if (bar.w < MIN_PLOT_SIDE || bar.h < 4)
    return;
  draw_plot_frame (cr, bar);
  if (total <= 0)
    {
      draw_no_data (cr, layout, bar, "no timings");
      return;
    }
  double left = bar.x;
  for (int p = 0; p < CWB_PHASE_COUNT; p++)
    {
      double ms = last->phase_ms[p];
      if (!isfinite (ms) || ms <= 0)
        continue;
      double w = ms / total * bar.w;
      set_rgb (cr, phase_rgb[p]);
      cairo_rectangle (cr, left, bar.y, w, bar.h);
      cairo_fill (cr);
      left += w;
    }
  /* Legend: the phases one per line when the strip is tall enough, else in two columns
   * (each ellipsized to its column); as many lines as fit. */
  double legend_top = bar.y + bar.h + 4;
  int per_row = legend_top + CWB_PHASE_COUNT * line_h <= strip.y + strip.h ? 1 : 2;
  double col_w = strip.w / per_row;
  pango_layout_set_width (layout, (int) MAX (1, (col_w - 16) * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  for (int p = 0; p < CWB_PHASE_COUNT; p++)
    {
      double x = strip.x + (p % per_row) * col_w;
      double y = legend_top + (p / per_row) * line_h;
      if (y + line_h > strip.y + strip.h)
        break;
      set_rgb (cr, phase_rgb[p]);
      cairo_rectangle (cr, x, y + (line_h - 8) / 2.0, 8, 8);
      cairo_fill (cr);
      g_autofree char *ms = format_value (last->phase_ms[p], "ms");
      g_autofree char *text = g_strdup_printf ("%s %s", cwb_phase_name ((CwbPhase) p), ms);
      draw_text (cr, layout, text, x + 12, y, ALIGN_LEFT, dim_text_rgb);
    }
  pango_layout_set_width (layout, -1);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_NONE);
}

void
cwb_plot_view_draw (const CwbPlotView *view, cairo_t *cr, PangoLayout *layout, int width,
                    int height)
{
  g_return_if_fail (view != NULL);
  g_return_if_fail (view->run.n == 0 || (view->run.steps != NULL
                                         && view->run.head < view->run.capacity
                                         && view->run.n <= view->run.capacity));
  g_return_if_fail (view->compare.n == 0 || (view->compare.steps != NULL
                                             && view->compare.head < view->compare.capacity
                                             && view->compare.n <= view->compare.capacity));
  g_return_if_fail (view->residuals != NULL || view->n_residuals == 0);
  g_return_if_fail (cr != NULL);
  g_return_if_fail (PANGO_IS_LAYOUT (layout));

  set_rgb (cr, background_rgb);
  cairo_paint (cr);

  CwbPlotStrip time_strips[CWB_PLOT_STRIP_COUNT];
  int n_time = 0;
  for (int s = 0; s < CWB_PLOT_STRIP_LAST_STEP; s++)
    if (view->visible[s])
      time_strips[n_time++] = (CwbPlotStrip) s;
  gboolean last_step = view->visible[CWB_PLOT_STRIP_LAST_STEP];
  int n_strips = n_time + (last_step ? 1 : 0);

  Rect all = { MARGIN, MARGIN, width - 2 * MARGIN, height - 2 * MARGIN };
  if (n_strips == 0)
    draw_no_data (cr, layout, all, "No series selected");
  else if (all.w >= MIN_PLOT_SIDE && all.h >= MIN_PLOT_SIDE)
    {
      /* Equal heights, the time axis's labels counted in the last time strip. */
      double h = (all.h - (n_strips - 1) * STRIP_GAP) / n_strips;
      double y = all.y;
      for (int k = 0; k < n_time; k++, y += h + STRIP_GAP)
        draw_time_strip (view, cr, layout, (Rect) { all.x, y, all.w, h }, time_strips[k],
                         k == n_time - 1);
      if (last_step)
        {
          double left_w = floor (all.w * LAST_STEP_SPLIT);
          draw_residuals (view, cr, layout, (Rect) { all.x, y, left_w, h });
          draw_phases (view, cr, layout,
                       (Rect) { all.x + left_w + 2 * STRIP_GAP, y,
                                all.w - left_w - 2 * STRIP_GAP, h });
        }
    }
}

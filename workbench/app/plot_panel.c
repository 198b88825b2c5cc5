/* The plot panel (plot_panel.h): a toolbar choosing the strips and exporting CSV, above a
 * drawing area with stacked time series and the last step's solver residual and phase times.
 *
 * The history is a ring of at most CWB_PLOT_PANEL_MAX_STEPS steps, so that a long run keeps a
 * bounded memory and push() stays O(1). The drawing itself is plot_draw.c's, from a view of
 * the ring. */
#include "plot_panel_private.h"

#include <math.h>
#include <string.h>

/* At most ten redraws a second: fast enough to follow a run, slow enough that plotting never
 * competes with stepping. */
#define REDRAW_INTERVAL_MS 100
/* The first allocation of the ring, doubled up to CWB_PLOT_PANEL_MAX_STEPS as steps come. */
#define INITIAL_CAPACITY ((size_t) 1024)

/* ---- the widget --------------------------------------------------------------------------- */

struct _CwbPlotPanel {
  GtkWidget parent_instance;

  GtkWidget *toolbar;
  GtkWidget *area;
  GtkWidget *toggles[CWB_PLOT_STRIP_COUNT];

  CwbPlotRing run;       /* the run's steps */
  CwbPlotRing compare;   /* side B's in an A/B compare; empty otherwise */

  double *residuals;
  size_t n_residuals;
  double cursor;         /* cwb_plot_panel_set_cursor */
  double hover_x, hover_y;   /* the pointer over the drawing area, NAN: away */
  GString *hover_text;       /* what the last drawing's hover label said ("" for none) */
  /* The time window (cwb_plot_panel_set_time_window): NAN ends for every kept step. */
  double zoom_from, zoom_to;
  gboolean zoom_follow;
  CwbPlotAxis axis;          /* where the last drawing put its time axis */
  double pan_from, pan_to;   /* the window when a drag began */

  gboolean dirty;        /* data changed since the last queued redraw */
  guint redraw_source;   /* the pending throttle timeout, 0 when none */
};

G_DEFINE_FINAL_TYPE (CwbPlotPanel, cwb_plot_panel, GTK_TYPE_WIDGET)


static gboolean
on_redraw_timeout (gpointer data)
{
  CwbPlotPanel *panel = data;
  panel->redraw_source = 0;
  if (panel->dirty)
    {
      panel->dirty = FALSE;
      gtk_widget_queue_draw (panel->area);
    }
  return G_SOURCE_REMOVE;
}

/* Marks the plot out of date; the redraw comes with the next throttle tick. The timeout is
 * armed only while something is dirty, so an idle panel costs no wake-ups. */
static void
schedule_redraw (CwbPlotPanel *panel)
{
  panel->dirty = TRUE;
  if (panel->redraw_source == 0)
    {
      panel->redraw_source = g_timeout_add (REDRAW_INTERVAL_MS, on_redraw_timeout, panel);
      g_source_set_name_by_id (panel->redraw_source, "[cwb] plot panel redraw");
    }
}

/* Re-allocates the ring to `capacity`, its steps moved to the front in order. */
static void
ring_resize (CwbPlotRing *ring, size_t capacity)
{
  CwbStepStats *steps = g_new (CwbStepStats, capacity);
  size_t first = ring->n > 0 ? MIN (ring->n, ring->capacity - ring->head) : 0;
  if (first > 0)
    memcpy (steps, ring->steps + ring->head, first * sizeof *steps);
  if (ring->n > first)
    memcpy (steps + first, ring->steps, (ring->n - first) * sizeof *steps);
  g_free (ring->steps);
  ring->steps = steps;
  ring->capacity = capacity;
  ring->head = 0;
}

static void
ring_push (CwbPlotRing *ring, const CwbStepStats *stats)
{
  if (ring->n == ring->capacity && ring->capacity < CWB_PLOT_PANEL_MAX_STEPS)
    ring_resize (ring, MIN (MAX (2 * ring->capacity, INITIAL_CAPACITY),
                            CWB_PLOT_PANEL_MAX_STEPS));
  if (ring->n < ring->capacity)
    {
      ring->steps[(ring->head + ring->n) % ring->capacity] = *stats;
      ring->n++;
    }
  else
    {
      /* Full: the newest step takes the oldest one's place. */
      ring->steps[ring->head] = *stats;
      ring->head = (ring->head + 1) % ring->capacity;
    }
}

/* Drops the steps after `time`. From the newest: the steps are in time order, so this drops
 * exactly those and costs only what it drops. */
static void
ring_truncate (CwbPlotRing *ring, double time)
{
  while (ring->n > 0 && cwb_plot_ring_step (ring, ring->n - 1)->time > time)
    ring->n--;
}

static void
ring_clear (CwbPlotRing *ring)
{
  g_clear_pointer (&ring->steps, g_free);
  ring->capacity = ring->head = ring->n = 0;
}

void
cwb_plot_panel_push (CwbPlotPanel *panel, const CwbStepStats *stats)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  g_return_if_fail (stats != NULL);
  ring_push (&panel->run, stats);
  schedule_redraw (panel);
}

void
cwb_plot_panel_push_compare (CwbPlotPanel *panel, const CwbStepStats *stats)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  g_return_if_fail (stats != NULL);
  ring_push (&panel->compare, stats);
  schedule_redraw (panel);
}

void
cwb_plot_panel_clear_compare (CwbPlotPanel *panel)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  ring_clear (&panel->compare);
  schedule_redraw (panel);
}

void
cwb_plot_panel_set_residuals (CwbPlotPanel *panel, const double *residuals, size_t n)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  g_return_if_fail (residuals != NULL || n == 0);
  g_free (panel->residuals);
  panel->residuals = n > 0 ? g_memdup2 (residuals, n * sizeof *residuals) : NULL;
  panel->n_residuals = n;
  schedule_redraw (panel);
}

const char *
cwb_plot_panel_hover_text (CwbPlotPanel *panel)
{
  g_return_val_if_fail (CWB_IS_PLOT_PANEL (panel), NULL);
  return panel->hover_text->len > 0 ? panel->hover_text->str : NULL;
}

void
cwb_plot_panel_set_hover (CwbPlotPanel *panel, double x, double y)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  panel->hover_x = x;
  panel->hover_y = y;
  if (panel->area != NULL)
    gtk_widget_queue_draw (panel->area);
}

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, gpointer data)
{
  cwb_plot_panel_set_hover (data, x, y);
}

static void
on_leave (GtkEventControllerMotion *motion, gpointer data)
{
  cwb_plot_panel_set_hover (data, NAN, NAN);
}

/* ---- the time window: wheel to zoom, drag to pan, double-click for all ------------------ */

/* The newest kept step's time (of the run or side B), NAN with none. */
static double
newest_time (const CwbPlotPanel *panel)
{
  double t = NAN;
  if (panel->run.n > 0)
    t = cwb_plot_ring_step (&panel->run, panel->run.n - 1)->time;
  if (panel->compare.n > 0)
    t = fmax (t, cwb_plot_ring_step (&panel->compare, panel->compare.n - 1)->time);
  return t;
}

static double
oldest_time (const CwbPlotPanel *panel)
{
  double t = NAN;
  if (panel->run.n > 0)
    t = cwb_plot_ring_step (&panel->run, 0)->time;
  if (panel->compare.n > 0)
    t = fmin (t, cwb_plot_ring_step (&panel->compare, 0)->time);
  return t;
}

void
cwb_plot_panel_time_window (CwbPlotPanel *panel, double *from, double *to)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  gboolean zoomed = panel->zoom_to > panel->zoom_from;
  double length = panel->zoom_to - panel->zoom_from, newest = newest_time (panel);
  *from = !zoomed ? NAN : panel->zoom_follow ? newest - length : panel->zoom_from;
  *to = !zoomed ? NAN : panel->zoom_follow ? newest : panel->zoom_to;
}

void
cwb_plot_panel_set_time_window (CwbPlotPanel *panel, double from, double to)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  double oldest = oldest_time (panel), newest = newest_time (panel);
  /* A window holding every kept step is no zoom; one reaching the newest step follows. */
  if (!(to > from) || isnan (newest) || (from <= oldest && to >= newest))
    {
      panel->zoom_from = panel->zoom_to = NAN;
      panel->zoom_follow = FALSE;
    }
  else
    {
      panel->zoom_from = from;
      panel->zoom_to = to;
      panel->zoom_follow = to >= newest;
    }
  if (panel->area != NULL)
    gtk_widget_queue_draw (panel->area);
}

void
cwb_plot_panel_zoom_at (CwbPlotPanel *panel, double x, double factor)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  g_return_if_fail (factor > 0);
  /* The pointer's place along the last drawn axis, applied to the window now (wheel notches
   * may come faster than drawings). */
  const CwbPlotAxis *a = &panel->axis;
  double from, to;
  cwb_plot_panel_time_window (panel, &from, &to);
  if (isnan (from))
    {
      from = oldest_time (panel);
      to = newest_time (panel);
    }
  if (!(a->x1 > a->x0) || !(to > from))
    return;
  double at = CLAMP ((x - a->x0) / (a->x1 - a->x0), 0, 1);
  double t = from + at * (to - from);
  cwb_plot_panel_set_time_window (panel, t - (t - from) * factor, t + (to - t) * factor);
}

/* The wheel over the plots: a notch up zooms in by ZOOM_STEP about the pointer's time. */
#define ZOOM_STEP 0.8

static gboolean
on_scroll (GtkEventControllerScroll *scroll, double dx, double dy, gpointer data)
{
  CwbPlotPanel *panel = data;
  if (dy == 0)
    return FALSE;
  cwb_plot_panel_zoom_at (panel, panel->hover_x, pow (ZOOM_STEP, -dy));
  return TRUE;
}

static void
on_pan_begin (GtkGestureDrag *drag, double x, double y, gpointer data)
{
  CwbPlotPanel *panel = data;
  cwb_plot_panel_time_window (panel, &panel->pan_from, &panel->pan_to);
}

static void
on_pan_update (GtkGestureDrag *drag, double dx, double dy, gpointer data)
{
  CwbPlotPanel *panel = data;
  const CwbPlotAxis *a = &panel->axis;
  if (isnan (panel->pan_from) || !(a->x1 > a->x0))
    return;
  double shift = -dx / (a->x1 - a->x0) * (panel->pan_to - panel->pan_from);
  cwb_plot_panel_set_time_window (panel, panel->pan_from + shift, panel->pan_to + shift);
}

static void
on_click (GtkGestureClick *click, int n_press, double x, double y, gpointer data)
{
  if (n_press == 2)
    cwb_plot_panel_set_time_window (data, NAN, NAN);
}

void
cwb_plot_panel_set_cursor (CwbPlotPanel *panel, double time)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  if (time == panel->cursor || (isnan (time) && isnan (panel->cursor)))
    return;
  panel->cursor = time;
  schedule_redraw (panel);
}

void
cwb_plot_panel_truncate (CwbPlotPanel *panel, double time)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  ring_truncate (&panel->run, time);
  ring_truncate (&panel->compare, time);
  schedule_redraw (panel);
}

void
cwb_plot_panel_clear (CwbPlotPanel *panel)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  ring_clear (&panel->run);
  ring_clear (&panel->compare);
  panel->zoom_from = panel->zoom_to = NAN;
  panel->zoom_follow = FALSE;
  g_clear_pointer (&panel->residuals, g_free);
  panel->n_residuals = 0;
  schedule_redraw (panel);
}

size_t
cwb_plot_panel_n_steps (CwbPlotPanel *panel)
{
  g_return_val_if_fail (CWB_IS_PLOT_PANEL (panel), 0);
  return panel->run.n;
}

/* ---- CSV ---------------------------------------------------------------------------------- */

static const char csv_header[] =
  "t,kinetic_energy,contacts,intersection_volume,max_penetration,solver_iterations,"
  "solver_residual,collision_detection_ms,contact_modeling_ms,mechanical_motion_ms,"
  "constraint_solver_ms,solver_converged\n";

/* A double as CSV: "%.17g" (which reads back bit-identically), in the C locale whatever the
 * user's, and an empty cell for NAN. */
static void
append_double (GString *out, double value)
{
  g_string_append_c (out, ',');
  if (isnan (value))
    return;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", value));
}

static void
append_rows (GString *out, const CwbStepStats *stats, size_t n)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (size_t i = 0; i < n; i++)
    {
      const CwbStepStats *s = &stats[i];
      if (!isnan (s->time))
        g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", s->time));
      append_double (out, s->kinetic_energy);
      g_string_append_printf (out, ",%zu", s->contacts);
      append_double (out, s->intersection_volume);
      append_double (out, s->max_penetration);
      /* -1 means no solve happened: an empty cell, like NAN. */
      if (s->solver_iterations >= 0)
        g_string_append_printf (out, ",%d", s->solver_iterations);
      else
        g_string_append_c (out, ',');
      append_double (out, s->solver_residual);
      for (int p = 0; p < CWB_PHASE_COUNT; p++)
        append_double (out, s->phase_ms[p]);
      /* 1 reached the tolerance, 0 stopped at the cap; empty when unknown. */
      if (s->solver_converged >= 0)
        g_string_append_printf (out, ",%d", s->solver_converged != 0);
      else
        g_string_append_c (out, ',');
      g_string_append_c (out, '\n');
    }
}

/* Two runs of steps (the ring's two halves) as one file. CONSISTENT: written to a temporary
 * file, synced and renamed, so a reader never sees half a file and a failed export leaves any
 * earlier file at `path` as it was. */
static gboolean
write_csv (const CwbStepStats *a, size_t n_a, const CwbStepStats *b, size_t n_b,
           const char *path, GError **error)
{
  /* About 250 characters a row. */
  g_autoptr (GString) out = g_string_sized_new (sizeof csv_header + 256 * (n_a + n_b));
  g_string_append (out, csv_header);
  append_rows (out, a, n_a);
  append_rows (out, b, n_b);
  return g_file_set_contents_full (path, out->str, (gssize) out->len,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0666, error);
}

gboolean
cwb_step_stats_write_csv (const CwbStepStats *stats, size_t n, const char *path,
                          GError **error)
{
  g_return_val_if_fail (stats != NULL || n == 0, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  return write_csv (stats, n, NULL, 0, path, error);
}

gboolean
cwb_plot_panel_export_csv (CwbPlotPanel *panel, const char *path, GError **error)
{
  g_return_val_if_fail (CWB_IS_PLOT_PANEL (panel), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  const CwbPlotRing *run = &panel->run;
  size_t first = run->n > 0 ? MIN (run->n, run->capacity - run->head) : 0;
  return write_csv (run->steps + run->head, first, run->steps, run->n - first, path,
                    error);
}

static gboolean
strip_visible (CwbPlotPanel *panel, CwbPlotStrip strip)
{
  return gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (panel->toggles[strip]));
}

void
cwb_plot_panel_draw (CwbPlotPanel *panel, cairo_t *cr, int width, int height)
{
  g_return_if_fail (CWB_IS_PLOT_PANEL (panel));
  g_return_if_fail (panel->area != NULL);   /* not after dispose */
  g_return_if_fail (cr != NULL);

  CwbPlotView view = {
    .run = panel->run, .compare = panel->compare,
    .residuals = panel->residuals, .n_residuals = panel->n_residuals,
    .cursor = panel->cursor,
    .hover_x = panel->hover_x, .hover_y = panel->hover_y,
    .hover_text = panel->hover_text,
    .axis = &panel->axis,
  };
  g_string_truncate (panel->hover_text, 0);
  panel->axis = (CwbPlotAxis) { 0, 0, 0, 0 };
  cwb_plot_panel_time_window (panel, &view.zoom_from, &view.zoom_to);
  for (int s = 0; s < CWB_PLOT_STRIP_COUNT; s++)
    view.visible[s] = strip_visible (panel, (CwbPlotStrip) s);

  /* The theme's font (the drawing area's Pango context), a little smaller, so the plots keep
   * their room. */
  PangoLayout *layout = gtk_widget_create_pango_layout (panel->area, NULL);
  PangoFontDescription *font = pango_font_description_copy (
    pango_context_get_font_description (pango_layout_get_context (layout)));
  gint size = pango_font_description_get_size (font);
  if (size > 0)
    pango_font_description_set_size (font, size * 85 / 100);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);

  cwb_plot_view_draw (&view, cr, layout, width, height);
  g_object_unref (layout);
}

static void
draw_area (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  cwb_plot_panel_draw (CWB_PLOT_PANEL (data), cr, width, height);
}

/* ---- toolbar ------------------------------------------------------------------------------ */

static void
show_error (GtkWidget *widget, const char *message, const char *detail)
{
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *dialog = gtk_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s",
                                              message);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", detail);
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The chooser holds a reference to the panel (taken when it was shown), so the panel is alive
 * here even if its window closed meanwhile. */
static void
on_export_response (GtkNativeDialog *native, int response, gpointer data)
{
  CwbPlotPanel *panel = data;
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;
      if (path == NULL)
        show_error (GTK_WIDGET (panel), "Could not export the statistics",
                    "The chosen location is not a local file.");
      else if (!cwb_plot_panel_export_csv (panel, path, &error))
        show_error (GTK_WIDGET (panel), "Could not export the statistics", error->message);
    }
  g_object_unref (native);
  g_object_unref (panel);
}

static void
on_export_clicked (GtkButton *button, gpointer data)
{
  CwbPlotPanel *panel = data;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (panel));
  GtkFileChooserNative *native = gtk_file_chooser_native_new (
    "Export Statistics as CSV", GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
    GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), "statistics.csv");
  g_signal_connect (native, "response", G_CALLBACK (on_export_response), g_object_ref (panel));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
on_strip_toggled (GtkToggleButton *toggle, gpointer data)
{
  CwbPlotPanel *panel = data;
  /* The user's own action: redraw now, not at the next throttle tick. */
  gtk_widget_queue_draw (panel->area);
}

static GtkWidget *
build_toolbar (CwbPlotPanel *panel)
{
  static const struct {
    const char *label;
    const char *tooltip;
  } strips[CWB_PLOT_STRIP_COUNT] = {
    [CWB_PLOT_STRIP_KINETIC_ENERGY] = { "Energy", "Kinetic energy over time" },
    [CWB_PLOT_STRIP_CONTACTS] = { "Contacts", "Number of contacts over time" },
    [CWB_PLOT_STRIP_PENETRATION] = { "Penetration",
                                     "Intersection volume, or maximal penetration when the "
                                     "contact model measures no volume, over time" },
    [CWB_PLOT_STRIP_ITERATIONS] = { "Iterations", "Solver iterations per step over time" },
    [CWB_PLOT_STRIP_RESIDUAL] = { "Residual",
                                  "The solver's residual at the end of each step over time "
                                  "(log scale; compare with its tolerance)" },
    [CWB_PLOT_STRIP_LAST_STEP] = { "Last step",
                                   "Residual per solver iteration and time per phase of the "
                                   "latest step" },
  };
  GtkWidget *toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  gtk_widget_set_margin_start (toolbar, 4);
  gtk_widget_set_margin_end (toolbar, 4);
  gtk_widget_set_margin_top (toolbar, 4);
  GtkWidget *group = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (group, "linked");
  for (int s = 0; s < CWB_PLOT_STRIP_COUNT; s++)
    {
      GtkWidget *toggle = gtk_toggle_button_new_with_label (strips[s].label);
      gtk_widget_set_tooltip_text (toggle, strips[s].tooltip);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), TRUE);
      g_signal_connect (toggle, "toggled", G_CALLBACK (on_strip_toggled), panel);
      gtk_box_append (GTK_BOX (group), toggle);
      panel->toggles[s] = toggle;
    }
  gtk_box_append (GTK_BOX (toolbar), group);

  GtkWidget *spacer = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_hexpand (spacer, TRUE);
  gtk_box_append (GTK_BOX (toolbar), spacer);

  GtkWidget *export = gtk_button_new_with_label ("Export CSV\u2026");
  gtk_widget_set_tooltip_text (export, "Write every kept step's statistics to a CSV file");
  g_signal_connect (export, "clicked", G_CALLBACK (on_export_clicked), panel);
  gtk_box_append (GTK_BOX (toolbar), export);
  return toolbar;
}

/* ---- life cycle --------------------------------------------------------------------------- */

static void
cwb_plot_panel_dispose (GObject *object)
{
  CwbPlotPanel *panel = CWB_PLOT_PANEL (object);
  /* The timeout points at the panel: it must not fire after this. */
  g_clear_handle_id (&panel->redraw_source, g_source_remove);
  g_clear_pointer (&panel->toolbar, gtk_widget_unparent);
  g_clear_pointer (&panel->area, gtk_widget_unparent);
  memset (panel->toggles, 0, sizeof panel->toggles);
  G_OBJECT_CLASS (cwb_plot_panel_parent_class)->dispose (object);
}

static void
cwb_plot_panel_finalize (GObject *object)
{
  CwbPlotPanel *panel = CWB_PLOT_PANEL (object);
  ring_clear (&panel->run);
  ring_clear (&panel->compare);
  g_free (panel->residuals);
  g_string_free (panel->hover_text, TRUE);
  G_OBJECT_CLASS (cwb_plot_panel_parent_class)->finalize (object);
}

static void
cwb_plot_panel_class_init (CwbPlotPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = cwb_plot_panel_dispose;
  object_class->finalize = cwb_plot_panel_finalize;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "cwb-plot-panel");
}

static void
cwb_plot_panel_init (CwbPlotPanel *panel)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (panel));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 4);
  panel->cursor = NAN;
  panel->hover_x = panel->hover_y = NAN;
  panel->hover_text = g_string_new (NULL);
  panel->zoom_from = panel->zoom_to = NAN;

  panel->toolbar = build_toolbar (panel);
  gtk_widget_set_parent (panel->toolbar, GTK_WIDGET (panel));

  panel->area = gtk_drawing_area_new ();
  /* Room for five strips of a readable height. */
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (panel->area), 360);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (panel->area), 400);
  gtk_widget_set_hexpand (panel->area, TRUE);
  gtk_widget_set_vexpand (panel->area, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (panel->area), draw_area, panel, NULL);
  gtk_widget_set_parent (panel->area, GTK_WIDGET (panel));
  /* The value under the pointer, read off a time plot. */
  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), panel);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), panel);
  gtk_widget_add_controller (panel->area, motion);
  /* The time window: the wheel zooms about the pointer, a drag pans, a double click shows
   * every step again. */
  GtkEventController *scroll = gtk_event_controller_scroll_new (
    GTK_EVENT_CONTROLLER_SCROLL_VERTICAL | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), panel);
  gtk_widget_add_controller (panel->area, scroll);
  GtkGesture *pan = gtk_gesture_drag_new ();
  g_signal_connect (pan, "drag-begin", G_CALLBACK (on_pan_begin), panel);
  g_signal_connect (pan, "drag-update", G_CALLBACK (on_pan_update), panel);
  gtk_widget_add_controller (panel->area, GTK_EVENT_CONTROLLER (pan));
  GtkGesture *click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (on_click), panel);
  gtk_widget_add_controller (panel->area, GTK_EVENT_CONTROLLER (click));
}

GtkWidget *
cwb_plot_panel_new (void)
{
  return g_object_new (CWB_TYPE_PLOT_PANEL, NULL);
}

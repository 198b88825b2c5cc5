/* The plot panel (plot_panel.h): CSV export (exact round trip of doubles, empty cells, atomic
 * writes), the bounded history and truncation, drawing on an image surface and in a shown
 * window; and the plugins window (plugins_window.h): one row per registry file, refused rows
 * with their reasons, loaded rows with their parameter tables. */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "annotations.h"
#include "plot_panel_private.h"
#include "plugins_window.h"

/* gtk_init_check's answer: the tests that need GTK skip without a display. */
static gboolean have_display;

#define SKIP_WITHOUT_DISPLAY()                                                               \
  do                                                                                         \
    {                                                                                        \
      if (!have_display)                                                                     \
        {                                                                                    \
          g_test_skip ("no display (gtk_init_check failed): run under xvfb-run");           \
          return;                                                                            \
        }                                                                                    \
    }                                                                                        \
  while (0)

/* ---- helpers ------------------------------------------------------------------------------ */

static char *
make_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("cwb-widgets-a-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

static void
remove_tmp_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_assert_cmpint (g_remove (path), ==, 0);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A step at time t with every field a function of i, so a row tells which step it is. */
static CwbStepStats
make_step (size_t i, double t)
{
  CwbStepStats s = {
    .time = t,
    .kinetic_energy = 1.0 + sin (0.01 * (double) i),
    .contacts = i % 7,
    .intersection_volume = 1e-9 * (double) (i % 13),
    .max_penetration = NAN,
    .solver_iterations = (int) (i % 40),
    .solver_residual = 1e-6 / (1.0 + (double) i),
    .solver_converged = i % 40 == 39 ? 0 : 1,
  };
  for (int p = 0; p < CWB_PHASE_COUNT; p++)
    s.phase_ms[p] = 0.1 * (p + 1);
  return s;
}

static GStrv
read_lines (const char *path, size_t *n_lines)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  /* Every row ends with a newline, the last one too. Split by hand: g_strsplit's strstr is
   * quadratic under AddressSanitizer (its interceptor measures the rest of the text at each
   * call), and the exports of a full history are 50 MB. */
  g_assert_true (g_str_has_suffix (text, "\n"));
  GPtrArray *lines = g_ptr_array_new ();
  const char *start = text;
  for (const char *c = text; *c != '\0'; c++)
    if (*c == '\n')
      {
        g_ptr_array_add (lines, g_strndup (start, (gsize) (c - start)));
        start = c + 1;
      }
  *n_lines = lines->len;
  g_ptr_array_add (lines, NULL);
  return (GStrv) g_ptr_array_free (lines, FALSE);
}

static const char csv_header[] =
  "t,kinetic_energy,contacts,intersection_volume,max_penetration,solver_iterations,"
  "solver_residual,collision_detection_ms,contact_modeling_ms,mechanical_motion_ms,"
  "constraint_solver_ms,solver_converged";

/* A cell that must read back as exactly `expected` (bit for bit), or be empty for NAN. */
static void
assert_double_cell (const char *cell, double expected)
{
  if (isnan (expected))
    {
      g_assert_cmpstr (cell, ==, "");
      return;
    }
  char *end = NULL;
  double value = g_ascii_strtod (cell, &end);
  g_assert_true (end != cell && *end == '\0');
  g_assert_cmpmem (&value, sizeof value, &expected, sizeof expected);
}

/* ---- CSV ---------------------------------------------------------------------------------- */

static void
test_csv_round_trip (void)
{
  /* Doubles that a short format would round: thirds, tenths, the extremes of the range, a
   * subnormal and negative zero. */
  const double awkward[] = {
    1.0 / 3.0, 0.1, 2.0 / 3.0 * 1e-300, G_MAXDOUBLE, 4.9406564584124654e-324, -0.0,
    -123456.78901234567, 6.02214076e23,
  };
  enum { N = G_N_ELEMENTS (awkward) };
  CwbStepStats stats[N];
  for (size_t i = 0; i < N; i++)
    {
      stats[i] = make_step (i, awkward[i]);
      stats[i].kinetic_energy = awkward[(i + 1) % N];
      stats[i].contacts = i * 1000;
      stats[i].intersection_volume = i % 2 == 0 ? NAN : awkward[(i + 2) % N];
      stats[i].max_penetration = i % 2 == 1 ? NAN : awkward[(i + 3) % N];
      stats[i].solver_iterations = i % 3 == 0 ? -1 : (int) i;
      stats[i].solver_residual = i % 3 == 0 ? NAN : awkward[(i + 4) % N];
      stats[i].solver_converged = i % 3 == 0 ? -1 : (int) (i % 2);
      stats[i].phase_ms[CWB_PHASE_CONTACT_MODELING] = i == 2 ? NAN : awkward[(i + 5) % N];
    }

  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "stats.csv", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_step_stats_write_csv (stats, N, path, &error));
  g_assert_no_error (error);

  size_t n_lines;
  g_auto (GStrv) lines = read_lines (path, &n_lines);
  g_assert_cmpuint (n_lines, ==, N + 1);
  g_assert_cmpstr (lines[0], ==, csv_header);
  for (size_t i = 0; i < N; i++)
    {
      const CwbStepStats *s = &stats[i];
      g_auto (GStrv) cells = g_strsplit (lines[i + 1], ",", -1);
      g_assert_cmpuint (g_strv_length (cells), ==, 12);
      assert_double_cell (cells[0], s->time);
      assert_double_cell (cells[1], s->kinetic_energy);
      g_autofree char *contacts = g_strdup_printf ("%zu", s->contacts);
      g_assert_cmpstr (cells[2], ==, contacts);
      assert_double_cell (cells[3], s->intersection_volume);
      assert_double_cell (cells[4], s->max_penetration);
      if (s->solver_iterations < 0)
        g_assert_cmpstr (cells[5], ==, "");
      else
        g_assert_cmpint (atoi (cells[5]), ==, s->solver_iterations);
      assert_double_cell (cells[6], s->solver_residual);
      for (int p = 0; p < CWB_PHASE_COUNT; p++)
        assert_double_cell (cells[7 + p], s->phase_ms[p]);
      if (s->solver_converged < 0)
        g_assert_cmpstr (cells[11], ==, "");
      else
        g_assert_cmpint (atoi (cells[11]), ==, s->solver_converged);
    }
  /* The NAN and -1 cells above were checked empty; at least one of each kind was there. */
  g_assert_true (isnan (stats[0].intersection_volume) && stats[0].solver_iterations == -1);

  /* No steps: the header alone. */
  g_assert_true (cwb_step_stats_write_csv (NULL, 0, path, &error));
  g_assert_no_error (error);
  g_auto (GStrv) header_only = read_lines (path, &n_lines);
  g_assert_cmpuint (n_lines, ==, 1);
  g_assert_cmpstr (header_only[0], ==, csv_header);
  remove_tmp_dir (dir);
}

/* A failed write leaves nothing behind: not at the path, not a temporary file beside it. */
static void
test_csv_atomic (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *path = g_build_filename (missing, "stats.csv", NULL);
  CwbStepStats step = make_step (0, 0.5);
  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_step_stats_write_csv (&step, 1, path, &error));
  g_assert_nonnull (error);
  g_test_message ("expected failure: %s", error->message);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_null (g_dir_read_name (d));

  /* Replacing a longer file: the new content whole, nothing of the old one's tail. */
  g_autofree char *existing = g_build_filename (dir, "stats.csv", NULL);
  CwbStepStats many[50];
  for (size_t i = 0; i < G_N_ELEMENTS (many); i++)
    many[i] = make_step (i, 0.001 * (double) i);
  g_clear_error (&error);
  g_assert_true (cwb_step_stats_write_csv (many, G_N_ELEMENTS (many), existing, &error));
  g_assert_true (cwb_step_stats_write_csv (&step, 1, existing, &error));
  g_assert_no_error (error);
  size_t n_lines;
  g_auto (GStrv) lines = read_lines (existing, &n_lines);
  g_assert_cmpuint (n_lines, ==, 2);
  remove_tmp_dir (dir);
}

/* ---- history ------------------------------------------------------------------------------ */

/* Time of step i in the tests' histories. */
static double
step_time (size_t i)
{
  return 1e-3 * (double) (i + 1);
}

static void
push_steps (CwbPlotPanel *panel, size_t from, size_t to)
{
  for (size_t i = from; i < to; i++)
    {
      CwbStepStats s = make_step (i, step_time (i));
      cwb_plot_panel_push (panel, &s);
    }
}

static size_t
count_pixels (cairo_surface_t *surface, const guint8 rgb[3]);

/* Past the bound the oldest steps go, in order; truncating a wrapped ring keeps exactly the
 * steps up to the time; the export of a wrapped ring is in time order; drawing the full
 * history decimates it. */
static void
test_history_bound (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  const size_t first = 100000;
  push_steps (panel, 0, first);
  g_assert_cmpuint (cwb_plot_panel_n_steps (panel), ==, MIN (first, CWB_PLOT_PANEL_MAX_STEPS));

  const size_t extra = 1234;
  const size_t total = CWB_PLOT_PANEL_MAX_STEPS + extra;
  push_steps (panel, first, total);
  g_assert_cmpuint (cwb_plot_panel_n_steps (panel), ==, CWB_PLOT_PANEL_MAX_STEPS);

  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "stats.csv", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_plot_panel_export_csv (panel, path, &error));
  g_assert_no_error (error);
  {
    size_t n_lines;
    g_auto (GStrv) lines = read_lines (path, &n_lines);
    g_assert_cmpuint (n_lines, ==, CWB_PLOT_PANEL_MAX_STEPS + 1);
    /* The oldest kept is step `extra`, the newest step `total - 1`, every row in order. */
    for (size_t k = 1; k < n_lines; k++)
      {
        g_auto (GStrv) cells = g_strsplit (lines[k], ",", 2);
        assert_double_cell (cells[0], step_time (extra + k - 1));
      }
  }

  /* The full history drawn: per-pixel columns, a curve on screen. */
  {
    guint8 rgb[3];
    cwb_plot_strip_rgb (CWB_PLOT_STRIP_KINETIC_ENERGY, rgb);
    cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 500, 400);
    cairo_t *cr = cairo_create (surface);
    cwb_plot_panel_draw (panel, cr, 500, 400);
    cairo_destroy (cr);
    g_assert_cmpuint (count_pixels (surface, rgb), >, 100);
    cairo_surface_destroy (surface);
  }

  /* Truncation of the wrapped ring: exactly the steps with t <= time stay. */
  const double cut = step_time (CWB_PLOT_PANEL_MAX_STEPS / 2) + 0.3e-3;
  size_t expected = 0;
  for (size_t i = extra; i < total; i++)
    expected += step_time (i) <= cut;
  cwb_plot_panel_truncate (panel, cut);
  g_assert_cmpuint (cwb_plot_panel_n_steps (panel), ==, expected);
  g_assert_true (cwb_plot_panel_export_csv (panel, path, &error));
  {
    size_t n_lines;
    g_auto (GStrv) lines = read_lines (path, &n_lines);
    g_assert_cmpuint (n_lines, ==, expected + 1);
    g_auto (GStrv) cells = g_strsplit (lines[n_lines - 1], ",", 2);
    assert_double_cell (cells[0], step_time (extra + expected - 1));
  }
  /* A step pushed after truncation follows the kept ones. */
  push_steps (panel, extra + expected, extra + expected + 1);
  g_assert_cmpuint (cwb_plot_panel_n_steps (panel), ==, expected + 1);

  cwb_plot_panel_clear (panel);
  g_assert_cmpuint (cwb_plot_panel_n_steps (panel), ==, 0);
  remove_tmp_dir (dir);
  g_object_unref (panel);
}

static void
test_history_truncate (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  const size_t n = 1000;
  push_steps (panel, 0, n);
  /* At a step's own time it stays; between two steps the later one goes. */
  const double cuts[] = { step_time (n), step_time (n - 1), step_time (700), 0.5004,
                          step_time (0), 0.0, -1.0 };
  for (size_t k = 0; k < G_N_ELEMENTS (cuts); k++)
    {
      /* The cuts decrease, so what stays is what is at or below the current cut. */
      size_t expected = 0;
      for (size_t i = 0; i < n; i++)
        expected += step_time (i) <= cuts[k];
      cwb_plot_panel_truncate (panel, cuts[k]);
      g_assert_cmpuint (cwb_plot_panel_n_steps (panel), ==, expected);
    }
  g_assert_cmpuint (cwb_plot_panel_n_steps (panel), ==, 0);
  g_object_unref (panel);
}

/* ---- drawing ------------------------------------------------------------------------------ */

/* Pixels within a small tolerance of `rgb` (the curve's antialiased edges are not; its core
 * is), in cairo's ARGB32 layout, which gdk_texture_download uses too. */
static size_t
count_rgb (const guint8 *data, int width, int height, gsize stride, const guint8 rgb[3])
{
  const int tolerance = 3;
  size_t n = 0;
  for (int y = 0; y < height; y++)
    {
      const guint32 *row = (const guint32 *) (const void *) (data + (gsize) y * stride);
      for (int x = 0; x < width; x++)
        {
          guint32 p = row[x];
          int r = (int) ((p >> 16) & 0xff), g = (int) ((p >> 8) & 0xff), b = (int) (p & 0xff);
          n += ABS (r - rgb[0]) <= tolerance && ABS (g - rgb[1]) <= tolerance
               && ABS (b - rgb[2]) <= tolerance;
        }
    }
  return n;
}

static size_t
count_pixels (cairo_surface_t *surface, const guint8 rgb[3])
{
  cairo_surface_flush (surface);
  return count_rgb (cairo_image_surface_get_data (surface), cairo_image_surface_get_width (surface),
                    cairo_image_surface_get_height (surface),
                    (gsize) cairo_image_surface_get_stride (surface), rgb);
}

static cairo_surface_t *
draw_panel (CwbPlotPanel *panel, int width, int height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);
  cwb_plot_panel_draw (panel, cr, width, height);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  return surface;
}

/* Every strip's curve colour is absent from the empty panel and present once data exists. */
static void
test_draw_image (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  const int width = 640, height = 560;
  guint8 rgb[CWB_PLOT_STRIP_COUNT][3];
  for (int s = 0; s < CWB_PLOT_STRIP_COUNT; s++)
    cwb_plot_strip_rgb ((CwbPlotStrip) s, rgb[s]);

  cairo_surface_t *empty = draw_panel (panel, width, height);
  for (int s = 0; s < CWB_PLOT_STRIP_COUNT; s++)
    g_assert_cmpuint (count_pixels (empty, rgb[s]), ==, 0);
  cairo_surface_destroy (empty);

  /* Fewer steps than pixels (points joined) and a residual history falling over decades. */
  push_steps (panel, 0, 300);
  double residuals[40];
  for (size_t k = 0; k < G_N_ELEMENTS (residuals); k++)
    residuals[k] = pow (10.0, -0.2 * (double) k);
  cwb_plot_panel_set_residuals (panel, residuals, G_N_ELEMENTS (residuals));
  cairo_surface_t *full = draw_panel (panel, width, height);
  for (int s = 0; s < CWB_PLOT_STRIP_COUNT; s++)
    {
      size_t n = count_pixels (full, rgb[s]);
      g_test_message ("strip %d: %zu pixels of its colour", s, n);
      g_assert_cmpuint (n, >, 50);
    }
  /* CWB_TEST_PNG_DIR: where to keep the drawing for a look. */
  if (g_getenv ("CWB_TEST_PNG_DIR") != NULL)
    {
      g_autofree char *png = g_build_filename (g_getenv ("CWB_TEST_PNG_DIR"), "plot-panel.png",
                                               NULL);
      cairo_surface_write_to_png (full, png);
    }
  cairo_surface_destroy (full);

  /* A panel too small for its strips draws without errors. */
  cairo_surface_t *tiny = draw_panel (panel, 20, 10);
  cairo_surface_destroy (tiny);
  g_object_unref (panel);
}

/* Issue 19, "Controls a lecture needs": the plots follow the scrubber. With the cursor at a
 * kept step's time a vertical line of the cursor's colour crosses each of the four time
 * strips (at least their plot height in pixels); none without a cursor, or with one outside
 * the kept range. */
static void
test_draw_cursor (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  push_steps (panel, 0, 300);
  guint8 rgb[3];
  cwb_plot_cursor_rgb (rgb);
  const int width = 640, height = 560;
  cairo_surface_t *none = draw_panel (panel, width, height);
  g_assert_cmpuint (count_pixels (none, rgb), ==, 0);
  cairo_surface_destroy (none);
  cwb_plot_panel_set_cursor (panel, step_time (150));
  cairo_surface_t *marked = draw_panel (panel, width, height);
  size_t n = count_pixels (marked, rgb);
  g_test_message ("%zu pixels of the cursor's colour", n);
  g_assert_cmpuint (n, >, 4 * 30);
  cairo_surface_destroy (marked);
  cwb_plot_panel_set_cursor (panel, step_time (400));
  cairo_surface_t *outside = draw_panel (panel, width, height);
  g_assert_cmpuint (count_pixels (outside, rgb), ==, 0);
  cairo_surface_destroy (outside);
  g_object_unref (panel);
}

/* Issue 19, "Controls a lecture needs": gridlines. The step between lines is 1, 2 or 5 times
 * a power of ten, about the asked number over the span (exact values: these are round
 * numbers in binary to well within 1e-12 relative); none for an empty span. Drawn, the
 * grid's faint lines cross every time strip: at 0.05 s steps over the 0.3 s kept, at least
 * five vertical lines the height of the first strip's plot. */
static void
test_draw_grid (void)
{
  SKIP_WITHOUT_DISPLAY ();
  const struct { double span; int lines; double step; } cases[] = {
    { 1, 4, 0.2 }, { 10, 4, 2 }, { 0.3, 8, 0.05 }, { 7, 4, 2 }, { 3e-9, 4, 1e-9 },
    { 1e6, 4, 2e5 }, { 0, 4, 0 }, { -1, 4, 0 }, { NAN, 4, 0 }, { INFINITY, 4, 0 },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      double step = cwb_render_nice_step (cases[k].span, cases[k].lines);
      if (cases[k].step == 0)
        g_assert_cmpfloat (step, ==, 0);
      else
        g_assert_cmpfloat_with_epsilon (step, cases[k].step, 1e-12 * cases[k].step);
    }
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  push_steps (panel, 0, 300);
  guint8 rgb[3];
  cwb_plot_grid_rgb (rgb);
  const int width = 640, height = 560;
  cairo_surface_t *drawn = draw_panel (panel, width, height);
  size_t n = count_pixels (drawn, rgb);
  g_test_message ("%zu pixels of the grid's colour", n);
  /* Five strips of about 100 px: five lines of 60 px or more in each is 1500. */
  g_assert_cmpuint (n, >, 1500);
  cairo_surface_destroy (drawn);
  g_object_unref (panel);
}

/* Issue 19, "Controls a lecture needs": zoom. Over 300 steps kept (1 to 300 ms), zooming by
 * 0.5 at the axis's right end keeps the newest step and halves the window (exact to
 * rounding: 1e-12 s), and such a window follows the run; in a window about the middle,
 * zooming at the left end keeps its start. The hover then reads a step inside the window (to
 * a step, 1 ms). Zoomed out by 2 until it holds every step, the window is no zoom. A window
 * reaching the newest step follows the run: 100 more steps slide it by 0.1 s. */
static void
test_zoom (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  push_steps (panel, 0, 300);
  const int width = 640, height = 560;
  cairo_surface_destroy (draw_panel (panel, width, height));
  double from, to;
  cwb_plot_panel_time_window (panel, &from, &to);
  g_assert_true (isnan (from) && isnan (to));
  /* The axis's ends are the first and the last step; a pointer beyond an end zooms about
   * that end (the gutter's width does not matter then). */
  double t0 = step_time (0), t1 = step_time (299), mid = (t0 + t1) / 2;
  cwb_plot_panel_set_hover (panel, width / 2.0, 8 + 16 + 10);
  cwb_plot_panel_zoom_at (panel, width, 0.5);
  cwb_plot_panel_time_window (panel, &from, &to);
  /* At the right end: the window keeps the newest step and follows. */
  g_assert_cmpfloat_with_epsilon (to, t1, 1e-12);
  g_assert_cmpfloat_with_epsilon (from, t1 - (t1 - t0) / 2, 1e-12);
  cwb_plot_panel_set_time_window (panel, NAN, NAN);
  cwb_plot_panel_set_time_window (panel, mid - 0.05, mid + 0.05);
  cairo_surface_destroy (draw_panel (panel, width, height));
  cwb_plot_panel_zoom_at (panel, 0, 0.5);
  cwb_plot_panel_time_window (panel, &from, &to);
  /* At the left end of the axis: the window's start stays, its length halves. */
  g_assert_cmpfloat_with_epsilon (from, mid - 0.05, 1e-12);
  g_assert_cmpfloat_with_epsilon (to, mid, 1e-12);
  cairo_surface_destroy (draw_panel (panel, width, height));
  const char *text = cwb_plot_panel_hover_text (panel);
  g_assert_nonnull (text);
  double hover_t = g_ascii_strtod (text + strlen ("t = "), NULL);
  g_test_message ("zoomed to [%g, %g]; hover %s", from, to, text);
  g_assert_cmpfloat (hover_t, >=, from - 1e-3);
  g_assert_cmpfloat (hover_t, <=, to + 1e-3);
  cwb_plot_panel_zoom_at (panel, width / 2.0, 2);
  cairo_surface_destroy (draw_panel (panel, width, height));
  cwb_plot_panel_zoom_at (panel, width / 2.0, 2);
  cwb_plot_panel_zoom_at (panel, width / 2.0, 2);
  cwb_plot_panel_time_window (panel, &from, &to);
  g_assert_true (isnan (from) && isnan (to));

  cwb_plot_panel_set_time_window (panel, step_time (199), step_time (299));
  push_steps (panel, 300, 400);
  cwb_plot_panel_time_window (panel, &from, &to);
  g_assert_cmpfloat_with_epsilon (to, step_time (399), 1e-12);
  g_assert_cmpfloat_with_epsilon (from, step_time (299), 1e-12);
  g_object_unref (panel);
}

/* Issue 19, A/B compare: side B's steps (a kinetic energy twice A's) are drawn over A's in
 * B's colour on the same scales, so both show. Pixels of a curve's exact colour are those its
 * 1.5 px line covers fully; B's dashes cover 6 px of every 10, so B gets over a fifth of the
 * count A's solid curve gets alone (0.6 of the length, less the dash ends' partial pixels),
 * and A, drawn under B, keeps over half of its own; none of B's before B has steps or after
 * the compare is cleared, when A's count is back to what it was; the hover reads both. */
static void
test_draw_compare (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  push_steps (panel, 0, 300);
  guint8 rgb_a[3], rgb_b[3];
  cwb_plot_strip_rgb (CWB_PLOT_STRIP_KINETIC_ENERGY, rgb_a);
  cwb_plot_compare_rgb (CWB_PLOT_STRIP_KINETIC_ENERGY, rgb_b);
  const int width = 640, height = 560;
  cairo_surface_t *alone = draw_panel (panel, width, height);
  g_assert_cmpuint (count_pixels (alone, rgb_b), ==, 0);
  size_t a_alone = count_pixels (alone, rgb_a);
  cairo_surface_destroy (alone);
  for (size_t i = 0; i < 300; i++)
    {
      CwbStepStats st = make_step (i, step_time (i));
      st.kinetic_energy *= 2;
      cwb_plot_panel_push_compare (panel, &st);
    }
  cwb_plot_panel_set_hover (panel, width / 2.0, 8 + 16 + 10);
  cairo_surface_t *both = draw_panel (panel, width, height);
  size_t a = count_pixels (both, rgb_a), b = count_pixels (both, rgb_b);
  g_test_message ("A alone %zu pixels; with B: A %zu, B %zu", a_alone, a, b);
  g_assert_cmpuint (a_alone, >, width / 4);
  g_assert_cmpuint (2 * a, >, a_alone);
  g_assert_cmpuint (5 * b, >, a_alone);
  const char *text = cwb_plot_panel_hover_text (panel);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "(A), "));
  g_assert_true (g_str_has_suffix (text, "(B)"));
  cairo_surface_destroy (both);
  cwb_plot_panel_clear_compare (panel);
  cwb_plot_panel_set_hover (panel, NAN, NAN);
  cairo_surface_t *after = draw_panel (panel, width, height);
  g_assert_cmpuint (count_pixels (after, rgb_b), ==, 0);
  g_assert_cmpuint (count_pixels (after, rgb_a), ==, a_alone);
  cairo_surface_destroy (after);
  g_object_unref (panel);
}

/* Issue 19, "Controls a lecture needs": hover values. The pointer over the kinetic energy's
 * plot (its first strip, half way across) gets a label with the time and value of the kept
 * step nearest to it: the label's time is a kept step's, about half way through the 0.3 s
 * kept, and its value that step's energy as the title writes values. Away from the plots
 * (in the margin, or the pointer gone) there is none. */
static void
test_draw_hover (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  push_steps (panel, 0, 300);
  const int width = 640, height = 560;
  cwb_plot_panel_set_hover (panel, width / 2.0, 8 + 16 + 10);   /* MARGIN + TITLE_H + 10 */
  cairo_surface_t *drawn = draw_panel (panel, width, height);
  cairo_surface_destroy (drawn);
  const char *text = cwb_plot_panel_hover_text (panel);
  g_assert_nonnull (text);
  g_test_message ("hover: %s", text);
  double t = 0;
  g_assert_cmpint (sscanf (text, "t = %lg s", &t), ==, 1);
  g_assert_cmpfloat (t, >, 0.1);
  g_assert_cmpfloat (t, <, 0.2);
  size_t i = (size_t) llround (t / 1e-3) - 1;
  g_assert_cmpfloat_with_epsilon (step_time (i), t, 1e-3 * 5e-4);   /* "%.4g" of the time */
  CwbStepStats expected = make_step (i, step_time (i));
  g_autofree char *value = g_strdup_printf (": %.4g J", expected.kinetic_energy);
  g_assert_true (g_str_has_suffix (text, value));

  cwb_plot_panel_set_hover (panel, 2, 2);
  drawn = draw_panel (panel, width, height);
  cairo_surface_destroy (drawn);
  g_assert_null (cwb_plot_panel_hover_text (panel));
  cwb_plot_panel_set_hover (panel, NAN, NAN);
  drawn = draw_panel (panel, width, height);
  cairo_surface_destroy (drawn);
  g_assert_null (cwb_plot_panel_hover_text (panel));
  g_object_unref (panel);
}

/* Issue 19, item 8: the y labels were right-aligned in a fixed 70 px, so at a larger theme font
 * "5.33e+03" ran off the panel's left edge. Drawn at an 18 pt font with energies in the
 * thousands, the panel's 8 px left margin stays the background colour: no label reaches it. */
static void
test_labels_fit_a_large_font (void)
{
  SKIP_WITHOUT_DISPLAY ();
  GtkSettings *settings = gtk_settings_get_default ();
  g_autofree char *font = NULL;
  g_object_get (settings, "gtk-font-name", &font, NULL);
  g_object_set (settings, "gtk-font-name", "Sans 18", NULL);
  CwbPlotPanel *panel = CWB_PLOT_PANEL (g_object_ref_sink (cwb_plot_panel_new ()));
  for (size_t i = 0; i < 300; i++)
    {
      CwbStepStats st = make_step (i, step_time (i));
      st.kinetic_energy = 5330 + (double) i;
      st.contacts = 1000 + i;
      cwb_plot_panel_push (panel, &st);
    }
  const int width = 900, height = 700, margin = 8;
  cairo_surface_t *surface = draw_panel (panel, width, height);
  cairo_surface_flush (surface);
  const guchar *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  guint32 background = *(const guint32 *) (const void *) data;
  size_t foreign = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < margin; x++)
      foreign += *(const guint32 *) (const void *) (data + (gsize) y * stride + 4 * x)
                 != background;
  g_test_message ("%zu pixels in the left margin differ from the background", foreign);
  if (g_getenv ("CWB_TEST_PNG_DIR") != NULL)
    {
      g_autofree char *png = g_build_filename (g_getenv ("CWB_TEST_PNG_DIR"),
                                               "plot-panel-large-font.png", NULL);
      cairo_surface_write_to_png (surface, png);
    }
  cairo_surface_destroy (surface);
  g_object_unref (panel);
  g_object_set (settings, "gtk-font-name", font, NULL);
  g_assert_cmpuint (foreign, ==, 0);
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main context for `ms` milliseconds. */
static void
iterate_for (guint ms)
{
  gboolean done = FALSE;
  g_timeout_add (ms, set_flag, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* The panel as GTK renders it (its render node, through the window's renderer), and the
 * number of pixels of `rgb` in it. */
static size_t
count_rendered (GtkWindow *window, GtkWidget *widget, const guint8 rgb[3])
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_test_message ("renderer: %s", G_OBJECT_TYPE_NAME (renderer));
  g_assert_nonnull (renderer);
  GdkTexture *texture = gsk_renderer_render_texture (renderer, node,
                                                     &GRAPHENE_RECT_INIT (0, 0, width, height));
  int tw = gdk_texture_get_width (texture), th = gdk_texture_get_height (texture);
  gsize stride = (gsize) tw * 4;
  g_autofree guint8 *data = g_malloc (stride * (gsize) th);
  gdk_texture_download (texture, data, stride);
  size_t n = count_rgb (data, tw, th, stride, rgb);
  g_object_unref (texture);
  gsk_render_node_unref (node);
  return n;
}

/* The real path: the panel shown in a window, drawn by GTK through its drawing area, and
 * redrawn by the throttle after a push. */
static void
test_draw_window (void)
{
  SKIP_WITHOUT_DISPLAY ();
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 800, 600);
  GtkWidget *panel = cwb_plot_panel_new ();
  gtk_window_set_child (window, panel);
  gtk_window_present (window);

  /* Mapped and laid out, within a generous time for a loaded machine. */
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!gtk_widget_get_mapped (panel) || gtk_widget_get_height (panel) < 200)
         && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  g_assert_true (gtk_widget_get_mapped (panel));
  iterate_for (200);

  guint8 rgb[3];
  cwb_plot_strip_rgb (CWB_PLOT_STRIP_KINETIC_ENERGY, rgb);
  g_assert_cmpuint (count_rendered (window, panel, rgb), ==, 0);

  push_steps (CWB_PLOT_PANEL (panel), 0, 2000);
  /* Throttled: push only appends, so until the main loop has run the throttle's timeout, GTK
   * still has the empty drawing (a widget's render node is kept until it is queued for a
   * redraw). */
  g_assert_cmpuint (count_rendered (window, panel, rgb), ==, 0);
  /* After the throttle's tick and a frame. */
  iterate_for (400);
  size_t n = count_rendered (window, panel, rgb);
  g_test_message ("%zu pixels of the energy curve's colour", n);
  g_assert_cmpuint (n, >, 50);

  gtk_window_destroy (window);
  iterate_for (50);
}

/* ---- plugins window ----------------------------------------------------------------------- */

/* The registry logs each refusal with g_warning in its "cwb" domain, which GLib's test mode
 * makes fatal: those are expected here, printed as messages instead. */
static void
log_registry_warning (const char *domain, GLogLevelFlags level, const char *message,
                      gpointer data)
{
  g_test_message ("registry: %s", message);
}

static gboolean
fatal_unless_registry_warning (const char *domain, GLogLevelFlags level, const char *message,
                               gpointer data)
{
  return !(g_strcmp0 (domain, "cwb") == 0 && (level & G_LOG_LEVEL_WARNING) != 0);
}

/* The folders of the build tree's plugins (nested by kind), sorted. */
static void
collect_plugin_dirs (const char *dir, GPtrArray *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  gboolean has_module = FALSE;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_str_has_suffix (name, ".so") && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        has_module = TRUE;
      else if (g_file_test (path, G_FILE_TEST_IS_DIR)
               && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        collect_plugin_dirs (path, out);
    }
  if (has_module)
    g_ptr_array_add (out, g_strdup (dir));
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static CwbRegistry *
test_registry (void)
{
  g_test_log_set_fatal_handler (fatal_unless_registry_warning, NULL);
  CwbRegistry *registry = cwb_registry_new ();
  g_autofree char *build_plugins = g_build_filename (g_getenv ("CWB_BUILD_DIR"), "plugins", NULL);
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  collect_plugin_dirs (build_plugins, dirs);
  g_ptr_array_sort (dirs, compare_strings);
  g_assert_cmpuint (dirs->len, >=, 3);
  for (guint i = 0; i < dirs->len; i++)
    cwb_registry_add_dir (registry, g_ptr_array_index (dirs, i));
  const char *broken = g_getenv ("CWB_TEST_BROKEN_DIR");
  g_assert_nonnull (broken);
  cwb_registry_add_dir (registry, broken);
  cwb_registry_scan (registry);
  return registry;
}

static void
collect_labels (GtkWidget *widget, GPtrArray *out)
{
  if (GTK_IS_LABEL (widget))
    g_ptr_array_add (out, (gpointer) gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, out);
}

static gboolean
has_label (GPtrArray *labels, const char *text)
{
  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (g_ptr_array_index (labels, i), text) == 0)
      return TRUE;
  return FALSE;
}

static GtkWidget *
find_list_box (GtkWidget *widget)
{
  if (GTK_IS_LIST_BOX (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_list_box (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_expander (GtkWidget *widget)
{
  if (GTK_IS_EXPANDER (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_expander (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* One row per file in the registry's order: its status, path, and for a refused file its
 * reason, for a loaded one its kind, name and (expanded) parameter table. */
static void
test_plugins_window_rows (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autoptr (CwbRegistry) registry = test_registry ();
  size_t n_files = cwb_registry_n_files (registry);

  GtkWindow *parent = GTK_WINDOW (gtk_window_new ());
  GtkWindow *window = cwb_plugins_window_new (parent, registry);
  g_assert_nonnull (window);
  g_assert_cmpstr (gtk_window_get_title (window), ==, "Plugins");
  g_assert_true (gtk_window_get_transient_for (window) == parent);

  GtkWidget *list = find_list_box (GTK_WIDGET (window));
  g_assert_nonnull (list);
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_BOX_ROW (child))
      g_ptr_array_add (rows, child);
  g_assert_cmpuint (rows->len, ==, n_files);

  size_t n_refused = 0, n_loaded = 0, n_params_checked = 0;
  for (size_t i = 0; i < n_files; i++)
    {
      const CwbPluginFile *file = cwb_registry_file (registry, i);
      GtkWidget *row = g_ptr_array_index (rows, i);
      g_autoptr (GPtrArray) labels = g_ptr_array_new ();
      collect_labels (row, labels);
      g_assert_true (has_label (labels, file->path));
      if (file->status == CWB_PLUGIN_STATUS_REFUSED)
        {
          n_refused++;
          g_assert_true (has_label (labels, "Refused"));
          g_assert_true (has_label (labels, file->reason));
          g_assert_null (find_expander (row));
          continue;
        }
      n_loaded++;
      const CwbPluginDesc *desc = file->desc;
      g_assert_true (has_label (labels, "Loaded"));
      g_assert_true (has_label (labels, desc->name));
      g_assert_true (has_label (labels, cwb_plugin_kind_name (desc->kind)));
      g_autofree char *abi = g_strdup_printf ("ABI %u.%u", desc->abi_major, desc->abi_minor);
      g_assert_true (has_label (labels, abi));

      /* Expanded, the details show the summary and every parameter's cells. */
      GtkWidget *expander = find_expander (row);
      g_assert_nonnull (expander);
      gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
      g_ptr_array_set_size (labels, 0);
      collect_labels (row, labels);
      if (desc->summary != NULL && desc->summary[0] != '\0')
        g_assert_true (has_label (labels, desc->summary));
      for (size_t k = 0; k < desc->n_params; k++)
        {
          const CwbParamSpec *spec = &desc->params[k];
          g_autofree char *range = cwb_param_spec_range_text (spec);
          g_assert_true (has_label (labels, spec->name));
          g_assert_true (has_label (labels, cwb_param_type_name (spec->type)));
          g_assert_true (has_label (labels, range != NULL ? range : "\u2014"));
          n_params_checked++;
        }
    }
  /* The broken folder refuses most of its files and loads a few; the build's plugins load. */
  g_assert_cmpuint (n_refused, >=, 10);
  g_assert_cmpuint (n_loaded, >=, 5);
  g_assert_cmpuint (n_params_checked, >, 0);

  gtk_window_destroy (window);
  gtk_window_destroy (parent);
  iterate_for (50);
}

/* An empty registry still gives a window, with no rows. */
static void
test_plugins_window_empty (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autoptr (CwbRegistry) registry = cwb_registry_new ();
  GtkWindow *window = cwb_plugins_window_new (NULL, registry);
  GtkWidget *list = find_list_box (GTK_WIDGET (window));
  g_assert_nonnull (list);
  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    g_assert_false (GTK_IS_LIST_BOX_ROW (child));
  gtk_window_destroy (window);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  have_display = gtk_init_check ();
  g_log_set_handler ("cwb", G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL, log_registry_warning, NULL);

  /* The CSV writer needs no display. */
  g_test_add_func ("/app/plots/csv/round-trip", test_csv_round_trip);
  g_test_add_func ("/app/plots/csv/atomic", test_csv_atomic);
  g_test_add_func ("/app/plots/history/bound", test_history_bound);
  g_test_add_func ("/app/plots/history/truncate", test_history_truncate);
  g_test_add_func ("/app/plots/draw/image", test_draw_image);
  g_test_add_func ("/app/plots/draw/window", test_draw_window);
  g_test_add_func ("/app/plots/draw/labels-fit-a-large-font", test_labels_fit_a_large_font);
  g_test_add_func ("/app/plots/draw/cursor", test_draw_cursor);
  g_test_add_func ("/app/plots/draw/hover", test_draw_hover);
  g_test_add_func ("/app/plots/draw/compare", test_draw_compare);
  g_test_add_func ("/app/plots/draw/grid", test_draw_grid);
  g_test_add_func ("/app/plots/zoom", test_zoom);
  g_test_add_func ("/app/plugins-window/rows", test_plugins_window_rows);
  g_test_add_func ("/app/plugins-window/empty", test_plugins_window_empty);
  return g_test_run ();
}

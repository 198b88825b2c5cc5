/* Headless runs. Progress goes to stderr only when it is a terminal (progress_line.h), so logs
 * and pipes stay clean. */
#include "clock.h"
#include "progress_line.h"
#include "residual_log.h"
#include "run.h"

static void
draw_progress (CwbProgressLine *line, const CwbWorld *world, guint64 done, guint64 total,
               gint64 elapsed_ns)
{
  double seconds = elapsed_ns * 1e-9;
  double rate = seconds > 0 ? done / seconds : 0;
  double left = rate > 0 ? (total - done) / rate : 0;
  cwb_progress_line_draw (line, "step %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "  t = %.3f s  "
                          "%.0f steps/s  %.1f s left", done, total, cwb_world_time (world),
                          rate, left);
}

gboolean
cwb_run_headless (CwbWorld *world, const CwbRunOptions *options, GError **error)
{
  g_autoptr (CwbReport) report = cwb_report_new (options->scene_path);
  g_autoptr (CwbResidualLog) residuals = options->residuals_path != NULL
                                           ? cwb_residual_log_new () : NULL;
  CwbProgressLine line;
  cwb_progress_line_init (&line, stderr, options->progress);
  GError *step_error = NULL;
  gint64 start = cwb_clock_ns ();

  for (guint64 k = 0; k < options->steps; k++)
    {
      if (!cwb_world_step (world, &step_error))
        break;
      cwb_report_add_step (report, world);
      if (residuals != NULL)
        cwb_residual_log_add_step (residuals, world);
      if (cwb_progress_line_due (&line, k + 1 == options->steps))
        draw_progress (&line, world, k + 1, options->steps, cwb_clock_ns () - start);
    }
  /* The last state stays on screen: the run's summary. */
  cwb_progress_line_end (&line);
  double wall_ms = (cwb_clock_ns () - start) * 1e-6;

  /* A failed write is the run's error unless a step already failed (that error wins). */
  if (options->report_path != NULL
      && !cwb_report_write (report, world, wall_ms,
                            step_error != NULL ? step_error->message : NULL,
                            options->report_path, step_error == NULL ? error : NULL)
      && step_error == NULL)
    return FALSE;
  if (residuals != NULL
      && !cwb_residual_log_write (residuals, options->residuals_path,
                                  step_error == NULL ? error : NULL)
      && step_error == NULL)
    return FALSE;
  if (step_error != NULL)
    {
      g_propagate_error (error, step_error);
      return FALSE;
    }
  return TRUE;
}

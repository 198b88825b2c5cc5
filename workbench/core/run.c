/* Headless runs. Progress goes to stderr only when it is a terminal, so logs and pipes stay
 * clean; it is redrawn at most PROGRESS_INTERVAL_NS apart so printing never slows the run. */
#include <unistd.h>

#include "clock.h"
#include "residual_log.h"
#include "run.h"

#define PROGRESS_INTERVAL_NS 100000000   /* 10 updates per second */

static void
print_progress (const CwbWorld *world, guint64 done, guint64 total, gint64 elapsed_ns)
{
  double seconds = elapsed_ns * 1e-9;
  double rate = seconds > 0 ? done / seconds : 0;
  double left = rate > 0 ? (total - done) / rate : 0;
  fprintf (stderr, "\rstep %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "  t = %.3f s  "
           "%.0f steps/s  %.1f s left   ", done, total, cwb_world_time (world), rate, left);
  fflush (stderr);
}

gboolean
cwb_run_headless (CwbWorld *world, const CwbRunOptions *options, GError **error)
{
  g_autoptr (CwbReport) report = cwb_report_new (options->scene_path);
  g_autoptr (CwbResidualLog) residuals = options->residuals_path != NULL
                                           ? cwb_residual_log_new () : NULL;
  gboolean show = options->progress && isatty (STDERR_FILENO);
  GError *step_error = NULL;
  gint64 start = cwb_clock_ns (), last_print = 0;

  for (guint64 k = 0; k < options->steps; k++)
    {
      if (!cwb_world_step (world, &step_error))
        break;
      cwb_report_add_step (report, world);
      if (residuals != NULL)
        cwb_residual_log_add_step (residuals, world);
      gint64 now = cwb_clock_ns ();
      if (show && (now - last_print > PROGRESS_INTERVAL_NS || k + 1 == options->steps))
        {
          print_progress (world, k + 1, options->steps, now - start);
          last_print = now;
        }
    }
  if (show)
    fputc ('\n', stderr);
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

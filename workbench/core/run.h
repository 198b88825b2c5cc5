/* Headless runs: step a world N times, record the report and the residuals, show progress on
 * a terminal. */
#pragma once

#include "report.h"
#include "world.h"

G_BEGIN_DECLS

typedef struct CwbRunOptions {
  guint64 steps;
  const char *scene_path;     /* for the report */
  const char *report_path;    /* NULL: no report */
  const char *residuals_path; /* NULL: no residual CSV (residual_log.h) */
  gboolean progress;          /* print progress on stderr (only if it is a terminal) */
} CwbRunOptions;

/* Runs the steps. On a failed step it stops, keeps the last good state, still writes the
 * report (with "failure" set) and the residuals of the steps done, and returns FALSE with the
 * step's error. */
gboolean cwb_run_headless (CwbWorld *world, const CwbRunOptions *options, GError **error);

G_END_DECLS

/* The solver's residual per iteration for every step of a headless run, as CSV for plotting
 * (--residuals FILE.csv): one row "step,iteration,residual" per Gauss-Seidel sweep, the
 * same history the GUI plots for the last step (cwb_world_residual_history). */
#pragma once

#include "world.h"

G_BEGIN_DECLS

typedef struct CwbResidualLog CwbResidualLog;

CwbResidualLog *cwb_residual_log_new (void);
void cwb_residual_log_free (CwbResidualLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbResidualLog, cwb_residual_log_free)

/* Records the world's last step: one row per entry of its residual history, with the world's
 * step number (1 for the first step) and the iteration (from 1). A step without a solve (no
 * contact rows) has no history and adds no row. Call after each successful cwb_world_step. */
void cwb_residual_log_add_step (CwbResidualLog *log, const CwbWorld *world);

/* Writes the header and every recorded row, atomically like the report (a temporary file,
 * then rename): a reader never sees half a file, and a failed write leaves what was at
 * `path` as it was. */
gboolean cwb_residual_log_write (const CwbResidualLog *log, const char *path, GError **error);

G_END_DECLS

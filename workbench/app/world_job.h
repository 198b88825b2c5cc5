/* Long work on worlds (building one, swapping a plugin) on a worker thread, a GTask, so that
 * the window stays responsive: the work reports its progress through the world's build options
 * (a sink the UI polls, never one that touches widgets) and stops when cancelled. The window
 * shows a job as a progress bar with Cancel (window_jobs.c); nothing here knows widgets.
 *
 * Everything below is called on the UI thread except the work itself and cwb_app_job_cancel. */
#pragma once

#include "world.h"

G_BEGIN_DECLS

typedef struct CwbAppJob CwbAppJob;

/* The work, on the worker thread: FALSE with an error when it failed; a cancel is
 * G_IO_ERROR_CANCELLED. `build` holds the job's sink and cancellable, for cwb_world_new_full or
 * cwb_world_set_build_options. */
typedef gboolean (*CwbAppJobFunc) (gpointer data, const CwbWorldBuildOptions *build,
                                   GError **error);
/* Called on the UI thread once the work has ended. */
typedef void (*CwbAppJobEnded) (CwbAppJob *job, gpointer user_data);

/* Starts `func` on a worker thread. `title` says what the user waits for ("Opening
 * slow.yaml"); `data` (freed with free_data, on the UI thread, with the job) is the work's
 * input and output, which the UI must not touch until the work has ended. */
CwbAppJob *cwb_app_job_start (const char *title, CwbAppJobFunc func, gpointer data,
                              GDestroyNotify free_data);
/* Waits up to `timeout_us` (negative: for ever) for the work to end; TRUE when it has. The UI
 * does not redraw meanwhile: for short waits only. */
gboolean cwb_app_job_wait (CwbAppJob *job, gint64 timeout_us);
/* `ended` runs once on the UI thread after the work has ended, from the main loop (never
 * from inside this call, even when it already has); NULL forgets an earlier one. */
void cwb_app_job_then (CwbAppJob *job, CwbAppJobEnded ended, gpointer user_data);
/* Asks the work to stop (any thread): the plugin's next progress report says so. */
void cwb_app_job_cancel (CwbAppJob *job);

const char *cwb_app_job_title (CwbAppJob *job);
gpointer cwb_app_job_data (CwbAppJob *job);
/* The latest progress report: its text (a copy; NULL before the first) and fraction. */
char *cwb_app_job_progress (CwbAppJob *job, double *fraction);
/* Once the work has ended: TRUE when it succeeded, else FALSE with its error (a copy). */
gboolean cwb_app_job_result (CwbAppJob *job, GError **error);

/* Waits for the work to end (cancel it first to make that quick), then lets the job go; its
 * data is freed once the worker has let it go too. */
void cwb_app_job_free (CwbAppJob *job);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbAppJob, cwb_app_job_free)

G_END_DECLS

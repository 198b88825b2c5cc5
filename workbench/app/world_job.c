/* Work on worlds in a GTask worker thread (world_job.h).
 *
 * The job is shared by the UI thread and the GTask (which gives it back from its completion
 * callback, on the UI thread), so it is counted; the data is freed with the last reference,
 * always on the UI thread. `lock` guards what the worker writes: the progress report and the
 * outcome. */
#include "world_job.h"

struct CwbAppJob {
  gint refs;
  char *title;
  CwbAppJobFunc func;
  gpointer data;
  GDestroyNotify free_data;
  GCancellable *cancellable;

  GMutex lock;
  GCond ended_cond;
  gboolean ended;           /* lock: the work returned */
  gboolean ok;              /* lock */
  GError *error;            /* lock */
  char *what;               /* lock: the latest report */
  double fraction;          /* lock */

  gboolean completed;       /* UI thread: the GTask's callback ran */
  CwbAppJobEnded then;      /* UI thread */
  gpointer then_data;
  guint then_source;        /* idle delivering `then` for a job that had already ended */
};

static CwbAppJob *
job_ref (CwbAppJob *job)
{
  g_atomic_int_inc (&job->refs);
  return job;
}

static void
job_unref (CwbAppJob *job)
{
  if (!g_atomic_int_dec_and_test (&job->refs))
    return;
  if (job->free_data != NULL)
    job->free_data (job->data);
  g_object_unref (job->cancellable);
  g_clear_error (&job->error);
  g_free (job->what);
  g_free (job->title);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->ended_cond);
  g_free (job);
}

/* The world's progress sink, on the worker thread: only stores the report, which the UI
 * reads at its own pace (cwb_app_job_progress). */
static void
job_progress (const char *what, double fraction, gpointer data)
{
  CwbAppJob *job = data;
  g_mutex_lock (&job->lock);
  if (g_strcmp0 (job->what, what) != 0)
    {
      g_free (job->what);
      job->what = g_strdup (what);
    }
  job->fraction = fraction;
  g_mutex_unlock (&job->lock);
}

static void
job_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  CwbAppJob *job = task_data;
  CwbWorldBuildOptions build = { .progress = job_progress, .user_data = job,
                                 .cancellable = job->cancellable };
  GError *error = NULL;
  gboolean ok = job->func (job->data, &build, &error);
  g_mutex_lock (&job->lock);
  job->ok = ok;
  job->error = error;
  job->ended = TRUE;
  g_cond_broadcast (&job->ended_cond);
  g_mutex_unlock (&job->lock);
  g_task_return_boolean (task, ok);
}

static void
deliver (CwbAppJob *job)
{
  CwbAppJobEnded then = job->then;
  job->then = NULL;
  if (then != NULL)
    then (job, job->then_data);
}

/* The GTask's completion, on the UI thread (the main context it was started from). */
static void
job_completed (GObject *source, GAsyncResult *result, gpointer data)
{
  CwbAppJob *job = data;
  job->completed = TRUE;
  deliver (job);
  job_unref (job);
}

CwbAppJob *
cwb_app_job_start (const char *title, CwbAppJobFunc func, gpointer data,
                   GDestroyNotify free_data)
{
  CwbAppJob *job = g_new0 (CwbAppJob, 1);
  job->refs = 1;
  job->title = g_strdup (title);
  job->func = func;
  job->data = data;
  job->free_data = free_data;
  job->cancellable = g_cancellable_new ();
  g_mutex_init (&job->lock);
  g_cond_init (&job->ended_cond);
  GTask *task = g_task_new (NULL, job->cancellable, job_completed, job_ref (job));
  g_task_set_task_data (task, job, NULL);
  g_task_set_name (task, title);
  g_task_run_in_thread (task, job_thread);
  g_object_unref (task);
  return job;
}

gboolean
cwb_app_job_wait (CwbAppJob *job, gint64 timeout_us)
{
  gint64 end = g_get_monotonic_time () + timeout_us;
  g_mutex_lock (&job->lock);
  while (!job->ended)
    {
      if (timeout_us < 0)
        g_cond_wait (&job->ended_cond, &job->lock);
      else if (!g_cond_wait_until (&job->ended_cond, &job->lock, end))
        break;
    }
  gboolean ended = job->ended;
  g_mutex_unlock (&job->lock);
  return ended;
}

static gboolean
deliver_idle (gpointer data)
{
  CwbAppJob *job = data;
  job->then_source = 0;
  deliver (job);
  return G_SOURCE_REMOVE;
}

void
cwb_app_job_then (CwbAppJob *job, CwbAppJobEnded ended, gpointer user_data)
{
  job->then = ended;
  job->then_data = user_data;
  if (job->then_source != 0)
    {
      g_source_remove (job->then_source);
      job->then_source = 0;
    }
  /* Already completed: the GTask will not call back again, so an idle delivers. */
  if (ended != NULL && job->completed)
    job->then_source = g_idle_add_full (G_PRIORITY_DEFAULT, deliver_idle, job_ref (job),
                                        (GDestroyNotify) job_unref);
}

void
cwb_app_job_cancel (CwbAppJob *job)
{
  g_cancellable_cancel (job->cancellable);
}

const char *
cwb_app_job_title (CwbAppJob *job)
{
  return job->title;
}

gpointer
cwb_app_job_data (CwbAppJob *job)
{
  return job->data;
}

char *
cwb_app_job_progress (CwbAppJob *job, double *fraction)
{
  g_mutex_lock (&job->lock);
  char *what = g_strdup (job->what);
  *fraction = job->fraction;
  g_mutex_unlock (&job->lock);
  return what;
}

gboolean
cwb_app_job_result (CwbAppJob *job, GError **error)
{
  g_mutex_lock (&job->lock);
  gboolean ended = job->ended, ok = job->ok;
  if (ended && !ok && job->error != NULL)
    g_propagate_error (error, g_error_copy (job->error));
  g_mutex_unlock (&job->lock);
  g_return_val_if_fail (ended, FALSE);
  return ok;
}

void
cwb_app_job_free (CwbAppJob *job)
{
  if (job == NULL)
    return;
  cwb_app_job_wait (job, -1);
  cwb_app_job_then (job, NULL, NULL);
  job_unref (job);
}

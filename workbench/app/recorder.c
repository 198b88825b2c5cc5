/* The window's Record: a queue of frames to one encoding thread. */
#include <math.h>
#include <string.h>

#include "recorder.h"
#include "recording.h"

struct CwbAppRecorder {
  CwbRecording *clip;          /* the encoding thread's alone until finish */
  GThreadPool *encoder;        /* one thread: frames in order */
  int width, height;
  double first_time;           /* simulated time of the first frame kept; NAN before */
  double last_time;            /* of the last kept */
  size_t frames;
  GMutex lock;                 /* guards error */
  GError *error;               /* the encoder's first failure */
  gint discarding;             /* atomic: the frames still queued are only freed */
};

typedef struct Frame {
  guint8 *rgba;
  gint64 time_ms;
} Frame;

static void
encode (gpointer data, gpointer user_data)
{
  Frame *frame = data;
  CwbAppRecorder *r = user_data;
  g_autoptr (GError) error = NULL;
  g_mutex_lock (&r->lock);
  gboolean failed = r->error != NULL || g_atomic_int_get (&r->discarding);
  g_mutex_unlock (&r->lock);
  if (!failed && !cwb_render_recording_add (r->clip, frame->rgba, frame->time_ms, &error))
    {
      g_mutex_lock (&r->lock);
      if (r->error == NULL)
        r->error = g_steal_pointer (&error);
      g_mutex_unlock (&r->lock);
    }
  g_free (frame->rgba);
  g_free (frame);
}

CwbAppRecorder *
cwb_app_recorder_new (int width, int height, GError **error)
{
  CwbRecording *clip = cwb_render_recording_new (width, height, error);
  if (clip == NULL)
    return NULL;
  CwbAppRecorder *r = g_new0 (CwbAppRecorder, 1);
  r->clip = clip;
  r->width = width;
  r->height = height;
  r->first_time = NAN;
  r->last_time = -INFINITY;
  g_mutex_init (&r->lock);
  r->encoder = g_thread_pool_new (encode, r, 1, TRUE, NULL);
  return r;
}

gboolean
cwb_app_recorder_wants (const CwbAppRecorder *r, double time)
{
  /* A hair under the interval, so that steps that land on it by rounding are kept. */
  const double interval = (1.0 - 1e-9) / CWB_RENDER_CLIP_FPS;
  return time >= r->last_time + interval;
}

/* A frame of another size (the view resized while recording) fitted to the clip's: its
 * middle kept, or it in the middle of the view's background. */
static guint8 *
fit (const CwbAppRecorder *r, guint8 *rgba, int width, int height)
{
  if (width == r->width && height == r->height)
    return rgba;
  static const guint8 background[4] = { 237, 240, 245, 255 };
  guint8 *out = g_malloc (4 * (size_t) r->width * (size_t) r->height);
  for (size_t k = 0; k < (size_t) r->width * (size_t) r->height; k++)
    memcpy (out + 4 * k, background, 4);
  int w = MIN (width, r->width), h = MIN (height, r->height);
  int from_x = (width - w) / 2, from_y = (height - h) / 2;
  int to_x = (r->width - w) / 2, to_y = (r->height - h) / 2;
  for (int y = 0; y < h; y++)
    memcpy (out + 4 * ((size_t) (to_y + y) * (size_t) r->width + (size_t) to_x),
            rgba + 4 * ((size_t) (from_y + y) * (size_t) width + (size_t) from_x),
            4 * (size_t) w);
  g_free (rgba);
  return out;
}

void
cwb_app_recorder_take (CwbAppRecorder *r, guint8 *rgba, int width, int height, double time)
{
  if (!cwb_app_recorder_wants (r, time))
    {
      g_free (rgba);
      return;
    }
  rgba = fit (r, rgba, width, height);
  if (isnan (r->first_time))
    r->first_time = time;
  r->last_time = time;
  r->frames++;
  Frame *frame = g_new (Frame, 1);
  frame->rgba = rgba;
  frame->time_ms = llround ((time - r->first_time) * 1000);
  g_thread_pool_push (r->encoder, frame, NULL);
}

size_t
cwb_app_recorder_frames (const CwbAppRecorder *r)
{
  return r->frames;
}

static void
recorder_free (CwbAppRecorder *r)
{
  cwb_render_recording_free (r->clip);
  g_clear_error (&r->error);
  g_mutex_clear (&r->lock);
  g_free (r);
}

gboolean
cwb_app_recorder_finish (CwbAppRecorder *r, const char *path, GError **error)
{
  g_thread_pool_free (r->encoder, FALSE, TRUE);
  gboolean ok;
  if (r->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&r->error));
      ok = FALSE;
    }
  else
    ok = cwb_render_recording_write (r->clip, llround (1000.0 / CWB_RENDER_CLIP_FPS), path,
                                     error);
  recorder_free (r);
  return ok;
}

void
cwb_app_recorder_discard (CwbAppRecorder *r)
{
  if (r == NULL)
    return;
  g_atomic_int_set (&r->discarding, 1);
  g_thread_pool_free (r->encoder, FALSE, TRUE);
  recorder_free (r);
}

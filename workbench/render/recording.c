/* Clips as animated WebP through libwebpmux's WebPAnimEncoder: each frame is encoded as it
 * comes (the encoder keeps the compressed frames, not the pixels), and assembled at the end. */
#include <webp/encode.h>
#include <webp/mux.h>

#include "recording.h"

/* WebP's largest side. */
#define MAX_SIDE 16383
#define MIN_SIDE 16
/* Lossy at this quality: rendered scenes are smooth shading with thin overlay lines, which
 * 80 keeps legible at about a tenth of lossless's size. */
#define QUALITY 80

struct CwbRecording {
  int width, height;
  WebPAnimEncoder *encoder;
  WebPConfig config;
  size_t frames;
  gint64 last_ms;
};

static GQuark
recording_error_quark (void)
{
  return g_quark_from_static_string ("cwb-recording-error-quark");
}

CwbRecording *
cwb_render_recording_new (int width, int height, GError **error)
{
  if (width < MIN_SIDE || height < MIN_SIDE || width > MAX_SIDE || height > MAX_SIDE)
    {
      g_set_error (error, recording_error_quark (), 0,
                   "a clip's frames must be %d to %d pixels a side, got %d x %d", MIN_SIDE,
                   MAX_SIDE, width, height);
      return NULL;
    }
  CwbRecording *r = g_new0 (CwbRecording, 1);
  r->width = width;
  r->height = height;
  r->last_ms = -1;
  WebPAnimEncoderOptions options;
  if (!WebPAnimEncoderOptionsInit (&options) || !WebPConfigInit (&r->config))
    {
      g_free (r);
      g_set_error (error, recording_error_quark (), 0, "libwebp: version mismatch");
      return NULL;
    }
  /* Every frame a key frame would grow the file; the encoder decides, and loops forever, as
   * a clip in slides does. */
  options.anim_params.loop_count = 0;
  r->config.quality = QUALITY;
  r->encoder = WebPAnimEncoderNew (width, height, &options);
  if (r->encoder == NULL)
    {
      g_free (r);
      g_set_error (error, recording_error_quark (), 0, "libwebp: cannot start a clip");
      return NULL;
    }
  return r;
}

void
cwb_render_recording_free (CwbRecording *r)
{
  if (r == NULL)
    return;
  WebPAnimEncoderDelete (r->encoder);
  g_free (r);
}

int
cwb_render_recording_width (const CwbRecording *r)
{
  return r->width;
}

int
cwb_render_recording_height (const CwbRecording *r)
{
  return r->height;
}

size_t
cwb_render_recording_frames (const CwbRecording *r)
{
  return r->frames;
}

gboolean
cwb_render_recording_add (CwbRecording *r, const guint8 *rgba, gint64 time_ms, GError **error)
{
  g_return_val_if_fail (r != NULL && rgba != NULL, FALSE);
  if (time_ms < r->last_ms)
    {
      g_set_error (error, recording_error_quark (), 0,
                   "a clip's frames must come in time order: %" G_GINT64_FORMAT " ms after %"
                   G_GINT64_FORMAT " ms", time_ms, r->last_ms);
      return FALSE;
    }
  WebPPicture picture;
  if (!WebPPictureInit (&picture))
    {
      g_set_error (error, recording_error_quark (), 0, "libwebp: version mismatch");
      return FALSE;
    }
  picture.width = r->width;
  picture.height = r->height;
  picture.use_argb = 1;
  /* Opaque: a view's alpha says nothing a clip should show (blended overlays leave it
   * below 1 where they are drawn). */
  gboolean ok = WebPPictureImportRGBX (&picture, rgba, 4 * r->width)
                && WebPAnimEncoderAdd (r->encoder, &picture, (int) time_ms, &r->config);
  WebPPictureFree (&picture);
  if (!ok)
    {
      g_set_error (error, recording_error_quark (), 0, "libwebp: frame %zu: %s", r->frames + 1,
                   WebPAnimEncoderGetError (r->encoder));
      return FALSE;
    }
  if (time_ms > r->last_ms)
    r->frames++;
  r->last_ms = time_ms;
  return TRUE;
}

gboolean
cwb_render_recording_write (CwbRecording *r, gint64 last_ms, const char *path, GError **error)
{
  g_return_val_if_fail (r != NULL && last_ms > 0, FALSE);
  if (r->frames == 0)
    {
      g_set_error (error, recording_error_quark (), 0, "%s: the clip has no frame", path);
      return FALSE;
    }
  WebPData data;
  WebPDataInit (&data);
  if (!WebPAnimEncoderAdd (r->encoder, NULL, (int) (r->last_ms + last_ms), NULL)
      || !WebPAnimEncoderAssemble (r->encoder, &data))
    {
      g_set_error (error, recording_error_quark (), 0, "%s: libwebp: %s", path,
                   WebPAnimEncoderGetError (r->encoder));
      return FALSE;
    }
  gboolean ok = g_file_set_contents_full (path, (const char *) data.bytes, (gssize) data.size,
                                          G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
  WebPDataClear (&data);
  return ok;
}

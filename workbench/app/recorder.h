/* The window's Record: frames of the view, taken as the run shows new states, encoded as an
 * animated WebP (recording.h) on a worker thread so that the window stays live. The clip
 * plays in simulated time: a frame stands for the simulated time until the next one, at most
 * CWB_RENDER_CLIP_FPS frames a simulated second. */
#pragma once

#include <glib.h>

#include "recording.h"

G_BEGIN_DECLS

typedef struct CwbAppRecorder CwbAppRecorder;

/* A clip of width x height frames (the view's size in pixels when it starts). */
CwbAppRecorder *cwb_app_recorder_new (int width, int height, GError **error);

/* Whether a frame of the state at simulated time `time` would be kept: at least
 * 1 / CWB_RENDER_CLIP_FPS s after the last kept (the history going back gives none). */
gboolean cwb_app_recorder_wants (const CwbAppRecorder *recorder, double time);

/* Takes RGBA pixels (top row first; g_free'd by the recorder) of the state at `time`, when
 * cwb_app_recorder_wants said so; frees them otherwise. A frame of another size than the
 * clip's (the view resized) is cropped or padded about its middle. */
void cwb_app_recorder_take (CwbAppRecorder *recorder, guint8 *rgba, int width, int height,
                            double time);

/* Frames kept so far. */
size_t cwb_app_recorder_frames (const CwbAppRecorder *recorder);

/* Waits for the encoding, writes the clip to `path` and frees the recorder (whatever the
 * outcome). */
gboolean cwb_app_recorder_finish (CwbAppRecorder *recorder, const char *path, GError **error);

/* Frees without writing (the window closing while recording). */
void cwb_app_recorder_discard (CwbAppRecorder *recorder);

G_END_DECLS

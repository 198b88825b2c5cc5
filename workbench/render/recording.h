/* Recording a clip: RGBA frames of one size, each with the time it is shown at, encoded as
 * an animated WebP (libwebpmux), which browsers and slide software play and which keeps
 * overlays' thin lines sharp at a fraction of a GIF's size. --record and the window's
 * Record use it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Frames a second of simulated time a clip takes at most, by default: smooth in real time
 * without a frame for every step. --record and the window's Record share it. */
#define CWB_RENDER_CLIP_FPS 25

typedef struct CwbRecording CwbRecording;

/* A clip of width x height frames (each side 16 .. 16383, WebP's limit). */
CwbRecording *cwb_render_recording_new (int width, int height, GError **error);
void cwb_render_recording_free (CwbRecording *recording);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbRecording, cwb_render_recording_free)

int cwb_render_recording_width (const CwbRecording *recording);
int cwb_render_recording_height (const CwbRecording *recording);
/* Frames added so far. */
size_t cwb_render_recording_frames (const CwbRecording *recording);

/* Adds a frame (RGBA, top row first, width * height * 4 bytes; alpha ignored: clips are
 * opaque) shown from `time_ms` after the clip's start; times must increase (a frame at the same millisecond as the last
 * replaces it). */
gboolean cwb_render_recording_add (CwbRecording *recording, const guint8 *rgba, gint64 time_ms,
                                   GError **error);

/* Ends the clip, the last frame shown for `last_ms` (> 0), and writes it atomically
 * (temporary file, then rename). No frame: an error, nothing written. */
gboolean cwb_render_recording_write (CwbRecording *recording, gint64 last_ms, const char *path,
                                     GError **error);

G_END_DECLS

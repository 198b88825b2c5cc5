/* Headless rendering: an OpenGL 3.3 core context on an EGL surfaceless display (Mesa's
 * EGL_MESA_platform_surfaceless: no window system, no display server), a framebuffer object,
 * and PNG output. --screenshot and the tests use it; a GTK window can run beside it in
 * another thread. */
#pragma once

#include "renderer.h"

G_BEGIN_DECLS

typedef struct CwbOffscreen CwbOffscreen;

/* Creates the context and a width x height framebuffer, and makes them current in the
 * calling thread; fails with the EGL error when no suitable display or context exists. */
CwbOffscreen *cwb_render_offscreen_new (int width, int height, GError **error);
void cwb_render_offscreen_free (CwbOffscreen *offscreen);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbOffscreen, cwb_render_offscreen_free)

CwbRenderer *cwb_render_offscreen_renderer (CwbOffscreen *offscreen);

/* Renders one frame of the world and returns its pixels, RGBA, top row first
 * (width * height * 4 bytes, g_free them). */
guint8 *cwb_render_offscreen_frame (CwbOffscreen *offscreen, const CwbSnapshot *snapshot,
                                    const CwbCamera *camera, const CwbOverlayOptions *options);

/* Writes RGBA pixels (top row first) to a PNG file, atomically. */
gboolean cwb_render_write_png (const guint8 *rgba, int width, int height, const char *path,
                               GError **error);

/* The camera --screenshot and --record use: from `view`'s direction (its yaw, pitch and
 * field of view; NULL: the default camera's), framing the snapshot's moving bodies, its
 * distance then multiplied by `zoom` (1: just framed). */
void cwb_render_camera_framing (const CwbSnapshot *snapshot, const CwbCamera *view,
                                double zoom, CwbCamera *camera);
/* --screenshot: renders with the given overlays and writes the PNG. The camera looks from
 * `view`'s direction (its yaw, pitch and field of view; NULL: the default camera's), framing
 * the moving bodies, its distance then multiplied by `zoom` (1: just framed). */
gboolean cwb_render_screenshot (CwbWorld *world, const CwbOverlayOptions *options,
                                const CwbCamera *view, double zoom, int width, int height,
                                const char *path, GError **error);

G_END_DECLS

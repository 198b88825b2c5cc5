/* The OpenGL renderer (3.3 core, through libepoxy): shaded bodies with per-body colours and
 * the overlays of overlays.h. It draws into whatever framebuffer is bound, so the GTK
 * viewport (GtkGLArea) and headless screenshots (offscreen.h) share it. Every call needs the
 * GL context the renderer was created in to be current. */
#pragma once

#include "camera.h"
#include "overlays.h"
#include "world.h"

G_BEGIN_DECLS

#define CWB_RENDER_ERROR (cwb_render_error_quark ())
GQuark cwb_render_error_quark (void);

typedef struct CwbRenderer CwbRenderer;

/* Compiles the shaders (embedded as GResources); fails with the GL driver's log. */
CwbRenderer *cwb_render_renderer_new (GError **error);
void cwb_render_renderer_free (CwbRenderer *renderer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbRenderer, cwb_render_renderer_free)

/* Draws a snapshot of the world (its geometries, contacts and inspection) into the bound
 * framebuffer of width x height pixels. */
void cwb_render_frame (CwbRenderer *renderer, const CwbSnapshot *snapshot, const CwbCamera *camera,
                       const CwbOverlayOptions *options, int width, int height);

/* A body's colour (RGBA, opaque): a soft one per index, the same from run to run; fixed
 * bodies in grey. */
void cwb_render_body_color (size_t body, gboolean fixed, float rgba[4]);

/* The bound framebuffer's width x height pixels, RGBA, top row first (GL's first row is the
 * bottom one); g_free them. What a frame looks like, for PNGs, clips and probes. */
guint8 *cwb_render_read_pixels (int width, int height);

/* The overlay geometry of the last frame (counts for tests and the status bar). */
const CwbOverlayGeometry *cwb_render_last_overlays (const CwbRenderer *renderer);

G_END_DECLS

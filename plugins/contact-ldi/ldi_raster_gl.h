/* The OpenGL LDI backend: rasterises closed surfaces into the three images of an LDI on the
 * GPU (or Mesa's llvmpipe), with the same fragments as the reference CPU backend
 * (ldi_raster_cpu.h). It opens its own headless context (EGL surfaceless), so it runs beside
 * the host's renderer and needs no window. */
#pragma once

#include "ldi.h"

G_BEGIN_DECLS

#define LDI_GL_ERROR (ldi_gl_error_quark ())
GQuark ldi_gl_error_quark (void);

typedef enum LdiGlError {
  LDI_GL_ERROR_UNAVAILABLE,   /* no EGL, no surfaceless platform, no OpenGL 4.3 core context */
  LDI_GL_ERROR_SHADER,        /* a shader did not compile or link (the message has its log) */
  LDI_GL_ERROR_FAILED,        /* an OpenGL error while rasterising (e.g. out of memory) */
  LDI_GL_ERROR_INEXACT,       /* the driver's doubles are not exact enough: its fragments
                               * differ from the CPU backend's (checked when opened) */
} LdiGlError;

typedef struct LdiGl LdiGl;

/* Opens an OpenGL 4.3 core context on a headless EGL display (Mesa's surfaceless platform,
 * else the first GPU of EGL_EXT_platform_device; EGL_KHR_surfaceless_context), compiles the
 * rasteriser's shaders and checks them against the CPU backend on a test shape; NULL with
 * LDI_GL_ERROR_UNAVAILABLE, LDI_GL_ERROR_SHADER or LDI_GL_ERROR_INEXACT, whose message says
 * what is missing, so that a caller can fall back to ldi_raster_cpu or refuse. The context is
 * current only inside the calls below, which may come from any thread, one at a time. */
LdiGl *ldi_gl_new (GError **error);
/* ldi_gl_new with GLSL lines inserted after the fragment shader's #version, to emulate a
 * driver: "#define DRIVER_DIVISION(a, b) ..." replaces the driver's double division, which
 * the shader refines by DIVISION_REFINEMENTS Newton steps (2; GLSL asks only single
 * precision of a double division). For tests. */
LdiGl *ldi_gl_new_emulating (const char *fragment_defines, GError **error);
void ldi_gl_free (LdiGl *gl);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LdiGl, ldi_gl_free)

/* Bounds the memory of a rasterisation pass: at most max_fragments fragment records in the
 * GPU buffer (56 bytes each) and images drawn in tiles of at most max_tile x max_tile pixels,
 * and of at most max_fragments pixels (a triangle gives a tile at most one fragment per
 * pixel); 0 keeps the default: 2^22 records or what the driver's storage blocks hold, tiles of
 * 4096 or what the driver allows. Larger values are clamped to the defaults. Passes that would
 * need more are split, with the same result. For tests, and for small devices. */
void ldi_gl_set_limits (LdiGl *gl, size_t max_fragments, uint32_t max_tile);

/* ldi_raster_cpu's contract on the GPU: checks every surface not marked checked
 * (ldi_surface_check), then fills the three images of `ldi` with one fragment per (pixel,
 * triangle) whose projection covers the pixel centre, by the CPU backend's exact rule, and
 * sorts them (ldi_image_fill, on one thread per processor). The fragments are those of
 * ldi_raster_cpu: the same set, the same order, depths and weights computed by the same double
 * operations. FALSE with the check's error or an LDI_GL_ERROR, leaving the LDI empty. Makes the
 * context current on the calling thread and, before returning, makes current again whatever
 * EGL context the thread had (none: releases it). Not reentrant: one call at a time per LdiGl. */
gboolean ldi_raster_gl (LdiGl *gl, Ldi *ldi, const LdiSurface *surfaces, size_t n_surfaces,
                        GError **error);

G_END_DECLS

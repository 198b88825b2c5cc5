/* Headless rendering through EGL surfaceless (offscreen.h). Only <epoxy/egl.h> and
 * <epoxy/gl.h> are included: the Khronos headers beside them would clash. */
#include <errno.h>
#include <unistd.h>

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <cairo.h>
#include <glib/gstdio.h>

#include "annotations.h"
#include "offscreen.h"

struct CwbOffscreen {
  EGLDisplay display;
  EGLContext context;
  GLuint framebuffer, color, depth;
  int width, height;
  CwbRenderer *renderer;
};

static gboolean
egl_fail (GError **error, const char *what)
{
  g_set_error (error, CWB_RENDER_ERROR, 0, "%s failed (EGL error 0x%x)", what, eglGetError ());
  return FALSE;
}

static gboolean
open_context (CwbOffscreen *o, GError **error)
{
  if (!epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless"))
    {
      g_set_error_literal (error, CWB_RENDER_ERROR, 0,
                           "EGL_MESA_platform_surfaceless is not available (install Mesa's "
                           "EGL: libegl-mesa0)");
      return FALSE;
    }
  o->display = eglGetPlatformDisplayEXT (EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                                         NULL);
  if (o->display == EGL_NO_DISPLAY)
    return egl_fail (error, "eglGetPlatformDisplayEXT (surfaceless)");
  if (!eglInitialize (o->display, NULL, NULL))
    return egl_fail (error, "eglInitialize");
  if (!eglBindAPI (EGL_OPENGL_API))
    return egl_fail (error, "eglBindAPI (OpenGL)");
  /* Surfaceless displays offer no window configs (the default surface type): ask for a
   * pbuffer-capable one, which the framebuffer object then replaces; or take no config. */
  const EGLint config_attributes[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                                       EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE };
  EGLConfig config = NULL;
  EGLint n_configs = 0;
  if (!eglChooseConfig (o->display, config_attributes, &config, 1, &n_configs) || n_configs == 0)
    {
      if (!epoxy_has_egl_extension (o->display, "EGL_KHR_no_config_context"))
        return egl_fail (error, "eglChooseConfig (OpenGL)");
      config = EGL_NO_CONFIG_KHR;
    }
  const EGLint context_attributes[] = {
    EGL_CONTEXT_MAJOR_VERSION, 3,
    EGL_CONTEXT_MINOR_VERSION, 3,
    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
    EGL_NONE,
  };
  o->context = eglCreateContext (o->display, config, EGL_NO_CONTEXT, context_attributes);
  if (o->context == EGL_NO_CONTEXT)
    return egl_fail (error, "eglCreateContext (OpenGL 3.3 core)");
  if (!eglMakeCurrent (o->display, EGL_NO_SURFACE, EGL_NO_SURFACE, o->context))
    return egl_fail (error, "eglMakeCurrent (surfaceless)");
  return TRUE;
}

CwbOffscreen *
cwb_render_offscreen_new (int width, int height, GError **error)
{
  g_autoptr (CwbOffscreen) o = g_new0 (CwbOffscreen, 1);
  o->display = EGL_NO_DISPLAY;
  o->context = EGL_NO_CONTEXT;
  o->width = width;
  o->height = height;
  if (!open_context (o, error))
    return NULL;
  glGenFramebuffers (1, &o->framebuffer);
  glBindFramebuffer (GL_FRAMEBUFFER, o->framebuffer);
  glGenRenderbuffers (1, &o->color);
  glBindRenderbuffer (GL_RENDERBUFFER, o->color);
  glRenderbufferStorage (GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o->color);
  glGenRenderbuffers (1, &o->depth);
  glBindRenderbuffer (GL_RENDERBUFFER, o->depth);
  glRenderbufferStorage (GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, o->depth);
  if (glCheckFramebufferStatus (GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    {
      g_set_error (error, CWB_RENDER_ERROR, 0, "the %dx%d framebuffer is incomplete", width,
                   height);
      return NULL;
    }
  o->renderer = cwb_render_renderer_new (error);
  if (o->renderer == NULL)
    return NULL;
  return g_steal_pointer (&o);
}

void
cwb_render_offscreen_free (CwbOffscreen *o)
{
  if (o == NULL)
    return;
  if (o->context != EGL_NO_CONTEXT)
    {
      eglMakeCurrent (o->display, EGL_NO_SURFACE, EGL_NO_SURFACE, o->context);
      cwb_render_renderer_free (o->renderer);
      if (o->framebuffer != 0)
        {
          GLuint renderbuffers[2] = { o->color, o->depth };
          glDeleteRenderbuffers (2, renderbuffers);
          glDeleteFramebuffers (1, &o->framebuffer);
        }
      eglMakeCurrent (o->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext (o->display, o->context);
    }
  /* The display stays initialised: EGL displays are per process and shared, and Mesa would
   * unload its driver on eglTerminate, leaving its few internal allocations to be reported
   * as leaks of an unknown module (tests/lsan.supp names the driver's instead). */
  if (o->display != EGL_NO_DISPLAY)
    eglReleaseThread ();
  g_free (o);
}

CwbRenderer *
cwb_render_offscreen_renderer (CwbOffscreen *offscreen)
{
  return offscreen->renderer;
}

guint8 *
cwb_render_offscreen_frame (CwbOffscreen *o, const CwbSnapshot *snapshot, const CwbCamera *camera,
                            const CwbOverlayOptions *options)
{
  glBindFramebuffer (GL_FRAMEBUFFER, o->framebuffer);
  cwb_render_frame (o->renderer, snapshot, camera, options, o->width, o->height);
  return cwb_render_read_pixels (o->width, o->height);
}

gboolean
cwb_render_write_png (const guint8 *rgba, int width, int height, const char *path,
                      GError **error)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_surface_flush (surface);
  guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        const guint8 *p = &rgba[4 * ((size_t) y * (size_t) width + (size_t) x)];
        /* Opaque pixels: premultiplication changes nothing; cairo stores native-endian
         * 0xAARRGGBB words. */
        guint32 word = ((guint32) 0xff << 24) | ((guint32) p[0] << 16) | ((guint32) p[1] << 8)
                       | p[2];
        memcpy (data + (size_t) y * (size_t) stride + 4 * (size_t) x, &word, 4);
      }
  cairo_surface_mark_dirty (surface);
  g_autofree char *temporary = g_strdup_printf ("%s.tmp-XXXXXX", path);
  int fd = g_mkstemp (temporary);
  if (fd < 0)
    {
      cairo_surface_destroy (surface);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "%s: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  close (fd);
  cairo_status_t status = cairo_surface_write_to_png (surface, temporary);
  cairo_surface_destroy (surface);
  /* mkstemp made it private; a picture is for everyone, like any file the user writes. */
  g_chmod (temporary, 0644);
  if (status != CAIRO_STATUS_SUCCESS || g_rename (temporary, path) != 0)
    {
      g_unlink (temporary);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", path,
                   status != CAIRO_STATUS_SUCCESS ? cairo_status_to_string (status)
                                                  : g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

void
cwb_render_camera_framing (const CwbSnapshot *snapshot, const CwbCamera *view, double zoom,
                           CwbCamera *camera)
{
  cwb_render_camera_default (camera);
  if (view != NULL)
    {
      camera->yaw = view->yaw;
      camera->pitch = view->pitch;
      camera->fov_y = view->fov_y;
    }
  double lo[3], hi[3];
  if (cwb_snapshot_bounds (snapshot, TRUE, lo, hi))
    cwb_render_camera_frame (camera, lo, hi);
  camera->distance *= zoom;
}

gboolean
cwb_render_screenshot (CwbWorld *world, const CwbOverlayOptions *options,
                       const CwbCamera *view, double zoom, int width, int height,
                       const char *path, GError **error)
{
  g_autoptr (CwbOffscreen) offscreen = cwb_render_offscreen_new (width, height, error);
  if (offscreen == NULL)
    return FALSE;
  g_autoptr (CwbSnapshot) snapshot = cwb_snapshot_capture (world, NULL);
  CwbCamera camera;
  cwb_render_camera_framing (snapshot, view, zoom, &camera);
  g_autofree guint8 *pixels = cwb_render_offscreen_frame (offscreen, snapshot, &camera, options);
  cwb_render_annotate_rgba (pixels, width, height, snapshot, &camera, options,
                            cwb_render_last_overlays (offscreen->renderer));
  return cwb_render_write_png (pixels, width, height, path, error);
}

/* The OpenGL LDI backend (ldi_raster_gl.h): the three images of Allard 2010 sec. 3.2 drawn
 * by the rasterisation pipeline, with exactly the fragments of the CPU reference
 * (ldi_raster_cpu.c).
 *
 * Per-pixel lists, not depth peeling. Every fragment a pixel's ray meets is appended to one
 * shader storage buffer through an atomic counter, tagged with its pixel, and the shared
 * ldi_image_fill stores them by pixel and sorts them (ldi.c). Depth peeling would draw the
 * scene once per layer (as many passes as the deepest pixel has crossings, and one more to
 * learn that it was the last), read back an image per layer, and could not separate two
 * fragments at the same depth, which the fill rule produces on purpose where two triangles
 * fold over an edge (a silhouette) and which the volume walk needs both of. The lists need one
 * pass per image whatever the depth complexity, keep every fragment, and leave the ordering
 * to the same total order as the CPU backend, so both give the same LDI.
 *
 * Exact coverage in the fragment shader. GL's own coverage snaps the projected vertices to a
 * subpixel grid (8 bits on llvmpipe) and has its own tie rule, so it would disagree with the
 * CPU's at centres on or near edges, and a watertight surface would lose or double crossings
 * where its triangles meet. Each triangle is drawn instead as the rectangle of the pixels its
 * bounding box may cover (the CPU's own scan range: its sides lie on pixel boundaries, half a
 * pixel from every centre, so GL cannot miss a centre), and the fragment shader reads the
 * triangle's vertices in double from a storage buffer and applies the CPU's rule: edge
 * functions from each edge's lexicographically smaller end point, the tie rule of the
 * infinitesimal offset w = (eps, -eps^2), the facing from the orientation, then depth and
 * barycentric weights at the centre with the same double operations in the same order
 * (GLSL `precise`: no fused multiply-adds, like the CPU's -ffp-contract=off).
 *
 * llvmpipe caveat. Mesa's llvmpipe was seen to drop whole 64 x 64 tiles of fragments from a
 * pass whose only outputs are storage-buffer and atomic writes while colour writes were
 * enabled; with colour writes masked off (or blending on) every fragment arrived. The pass
 * draws into a small colour renderbuffer with glColorMask all off, no depth test, no culling;
 * the tests compare against the CPU backend on images of many such tiles.
 *
 * Threads. The context is made current at the start of each call and the calling thread's
 * previous EGL context restored at the end (released when there was none), so a GUI worker
 * thread can rasterise next to GTK's own context. The display is never terminated: EGL
 * displays are shared by the process (the renderer's offscreen context uses the same one). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <gio/gio.h>

#include "ldi-shaders.h"
#include "ldi_raster_cpu.h"
#include "ldi_raster_gl.h"

CWB_DEFINE_ERROR_QUARK (ldi-gl-error-quark, ldi_gl_error)

#define SHADER_PREFIX "/org/contactworkbench/ldi/shaders/"

/* Fragment records the buffer starts with (3.5 MiB); it grows to what a pass needs. */
#define INITIAL_CAPACITY ((size_t) 1 << 16)
/* Default bound on the records of one pass, 2^22 (224 MiB), below the driver's largest
 * storage block: a denser pass is split into batches of triangles. */
#define DEFAULT_MAX_FRAGMENTS ((size_t) 1 << 22)
/* Default tile side: an image wider than this is drawn tile by tile. 4096 keeps the colour
 * renderbuffer (one byte per pixel, never written) at 16 MiB and window coordinates exact in
 * float. */
#define DEFAULT_MAX_TILE 4096u
/* uints per triangle record: three global vertex indices, the surface, the triangle's index
 * in it (the shaders' Triangles block). */
#define TRIANGLE_WORDS 5
/* What check_against_cpu allows: a few ulps of depths and weights of order 1. */
#define SELF_CHECK_TOLERANCE 1e-12

/* The fragment shader writes LdiPixelFragment records as they lie in memory (std430). */
G_STATIC_ASSERT (sizeof (LdiPixelFragment) == 56);
G_STATIC_ASSERT (offsetof (LdiPixelFragment, fragment) == 8);
G_STATIC_ASSERT (offsetof (LdiFragment, bary) == 8);
G_STATIC_ASSERT (offsetof (LdiFragment, surface) == 32);
G_STATIC_ASSERT (offsetof (LdiFragment, facing) == 40);

typedef struct Uniforms {
  GLint axes, origin, pixel_size, image_size, tile, first_triangle, capacity;
} Uniforms;

struct LdiGl {
  EGLDisplay display;
  EGLContext context;
  GLuint program, vertex_array, framebuffer, renderbuffer;
  GLuint positions, triangles, fragments, counter;   /* buffers */
  Uniforms uniforms;
  size_t capacity;               /* records the fragment buffer holds */
  size_t driver_max_fragments;   /* what the driver's storage blocks and our default allow */
  uint32_t driver_max_tile;      /* the renderbuffer's side */
  GLint64 max_block_bytes;       /* GL_MAX_SHADER_STORAGE_BLOCK_SIZE */
  size_t max_fragments;          /* per pass, after ldi_gl_set_limits */
  uint32_t tile;                 /* tile side, after ldi_gl_set_limits */
  char *renderer;                /* GL_RENDERER, for messages */
};

/* The thread's EGL state before a call, restored after it. */
typedef struct Binding {
  EGLenum api;
  EGLDisplay display;
  EGLContext context;
  EGLSurface draw, read;
} Binding;

static gboolean
egl_fail (GError **error, const char *what)
{
  g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
               "LDI OpenGL backend: %s failed (EGL error 0x%x)", what, eglGetError ());
  return FALSE;
}

static gboolean
bind_context (LdiGl *gl, Binding *saved, GError **error)
{
  saved->api = eglQueryAPI ();
  /* The current context and its release are per API: ask and act for OpenGL's. */
  if (!eglBindAPI (EGL_OPENGL_API))
    return egl_fail (error, "eglBindAPI (OpenGL)");
  saved->display = eglGetCurrentDisplay ();
  saved->context = eglGetCurrentContext ();
  saved->draw = eglGetCurrentSurface (EGL_DRAW);
  saved->read = eglGetCurrentSurface (EGL_READ);
  if (!eglMakeCurrent (gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, gl->context))
    {
      egl_fail (error, "eglMakeCurrent (surfaceless)");
      if (saved->api != EGL_NONE)
        eglBindAPI (saved->api);
      return FALSE;
    }
  return TRUE;
}

static void
unbind_context (LdiGl *gl, const Binding *saved)
{
  if (saved->context != EGL_NO_CONTEXT && saved->context != gl->context)
    eglMakeCurrent (saved->display, saved->draw, saved->read, saved->context);
  else
    eglMakeCurrent (gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (saved->api != EGL_NONE)
    eglBindAPI (saved->api);
}

/* A display that needs no window system: Mesa's surfaceless platform where the driver has it
 * (Mesa, llvmpipe included), else the first GPU through the device platform
 * (EGL_EXT_platform_device: NVIDIA's headless driver, which has no surfaceless platform). */
static gboolean
open_display (LdiGl *gl, GError **error)
{
  if (!epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_EXT_platform_base"))
    {
      g_set_error_literal (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
                           "LDI OpenGL backend: EGL has no EGL_EXT_platform_base (install "
                           "Mesa's EGL, libegl-mesa0, or a GPU driver's)");
      return FALSE;
    }
  if (epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless"))
    {
      gl->display = eglGetPlatformDisplayEXT (EGL_PLATFORM_SURFACELESS_MESA,
                                              EGL_DEFAULT_DISPLAY, NULL);
      if (gl->display != EGL_NO_DISPLAY && eglInitialize (gl->display, NULL, NULL))
        return TRUE;
    }
  if (epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_EXT_platform_device")
      && epoxy_has_egl_extension (EGL_NO_DISPLAY, "EGL_EXT_device_enumeration"))
    {
      EGLDeviceEXT device;
      EGLint n_devices = 0;
      if (eglQueryDevicesEXT (1, &device, &n_devices) && n_devices > 0)
        {
          gl->display = eglGetPlatformDisplayEXT (EGL_PLATFORM_DEVICE_EXT, device, NULL);
          if (gl->display != EGL_NO_DISPLAY && eglInitialize (gl->display, NULL, NULL))
            return TRUE;
        }
    }
  g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
               "LDI OpenGL backend: no headless EGL display (neither "
               "EGL_MESA_platform_surfaceless nor EGL_EXT_platform_device opened; EGL error "
               "0x%x; install Mesa's EGL, libegl-mesa0, or a GPU driver's)", eglGetError ());
  return FALSE;
}

static gboolean
open_context (LdiGl *gl, GError **error)
{
  if (!epoxy_has_egl ())
    {
      g_set_error_literal (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
                           "LDI OpenGL backend: no EGL library (install libegl1 and Mesa's "
                           "libegl-mesa0)");
      return FALSE;
    }
  if (!open_display (gl, error))
    return FALSE;
  if (!epoxy_has_egl_extension (gl->display, "EGL_KHR_surfaceless_context"))
    {
      g_set_error_literal (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
                           "LDI OpenGL backend: the headless EGL display has no "
                           "EGL_KHR_surfaceless_context");
      return FALSE;
    }

  EGLenum api = eglQueryAPI ();
  if (!eglBindAPI (EGL_OPENGL_API))
    return egl_fail (error, "eglBindAPI (OpenGL)");
  /* No surface is ever drawn to: no config at all where the driver allows it, else any
   * OpenGL-renderable one. */
  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!epoxy_has_egl_extension (gl->display, "EGL_KHR_no_config_context"))
    {
      const EGLint config_attributes[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                                           EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE };
      EGLint n_configs = 0;
      if (!eglChooseConfig (gl->display, config_attributes, &config, 1, &n_configs)
          || n_configs == 0)
        {
          if (api != EGL_NONE)
            eglBindAPI (api);
          return egl_fail (error, "eglChooseConfig (OpenGL)");
        }
    }
  /* 4.3: shader storage buffers, atomic counters in every stage, and the double precision
   * arithmetic of 4.0 (ARB_gpu_shader_fp64). */
  const EGLint context_attributes[] = {
    EGL_CONTEXT_MAJOR_VERSION, 4,
    EGL_CONTEXT_MINOR_VERSION, 3,
    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
    EGL_NONE,
  };
  gl->context = eglCreateContext (gl->display, config, EGL_NO_CONTEXT, context_attributes);
  EGLint status = eglGetError ();
  if (api != EGL_NONE)
    eglBindAPI (api);
  if (gl->context == EGL_NO_CONTEXT)
    {
      g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
                   "LDI OpenGL backend: the driver offers no OpenGL 4.3 core context "
                   "(eglCreateContext: EGL error 0x%x)", status);
      return FALSE;
    }
  return TRUE;
}

/* Compiles an embedded shader, with `defines` (or nothing) inserted after its #version line. */
static GLuint
compile_shader (GLenum type, const char *name, const char *defines, GError **error)
{
  g_autofree char *path = g_strconcat (SHADER_PREFIX, name, NULL);
  g_autoptr (GError) lookup_error = NULL;
  g_autoptr (GBytes) bytes = g_resource_lookup_data (ldi_shaders_get_resource (), path,
                                                     G_RESOURCE_LOOKUP_FLAGS_NONE,
                                                     &lookup_error);
  if (bytes == NULL)
    {
      g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_SHADER,
                   "LDI OpenGL backend: shader %s is not embedded: %s", name,
                   lookup_error->message);
      return 0;
    }
  gsize size;
  const GLchar *source = g_bytes_get_data (bytes, &size);
  const GLchar *version = g_strstr_len (source, (gssize) size, "#version");
  const GLchar *body = version != NULL ? memchr (version, '\n', size - (gsize) (version - source))
                                       : NULL;
  body = body != NULL ? body + 1 : source;
  const GLchar *parts[3] = { source, defines != NULL ? defines : "", body };
  GLint lengths[3] = { (GLint) (body - source), -1, (GLint) (source + size - body) };
  GLuint shader = glCreateShader (type);
  glShaderSource (shader, 3, parts, lengths);
  glCompileShader (shader);
  GLint ok = GL_FALSE, log_length = 0;
  glGetShaderiv (shader, GL_COMPILE_STATUS, &ok);
  if (!ok)
    {
      glGetShaderiv (shader, GL_INFO_LOG_LENGTH, &log_length);
      g_autofree char *log = g_malloc0 ((size_t) MAX (log_length, 1));
      glGetShaderInfoLog (shader, MAX (log_length, 1), NULL, log);
      g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_SHADER,
                   "LDI OpenGL backend: shader %s does not compile on %s: %s", name,
                   (const char *) glGetString (GL_RENDERER), log);
      glDeleteShader (shader);
      return 0;
    }
  return shader;
}

static gboolean
build_program (LdiGl *gl, const char *fragment_defines, GError **error)
{
  GLuint vertex = compile_shader (GL_VERTEX_SHADER, "ldi_raster.vert", NULL, error);
  if (vertex == 0)
    return FALSE;
  GLuint fragment = compile_shader (GL_FRAGMENT_SHADER, "ldi_raster.frag", fragment_defines,
                                    error);
  if (fragment == 0)
    {
      glDeleteShader (vertex);
      return FALSE;
    }
  gl->program = glCreateProgram ();
  glAttachShader (gl->program, vertex);
  glAttachShader (gl->program, fragment);
  glLinkProgram (gl->program);
  glDeleteShader (vertex);
  glDeleteShader (fragment);
  GLint ok = GL_FALSE, log_length = 0;
  glGetProgramiv (gl->program, GL_LINK_STATUS, &ok);
  if (!ok)
    {
      glGetProgramiv (gl->program, GL_INFO_LOG_LENGTH, &log_length);
      g_autofree char *log = g_malloc0 ((size_t) MAX (log_length, 1));
      glGetProgramInfoLog (gl->program, MAX (log_length, 1), NULL, log);
      g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_SHADER,
                   "LDI OpenGL backend: the rasteriser's shaders do not link on %s: %s",
                   (const char *) glGetString (GL_RENDERER), log);
      return FALSE;
    }
  Uniforms *u = &gl->uniforms;
  u->axes = glGetUniformLocation (gl->program, "axes");
  u->origin = glGetUniformLocation (gl->program, "origin");
  u->pixel_size = glGetUniformLocation (gl->program, "pixel_size");
  u->image_size = glGetUniformLocation (gl->program, "image_size");
  u->tile = glGetUniformLocation (gl->program, "tile");
  u->first_triangle = glGetUniformLocation (gl->program, "first_triangle");
  u->capacity = glGetUniformLocation (gl->program, "capacity");
  return TRUE;
}

static gboolean
gl_check (const char *what, GError **error)
{
  GLenum status = glGetError ();
  if (status == GL_NO_ERROR)
    return TRUE;
  /* Drain the rest: the next call starts clean. */
  while (glGetError () != GL_NO_ERROR)
    ;
  g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_FAILED,
               "LDI OpenGL backend: OpenGL error 0x%x %s%s", status, what,
               status == GL_OUT_OF_MEMORY ? " (out of memory)" : "");
  return FALSE;
}

/* Reallocates the fragment buffer for `records` records (its contents are not kept). */
static gboolean
reserve (LdiGl *gl, size_t records, GError **error)
{
  glBindBuffer (GL_SHADER_STORAGE_BUFFER, gl->fragments);
  glBufferData (GL_SHADER_STORAGE_BUFFER, (GLsizeiptr) (records * sizeof (LdiPixelFragment)),
                NULL, GL_STREAM_READ);
  if (!gl_check ("allocating the fragment buffer", error))
    return FALSE;
  glBindBufferBase (GL_SHADER_STORAGE_BUFFER, 2, gl->fragments);
  gl->capacity = records;
  return TRUE;
}

static gboolean
create_objects (LdiGl *gl, const char *fragment_defines, GError **error)
{
  if (epoxy_gl_version () < 43)
    {
      g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
                   "LDI OpenGL backend: %s gives OpenGL %d.%d, 4.3 is needed",
                   (const char *) glGetString (GL_RENDERER), epoxy_gl_version () / 10,
                   epoxy_gl_version () % 10);
      return FALSE;
    }
  if (!build_program (gl, fragment_defines, error))
    return FALSE;

  GLint viewport[2] = { 0, 0 }, renderbuffer = 0, width = 0, height = 0;
  glGetInteger64v (GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &gl->max_block_bytes);
  glGetIntegerv (GL_MAX_VIEWPORT_DIMS, viewport);
  glGetIntegerv (GL_MAX_RENDERBUFFER_SIZE, &renderbuffer);
  glGetIntegerv (GL_MAX_FRAMEBUFFER_WIDTH, &width);
  glGetIntegerv (GL_MAX_FRAMEBUFFER_HEIGHT, &height);
  gl->driver_max_fragments = MIN (DEFAULT_MAX_FRAGMENTS,
                                  (size_t) gl->max_block_bytes / sizeof (LdiPixelFragment));
  /* One triangle covers at most a whole tile: a tile of at most max_fragments pixels lets
   * every pass be split down to batches that fit. */
  GLint driver_side = MIN (MIN (viewport[0], viewport[1]),
                           MIN (renderbuffer, MIN (width, height)));
  uint32_t side = MIN (DEFAULT_MAX_TILE, (uint32_t) MAX (driver_side, 0));
  side = MIN (side, (uint32_t) floor (sqrt ((double) gl->driver_max_fragments)));
  if (side < 1 || gl->driver_max_fragments < 1)
    {
      g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
                   "LDI OpenGL backend: %s allows no usable framebuffer or storage block",
                   (const char *) glGetString (GL_RENDERER));
      return FALSE;
    }
  gl->driver_max_tile = side;
  gl->max_fragments = gl->driver_max_fragments;
  gl->tile = side;

  glGenVertexArrays (1, &gl->vertex_array);
  glGenFramebuffers (1, &gl->framebuffer);
  glGenRenderbuffers (1, &gl->renderbuffer);
  GLuint buffers[4];
  glGenBuffers (4, buffers);
  gl->positions = buffers[0];
  gl->triangles = buffers[1];
  gl->fragments = buffers[2];
  gl->counter = buffers[3];

  /* A colour attachment that is never written (see the top of the file: colour writes off). */
  glBindFramebuffer (GL_FRAMEBUFFER, gl->framebuffer);
  glBindRenderbuffer (GL_RENDERBUFFER, gl->renderbuffer);
  glRenderbufferStorage (GL_RENDERBUFFER, GL_R8, (GLsizei) side, (GLsizei) side);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                             gl->renderbuffer);
  if (glCheckFramebufferStatus (GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    {
      g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_UNAVAILABLE,
                   "LDI OpenGL backend: the %ux%u framebuffer is incomplete on %s", side, side,
                   (const char *) glGetString (GL_RENDERER));
      return FALSE;
    }
  glBindBuffer (GL_ATOMIC_COUNTER_BUFFER, gl->counter);
  glBufferData (GL_ATOMIC_COUNTER_BUFFER, sizeof (GLuint), NULL, GL_DYNAMIC_READ);
  if (!reserve (gl, MIN (INITIAL_CAPACITY, gl->max_fragments), error))
    return FALSE;
  return gl_check ("creating the rasteriser's objects", error);
}

/* The largest difference between two LDIs' depths (relative to 1 or the depth) and weights,
 * or INFINITY where their fragments differ in count, pixel, triangle or facing. */
static double
ldi_difference (const Ldi *a, const Ldi *b)
{
  double worst = 0;
  for (int axis = 0; axis < 3; axis++)
    {
      const LdiImage *x = &a->images[axis], *y = &b->images[axis];
      size_t n_pixels = (size_t) x->width * x->height;
      if (y->n_fragments != x->n_fragments
          || memcmp (x->offsets, y->offsets, (n_pixels + 1) * sizeof (uint32_t)) != 0)
        return INFINITY;
      for (size_t k = 0; k < x->n_fragments; k++)
        {
          const LdiFragment *f = &x->fragments[k], *g = &y->fragments[k];
          if (f->surface != g->surface || f->triangle != g->triangle || f->facing != g->facing)
            return INFINITY;
          worst = MAX (worst, fabs (f->depth - g->depth) / MAX (1.0, fabs (f->depth)));
          for (int i = 0; i < 3; i++)
            worst = MAX (worst, fabs (f->bary[i] - g->bary[i]));
        }
    }
  return worst;
}

/* The backend's promise checked on this driver before any use: an octahedron in a generic
 * pose rasterised here and by the CPU backend gives the same fragments, with depths and
 * weights equal to round-off. GLSL lets a driver compute doubles less exactly than IEEE
 * arithmetic (NVIDIA's 580 driver gave weights rounded to single precision and, at the fill
 * rule's ties, other fragments), and contacts must not depend on the backend. */
static gboolean
check_against_cpu (LdiGl *gl, GError **error)
{
  static const double positions[] = {
    0.83, 0.11, -0.07,   -0.79, -0.13, 0.05,   0.09, 0.77, 0.12,
    -0.06, -0.81, -0.1,  0.12, -0.04, 0.86,    -0.08, 0.1, -0.74,
  };
  /* Vertices +x, -x, +y, -y, +z, -z; one face per octant, counter-clockwise from outside. */
  static const uint32_t triangles[] = {
    0, 2, 4,  0, 5, 2,  0, 4, 3,  0, 3, 5,  1, 4, 2,  1, 2, 5,  1, 3, 4,  1, 5, 3,
  };
  const LdiSurface surface = { .positions = positions, .n_vertices = 6,
                               .triangles = triangles, .n_triangles = 8 };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 };
  g_autoptr (GError) local = NULL;
  g_autoptr (Ldi) cpu = ldi_new (lo, hi, 0.02, &local);
  g_autoptr (Ldi) mine = ldi_new (lo, hi, 0.02, &local);
  if (cpu == NULL || mine == NULL || !ldi_raster_cpu (cpu, &surface, 1, 1, &local)
      || !ldi_raster_gl (gl, mine, &surface, 1, &local))
    {
      g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_FAILED,
                   "LDI OpenGL backend: its check against the CPU backend failed on %s: %s",
                   gl->renderer, local != NULL ? local->message : "no LDI");
      return FALSE;
    }
  double difference = ldi_difference (cpu, mine);
  if (difference > SELF_CHECK_TOLERANCE)
    {
      if (isinf (difference))
        g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_INEXACT,
                     "LDI OpenGL backend: %s does not compute in exact double precision: its "
                     "fragments differ from the CPU backend's on a test shape; use the cpu "
                     "backend", gl->renderer);
      else
        g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_INEXACT,
                     "LDI OpenGL backend: %s does not compute in exact double precision: its "
                     "depths and weights differ from the CPU backend's by %.3g on a test shape "
                     "(%.0e allowed); use the cpu backend", gl->renderer, difference,
                     SELF_CHECK_TOLERANCE);
      return FALSE;
    }
  return TRUE;
}

LdiGl *
ldi_gl_new (GError **error)
{
  return ldi_gl_new_emulating (NULL, error);
}

LdiGl *
ldi_gl_new_emulating (const char *fragment_defines, GError **error)
{
  g_autoptr (LdiGl) gl = g_new0 (LdiGl, 1);
  gl->display = EGL_NO_DISPLAY;
  gl->context = EGL_NO_CONTEXT;
  if (!open_context (gl, error))
    return NULL;
  Binding saved;
  if (!bind_context (gl, &saved, error))
    return NULL;
  gboolean ok = create_objects (gl, fragment_defines, error);
  gl->renderer = g_strdup ((const char *) glGetString (GL_RENDERER));
  if (ok)
    g_debug ("OpenGL backend on %s (%s): tiles of %u pixels, %zu fragments per pass",
             (const char *) glGetString (GL_RENDERER), (const char *) glGetString (GL_VERSION),
             gl->tile, gl->max_fragments);
  unbind_context (gl, &saved);
  if (!ok || !check_against_cpu (gl, error))
    return NULL;
  return g_steal_pointer (&gl);
}

void
ldi_gl_free (LdiGl *gl)
{
  if (gl == NULL)
    return;
  if (gl->context != EGL_NO_CONTEXT)
    {
      Binding saved;
      if (bind_context (gl, &saved, NULL))
        {
          /* Names never generated are 0, which every glDelete* ignores. */
          GLuint buffers[4] = { gl->positions, gl->triangles, gl->fragments, gl->counter };
          glDeleteBuffers (4, buffers);
          glDeleteRenderbuffers (1, &gl->renderbuffer);
          glDeleteFramebuffers (1, &gl->framebuffer);
          glDeleteVertexArrays (1, &gl->vertex_array);
          glDeleteProgram (gl->program);
          unbind_context (gl, &saved);
        }
      eglDestroyContext (gl->display, gl->context);
    }
  g_free (gl->renderer);
  g_free (gl);
}

void
ldi_gl_set_limits (LdiGl *gl, size_t max_fragments, uint32_t max_tile)
{
  g_return_if_fail (gl != NULL);
  gl->max_fragments = max_fragments == 0 ? gl->driver_max_fragments
                                         : MIN (max_fragments, gl->driver_max_fragments);
  uint32_t side = max_tile == 0 ? gl->driver_max_tile : MIN (max_tile, gl->driver_max_tile);
  gl->tile = MAX (1u, MIN (side, (uint32_t) floor (sqrt ((double) gl->max_fragments))));
}

/* What one call rasterises: the flattened surfaces and the image being drawn. */
typedef struct Pass {
  uint32_t n_pixels;             /* of the image */
  uint32_t n_surfaces;
  GPtrArray *lists;              /* GArray of LdiPixelFragment, one per batch read back */
  guint n_draws;
} Pass;

/* Draws triangles [first, first + count) into the current tile and reads their fragments
 * back. A pass that overflows the buffer is drawn again into a larger one, or, past
 * max_fragments, split in two halves of triangles. */
static gboolean
raster_batch (LdiGl *gl, Pass *pass, uint32_t first, uint32_t count, GError **error)
{
  for (;;)
    {
      const GLuint zero = 0;
      glBindBuffer (GL_ATOMIC_COUNTER_BUFFER, gl->counter);
      glBufferSubData (GL_ATOMIC_COUNTER_BUFFER, 0, sizeof zero, &zero);
      glUniform1ui (gl->uniforms.first_triangle, first);
      glUniform1ui (gl->uniforms.capacity, (GLuint) gl->capacity);
      glDrawArrays (GL_TRIANGLES, 0, (GLsizei) (6 * count));
      pass->n_draws++;
      glMemoryBarrier (GL_ATOMIC_COUNTER_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
      GLuint n = 0;
      glGetBufferSubData (GL_ATOMIC_COUNTER_BUFFER, 0, sizeof n, &n);
      if (!gl_check ("drawing the triangles", error))
        return FALSE;
      if (n <= gl->capacity)
        {
          if (n == 0)
            return TRUE;
          GArray *list = g_array_sized_new (FALSE, FALSE, sizeof (LdiPixelFragment), n);
          g_array_set_size (list, n);
          g_ptr_array_add (pass->lists, list);
          glBindBuffer (GL_SHADER_STORAGE_BUFFER, gl->fragments);
          glGetBufferSubData (GL_SHADER_STORAGE_BUFFER, 0,
                              (GLsizeiptr) ((size_t) n * sizeof (LdiPixelFragment)), list->data);
          if (!gl_check ("reading the fragments back", error))
            return FALSE;
          /* ldi_image_fill trusts its input: a driver bug must not reach it. */
          const LdiPixelFragment *f = (const LdiPixelFragment *) (void *) list->data;
          for (GLuint k = 0; k < n; k++)
            if (f[k].pixel >= pass->n_pixels || f[k].fragment.surface >= pass->n_surfaces
                || f[k].fragment.facing > LDI_FRONT)
              {
                g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_FAILED,
                             "LDI OpenGL backend: fragment %u of %u read back is corrupt "
                             "(pixel %u of %u, surface %u)", k, n, f[k].pixel, pass->n_pixels,
                             f[k].fragment.surface);
                return FALSE;
              }
          return TRUE;
        }
      if (n <= gl->max_fragments)
        {
          /* A quarter more than this pass needs: the next ones are usually alike. */
          size_t records = MIN (gl->max_fragments, MAX ((size_t) n + n / 4, 2 * gl->capacity));
          g_debug ("OpenGL backend: %u fragments in one pass, buffer grown to %zu", n, records);
          if (!reserve (gl, records, error))
            return FALSE;
          continue;
        }
      if (count == 1)
        {
          /* Cannot happen: a tile has at most max_fragments pixels. */
          g_set_error (error, LDI_GL_ERROR, LDI_GL_ERROR_FAILED,
                       "LDI OpenGL backend: one triangle gave %u fragments in a tile of %u "
                       "pixels", n, gl->tile * gl->tile);
          return FALSE;
        }
      return raster_batch (gl, pass, first, count / 2, error)
             && raster_batch (gl, pass, first + count / 2, count - count / 2, error);
    }
}

static gboolean
raster_image (LdiGl *gl, const Ldi *ldi, uint32_t axis, uint32_t n_triangles, Pass *pass,
              GError **error)
{
  const LdiImage *image = &ldi->images[axis];
  pass->n_pixels = image->width * image->height;
  glUniform3ui (gl->uniforms.axes, image->u, image->v, axis);
  glUniform2d (gl->uniforms.origin, ldi->box_min[image->u], ldi->box_min[image->v]);
  glUniform1d (gl->uniforms.pixel_size, ldi->pixel_size);
  glUniform2ui (gl->uniforms.image_size, image->width, image->height);
  /* Batches of at most G_MAXINT / 6 triangles: glDrawArrays counts vertices in a GLsizei. */
  const uint32_t max_batch = G_MAXINT / 6;
  for (uint32_t ty = 0; ty < image->height; ty += gl->tile)
    for (uint32_t tx = 0; tx < image->width; tx += gl->tile)
      {
        uint32_t tw = MIN (gl->tile, image->width - tx), th = MIN (gl->tile, image->height - ty);
        glViewport (0, 0, (GLsizei) tw, (GLsizei) th);
        glUniform4ui (gl->uniforms.tile, tx, ty, tw, th);
        for (uint32_t first = 0; first < n_triangles; first += max_batch)
          if (!raster_batch (gl, pass, first, MIN (max_batch, n_triangles - first), error))
            return FALSE;
      }
  return TRUE;
}

/* The surfaces flattened for the shaders: positions in double (3 per vertex, all surfaces
 * one after the other) and TRIANGLE_WORDS uints per triangle with global vertex indices.
 * Triangles with a non-finite vertex are left out, as the CPU backend skips them. */
static gboolean
flatten (LdiGl *gl, const LdiSurface *surfaces, size_t n_surfaces, GArray *positions,
         GArray *triangles, GError **error)
{
  size_t n_vertices = 0, n_triangles = 0;
  for (size_t s = 0; s < n_surfaces; s++)
    {
      n_vertices += surfaces[s].n_vertices;
      n_triangles += surfaces[s].n_triangles;
    }
  /* The shaders index positions[3 * vertex + c] and triangles[5 * t + k] in 32 bits, and a
   * storage block holds at most max_block_bytes. */
  if (n_vertices > G_MAXUINT32 / 3 || n_triangles > G_MAXUINT32 / TRIANGLE_WORDS
      || (GLint64) (n_vertices * 3 * sizeof (double)) > gl->max_block_bytes
      || (GLint64) (n_triangles * TRIANGLE_WORDS * sizeof (uint32_t)) > gl->max_block_bytes)
    {
      g_set_error (error, LDI_ERROR, LDI_ERROR_TOO_LARGE,
                   "LDI OpenGL backend: %zu vertices and %zu triangles exceed the driver's "
                   "storage blocks (%" G_GINT64_FORMAT " bytes)", n_vertices, n_triangles,
                   (gint64) gl->max_block_bytes);
      return FALSE;
    }
  g_array_set_size (positions, 0);
  g_array_set_size (triangles, 0);
  uint32_t base = 0;
  for (size_t s = 0; s < n_surfaces; s++)
    {
      const LdiSurface *surface = &surfaces[s];
      g_array_append_vals (positions, surface->positions, 3 * (guint) surface->n_vertices);
      for (size_t t = 0; t < surface->n_triangles; t++)
        {
          const uint32_t *tri = surface->triangles + 3 * t;
          gboolean finite = TRUE;
          for (int k = 0; k < 3; k++)
            {
              /* ldi_surface_check's refusal, for surfaces marked checked that are not. */
              if (tri[k] >= surface->n_vertices)
                {
                  g_set_error (error, LDI_ERROR, LDI_ERROR_INPUT,
                               "surface %zu (geometry %u): triangle %zu uses vertex %u of %zu",
                               s, surface->geometry, t, tri[k], surface->n_vertices);
                  return FALSE;
                }
              const double *p = surface->positions + 3 * (size_t) tri[k];
              finite = finite && isfinite (p[0]) && isfinite (p[1]) && isfinite (p[2]);
            }
          if (!finite)
            continue;
          uint32_t record[TRIANGLE_WORDS] = { base + tri[0], base + tri[1], base + tri[2],
                                              (uint32_t) s, (uint32_t) t };
          g_array_append_vals (triangles, record, TRIANGLE_WORDS);
        }
      base += (uint32_t) surface->n_vertices;
    }
  return TRUE;
}

static void
upload (GLuint buffer, GLuint binding, const GArray *data)
{
  glBindBuffer (GL_SHADER_STORAGE_BUFFER, buffer);
  /* Never empty: a zero-sized store cannot be bound. */
  gsize size = MAX ((gsize) data->len * g_array_get_element_size ((GArray *) data), 16);
  glBufferData (GL_SHADER_STORAGE_BUFFER, (GLsizeiptr) size, NULL, GL_STREAM_DRAW);
  if (data->len > 0)
    glBufferSubData (GL_SHADER_STORAGE_BUFFER, 0,
                     (GLsizeiptr) ((gsize) data->len
                                   * g_array_get_element_size ((GArray *) data)), data->data);
  glBindBufferBase (GL_SHADER_STORAGE_BUFFER, binding, buffer);
}

/* Draws the three images into per-axis lists, with the context current. */
static gboolean
raster_all (LdiGl *gl, const Ldi *ldi, const GArray *positions, const GArray *triangles,
            uint32_t n_surfaces, GPtrArray *lists[3], GError **error)
{
  while (glGetError () != GL_NO_ERROR)
    ;   /* errors left by others' use of the context are not ours */
  uint32_t n_triangles = triangles->len / TRIANGLE_WORDS;
  upload (gl->positions, 0, positions);
  upload (gl->triangles, 1, triangles);
  glBindBufferBase (GL_SHADER_STORAGE_BUFFER, 2, gl->fragments);
  glBindBufferBase (GL_ATOMIC_COUNTER_BUFFER, 0, gl->counter);
  if (!gl_check ("uploading the surfaces", error))
    return FALSE;
  /* Limits lowered since the buffer grew (ldi_gl_set_limits) take effect here. */
  if (gl->capacity > gl->max_fragments && !reserve (gl, gl->max_fragments, error))
    return FALSE;
  glUseProgram (gl->program);
  glBindVertexArray (gl->vertex_array);
  glBindFramebuffer (GL_FRAMEBUFFER, gl->framebuffer);
  /* Fragments go to the storage buffer only; see the top of the file for the colour mask. */
  glColorMask (GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
  glDisable (GL_DEPTH_TEST);
  glDisable (GL_STENCIL_TEST);
  glDisable (GL_CULL_FACE);
  glDisable (GL_BLEND);
  glDisable (GL_SCISSOR_TEST);
  glDisable (GL_MULTISAMPLE);
  guint draws[3] = { 0, 0, 0 };
  for (uint32_t axis = 0; axis < 3; axis++)
    {
      Pass pass = { 0, n_surfaces, lists[axis], 0 };
      if (n_triangles > 0 && !raster_image (gl, ldi, axis, n_triangles, &pass, error))
        return FALSE;
      draws[axis] = pass.n_draws;
    }
  g_debug ("OpenGL backend: %u triangles in %u + %u + %u draws", n_triangles, draws[0],
           draws[1], draws[2]);
  glUseProgram (0);
  return gl_check ("rasterising", error);
}

gboolean
ldi_raster_gl (LdiGl *gl, Ldi *ldi, const LdiSurface *surfaces, size_t n_surfaces,
               GError **error)
{
  g_return_val_if_fail (gl != NULL && ldi != NULL, FALSE);
  g_return_val_if_fail (n_surfaces < G_MAXUINT32, FALSE);
  if (!ldi_check_surfaces (ldi, surfaces, n_surfaces, error))
    return FALSE;
  g_autoptr (GArray) positions = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) triangles = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  if (!flatten (gl, surfaces, n_surfaces, positions, triangles, error))
    {
      ldi_clear (ldi);
      return FALSE;
    }

  Binding saved;
  if (!bind_context (gl, &saved, error))
    {
      ldi_clear (ldi);
      return FALSE;
    }
  GPtrArray *lists[3];
  for (int axis = 0; axis < 3; axis++)
    lists[axis] = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  gboolean ok = raster_all (gl, ldi, positions, triangles, (uint32_t) n_surfaces, lists, error);
  unbind_context (gl, &saved);
  /* The sort runs with the context released: it is the CPU's work. */
  for (uint32_t axis = 0; axis < 3; axis++)
    {
      if (ok)
        ldi_image_fill (&ldi->images[axis], (GArray *const *) lists[axis]->pdata,
                        lists[axis]->len, 0);
      g_ptr_array_unref (lists[axis]);
    }
  if (!ok)
    {
      ldi_clear (ldi);
      return FALSE;
    }
  ldi->n_surfaces = n_surfaces;
  return TRUE;
}

/* The OpenGL renderer (renderer.h). Bodies are uploaded every frame as flat-shaded triangles
 * (positions change every step and a few hundred thousand triangles stream in well under a
 * frame), a fluid drawn as a surface smooth-shaded (fluid_surfaces.h); overlays are lines and
 * translucent triangles. */
#include <string.h>

#include <epoxy/gl.h>
#include <gio/gio.h>

#include <cwb/cwb.h>

#include "cwb-shaders.h"
#include "fluid_surfaces.h"
#include "particle_fields.h"
#include "renderer.h"

G_DEFINE_QUARK (cwb-render-error-quark, cwb_render_error)

#define SHADER_PREFIX "/org/contactworkbench/shaders/"

typedef struct MeshVertex {
  float position[3];
  float normal[3];
  float color[4];
} MeshVertex;

struct CwbRenderer {
  GLuint mesh_program, line_program;
  GLint mesh_view_projection, mesh_light, mesh_clip_plane, mesh_mark_inside;
  GLint line_view_projection;
  GLuint mesh_vao, mesh_vbo, line_vao, line_vbo, tri_vao, tri_vbo;
  GArray *mesh;                 /* MeshVertex, three per triangle: the opaque bodies first */
  guint opaque_vertices;        /* how many of mesh's vertices are opaque bodies' */
  GArray *order;                /* BodyDepth: the translucent bodies, far to near */
  CwbOverlayGeometry overlays;
  CwbFluidSurfaces *fluid_surfaces;   /* particle bodies drawn as surfaces, kept between
                                       * frames */
};

typedef struct BodyDepth {
  size_t body;
  double distance;              /* of its box's centre from the eye */
} BodyDepth;

static GLuint
compile (GLenum type, const char *resource, GError **error)
{
  g_autoptr (GBytes) bytes = g_resources_lookup_data (resource, G_RESOURCE_LOOKUP_FLAGS_NONE,
                                                      error);
  if (bytes == NULL)
    return 0;
  gsize size;
  const char *source = g_bytes_get_data (bytes, &size);
  GLint length = (GLint) size;
  GLuint shader = glCreateShader (type);
  glShaderSource (shader, 1, &source, &length);
  glCompileShader (shader);
  GLint ok = GL_FALSE;
  glGetShaderiv (shader, GL_COMPILE_STATUS, &ok);
  if (!ok)
    {
      char log[2048] = "";
      glGetShaderInfoLog (shader, sizeof log, NULL, log);
      g_set_error (error, CWB_RENDER_ERROR, 0, "%s: %s", resource, log);
      glDeleteShader (shader);
      return 0;
    }
  return shader;
}

static GLuint
link_program (const char *vertex, const char *fragment, GError **error)
{
  GLuint vs = compile (GL_VERTEX_SHADER, vertex, error);
  if (vs == 0)
    return 0;
  GLuint fs = compile (GL_FRAGMENT_SHADER, fragment, error);
  if (fs == 0)
    {
      glDeleteShader (vs);
      return 0;
    }
  GLuint program = glCreateProgram ();
  glAttachShader (program, vs);
  glAttachShader (program, fs);
  glLinkProgram (program);
  glDeleteShader (vs);
  glDeleteShader (fs);
  GLint ok = GL_FALSE;
  glGetProgramiv (program, GL_LINK_STATUS, &ok);
  if (!ok)
    {
      char log[2048] = "";
      glGetProgramInfoLog (program, sizeof log, NULL, log);
      g_set_error (error, CWB_RENDER_ERROR, 0, "linking %s + %s: %s", vertex, fragment, log);
      glDeleteProgram (program);
      return 0;
    }
  return program;
}

/* A VAO over one VBO of interleaved float attributes of the given widths. */
static void
make_vertex_array (GLuint *vao, GLuint *vbo, const int *widths, int n_attributes)
{
  glGenVertexArrays (1, vao);
  glGenBuffers (1, vbo);
  glBindVertexArray (*vao);
  glBindBuffer (GL_ARRAY_BUFFER, *vbo);
  int stride = 0;
  for (int a = 0; a < n_attributes; a++)
    stride += widths[a];
  int offset = 0;
  for (int a = 0; a < n_attributes; a++)
    {
      glEnableVertexAttribArray ((GLuint) a);
      glVertexAttribPointer ((GLuint) a, widths[a], GL_FLOAT, GL_FALSE,
                             stride * (GLsizei) sizeof (float),
                             (const void *) (gintptr) (offset * (int) sizeof (float)));
      offset += widths[a];
    }
  glBindVertexArray (0);
}

CwbRenderer *
cwb_render_renderer_new (GError **error)
{
  /* Referencing the embedded shaders links their object (and its registering constructor)
   * out of the static library. */
  (void) cwb_shaders_get_resource ();
  g_autoptr (CwbRenderer) r = g_new0 (CwbRenderer, 1);
  r->mesh = g_array_new (FALSE, FALSE, sizeof (MeshVertex));
  r->fluid_surfaces = cwb_render_fluid_surfaces_new ();
  cwb_render_overlay_init (&r->overlays);
  r->mesh_program = link_program (SHADER_PREFIX "mesh.vert", SHADER_PREFIX "mesh.frag", error);
  if (r->mesh_program == 0)
    return NULL;
  r->line_program = link_program (SHADER_PREFIX "lines.vert", SHADER_PREFIX "lines.frag",
                                  error);
  if (r->line_program == 0)
    return NULL;
  r->mesh_view_projection = glGetUniformLocation (r->mesh_program, "view_projection");
  r->mesh_light = glGetUniformLocation (r->mesh_program, "light_direction");
  r->mesh_clip_plane = glGetUniformLocation (r->mesh_program, "clip_plane");
  r->mesh_mark_inside = glGetUniformLocation (r->mesh_program, "mark_inside");
  r->order = g_array_new (FALSE, FALSE, sizeof (BodyDepth));
  r->line_view_projection = glGetUniformLocation (r->line_program, "view_projection");
  const int mesh_widths[3] = { 3, 3, 4 }, line_widths[2] = { 3, 4 };
  make_vertex_array (&r->mesh_vao, &r->mesh_vbo, mesh_widths, 3);
  make_vertex_array (&r->line_vao, &r->line_vbo, line_widths, 2);
  make_vertex_array (&r->tri_vao, &r->tri_vbo, line_widths, 2);
  return g_steal_pointer (&r);
}

void
cwb_render_renderer_free (CwbRenderer *r)
{
  if (r == NULL)
    return;
  if (r->mesh_vao != 0)
    {
      GLuint vaos[3] = { r->mesh_vao, r->line_vao, r->tri_vao };
      GLuint vbos[3] = { r->mesh_vbo, r->line_vbo, r->tri_vbo };
      glDeleteVertexArrays (3, vaos);
      glDeleteBuffers (3, vbos);
    }
  if (r->mesh_program != 0)
    glDeleteProgram (r->mesh_program);
  if (r->line_program != 0)
    glDeleteProgram (r->line_program);
  g_array_unref (r->mesh);
  g_clear_pointer (&r->order, g_array_unref);
  g_clear_pointer (&r->fluid_surfaces, cwb_render_fluid_surfaces_free);
  cwb_render_overlay_destroy (&r->overlays);
  g_free (r);
}

void
cwb_render_body_color (size_t body, gboolean fixed, float rgba[4])
{
  static const float palette[6][3] = {
    { 0.90f, 0.55f, 0.25f }, { 0.35f, 0.60f, 0.90f }, { 0.55f, 0.80f, 0.40f },
    { 0.85f, 0.45f, 0.70f }, { 0.95f, 0.80f, 0.35f }, { 0.50f, 0.75f, 0.80f },
  };
  const float *c = palette[body % 6];
  float grey[3] = { 0.62f, 0.62f, 0.65f };
  if (fixed)
    c = grey;
  rgba[0] = c[0];
  rgba[1] = c[1];
  rgba[2] = c[2];
  rgba[3] = 1;
}

static void
append_triangle (CwbRenderer *r, const double *p[3], const float rgba[4])
{
  double e1[3], e2[3], normal[3];
  cwb_v3_sub (e1, p[1], p[0]);
  cwb_v3_sub (e2, p[2], p[0]);
  cwb_v3_cross (normal, e1, e2);
  cwb_v3_normalize (normal);
  for (int k = 0; k < 3; k++)
    {
      MeshVertex v;
      for (int i = 0; i < 3; i++)
        {
          v.position[i] = (float) p[k][i];
          v.normal[i] = (float) normal[i];
        }
      memcpy (v.color, rgba, 4 * sizeof (float));
      g_array_append_val (r->mesh, v);
    }
}

/* Volume particles (Faure 2007 sec. 5.4) as octahedra of their radii: eight faces each, so
 * that a body of thousands stays cheap to draw while showing the lattice it is made of. With
 * the element overlay on, a body that reports node values has each particle in the colour
 * of the chosen field (particle_fields.h) at the overlays' scale. */
static void
append_particles (CwbRenderer *r, const CwbSnapshotBody *g, const float body_rgba[4],
                  const CwbOverlayOptions *options)
{
  static const double axes[6][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 },
                                     { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, -1 } };
  const double *radii = g_bytes_get_data (g->radii, NULL);
  gboolean tinted = options->elements && cwb_render_particles_colorable (g);
  for (size_t k = 0; k < g->n_points; k++)
    {
      float rgba[4] = { body_rgba[0], body_rgba[1], body_rgba[2], body_rgba[3] };
      if (tinted)
        cwb_render_particle_tint (options->particle_field, g, k, r->overlays.particle_scale,
                                  rgba);
      double corner[6][3];
      for (int a = 0; a < 6; a++)
        {
          cwb_v3_copy (corner[a], &g->positions[3 * k]);
          cwb_v3_axpy (corner[a], radii[k], axes[a]);
        }
      /* Faces (x, y, z) for each choice of signs, counter-clockwise seen from outside. */
      for (int face = 0; face < 8; face++)
        {
          int sx = face & 1, sy = (face >> 1) & 1, sz = (face >> 2) & 1;
          const double *p[3] = { corner[sx], corner[2 + sy], corner[4 + sz] };
          if ((sx + sy + sz) % 2 == 1)
            {
              const double *t = p[1];
              p[1] = p[2];
              p[2] = t;
            }
          append_triangle (r, p, rgba);
        }
    }
}

/* A particle body as the surface around its particles (fluid_surfaces.h), smooth-shaded. */
static void
append_particle_surface (CwbRenderer *r, const CwbSnapshot *snapshot, size_t b,
                         const float body_rgba[4], const CwbOverlayOptions *options)
{
  CwbFluidSurfaceMesh m;
  if (!cwb_render_fluid_surface (r->fluid_surfaces, snapshot, b, options,
                                 r->overlays.particle_scale, body_rgba, &m))
    return;
  for (size_t t = 0; t < 3 * m.n_triangles; t++)
    {
      uint32_t k = m.triangles[t];
      MeshVertex v;
      for (int i = 0; i < 3; i++)
        {
          v.position[i] = (float) m.positions[3 * k + i];
          v.normal[i] = (float) m.normals[3 * k + i];
          v.color[i] = m.colors != NULL ? m.colors[3 * k + i] : body_rgba[i];
        }
      v.color[3] = body_rgba[3];
      g_array_append_val (r->mesh, v);
    }
}

static void
append_body (CwbRenderer *r, const CwbSnapshot *snapshot, const CwbOverlayOptions *options,
             size_t b, float opacity)
{
  const CwbSnapshotBody *g = &snapshot->bodies[b];
  float rgba[4];
  cwb_render_body_color (b, g->fixed, rgba);
  rgba[3] = opacity;
  if (g->kind == CWB_GEOMETRY_PARTICLES)
    {
      if (options->particle_style == CWB_PARTICLES_SURFACE)
        append_particle_surface (r, snapshot, b, rgba, options);
      else
        append_particles (r, g, rgba, options);
      return;
    }
  const uint32_t *triangles = g_bytes_get_data (g->triangles, NULL);
  for (size_t t = 0; t < g->n_triangles; t++)
    {
      const double *p[3];
      for (int k = 0; k < 3; k++)
        p[k] = &g->positions[3 * triangles[3 * t + k]];
      append_triangle (r, p, rgba);
    }
}

static int
farther_first (gconstpointer x, gconstpointer y)
{
  double a = ((const BodyDepth *) x)->distance, b = ((const BodyDepth *) y)->distance;
  return (a < b) - (a > b);
}

/* The opaque bodies, then the translucent ones from the farthest to the nearest (each
 * blended over what lies behind it); hidden bodies not at all. The overlays are built first:
 * particles take their colours' scale from them. */
static void
build_meshes (CwbRenderer *r, const CwbSnapshot *snapshot, const CwbOverlayOptions *options,
              const double eye[3])
{
  g_array_set_size (r->mesh, 0);
  g_array_set_size (r->order, 0);
  for (size_t b = 0; b < snapshot->n_bodies; b++)
    {
      const CwbSnapshotBody *g = &snapshot->bodies[b];
      double opacity = cwb_render_body_opacity (options, g->name);
      gboolean drawn = (g->kind == CWB_GEOMETRY_SURFACE && g->triangles != NULL)
                       || (g->kind == CWB_GEOMETRY_PARTICLES && g->radii != NULL);
      if (!drawn || opacity <= 0)
        continue;
      if (opacity >= 1)
        {
          append_body (r, snapshot, options, b, 1);
          continue;
        }
      double lo[3], hi[3], centre[3], arm[3];
      if (!cwb_snapshot_body_bounds (g, lo, hi))
        continue;
      cwb_v3_add (centre, lo, hi);
      cwb_v3_scale (centre, centre, 0.5);
      cwb_v3_sub (arm, centre, eye);
      BodyDepth depth = { b, cwb_v3_norm (arm) };
      g_array_append_val (r->order, depth);
    }
  r->opaque_vertices = r->mesh->len;
  g_array_sort (r->order, farther_first);
  for (guint k = 0; k < r->order->len; k++)
    {
      size_t b = g_array_index (r->order, BodyDepth, k).body;
      append_body (r, snapshot, options, b,
                   (float) cwb_render_body_opacity (options, snapshot->bodies[b].name));
    }
}

/* The section plane as (n, -n . p): dot with (x, 1) is negative on the kept side. CWB_SECTION_
 * VIEW faces the camera, so the half nearer the eye is the one removed. */
static gboolean
section_plane (const CwbSnapshot *snapshot, const CwbOverlayOptions *options,
               const double eye[3], const double target[3], float plane[4])
{
  if (options->section == CWB_SECTION_NONE)
    return FALSE;
  double lo[3], hi[3], centre[3], normal[3] = { 0, 0, 0 };
  if (cwb_snapshot_bounds (snapshot, TRUE, lo, hi))
    {
      cwb_v3_add (centre, lo, hi);
      cwb_v3_scale (centre, centre, 0.5);
    }
  else
    cwb_v3_copy (centre, target);
  if (options->section == CWB_SECTION_VIEW)
    {
      cwb_v3_sub (normal, eye, target);
      cwb_v3_normalize (normal);
    }
  else
    normal[options->section - CWB_SECTION_X] = 1;
  double point[3];
  cwb_v3_copy (point, centre);
  cwb_v3_axpy (point, options->section_offset, normal);
  /* Kept where n . x < n . p: the plane's value -(n . x - n . p) is positive there. */
  for (int k = 0; k < 3; k++)
    plane[k] = (float) -normal[k];
  plane[3] = (float) cwb_v3_dot (normal, point);
  return TRUE;
}

static void
upload (GLuint vbo, const GArray *data)
{
  glBindBuffer (GL_ARRAY_BUFFER, vbo);
  glBufferData (GL_ARRAY_BUFFER,
                (GLsizeiptr) data->len * (GLsizeiptr) g_array_get_element_size ((GArray *) data),
                data->data, GL_STREAM_DRAW);
}

void
cwb_render_frame (CwbRenderer *r, const CwbSnapshot *snapshot, const CwbCamera *camera,
                  const CwbOverlayOptions *options, int width, int height)
{
  float view_projection[16];
  double eye[3];
  cwb_render_camera_matrices (camera, (double) width / MAX (height, 1), view_projection, eye);

  glViewport (0, 0, width, height);
  glClearColor (0.93f, 0.94f, 0.96f, 1);
  glClear (GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable (GL_DEPTH_TEST);
  glDisable (GL_CULL_FACE);

  cwb_render_overlay_build (&r->overlays, snapshot, options);
  build_meshes (r, snapshot, options, eye);
  glUseProgram (r->mesh_program);
  glUniformMatrix4fv (r->mesh_view_projection, 1, GL_FALSE, view_projection);
  /* Light from the eye's side and above, so the faces the user sees are lit. */
  double light[3];
  cwb_v3_sub (light, eye, camera->target);
  light[2] += camera->distance;
  glUniform3f (r->mesh_light, (float) light[0], (float) light[1], (float) light[2]);
  float plane[4] = { 0, 0, 0, 1 };   /* without a section: positive everywhere */
  gboolean cut = section_plane (snapshot, options, eye, camera->target, plane);
  glUniform4fv (r->mesh_clip_plane, 1, plane);
  glUniform1i (r->mesh_mark_inside, cut);
  glEnable (GL_CLIP_DISTANCE0);
  upload (r->mesh_vbo, r->mesh);
  glBindVertexArray (r->mesh_vao);
  glEnable (GL_POLYGON_OFFSET_FILL);
  glPolygonOffset (1, 1);   /* wireframe and contact lines win the depth test on faces */
  glDrawArrays (GL_TRIANGLES, 0, (GLsizei) r->opaque_vertices);
  glDisable (GL_POLYGON_OFFSET_FILL);
  /* The section cuts bodies only; the line shader writes no clip distance. */
  glDisable (GL_CLIP_DISTANCE0);

  glUseProgram (r->line_program);
  glUniformMatrix4fv (r->line_view_projection, 1, GL_FALSE, view_projection);
  upload (r->line_vbo, r->overlays.lines);
  glBindVertexArray (r->line_vao);
  glDrawArrays (GL_LINES, 0, (GLsizei) r->overlays.lines->len);
  /* Translucent bodies (x-ray, or made so) over the lines, far to near, then the translucent
   * cones and elements, none writing depth, so that what lies behind shows through. */
  glEnable (GL_BLEND);
  glBlendFunc (GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask (GL_FALSE);
  if (r->mesh->len > r->opaque_vertices)
    {
      glEnable (GL_CLIP_DISTANCE0);
      glUseProgram (r->mesh_program);
      glBindVertexArray (r->mesh_vao);
      glDrawArrays (GL_TRIANGLES, (GLint) r->opaque_vertices,
                    (GLsizei) (r->mesh->len - r->opaque_vertices));
      glUseProgram (r->line_program);
      glDisable (GL_CLIP_DISTANCE0);
    }
  upload (r->tri_vbo, r->overlays.triangles);
  glBindVertexArray (r->tri_vao);
  glDrawArrays (GL_TRIANGLES, 0, (GLsizei) r->overlays.triangles->len);
  glDepthMask (GL_TRUE);
  glDisable (GL_BLEND);
  glBindVertexArray (0);
  glUseProgram (0);
}

const CwbOverlayGeometry *
cwb_render_last_overlays (const CwbRenderer *renderer)
{
  return &renderer->overlays;
}

guint8 *
cwb_render_read_pixels (int width, int height)
{
  size_t row = 4 * (size_t) width;
  guint8 *pixels = g_malloc (row * (size_t) height);
  g_autofree guint8 *bottom_up = g_malloc (row * (size_t) height);
  glPixelStorei (GL_PACK_ALIGNMENT, 1);
  glReadPixels (0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up);
  for (int y = 0; y < height; y++)
    memcpy (pixels + row * (size_t) y, bottom_up + row * (size_t) (height - 1 - y), row);
  return pixels;
}

/* Particle bodies drawn as the surface around their particles (fluid_surfaces.h). */
#include "fluid_surfaces.h"

#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "particle_fields.h"
#include "particle_surface.h"

const char *const cwb_render_particle_style_names[CWB_RENDER_PARTICLE_STYLE_COUNT] = {
  "particles", "surface",
};

/* The radii the drawn surface is built with, in the particles' own. ldi builds its surface
 * with the particles' radii (a kernel support of one spacing): it follows every particle of
 * the free surface and reads as a rough skin. Drawn with twice the radii (a support of two
 * spacings, averaging over two layers) the surface is smooth as water is, lying about 0.4 of
 * a spacing beyond ldi's (a lattice block of 6^3 is drawn as a cube of 6.74 spacings,
 * tests/render/test_fluid_surfaces.c); a lone droplet shows at twice its size. */
#define RADIUS_SCALE 2.0

/* One particle body's surface and what it was built from. */
typedef struct BodySurface {
  ParticleSurface surface;
  gboolean initialised;
  guint64 world_serial;
  GArray *built_from;   /* double, the particles' positions of the last build */
  GArray *radii;        /* double per particle: the radii the surface is built with */
  GArray *normals;      /* double, 3 per vertex */
  GArray *colors;       /* float, 3 per vertex */
  guint64 builds;
} BodySurface;

struct CwbFluidSurfaces {
  GArray *bodies;       /* BodySurface per snapshot body index, grown on demand */
};

static void
body_surface_clear (gpointer data)
{
  BodySurface *b = data;
  if (!b->initialised)
    return;
  particle_surface_clear (&b->surface);
  g_array_unref (b->built_from);
  g_array_unref (b->radii);
  g_array_unref (b->normals);
  g_array_unref (b->colors);
  memset (b, 0, sizeof *b);
}

CwbFluidSurfaces *
cwb_render_fluid_surfaces_new (void)
{
  CwbFluidSurfaces *surfaces = g_new0 (CwbFluidSurfaces, 1);
  surfaces->bodies = g_array_new (FALSE, TRUE, sizeof (BodySurface));
  g_array_set_clear_func (surfaces->bodies, body_surface_clear);
  return surfaces;
}

void
cwb_render_fluid_surfaces_free (CwbFluidSurfaces *surfaces)
{
  if (surfaces == NULL)
    return;
  g_array_unref (surfaces->bodies);
  g_free (surfaces);
}

/* TRUE when the particles are where they were at b's last build (of the same world). */
static gboolean
unmoved (const BodySurface *b, const CwbSnapshot *snapshot, const CwbSnapshotBody *g)
{
  return b->builds > 0 && b->world_serial == snapshot->world_serial
         && b->built_from->len == 3 * g->n_points
         && memcmp (b->built_from->data, g->positions, 3 * g->n_points * sizeof (double)) == 0;
}

/* Vertex normals: the field's gradient direction, p_v - xbar(p_v) over its length (phi =
 * |x - xbar| - rbar with the weights' own variation left out), which is the build's offset
 * o_v; |o_v| is rbar at a vertex (phi = 0 there), never 0. Radial on a lone particle's
 * sphere, and smooth where the triangles are slivers (a vertex kept off a grid node where
 * the field is 0 there, particle_surface.c's EDGE_CLAMP), whose own normals point anywhere. */
static void
vertex_normals (BodySurface *b)
{
  size_t n_vertices = particle_surface_n_vertices (&b->surface);
  g_array_set_size (b->normals, 3 * n_vertices);
  double *normals = (double *) b->normals->data;
  memcpy (normals, b->surface.offsets->data, 3 * n_vertices * sizeof (double));
  for (size_t v = 0; v < n_vertices; v++)
    cwb_v3_normalize (&normals[3 * v]);
}

/* Each vertex's colour: its weights' mean of the particles' values (those the model knows),
 * coloured at `scale`; the body's own where no particle under it has a value. */
static void
vertex_colors (BodySurface *b, const CwbSnapshotBody *g, CwbParticleField field, double scale,
               const float own[3])
{
  size_t n_vertices = particle_surface_n_vertices (&b->surface);
  g_array_set_size (b->colors, 3 * n_vertices);
  float *colors = (float *) b->colors->data;
  const uint32_t *start = (const uint32_t *) b->surface.weight_start->data;
  const ParticleSurfaceWeight *w = (const ParticleSurfaceWeight *) b->surface.weights->data;
  for (size_t v = 0; v < n_vertices; v++)
    {
      double sum = 0, weight = 0;
      for (uint32_t k = start[v]; k < start[v + 1]; k++)
        {
          double value = cwb_render_particle_value (field, g, w[k].particle);
          if (isfinite (value))
            {
              sum += w[k].w * value;
              weight += w[k].w;
            }
        }
      float rgba[4] = { own[0], own[1], own[2], 1 };
      if (weight > 0)
        cwb_render_particle_color (field, sum / weight, scale, rgba);
      memcpy (&colors[3 * v], rgba, 3 * sizeof (float));
    }
}

gboolean
cwb_render_fluid_surface (CwbFluidSurfaces *surfaces, const CwbSnapshot *snapshot, size_t body,
                          const CwbOverlayOptions *options, double scale,
                          const float body_rgba[4], CwbFluidSurfaceMesh *mesh)
{
  const CwbSnapshotBody *g = &snapshot->bodies[body];
  if (g->kind != CWB_GEOMETRY_PARTICLES || g->radii == NULL)
    return FALSE;
  if (surfaces->bodies->len <= body)
    g_array_set_size (surfaces->bodies, body + 1);
  BodySurface *b = &g_array_index (surfaces->bodies, BodySurface, body);
  if (!b->initialised)
    {
      particle_surface_init (&b->surface);
      b->built_from = g_array_new (FALSE, FALSE, sizeof (double));
      b->radii = g_array_new (FALSE, FALSE, sizeof (double));
      b->normals = g_array_new (FALSE, FALSE, sizeof (double));
      b->colors = g_array_new (FALSE, FALSE, sizeof (float));
      b->initialised = TRUE;
    }
  if (!unmoved (b, snapshot, g))
    {
      const double *radii = g_bytes_get_data (g->radii, NULL);
      g_array_set_size (b->radii, g->n_points);
      for (size_t i = 0; i < g->n_points; i++)
        g_array_index (b->radii, double, i) = RADIUS_SCALE * radii[i];
      CwbGeometry particles = {
        .struct_size = sizeof particles,
        .kind = CWB_GEOMETRY_PARTICLES,
        .body = (uint32_t) body,
        .n_points = g->n_points,
        .positions = g->positions,
        .velocities = g->velocities,
        .radii = (const double *) b->radii->data,
      };
      gint64 start = g_get_monotonic_time ();
      particle_surface_build (&b->surface, &particles);
      vertex_normals (b);
      g_debug ("surface of body '%s': %zu particles, %zu triangles, built in %.1f ms", g->name,
               g->n_points, particle_surface_n_triangles (&b->surface),
               1e-3 * (double) (g_get_monotonic_time () - start));
      g_array_set_size (b->built_from, 0);
      g_array_append_vals (b->built_from, g->positions, 3 * g->n_points);
      b->world_serial = snapshot->world_serial;
      b->builds++;
    }
  gboolean colored = options->elements && cwb_render_particles_colorable (g);
  if (colored)
    vertex_colors (b, g, options->particle_field, scale, body_rgba);
  *mesh = (CwbFluidSurfaceMesh) {
    .n_vertices = particle_surface_n_vertices (&b->surface),
    .n_triangles = particle_surface_n_triangles (&b->surface),
    .positions = (const double *) b->surface.positions->data,
    .normals = (const double *) b->normals->data,
    .triangles = (const uint32_t *) b->surface.triangles->data,
    .colors = colored ? (const float *) b->colors->data : NULL,
    .builds = b->builds,
  };
  return TRUE;
}

/* Particle bodies drawn as the surface around their particles (fluid_surfaces.h), no GL: the
 * surface's shape against closed forms (a lone particle's sphere, a lattice block's box), its
 * normals, its colours from the particles' node values, and when it is rebuilt. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "fluid_surfaces.h"
#include "particle_fields.h"

/* The drawn surface is built with twice the particles' radii (fluid_surfaces.c). */
#define DRAWN_RADIUS_SCALE 2.0

typedef struct Body {
  CwbSnapshot snapshot;
  CwbSnapshotBody body;
} Body;

/* A snapshot of one particle body of n particles at x, all of radius r. */
static Body *
body_new (const double *x, size_t n, double r)
{
  Body *b = g_new0 (Body, 1);
  b->body.name = g_strdup ("water");
  b->body.kind = CWB_GEOMETRY_PARTICLES;
  b->body.n_points = n;
  b->body.positions = g_memdup2 (x, 3 * n * sizeof (double));
  b->body.velocities = g_new0 (double, 3 * n);
  double *radii = g_new (double, n);
  for (size_t i = 0; i < n; i++)
    radii[i] = r;
  b->body.radii = g_bytes_new_take (radii, n * sizeof (double));
  b->snapshot.world_serial = 1;
  b->snapshot.n_bodies = 1;
  b->snapshot.bodies = &b->body;
  return b;
}

static void
body_free (Body *b)
{
  g_free (b->body.name);
  g_free (b->body.positions);
  g_free (b->body.velocities);
  g_bytes_unref (b->body.radii);
  g_free (b->body.node_density_error);
  g_free (b->body.node_pressure);
  g_free (b->body.node_speed);
  g_free (b);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Body, body_free)

/* A cubic lattice of n^3 points of spacing s centred on the origin, into a new array. */
static double *
lattice (int n, double s)
{
  double *x = g_new (double, 3 * n * n * n), *p = x;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        {
          *p++ = (i - 0.5 * (n - 1)) * s;
          *p++ = (j - 0.5 * (n - 1)) * s;
          *p++ = (k - 0.5 * (n - 1)) * s;
        }
  return x;
}

/* A snapshot of one body of n^3 particles of radius s / 2 on that lattice (a fluid at rest). */
static Body *
lattice_body (int n, double s)
{
  g_autofree double *x = lattice (n, s);
  return body_new (x, (size_t) n * n * n, s / 2);
}

static const CwbOverlayOptions plain = { .vector_scale = 1, .xray_opacity = 0.3 };
static const float body_rgba[4] = { 0.2f, 0.6f, 0.7f, 1 };

/* Closed and consistently oriented: every directed edge of a triangle appears once, and its
 * reverse once (in the triangle beside it). */
static void
assert_closed (const CwbFluidSurfaceMesh *m)
{
  g_autoptr (GHashTable) edges = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *keys = g_new (gint64, 3 * m->n_triangles);
  for (size_t t = 0; t < m->n_triangles; t++)
    for (int c = 0; c < 3; c++)
      {
        gint64 *key = &keys[3 * t + c];
        *key = ((gint64) m->triangles[3 * t + c] << 32) | m->triangles[3 * t + (c + 1) % 3];
        g_assert_false (g_hash_table_contains (edges, key));
        g_hash_table_add (edges, key);
      }
  for (size_t e = 0; e < 3 * m->n_triangles; e++)
    {
      gint64 reverse = ((keys[e] & 0xffffffff) << 32) | (keys[e] >> 32);
      g_assert_true (g_hash_table_contains (edges, &reverse));
    }
}

/* The volume the surface encloses (divergence theorem: positive when outward). */
static double
enclosed_volume (const CwbFluidSurfaceMesh *m)
{
  double volume = 0;
  for (size_t t = 0; t < m->n_triangles; t++)
    {
      const uint32_t *v = &m->triangles[3 * t];
      double cross[3];
      cwb_v3_cross (cross, &m->positions[3 * v[1]], &m->positions[3 * v[2]]);
      volume += cwb_v3_dot (&m->positions[3 * v[0]], cross) / 6;
    }
  return volume;
}

/* A lone particle of radius r: a closed surface inscribed in the sphere of the drawn radius
 * 2 r, and outward. The field is |x - x_0| - 2 r exactly, sampled on a grid of cell 2 r with
 * the particle on a node (the grid is anchored to the particles' box), so the six nodes one
 * cell away lie on the sphere and a vertex may fall anywhere on the chord between two of
 * them: every vertex at between cos 45 degrees (a face diagonal's midpoint, 0.707) and 1
 * times 2 r (the linear interpolation of a convex field never places a vertex outside it;
 * the build keeps a vertex 1e-3 of a cell off a node, hence 1.002; measured 0.79 to 1.001).
 * Every normal is radial, the field's gradient (to 1e-9, round-off of a weighted mean). */
static void
test_lone_particle (void)
{
  const double r = 0.005, centre[3] = { 0.1, -0.2, 0.3 };
  g_autoptr (Body) b = body_new (centre, 1, r);
  g_autoptr (CwbFluidSurfaces) surfaces = cwb_render_fluid_surfaces_new ();
  CwbFluidSurfaceMesh m;
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &plain, 1, body_rgba, &m));
  assert_closed (&m);
  g_assert_cmpuint (m.n_triangles, >, 8);
  g_assert_null (m.colors);
  double nearest = INFINITY, farthest = 0, worst_cos = 1;
  for (size_t v = 0; v < m.n_vertices; v++)
    {
      double d[3];
      cwb_v3_sub (d, &m.positions[3 * v], centre);
      double distance = cwb_v3_norm (d);
      nearest = MIN (nearest, distance / (DRAWN_RADIUS_SCALE * r));
      farthest = MAX (farthest, distance / (DRAWN_RADIUS_SCALE * r));
      g_assert_cmpfloat_with_epsilon (cwb_v3_norm (&m.normals[3 * v]), 1, 1e-12);
      worst_cos = MIN (worst_cos, cwb_v3_dot (d, &m.normals[3 * v]) / distance);
    }
  g_test_message ("lone particle: %zu triangles, vertices at %.3f to %.3f of 2 r, normals' "
                  "cosine with the radius at least 1 - %.1e", m.n_triangles, nearest, farthest,
                  1 - worst_cos);
  g_assert_cmpfloat (nearest, >, G_SQRT2 / 2);
  g_assert_cmpfloat (farthest, <, 1.002);
  g_assert_cmpfloat (worst_cos, >, 1 - 1e-9);
}

/* A block of 6^3 particles of radius s / 2 on a lattice of spacing s (a fluid at rest): one
 * closed, outward surface around it, enclosing more than the lattice's box (6 s)^3, whose
 * faces lie half a spacing beyond the outer particles' centres, and less than the box a
 * spacing larger on every side, (8 s)^3: the drawn surface, averaging over two layers, lies
 * a little beyond the lattice's box (fluid_surfaces.c; measured a cube of 6.74 s). Drawn
 * with the particles' own radii it would enclose about the lattice's box alone (ldi's
 * surface: 1.16 % under it for a block of 10^3, tests/ldi/test_ldi_particle_surface.c) and
 * fail the lower bound. */
static void
test_block (void)
{
  const int n = 6;
  const double s = 0.01;
  g_autoptr (Body) b = lattice_body (n, s);
  g_autoptr (CwbFluidSurfaces) surfaces = cwb_render_fluid_surfaces_new ();
  CwbFluidSurfaceMesh m;
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &plain, 1, body_rgba, &m));
  assert_closed (&m);
  double volume = enclosed_volume (&m), box = pow (n * s, 3), larger = pow ((n + 2) * s, 3);
  double side = cbrt (volume) / s;
  g_test_message ("block of %d^3: %zu triangles, volume %.4e m^3, a cube of %.2f spacings "
                  "(the lattice's box: %d)", n, m.n_triangles, volume, side, n);
  g_assert_cmpfloat (volume, >, box);
  g_assert_cmpfloat (volume, <, larger);
}

/* Colours: none with the elements overlay off; with it on, every vertex of a block whose
 * particles all have density error 0.004 takes that value's colour at the scale (0.01)
 * exactly, whatever its weights (they sum to 1); where the model has no value (NAN), the
 * body's own colour. */
static void
test_colors (void)
{
  const int n = 4;
  const double s = 0.01;
  size_t count = (size_t) n * n * n;
  g_autoptr (Body) b = lattice_body (n, s);
  b->body.n_node_values = count;
  b->body.node_density_error = g_new (double, count);
  b->body.node_pressure = g_new (double, count);
  b->body.node_speed = g_new (double, count);
  for (size_t i = 0; i < count; i++)
    {
      b->body.node_density_error[i] = 0.004;
      b->body.node_pressure[i] = NAN;
      b->body.node_speed[i] = 0;
    }
  g_autoptr (CwbFluidSurfaces) surfaces = cwb_render_fluid_surfaces_new ();
  CwbFluidSurfaceMesh m;
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &plain, 0.01, body_rgba,
                                           &m));
  g_assert_null (m.colors);
  CwbOverlayOptions o = plain;
  o.elements = TRUE;
  o.particle_field = CWB_PARTICLE_DENSITY;
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &o, 0.01, body_rgba, &m));
  g_assert_nonnull (m.colors);
  float expected[4];
  cwb_render_particle_color (CWB_PARTICLE_DENSITY, 0.004, 0.01, expected);
  for (size_t v = 0; v < m.n_vertices; v++)
    for (int c = 0; c < 3; c++)
      g_assert_cmpfloat_with_epsilon (m.colors[3 * v + c], expected[c], 1e-6);
  o.particle_field = CWB_PARTICLE_PRESSURE;
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &o, 0.01, body_rgba, &m));
  for (size_t v = 0; v < m.n_vertices; v++)
    for (int c = 0; c < 3; c++)
      g_assert_cmpfloat (m.colors[3 * v + c], ==, body_rgba[c]);
}

/* A surface is built once per state: the same snapshot drawn again (a paused view) reuses
 * it; a particle moved, or the same positions from another world (a rebuilt scene), builds
 * it anew; a rigid body's geometry has none. */
static void
test_rebuild (void)
{
  const int n = 3;
  const double s = 0.01;
  g_autoptr (Body) b = lattice_body (n, s);
  g_autoptr (CwbFluidSurfaces) surfaces = cwb_render_fluid_surfaces_new ();
  CwbFluidSurfaceMesh m;
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &plain, 1, body_rgba, &m));
  g_assert_cmpuint (m.builds, ==, 1);
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &plain, 1, body_rgba, &m));
  g_assert_cmpuint (m.builds, ==, 1);
  b->body.positions[5] += 1e-4;
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &plain, 1, body_rgba, &m));
  g_assert_cmpuint (m.builds, ==, 2);
  b->snapshot.world_serial = 2;
  g_assert_true (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &plain, 1, body_rgba, &m));
  g_assert_cmpuint (m.builds, ==, 3);
  b->body.kind = CWB_GEOMETRY_SURFACE;
  g_assert_false (cwb_render_fluid_surface (surfaces, &b->snapshot, 0, &plain, 1, body_rgba,
                                            &m));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/fluid-surface/lone-particle", test_lone_particle);
  g_test_add_func ("/render/fluid-surface/block", test_block);
  g_test_add_func ("/render/fluid-surface/colors", test_colors);
  g_test_add_func ("/render/fluid-surface/rebuild", test_rebuild);
  return g_test_run ();
}

/* The surface the ldi model reconstructs around a fluid's particles
 * (plugins/common/particle-surface): closed, manifold and outward, as the LDI admits it
 * (ldi_surface_check); its volume against the lattice's and a lone particle's ball; its
 * vertices' weights over the particles (the J the ldi model maps its rows through); its size
 * growing with the surface, not the volume. */
#include <math.h>

#include "ldi.h"
#include "particle_surface.h"

/* A lattice of nx x ny x nz particles of spacing s (radius s / 2) from `corner` (the first
 * particle's centre), with every velocity `velocity`. */
typedef struct Particles {
  CwbGeometry geometry;
  GArray *positions, *velocities, *radii;
} Particles;

static void
particles_free (Particles *p)
{
  g_array_unref (p->positions);
  g_array_unref (p->velocities);
  g_array_unref (p->radii);
  g_free (p);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Particles, particles_free)

static Particles *
particles_new (void)
{
  Particles *p = g_new0 (Particles, 1);
  p->positions = g_array_new (FALSE, FALSE, sizeof (double));
  p->velocities = g_array_new (FALSE, FALSE, sizeof (double));
  p->radii = g_array_new (FALSE, FALSE, sizeof (double));
  return p;
}

static void
particles_add (Particles *p, const double x[3], double radius, const double velocity[3])
{
  g_array_append_vals (p->positions, x, 3);
  g_array_append_vals (p->velocities, velocity, 3);
  g_array_append_val (p->radii, radius);
}

/* The geometry over the arrays as they are now. */
static const CwbGeometry *
particles_geometry (Particles *p)
{
  p->geometry = (CwbGeometry) {
    .struct_size = sizeof (CwbGeometry),
    .kind = CWB_GEOMETRY_PARTICLES,
    .n_points = p->radii->len,
    .positions = (double *) (void *) p->positions->data,
    .velocities = (double *) (void *) p->velocities->data,
    .radii = (const double *) (void *) p->radii->data,
  };
  return &p->geometry;
}

static Particles *
lattice (int nx, int ny, int nz, double s, const double corner[3], const double velocity[3])
{
  Particles *p = particles_new ();
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++)
        {
          double x[3] = { corner[0] + i * s, corner[1] + j * s, corner[2] + k * s };
          particles_add (p, x, s / 2, velocity);
        }
  return p;
}

/* The LDI's admission check on the surface: every edge shared by two triangles that
 * traverse it in opposite directions. */
static void
assert_closed (const ParticleSurface *surface)
{
  LdiSurface view = {
    .positions = (const double *) (void *) surface->positions->data,
    .n_vertices = particle_surface_n_vertices (surface),
    .triangles = (const uint32_t *) (void *) surface->triangles->data,
    .n_triangles = particle_surface_n_triangles (surface),
  };
  g_autoptr (GError) error = NULL;
  gboolean closed = ldi_surface_check (&view, 0, &error);
  g_assert_no_error (error);
  g_assert_true (closed);
}

/* The enclosed volume by the divergence theorem, sum over triangles of p0 . (p1 x p2) / 6:
 * positive for outward triangles. */
static double
enclosed_volume (const ParticleSurface *surface)
{
  const double *x = (const double *) (void *) surface->positions->data;
  const uint32_t *t = (const uint32_t *) (void *) surface->triangles->data;
  double volume = 0;
  for (size_t k = 0; k < particle_surface_n_triangles (surface); k++)
    {
      double c[3];
      cwb_v3_cross (c, &x[3 * t[3 * k + 1]], &x[3 * t[3 * k + 2]]);
      volume += cwb_v3_dot (&x[3 * t[3 * k]], c) / 6;
    }
  return volume;
}

/* A block of 10 x 10 x 10 particles of 1 cm: a closed, outward surface whose volume is the
 * lattice's own, (10 s)^3 (each particle's cube of side s), within 3 %: the surface rounds
 * the block's 12 edges and 8 corners to the particles' radius (a loss of (1 - pi / 4) r^2
 * per unit of edge and (1 - pi / 6) s^3 over the corners: 0.6 % here) and dips by a few
 * hundredths of a spacing between the face particles, where the field's centre xbar lags
 * the point (2 % of the volume for 0.03 s over the faces' 0.6 s of the 10 s); the grid's
 * linear interpolation of phi adds less than that along the flat faces. */
static void
test_block (void)
{
  const double s = 0.01, zero[3] = { 0 }, corner[3] = { 0.2, -0.1, 0.03 };
  g_autoptr (Particles) p = lattice (10, 10, 10, s, corner, zero);
  ParticleSurface surface;
  particle_surface_init (&surface);
  particle_surface_build (&surface, particles_geometry (p));
  assert_closed (&surface);
  double volume = enclosed_volume (&surface), expected = pow (10 * s, 3);
  g_test_message ("block of 1000: %zu vertices, %zu triangles, volume %.4e m^3 for %.4e "
                  "(%+.2f %%), cell %.4f m", particle_surface_n_vertices (&surface),
                  particle_surface_n_triangles (&surface), volume, expected,
                  100 * (volume / expected - 1), surface.cell_size);
  g_assert_cmpfloat (fabs (volume / expected - 1), <, 0.03);
  /* The surface lies around the lattice's boundary, half a spacing out: every vertex within
   * the box grown by s / 2, and none deeper than s / 2 inside it. */
  const double *x = (const double *) (void *) surface.positions->data;
  double outmost = 0;
  for (size_t v = 0; v < particle_surface_n_vertices (&surface); v++)
    {
      double out = -INFINITY;
      for (int k = 0; k < 3; k++)
        {
          double lo = corner[k] - s / 2, hi = corner[k] + 9 * s + s / 2;
          out = MAX (out, MAX (lo - x[3 * v + k], x[3 * v + k] - hi));
        }
      outmost = MAX (outmost, fabs (out));
    }
  g_test_message ("farthest vertex from the lattice's box: %.4f s", outmost / s);
  g_assert_cmpfloat (outmost, <, 0.5 * s);
  particle_surface_clear (&surface);
}

/* A lone particle: a closed surface whose vertices lie on its sphere within 10 % of its
 * radius, and whose volume is between 0.4 and 1 times the ball's. phi = |x - x_0| - r is
 * exact, but the vertices come from its linear interpolation along grid edges of a cell r
 * (up to sqrt 3 r long): exact along an edge through the centre, a chord's error off it
 * (8.9 % measured at worst); and the surface is a polyhedron of some 50 faces inscribed in
 * the ball, whose flat faces cut the caps between its vertices (a cube inscribed in a ball
 * holds 37 % of it, an octahedron 32 %). A surface about the support R = 2 r instead of r
 * would have 8 times the volume, an inverted one a negative volume. */
static void
test_single (void)
{
  const double r = 0.005, zero[3] = { 0 }, centre[3] = { 0.31, 0.02, -0.4 };
  g_autoptr (Particles) p = particles_new ();
  particles_add (p, centre, r, zero);
  ParticleSurface surface;
  particle_surface_init (&surface);
  particle_surface_build (&surface, particles_geometry (p));
  assert_closed (&surface);
  const double *x = (const double *) (void *) surface.positions->data;
  double worst = 0;
  for (size_t v = 0; v < particle_surface_n_vertices (&surface); v++)
    {
      double d[3];
      cwb_v3_sub (d, &x[3 * v], centre);
      worst = MAX (worst, fabs (cwb_v3_norm (d) / r - 1));
    }
  double volume = enclosed_volume (&surface), ball = 4.0 / 3.0 * G_PI * r * r * r;
  g_test_message ("lone particle: %zu vertices, %zu triangles, radius within %.2f %%, volume "
                  "%+.1f %% of the ball's", particle_surface_n_vertices (&surface),
                  particle_surface_n_triangles (&surface), 100 * worst,
                  100 * (volume / ball - 1));
  g_assert_cmpuint (particle_surface_n_triangles (&surface), >, 8);
  g_assert_cmpfloat (worst, <, 0.10);
  g_assert_cmpfloat (volume / ball, >, 0.4);
  g_assert_cmpfloat (volume / ball, <, 1.0);
  particle_surface_clear (&surface);
}

/* A jittered block with a few droplets, as a splashing fluid is: every vertex's weights are
 * positive and sum to 1 (to 1e-12, round-off of a few terms), its velocity is the particles'
 * common velocity (to 1e-12 m/s), and a rigid translation of the particles by d moves every
 * vertex by d, the same vertices and triangles in the same order (to 1e-12 m: the positions'
 * round-off at 1 m from the origin is 1e-16, the grid's interpolation multiplies it by at
 * most a cell over a phi difference, ~1e3). The surface stays closed through all of it. */
static void
test_weights (void)
{
  const double s = 0.01, velocity[3] = { 0.3, -1.2, 0.05 }, corner[3] = { 0.5, 0.2, 0.1 };
  g_autoptr (Particles) p = lattice (7, 5, 6, s, corner, velocity);
  GRand *rand = g_rand_new_with_seed (21);
  for (guint i = 0; i < p->positions->len; i++)
    g_array_index (p->positions, double, i) += g_rand_double_range (rand, -0.2, 0.2) * s;
  for (int k = 0; k < 4; k++)
    {
      double x[3] = { corner[0] + g_rand_double_range (rand, -3, 10) * s,
                      corner[1] + g_rand_double_range (rand, -3, 8) * s,
                      corner[2] + g_rand_double_range (rand, 7, 10) * s };
      particles_add (p, x, s / 2, velocity);
    }
  g_rand_free (rand);
  ParticleSurface a, b;
  particle_surface_init (&a);
  particle_surface_init (&b);
  particle_surface_build (&a, particles_geometry (p));
  assert_closed (&a);
  size_t n = particle_surface_n_vertices (&a);
  for (size_t v = 0; v < n; v++)
    {
      double sum = 0;
      uint32_t first = g_array_index (a.weight_start, uint32_t, v);
      uint32_t end = g_array_index (a.weight_start, uint32_t, v + 1);
      g_assert_cmpuint (end, >, first);
      for (uint32_t k = first; k < end; k++)
        {
          const ParticleSurfaceWeight *w = &g_array_index (a.weights, ParticleSurfaceWeight, k);
          g_assert_cmpfloat (w->w, >, 0);
          g_assert_cmpuint (w->particle, <, p->radii->len);
          sum += w->w;
        }
      g_assert_cmpfloat (fabs (sum - 1), <, 1e-12);
      double dv[3];
      cwb_v3_sub (dv, &g_array_index (a.velocities, double, 3 * v), velocity);
      g_assert_cmpfloat (cwb_v3_norm (dv), <, 1e-12);
    }
  const double d[3] = { 0.0123, -0.4471, 0.0917 };
  for (guint i = 0; i < p->positions->len; i++)
    g_array_index (p->positions, double, i) += d[i % 3];
  particle_surface_build (&b, particles_geometry (p));
  g_assert_cmpuint (particle_surface_n_vertices (&b), ==, n);
  g_assert_cmpuint (particle_surface_n_triangles (&b), ==, particle_surface_n_triangles (&a));
  double worst = 0;
  for (size_t v = 0; v < n; v++)
    for (int k = 0; k < 3; k++)
      worst = MAX (worst, fabs (g_array_index (b.positions, double, 3 * v + k)
                                - g_array_index (a.positions, double, 3 * v + k) - d[k]));
  for (guint t = 0; t < a.triangles->len; t++)
    g_assert_cmpuint (g_array_index (a.triangles, uint32_t, t), ==,
                      g_array_index (b.triangles, uint32_t, t));
  g_test_message ("%zu vertices over %u particles, %.2f weights a vertex; translated by d: "
                  "vertices off by %.1e m at most", n, p->radii->len,
                  (double) a.weights->len / n, worst);
  g_assert_cmpfloat (worst, <, 1e-12);
  particle_surface_clear (&a);
  particle_surface_clear (&b);
}

/* Cubic blocks of n^3 particles, n = 8, 16, 32: the triangles grow as the surface, n^2, not
 * as the volume, n^3. Doubling n multiplies them by 4 less the edges' share (a n^2 + b n:
 * between 3.5 and 4.2), where a volume's growth would give 8. */
static void
test_linear (void)
{
  const double s = 0.01, zero[3] = { 0 };
  size_t triangles[3];
  for (int k = 0; k < 3; k++)
    {
      int n = 8 << k;
      g_autoptr (Particles) p = lattice (n, n, n, s, zero, zero);
      ParticleSurface surface;
      particle_surface_init (&surface);
      gint64 start = g_get_monotonic_time ();
      particle_surface_build (&surface, particles_geometry (p));
      double ms = (g_get_monotonic_time () - start) / 1e3;
      triangles[k] = particle_surface_n_triangles (&surface);
      g_test_message ("block of %d^3: %zu triangles, %.2f per particle of the faces, "
                      "%.1f ms", n, triangles[k], triangles[k] / (6.0 * n * n), ms);
      if (k > 0)
        {
          double ratio = (double) triangles[k] / triangles[k - 1];
          g_test_message ("  x %.3f from n = %d", ratio, n / 2);
          g_assert_cmpfloat (ratio, >, 3.5);
          g_assert_cmpfloat (ratio, <, 4.2);
        }
      particle_surface_clear (&surface);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/particle-surface/block", test_block);
  g_test_add_func ("/ldi/particle-surface/single", test_single);
  g_test_add_func ("/ldi/particle-surface/weights", test_weights);
  g_test_add_func ("/ldi/particle-surface/linear", test_linear);
  return g_test_run ();
}

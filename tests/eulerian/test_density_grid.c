/* The Eulerian layer's densities (plugins/contact-eulerian/density_grid.c) against closed
 * forms: a sampled body integrates to its volume, its gradient's magnitude to its surface's
 * area (the coarea formula: the integral of |grad rho| over space is the mean area of the
 * level sets of rho, the surface's own for a ramp one step thick), and the density moves
 * continuously with the body. */
#include <math.h>

#include "density_grid.h"

/* A closed, outward-oriented mesh built by the test. */
typedef struct Mesh {
  GArray *x;      /* double, 3 per vertex */
  GArray *tri;    /* uint32_t, 3 per triangle */
} Mesh;

static Mesh
mesh_new (void)
{
  return (Mesh) { g_array_new (FALSE, FALSE, sizeof (double)),
                  g_array_new (FALSE, FALSE, sizeof (uint32_t)) };
}

static void
mesh_clear (Mesh *m)
{
  g_array_unref (m->x);
  g_array_unref (m->tri);
}

static uint32_t
add_vertex (Mesh *m, double x, double y, double z)
{
  double v[3] = { x, y, z };
  g_array_append_vals (m->x, v, 3);
  return m->x->len / 3 - 1;
}

static void
add_triangle (Mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
  uint32_t t[3] = { a, b, c };
  g_array_append_vals (m->tri, t, 3);
}

/* A box of half-sizes e, turned by `angle` about the axis (1, 1, 1) / sqrt 3, centred at c. */
static Mesh
box_mesh (const double c[3], const double e[3], double angle)
{
  Mesh m = mesh_new ();
  double rotvec[3] = { angle / sqrt (3), angle / sqrt (3), angle / sqrt (3) }, q[4], rot[9];
  cwb_quat_from_rotvec (q, rotvec);
  cwb_quat_to_m3 (rot, q);
  for (int k = 0; k < 8; k++)
    {
      double local[3] = { (k & 1 ? 1 : -1) * e[0], (k & 2 ? 1 : -1) * e[1],
                          (k & 4 ? 1 : -1) * e[2] },
             world[3];
      cwb_m3_mul_v3 (world, rot, local);
      add_vertex (&m, c[0] + world[0], c[1] + world[1], c[2] + world[2]);
    }
  /* Faces as quads (counter-clockwise seen from outside), two triangles each. */
  static const uint32_t quads[6][4] = { { 0, 2, 3, 1 }, { 4, 5, 7, 6 }, { 0, 1, 5, 4 },
                                        { 2, 6, 7, 3 }, { 0, 4, 6, 2 }, { 1, 3, 7, 5 } };
  for (int f = 0; f < 6; f++)
    {
      add_triangle (&m, quads[f][0], quads[f][1], quads[f][2]);
      add_triangle (&m, quads[f][0], quads[f][2], quads[f][3]);
    }
  return m;
}

static Mesh
tetrahedron_mesh (void)
{
  Mesh m = mesh_new ();
  add_vertex (&m, 0.013, 0.021, 0.017);
  add_vertex (&m, 1.013, 0.021, 0.017);
  add_vertex (&m, 0.013, 1.021, 0.017);
  add_vertex (&m, 0.013, 0.021, 1.017);
  add_triangle (&m, 0, 2, 1);
  add_triangle (&m, 0, 1, 3);
  add_triangle (&m, 0, 3, 2);
  add_triangle (&m, 1, 2, 3);
  return m;
}

/* A UV sphere of `rings` latitude bands and 2 rings longitude segments. */
static Mesh
sphere_mesh (const double c[3], double radius, int rings)
{
  Mesh m = mesh_new ();
  int segments = 2 * rings;
  uint32_t south = add_vertex (&m, c[0], c[1], c[2] - radius);
  for (int r = 1; r < rings; r++)
    {
      double theta = G_PI * r / rings - G_PI / 2;
      for (int s = 0; s < segments; s++)
        {
          double phi = 2 * G_PI * s / segments;
          add_vertex (&m, c[0] + radius * cos (theta) * cos (phi),
                      c[1] + radius * cos (theta) * sin (phi), c[2] + radius * sin (theta));
        }
    }
  uint32_t north = add_vertex (&m, c[0], c[1], c[2] + radius);
  for (int s = 0; s < segments; s++)
    {
      uint32_t s1 = (uint32_t) ((s + 1) % segments);
      add_triangle (&m, south, 1 + s1, 1 + (uint32_t) s);
      for (int r = 1; r + 1 < rings; r++)
        {
          uint32_t a = 1 + (uint32_t) ((r - 1) * segments + s),
                   b = 1 + (uint32_t) ((r - 1) * segments) + s1, c2 = a + (uint32_t) segments,
                   d = b + (uint32_t) segments;
          add_triangle (&m, a, b, d);
          add_triangle (&m, a, d, c2);
        }
      uint32_t top = 1 + (uint32_t) ((rings - 2) * segments);
      add_triangle (&m, top + (uint32_t) s, top + s1, north);
    }
  return m;
}

/* The mesh's volume (divergence theorem) and area. */
static void
mesh_measures (const Mesh *m, double *volume, double *area)
{
  const double *x = (const double *) m->x->data;
  const uint32_t *t = (const uint32_t *) m->tri->data;
  *volume = *area = 0;
  for (guint k = 0; k < m->tri->len / 3; k++)
    {
      const double *a = &x[3 * t[3 * k]], *b = &x[3 * t[3 * k + 1]], *c = &x[3 * t[3 * k + 2]];
      double ab[3], ac[3], n[3];
      cwb_v3_sub (ab, b, a);
      cwb_v3_sub (ac, c, a);
      cwb_v3_cross (n, ab, ac);
      *volume += cwb_v3_dot (a, n) / 6;
      *area += cwb_v3_norm (n) / 2;
    }
}

static void
sample (BodyDensity *d, const Mesh *m, double step)
{
  const double *x = (const double *) m->x->data;
  double lo[3], hi[3];
  for (int c = 0; c < 3; c++)
    lo[c] = hi[c] = x[c];
  for (guint k = 1; k < m->x->len / 3; k++)
    for (int c = 0; c < 3; c++)
      {
        lo[c] = MIN (lo[c], x[3 * k + c]);
        hi[c] = MAX (hi[c], x[3 * k + c]);
      }
  GridBox box;
  g_assert_true (grid_box_cover (&box, step, lo, hi, 2, 1u << 24));
  body_density_sample_surface (d, &box, x, (const uint32_t *) m->tri->data, m->tri->len / 3);
}

/* |sum rho h^3 - V| / V at three steps. The ramp is symmetric about the surface, so a plane
 * loses on the outside what it gains inside: what is left comes from edges and corners
 * (where the ramps of two faces overlap: O(h^2) per unit length of edge) and from the
 * surface's curvature (the band is thicker outside a convex surface than inside: O(h^2 / R)
 * per unit area), so the error falls as h^2. Measured: 0.06 h^2 per metre of edge (the
 * turned box), 0.12 (the tetrahedron's sharper edges), 0.04 h^2 per unit of area / R (the
 * sphere). Bound taken: h^2 / 4 (edges + area / R), and a fall by at least 3 from each
 * halving of h (4 for an exact h^2; the lattice's aliasing makes it irregular: 3.4 to 5.1
 * measured). */
static void
check_volume (const Mesh *m, double size, double edge_length, double curvature_area,
              const char *name)
{
  double volume, area;
  mesh_measures (m, &volume, &area);
  g_autoptr (BodyDensity) d = body_density_new ();
  double last = INFINITY;
  for (int level = 0; level < 3; level++)
    {
      double h = size / (8 << level);
      sample (d, m, h);
      double error = fabs (body_density_volume (d) - volume) / volume;
      double bound = 0.25 * h * h * (edge_length + curvature_area) / volume;
      g_test_message ("%s, h = %g: volume %.6g against %.6g, relative error %.2e (bound %.2e)",
                      name, h, body_density_volume (d), volume, error, bound);
      g_assert_cmpfloat (error, <=, bound);
      if (level > 0 && last > 1e-9)
        g_assert_cmpfloat (error, <=, last / 3);
      last = error;
    }
}

static void
test_volumes (void)
{
  double c[3] = { 0.0123, -0.0371, 0.0211 }, e[3] = { 0.5, 0.3, 0.2 };
  Mesh box = box_mesh (c, e, 0.3);
  check_volume (&box, 1.0, 4 * (1.0 + 0.6 + 0.4), 0, "turned box");
  mesh_clear (&box);
  Mesh tet = tetrahedron_mesh ();
  check_volume (&tet, 1.0, 3 + 3 * sqrt (2), 0, "tetrahedron");
  mesh_clear (&tet);
  double radius = 0.5;
  Mesh ball = sphere_mesh (c, radius, 24);
  check_volume (&ball, 1.0, 0, 4 * G_PI * radius, "sphere");
  mesh_clear (&ball);
}

/* Coarea: the integral of |grad rho| over space is the integral over t in (0, 1) of the area
 * of the level set rho = t; for a ramp across the surface those are the surface's offsets by
 * up to half a step, of the surface's area to O(h / R). The central differences read the
 * ramp over two steps, not one, and so see half its slope at each of twice the points. The
 * gradient's inward radial part (the flux of the normal through the band) integrates to the
 * area: measured to 0.09 and 0.04 % at h = R / 16 and R / 32; bound h / (4 R) (1.6 and
 * 0.8 %). Where the ramp is clamped (0 outside, 1 inside) within one of a point's
 * differences, that axis sees less of the slope, which turns the gradient towards the
 * lattice's axes by a share that does not shrink with h: its magnitude integrates to 2.0 %
 * more than the area at both steps, its radial part is 98.0 % of it. Bounds: 3 % (the
 * measured 2.0 % and the mesh's facets). */
static void
check_gradient_area (double h_of_radius)
{
  double c[3] = { 0.011, 0.023, -0.017 }, radius = 0.5, volume, area;
  Mesh ball = sphere_mesh (c, radius, 48);
  mesh_measures (&ball, &volume, &area);
  g_autoptr (BodyDensity) d = body_density_new ();
  double h = radius * h_of_radius;
  sample (d, &ball, h);
  double sum = 0, aligned = 0;
  for (int k = 0; k < d->box.n[2]; k++)
    for (int j = 0; j < d->box.n[1]; j++)
      for (int i = 0; i < d->box.n[0]; i++)
        {
          double g[3], r[3], radial[3];
          body_density_gradient (d, i, j, k, g);
          double norm = cwb_v3_norm (g);
          if (norm == 0)
            continue;
          sum += norm * h * h * h;
          grid_box_point (&d->box, i, j, k, r);
          cwb_v3_sub (radial, c, r);
          aligned += cwb_v3_dot (g, radial) / cwb_v3_norm (radial) * h * h * h;
        }
  g_test_message ("h = R x %g: integral of |grad rho| %.5g, of its inward radial part %.5g, "
                  "area %.5g", h_of_radius, sum, aligned, area);
  g_assert_cmpfloat (fabs (aligned - area) / area, <, h_of_radius / 4);
  /* The gradient points into the body, along the normal to within the clamping's turn. */
  g_assert_cmpfloat (fabs (sum - area) / area, <, 0.03);
  g_assert_cmpfloat (aligned / sum, >, 0.97);
  mesh_clear (&ball);
}

static void
test_gradient_area (void)
{
  check_gradient_area (1.0 / 16);
  check_gradient_area (1.0 / 32);
}

/* The density is a continuous function of the body's position: a move by delta changes no
 * point's density by more than delta / h (the ramp's slope), where scan conversion alone
 * would flip whole points between 0 and 1. */
static void
test_continuity (void)
{
  double c[3] = { 0.0123, -0.0371, 0.0211 }, e[3] = { 0.4, 0.3, 0.25 };
  double h = 0.05, delta = 1e-4;
  g_autoptr (BodyDensity) before = body_density_new ();
  g_autoptr (BodyDensity) after = body_density_new ();
  Mesh m = box_mesh (c, e, 0.7);
  GridBox box;
  double lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 };
  g_assert_true (grid_box_cover (&box, h, lo, hi, 0, 1u << 24));
  const uint32_t *tri = (const uint32_t *) m.tri->data;
  body_density_sample_surface (before, &box, (const double *) m.x->data, tri, m.tri->len / 3);
  double *x = (double *) m.x->data;
  for (guint k = 0; k < m.x->len / 3; k++)
    {
      x[3 * k] += delta * 0.6;
      x[3 * k + 1] += delta * 0.8;
    }
  body_density_sample_surface (after, &box, x, tri, m.tri->len / 3);
  double largest = 0;
  for (size_t p = 0; p < grid_box_points (&box); p++)
    largest = MAX (largest, fabs (g_array_index (after->rho, double, p)
                                  - g_array_index (before->rho, double, p)));
  g_test_message ("largest change %.3g for a move of %.3g (h %.3g)", largest, delta, h);
  /* 1e-12: the round-off of distances of order 1 m. */
  g_assert_cmpfloat (largest, <=, delta / h + 1e-12);
  g_assert_cmpfloat (largest, >, 0);
  mesh_clear (&m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eulerian/density/volumes", test_volumes);
  g_test_add_func ("/eulerian/density/gradient-area", test_gradient_area);
  g_test_add_func ("/eulerian/density/continuity", test_continuity);
  return g_test_run ();
}

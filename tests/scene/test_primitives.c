/* Primitive shapes: closed, consistently and outwardly oriented, welded, with the exact
 * volume of the inscribed polyhedron, converging to the analytic volume.
 *
 * Reference (a discrete Pappus theorem). A round primitive turns a profile polygon P (in the
 * half-plane s >= 0 of (s, z)) about z in n steps, vertices on the exact surface. Inside
 * the sector |phi - phi_k| <= pi/n the surface is P scaled radially by
 * c(phi) = cos(pi/n) / cos(phi - phi_k), so with s the radius measured in P,
 *   V = int_P s ds dz * sum_k int c(phi)^2 dphi = n sin(2 pi / n) int_P s ds dz,
 * since int_{-pi/n}^{pi/n} cos^2(pi/n) / cos^2(u) du = 2 cos^2(pi/n) tan(pi/n) = sin(2 pi/n).
 * The exact solid of revolution has 2 pi int s ds dz, so the polygonal-circle factor is
 *   f(n) = n sin(2 pi / n) / (2 pi)   (the area ratio of an inscribed n-gon), and
 *   1 - f(n) <= (2 pi / n)^2 / 6      (sin x >= x - x^3 / 6).
 * int_P s ds dz = sum over P's edges of (z2 - z1)(s1^2 + s1 s2 + s2^2) / 6 (Green's theorem
 * on the edge s^2/2 dz; edges on the axis add nothing).
 * The profile's own chords lose a little more: an arc of angular step d lies outside its
 * chord by at most r (1 - cos(d/2)), so P contains the shape's profile shrunk by cos(d/2),
 * and int_P s ds dz >= cos^3(d/2) times the exact one. Hence for the sphere (d = pi/m, m =
 * n/2 bands) f(n) cos^3(pi/n) <= V/V_exact <= 1; the cylinder is exactly f(n); the torus
 * (an n-gon tube, centroid on the centre circle) exactly f(n)^2.
 *
 * The rectangle is the one open primitive: a flat nx x ny grid whose triangles tile the
 * w x h rectangle exactly, so their areas sum to w h up to round-off. */
#include <math.h>

#include "mesh.h"

/* Sums of a few thousand terms of similar size: relative rounding error well below 1e-12;
 * 1e-10 leaves margin and still catches any wrong vertex (a misplaced vertex changes the
 * volume by far more). */
#define EXACT_VOLUME_RTOL 1e-10

static double
profile_integral (const double *s, const double *z, size_t n, gboolean loop)
{
  double sum = 0;
  for (size_t j = 0; j + (loop ? 0 : 1) < n; j++)
    {
      size_t j1 = (j + 1) % n;
      sum += (z[j1] - z[j]) * (s[j] * s[j] + s[j] * s[j1] + s[j1] * s[j1]) / 6;
    }
  return fabs (sum);
}

static double
f_polygon (int n)
{
  return n * sin (2 * G_PI / n) / (2 * G_PI);
}

static CwbMesh *
make (CwbShapeDesc shape)
{
  g_autoptr (GError) error = NULL;
  CwbMesh *mesh = cwb_mesh_from_shape (&shape, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (mesh);
  return mesh;
}

/* Closed, consistent, outward, and already welded (shared vertices). */
static void
assert_well_formed (CwbMesh *mesh)
{
  g_assert_true (mesh->closed);
  g_assert_cmpuint (mesh->inconsistent_edges, ==, 0);
  g_assert_null (cwb_mesh_describe_problems (mesh));
  g_assert_cmpfloat (cwb_mesh_volume (mesh), >, 0);
  size_t n = cwb_mesh_n_vertices (mesh);
  double min[3], max[3], d[3];
  cwb_mesh_bounds (mesh, min, max);
  for (int k = 0; k < 3; k++)
    d[k] = max[k] - min[k];
  cwb_mesh_weld (mesh, 1e-9 * sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
  g_assert_cmpuint (cwb_mesh_n_vertices (mesh), ==, n);
  /* Euler characteristic: 2 for sphere-like shapes, 0 for the torus; checked by callers. */
}

static long
euler (const CwbMesh *mesh)
{
  long f = (long) cwb_mesh_n_triangles (mesh);
  return (long) cwb_mesh_n_vertices (mesh) - 3 * f / 2 + f;
}

static void
assert_rel (double value, double expected, double rtol)
{
  if (!(fabs (value - expected) <= rtol * fabs (expected)))
    g_error ("%.17g differs from %.17g by more than %g relative", value, expected, rtol);
}

static void
test_box (void)
{
  g_autoptr (CwbMesh) mesh = make ((CwbShapeDesc) { .kind = CWB_SHAPE_BOX,
                                                     .size = { 0.2, 0.3, 0.5 } });
  assert_well_formed (mesh);
  g_assert_cmpint (euler (mesh), ==, 2);
  g_assert_cmpuint (cwb_mesh_n_vertices (mesh), ==, 8);
  assert_rel (cwb_mesh_volume (mesh), 0.2 * 0.3 * 0.5, EXACT_VOLUME_RTOL);
}

static void
test_ground (void)
{
  g_autoptr (CwbMesh) mesh = make ((CwbShapeDesc) { .kind = CWB_SHAPE_GROUND,
                                                     .size = { 20, 20, 1 } });
  assert_well_formed (mesh);
  double min[3], max[3];
  cwb_mesh_bounds (mesh, min, max);
  g_assert_cmpfloat (max[2], ==, 0);   /* top face at the body's z = 0 */
  g_assert_cmpfloat (min[2], ==, -1);
  assert_rel (cwb_mesh_volume (mesh), 400, EXACT_VOLUME_RTOL);
}

static const int resolutions[] = { 3, 4, 6, 8, 12, 16, 24, 32, 64, 128 };

static void
test_cylinder (void)
{
  double r = 0.3, h = 0.7, exact = G_PI * r * r * h, previous_error = INFINITY;
  for (size_t i = 0; i < G_N_ELEMENTS (resolutions); i++)
    {
      int n = resolutions[i];
      g_autoptr (CwbMesh) mesh = make ((CwbShapeDesc) { .kind = CWB_SHAPE_CYLINDER,
                                                         .radius = r, .height = h,
                                                         .resolution = n });
      assert_well_formed (mesh);
      g_assert_cmpint (euler (mesh), ==, 2);
      double v = cwb_mesh_volume (mesh);
      assert_rel (v, exact * f_polygon (n), EXACT_VOLUME_RTOL);
      double error = 1 - v / exact;
      g_assert_cmpfloat (error, >=, 0);
      g_assert_cmpfloat (error, <=, pow (2 * G_PI / n, 2) / 6);
      g_assert_cmpfloat (error, <, previous_error);
      previous_error = error;
    }
}

static void
test_sphere (void)
{
  double r = 0.25, exact = 4.0 / 3.0 * G_PI * r * r * r, previous_error = INFINITY;
  for (size_t i = 0; i < G_N_ELEMENTS (resolutions); i++)
    {
      int n = resolutions[i], m = MAX (2, n / 2);
      g_autoptr (CwbMesh) mesh = make ((CwbShapeDesc) { .kind = CWB_SHAPE_SPHERE, .radius = r,
                                                         .resolution = n });
      assert_well_formed (mesh);
      g_assert_cmpint (euler (mesh), ==, 2);
      g_assert_cmpuint (cwb_mesh_n_vertices (mesh), ==, 2 + (size_t) (m - 1) * n);
      g_autofree double *s = g_new (double, m + 1);
      g_autofree double *z = g_new (double, m + 1);
      for (int j = 0; j <= m; j++)
        {
          s[j] = r * sin (G_PI * j / m);
          z[j] = r * cos (G_PI * j / m);
        }
      s[0] = s[m] = 0;
      double v = cwb_mesh_volume (mesh);
      assert_rel (v, n * sin (2 * G_PI / n) * profile_integral (s, z, m + 1, FALSE),
                  EXACT_VOLUME_RTOL);
      double ratio = v / exact;
      g_assert_cmpfloat (ratio, <=, 1);
      g_assert_cmpfloat (ratio, >=, (1 - pow (2 * G_PI / n, 2) / 6) * pow (cos (G_PI / (2 * m)), 3));
      g_assert_cmpfloat (1 - ratio, <, previous_error);
      previous_error = 1 - ratio;
    }
}

static void
test_capsule (void)
{
  double r = 0.1, h = 0.3, exact = G_PI * r * r * h + 4.0 / 3.0 * G_PI * r * r * r;
  double previous_error = INFINITY;
  for (size_t i = 0; i < G_N_ELEMENTS (resolutions); i++)
    {
      int n = resolutions[i], q = MAX (1, n / 4);
      g_autoptr (CwbMesh) mesh = make ((CwbShapeDesc) { .kind = CWB_SHAPE_CAPSULE, .radius = r,
                                                         .height = h, .resolution = n });
      assert_well_formed (mesh);
      g_assert_cmpint (euler (mesh), ==, 2);
      double ratio = cwb_mesh_volume (mesh) / exact;
      g_assert_cmpfloat (ratio, <=, 1);
      g_assert_cmpfloat (ratio, >=, f_polygon (n) * pow (cos (G_PI / (4 * q)), 3));
      g_assert_cmpfloat (1 - ratio, <, previous_error);
      previous_error = 1 - ratio;
    }
  /* Height 0: a sphere, with the two equators merged into one ring. */
  g_autoptr (CwbMesh) ball = make ((CwbShapeDesc) { .kind = CWB_SHAPE_CAPSULE, .radius = r,
                                                     .height = 0, .resolution = 16 });
  assert_well_formed (ball);
}

static void
test_torus (void)
{
  double big = 0.5, small = 0.1, exact = 2 * G_PI * G_PI * big * small * small;
  double previous_error = INFINITY;
  for (size_t i = 0; i < G_N_ELEMENTS (resolutions); i++)
    {
      int n = resolutions[i];
      g_autoptr (CwbMesh) mesh = make ((CwbShapeDesc) { .kind = CWB_SHAPE_TORUS,
                                                         .major_radius = big,
                                                         .minor_radius = small,
                                                         .resolution = n });
      assert_well_formed (mesh);
      g_assert_cmpint (euler (mesh), ==, 0);
      double v = cwb_mesh_volume (mesh);
      assert_rel (v, exact * f_polygon (n) * f_polygon (n), EXACT_VOLUME_RTOL);
      g_assert_cmpfloat (1 - v / exact, <, previous_error);
      previous_error = 1 - v / exact;
    }
}

/* Sums of at most a few thousand triangle areas, each exact to a few ulps: 1e-12 relative is
 * round-off with margin; a missing or overlapping triangle changes the sum by at least one
 * cell, 1/(2 nx ny) of it, far more. */
#define AREA_RTOL 1e-12

/* The rectangle's grid, triangles and orientation against its closed forms, for square,
 * wide, tall and very thin rectangles (whose shorter side gets the minimum of one cell). */
static void
test_rectangle (void)
{
  static const struct { double w, h; int n, nx, ny; } cases[] = {
    { 1, 1, 1, 1, 1 },          /* one cell, two triangles */
    { 2, 1, 16, 16, 8 },
    { 0.3, 0.7, 5, 2, 5 },      /* round(5 * 3 / 7) = round(2.14) */
    { 0.5, 0.5, 7, 7, 7 },      /* odd: one more cell of one diagonal than the other */
    { 10, 0.01, 4, 4, 1 },      /* round(0.004) = 0, raised to one cell */
    { 1.5, 1, 3, 3, 2 },        /* round(2) */
  };
  for (size_t c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      double w = cases[c].w, h = cases[c].h;
      CwbShapeDesc shape = { .kind = CWB_SHAPE_RECTANGLE, .size = { w, h, 0 },
                             .resolution = cases[c].n };
      int nx, ny;
      cwb_primitive_rectangle_cells (&shape, &nx, &ny);
      g_assert_cmpint (nx, ==, cases[c].nx);
      g_assert_cmpint (ny, ==, cases[c].ny);
      g_autoptr (CwbMesh) mesh = make (shape);

      g_assert_cmpuint (cwb_mesh_n_vertices (mesh), ==, (size_t) (nx + 1) * (ny + 1));
      g_assert_cmpuint (cwb_mesh_n_triangles (mesh), ==, 2 * (size_t) nx * ny);
      g_assert_cmpuint (cwb_primitive_triangle_count (&shape), ==, cwb_mesh_n_triangles (mesh));
      /* Open, with the grid's border as its only boundary, manifold, consistent. */
      g_assert_false (mesh->closed);
      g_assert_cmpuint (mesh->boundary_edges, ==, 2 * (size_t) (nx + ny));
      g_assert_cmpuint (mesh->nonmanifold_edges, ==, 0);
      g_assert_cmpuint (mesh->inconsistent_edges, ==, 0);
      /* A disc: V - E + F = 1, each inner edge shared by two triangles, each border edge
       * by one, so E = (3 F + boundary) / 2. */
      long faces = (long) cwb_mesh_n_triangles (mesh);
      long edges = (3 * faces + (long) mesh->boundary_edges) / 2;
      g_assert_cmpint ((long) cwb_mesh_n_vertices (mesh) - edges + faces, ==, 1);

      double min[3], max[3];
      cwb_mesh_bounds (mesh, min, max);
      g_assert_cmpfloat (min[0], ==, -w / 2);
      g_assert_cmpfloat (max[0], ==, w / 2);
      g_assert_cmpfloat (min[1], ==, -h / 2);
      g_assert_cmpfloat (max[1], ==, h / 2);
      g_assert_cmpfloat (min[2], ==, 0);
      g_assert_cmpfloat (max[2], ==, 0);

      /* Every normal is +z (counter-clockwise seen from +z); the areas sum to w h; the
       * diagonals (each triangle's longest edge) split evenly between the two directions,
       * one cell's pair apart when nx ny is odd. */
      const double *v = (const double *) mesh->vertices->data;
      const uint32_t *t = (const uint32_t *) mesh->triangles->data;
      double area = 0;
      long rising = 0, falling = 0;
      for (size_t f = 0; f < cwb_mesh_n_triangles (mesh); f++)
        {
          const double *p[3] = { &v[3 * t[3 * f]], &v[3 * t[3 * f + 1]], &v[3 * t[3 * f + 2]] };
          double e1[2] = { p[1][0] - p[0][0], p[1][1] - p[0][1] };
          double e2[2] = { p[2][0] - p[0][0], p[2][1] - p[0][1] };
          double twice_area = e1[0] * e2[1] - e1[1] * e2[0];   /* z of e1 x e2; x, y are 0 */
          g_assert_cmpfloat (twice_area, >, 0);
          area += twice_area / 2;
          double longest = 0, dx = 0, dy = 0;
          for (int k = 0; k < 3; k++)
            {
              double ex = p[(k + 1) % 3][0] - p[k][0], ey = p[(k + 1) % 3][1] - p[k][1];
              if (ex * ex + ey * ey > longest)
                longest = ex * ex + ey * ey, dx = ex, dy = ey;
            }
          if (dx * dy > 0)
            rising++;
          else
            falling++;
        }
      assert_rel (area, w * h, AREA_RTOL);
      g_assert_cmpint (labs (rising - falling), <=, (nx * ny) % 2 == 0 ? 0 : 2);

      /* Welded: no two vertices at one place. */
      size_t n = cwb_mesh_n_vertices (mesh);
      cwb_mesh_weld (mesh, 1e-9 * hypot (w, h));
      g_assert_cmpuint (cwb_mesh_n_vertices (mesh), ==, n);
    }
}

static void
test_mesh_shape_relative (void)
{
  CwbShapeDesc shape = { .kind = CWB_SHAPE_MESH, .mesh_file = (char *) "data/cube.obj",
                         .scale = 3.0 };
  g_autofree char *dir = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "tests", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_from_shape (&shape, dir, &error);
  g_assert_no_error (error);
  assert_rel (cwb_mesh_volume (mesh), 27, EXACT_VOLUME_RTOL);
}

/* The triangle count the scene checks against its limit before building (issue 17) is the
 * count the build makes, for every kind, odd and even resolutions, with a capsule of height 0
 * (one shared equator) among them; and in closed form for the torus (2 n^2) and the sphere
 * (n segments, m = n / 2 bands: two pole fans of n and 2 n (m - 2) between). */
static void
test_triangle_count (void)
{
  const CwbShapeKind kinds[] = { CWB_SHAPE_SPHERE, CWB_SHAPE_CYLINDER, CWB_SHAPE_CAPSULE,
                                 CWB_SHAPE_TORUS, CWB_SHAPE_BOX, CWB_SHAPE_GROUND,
                                 CWB_SHAPE_RECTANGLE };
  const int odd_and_even[] = { 3, 4, 7, 24, 33 };
  for (size_t k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (size_t r = 0; r < G_N_ELEMENTS (odd_and_even); r++)
      for (int flat = 0; flat < 2; flat++)
        {
          CwbShapeDesc shape = { .kind = kinds[k], .radius = 0.5, .height = flat ? 0 : 1,
                                 .major_radius = 1, .minor_radius = 0.25,
                                 .size = { 1, 2, 3 }, .resolution = odd_and_even[r] };
          if (kinds[k] == CWB_SHAPE_CYLINDER && flat)
            continue;   /* a cylinder needs a height */
          g_autoptr (CwbMesh) mesh = make (shape);
          g_assert_cmpuint (cwb_primitive_triangle_count (&shape), ==,
                            cwb_mesh_n_triangles (mesh));
        }
  CwbShapeDesc torus = { .kind = CWB_SHAPE_TORUS, .major_radius = 1, .minor_radius = 0.25,
                         .resolution = 4096 };
  g_assert_cmpuint (cwb_primitive_triangle_count (&torus), ==, 2ull * 4096 * 4096);
  CwbShapeDesc sphere = { .kind = CWB_SHAPE_SPHERE, .radius = 1, .resolution = 4096 };
  g_assert_cmpuint (cwb_primitive_triangle_count (&sphere), ==,
                    2ull * 4096 + 2ull * 4096 * (2048 - 2));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mesh/primitives/box", test_box);
  g_test_add_func ("/mesh/primitives/ground", test_ground);
  g_test_add_func ("/mesh/primitives/cylinder", test_cylinder);
  g_test_add_func ("/mesh/primitives/sphere", test_sphere);
  g_test_add_func ("/mesh/primitives/capsule", test_capsule);
  g_test_add_func ("/mesh/primitives/torus", test_torus);
  g_test_add_func ("/mesh/primitives/rectangle", test_rectangle);
  g_test_add_func ("/mesh/primitives/mesh-file", test_mesh_shape_relative);
  g_test_add_func ("/mesh/primitives/triangle-count", test_triangle_count);
  return g_test_run ();
}

/* The barycentric mapping's point location (plugins/mappings/barycentric/tet_embedding.c),
 * compiled in directly: coordinates and distances in one tetrahedron against closed forms;
 * the bucket search against brute force over every tetrahedron (containing element, and
 * nearest element for points outside) on an irregular mesh; and coverage of real surfaces,
 * a sphere of about 20 000 triangles and a torus, in the FEM body's tetrahedral grid. */
#include <float.h>

#include "embedded_shape.h"
#include "tet_embedding.h"

/* Sums of four products of coordinates with weights (one of them 1 minus the three others):
 * a few ulps of the terms summed each. 64 ulps leaves a margin over what the tests see and
 * is still about a billion times smaller than what a wrong element or weight would make it
 * (an error of the order of a cell). */
#define ROUNDOFF_ULPS 64.0

/* ---- one tetrahedron ------------------------------------------------------------------ */

/* The corner tetrahedron 0, e_x, e_y, e_z: coordinates (1 - x - y - z, x, y, z) everywhere,
 * distances to its faces and corners in closed form. */
static void
test_single_tet (void)
{
  static const double corners[4][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  const double *x[4] = { corners[0], corners[1], corners[2], corners[3] };
  const double tol = ROUNDOFF_ULPS * DBL_EPSILON;
  const double points[][3] = {
    { 0.1, 0.2, 0.3 },      /* inside */
    { -0.5, 0.2, 0.2 },     /* beyond the face x = 0: distance 0.5 */
    { 1, 1, 1 },            /* beyond the slanted face: (3 - 1) / sqrt 3 */
    { -1, -2, -2 },         /* beyond the corner 0: distance 3 */
  };
  const double distances[] = { 0, 0.5, 2 / sqrt (3), 3 };
  for (size_t i = 0; i < G_N_ELEMENTS (points); i++)
    {
      const double *p = points[i];
      double w[4];
      tet_embedding_barycentric (x, p, w);
      const double expected[4] = { 1 - p[0] - p[1] - p[2], p[0], p[1], p[2] };
      for (int k = 0; k < 4; k++)
        g_assert_cmpfloat_with_epsilon (w[k], expected[k], tol);
      g_assert_cmpfloat_with_epsilon (tet_embedding_distance (x, p), distances[i], tol);
    }
  /* A point on a face is inside: distance exactly 0. */
  const double on_face[3] = { 0, 0.25, 0.25 };
  g_assert_cmpfloat (tet_embedding_distance (x, on_face), ==, 0);
}

/* ---- checks shared by the mesh tests -------------------------------------------------- */

/* Every weight set sums to 1 and reproduces its point, p = sum_k w_k X_k, to round-off;
 * points counted inside have no coordinate below the inside tolerance. Round-off is that of
 * the terms summed: sum_k |w_k| for the weights (1 inside, more for a point extrapolated
 * from an element far away) and sum_k |w_k| |X_k| for the positions. Returns the largest
 * reproduction error relative to its terms. */
static double
check_embedded (const double *nodes, const double *points, size_t n,
                const TetEmbeddedPoint *emb, const TetEmbeddingStats *stats)
{
  double worst = 0;
  size_t below = 0;
  for (size_t i = 0; i < n; i++)
    {
      double sum = 0, sum_abs = 0, p[3] = { 0, 0, 0 }, terms[3] = { 0, 0, 0 }, m = INFINITY;
      for (int k = 0; k < 4; k++)
        {
          double w = emb[i].weights[k];
          const double *x = &nodes[3 * emb[i].nodes[k]];
          sum += w;
          sum_abs += fabs (w);
          cwb_v3_axpy (p, w, x);
          for (int a = 0; a < 3; a++)
            terms[a] += fabs (w * x[a]);
          m = fmin (m, w);
        }
      g_assert_cmpfloat_with_epsilon (sum, 1, ROUNDOFF_ULPS * DBL_EPSILON * sum_abs);
      for (int a = 0; a < 3; a++)
        {
          double err = fabs (p[a] - points[3 * i + a]);
          double magnitude = fmax (terms[a], fabs (points[3 * i + a]));
          g_assert_cmpfloat (err, <=, ROUNDOFF_ULPS * DBL_EPSILON * magnitude);
          if (magnitude > 0)
            worst = fmax (worst, err / magnitude);
        }
      below += m < -TET_EMBEDDING_INSIDE_TOLERANCE;
    }
  /* Exactly the points sent to the nearest element have a coordinate below tolerance. */
  g_assert_cmpuint (below, ==, stats->n_outside);
  return worst;
}

/* The sphere's grid with every node moved at random by up to `jitter` cells along each
 * axis: a conforming mesh of tetrahedra of assorted shapes and sizes, not aligned with the
 * buckets. A Kuhn tetrahedron's heights are h and h / sqrt 2, so moving its corners by at
 * most 0.1 cell per axis (0.17 in all) leaves every one well positive, which is checked (at
 * least a tenth of the volume h^3 / 6 left). */
static double *
jittered_nodes (const EmbeddedShape *shape, double jitter, guint32 seed)
{
  const TetGrid *g = shape->grid;
  size_t n = tet_grid_n_nodes (g);
  double *nodes = g_memdup2 (embedded_shape_nodes (shape), 3 * n * sizeof (double));
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  for (size_t i = 0; i < 3 * n; i++)
    nodes[i] += g_rand_double_range (rand, -jitter, jitter) * g->cell[0];
  const uint32_t *tets = shape->info.tetrahedra;
  for (size_t t = 0; t < shape->info.n_tetrahedra; t++)
    {
      double e1[3], e2[3], e3[3], c[3];
      const double *x0 = &nodes[3 * tets[4 * t]];
      cwb_v3_sub (e1, &nodes[3 * tets[4 * t + 1]], x0);
      cwb_v3_sub (e2, &nodes[3 * tets[4 * t + 2]], x0);
      cwb_v3_sub (e3, &nodes[3 * tets[4 * t + 3]], x0);
      cwb_v3_cross (c, e2, e3);
      g_assert_cmpfloat (cwb_v3_dot (e1, c), >, 0.1 * g->cell[0] * g->cell[0] * g->cell[0]);
    }
  return nodes;
}

static void
corners_of (const double *nodes, const uint32_t *tets, size_t t, const double *x[4])
{
  for (int k = 0; k < 4; k++)
    x[k] = &nodes[3 * tets[4 * t + k]];
}

/* ---- bucket search against brute force ------------------------------------------------ */

/* Embeds the points and checks every one against all the elements: a point some element
 * holds gets an element that holds it; a point no element holds is counted outside and gets
 * an element at exactly the smallest distance over all elements (the search and the brute
 * force call the same distance function, so they agree to the bit). Returns how many were
 * outside. */
static size_t
check_against_brute_force (const double *nodes, size_t n_nodes, const uint32_t *tets,
                           size_t n_tets, const double *points, size_t n)
{
  g_autofree TetEmbeddedPoint *emb = g_new (TetEmbeddedPoint, n);
  g_autofree uint32_t *tet_of = g_new (uint32_t, n);
  TetEmbeddingStats stats;
  g_autoptr (GError) error = NULL;
  g_assert_true (tet_embedding_build (nodes, n_nodes, tets, n_tets, points, n, emb, tet_of,
                                      &stats, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stats.n_flat, ==, 0);

  size_t outside = 0;
  double farthest = 0;
  for (size_t i = 0; i < n; i++)
    {
      const double *p = &points[3 * i];
      double best = INFINITY;
      for (size_t t = 0; t < n_tets; t++)
        {
          const double *x[4];
          corners_of (nodes, tets, t, x);
          best = fmin (best, tet_embedding_distance (x, p));
        }
      const double *x[4];
      corners_of (nodes, tets, tet_of[i], x);
      double w[4], chosen = tet_embedding_distance (x, p);
      g_assert_cmpfloat (chosen, ==, best);
      tet_embedding_barycentric (x, p, w);
      double m = fmin (fmin (w[0], w[1]), fmin (w[2], w[3]));
      if (best == 0)
        g_assert_cmpfloat (m, >=, -TET_EMBEDDING_INSIDE_TOLERANCE);
      else
        {
          outside++;
          farthest = fmax (farthest, best);
        }
      for (int k = 0; k < 4; k++)
        g_assert_cmpuint (emb[i].nodes[k], ==, tets[4 * tet_of[i] + k]);
    }
  g_test_message ("%zu points in and around %zu tetrahedra: %zu outside, the farthest %.3g "
                  "away", n, n_tets, outside, farthest);
  g_assert_cmpuint (stats.n_outside, ==, outside);
  g_assert_cmpfloat (stats.max_outside_distance, ==, farthest);
  /* Outside points reproduce too, from unclamped coordinates. */
  check_embedded (nodes, points, n, emb, &stats);
  return outside;
}

/* n random points in the box [lo - margin, hi + margin]. */
static void
random_points (GRand *rand, const double lo[3], const double hi[3], double margin,
               double *points, size_t n)
{
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++)
      points[3 * i + a] = g_rand_double_range (rand, lo[a] - margin, hi[a] + margin);
}

static void
node_bounds (const double *nodes, size_t n, double lo[3], double hi[3])
{
  for (int a = 0; a < 3; a++)
    {
      lo[a] = INFINITY;
      hi[a] = -INFINITY;
    }
  for (size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++)
      {
        lo[a] = fmin (lo[a], nodes[3 * i + a]);
        hi[a] = fmax (hi[a], nodes[3 * i + a]);
      }
}

/* Random points in and around the jittered sphere grid (up to a cell beyond its bounds),
 * plus a few far away. */
static void
test_brute_force (void)
{
  CwbShapeDesc sphere = embedded_sphere (0.5, 24);
  g_autoptr (EmbeddedShape) shape = embedded_shape_new (&sphere, 6);
  size_t n_nodes = shape->info.n_nodes;
  g_autofree double *nodes = jittered_nodes (shape, 0.1, 11);
  double lo[3], hi[3];
  node_bounds (nodes, n_nodes, lo, hi);
  enum { N_NEAR = 2000, N_FAR = 6, N = N_NEAR + N_FAR };
  double points[3 * N];
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  random_points (rand, lo, hi, shape->grid->cell[0], points, N_NEAR);
  const double far_lo[3] = { -20, -20, -20 }, far_hi[3] = { 20, 20, 20 };
  random_points (rand, far_lo, far_hi, 0, points + 3 * N_NEAR, N_FAR);
  size_t outside = check_against_brute_force (nodes, n_nodes, shape->info.tetrahedra,
                                              shape->info.n_tetrahedra, points, N);
  /* Both kinds well represented. */
  g_assert_cmpuint (outside, >, N / 10);
  g_assert_cmpuint (outside, <, N - N / 10);
}

/* The same grid with one large element far from it (edges of 6 against the grid's 0.17):
 * buckets of the mean element size would number about (15 / 0.17)^3 = 7e5, above the cap
 * of 8 per element, so the buckets grow; the large element is listed in many of them. */
static void
test_brute_force_mixed_sizes (void)
{
  CwbShapeDesc sphere = embedded_sphere (0.5, 24);
  g_autoptr (EmbeddedShape) shape = embedded_shape_new (&sphere, 6);
  size_t n_grid = shape->info.n_nodes, n_tets = shape->info.n_tetrahedra;
  g_autofree double *grid_nodes = jittered_nodes (shape, 0.1, 13);
  g_autofree double *nodes = g_new (double, 3 * (n_grid + 4));
  memcpy (nodes, grid_nodes, 3 * n_grid * sizeof (double));
  const double big[4][3] = { { 8, 8, 8 }, { 14, 8, 8 }, { 8, 14, 8 }, { 8, 8, 14 } };
  memcpy (nodes + 3 * n_grid, big, sizeof big);
  g_autofree uint32_t *tets = g_new (uint32_t, 4 * (n_tets + 1));
  memcpy (tets, shape->info.tetrahedra, 4 * n_tets * sizeof (uint32_t));
  for (int k = 0; k < 4; k++)
    tets[4 * n_tets + k] = (uint32_t) (n_grid + k);

  enum { N_GRID = 1000, N_BIG = 500, N_FAR = 6, N = N_GRID + N_BIG + N_FAR };
  double points[3 * N], lo[3], hi[3];
  g_autoptr (GRand) rand = g_rand_new_with_seed (19);
  node_bounds (grid_nodes, n_grid, lo, hi);
  random_points (rand, lo, hi, shape->grid->cell[0], points, N_GRID);
  node_bounds (nodes + 3 * n_grid, 4, lo, hi);
  random_points (rand, lo, hi, 1, points + 3 * N_GRID, N_BIG);
  const double far_lo[3] = { -20, -20, -20 }, far_hi[3] = { 30, 30, 30 };
  random_points (rand, far_lo, far_hi, 0, points + 3 * (N_GRID + N_BIG), N_FAR);
  size_t outside = check_against_brute_force (nodes, n_grid + 4, tets, n_tets + 1, points, N);
  g_assert_cmpuint (outside, >, N / 10);
  g_assert_cmpuint (outside, <, N - N / 10);
}

/* ---- the mesh's boundary ------------------------------------------------------------- */

/* The grid of a 1 x 0.6 x 0.4 box at 10 cells keeps every cell: its boundary is the box
 * [-0.55, 0.55] x [-0.35, 0.35] x [-0.25, 0.25] (tests/fem). Points pushed out of a face by
 * delta, or out of a corner by delta along each axis, are at distance delta (delta sqrt 3)
 * from the mesh in closed form. Pushed by 1e-15 (a rounding error of the coordinates, 1e-14
 * of the cell) a point still counts as inside; by 1e-9 or more it is outside, and takes an
 * element at exactly that distance. Distances carry the round-off of coordinates of order
 * 1: 64 ulps. */
static void
test_boundary (void)
{
  CwbShapeDesc box = embedded_box (1, 0.6, 0.4);
  g_autoptr (EmbeddedShape) shape = embedded_shape_new (&box, 10);
  const CwbBodyInfo *info = &shape->info;
  g_assert_cmpuint (shape->grid->cells->len, ==, 11 * 7 * 5);
  const double half[3] = { 0.55, 0.35, 0.25 };
  const double deltas[] = { 0, 1e-15, 1e-9, 1e-3, 0.3 };
  enum { PER_DELTA = 40 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (41);
  for (size_t d = 0; d < G_N_ELEMENTS (deltas); d++)
    {
      double delta = deltas[d];
      double points[3 * (PER_DELTA + 1)], expected[PER_DELTA + 1];
      for (int i = 0; i < PER_DELTA; i++)
        {
          /* A random face (axis, side) and a point on it, kept off its edges. */
          int axis = i % 3;
          double side = (i / 3) % 2 == 0 ? -1 : 1;
          for (int a = 0; a < 3; a++)
            points[3 * i + a] = g_rand_double_range (rand, -0.9, 0.9) * half[a];
          points[3 * i + axis] = side * (half[axis] + delta);
          expected[i] = delta;
        }
      for (int a = 0; a < 3; a++)
        points[3 * PER_DELTA + a] = -(half[a] + delta);
      expected[PER_DELTA] = delta * sqrt (3);

      TetEmbeddedPoint emb[PER_DELTA + 1];
      uint32_t tet_of[PER_DELTA + 1];
      TetEmbeddingStats stats;
      g_autoptr (GError) error = NULL;
      g_assert_true (tet_embedding_build (info->rest_nodes, info->n_nodes, info->tetrahedra,
                                          info->n_tetrahedra, points, PER_DELTA + 1, emb,
                                          tet_of, &stats, &error));
      g_assert_no_error (error);
      check_embedded (info->rest_nodes, points, PER_DELTA + 1, emb, &stats);
      gboolean outside = delta >= 1e-9;
      g_assert_cmpuint (stats.n_outside, ==, outside ? PER_DELTA + 1 : 0);
      for (int i = 0; i <= PER_DELTA; i++)
        {
          const double *x[4];
          corners_of (info->rest_nodes, info->tetrahedra, tet_of[i], x);
          double distance = tet_embedding_distance (x, &points[3 * i]);
          g_assert_cmpfloat_with_epsilon (distance, outside ? expected[i] : 0,
                                          ROUNDOFF_ULPS * DBL_EPSILON);
        }
      if (outside)
        g_assert_cmpfloat_with_epsilon (stats.max_outside_distance, delta * sqrt (3),
                                        ROUNDOFF_ULPS * DBL_EPSILON);
    }
}

/* ---- coverage of real surfaces -------------------------------------------------------- */

/* Every vertex of the surface is embedded with weights summing to 1 that reproduce it. The
 * grid keeps every cell the surface touches (closed boxes) and the six Kuhn tetrahedra of a
 * cell fill it, so every vertex lies in some element up to rounding of the order of 1e-16,
 * which the inside tolerance (1e-12) absorbs: none is outside. */
static void
check_coverage (const CwbShapeDesc *desc, int cells, size_t min_triangles)
{
  g_autoptr (EmbeddedShape) shape = embedded_shape_new (desc, cells);
  const CwbBodyInfo *info = &shape->info;
  const CwbSurfaceMesh *s = info->reference_surface;
  g_assert_cmpuint (s->n_triangles, >=, min_triangles);
  g_autofree TetEmbeddedPoint *emb = g_new (TetEmbeddedPoint, s->n_vertices);
  TetEmbeddingStats stats;
  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  g_assert_true (tet_embedding_build (info->rest_nodes, info->n_nodes, info->tetrahedra,
                                      info->n_tetrahedra, s->vertices, s->n_vertices, emb,
                                      NULL, &stats, &error));
  gint64 elapsed = g_get_monotonic_time () - start;
  g_assert_no_error (error);
  double worst = check_embedded (info->rest_nodes, s->vertices, s->n_vertices, emb, &stats);
  g_test_message ("%s: %zu triangles, %zu vertices in %zu tetrahedra on %zu nodes: "
                  "%zu outside every tetrahedron, rest shape reproduced to %.1f ulps, "
                  "located in %.1f ms", s->source, s->n_triangles, s->n_vertices,
                  info->n_tetrahedra, info->n_nodes, stats.n_outside,
                  worst / DBL_EPSILON, (double) elapsed / 1000);
  g_assert_cmpuint (stats.n_outside, ==, 0);
  g_assert_cmpuint (stats.n_flat, ==, 0);
}

/* 142 segments: 142 x 140 = 19 880 triangles on a few hundred nodes. */
static void
test_sphere_coverage (void)
{
  CwbShapeDesc sphere = embedded_sphere (0.5, 142);
  check_coverage (&sphere, 6, 19000);
}

/* 100 segments: 2 x 100^2 = 20 000 triangles; the hole must stay empty (tet_grid tests),
 * so the grid is finer than the sphere's. */
static void
test_torus_coverage (void)
{
  CwbShapeDesc torus = embedded_torus (1, 0.3, 100);
  check_coverage (&torus, 16, 19000);
}

/* ---- refusals ------------------------------------------------------------------------- */

static void
test_errors (void)
{
  static const double nodes[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0 };
  static const uint32_t good[] = { 0, 1, 2, 3 }, bad_index[] = { 0, 1, 2, 7 };
  /* Four corners in the plane z = 0: flat. */
  static const uint32_t flat[] = { 0, 1, 2, 4 };
  const double point[3] = { 0.1, 0.1, 0.1 }, nan_point[3] = { 0.1, NAN, 0.1 };
  TetEmbeddedPoint emb;
  g_autoptr (GError) error = NULL;

  g_assert_false (tet_embedding_build (nodes, 5, bad_index, 1, point, 1, &emb, NULL, NULL,
                                       &error));
  g_assert_error (error, TET_EMBEDDING_ERROR, TET_EMBEDDING_ERROR_MESH);
  g_assert_nonnull (strstr (error->message, "names node 7, but there are 5 nodes"));
  g_clear_error (&error);

  g_assert_false (tet_embedding_build (nodes, 5, flat, 1, point, 1, &emb, NULL, NULL, &error));
  g_assert_error (error, TET_EMBEDDING_ERROR, TET_EMBEDDING_ERROR_MESH);
  g_assert_nonnull (strstr (error->message, "no usable tetrahedron"));
  g_clear_error (&error);

  g_assert_false (tet_embedding_build (nodes, 5, good, 1, nan_point, 1, &emb, NULL, NULL,
                                       &error));
  g_assert_error (error, TET_EMBEDDING_ERROR, TET_EMBEDDING_ERROR_MESH);
  g_assert_nonnull (strstr (error->message, "point 0 is not finite"));
  g_clear_error (&error);

  /* A flat element next to a good one is skipped, and counted. */
  static const uint32_t mixed[] = { 0, 1, 2, 4, 0, 1, 2, 3 };
  TetEmbeddingStats stats;
  uint32_t tet;
  g_assert_true (tet_embedding_build (nodes, 5, mixed, 2, point, 1, &emb, &tet, &stats,
                                      &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stats.n_flat, ==, 1);
  g_assert_cmpuint (tet, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/barycentric/embedding/single-tet", test_single_tet);
  g_test_add_func ("/barycentric/embedding/brute-force", test_brute_force);
  g_test_add_func ("/barycentric/embedding/brute-force-mixed-sizes",
                   test_brute_force_mixed_sizes);
  g_test_add_func ("/barycentric/embedding/boundary", test_boundary);
  g_test_add_func ("/barycentric/embedding/sphere", test_sphere_coverage);
  g_test_add_func ("/barycentric/embedding/torus", test_torus_coverage);
  g_test_add_func ("/barycentric/embedding/errors", test_errors);
  return g_test_run ();
}

/* The collision detection of the penalty and proximity contact models
 * (plugins/common/surface-detection/collision_detection.c) on hand-built surfaces: a cube
 * resting in a ground slab, points at and beyond the searched depth, random points inside a
 * cube against the closed-form distance to its faces, two overlapping icospheres, random
 * scenes of boxes and spheres against an independent brute force (closest point by projection
 * and segments, inside by the winding number) with tiny hash tables, the cost of the ground's
 * huge triangles, determinism, and the consistency pass of the depth vectors. */
#include <math.h>

#include <cwb/vecmath.h>

#include "collision_detection.h"

/* Depths, distances and contact locations are sums of a few products of coordinates of
 * magnitude <= 10 m: exact to ~1e-15 m; 1e-12 leaves room for the reference's own rounding. */
#define LENGTH_TOLERANCE 1e-12
/* Barycentric coordinates are renormalised to sum 1 up to a few ulps. */
#define BARY_TOLERANCE 1e-12

/* ---- Hand-built surfaces --------------------------------------------------------------- */

typedef struct TestMesh {
  GArray *vertices;    /* double, 3 per vertex */
  GArray *triangles;   /* uint32_t, 3 per triangle */
} TestMesh;

static TestMesh *
test_mesh_new (void)
{
  TestMesh *mesh = g_new0 (TestMesh, 1);
  mesh->vertices = g_array_new (FALSE, FALSE, sizeof (double));
  mesh->triangles = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  return mesh;
}

static void
test_mesh_free (TestMesh *mesh)
{
  g_array_unref (mesh->vertices);
  g_array_unref (mesh->triangles);
  g_free (mesh);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestMesh, test_mesh_free)

static double *
mesh_vertex (TestMesh *mesh, size_t i)
{
  return &g_array_index (mesh->vertices, double, 3 * i);
}

static size_t
mesh_n_vertices (const TestMesh *mesh)
{
  return mesh->vertices->len / 3;
}

/* The layout of workbench/core/primitives.c's mesh_box: vertex i has bit k set when it is on
 * the + side of axis k; each face counter-clockwise seen from outside, as two triangles. */
static TestMesh *
mesh_box (double sx, double sy, double sz, double cx, double cy, double cz)
{
  TestMesh *mesh = test_mesh_new ();
  const double size[3] = { sx, sy, sz }, centre[3] = { cx, cy, cz };
  for (int i = 0; i < 8; i++)
    for (int k = 0; k < 3; k++)
      {
        double v = centre[k] + ((i >> k) & 1 ? 0.5 : -0.5) * size[k];
        g_array_append_val (mesh->vertices, v);
      }
  static const uint32_t faces[6][4] = {
    { 0, 2, 3, 1 }, { 4, 5, 7, 6 }, { 0, 1, 5, 4 }, { 2, 6, 7, 3 }, { 0, 4, 6, 2 }, { 1, 3, 7, 5 },
  };
  for (int f = 0; f < 6; f++)
    {
      uint32_t t[6] = { faces[f][0], faces[f][1], faces[f][2], faces[f][0], faces[f][2], faces[f][3] };
      g_array_append_vals (mesh->triangles, t, 6);
    }
  return mesh;
}

/* The scenes' ground: a 20 m x 20 m x 1 m slab whose top face is z = 0 (primitives.c). */
static TestMesh *
mesh_ground (void)
{
  return mesh_box (20, 20, 1, 0, 0, -0.5);
}

static uint32_t
midpoint (TestMesh *mesh, GHashTable *cache, uint32_t a, uint32_t b)
{
  uint64_t key = (uint64_t) MIN (a, b) << 32 | MAX (a, b);
  gpointer found;
  if (g_hash_table_lookup_extended (cache, &key, NULL, &found))
    return GPOINTER_TO_UINT (found);
  double m[3];
  cwb_v3_add (m, mesh_vertex (mesh, a), mesh_vertex (mesh, b));
  cwb_v3_normalize (m);
  uint32_t index = (uint32_t) mesh_n_vertices (mesh);
  g_array_append_vals (mesh->vertices, m, 3);
  g_hash_table_insert (cache, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (index));
  return index;
}

/* Icosahedron (counter-clockwise outward), each triangle split in four `levels` times, vertices
 * pushed onto the sphere of `radius` about `centre`: 10 4^levels + 2 vertices. */
static TestMesh *
mesh_icosphere (double radius, const double centre[3], int levels)
{
  TestMesh *mesh = test_mesh_new ();
  const double t = (1 + sqrt (5)) / 2;
  const double v[12][3] = {
    { -1, t, 0 }, { 1, t, 0 }, { -1, -t, 0 }, { 1, -t, 0 }, { 0, -1, t }, { 0, 1, t },
    { 0, -1, -t }, { 0, 1, -t }, { t, 0, -1 }, { t, 0, 1 }, { -t, 0, -1 }, { -t, 0, 1 },
  };
  static const uint32_t f[20][3] = {
    { 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 }, { 0, 10, 11 },
    { 1, 5, 9 }, { 5, 11, 4 }, { 11, 10, 2 }, { 10, 7, 6 }, { 7, 1, 8 },
    { 3, 9, 4 }, { 3, 4, 2 }, { 3, 2, 6 }, { 3, 6, 8 }, { 3, 8, 9 },
    { 4, 9, 5 }, { 2, 4, 11 }, { 6, 2, 10 }, { 8, 6, 7 }, { 9, 8, 1 },
  };
  for (int i = 0; i < 12; i++)
    {
      double u[3];
      cwb_v3_copy (u, v[i]);
      cwb_v3_normalize (u);
      g_array_append_vals (mesh->vertices, u, 3);
    }
  g_array_append_vals (mesh->triangles, f, 60);
  for (int level = 0; level < levels; level++)
    {
      g_autoptr (GHashTable) cache = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      g_autoptr (GArray) old = g_array_copy (mesh->triangles);
      g_array_set_size (mesh->triangles, 0);
      for (guint i = 0; i < old->len; i += 3)
        {
          uint32_t a = g_array_index (old, uint32_t, i), b = g_array_index (old, uint32_t, i + 1),
                   c = g_array_index (old, uint32_t, i + 2);
          uint32_t ab = midpoint (mesh, cache, a, b), bc = midpoint (mesh, cache, b, c),
                   ca = midpoint (mesh, cache, c, a);
          uint32_t split[12] = { a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca };
          g_array_append_vals (mesh->triangles, split, 12);
        }
    }
  for (size_t i = 0; i < mesh_n_vertices (mesh); i++)
    {
      double *p = mesh_vertex (mesh, i);
      cwb_v3_scale (p, p, radius);
      cwb_v3_add (p, p, centre);
    }
  return mesh;
}

/* An icosphere whose radius varies by +-`amplitude` (relative) over the directions: a closed,
 * star-shaped, non-convex surface with reflex edges. */
static TestMesh *
mesh_dented_sphere (double radius, const double centre[3], int levels, double amplitude)
{
  static const double origin[3] = { 0, 0, 0 };
  TestMesh *mesh = mesh_icosphere (1, origin, levels);
  for (size_t i = 0; i < mesh_n_vertices (mesh); i++)
    {
      double *p = mesh_vertex (mesh, i);
      double r = radius * (1 + amplitude * sin (3 * atan2 (p[1], p[0])) * sin (2 * acos (p[2])));
      cwb_v3_scale (p, p, r);
      cwb_v3_add (p, p, centre);
    }
  return mesh;
}

/* Rotates the mesh about `centre` by the rotation vector w. */
static void
mesh_rotate (TestMesh *mesh, const double centre[3], const double w[3])
{
  double q[4], r[3];
  cwb_quat_from_rotvec (q, w);
  for (size_t i = 0; i < mesh_n_vertices (mesh); i++)
    {
      double *p = mesh_vertex (mesh, i);
      cwb_v3_sub (r, p, centre);
      cwb_quat_rotate (r, q, r);
      cwb_v3_add (p, r, centre);
    }
}

/* Six times the signed volume: > 0 for an outward-oriented closed surface. */
static double
mesh_volume6 (TestMesh *mesh)
{
  double sum = 0, cross[3];
  for (guint i = 0; i < mesh->triangles->len; i += 3)
    {
      const double *a = mesh_vertex (mesh, g_array_index (mesh->triangles, uint32_t, i));
      const double *b = mesh_vertex (mesh, g_array_index (mesh->triangles, uint32_t, i + 1));
      const double *c = mesh_vertex (mesh, g_array_index (mesh->triangles, uint32_t, i + 2));
      cwb_v3_cross (cross, b, c);
      sum += cwb_v3_dot (a, cross);
    }
  return sum;
}

static CwbGeometry
geometry_of (TestMesh *mesh, gboolean closed)
{
  if (closed)
    g_assert_cmpfloat (mesh_volume6 (mesh), >, 0);
  return (CwbGeometry) {
    .struct_size = sizeof (CwbGeometry),
    .kind = CWB_GEOMETRY_SURFACE,
    .n_points = mesh_n_vertices (mesh),
    .positions = (double *) (void *) mesh->vertices->data,
    .triangles = (const uint32_t *) (const void *) mesh->triangles->data,
    .n_triangles = mesh->triangles->len / 3,
    .closed = closed,
  };
}

/* A cloud of points: an open surface without triangles. */
static TestMesh *
mesh_points (GRand *rand, size_t n, const double lo[3], const double hi[3])
{
  TestMesh *mesh = test_mesh_new ();
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      {
        double x = g_rand_double_range (rand, lo[k], hi[k]);
        g_array_append_val (mesh->vertices, x);
      }
  return mesh;
}

static GArray *
candidates_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (ContactCandidate));
}

static const ContactCandidate *
candidate (GArray *candidates, guint i)
{
  return &g_array_index (candidates, ContactCandidate, i);
}

/* The candidate's contact location, h_ij-weighted vertices of T_i, must be p + d_i. */
static void
assert_location (const CwbGeometry *geometries, const ContactCandidate *c)
{
  const CwbGeometry *surface = &geometries[c->surface_geometry];
  const double *p = geometries[c->point_geometry].positions + 3 * c->point;
  double sum = 0, location[3] = { 0, 0, 0 }, expected[3];
  for (int k = 0; k < 3; k++)
    {
      g_assert_cmpfloat (c->bary[k], >=, 0);
      g_assert_cmpfloat (c->bary[k], <=, 1);
      sum += c->bary[k];
      cwb_v3_axpy (location, c->bary[k],
                   surface->positions + 3 * surface->triangles[3 * c->triangle + k]);
    }
  g_assert_cmpfloat (fabs (sum - 1), <, BARY_TOLERANCE);
  cwb_v3_add (expected, p, c->depth);
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat (fabs (location[k] - expected[k]), <, LENGTH_TOLERANCE);
}

/* The candidate's gap is -|d_i| inside, +|d_i| outside, and its normal the unit d_i / |d_i|
 * inside, -d_i / |d_i| outside (unit vectors to rounding: BARY_TOLERANCE is ample). A point on
 * the surface (d_i = 0) has only the unit length to check here. */
static void
assert_normal (const ContactCandidate *c)
{
  double depth = cwb_v3_norm (c->depth), expected[3];
  g_assert_cmpfloat (fabs (cwb_v3_norm (c->normal) - 1), <, BARY_TOLERANCE);
  g_assert_cmpfloat (fabs (fabs (c->gap) - depth), <, LENGTH_TOLERANCE);
  if (depth == 0)
    return;
  cwb_v3_scale (expected, c->depth, (c->gap < 0 ? 1 : -1) / depth);
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat (fabs (c->normal[k] - expected[k]), <, BARY_TOLERANCE);
}

static void
assert_sorted (GArray *candidates)
{
  for (guint i = 1; i < candidates->len; i++)
    {
      const ContactCandidate *a = candidate (candidates, i - 1), *b = candidate (candidates, i);
      g_assert_true (a->point_geometry < b->point_geometry
                     || (a->point_geometry == b->point_geometry
                         && (a->point < b->point
                             || (a->point == b->point && a->surface_geometry < b->surface_geometry))));
    }
}

/* ---- Independent brute force ----------------------------------------------------------- */

static double
segment_distance (const double p[3], const double a[3], const double b[3])
{
  double ab[3], ap[3], q[3];
  cwb_v3_sub (ab, b, a);
  cwb_v3_sub (ap, p, a);
  double t = CLAMP (cwb_v3_dot (ap, ab) / cwb_v3_dot (ab, ab), 0.0, 1.0);
  cwb_v3_copy (q, a);
  cwb_v3_axpy (q, t, ab);
  cwb_v3_sub (q, p, q);
  return cwb_v3_norm (q);
}

/* Distance from p to triangle abc: the plane distance when the projection falls inside (all
 * three sub-triangles positively oriented), else the nearest of the three edges. */
static double
triangle_distance (const double p[3], const double a[3], const double b[3], const double c[3])
{
  double ab[3], ac[3], n[3], ap[3], q[3];
  cwb_v3_sub (ab, b, a);
  cwb_v3_sub (ac, c, a);
  cwb_v3_cross (n, ab, ac);
  cwb_v3_normalize (n);
  cwb_v3_sub (ap, p, a);
  double s = cwb_v3_dot (ap, n);
  cwb_v3_copy (q, p);
  cwb_v3_axpy (q, -s, n);
  const double *v[3] = { a, b, c };
  gboolean inside = TRUE;
  for (int k = 0; k < 3; k++)
    {
      double e1[3], e2[3], cr[3];
      cwb_v3_sub (e1, v[(k + 1) % 3], q);
      cwb_v3_sub (e2, v[(k + 2) % 3], q);
      cwb_v3_cross (cr, e1, e2);
      if (cwb_v3_dot (cr, n) < 0)
        inside = FALSE;
    }
  if (inside)
    return fabs (s);
  return MIN (segment_distance (p, a, b), MIN (segment_distance (p, b, c), segment_distance (p, c, a)));
}

/* Winding number of a closed surface about p: the solid angles of its triangles (Van
 * Oosterom & Strackee 1983) over 4 pi; 1 inside, 0 outside. */
static double
winding_number (const CwbGeometry *g, const double p[3])
{
  double sum = 0;
  for (size_t t = 0; t < g->n_triangles; t++)
    {
      double v[3][3], cr[3];
      for (int k = 0; k < 3; k++)
        cwb_v3_sub (v[k], g->positions + 3 * g->triangles[3 * t + k], p);
      double la = cwb_v3_norm (v[0]), lb = cwb_v3_norm (v[1]), lc = cwb_v3_norm (v[2]);
      cwb_v3_cross (cr, v[1], v[2]);
      double det = cwb_v3_dot (v[0], cr);
      double den = la * lb * lc + cwb_v3_dot (v[0], v[1]) * lc + cwb_v3_dot (v[1], v[2]) * la
                   + cwb_v3_dot (v[2], v[0]) * lb;
      sum += 2 * atan2 (det, den);
    }
  return sum / (4 * G_PI);
}

typedef struct Reference {
  uint32_t point_geometry, point, surface_geometry;
  double distance;
  double gap;   /* -distance inside, +distance outside */
} Reference;

/* O(points x triangles): every (point, closed surface of another geometry) with the point
 * inside and within max_depth of the surface, or outside it within margin, in
 * (point_geometry, point, surface) order. */
static GArray *
brute_force (const CwbGeometry *geometries, size_t n, double max_depth, double margin)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Reference));
  for (size_t a = 0; a < n; a++)
    for (size_t i = 0; i < geometries[a].n_points; i++)
      for (size_t b = 0; b < n; b++)
        {
          const CwbGeometry *g = &geometries[b];
          if (a == b || !g->closed)
            continue;
          const double *p = geometries[a].positions + 3 * i;
          double best = INFINITY;
          for (size_t t = 0; t < g->n_triangles; t++)
            best = MIN (best, triangle_distance (p, g->positions + 3 * g->triangles[3 * t],
                                                 g->positions + 3 * g->triangles[3 * t + 1],
                                                 g->positions + 3 * g->triangles[3 * t + 2]));
          gboolean inside = best > 0 && winding_number (g, p) > 0.5;
          if (inside ? best <= max_depth : margin > 0 && best <= margin)
            {
              Reference r = { (uint32_t) a, (uint32_t) i, (uint32_t) b, best,
                              inside ? -best : best };
              g_array_append_val (out, r);
            }
        }
  return out;
}

static void
assert_matches_brute_force (const CwbGeometry *geometries, size_t n, GArray *candidates,
                            GArray *reference)
{
  g_assert_cmpuint (candidates->len, ==, reference->len);
  for (guint i = 0; i < candidates->len; i++)
    {
      const ContactCandidate *c = candidate (candidates, i);
      const Reference *r = &g_array_index (reference, Reference, i);
      g_assert_cmpuint (c->point_geometry, ==, r->point_geometry);
      g_assert_cmpuint (c->point, ==, r->point);
      g_assert_cmpuint (c->surface_geometry, ==, r->surface_geometry);
      g_assert_cmpfloat (fabs (cwb_v3_norm (c->depth) - r->distance), <, LENGTH_TOLERANCE);
      g_assert_cmpfloat (fabs (c->gap - r->gap), <, LENGTH_TOLERANCE);
      assert_location (geometries, c);
      assert_normal (c);
    }
}

/* ---- Tests ----------------------------------------------------------------------------- */

/* A 10 cm cube whose bottom face is 2 mm inside the ground: its four bottom corners, and
 * nothing else (not the ground's corners 10 m away, not the cube against itself), whatever the
 * cell size. */
static void
test_cube_on_ground (void)
{
  g_autoptr (TestMesh) ground = mesh_ground ();
  g_autoptr (TestMesh) cube = mesh_box (0.1, 0.1, 0.1, 0.3, -0.2, 0.05 - 0.002);
  CwbGeometry geometries[2] = { geometry_of (ground, TRUE), geometry_of (cube, TRUE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  const double cell_sizes[] = { 0, 0.003, 0.05, 1, 30 };
  for (size_t s = 0; s < G_N_ELEMENTS (cell_sizes); s++)
    {
      DetectionParams params = { .cell_size = cell_sizes[s], .max_depth = 0.01 };
      collision_detector_run (detector, geometries, 2, &params, candidates);
      g_assert_cmpuint (candidates->len, ==, 4);
      for (guint i = 0; i < 4; i++)
        {
          const ContactCandidate *c = candidate (candidates, i);
          g_assert_cmpuint (c->point_geometry, ==, 1);
          g_assert_cmpuint (c->point, ==, i);   /* vertices 0-3: the -z face */
          g_assert_cmpuint (c->surface_geometry, ==, 0);
          g_assert_cmpuint (c->triangle / 2, ==, 1);   /* the ground's +z face */
          g_assert_cmpfloat (fabs (c->depth[0]), <, LENGTH_TOLERANCE);
          g_assert_cmpfloat (fabs (c->depth[1]), <, LENGTH_TOLERANCE);
          g_assert_cmpfloat (fabs (c->depth[2] - 0.002), <, LENGTH_TOLERANCE);
          assert_location (geometries, c);
        }
    }
  /* Automatic cell size: the lower median edge, one of the cube's (0.1 m sides, 0.141 m
   * diagonals), not the ground's 1 m to 28 m. */
  DetectionParams params = { .max_depth = 0.01 };
  collision_detector_run (detector, geometries, 2, &params, candidates);
  const DetectionStats *stats = collision_detector_get_stats (detector);
  g_assert_cmpfloat (stats->cell_size, <, 0.15);
  g_assert_cmpuint (stats->points_hashed, ==, 16);
}

/* A point 1e-9 m outside a face, and points deeper than max_depth (the documented failure
 * case: not found), around points just within it (found, at their exact depth). */
static void
test_outside_and_too_deep (void)
{
  const double max_depth = 0.05;
  g_autoptr (TestMesh) cube = mesh_box (1, 1, 1, 0, 0, 0);
  g_autoptr (TestMesh) probe = test_mesh_new ();
  const double points[][3] = {
    { 0.1, 0.2, 0.5 + 1e-9 },              /* just outside: nothing */
    { 0.1, 0.2, 0.5 - max_depth - 1e-6 },  /* deeper than max_depth: nothing */
    { 0, 0, 0 },                           /* the centre, 0.5 m deep: nothing */
    { 0.1, 0.2, 0.5 - max_depth + 1e-6 },  /* found */
    { 0.1, 0.2, 0.5 - 1e-9 },              /* found */
    { 0.1, 0.2, 0.5 },                     /* on the surface: not inside */
  };
  g_array_append_vals (probe->vertices, points, 3 * G_N_ELEMENTS (points));
  CwbGeometry geometries[2] = { geometry_of (cube, TRUE), geometry_of (probe, FALSE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = max_depth };
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, 2);
  g_assert_cmpuint (candidate (candidates, 0)->point, ==, 3);
  g_assert_cmpfloat (fabs (candidate (candidates, 0)->depth[2] - (max_depth - 1e-6)), <, LENGTH_TOLERANCE);
  g_assert_cmpuint (candidate (candidates, 1)->point, ==, 4);
  g_assert_cmpfloat (fabs (candidate (candidates, 1)->depth[2] - 1e-9), <, LENGTH_TOLERANCE);
  for (guint i = 0; i < candidates->len; i++)
    assert_location (geometries, candidate (candidates, i));
}

/* What a step's motion adds to the depth searched (DetectionParams.motion) and the automatic
 * depth (detection_automatic_max_depth), through a query as a model gets it: a fixed unit
 * cube (body 0) and a point of body 1 6 cm below its top face, with a 1 cm max_depth. At
 * rest the point is too deep to be found; approaching at 6 m/s with h 0.01 the pair searches
 * 1 cm + h 6 m/s = 7 cm (MOTION_STEPS 1) and finds it at its exact depth, having crossed the
 * top face; moving up at 6 m/s (leaving: that depth is not this step's approach through its
 * nearest face) it is not; nor against a cube that moves (the band follows motion only
 * against fixed bodies). The automatic depth of a 1 m body: 2 % of its size at rest, 1.5
 * times the last deepest penetration above that, at most 10 % of its size however deep the
 * last one was. */
static void
test_motion_and_automatic_depth (void)
{
  g_autoptr (TestMesh) cube = mesh_box (1, 1, 1, 0, 0, 0);
  g_autoptr (TestMesh) probe = test_mesh_new ();
  const double point[3] = { 0.1, 0.2, 0.44 };
  g_array_append_vals (probe->vertices, point, 3);
  double cube_v[8 * 3] = { 0 }, probe_v[3] = { 0, 0, -6 };
  CwbGeometry geometries[2] = { geometry_of (cube, TRUE), geometry_of (probe, FALSE) };
  geometries[0].velocities = cube_v;
  geometries[1].velocities = probe_v;
  geometries[1].body = 1;
  gboolean fixed[2] = { TRUE, FALSE };
  CwbContactQuery query = { .struct_size = sizeof query, .geometries = geometries,
                            .n_geometries = 2, .n_bodies = 2, .h = 0.01, .body_fixed = fixed };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionDepth depth;
  detection_depth_init (&depth);
  depth.param = 0.01;

  DetectionParams params = { .max_depth = 0.01 };
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, 0);   /* at rest: 6 cm is beyond 1 cm */

  detection_resolve (&params, &depth, &query);
  g_assert_cmpfloat (params.max_depth, ==, 0.01);
  g_assert_cmpfloat_with_epsilon (params.motion_time, MOTION_STEPS * 0.01, 1e-15);
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, 1);
  g_assert_cmpfloat (fabs (candidate (candidates, 0)->depth[2] - 0.06), <, LENGTH_TOLERANCE);

  /* Leaving through the top face: not this step's approach. */
  probe_v[2] = 6;
  detection_resolve (&params, &depth, &query);
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, 0);

  /* Against a cube that moves (at rest now): the band stays 1 cm. */
  probe_v[2] = -6;
  fixed[0] = FALSE;
  detection_resolve (&params, &depth, &query);
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, 0);

  /* The automatic depth: the median moving size is the cube's (1 m) and the point's (0). */
  g_autoptr (TestMesh) other = mesh_box (1, 1, 1, 5, 0, 0);
  CwbGeometry two_cubes[2] = { geometry_of (cube, TRUE), geometry_of (other, TRUE) };
  query.geometries = two_cubes;
  fixed[0] = fixed[1] = FALSE;
  two_cubes[1].body = 1;
  g_assert_cmpfloat_with_epsilon (detection_automatic_max_depth (&query, 0), 0.02, 1e-15);
  g_assert_cmpfloat_with_epsilon (detection_automatic_max_depth (&query, 0.04), 0.06, 1e-15);
  g_assert_cmpfloat_with_epsilon (detection_automatic_max_depth (&query, 5), 0.1, 1e-15);
  detection_depth_clear (&depth);
}

/* Random points inside a unit cube within max_depth of its surface against the closed form
 * (distance = min_k (0.5 - |p_k|), nearest face = its argmin): every one found, |d| exact, d
 * along the nearest face's normal; random points just outside: none. Plus a second cube's
 * corner pushed 1 mm into the first one's top face 5 mm from its edge, and a point 1, 2 and 3
 * mm from the three faces of a corner. */
static void
test_nearest_face (void)
{
  const double max_depth = 0.1;
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autoptr (TestMesh) cube = mesh_box (1, 1, 1, 0, 0, 0);
  g_autoptr (TestMesh) inside = test_mesh_new ();
  g_autoptr (TestMesh) outside = test_mesh_new ();
  while (mesh_n_vertices (inside) < 1000 || mesh_n_vertices (outside) < 300)
    {
      double p[3], depth = INFINITY;
      for (int k = 0; k < 3; k++)
        {
          p[k] = g_rand_double_range (rand, -0.5 - max_depth, 0.5 + max_depth);
          depth = MIN (depth, 0.5 - fabs (p[k]));
        }
      if (depth > 0 && depth <= max_depth && mesh_n_vertices (inside) < 1000)
        g_array_append_vals (inside->vertices, p, 3);
      else if (depth < 0 && mesh_n_vertices (outside) < 300)
        g_array_append_vals (outside->vertices, p, 3);
    }
  const double corner_point[3] = { 0.5 - 0.002, 0.5 - 0.003, 0.5 - 0.001 };
  g_array_append_vals (inside->vertices, corner_point, 3);

  /* A 10 cm cube standing on a corner: rotate (1, 1, 1) onto -z, then move that corner to
   * (0.495, 0, 0.499). */
  g_autoptr (TestMesh) tilted = mesh_box (0.1, 0.1, 0.1, 0, 0, 0);
  double axis[3] = { 1, 1, 1 }, down[3] = { 0, 0, -1 }, w[3];
  cwb_v3_normalize (axis);
  cwb_v3_cross (w, axis, down);
  cwb_v3_normalize (w);
  cwb_v3_scale (w, w, acos (cwb_v3_dot (axis, down)));
  static const double origin[3] = { 0, 0, 0 };
  mesh_rotate (tilted, origin, w);
  const double *lowest = mesh_vertex (tilted, 7);
  double shift[3] = { 0.495 - lowest[0], -lowest[1], 0.499 - lowest[2] };
  for (size_t i = 0; i < 8; i++)
    cwb_v3_add (mesh_vertex (tilted, i), mesh_vertex (tilted, i), shift);

  CwbGeometry geometries[3] = { geometry_of (cube, TRUE), geometry_of (inside, FALSE),
                                geometry_of (outside, FALSE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = max_depth };
  collision_detector_run (detector, geometries, 3, &params, candidates);
  assert_sorted (candidates);
  g_assert_cmpuint (candidates->len, ==, 1001);
  for (guint i = 0; i < 1001; i++)
    {
      const ContactCandidate *c = candidate (candidates, i);
      g_assert_cmpuint (c->point_geometry, ==, 1);
      g_assert_cmpuint (c->point, ==, i);
      g_assert_cmpuint (c->surface_geometry, ==, 0);
      const double *p = mesh_vertex (inside, i);
      int nearest = 0;
      for (int k = 1; k < 3; k++)
        if (0.5 - fabs (p[k]) < 0.5 - fabs (p[nearest]))
          nearest = k;
      double expected[3] = { 0, 0, 0 };
      expected[nearest] = copysign (0.5 - fabs (p[nearest]), p[nearest]);
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat (fabs (c->depth[k] - expected[k]), <, LENGTH_TOLERANCE);
      assert_location (geometries, c);
    }
  /* The point by the corner: the face 1 mm away. */
  const ContactCandidate *c = candidate (candidates, 1000);
  g_assert_cmpfloat (fabs (c->depth[2] - 0.001), <, LENGTH_TOLERANCE);
  g_assert_cmpfloat (hypot (c->depth[0], c->depth[1]), <, LENGTH_TOLERANCE);
  /* The tilted cube's corner: up, 1 mm, through the top face (not the side 5 mm away). */
  CwbGeometry pair[2] = { geometry_of (cube, TRUE), geometry_of (tilted, TRUE) };
  collision_detector_run (detector, pair, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, 1);
  c = candidate (candidates, 0);
  g_assert_cmpuint (c->point_geometry, ==, 1);
  g_assert_cmpuint (c->point, ==, 7);
  g_assert_cmpuint (c->surface_geometry, ==, 0);
  g_assert_cmpuint (c->triangle / 2, ==, 1);
  g_assert_cmpfloat (fabs (c->depth[2] - 0.001), <, LENGTH_TOLERANCE);
  g_assert_cmpfloat (hypot (c->depth[0], c->depth[1]), <, LENGTH_TOLERANCE);
  assert_location (pair, c);
}

/* Two icospheres of radius 0.1 m overlapping by 5 mm along a skew axis: candidates of each in
 * the other, depth vectors pointing out of the penetrated sphere, close to the centre line. */
static void
test_sphere_sphere (void)
{
  const double radius = 0.1, overlap = 0.005;
  double axis[3] = { 1, 0.3, -0.2 };
  cwb_v3_normalize (axis);
  double c0[3] = { 0.01, 0.02, 0.03 }, c1[3];
  cwb_v3_copy (c1, c0);
  cwb_v3_axpy (c1, 2 * radius - overlap, axis);
  g_autoptr (TestMesh) s0 = mesh_icosphere (radius, c0, 3);
  g_autoptr (TestMesh) s1 = mesh_icosphere (radius, c1, 3);
  const double w[3] = { 0.3, -0.5, 0.2 };
  mesh_rotate (s1, c1, w);
  CwbGeometry geometries[2] = { geometry_of (s0, TRUE), geometry_of (s1, TRUE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = 0.02 };
  collision_detector_run (detector, geometries, 2, &params, candidates);
  assert_sorted (candidates);

  /* The lens's rim is where the spheres meet, seen from either centre at acos((R - o/2) / R)
   * = 12.8 degrees from the line; facets tilt a face normal by up to about half the angle
   * an edge subtends (3 levels: ~8 degrees / 2). */
  double rim = acos ((radius - overlap / 2) / radius);
  double facet = 5 * G_PI / 180;
  guint per_side[2] = { 0, 0 };
  double mean[2][3] = { { 0, 0, 0 }, { 0, 0, 0 } };
  for (guint i = 0; i < candidates->len; i++)
    {
      const ContactCandidate *c = candidate (candidates, i);
      g_assert_cmpuint (c->point_geometry, ==, 1 - c->surface_geometry);
      per_side[c->point_geometry]++;
      /* Out of sphere 1 is towards sphere 0: -axis; out of sphere 0: +axis. */
      double out[3];
      cwb_v3_scale (out, axis, c->surface_geometry == 1 ? -1 : 1);
      double len = cwb_v3_norm (c->depth);
      g_assert_cmpfloat (len, <=, overlap);
      g_assert_cmpfloat (acos (cwb_v3_dot (c->depth, out) / len), <, rim + facet);
      cwb_v3_add (mean[c->point_geometry], mean[c->point_geometry], c->depth);
      assert_location (geometries, c);
    }
  g_assert_cmpuint (per_side[0], >, 3);
  g_assert_cmpuint (per_side[1], >, 3);
  for (int side = 0; side < 2; side++)
    {
      double out[3];
      cwb_v3_scale (out, axis, side == 0 ? -1 : 1);
      cwb_v3_normalize (mean[side]);
      double angle = acos (MIN (cwb_v3_dot (mean[side], out), 1.0)) * 180 / G_PI;
      g_test_message ("sphere %d: %u candidates, mean depth direction %.3f degrees off the line",
                      side, per_side[side], angle);
      g_assert_cmpfloat (angle, <, 3);
    }
}

/* A random scene of overlapping rotated boxes, an icosphere, a dented (non-convex) sphere and
 * a cloud of 1500 points: the candidate set and depths of the raw closest features equal the
 * brute force's exactly, with the automatic table and with tables of 1 and 7 buckets (every
 * lookup then meets other cells' points, which must all be rejected). */
static GPtrArray *
random_scene (guint32 seed, GArray *geometries)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  GPtrArray *meshes = g_ptr_array_new_with_free_func ((GDestroyNotify) test_mesh_free);
  for (int i = 0; i < 6; i++)
    {
      double c[3], w[3];
      for (int k = 0; k < 3; k++)
        {
          c[k] = g_rand_double_range (rand, -0.15, 0.15);
          w[k] = g_rand_double_range (rand, -2, 2);
        }
      TestMesh *box = mesh_box (g_rand_double_range (rand, 0.1, 0.3), g_rand_double_range (rand, 0.1, 0.3),
                                g_rand_double_range (rand, 0.1, 0.3), c[0], c[1], c[2]);
      mesh_rotate (box, c, w);
      g_ptr_array_add (meshes, box);
    }
  const double c1[3] = { 0.05, -0.05, 0.02 }, c2[3] = { -0.04, 0.06, -0.03 };
  g_ptr_array_add (meshes, mesh_icosphere (0.12, c1, 2));
  g_ptr_array_add (meshes, mesh_dented_sphere (0.13, c2, 3, 0.2));
  const double lo[3] = { -0.3, -0.3, -0.3 }, hi[3] = { 0.3, 0.3, 0.3 };
  g_ptr_array_add (meshes, mesh_points (rand, 1500, lo, hi));
  for (guint i = 0; i < meshes->len; i++)
    {
      CwbGeometry g = geometry_of (meshes->pdata[i], i + 1 < meshes->len);
      g_array_append_val (geometries, g);
    }
  return meshes;
}

static void
test_hash_collisions (void)
{
  const double max_depth = 0.025;
  g_autoptr (GArray) geometries = g_array_new (FALSE, FALSE, sizeof (CwbGeometry));
  g_autoptr (GPtrArray) meshes = random_scene (11, geometries);
  const CwbGeometry *g = (const CwbGeometry *) (const void *) geometries->data;
  g_autoptr (GArray) reference = brute_force (g, geometries->len, max_depth, 0);
  g_test_message ("brute force: %u candidates", reference->len);
  g_assert_cmpuint (reference->len, >, 200);

  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) automatic = candidates_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = max_depth, .raw_depths = TRUE };
  collision_detector_run (detector, g, geometries->len, &params, automatic);
  assert_matches_brute_force (g, geometries->len, automatic, reference);
  const DetectionStats *stats = collision_detector_get_stats (detector);
  g_test_message ("automatic table %zu: %zu cells, %zu collisions, %zu edge/vertex contacts",
                  stats->table_size, stats->cells_visited, stats->hash_collisions,
                  stats->edge_vertex_contacts);
  g_assert_cmpuint (stats->edge_vertex_contacts, >, 0);   /* the dented sphere's reflex edges */

  const size_t tiny[] = { 1, 7 };
  for (size_t i = 0; i < G_N_ELEMENTS (tiny); i++)
    {
      collision_detector_set_table_size (detector, tiny[i]);
      collision_detector_run (detector, g, geometries->len, &params, candidates);
      g_assert_cmpuint (stats->table_size, ==, tiny[i]);
      g_assert_cmpuint (stats->hash_collisions, >, 0);
      assert_matches_brute_force (g, geometries->len, candidates, reference);
      g_assert_cmpmem (candidates->data, candidates->len * sizeof (ContactCandidate),
                       automatic->data, automatic->len * sizeof (ContactCandidate));
    }
  /* With the consistency pass too, the result does not depend on the table. */
  params.raw_depths = FALSE;
  collision_detector_run (detector, g, geometries->len, &params, candidates);
  collision_detector_set_table_size (detector, 0);
  collision_detector_run (detector, g, geometries->len, &params, automatic);
  g_assert_cmpmem (candidates->data, candidates->len * sizeof (ContactCandidate),
                   automatic->data, automatic->len * sizeof (ContactCandidate));
}

/* Random points around a dented sphere, within max_depth of its surface on either side: the
 * exact inside test with pseudo-normals at reflex edges and vertices against the winding
 * number. */
static void
test_non_convex (void)
{
  const double max_depth = 0.02;
  static const double origin[3] = { 0, 0, 0 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  g_autoptr (TestMesh) dented = mesh_dented_sphere (0.1, origin, 3, 0.25);
  g_autoptr (TestMesh) probe = test_mesh_new ();
  /* Points near the vertices, where the reflex edges and vertices are. */
  for (int i = 0; i < 3000; i++)
    {
      const double *v = mesh_vertex (dented, (size_t) g_rand_int_range (rand, 0, (gint32) mesh_n_vertices (dented)));
      double p[3];
      for (int k = 0; k < 3; k++)
        p[k] = v[k] + g_rand_double_range (rand, -max_depth, max_depth);
      g_array_append_vals (probe->vertices, p, 3);
    }
  CwbGeometry geometries[2] = { geometry_of (dented, TRUE), geometry_of (probe, FALSE) };
  g_autoptr (GArray) reference = brute_force (geometries, 2, max_depth, 0);
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = max_depth, .raw_depths = TRUE };
  collision_detector_run (detector, geometries, 2, &params, candidates);
  assert_matches_brute_force (geometries, 2, candidates, reference);
  const DetectionStats *stats = collision_detector_get_stats (detector);
  g_test_message ("%u candidates, %zu at edges or vertices", candidates->len,
                  stats->edge_vertex_contacts);
  g_assert_cmpuint (stats->edge_vertex_contacts, >, 50);

  /* The surface moves (same topology, cached adjacency): pseudo-normals follow it. */
  const double w[3] = { 0.4, -0.3, 0.9 };
  mesh_rotate (dented, origin, w);
  g_autoptr (GArray) moved = brute_force (geometries, 2, max_depth, 0);
  collision_detector_run (detector, geometries, 2, &params, candidates);
  assert_matches_brute_force (geometries, 2, candidates, moved);
  g_assert_cmpuint (stats->growths, ==, 0);
}

/* Ten boxes sunk 1 mm into the 20 m ground: their 40 bottom corners, with few cell visits
 * (the ground's 20 m triangles are clipped to each box's points). */
static void
test_ground_cells (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  g_autoptr (GArray) geometries = g_array_new (FALSE, FALSE, sizeof (CwbGeometry));
  g_autoptr (GPtrArray) meshes = g_ptr_array_new_with_free_func ((GDestroyNotify) test_mesh_free);
  g_ptr_array_add (meshes, mesh_ground ());
  for (int i = 0; i < 10; i++)
    {
      double h = g_rand_double_range (rand, 0.1, 0.2);
      /* On a 1 m grid with +-0.3 m of jitter: apart, over 4 m x 2 m of the ground. */
      double c[3] = { -2 + (i % 5) + g_rand_double_range (rand, -0.3, 0.3),
                      -1 + 2 * (i / 5) + g_rand_double_range (rand, -0.3, 0.3), h / 2 - 0.001 };
      TestMesh *box = mesh_box (g_rand_double_range (rand, 0.1, 0.2), g_rand_double_range (rand, 0.1, 0.2), h,
                                c[0], c[1], c[2]);
      double w[3] = { 0, 0, g_rand_double_range (rand, -3, 3) };
      mesh_rotate (box, c, w);
      g_ptr_array_add (meshes, box);
    }
  for (guint i = 0; i < meshes->len; i++)
    {
      CwbGeometry g = geometry_of (meshes->pdata[i], TRUE);
      g_array_append_val (geometries, g);
    }
  const CwbGeometry *g = (const CwbGeometry *) (const void *) geometries->data;
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = 0.01 };
  collision_detector_run (detector, g, geometries->len, &params, candidates);
  /* Boxes apart: only their bottom corners. */
  g_assert_cmpuint (candidates->len, ==, 40);
  for (guint i = 0; i < candidates->len; i++)
    {
      const ContactCandidate *c = candidate (candidates, i);
      g_assert_cmpuint (c->surface_geometry, ==, 0);
      g_assert_cmpuint (c->point, <, 4);
      g_assert_cmpfloat (fabs (c->depth[2] - 0.001), <, LENGTH_TOLERANCE);
      assert_location (g, c);
    }
  const DetectionStats *stats = collision_detector_get_stats (detector);
  g_test_message ("cell %.3f m: %zu cells visited, %zu direct scans, %zu point-triangle tests",
                  stats->cell_size, stats->cells_visited, stats->direct_scans,
                  stats->point_triangle_tests);
  g_assert_cmpuint (stats->cells_visited + stats->direct_scans, <, 10000);
  g_assert_cmpuint (stats->point_triangle_tests, <, 10000);
}

/* Two runs give identical arrays, with the same detector (whose second run allocates
 * nothing) and with a fresh one. */
static void
test_determinism (void)
{
  g_autoptr (GArray) geometries = g_array_new (FALSE, FALSE, sizeof (CwbGeometry));
  g_autoptr (GPtrArray) meshes = random_scene (29, geometries);
  const CwbGeometry *g = (const CwbGeometry *) (const void *) geometries->data;
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (CollisionDetector) fresh = collision_detector_new ();
  g_autoptr (GArray) first = candidates_new ();
  g_autoptr (GArray) second = candidates_new ();
  g_autoptr (GArray) third = candidates_new ();
  DetectionParams params = { .max_depth = 0.03 };
  collision_detector_run (detector, g, geometries->len, &params, first);
  g_assert_cmpuint (first->len, >, 0);
  assert_sorted (first);
  collision_detector_run (detector, g, geometries->len, &params, second);
  g_assert_cmpuint (collision_detector_get_stats (detector)->growths, ==, 0);
  collision_detector_run (fresh, g, geometries->len, &params, third);
  g_assert_cmpmem (first->data, first->len * sizeof (ContactCandidate), second->data,
                   second->len * sizeof (ContactCandidate));
  g_assert_cmpmem (first->data, first->len * sizeof (ContactCandidate), third->data,
                   third->len * sizeof (ContactCandidate));
}

/* A flat plate (open grid) sunk 3 mm into a 1 m box's top face up to 0.5 mm from its edge:
 * the points within 3 mm of the side face find it nearer (raw depths sideways), and the
 * consistency pass turns them up, through the top face, 3 mm. */
static void
test_consistency (void)
{
  g_autoptr (TestMesh) box = mesh_box (1, 1, 1, 0, 0, 0);
  g_autoptr (TestMesh) plate = test_mesh_new ();
  const double xs[] = { 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.49, 0.4975, 0.499, 0.4995 };
  const int nx = G_N_ELEMENTS (xs), ny = 5;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++)
      {
        double p[3] = { xs[i], -0.1 + 0.05 * j, 0.5 - 0.003 };
        g_array_append_vals (plate->vertices, p, 3);
      }
  for (int j = 0; j + 1 < ny; j++)
    for (int i = 0; i + 1 < nx; i++)
      {
        uint32_t v = (uint32_t) (j * nx + i);
        uint32_t t[6] = { v, v + 1, v + nx + 1, v, v + nx + 1, v + nx };
        g_array_append_vals (plate->triangles, t, 6);
      }
  CwbGeometry geometries[2] = { geometry_of (box, TRUE), geometry_of (plate, FALSE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = 0.01, .raw_depths = TRUE };
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, (guint) (nx * ny));
  guint sideways = 0;
  for (guint i = 0; i < candidates->len; i++)
    if (fabs (candidate (candidates, i)->depth[0]) > 0)
      sideways++;
  g_assert_cmpuint (sideways, ==, 3 * ny);   /* x = 0.4975, 0.499, 0.4995 */

  params.raw_depths = FALSE;
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, (guint) (nx * ny));
  g_assert_cmpuint (collision_detector_get_stats (detector)->consistency_fixes, ==, sideways);
  for (guint i = 0; i < candidates->len; i++)
    {
      const ContactCandidate *c = candidate (candidates, i);
      g_assert_cmpfloat (hypot (c->depth[0], c->depth[1]), <, LENGTH_TOLERANCE);
      g_assert_cmpfloat (fabs (c->depth[2] - 0.003), <, LENGTH_TOLERANCE);
      g_assert_cmpuint (c->triangle / 2, ==, 1);
      assert_location (geometries, c);
    }
}

/* Contacts on two faces of a box, the side ones far below the top (a body pushed into a
 * corner): the side depths disagree with the dominant (top) direction, but their rays up stay
 * inside the box beyond max_depth, so they are left as found. */
static void
test_consistency_corner (void)
{
  g_autoptr (TestMesh) box = mesh_box (1, 1, 1, 0, 0, 0);
  g_autoptr (TestMesh) probe = test_mesh_new ();
  for (int i = 0; i < 6; i++)
    {
      double top[3] = { -0.2 + 0.05 * i, 0, 0.5 - 0.003 };
      g_array_append_vals (probe->vertices, top, 3);
    }
  for (int i = 0; i < 2; i++)
    {
      double side[3] = { 0.5 - 0.003, 0.05 * i, 0 };
      g_array_append_vals (probe->vertices, side, 3);
    }
  CwbGeometry geometries[2] = { geometry_of (box, TRUE), geometry_of (probe, FALSE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) raw = candidates_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = 0.01, .raw_depths = TRUE };
  collision_detector_run (detector, geometries, 2, &params, raw);
  params.raw_depths = FALSE;
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (raw->len, ==, 8);
  g_assert_cmpuint (collision_detector_get_stats (detector)->consistency_fixes, ==, 0);
  g_assert_cmpmem (raw->data, raw->len * sizeof (ContactCandidate), candidates->data,
                   candidates->len * sizeof (ContactCandidate));
}

/* The margin on a unit cube, by hand: points outside a face, an edge and a corner within the
 * margin are found with their exact distance as gap and the direction from the closest point
 * as normal; a point on the face with gap 0 and the face normal; beyond the margin nothing;
 * inside, the penetration as without a margin, and nothing deeper than max_depth even within
 * the margin. With margin 0 exactly the inside candidate, bit for bit. */
static void
test_margin (void)
{
  const double max_depth = 0.035, margin = 0.05;
  g_autoptr (TestMesh) cube = mesh_box (1, 1, 1, 0, 0, 0);
  g_autoptr (TestMesh) probe = test_mesh_new ();
  const double points[][3] = {
    { 0.1, 0.2, 0.53 },     /* 0: 3 cm above the +z face */
    { 0.52, 0.1, 0.53 },    /* 1: off the edge x = z = 0.5 by (2, 0, 3) cm */
    { 0.52, 0.52, 0.52 },   /* 2: off the corner by (2, 2, 2) cm */
    { 0.1, 0.2, 0.5 },      /* 3: on the +z face */
    { 0.1, 0.2, 0.56 },     /* 4: beyond the margin: nothing */
    { 0.1, 0.2, 0.47 },     /* 5: 3 cm deep */
    { 0.1, 0.2, 0.455 },    /* 6: 4.5 cm deep, past max_depth: nothing */
  };
  g_array_append_vals (probe->vertices, points, 3 * G_N_ELEMENTS (points));
  CwbGeometry geometries[2] = { geometry_of (cube, TRUE), geometry_of (probe, FALSE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = max_depth, .margin = margin };
  collision_detector_run (detector, geometries, 2, &params, candidates);
  const double r3 = 1 / sqrt (3), edge = hypot (0.02, 0.03);
  const struct { uint32_t point; double gap; double normal[3]; } expected[] = {
    { 0, 0.03, { 0, 0, 1 } },
    { 1, edge, { 0.02 / edge, 0, 0.03 / edge } },
    { 2, 0.02 * sqrt (3), { r3, r3, r3 } },
    { 3, 0, { 0, 0, 1 } },
    { 5, -0.03, { 0, 0, 1 } },
  };
  g_assert_cmpuint (candidates->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < candidates->len; i++)
    {
      const ContactCandidate *c = candidate (candidates, i);
      g_assert_cmpuint (c->point, ==, expected[i].point);
      g_assert_cmpuint (c->surface_geometry, ==, 0);
      g_assert_cmpfloat (fabs (c->gap - expected[i].gap), <, LENGTH_TOLERANCE);
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat (fabs (c->normal[k] - expected[i].normal[k]), <, BARY_TOLERANCE);
      assert_location (geometries, c);
      assert_normal (c);
    }
  g_assert_cmpuint (collision_detector_get_stats (detector)->outside_contacts, ==, 4);

  ContactCandidate inside = *candidate (candidates, 4);
  params.margin = 0;
  collision_detector_run (detector, geometries, 2, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, 1);
  g_assert_cmpmem (candidate (candidates, 0), sizeof inside, &inside, sizeof inside);
}

/* The random scene with margins below and above max_depth against the brute force (raw
 * closest features, automatic and 7-bucket tables); and, with the consistency pass, the
 * inside candidates are those found without a margin, bit for bit. */
static void
test_margin_brute_force (void)
{
  const double max_depth = 0.025, margins[] = { 0.01, 0.04 };
  g_autoptr (GArray) geometries = g_array_new (FALSE, FALSE, sizeof (CwbGeometry));
  g_autoptr (GPtrArray) meshes = random_scene (11, geometries);
  const CwbGeometry *g = (const CwbGeometry *) (const void *) geometries->data;
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  g_autoptr (GArray) without = candidates_new ();
  for (size_t m = 0; m < G_N_ELEMENTS (margins); m++)
    {
      g_autoptr (GArray) reference = brute_force (g, geometries->len, max_depth, margins[m]);
      guint outside = 0;
      for (guint i = 0; i < reference->len; i++)
        outside += g_array_index (reference, Reference, i).gap >= 0;
      g_test_message ("margin %g: %u candidates, %u outside", margins[m], reference->len,
                      outside);
      g_assert_cmpuint (outside, >, 100);
      DetectionParams params = { .max_depth = max_depth, .margin = margins[m],
                                 .raw_depths = TRUE };
      const size_t tables[] = { 0, 7 };
      for (size_t t = 0; t < G_N_ELEMENTS (tables); t++)
        {
          collision_detector_set_table_size (detector, tables[t]);
          collision_detector_run (detector, g, geometries->len, &params, candidates);
          assert_matches_brute_force (g, geometries->len, candidates, reference);
        }

      params.raw_depths = FALSE;
      collision_detector_run (detector, g, geometries->len, &params, candidates);
      params.margin = 0;
      collision_detector_run (detector, g, geometries->len, &params, without);
      guint n_inside = 0;
      for (guint i = 0; i < candidates->len; i++)
        if (candidate (candidates, i)->gap < 0)
          {
            g_assert_cmpuint (n_inside, <, without->len);
            g_assert_cmpmem (candidate (candidates, i), sizeof (ContactCandidate),
                             candidate (without, n_inside), sizeof (ContactCandidate));
            n_inside++;
          }
      g_assert_cmpuint (n_inside, ==, without->len);
    }
}

/* Open surfaces are never penetrated, but their points penetrate; a particle penetrates as a
 * sphere: centre 1 cm under the closed box's top, radius 1 cm, so 2 cm deep along +z. */
static void
test_open_and_particles (void)
{
  g_autoptr (TestMesh) closed = mesh_box (1, 1, 1, 0, 0, 0);
  g_autoptr (TestMesh) open = mesh_box (0.2, 0.2, 0.2, 0, 0, 0.5);   /* half inside */
  const double particle[3] = { 0, 0, 0.49 }, radius = 0.01, mass = 1;
  CwbGeometry particles = { .struct_size = sizeof (CwbGeometry), .kind = CWB_GEOMETRY_PARTICLES,
                            .n_points = 1, .positions = (double *) particle, .radii = &radius,
                            .masses = &mass };
  CwbGeometry geometries[3] = { particles, geometry_of (open, FALSE), geometry_of (closed, TRUE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = 0.15 };
  collision_detector_run (detector, geometries, 3, &params, candidates);
  g_assert_cmpuint (candidates->len, ==, 5);
  const ContactCandidate *sphere = candidate (candidates, 0);   /* sorted by point geometry */
  g_assert_cmpuint (sphere->point_geometry, ==, 0);
  g_assert_cmpuint (sphere->surface_geometry, ==, 2);
  g_assert_cmpfloat (fabs (sphere->gap + 0.02), <, LENGTH_TOLERANCE);
  g_assert_cmpfloat (fabs (sphere->depth[2] - 0.02), <, LENGTH_TOLERANCE);
  g_assert_cmpfloat (fabs (sphere->normal[2] - 1), <, LENGTH_TOLERANCE);
  for (guint i = 1; i < candidates->len; i++)   /* the open box's -z corners, 0.1 m deep */
    {
      const ContactCandidate *c = candidate (candidates, i);
      g_assert_cmpuint (c->point_geometry, ==, 1);
      g_assert_cmpuint (c->surface_geometry, ==, 2);
      g_assert_cmpfloat (fabs (c->depth[2] - 0.1), <, LENGTH_TOLERANCE);
    }
}

/* Timing of a scene of about 1000 points (two icospheres of 642 vertices overlapping, on the
 * ground): run with -m perf. */
static void
test_timing (void)
{
  if (!g_test_perf ())
    {
      g_test_skip ("timing: run with -m perf");
      return;
    }
  const double c0[3] = { 0, 0, 0.1 - 0.002 }, c1[3] = { 0.15, 0.05, 0.12 };
  g_autoptr (TestMesh) ground = mesh_ground ();
  g_autoptr (TestMesh) s0 = mesh_icosphere (0.1, c0, 3);
  g_autoptr (TestMesh) s1 = mesh_icosphere (0.1, c1, 3);
  CwbGeometry geometries[3] = { geometry_of (ground, TRUE), geometry_of (s0, TRUE), geometry_of (s1, TRUE) };
  g_autoptr (CollisionDetector) detector = collision_detector_new ();
  g_autoptr (GArray) candidates = candidates_new ();
  DetectionParams params = { .max_depth = 0.01 };
  enum { RUNS = 201 };
  double times[RUNS];
  for (int r = 0; r < RUNS; r++)
    {
      gint64 start = g_get_monotonic_time ();
      collision_detector_run (detector, geometries, 3, &params, candidates);
      times[r] = (double) (g_get_monotonic_time () - start);
    }
  for (int i = 1; i < RUNS; i++)   /* insertion sort for the median */
    for (int j = i; j > 0 && times[j] < times[j - 1]; j--)
      {
        double t = times[j];
        times[j] = times[j - 1];
        times[j - 1] = t;
      }
  const DetectionStats *stats = collision_detector_get_stats (detector);
  g_test_minimized_result (times[RUNS / 2],
                           "%zu points, %u candidates: median %.0f us per run "
                           "(%zu cells, %zu tests)",
                           stats->points_hashed, candidates->len, times[RUNS / 2],
                           stats->cells_visited, stats->point_triangle_tests);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/detection/cube-on-ground", test_cube_on_ground);
  g_test_add_func ("/penalty/detection/outside-and-too-deep", test_outside_and_too_deep);
  g_test_add_func ("/penalty/detection/motion-and-automatic-depth",
                   test_motion_and_automatic_depth);
  g_test_add_func ("/penalty/detection/nearest-face", test_nearest_face);
  g_test_add_func ("/penalty/detection/sphere-sphere", test_sphere_sphere);
  g_test_add_func ("/penalty/detection/non-convex", test_non_convex);
  g_test_add_func ("/penalty/detection/hash-collisions", test_hash_collisions);
  g_test_add_func ("/penalty/detection/ground-cells", test_ground_cells);
  g_test_add_func ("/penalty/detection/determinism", test_determinism);
  g_test_add_func ("/penalty/detection/consistency", test_consistency);
  g_test_add_func ("/penalty/detection/consistency-corner", test_consistency_corner);
  g_test_add_func ("/penalty/detection/margin", test_margin);
  g_test_add_func ("/penalty/detection/margin-brute-force", test_margin_brute_force);
  g_test_add_func ("/penalty/detection/open-and-particles", test_open_and_particles);
  g_test_add_func ("/penalty/detection/timing", test_timing);
  return g_test_run ();
}

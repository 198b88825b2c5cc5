/* The barycentric mapping plugin, opened as the host opens it (GModule, entry symbol), on
 * surfaces embedded in the FEM body's tetrahedral grid (the fem body model's contract:
 * q = node positions, rest nodes and tetrahedra in the reference surface's frame):
 * affine reproduction (an affine motion of the nodes moves every vertex by the same affine
 * map, the defining property of barycentric embedding), J against finite differences of
 * apply, J^T as the adjoint of J, apply_j_points against apply_j, velocities = J v, the rest
 * shape of a 20 000-triangle sphere and a torus with weights summing to 1, a box's surface
 * refined to the grid, and the refusal of a rigid body, of a malformed one and of a
 * refinement too fine, with messages naming the body. */
#include <float.h>

#include "../rigid/test_plugin.h"
#include "embedded_shape.h"
#include "volume_particles.h"

/* The mapped coordinates are sums of four weight-node products: a few ulps of the largest
 * magnitude involved (`scale` below), 64 leaving a margin. A wrong weight or node would be
 * off by a fraction of a cell, ten orders of magnitude more. */
#define ROUNDOFF_ULPS 64.0
/* Central differences of a map that is linear in q have no truncation error at all, only
 * the round-off of the two positions over the step: 64 ulps of |p| (about 5) / 1e-3 is
 * 7e-11; 1e-9 leaves a margin and is far below a first-order mistake (order 1). */
#define FD_STEP 1e-3
#define FD_TOLERANCE 1e-9

typedef struct Fixture {
  const CwbMappingVTable *vt;
  EmbeddedShape *shape;
  void *map;
  size_t n_points, nq;
  double *q;   /* a deformed state: the rest nodes moved at random */
  VolumeParticles particles;   /* `sample: volume`: the lattice the mapping embeds */
  const double *reference;     /* the mapped points at rest: vertices or particles */
} Fixture;

static const CwbMappingVTable *
barycentric_vtable (void)
{
  return test_plugin_load ("CWB_BARYCENTRIC_MAPPING_PLUGIN", CWB_PLUGIN_MAPPING,
                           "barycentric")->vtable;
}

static void *
map_create (const CwbMappingVTable *vt, const char *name, const CwbBodyInfo *body,
            GError **error)
{
  CwbMappingCreateInfo mi = { .struct_size = sizeof mi, .name = name, .body = body };
  return vt->create (&mi, test_host (), error);
}

/* The same with `sample: volume` at a spacing of `spacing`. */
static void *
map_create_volume (const char *name, const CwbBodyInfo *body, double spacing, GError **error)
{
  const CwbPluginDesc *desc = test_plugin_load ("CWB_BARYCENTRIC_MAPPING_PLUGIN",
                                                CWB_PLUGIN_MAPPING, "barycentric");
  TestParams params;
  test_params_init (&params, desc);
  test_params_set_enum (&params, "sample", "volume");
  test_params_set_double (&params, "particle_spacing", spacing);
  CwbMappingCreateInfo mi = { .struct_size = sizeof mi, .name = name, .body = body,
                              .params = &params.set };
  return ((const CwbMappingVTable *) desc->vtable)->create (&mi, test_host (), error);
}

/* The particles' spacing in the `volume` fixture: about 500 in the ball of radius 0.5. */
#define VOLUME_SPACING 0.1

/* A random vector of n entries in [-1, 1] times `amplitude`. */
static double *
random_vector (GRand *rand, size_t n, double amplitude)
{
  double *x = g_new (double, n);
  for (size_t i = 0; i < n; i++)
    x[i] = amplitude * g_rand_double_range (rand, -1, 1);
  return x;
}

static double
max_abs (const double *x, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax (m, fabs (x[i]));
  return m;
}

static void
fixture_setup (Fixture *fx, gconstpointer data)
{
  fx->vt = barycentric_vtable ();
  /* A sphere of 32 segments (about 1 000 triangles) in a 5-cell grid: small enough for the
   * dense identities below, with vertices spread over every kind of element. */
  CwbShapeDesc sphere = embedded_sphere (0.5, 32);
  fx->shape = embedded_shape_new (&sphere, 5);
  g_autoptr (GError) error = NULL;
  gboolean volume = g_strcmp0 (data, "volume") == 0;
  fx->shape->info.mass = 2.5;   /* what the particles share */
  fx->map = volume ? map_create_volume ("ball", &fx->shape->info, VOLUME_SPACING, &error)
                   : map_create (fx->vt, "ball", &fx->shape->info, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fx->map);
  fx->nq = fx->shape->info.nq;

  CwbGeometryLayout layout;
  fx->vt->get_layout (fx->map, &layout);
  const CwbSurfaceMesh *s = &fx->shape->surface;
  if (volume)
    {
      /* The lattice the mapping sampled, each particle with its share of the mass. */
      g_assert_true (volume_particles_sample (s, VOLUME_SPACING, "ball", &fx->particles, NULL));
      g_assert_cmpint (layout.kind, ==, CWB_GEOMETRY_PARTICLES);
      g_assert_cmpuint (layout.n_points, ==, fx->particles.n);
      g_assert_cmpuint (layout.n_points, >, 400);
      double mass = 0;
      for (size_t k = 0; k < layout.n_points; k++)
        {
          mass += layout.masses[k];
          g_assert_cmpfloat (layout.radii[k], ==,
                             volume_particles_radius (fx->particles.volumes[k]));
        }
      g_assert_cmpfloat_with_epsilon (mass, fx->shape->info.mass,
                                      ROUNDOFF_ULPS * DBL_EPSILON * fx->shape->info.mass);
      fx->reference = fx->particles.positions;
    }
  else
    {
      g_assert_cmpint (layout.kind, ==, CWB_GEOMETRY_SURFACE);
      g_assert_true (layout.closed);
      g_assert_cmpuint (layout.n_points, ==, s->n_vertices);
      g_assert_cmpuint (layout.n_triangles, ==, s->n_triangles);
      g_assert_cmpmem (layout.triangles, layout.n_triangles * 3 * sizeof (uint32_t),
                       s->triangles, s->n_triangles * 3 * sizeof (uint32_t));
      fx->reference = s->vertices;
    }
  fx->n_points = layout.n_points;

  g_autoptr (GRand) rand = g_rand_new_with_seed (17);
  fx->q = random_vector (rand, fx->nq, 0.3);
  for (size_t i = 0; i < fx->nq; i++)
    fx->q[i] += fx->shape->info.rest_nodes[i];
}

static void
fixture_teardown (Fixture *fx, gconstpointer data)
{
  fx->vt->destroy (fx->map);
  embedded_shape_free (fx->shape);
  g_free (fx->q);
  volume_particles_clear (&fx->particles);
}

/* q = A X + b and v = A' X + b' for random A, b, A', b': positions A p + b and velocities
 * A' p + b' for every vertex p of the reference surface (every particle of the volume).
 * Exact in exact arithmetic since
 * the weights sum to 1 and reproduce p from the rest nodes X. */
static void
test_affine (Fixture *fx, gconstpointer data)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  size_t n_nodes = fx->shape->info.n_nodes;
  const double *rest = fx->shape->info.rest_nodes;
  const double *vertices = fx->reference;
  for (int trial = 0; trial < 4; trial++)
    {
      g_autofree double *a = random_vector (rand, 9, 2), *b = random_vector (rand, 3, 5);
      g_autofree double *a_v = random_vector (rand, 9, 3), *b_v = random_vector (rand, 3, 1);
      g_autofree double *q = g_new (double, fx->nq), *v = g_new (double, fx->nq);
      for (size_t i = 0; i < n_nodes; i++)
        {
          cwb_m3_mul_v3 (&q[3 * i], a, &rest[3 * i]);
          cwb_v3_add (&q[3 * i], &q[3 * i], b);
          cwb_m3_mul_v3 (&v[3 * i], a_v, &rest[3 * i]);
          cwb_v3_add (&v[3 * i], &v[3 * i], b_v);
        }
      g_autofree double *p = g_new (double, 3 * fx->n_points);
      g_autofree double *pdot = g_new (double, 3 * fx->n_points);
      fx->vt->apply (fx->map, q, v, p, pdot);
      /* |A X + b| over the nodes bounds every term of the sums. */
      double scale = fmax (max_abs (q, fx->nq), max_abs (v, fx->nq));
      double worst = 0;
      for (size_t j = 0; j < fx->n_points; j++)
        {
          double expected[3], expected_v[3];
          cwb_m3_mul_v3 (expected, a, &vertices[3 * j]);
          cwb_v3_add (expected, expected, b);
          cwb_m3_mul_v3 (expected_v, a_v, &vertices[3 * j]);
          cwb_v3_add (expected_v, expected_v, b_v);
          for (int i = 0; i < 3; i++)
            {
              worst = fmax (worst, fabs (p[3 * j + i] - expected[i]));
              worst = fmax (worst, fabs (pdot[3 * j + i] - expected_v[i]));
              g_assert_cmpfloat_with_epsilon (p[3 * j + i], expected[i],
                                              ROUNDOFF_ULPS * DBL_EPSILON * scale);
              g_assert_cmpfloat_with_epsilon (pdot[3 * j + i], expected_v[i],
                                              ROUNDOFF_ULPS * DBL_EPSILON * scale);
            }
        }
      g_test_message ("affine trial %d: largest error %.2g = %.1f ulps of %.3g", trial, worst,
                      worst / (DBL_EPSILON * scale), scale);
    }
}

static void
positions_at (Fixture *fx, const double *dq, double s, double *p)
{
  g_autofree double *qs = g_new (double, fx->nq);
  for (size_t i = 0; i < fx->nq; i++)
    qs[i] = fx->q[i] + s * dq[i];
  fx->vt->apply (fx->map, qs, NULL, p, NULL);
}

static void
test_j_finite_differences (Fixture *fx, gconstpointer data)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (23);
  g_autofree double *dq = random_vector (rand, fx->nq, 1);
  size_t np = 3 * fx->n_points;
  g_autofree double *plus = g_new (double, np), *minus = g_new (double, np);
  g_autofree double *jdq = g_new (double, np);
  positions_at (fx, dq, FD_STEP, plus);
  positions_at (fx, dq, -FD_STEP, minus);
  fx->vt->apply_j (fx->map, fx->q, dq, jdq);
  for (size_t i = 0; i < np; i++)
    g_assert_cmpfloat_with_epsilon (jdq[i], (plus[i] - minus[i]) / (2 * FD_STEP), FD_TOLERANCE);
  /* Not vacuous: the increment moves the vertices by order 1. */
  g_assert_cmpfloat (max_abs (jdq, np), >, 0.1);
}

/* <J dq, f> = <dq, J^T f> for forces on every vertex; J^T accumulates into r. The two sides
 * sum the same products in another order: round-off of the sum of |terms| (about n_points
 * products of order 1). */
static void
test_jt_adjoint (Fixture *fx, gconstpointer data)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (29);
  g_autofree double *dq = random_vector (rand, fx->nq, 1);
  g_autofree CwbPointWeight *f = g_new (CwbPointWeight, fx->n_points);
  for (size_t j = 0; j < fx->n_points; j++)
    {
      f[j] = (CwbPointWeight) { .geometry = 0, .point = (uint32_t) j };
      for (int i = 0; i < 3; i++)
        f[j].w[i] = g_rand_double_range (rand, -1, 1);
    }
  g_autofree double *jdq = g_new (double, 3 * fx->n_points);
  g_autofree double *r = g_new0 (double, fx->nq);
  fx->vt->apply_j (fx->map, fx->q, dq, jdq);
  fx->vt->apply_jt (fx->map, fx->q, f, fx->n_points, r);
  double lhs = 0, rhs = 0, magnitude = 0;
  for (size_t j = 0; j < fx->n_points; j++)
    for (int i = 0; i < 3; i++)
      {
        lhs += jdq[3 * j + i] * f[j].w[i];
        magnitude += fabs (jdq[3 * j + i] * f[j].w[i]);
      }
  for (size_t i = 0; i < fx->nq; i++)
    rhs += dq[i] * r[i];
  g_assert_cmpfloat_with_epsilon (lhs, rhs, ROUNDOFF_ULPS * DBL_EPSILON * magnitude);
  g_assert_cmpfloat (magnitude, >, 1);

  /* Accumulates rather than overwrites; forces on a few points only reach their nodes. */
  g_autofree double *r2 = g_new (double, fx->nq);
  for (size_t i = 0; i < fx->nq; i++)
    r2[i] = 1;
  fx->vt->apply_jt (fx->map, fx->q, f, fx->n_points, r2);
  for (size_t i = 0; i < fx->nq; i++)
    g_assert_cmpfloat_with_epsilon (r2[i], r[i] + 1,
                                    ROUNDOFF_ULPS * DBL_EPSILON * (1 + fabs (r[i])));

  /* One unit force on one vertex: the nodes receive its weights, which sum to 1 (the force
   * is conserved: sum over nodes of J^T f = f). */
  CwbPointWeight one = { .geometry = 0, .point = (uint32_t) (fx->n_points / 3),
                         .w = { 0, 0, 1 } };
  g_autofree double *r1 = g_new0 (double, fx->nq);
  fx->vt->apply_jt (fx->map, fx->q, &one, 1, r1);
  double total[3] = { 0, 0, 0 };
  size_t touched = 0;
  for (size_t n = 0; n < fx->shape->info.n_nodes; n++)
    {
      cwb_v3_add (total, total, &r1[3 * n]);
      touched += r1[3 * n + 2] != 0;
    }
  g_assert_cmpfloat (total[0], ==, 0);
  g_assert_cmpfloat (total[1], ==, 0);
  g_assert_cmpfloat_with_epsilon (total[2], 1, ROUNDOFF_ULPS * DBL_EPSILON);
  g_assert_cmpuint (touched, <=, 4);
  g_assert_cmpuint (touched, >=, 1);
}

/* apply_j_points is apply_j's rows: the same arithmetic, so equal to the bit. */
static void
test_j_points (Fixture *fx, gconstpointer data)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);
  g_autofree double *dq = random_vector (rand, fx->nq, 1);
  g_autofree double *jdq = g_new (double, 3 * fx->n_points);
  fx->vt->apply_j (fx->map, fx->q, dq, jdq);
  g_assert_nonnull (fx->vt->apply_j_points);
  enum { N = 40 };
  uint32_t points[N];
  double dp[3 * N];
  for (int i = 0; i < N; i++)
    points[i] = (uint32_t) g_rand_int_range (rand, 0, (gint32) fx->n_points);
  points[0] = 0;
  points[N - 1] = (uint32_t) fx->n_points - 1;
  fx->vt->apply_j_points (fx->map, fx->q, dq, points, N, dp);
  for (int i = 0; i < N; i++)
    for (int a = 0; a < 3; a++)
      g_assert_cmpfloat (dp[3 * i + a], ==, jdq[3 * points[i] + a]);
}

/* point_dofs lists where J^T of a point's force lands: over every point, a random force's
 * J^T is nonzero only at the listed DOFs (12: four nodes, three each), and nonzero at each
 * node whose weight is (exact zeros aside, which random forces and weights do not give). */
static void
test_point_dofs (Fixture *fx, gconstpointer data)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (41);
  g_assert_nonnull (fx->vt->point_dofs);
  g_autofree double *r = g_new0 (double, fx->nq);
  g_autofree gboolean *listed = g_new0 (gboolean, fx->nq);
  for (size_t i = 0; i < fx->n_points; i++)
    {
      uint32_t dofs[12];
      g_assert_cmpuint (fx->vt->point_dofs (fx->map, (uint32_t) i, dofs, 12), ==, 12);
      uint32_t fewer[5];
      g_assert_cmpuint (fx->vt->point_dofs (fx->map, (uint32_t) i, fewer, 5), ==, 12);
      for (int k = 0; k < 12; k++)
        {
          g_assert_cmpuint (dofs[k], <, fx->nq);
          listed[dofs[k]] = TRUE;
        }
      CwbPointWeight force = { .point = (uint32_t) i };
      for (int a = 0; a < 3; a++)
        force.w[a] = g_rand_double_range (rand, 0.5, 1.5);
      memset (r, 0, fx->nq * sizeof (double));
      fx->vt->apply_jt (fx->map, fx->q, &force, 1, r);
      for (size_t d = 0; d < fx->nq; d++)
        g_assert_true (r[d] == 0 || listed[d]);
      for (int k = 0; k < 12; k++)
        listed[dofs[k]] = FALSE;
    }
}

/* velocities = J v (the same combination of node velocities), and the map is linear: no
 * geometric stiffness. */
static void
test_velocities (Fixture *fx, gconstpointer data)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (37);
  g_autofree double *v = random_vector (rand, fx->nq, 2);
  size_t np = 3 * fx->n_points;
  g_autofree double *p = g_new (double, np), *pdot = g_new (double, np);
  g_autofree double *jv = g_new (double, np), *p_only = g_new (double, np);
  fx->vt->apply (fx->map, fx->q, v, p, pdot);
  fx->vt->apply_j (fx->map, fx->q, v, jv);
  fx->vt->apply (fx->map, fx->q, NULL, p_only, NULL);
  for (size_t i = 0; i < np; i++)
    {
      g_assert_cmpfloat (pdot[i], ==, jv[i]);
      g_assert_cmpfloat (p[i], ==, p_only[i]);
    }
  g_assert_null (fx->vt->geometric_stiffness_apply);
}

/* ---- real shapes through the plugin --------------------------------------------------- */

/* At q = the rest nodes the mapping gives back the reference surface; with every node at
 * (1, 0, 0) each vertex's x is the sum of its weights, 1. */
static void
check_rest_shape (const CwbShapeDesc *desc, int cells, size_t min_triangles)
{
  const CwbMappingVTable *vt = barycentric_vtable ();
  g_autoptr (EmbeddedShape) shape = embedded_shape_new (desc, cells);
  const CwbSurfaceMesh *s = &shape->surface;
  g_assert_cmpuint (s->n_triangles, >=, min_triangles);
  g_autoptr (GError) error = NULL;
  void *map = map_create (vt, "embedded", &shape->info, &error);
  g_assert_no_error (error);
  size_t np = 3 * s->n_vertices, nq = shape->info.nq;
  g_autofree double *p = g_new (double, np);
  vt->apply (map, shape->info.rest_nodes, NULL, p, NULL);
  /* The largest rest coordinate bounds every term of the sums (weights in [0, 1]). */
  double scale = max_abs (shape->info.rest_nodes, nq), worst = 0;
  for (size_t i = 0; i < np; i++)
    {
      worst = fmax (worst, fabs (p[i] - s->vertices[i]));
      g_assert_cmpfloat_with_epsilon (p[i], s->vertices[i],
                                      ROUNDOFF_ULPS * DBL_EPSILON * scale);
    }
  g_autofree double *ones = g_new0 (double, nq);
  for (size_t n = 0; n < shape->info.n_nodes; n++)
    ones[3 * n] = 1;
  vt->apply (map, ones, NULL, p, NULL);
  for (size_t j = 0; j < s->n_vertices; j++)
    {
      g_assert_cmpfloat_with_epsilon (p[3 * j], 1, ROUNDOFF_ULPS * DBL_EPSILON);
      g_assert_cmpfloat (p[3 * j + 1], ==, 0);
      g_assert_cmpfloat (p[3 * j + 2], ==, 0);
    }
  g_test_message ("%s: %zu triangles on %zu nodes, rest shape to %.2g (%.1f ulps of %g)",
                  s->source, s->n_triangles, shape->info.n_nodes, worst,
                  worst / (DBL_EPSILON * scale), scale);
  vt->destroy (map);
}

static void
test_sphere_rest_shape (void)
{
  CwbShapeDesc sphere = embedded_sphere (0.5, 142);
  check_rest_shape (&sphere, 6, 19000);
}

static void
test_torus_rest_shape (void)
{
  CwbShapeDesc torus = embedded_torus (1, 0.3, 100);
  check_rest_shape (&torus, 16, 19000);
}

/* ---- the refined surface ---------------------------------------------------------------- */

/* The mapping with `refine_surface` and `surface_spacing` set (spacing 0: automatic). */
static void *
map_create_refined (const char *name, const CwbBodyInfo *body, gboolean refine, double spacing,
                    GError **error)
{
  const CwbPluginDesc *desc = test_plugin_load ("CWB_BARYCENTRIC_MAPPING_PLUGIN",
                                                CWB_PLUGIN_MAPPING, "barycentric");
  TestParams params;
  test_params_init (&params, desc);
  test_params_set_bool (&params, "refine_surface", refine);
  test_params_set_double (&params, "surface_spacing", spacing);
  CwbMappingCreateInfo mi = { .struct_size = sizeof mi, .name = name, .body = body,
                              .params = &params.set };
  return ((const CwbMappingVTable *) desc->vtable)->create (&mi, test_host (), error);
}

/* A box of 0.24 x 0.24 x 0.16 m (a primitive: its 8 corners and 12 triangles) in a grid of 4
 * cells along its longest side, 0.06 m, spanning its bounds (as the fem body builds it),
 * refined to that cell by default. The refined surface
 * at rest (apply on the rest nodes):
 *  - keeps the box's 8 corners first, and every point lies on the box's faces;
 *  - has no edge longer than the cell (its automatic spacing), up to the split's slack;
 *  - is closed and consistently oriented: each directed edge once, its reverse once;
 *  - encloses the box's volume and has its area, to round-off (the split points lie on
 *    the original triangles);
 *  - has a point on every grid node of the bottom face (the face 4 x 4 cells of 0.06 m,
 *    halved twice), so a support's forces reach every node of it and not just the four
 *    corner nodes.
 * With `refine_surface: false` the mapping shows the 8 corners, as before the refinement. */
static void
test_refined_box (void)
{
  const CwbMappingVTable *vt = barycentric_vtable ();
  CwbShapeDesc desc = embedded_box (0.24, 0.24, 0.16);
  g_autoptr (EmbeddedShape) shape = embedded_shape_new_fitted (&desc, 4, TET_GRID_FIT_BOUNDS);
  const CwbSurfaceMesh *s = &shape->surface;
  g_assert_cmpuint (s->n_vertices, ==, 8);
  const double half[3] = { 0.12, 0.12, 0.08 }, cell = 0.06;
  g_autoptr (GError) error = NULL;
  void *map = map_create_refined ("block", &shape->info, TRUE, 0, &error);
  g_assert_no_error (error);
  CwbGeometryLayout layout;
  vt->get_layout (map, &layout);
  g_assert_true (layout.closed);
  size_t n = layout.n_points, nt = layout.n_triangles;
  g_assert_cmpuint (n, >, 8);
  g_autofree double *p = g_new (double, 3 * n);
  vt->apply (map, shape->info.rest_nodes, NULL, p, NULL);
  double tol = ROUNDOFF_ULPS * DBL_EPSILON * 0.12;

  for (size_t j = 0; j < n; j++)
    {
      gboolean on_face = FALSE;
      for (int c = 0; c < 3; c++)
        {
          g_assert_cmpfloat (fabs (p[3 * j + c]), <=, half[c] + tol);
          on_face = on_face || fabs (fabs (p[3 * j + c]) - half[c]) <= tol;
          if (j < 8)
            g_assert_cmpfloat_with_epsilon (p[3 * j + c], s->vertices[3 * j + c], tol);
        }
      g_assert_true (on_face);
    }

  g_autoptr (GHashTable) directed = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *keys = g_new (gint64, 3 * nt);
  double volume = 0, area = 0, longest = 0;
  for (size_t t = 0; t < nt; t++)
    {
      const uint32_t *tri = &layout.triangles[3 * t];
      for (int k = 0; k < 3; k++)
        {
          uint32_t a = tri[k], b = tri[(k + 1) % 3];
          g_assert_cmpuint (a, <, n);
          keys[3 * t + k] = ((gint64) a << 32) | b;
          g_assert_true (g_hash_table_add (directed, &keys[3 * t + k]));   /* once */
          double d[3];
          cwb_v3_sub (d, &p[3 * b], &p[3 * a]);
          longest = fmax (longest, cwb_v3_norm (d));
        }
      double e1[3], e2[3], c[3];
      cwb_v3_sub (e1, &p[3 * tri[1]], &p[3 * tri[0]]);
      cwb_v3_sub (e2, &p[3 * tri[2]], &p[3 * tri[0]]);
      cwb_v3_cross (c, e1, e2);
      area += 0.5 * cwb_v3_norm (c);
      double c12[3];
      cwb_v3_cross (c12, &p[3 * tri[1]], &p[3 * tri[2]]);
      volume += cwb_v3_dot (&p[3 * tri[0]], c12) / 6;
    }
  for (size_t k = 0; k < 3 * nt; k++)
    {
      gint64 reverse = ((keys[k] & 0xffffffff) << 32) | (keys[k] >> 32);
      g_assert_true (g_hash_table_contains (directed, &reverse));
    }
  g_test_message ("refined box: %zu points, %zu triangles, longest edge %g m (cell %g), "
                  "volume %.17g, area %.17g", n, nt, longest, cell, volume, area);
  /* The split's slack is 1e-9 of the limit (surface_refine.c). */
  g_assert_cmpfloat (longest, <=, cell * (1 + 1e-9));
  double box_volume = 0.24 * 0.24 * 0.16, box_area = 2 * (0.24 * 0.24 + 2 * 0.24 * 0.16);
  g_assert_cmpfloat_with_epsilon (volume, box_volume, ROUNDOFF_ULPS * DBL_EPSILON * box_volume);
  g_assert_cmpfloat_with_epsilon (area, box_area, ROUNDOFF_ULPS * DBL_EPSILON * box_area);

  size_t bottom_nodes = 0;
  for (size_t i = 0; i < shape->info.n_nodes; i++)
    {
      const double *x = &shape->info.rest_nodes[3 * i];
      if (fabs (x[2] + half[2]) > tol)
        continue;
      bottom_nodes++;
      double nearest = INFINITY;
      for (size_t j = 0; j < n; j++)
        {
          double d[3];
          cwb_v3_sub (d, &p[3 * j], x);
          nearest = fmin (nearest, cwb_v3_norm (d));
        }
      g_assert_cmpfloat (nearest, <=, tol);
    }
  g_assert_cmpuint (bottom_nodes, ==, 25);
  vt->destroy (map);

  map = map_create_refined ("block", &shape->info, FALSE, 0, &error);
  g_assert_no_error (error);
  vt->get_layout (map, &layout);
  g_assert_cmpuint (layout.n_points, ==, 8);
  g_assert_cmpuint (layout.n_triangles, ==, 12);
  vt->destroy (map);
}

/* A spacing far too fine for the body is refused, naming the body and the parameters. */
static void
test_refined_too_fine (void)
{
  CwbShapeDesc desc = embedded_box (1, 1, 1);
  g_autoptr (EmbeddedShape) shape = embedded_shape_new (&desc, 2);
  g_autoptr (GError) error = NULL;
  g_assert_null (map_create_refined ("dust", &shape->info, TRUE, 1e-4, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "body 'dust'"));
  g_assert_nonnull (strstr (error->message, "surface_spacing"));
}

/* ---- refusals ------------------------------------------------------------------------- */

/* A rigid body (the real rigid body model) has no tetrahedra: refused, naming the body and
 * saying what the mapping needs. */
static void
test_rigid_refused (void)
{
  const CwbBodyModelVTable *body_vt = test_rigid_body_vtable (NULL);
  const CwbMappingVTable *vt = barycentric_vtable ();
  g_autoptr (TestShape) box = test_shape_box (1, 2, 3);
  CwbBodyCreateInfo info = test_body_info ("crate", box, 500, FALSE, NULL);
  g_autoptr (GError) error = NULL;
  void *body = body_vt->create (&info, test_host (), &error);
  g_assert_no_error (error);
  CwbBodyInfo bi;
  body_vt->get_info (body, &bi);
  g_assert_null (map_create (vt, "crate", &bi, &error));
  g_assert_nonnull (error);
  g_assert_cmpstr (g_quark_to_string (error->domain), ==,
                   "cwb-barycentric-mapping-error-quark");
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "body 'crate'"));
  g_assert_nonnull (strstr (error->message, "needs a deformable body model"));
  body_vt->destroy (body);
}

/* A body whose state is not its nodes, or whose tetrahedra name missing nodes. */
static void
test_malformed_refused (void)
{
  const CwbMappingVTable *vt = barycentric_vtable ();
  CwbShapeDesc sphere = embedded_sphere (0.5, 16);
  g_autoptr (EmbeddedShape) shape = embedded_shape_new (&sphere, 3);
  g_autoptr (GError) error = NULL;

  CwbBodyInfo bad_state = shape->info;
  bad_state.nv = bad_state.nq - 1;
  g_assert_null (map_create (vt, "odd", &bad_state, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "body 'odd'"));
  g_assert_nonnull (strstr (error->message, "nq = nv ="));
  g_clear_error (&error);

  g_autofree uint32_t *tets = g_memdup2 (shape->info.tetrahedra,
                                         4 * shape->info.n_tetrahedra * sizeof (uint32_t));
  tets[4 * shape->info.n_tetrahedra - 1] = (uint32_t) shape->info.n_nodes;
  CwbBodyInfo bad_index = shape->info;
  bad_index.tetrahedra = tets;
  g_assert_null (map_create (vt, "torn", &bad_index, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "body 'torn'"));
  g_assert_nonnull (strstr (error->message, "names node"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add ("/barycentric/mapping/" path, Fixture, NULL, fixture_setup, \
                                  fn, fixture_teardown)
  ADD ("affine", test_affine);
  ADD ("j-finite-differences", test_j_finite_differences);
  ADD ("jt-adjoint", test_jt_adjoint);
  ADD ("j-points", test_j_points);
  ADD ("velocities", test_velocities);
  ADD ("point-dofs", test_point_dofs);
#define ADD_VOLUME(path, fn) g_test_add ("/barycentric/mapping/volume/" path, Fixture, \
                                         "volume", fixture_setup, fn, fixture_teardown)
  ADD_VOLUME ("affine", test_affine);
  ADD_VOLUME ("j-finite-differences", test_j_finite_differences);
  ADD_VOLUME ("jt-adjoint", test_jt_adjoint);
  ADD_VOLUME ("j-points", test_j_points);
  ADD_VOLUME ("velocities", test_velocities);
  ADD_VOLUME ("point-dofs", test_point_dofs);
  g_test_add_func ("/barycentric/mapping/sphere-rest-shape", test_sphere_rest_shape);
  g_test_add_func ("/barycentric/mapping/torus-rest-shape", test_torus_rest_shape);
  g_test_add_func ("/barycentric/mapping/refined-box", test_refined_box);
  g_test_add_func ("/barycentric/mapping/refined-too-fine", test_refined_too_fine);
  g_test_add_func ("/barycentric/mapping/rigid-refused", test_rigid_refused);
  g_test_add_func ("/barycentric/mapping/malformed-refused", test_malformed_refused);
  return g_test_run ();
}

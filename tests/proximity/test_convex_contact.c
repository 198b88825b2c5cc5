/* Contact manifolds between convex polytopes (plugins/common/surface-detection/
 * convex_contact.c), against closed forms on unit cubes placed by hand: the polytope
 * structure of a box (6 faces, 12 edges, 8 vertices) and of shapes that are not polytopes;
 * a cube resting flush on a cube (the four corners of the overlap square, at the depth set);
 * a cube turned 45 degrees on a cube (an octagon reduced to four points that keep most of
 * its area); two cubes crossed edge on edge (one contact between the two edges); cubes side
 * by side face to face (gap 0); a cube on a corner; the margin; and identities that stay
 * while the contact does and are unique. */
#include <math.h>
#include <stdlib.h>

#include <cwb/cwb.h>

#include "convex_contact.h"
#include "convex_polytope.h"
#include "mesh.h"

/* Every expected value is a few sums of products of numbers given to a few decimals and of
 * sqrt 2: exact to a few ulps of 1; 1e-12 leaves ample room. */
#define TOLERANCE 1e-12
#define DEPTH 1e-3

typedef struct Body {
  CwbMesh *mesh;
  double *positions;
  CwbGeometry geometry;
} Body;

/* Places b's mesh at `position`, turned by the rotation vector `turn` (axis * angle). */
static void
body_place (Body *b, const double position[3], const double turn[3])
{
  double q[4], r[9];
  cwb_quat_from_rotvec (q, turn);
  cwb_quat_to_m3 (r, q);
  for (size_t i = 0; i < cwb_mesh_n_vertices (b->mesh); i++)
    {
      cwb_m3_mul_v3 (&b->positions[3 * i], r,
                     &g_array_index (b->mesh->vertices, double, 3 * i));
      cwb_v3_add (&b->positions[3 * i], &b->positions[3 * i], position);
    }
}

/* A primitive shape at `position`, turned by the rotation vector `turn` (axis * angle). */
static void
body_init (Body *b, const CwbShapeDesc *shape, uint32_t index, const double position[3],
           const double turn[3])
{
  g_autoptr (GError) error = NULL;
  b->mesh = cwb_mesh_from_shape (shape, NULL, &error);
  g_assert_no_error (error);
  size_t n = cwb_mesh_n_vertices (b->mesh);
  b->positions = g_new (double, 3 * n);
  body_place (b, position, turn);
  b->geometry = (CwbGeometry) {
    .struct_size = sizeof (CwbGeometry),
    .kind = CWB_GEOMETRY_SURFACE,
    .body = index,
    .n_points = n,
    .positions = b->positions,
    .triangles = (const uint32_t *) (const void *) b->mesh->triangles->data,
    .n_triangles = cwb_mesh_n_triangles (b->mesh),
    .closed = b->mesh->closed,
  };
}

static void
cube_init (Body *b, uint32_t index, double x, double y, double z, const double turn[3])
{
  CwbShapeDesc shape = { .kind = CWB_SHAPE_BOX, .size = { 1, 1, 1 } };
  double position[3] = { x, y, z };
  double none[3] = { 0, 0, 0 };
  body_init (b, &shape, index, position, turn != NULL ? turn : none);
}

static void
body_clear (Body *b)
{
  cwb_mesh_free (b->mesh);
  g_free (b->positions);
}

/* The manifold of two bodies with `margin`; checks what every contact must satisfy: the
 * normal is unit, each side's weights sum to 1 and place its point, and the gap is the
 * normal's distance between them. */
static GArray *
detect (Body *a, Body *b, double margin, gboolean handled_expected)
{
  CwbGeometry geometries[2] = { a->geometry, b->geometry };
  gboolean handled[2];
  GArray *contacts = g_array_new (FALSE, FALSE, sizeof (ManifoldContact));
  g_autoptr (ConvexDetector) detector = convex_detector_new ();
  convex_detector_run (detector, geometries, 2, margin, handled, contacts);
  g_assert_cmpint (handled[0], ==, handled_expected);
  g_assert_cmpint (handled[1], ==, handled_expected);
  for (guint k = 0; k < contacts->len; k++)
    {
      const ManifoldContact *c = &g_array_index (contacts, ManifoldContact, k);
      g_assert_cmpfloat_with_epsilon (cwb_v3_norm (c->normal), 1, TOLERANCE);
      const SurfacePoint *sides[2] = { &c->a, &c->b };
      for (int s = 0; s < 2; s++)
        {
          double sum = 0, at[3] = { 0, 0, 0 };
          const CwbGeometry *g = &geometries[sides[s]->geometry];
          for (uint32_t v = 0; v < sides[s]->n; v++)
            {
              sum += sides[s]->weight[v];
              cwb_v3_axpy (at, sides[s]->weight[v], &g->positions[3 * sides[s]->vertex[v]]);
            }
          g_assert_cmpfloat_with_epsilon (sum, 1, TOLERANCE);
          for (int i = 0; i < 3; i++)
            g_assert_cmpfloat_with_epsilon (at[i], sides[s]->position[i], TOLERANCE);
        }
      double d[3];
      cwb_v3_sub (d, c->a.position, c->b.position);
      g_assert_cmpfloat_with_epsilon (c->gap, cwb_v3_dot (c->normal, d), TOLERANCE);
      g_assert_cmpuint (c->a.geometry, !=, c->b.geometry);
    }
  return contacts;
}

/* The normal points from b's body towards a's: +axis when a is the body on the + side. */
static double
normal_towards_a (const ManifoldContact *c, int axis, uint32_t plus_side)
{
  return c->a.geometry == plus_side ? c->normal[axis] : -c->normal[axis];
}

static void
test_polytope_structure (void)
{
  Body cube, torus;
  cube_init (&cube, 0, 0, 0, 0, NULL);
  CwbShapeDesc ring = { .kind = CWB_SHAPE_TORUS, .major_radius = 0.2, .minor_radius = 0.05,
                        .resolution = 12 };
  double origin[3] = { 0, 0, 0 };
  body_init (&torus, &ring, 1, origin, origin);

  TopologyCache cache;
  topology_cache_init (&cache);
  gboolean built;
  ConvexPolytope p = { 0 };
  Topology *topology = topology_cache_lookup (&cache, &cube.geometry, 1, &built);
  g_assert_true (convex_polytope_update (&p, &cube.geometry, topology));
  g_assert_false (p.sampled);
  g_assert_cmpuint (p.n_faces, ==, 6);
  g_assert_cmpuint (p.n_edges, ==, 12);
  g_assert_cmpuint (p.n_vertices, ==, 8);
  for (uint32_t f = 0; f < p.n_faces; f++)
    {
      g_assert_cmpuint (p.faces[f].n_vertices, ==, 4);
      g_assert_cmpuint (p.faces[f].n_triangles, ==, 2);
      g_assert_cmpfloat_with_epsilon (p.faces[f].offset, 0.5, TOLERANCE);
    }
  /* Pushing one corner outwards along x by 0.01 (1.2e-2 of the radius, as an FEM box bends)
   * keeps a polytope: the face across x bends, and its plane moves out to hold the corner
   * (the two other faces at the corner stay planar, the corner moving within them); every
   * vertex behind every plane (round-off), the other faces where they were. */
  cube.positions[0] -= 0.01;
  g_assert_true (convex_polytope_update (&p, &cube.geometry, topology));
  guint moved = 0;
  for (uint32_t f = 0; f < p.n_faces; f++)
    {
      for (uint32_t k = 0; k < p.n_vertices; k++)
        g_assert_cmpfloat (cwb_v3_dot (p.faces[f].normal, &cube.positions[3 * p.vertices[k]]),
                           <=, p.faces[f].offset + 1e-15);
      moved += fabs (p.faces[f].offset - 0.5) > TOLERANCE;
    }
  g_assert_cmpuint (moved, ==, 1);
  /* By 0.3: its face's vertices 0.075 off their mean plane, 7.2e-2 of the radius (1.04),
   * beyond 5e-2: no longer a polytope. */
  cube.positions[0] -= 0.29;
  g_assert_false (convex_polytope_update (&p, &cube.geometry, topology));
  convex_polytope_clear (&p);

  /* The cube with a vertex at the centre of its +x face (four triangles around it), its
   * face sampled beyond its corners as a deformable body's refined surface is: a polytope
   * at rest (the centre in its face's plane, the face one loop of four corners), but pushed
   * out by 1e-3 (1e-3 of the radius, well within the tolerance the eight-corner cube keeps
   * above) it is left to the point detection, whose points spread a load over the face
   * where a manifold keeps four. */
  Body sampled;
  cube_init (&sampled, 0, 0, 0, 0, NULL);
  g_autoptr (GArray) sampled_triangles = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  for (size_t t = 0; t < sampled.geometry.n_triangles; t++)
    {
      const uint32_t *tri = &sampled.geometry.triangles[3 * t];
      if (!(tri[0] & tri[1] & tri[2] & 1))   /* bit 0: on the +x side */
        g_array_append_vals (sampled_triangles, tri, 3);
    }
  static const uint32_t fan[12] = { 1, 3, 8, 3, 7, 8, 7, 5, 8, 5, 1, 8 };
  g_array_append_vals (sampled_triangles, fan, 12);
  double sampled_positions[27];
  memcpy (sampled_positions, sampled.positions, 24 * sizeof (double));
  cwb_v3_set (&sampled_positions[24], 0.5, 0, 0);
  CwbGeometry sampled_geometry = sampled.geometry;
  sampled_geometry.n_points = 9;
  sampled_geometry.positions = sampled_positions;
  sampled_geometry.triangles = (const uint32_t *) (const void *) sampled_triangles->data;
  sampled_geometry.n_triangles = sampled_triangles->len / 3;
  topology = topology_cache_lookup (&cache, &sampled_geometry, 2, &built);
  g_assert_true (convex_polytope_update (&p, &sampled_geometry, topology));
  g_assert_true (p.sampled);
  g_assert_cmpuint (p.n_faces, ==, 6);
  g_assert_cmpuint (p.n_vertices, ==, 8);
  sampled_positions[24] += 1e-3;
  g_assert_false (convex_polytope_update (&p, &sampled_geometry, topology));
  convex_polytope_clear (&p);
  body_clear (&sampled);

  /* A torus is closed but not convex. */
  topology = topology_cache_lookup (&cache, &torus.geometry, 3, &built);
  g_assert_false (convex_polytope_update (&p, &torus.geometry, topology));
  convex_polytope_clear (&p);
  topology_cache_clear (&cache);
  body_clear (&cube);
  body_clear (&torus);
}

/* A cube resting on a cube off centre, DEPTH into it: the four corners of the overlap
 * square [-0.2, 0.5] x [-0.3, 0.5], at gap -DEPTH, normal +z towards the upper cube. */
static void
test_face_flush_stack (void)
{
  Body lower, upper;
  cube_init (&lower, 0, 0, 0, 0, NULL);
  cube_init (&upper, 1, 0.3, 0.2, 1 - DEPTH, NULL);
  g_autoptr (GArray) contacts = detect (&lower, &upper, 0, TRUE);
  g_assert_cmpuint (contacts->len, ==, 4);
  int corners = 0;
  for (guint k = 0; k < contacts->len; k++)
    {
      const ManifoldContact *c = &g_array_index (contacts, ManifoldContact, k);
      g_assert_cmpfloat_with_epsilon (c->gap, -DEPTH, TOLERANCE);
      g_assert_cmpfloat_with_epsilon (normal_towards_a (c, 2, 1), 1, TOLERANCE);
      double x = c->b.position[0], y = c->b.position[1];
      gboolean x_ok = fabs (x + 0.2) < TOLERANCE || fabs (x - 0.5) < TOLERANCE;
      gboolean y_ok = fabs (y + 0.3) < TOLERANCE || fabs (y - 0.5) < TOLERANCE;
      g_assert_true (x_ok && y_ok);
      corners |= 1 << ((x > 0) + 2 * (y > 0));
    }
  g_assert_cmpint (corners, ==, 15);
  body_clear (&lower);
  body_clear (&upper);
}

/* A cube turned 45 degrees about z on a cube: the overlap is the regular octagon of area
 * 2 (sqrt 2 - 1) = 0.828; four of its eight corners are kept, spanning the largest
 * quadrilateral the reduction finds. Any four corners of the octagon with one in each
 * quadrant span at least half of it (0.5 = the square on alternate corners, 0.5 / 0.828 of
 * the area), which is the bound checked. */
static void
test_face_turned (void)
{
  double turn[3] = { 0, 0, G_PI / 4 };
  Body lower, upper;
  cube_init (&lower, 0, 0, 0, 0, NULL);
  cube_init (&upper, 1, 0, 0, 1 - DEPTH, turn);
  g_autoptr (GArray) contacts = detect (&lower, &upper, 0, TRUE);
  g_assert_cmpuint (contacts->len, ==, 4);
  double xy[4][2];
  for (guint k = 0; k < 4; k++)
    {
      const ManifoldContact *c = &g_array_index (contacts, ManifoldContact, k);
      g_assert_cmpfloat_with_epsilon (c->gap, -DEPTH, TOLERANCE);
      g_assert_cmpfloat_with_epsilon (fabs (c->normal[2]), 1, TOLERANCE);
      xy[k][0] = c->b.position[0];
      xy[k][1] = c->b.position[1];
      /* On the octagon's border: inside both squares, on one of their sides. */
      double r = fabs (xy[k][0]) + fabs (xy[k][1]);
      g_assert_cmpfloat (fabs (xy[k][0]), <=, 0.5 + TOLERANCE);
      g_assert_cmpfloat (fabs (xy[k][1]), <=, 0.5 + TOLERANCE);
      g_assert_cmpfloat (r, <=, G_SQRT2 / 2 + TOLERANCE);
    }
  /* Area of the quadrilateral in angular order around the centre. */
  int order[4] = { 0, 1, 2, 3 };
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      if (atan2 (xy[order[j]][1], xy[order[j]][0]) < atan2 (xy[order[i]][1], xy[order[i]][0]))
        {
          int t = order[i];
          order[i] = order[j];
          order[j] = t;
        }
  double area = 0;
  for (int i = 0; i < 4; i++)
    {
      const double *p = xy[order[i]], *q = xy[order[(i + 1) % 4]];
      area += 0.5 * (p[0] * q[1] - q[0] * p[1]);
    }
  g_assert_cmpfloat (area, >=, 0.5 - TOLERANCE);
  body_clear (&lower);
  body_clear (&upper);
}

/* The lower cube turned 45 degrees about y (its top edge along y at z = sqrt 2 / 2), the
 * upper about x (its bottom edge along x), DEPTH apart into each other: one contact, at the
 * crossing of the two edges, normal +z. */
static void
test_edge_crossed (void)
{
  double about_y[3] = { 0, G_PI / 4, 0 }, about_x[3] = { G_PI / 4, 0, 0 };
  Body lower, upper;
  cube_init (&lower, 0, 0, 0, 0, about_y);
  cube_init (&upper, 1, 0, 0, G_SQRT2 - DEPTH, about_x);
  g_autoptr (GArray) contacts = detect (&lower, &upper, 0, TRUE);
  g_assert_cmpuint (contacts->len, ==, 1);
  const ManifoldContact *c = &g_array_index (contacts, ManifoldContact, 0);
  g_assert_cmpfloat_with_epsilon (c->gap, -DEPTH, TOLERANCE);
  g_assert_cmpfloat_with_epsilon (normal_towards_a (c, 2, 1), 1, TOLERANCE);
  g_assert_cmpuint (c->a.n, ==, 2);
  g_assert_cmpuint (c->b.n, ==, 2);
  const SurfacePoint *on_lower = c->a.geometry == 0 ? &c->a : &c->b;
  double top[3] = { 0, 0, G_SQRT2 / 2 };
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat_with_epsilon (on_lower->position[i], top[i], TOLERANCE);
  body_clear (&lower);
  body_clear (&upper);
}

/* Two cubes side by side, face to face: touching, gap 0, along x; with a margin they are
 * found 5 mm apart too (gap 5e-3), and not beyond it. */
static void
test_face_side_by_side (void)
{
  Body left, right;
  cube_init (&left, 0, 0, 0, 0, NULL);
  cube_init (&right, 1, 1, 0.25, 0, NULL);
  g_autoptr (GArray) touching = detect (&left, &right, 0, TRUE);
  g_assert_cmpuint (touching->len, ==, 4);
  for (guint k = 0; k < touching->len; k++)
    {
      const ManifoldContact *c = &g_array_index (touching, ManifoldContact, k);
      g_assert_cmpfloat_with_epsilon (c->gap, 0, TOLERANCE);
      g_assert_cmpfloat_with_epsilon (normal_towards_a (c, 0, 1), 1, TOLERANCE);
    }
  body_clear (&right);
  cube_init (&right, 1, 1.005, 0.25, 0, NULL);
  g_autoptr (GArray) near = detect (&left, &right, 0.01, TRUE);
  g_assert_cmpuint (near->len, ==, 4);
  for (guint k = 0; k < near->len; k++)
    g_assert_cmpfloat_with_epsilon (g_array_index (near, ManifoldContact, k).gap, 0.005,
                                    TOLERANCE);
  g_autoptr (GArray) far = detect (&left, &right, 0.001, TRUE);
  g_assert_cmpuint (far->len, ==, 0);
  body_clear (&left);
  body_clear (&right);
}

/* A cube standing on a corner (its diagonal vertical), DEPTH into a cube's top face: one
 * contact at that vertex alone, gap -DEPTH, normal +z. */
static void
test_corner_on_face (void)
{
  /* Turning (1, 1, 1) / sqrt 3 onto -z: about the axis (1, -1, 0) / sqrt 2 by
   * pi - acos (1 / sqrt 3). */
  double angle = G_PI - acos (1 / sqrt (3)), turn[3] = { angle / G_SQRT2, -angle / G_SQRT2, 0 };
  double half_diagonal = sqrt (3) / 2;
  Body lower, upper;
  cube_init (&lower, 0, 0, 0, 0, NULL);
  cube_init (&upper, 1, 0.1, 0.1, 0.5 + half_diagonal - DEPTH, turn);
  g_autoptr (GArray) contacts = detect (&lower, &upper, 0, TRUE);
  g_assert_cmpuint (contacts->len, ==, 1);
  const ManifoldContact *c = &g_array_index (contacts, ManifoldContact, 0);
  g_assert_cmpfloat_with_epsilon (c->gap, -DEPTH, 1e-9);
  g_assert_cmpfloat_with_epsilon (normal_towards_a (c, 2, 1), 1, TOLERANCE);
  const SurfacePoint *corner = c->a.geometry == 1 ? &c->a : &c->b;
  g_assert_cmpuint (corner->n, ==, 1);
  body_clear (&lower);
  body_clear (&upper);
}

static int
compare_ids (const void *x, const void *y)
{
  guint64 a = *(const guint64 *) x, b = *(const guint64 *) y;
  return (a > b) - (a < b);
}

/* The identities of a flush stack: unique, non-zero, and the same after the upper cube
 * moves by 1e-5 m (the same features make the contacts). */
static void
test_identities (void)
{
  Body lower, upper;
  cube_init (&lower, 0, 0, 0, 0, NULL);
  cube_init (&upper, 1, 0.3, 0.2, 1 - DEPTH, NULL);
  g_autoptr (GArray) first = detect (&lower, &upper, 0, TRUE);
  body_clear (&upper);
  cube_init (&upper, 1, 0.3 + 1e-5, 0.2 - 1e-5, 1 - DEPTH, NULL);
  g_autoptr (GArray) second = detect (&lower, &upper, 0, TRUE);
  g_assert_cmpuint (first->len, ==, 4);
  g_assert_cmpuint (second->len, ==, 4);
  guint64 ids[2][4];
  for (guint k = 0; k < 4; k++)
    {
      ids[0][k] = g_array_index (first, ManifoldContact, k).id;
      ids[1][k] = g_array_index (second, ManifoldContact, k).id;
    }
  for (int s = 0; s < 2; s++)
    {
      qsort (ids[s], 4, sizeof (guint64), compare_ids);
      for (int k = 0; k < 4; k++)
        {
          g_assert_cmpuint (ids[s][k], !=, 0);
          if (k > 0)
            g_assert_cmpuint (ids[s][k], !=, ids[s][k - 1]);
        }
    }
  for (int k = 0; k < 4; k++)
    g_assert_cmpuint (ids[0][k], ==, ids[1][k]);
  body_clear (&lower);
  body_clear (&upper);
}

/* The separation of a and b along unit `axis` (b on its + side): min_b - max_a. */
static double
axis_separation (const Body *a, const Body *b, const double axis[3])
{
  double hi_a = -INFINITY, lo_b = INFINITY;
  for (size_t k = 0; k < a->geometry.n_points; k++)
    hi_a = MAX (hi_a, cwb_v3_dot (axis, &a->positions[3 * k]));
  for (size_t k = 0; k < b->geometry.n_points; k++)
    lo_b = MIN (lo_b, cwb_v3_dot (axis, &b->positions[3 * k]));
  return lo_b - hi_a;
}

/* The separating-axis test by brute force: every triangle normal of both surfaces (the face
 * axes) and every cross product of two triangle edges (a superset of the edge axes: quad
 * diagonals add axes that separate no more than the true ones), each axis both ways. No axis
 * separates more than the largest face of the Minkowski difference, so the maxima are the
 * true face and edge separations. */
static void
brute_force_sat (const Body *a, const Body *b, double *face_best, double *edge_best,
                 double edge_axis[3])
{
  *face_best = *edge_best = -INFINITY;
  const Body *bodies[2] = { a, b };
  for (int s = 0; s < 2; s++)
    for (size_t t = 0; t < bodies[s]->geometry.n_triangles; t++)
      {
        const uint32_t *tri = &bodies[s]->geometry.triangles[3 * t];
        const double *x = bodies[s]->positions;
        double u[3], v[3], n[3];
        cwb_v3_sub (u, &x[3 * tri[1]], &x[3 * tri[0]]);
        cwb_v3_sub (v, &x[3 * tri[2]], &x[3 * tri[0]]);
        cwb_v3_cross (n, u, v);
        cwb_v3_normalize (n);
        for (int sign = -1; sign <= 1; sign += 2)
          {
            double axis[3];
            cwb_v3_scale (axis, n, sign);
            *face_best = MAX (*face_best, axis_separation (a, b, axis));
          }
      }
  for (size_t ta = 0; ta < a->geometry.n_triangles; ta++)
    for (int ea = 0; ea < 3; ea++)
      for (size_t tb = 0; tb < b->geometry.n_triangles; tb++)
        for (int eb = 0; eb < 3; eb++)
          {
            const uint32_t *tri_a = &a->geometry.triangles[3 * ta];
            const uint32_t *tri_b = &b->geometry.triangles[3 * tb];
            double da[3], db[3], n[3];
            cwb_v3_sub (da, &a->positions[3 * tri_a[(ea + 1) % 3]], &a->positions[3 * tri_a[ea]]);
            cwb_v3_sub (db, &b->positions[3 * tri_b[(eb + 1) % 3]], &b->positions[3 * tri_b[eb]]);
            cwb_v3_cross (n, da, db);
            if (cwb_v3_norm (n) <= 1e-6 * cwb_v3_norm (da) * cwb_v3_norm (db))
              continue;
            cwb_v3_normalize (n);
            for (int sign = -1; sign <= 1; sign += 2)
              {
                double axis[3];
                cwb_v3_scale (axis, n, sign);
                double separation = axis_separation (a, b, axis);
                if (separation > *edge_best)
                  {
                    *edge_best = separation;
                    cwb_v3_copy (edge_axis, axis);
                  }
              }
          }
}

/* Shapes whose edge queries take either path of the detector: direction classes for the
 * boxes, the prisms and the 8-segment cylinder; crossing arcs for the 40-segment cylinder,
 * whose 21 classes cost more than its arcs. */
static const CwbShapeDesc polytope_shapes[] = {
  { .kind = CWB_SHAPE_BOX, .size = { 1, 1, 1 } },
  { .kind = CWB_SHAPE_BOX, .size = { 0.4, 1.6, 0.7 } },
  { .kind = CWB_SHAPE_CYLINDER, .radius = 0.5, .height = 0.8, .resolution = 6 },
  { .kind = CWB_SHAPE_CYLINDER, .radius = 0.6, .height = 0.5, .resolution = 8 },
  { .kind = CWB_SHAPE_CYLINDER, .radius = 0.5, .height = 1.0, .resolution = 40 },
};

/* The edge query against brute force, on random placements of polytope_shapes: where an edge axis beats every face axis by more than the detector's preference
 * (1e-3 of the radius; 2e-3 of the larger radius here), the one contact lies on the edges
 * with the brute-force gap and axis; where a face axis leads as clearly, no contact is
 * deeper than the face separation (each clipped point lies on the incident face, at or above
 * its lowest vertex). Tolerances: separations are sums of a few products of coordinates of
 * order 1, exact to a few ulps; 1e-12 and, for the axis's direction, 1e-9 (it comes from a
 * normalised cross product of edges one or two orders shorter). */
static void
test_edge_brute_force (void)
{
  const CwbShapeDesc *shapes = polytope_shapes;
  enum { N_SHAPES = G_N_ELEMENTS (polytope_shapes), TRIALS = 400 };
  GRand *rand = g_rand_new_with_seed (20261126);
  int edge_cases = 0, face_cases = 0;
  int edge_cases_arcs = 0;
  for (int trial = 0; trial < TRIALS; trial++)
    {
      int ia = g_rand_int_range (rand, 0, N_SHAPES), ib = g_rand_int_range (rand, 0, N_SHAPES);
      double turn_a[3], turn_b[3], direction[3], origin[3] = { 0, 0, 0 };
      for (int c = 0; c < 3; c++)
        {
          turn_a[c] = g_rand_double_range (rand, -2, 2);
          turn_b[c] = g_rand_double_range (rand, -2, 2);
          direction[c] = g_rand_double_range (rand, -1, 1);
        }
      if (cwb_v3_normalize (direction) == 0)
        continue;
      Body a, b;
      body_init (&a, &shapes[ia], 0, origin, turn_a);
      /* Centres at 0.7 to 1.1 times the sum of the inradii-ish sizes: touching, overlapping
       * or a little apart, within the margin of 10 below. */
      double reach = 0.5 * (g_rand_double_range (rand, 0.7, 1.1)) * 1.6;
      double at[3];
      cwb_v3_scale (at, direction, reach);
      body_init (&b, &shapes[ib], 1, at, turn_b);
      double face_best, edge_best, edge_axis[3] = { 0, 0, 0 };
      brute_force_sat (&a, &b, &face_best, &edge_best, edge_axis);
      double scale = 2e-3;
      g_autoptr (GArray) contacts = detect (&a, &b, 10, TRUE);
      if (edge_best > face_best + scale)
        {
          edge_cases++;
          if (ia == N_SHAPES - 1 && ib == N_SHAPES - 1)
            edge_cases_arcs++;
          g_assert_cmpuint (contacts->len, ==, 1);
          const ManifoldContact *c = &g_array_index (contacts, ManifoldContact, 0);
          g_assert_cmpuint (c->a.n, ==, 2);
          g_assert_cmpuint (c->b.n, ==, 2);
          g_assert_cmpfloat_with_epsilon (c->gap, edge_best, TOLERANCE);
          /* The contact's normal points towards a, the axis from a to b. */
          double along = c->a.geometry == 0 ? -cwb_v3_dot (c->normal, edge_axis)
                                             : cwb_v3_dot (c->normal, edge_axis);
          g_assert_cmpfloat_with_epsilon (along, 1, 1e-9);
        }
      else if (face_best > edge_best + scale)
        {
          face_cases++;
          g_assert_cmpuint (contacts->len, >, 0);
          for (guint k = 0; k < contacts->len; k++)
            g_assert_cmpfloat (g_array_index (contacts, ManifoldContact, k).gap, >=,
                               face_best - TOLERANCE);
        }
      body_clear (&a);
      body_clear (&b);
    }
  g_rand_free (rand);
  g_test_message ("%d edge cases (%d between 40-segment cylinders), %d face cases",
                  edge_cases, edge_cases_arcs, face_cases);
  /* Both kinds must have been met often enough for the check to mean something. */
  g_assert_cmpint (edge_cases, >=, 40);
  g_assert_cmpint (face_cases, >=, 40);
}

/* ---- decisions kept from run to run (sat_cache.h) ---------------------------------------- */

/* Two detectors side by side, one keeping its decisions and one testing every pair in full. */
typedef struct Twin {
  ConvexDetector *kept, *full;
  GArray *kept_contacts, *full_contacts;
} Twin;

static void
twin_init (Twin *t)
{
  t->kept = convex_detector_new ();
  t->full = convex_detector_new ();
  convex_detector_set_coherence (t->full, FALSE);
  /* Kept manifolds are within a motion bound of a clip, not bit for bit (tested apart). */
  convex_detector_set_persistence (t->kept, FALSE);
  t->kept_contacts = g_array_new (FALSE, FALSE, sizeof (ManifoldContact));
  t->full_contacts = g_array_new (FALSE, FALSE, sizeof (ManifoldContact));
}

static void
twin_clear (Twin *t)
{
  convex_detector_free (t->kept);
  convex_detector_free (t->full);
  g_array_unref (t->kept_contacts);
  g_array_unref (t->full_contacts);
}

static void
same_point (const SurfacePoint *x, const SurfacePoint *y)
{
  g_assert_cmpuint (x->geometry, ==, y->geometry);
  g_assert_cmpuint (x->n, ==, y->n);
  for (uint32_t k = 0; k < x->n; k++)
    {
      g_assert_cmpuint (x->vertex[k], ==, y->vertex[k]);
      g_assert_cmpfloat (x->weight[k], ==, y->weight[k]);
    }
  for (int c = 0; c < 3; c++)
    g_assert_cmpfloat (x->position[c], ==, y->position[c]);
}

/* Runs both detectors on the bodies and checks that they found the same contacts, bit for
 * bit; returns how many pairs the keeping detector decided from its kept decisions. */
static guint
twin_detect (Twin *t, Body **bodies, size_t n, double margin)
{
  CwbGeometry geometries[8];
  gboolean handled[8];
  g_assert_cmpuint (n, <=, G_N_ELEMENTS (geometries));
  for (size_t k = 0; k < n; k++)
    geometries[k] = bodies[k]->geometry;
  convex_detector_run (t->kept, geometries, n, margin, handled, t->kept_contacts);
  convex_detector_run (t->full, geometries, n, margin, handled, t->full_contacts);
  g_assert_cmpuint (convex_detector_kept (t->full), ==, 0);
  g_assert_cmpuint (t->kept_contacts->len, ==, t->full_contacts->len);
  for (guint k = 0; k < t->kept_contacts->len; k++)
    {
      const ManifoldContact *x = &g_array_index (t->kept_contacts, ManifoldContact, k);
      const ManifoldContact *y = &g_array_index (t->full_contacts, ManifoldContact, k);
      g_assert_cmpuint (x->id, ==, y->id);
      g_assert_cmpfloat (x->gap, ==, y->gap);
      for (int c = 0; c < 3; c++)
        g_assert_cmpfloat (x->normal[c], ==, y->normal[c]);
      same_point (&x->a, &y->a);
      same_point (&x->b, &y->b);
    }
  return convex_detector_kept (t->kept);
}

/* A flush stack of three cubes beside a turned one, moved at every run by small random
 * rigid motions (1e-9 to 1e-5 m, below and above the snapshot's renewal at 1e-6 of the
 * radius): the same contacts as the full test at every run, and the stack's face decisions
 * kept while the motions are small. */
static void
test_coherence_same_contacts (void)
{
  enum { RUNS = 300 };
  GRand *rand = g_rand_new_with_seed (11262026);
  Body cubes[4];
  double at[4][3] = { { 0, 0, 0 }, { 0.1, 0, 1 }, { 0.1, 0.2, 2 }, { 1.05, 0, 0.2 } };
  double turn[4][3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0.3, 0.2, 0.1 } };
  Body *bodies[4];
  for (int k = 0; k < 4; k++)
    {
      cube_init (&cubes[k], (uint32_t) k, at[k][0], at[k][1], at[k][2], turn[k]);
      bodies[k] = &cubes[k];
    }
  Twin t;
  twin_init (&t);
  guint kept_small = 0, pairs_small = 0, kept_large = 0;
  for (int run = 0; run < RUNS; run++)
    {
      /* The first third of the runs moves by 1e-9 to 1e-8 m, the rest by up to 1e-5. */
      double size = run < RUNS / 3 ? pow (10, g_rand_double_range (rand, -9, -8))
                                   : pow (10, g_rand_double_range (rand, -9, -5));
      for (int k = 0; k < 4; k++)
        {
          for (int c = 0; c < 3; c++)
            {
              at[k][c] += size * g_rand_double_range (rand, -1, 1);
              turn[k][c] += size * g_rand_double_range (rand, -1, 1);
            }
          body_place (&cubes[k], at[k], turn[k]);
        }
      guint kept = twin_detect (&t, bodies, 4, 0.01);
      if (run > 0 && run < RUNS / 3)
        {
          kept_small += kept;
          /* The stack's two face pairs; the turned cube touches cubes 0 and 1 at an edge,
           * whose contact is tested in full at every run. */
          pairs_small += 2;
        }
      else if (run >= RUNS / 3)
        kept_large += kept;
    }
  g_test_message ("kept %u decisions in %u pairs of the small motions, %u in the larger",
                  kept_small, pairs_small, kept_large);
  g_assert_cmpuint (t.kept_contacts->len, >, 0);
  /* Nearly every pair of the small motions is decided from a kept decision. */
  g_assert_cmpuint (kept_small, >=, pairs_small * 9 / 10);
  twin_clear (&t);
  for (int k = 0; k < 4; k++)
    body_clear (&cubes[k]);
  g_rand_free (rand);
}

/* A cube on a cube turned by phi about x: A's top face and B's bottom face separate them
 * equally to first order in phi; B's exceeds A's by 1 - cos phi, so B's face becomes the
 * reference where that passes the face preference, 1e-4 of the radius sqrt 3 / 2. Swept through that point in steps of 2e-7 rad (1.7e-7 m of motion,
 * below the snapshot's renewal): the decision changes at the same run as with the full test,
 * and decisions are kept away from it. */
static void
test_coherence_choice_flip (void)
{
  Body a, b;
  double origin[3] = { 0, 0, 0 };
  cube_init (&a, 0, 0, 0, 0, NULL);
  cube_init (&b, 1, 0, 0, 1, NULL);
  Body *bodies[2] = { &a, &b };
  Twin t;
  twin_init (&t);
  int a_reference = 0, b_reference = 0, first_b = -1;
  guint kept = 0;
  for (int run = 0; run <= 2000; run++)
    {
      double phi = 0.0130 + 2e-7 * run;
      double turn[3] = { phi, 0, 0 };
      body_place (&a, origin, turn);
      kept += twin_detect (&t, bodies, 2, 0.01);
      g_assert_cmpuint (t.kept_contacts->len, >, 0);
      /* A's turned face has a normal with a y part, B's bottom has none. */
      const ManifoldContact *c = &g_array_index (t.kept_contacts, ManifoldContact, 0);
      if (c->normal[1] != 0)
        a_reference++;
      else if (b_reference++ == 0)
        first_b = run;
      /* Once B's face leads it stays the reference. */
      g_assert_true (first_b < 0 || c->normal[1] == 0);
    }
  g_test_message ("A's face the reference at %d runs, B's from run %d; %u kept", a_reference,
                  first_b, kept);
  /* In closed form, 1 - cos phi = 1e-4 sqrt (3) / 2 at phi = 0.01316084, run 804.2: B's
   * face leads from run 805. One run of room for the separations' round-off (1e-16 m
   * against a change of 2.6e-9 m a run). */
  g_assert_cmpint (abs (first_b - 805), <=, 1);
  /* Decisions are kept where the slack exceeds the motion bound (about 12 times the motion
   * since the snapshot, up to 1e-5 m, against a choice slack that changes by 2.6e-9 m a
   * run): at the sweep's ends. */
  g_assert_cmpuint (kept, >, 20);
  twin_clear (&t);
  body_clear (&a);
  body_clear (&b);
}

/* A geometry replaced by another shape under the same index (a world rebuilt by an edit): the
 * pair's kept decision names the old shape's faces and is not used. */
static void
test_coherence_new_shape (void)
{
  Body a, b, prism;
  double origin[3] = { 0, 0, 0 }, above[3] = { 0.1, 0, 0.9 };
  cube_init (&a, 0, 0, 0, 0, NULL);
  cube_init (&b, 1, above[0], above[1], above[2], NULL);
  body_init (&prism, &polytope_shapes[2], 1, above, origin);
  Twin t;
  twin_init (&t);
  Body *bodies[2] = { &a, &b };
  g_assert_cmpuint (twin_detect (&t, bodies, 2, 0.05), ==, 0);
  g_assert_cmpuint (twin_detect (&t, bodies, 2, 0.05), ==, 1);
  bodies[1] = &prism;
  g_assert_cmpuint (twin_detect (&t, bodies, 2, 0.05), ==, 0);
  g_assert_cmpuint (t.kept_contacts->len, >, 0);
  g_assert_cmpuint (twin_detect (&t, bodies, 2, 0.05), ==, 1);
  twin_clear (&t);
  body_clear (&a);
  body_clear (&b);
  body_clear (&prism);
}

/* Random pairs of polytope_shapes (both edge query paths), each moved through 30 runs of
 * random rigid motions from 1e-9 to 1e-4 m, every other pair also deformed: the same contacts
 * as the full test. */
static void
test_coherence_random_pairs (void)
{
  GRand *rand = g_rand_new_with_seed (20261127);
  guint kept = 0, kept_deformed = 0;
  for (int trial = 0; trial < 60; trial++)
    {
      int ia = g_rand_int_range (rand, 0, G_N_ELEMENTS (polytope_shapes));
      int ib = g_rand_int_range (rand, 0, G_N_ELEMENTS (polytope_shapes));
      double at[2][3] = { { 0, 0, 0 } }, turn[2][3];
      double direction[3];
      for (int c = 0; c < 3; c++)
        {
          turn[0][c] = g_rand_double_range (rand, -2, 2);
          turn[1][c] = g_rand_double_range (rand, -2, 2);
          direction[c] = g_rand_double_range (rand, -1, 1);
        }
      cwb_v3_normalize (direction);
      cwb_v3_scale (at[1], direction, 0.8 * g_rand_double_range (rand, 0.7, 1.1));
      Body a, b;
      body_init (&a, &polytope_shapes[ia], 0, at[0], turn[0]);
      body_init (&b, &polytope_shapes[ib], 1, at[1], turn[1]);
      Body *bodies[2] = { &a, &b };
      Twin t;
      twin_init (&t);
      for (int run = 0; run < 30; run++)
        {
          double size = pow (10, g_rand_double_range (rand, -9, -4));
          for (int k = 0; k < 2; k++)
            for (int c = 0; c < 3; c++)
              {
                at[k][c] += size * g_rand_double_range (rand, -1, 1);
                turn[k][c] += size * g_rand_double_range (rand, -1, 1);
              }
          body_place (&a, at[0], turn[0]);
          body_place (&b, at[1], turn[1]);
          /* Every other trial deforms its shapes too: each vertex moved on its own by up to
           * 1e-8 m, below the 1e-7 of the radius that keeps a face planar for the detector. */
          if (trial % 2 == 1)
            for (int k = 0; k < 2; k++)
              for (size_t i = 0; i < 3 * bodies[k]->geometry.n_points; i++)
                bodies[k]->positions[i] += 1e-8 * g_rand_double_range (rand, -1, 1);
          guint run_kept = twin_detect (&t, bodies, 2, 0.05);
          kept += run_kept;
          if (trial % 2 == 1)
            kept_deformed += run_kept;
        }
      twin_clear (&t);
      body_clear (&a);
      body_clear (&b);
    }
  g_test_message ("%u decisions kept, %u of them on deformed shapes", kept, kept_deformed);
  g_assert_cmpuint (kept_deformed, >, 0);
  g_rand_free (rand);
}

/* ---- manifolds kept from run to run (manifold_cache.h) ---------------------------------- */

/* The flush stack of /convex/coherence/same-contacts (three unit cubes, each offset by 0.1 to
 * 0.2 m on the one below, so that their manifolds hold clip crossings as well as incident
 * vertices), each cube drifting at every run by `drift` metres along a direction of its own
 * and turning by `drift` radians about an axis of its own. A detector that keeps its
 * manifolds against one that clips at every run (both keeping their decisions). Returns how
 * many pairs the first refreshed over the runs. Each run, every kept point is its surface's
 * point now (its vertices' current positions under its weights, to round-off) and its gap
 * is measured now along the reference face's current normal; against the clip, within the
 * bounds of manifold_cache.h, with delta the motion since the kept clip, at most 1e-7 of the
 * radius sqrt (3) / 2: an incident point (a vertex, or the crossing of an incident edge
 * perpendicular to the reference face's side planes) within delta of the clip's, its
 * projection onto the reference face within 2 delta, the gap (the incident point's distance
 * from the reference plane) within delta. A run that refreshed nothing gives the clip's
 * contacts bit for bit. */
static guint
persistence_runs (int runs, double drift, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  Body cubes[3];
  double at[3][3] = { { 0, 0, 0 }, { 0.1, 0, 1 }, { 0.1, 0.2, 2 } };
  double turn[3][3] = { { 0 } }, heading[3][3], spin[3][3];
  Body *bodies[3];
  for (int k = 0; k < 3; k++)
    {
      cube_init (&cubes[k], (uint32_t) k, at[k][0], at[k][1], at[k][2], turn[k]);
      bodies[k] = &cubes[k];
      for (int c = 0; c < 3; c++)
        {
          heading[k][c] = g_rand_double_range (rand, -1, 1);
          spin[k][c] = g_rand_double_range (rand, -1, 1);
        }
      cwb_v3_normalize (heading[k]);
      cwb_v3_normalize (spin[k]);
    }
  g_autoptr (ConvexDetector) kept = convex_detector_new ();
  g_autoptr (ConvexDetector) clipped = convex_detector_new ();
  convex_detector_set_persistence (clipped, FALSE);
  g_autoptr (GArray) kept_contacts = g_array_new (FALSE, FALSE, sizeof (ManifoldContact));
  g_autoptr (GArray) clipped_contacts = g_array_new (FALSE, FALSE, sizeof (ManifoldContact));
  const double delta = 1e-7 * sqrt (3) / 2 + 1e-15;
  guint refreshed = 0;
  for (int run = 0; run < runs; run++)
    {
      CwbGeometry geometries[3];
      gboolean handled[3];
      for (int k = 0; k < 3; k++)
        {
          cwb_v3_axpy (at[k], drift, heading[k]);
          cwb_v3_axpy (turn[k], drift, spin[k]);
          body_place (&cubes[k], at[k], turn[k]);
          geometries[k] = bodies[k]->geometry;
        }
      convex_detector_run (kept, geometries, 3, 0.01, handled, kept_contacts);
      convex_detector_run (clipped, geometries, 3, 0.01, handled, clipped_contacts);
      g_assert_cmpuint (convex_detector_refreshed (clipped), ==, 0);
      guint refreshed_now = convex_detector_refreshed (kept);
      refreshed += refreshed_now;
      g_assert_cmpuint (kept_contacts->len, ==, clipped_contacts->len);
      g_assert_cmpuint (kept_contacts->len, >, 0);
      for (guint k = 0; k < kept_contacts->len; k++)
        {
          const ManifoldContact *x = &g_array_index (kept_contacts, ManifoldContact, k);
          const ManifoldContact *y = &g_array_index (clipped_contacts, ManifoldContact, k);
          g_assert_cmpuint (x->id, ==, y->id);
          for (int c = 0; c < 3; c++)
            g_assert_cmpfloat (x->normal[c], ==, y->normal[c]);
          const SurfacePoint *sides[2] = { &x->a, &x->b };
          for (int side = 0; side < 2; side++)
            {
              double now[3] = { 0, 0, 0 }, off[3];
              const CwbGeometry *g = &geometries[sides[side]->geometry];
              for (uint32_t v = 0; v < sides[side]->n; v++)
                cwb_v3_axpy (now, sides[side]->weight[v],
                             &g->positions[3 * sides[side]->vertex[v]]);
              cwb_v3_sub (off, now, sides[side]->position);
              g_assert_cmpfloat (cwb_v3_norm (off), <=, TOLERANCE);
            }
          double d[3];
          cwb_v3_sub (d, x->a.position, x->b.position);
          g_assert_cmpfloat (fabs (x->gap - cwb_v3_dot (x->normal, d)), <=, TOLERANCE);
          cwb_v3_sub (d, x->a.position, y->a.position);
          g_assert_cmpfloat (cwb_v3_norm (d), <=, delta);
          cwb_v3_sub (d, x->b.position, y->b.position);
          g_assert_cmpfloat (cwb_v3_norm (d), <=, 2 * delta);
          g_assert_cmpfloat (fabs (x->gap - y->gap), <=, delta);
          if (refreshed_now == 0)
            {
              g_assert_cmpfloat (x->gap, ==, y->gap);
              same_point (&x->a, &y->a);
              same_point (&x->b, &y->b);
            }
        }
    }
  for (int k = 0; k < 3; k++)
    body_clear (&cubes[k]);
  g_rand_free (rand);
  return refreshed;
}

/* Drifting by 1e-9 m (and rad) a run, about a settled stack's motion a step, the cubes'
 * relative motion reaches the bound (8.7e-8 m) in some tens of runs: most pairs of most runs
 * are refreshed, some clipped anew, and the kept points reach their bounds' scale. Drifting
 * by 1e-6 a run passes the bound at every run: every manifold is clipped anew, bit for bit
 * the clip's. */
static void
test_persistence_refresh (void)
{
  enum { RUNS = 300 };
  guint resting = persistence_runs (RUNS, 1e-9, 11292026);
  g_test_message ("drifting 1e-9 m a run: %u of %d face pairs refreshed", resting,
                  2 * RUNS);
  g_assert_cmpuint (resting, >=, 2 * RUNS * 3 / 4);
  g_assert_cmpuint (resting, <, 2 * (RUNS - 1));
  g_assert_cmpuint (persistence_runs (RUNS, 1e-6, 11292027), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/convex/polytope/structure", test_polytope_structure);
  g_test_add_func ("/convex/face/flush-stack", test_face_flush_stack);
  g_test_add_func ("/convex/face/turned", test_face_turned);
  g_test_add_func ("/convex/face/side-by-side", test_face_side_by_side);
  g_test_add_func ("/convex/edge/crossed", test_edge_crossed);
  g_test_add_func ("/convex/vertex/corner-on-face", test_corner_on_face);
  g_test_add_func ("/convex/edge/brute-force", test_edge_brute_force);
  g_test_add_func ("/convex/identities", test_identities);
  g_test_add_func ("/convex/coherence/same-contacts", test_coherence_same_contacts);
  g_test_add_func ("/convex/coherence/choice-flip", test_coherence_choice_flip);
  g_test_add_func ("/convex/coherence/random-pairs", test_coherence_random_pairs);
  g_test_add_func ("/convex/coherence/new-shape", test_coherence_new_shape);
  g_test_add_func ("/convex/persistence/refresh", test_persistence_refresh);
  return g_test_run ();
}

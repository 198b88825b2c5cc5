/* The FEM body's tetrahedral grid (plugins/bodies/fem/tet_grid.c), compiled in directly: the
 * triangle-box test against an independent clipping, the grid of a box against its closed
 * form, and for a sphere and a torus the properties the FEM and the embedding rely on:
 * positive tetrahedra of volume h^3 / 6, a conforming mesh whose boundary is a closed
 * surface, every point of the solid covered, no cell kept farther than the surface's reach,
 * and the torus's hole left empty. */
#include <math.h>

#include "mesh.h"
#include "tet_grid.h"

/* Volumes are sums and products of grid coordinates of order 1: exact to about 1e-15. */
#define VOLUME_TOLERANCE 1e-12

/* ---- triangle against box ------------------------------------------------------------- */

/* The polygon left of the triangle after clipping by the six faces of [lo, hi]
 * (Sutherland-Hodgman): not empty exactly when they overlap. */
static gboolean
clipped_overlap (const double a[3], const double b[3], const double c[3], const double lo[3],
                 const double hi[3])
{
  double poly[16][3];
  int n = 3;
  cwb_v3_copy (poly[0], a);
  cwb_v3_copy (poly[1], b);
  cwb_v3_copy (poly[2], c);
  for (int plane = 0; plane < 6 && n > 0; plane++)
    {
      int axis = plane / 2;
      double sign = plane % 2 == 0 ? 1 : -1;           /* keep sign * (x - bound) >= 0 */
      double bound = plane % 2 == 0 ? lo[axis] : hi[axis];
      double out[16][3];
      int m = 0;
      for (int k = 0; k < n; k++)
        {
          const double *p = poly[k], *q = poly[(k + 1) % n];
          double dp = sign * (p[axis] - bound), dq = sign * (q[axis] - bound);
          if (dp >= 0)
            cwb_v3_copy (out[m++], p);
          if ((dp >= 0) != (dq >= 0))
            {
              double t = dp / (dp - dq);
              for (int i = 0; i < 3; i++)
                out[m][i] = p[i] + t * (q[i] - p[i]);
              m++;
            }
        }
      n = m;
      memcpy (poly, out, sizeof (double) * 3 * (size_t) m);
    }
  return n > 0;
}

static void
test_triangle_box (void)
{
  const double lo[3] = { 0, 0, 0 }, hi[3] = { 1, 1, 1 };
  /* Inside; far away; touching a face at a vertex (closed boxes); beyond the corner on the
   * triangle's plane x + y + z = 3.5 although its bounding box covers the cube. */
  const double in[3][3] = { { 0.2, 0.2, 0.2 }, { 0.8, 0.3, 0.5 }, { 0.4, 0.9, 0.6 } };
  g_assert_true (tet_grid_triangle_box_overlap (in[0], in[1], in[2], lo, hi));
  const double far[3][3] = { { 3, 3, 3 }, { 4, 3, 3 }, { 3, 4, 3 } };
  g_assert_false (tet_grid_triangle_box_overlap (far[0], far[1], far[2], lo, hi));
  const double touch[3][3] = { { 1, 0.5, 0.5 }, { 2, 0.5, 0.5 }, { 2, 1, 0.5 } };
  g_assert_true (tet_grid_triangle_box_overlap (touch[0], touch[1], touch[2], lo, hi));
  const double beyond[3][3] = { { 3.5, 0, 0 }, { 0, 3.5, 0 }, { 0, 0, 3.5 } };
  g_assert_false (tet_grid_triangle_box_overlap (beyond[0], beyond[1], beyond[2], lo, hi));
  const double through[3][3] = { { 2.5, 0, 0 }, { 0, 2.5, 0 }, { 0, 0, 2.5 } };
  g_assert_true (tet_grid_triangle_box_overlap (through[0], through[1], through[2], lo, hi));

  /* Random triangles around the cube against clipping: both are exact, and touching (where
   * rounding could split them) has probability zero. */
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  int overlaps = 0;
  for (int trial = 0; trial < 4000; trial++)
    {
      double v[3][3];
      for (int p = 0; p < 3; p++)
        for (int i = 0; i < 3; i++)
          v[p][i] = g_rand_double_range (rand, -1.2, 2.2);
      gboolean sat = tet_grid_triangle_box_overlap (v[0], v[1], v[2], lo, hi);
      g_assert_cmpint (sat, ==, clipped_overlap (v[0], v[1], v[2], lo, hi));
      overlaps += sat;
    }
  /* Both outcomes well represented. */
  g_assert_cmpint (overlaps, >, 400);
  g_assert_cmpint (overlaps, <, 3600);
}

/* ---- grids ---------------------------------------------------------------------------- */

static CwbMesh *
shape_mesh (CwbShapeKind kind, double a, double b, double c)
{
  CwbShapeDesc shape = { .kind = kind, .resolution = 32, .scale = 1 };
  if (kind == CWB_SHAPE_BOX)
    {
      shape.size[0] = a;
      shape.size[1] = b;
      shape.size[2] = c;
    }
  else if (kind == CWB_SHAPE_SPHERE)
    shape.radius = a;
  else
    {
      shape.major_radius = a;
      shape.minor_radius = b;
    }
  g_autoptr (GError) error = NULL;
  CwbMesh *mesh = cwb_mesh_from_shape (&shape, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (mesh->closed);
  return mesh;
}

static TetGrid *
grid_of (const CwbMesh *mesh, int resolution, TetGridFit fit)
{
  CwbSurfaceMesh surface;
  cwb_mesh_as_surface (mesh, &surface);
  g_autoptr (GError) error = NULL;
  TetGrid *grid = tet_grid_build (&surface, resolution, fit, &error);
  g_assert_no_error (error);
  return grid;
}

typedef struct Face {
  guint32 v[3];   /* sorted */
  guint32 uses;
} Face;

static guint
face_hash (gconstpointer p)
{
  const guint32 *v = p;
  return v[0] * 73856093u ^ v[1] * 19349663u ^ v[2] * 83492791u;
}

static gboolean
face_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, 3 * sizeof (guint32)) == 0;
}

static void
sort3 (guint32 v[3])
{
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (v[j] > v[j + 1])
        {
          guint32 t = v[j];
          v[j] = v[j + 1];
          v[j + 1] = t;
        }
}

/* Every tetrahedron positive with volume h^3 / 6; every triangular face used by one
 * tetrahedron (boundary) or two (interior, the conforming split); the boundary a closed
 * surface (each of its edges on exactly two boundary faces). Returns the covered volume. */
static double
check_mesh (const TetGrid *g)
{
  const double *x = (const double *) (const void *) g->nodes->data;
  const guint32 *tets = (const guint32 *) (const void *) g->tets->data;
  g_assert_cmpuint (tet_grid_n_tets (g), ==, 6 * g->cells->len);
  double expected = g->cell[0] * g->cell[1] * g->cell[2] / 6, total = 0;
  g_autoptr (GHashTable) faces = g_hash_table_new_full (face_hash, face_equal, g_free, NULL);
  g_autofree guint32 *used = g_new0 (guint32, tet_grid_n_nodes (g));
  for (size_t t = 0; t < tet_grid_n_tets (g); t++)
    {
      const guint32 *v = &tets[4 * t];
      double e1[3], e2[3], e3[3], n[3];
      cwb_v3_sub (e1, &x[3 * v[1]], &x[3 * v[0]]);
      cwb_v3_sub (e2, &x[3 * v[2]], &x[3 * v[0]]);
      cwb_v3_sub (e3, &x[3 * v[3]], &x[3 * v[0]]);
      cwb_v3_cross (n, e1, e2);
      double volume = cwb_v3_dot (n, e3) / 6;
      g_assert_cmpfloat_with_epsilon (volume, expected, VOLUME_TOLERANCE * expected);
      total += volume;
      for (int k = 0; k < 4; k++)
        used[v[k]]++;
      const int face_of[4][3] = { { 1, 2, 3 }, { 0, 2, 3 }, { 0, 1, 3 }, { 0, 1, 2 } };
      for (int f = 0; f < 4; f++)
        {
          Face key = { { v[face_of[f][0]], v[face_of[f][1]], v[face_of[f][2]] }, 0 };
          sort3 (key.v);
          Face *found = g_hash_table_lookup (faces, &key);
          if (found == NULL)
            {
              found = g_memdup2 (&key, sizeof key);
              g_hash_table_add (faces, found);
            }
          found->uses++;
          g_assert_cmpuint (found->uses, <=, 2);
        }
    }
  for (size_t n = 0; n < tet_grid_n_nodes (g); n++)
    g_assert_cmpuint (used[n], >, 0);
  /* Boundary edges, keyed by their two sorted nodes. */
  g_autoptr (GHashTable) edges = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, faces);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      const Face *f = key;
      if (f->uses != 1)
        continue;
      for (int e = 0; e < 3; e++)
        {
          guint32 a = f->v[e], b = f->v[(e + 1) % 3];
          gint64 k = (gint64) MIN (a, b) << 32 | MAX (a, b);
          g_array_append_val (keys, k);
        }
    }
  for (guint k = 0; k < keys->len; k++)
    {
      gint64 *slot = &g_array_index (keys, gint64, k);
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (edges, slot));
      g_hash_table_insert (edges, slot, GUINT_TO_POINTER (count + 1));
    }
  g_assert_cmpuint (g_hash_table_size (edges), >, 0);
  g_hash_table_iter_init (&it, edges);
  gpointer count;
  while (g_hash_table_iter_next (&it, NULL, &count))
    g_assert_cmpuint (GPOINTER_TO_UINT (count), ==, 2);
  return total;
}

/* A 1 x 0.6 x 0.4 box at 10 cells along its longest side: h = 0.1, each extent a whole
 * number of cells plus the spare one, (11, 7, 5) cells, all kept (every one is inside or
 * touches a face), 12 x 8 x 6 nodes. */
static void
test_box_grid_margin (void)
{
  g_autoptr (CwbMesh) mesh = shape_mesh (CWB_SHAPE_BOX, 1, 0.6, 0.4);
  g_autoptr (TetGrid) g = grid_of (mesh, 10, TET_GRID_FIT_MARGIN);
  for (int a = 0; a < 3; a++)
    g_assert_cmpfloat_with_epsilon (g->cell[a], 0.1, 1e-15);
  g_assert_cmpint (g->dims[0], ==, 11);
  g_assert_cmpint (g->dims[1], ==, 7);
  g_assert_cmpint (g->dims[2], ==, 5);
  g_assert_cmpuint (g->cells->len, ==, 11 * 7 * 5);
  g_assert_cmpuint (tet_grid_n_nodes (g), ==, 12 * 8 * 6);
  double covered = check_mesh (g);
  g_assert_cmpfloat_with_epsilon (covered, 1.1 * 0.7 * 0.5, VOLUME_TOLERANCE);
}

/* The same box fitted to its bounds: (10, 6, 4) cells of exactly 0.1 (the extents are whole
 * numbers of cells), all kept, 11 x 7 x 5 nodes, and the tetrahedra fill the box exactly:
 * the volume to round-off (the sum of 1440 terms of 1/6000 each). */
static void
test_box_grid_bounds (void)
{
  g_autoptr (CwbMesh) mesh = shape_mesh (CWB_SHAPE_BOX, 1, 0.6, 0.4);
  g_autoptr (TetGrid) g = grid_of (mesh, 10, TET_GRID_FIT_BOUNDS);
  for (int a = 0; a < 3; a++)
    g_assert_cmpfloat_with_epsilon (g->cell[a], 0.1, 1e-15);
  g_assert_cmpint (g->dims[0], ==, 10);
  g_assert_cmpint (g->dims[1], ==, 6);
  g_assert_cmpint (g->dims[2], ==, 4);
  g_assert_cmpuint (g->cells->len, ==, 10 * 6 * 4);
  g_assert_cmpuint (tet_grid_n_nodes (g), ==, 11 * 7 * 5);
  double covered = check_mesh (g);
  g_assert_cmpfloat_with_epsilon (covered, 0.24, VOLUME_TOLERANCE);
  /* A box whose extents are not whole numbers of h: the cells stretch to fit, 1 x 0.25 at
   * h = 0.1 gives 3 cells of 0.08333 across. */
  g_autoptr (CwbMesh) slab = shape_mesh (CWB_SHAPE_BOX, 1, 0.25, 0.25);
  g_autoptr (TetGrid) s = grid_of (slab, 10, TET_GRID_FIT_BOUNDS);
  g_assert_cmpint (s->dims[1], ==, 3);
  g_assert_cmpfloat_with_epsilon (s->cell[1], 0.25 / 3, 1e-15);
  g_assert_cmpfloat_with_epsilon (check_mesh (s), 0.0625, VOLUME_TOLERANCE);
}

/* A sphere of radius 0.5 at 8 cells across: every point of the solid covered; every kept
 * cell within reach of the surface (its centre at most R + half a cell diagonal from the
 * sphere's centre); the covered volume at least the solid's. */
static void
test_sphere_grid (gconstpointer fit)
{
  g_autoptr (CwbMesh) mesh = shape_mesh (CWB_SHAPE_SPHERE, 0.5, 0, 0);
  g_autoptr (TetGrid) g = grid_of (mesh, 8, GPOINTER_TO_INT (fit));
  double covered = check_mesh (g);
  g_assert_cmpfloat (covered, >=, cwb_mesh_volume (mesh));
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  for (int k = 0; k < 3000; k++)
    {
      /* Inside the tessellation: 0.45 is below its inscribed radius 0.5 cos^2(pi / 32). */
      double p[3];
      do
        for (int i = 0; i < 3; i++)
          p[i] = g_rand_double_range (rand, -0.45, 0.45);
      while (cwb_v3_norm (p) > 0.45);
      g_assert_cmpint (tet_grid_cell_at (g, p), >=, 0);
    }
  double reach = 0.5 + 0.5 * cwb_v3_norm (g->cell) + 1e-12;
  for (guint n = 0; n < g->cells->len; n++)
    {
      guint32 c = g_array_index (g->cells, guint32, n);
      int ijk[3] = { (int) (c % (guint32) g->dims[0]),
                     (int) ((c / (guint32) g->dims[0]) % (guint32) g->dims[1]),
                     (int) (c / (guint32) (g->dims[0] * g->dims[1])) };
      double centre[3];
      for (int a = 0; a < 3; a++)
        centre[a] = g->origin[a] + (ijk[a] + 0.5) * g->cell[a];
      g_assert_cmpfloat (cwb_v3_norm (centre), <=, reach);
    }
  /* Not every cell of the box around it: the corners are outside. */
  g_assert_cmpuint (g->cells->len, <, (guint) (g->dims[0] * g->dims[1] * g->dims[2]));
}

/* A torus (major radius 1, tube 0.3) at 24 cells across: the hole, open along z, is reached
 * by the flood and stays empty; the tube's core is kept. */
static void
test_torus_grid (gconstpointer fit)
{
  g_autoptr (CwbMesh) mesh = shape_mesh (CWB_SHAPE_TORUS, 1, 0.3, 0);
  g_autoptr (TetGrid) g = grid_of (mesh, 24, GPOINTER_TO_INT (fit));
  check_mesh (g);
  const double centre[3] = { 0, 0, 0 }, core[3] = { 1, 0, 0 }, other_core[3] = { 0, -1, 0 };
  g_assert_cmpint (tet_grid_cell_at (g, centre), ==, -1);
  g_assert_cmpint (tet_grid_cell_at (g, core), >=, 0);
  g_assert_cmpint (tet_grid_cell_at (g, other_core), >=, 0);
}

/* An open surface has no inside: refused, naming it. */
static void
test_open_surface_refused (void)
{
  const double vertices[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
  const uint32_t triangles[] = { 0, 1, 2 };
  CwbSurfaceMesh surface = { .struct_size = sizeof surface, .vertices = vertices,
                             .n_vertices = 3, .triangles = triangles, .n_triangles = 1,
                             .closed = FALSE, .source = "flap.obj" };
  g_autoptr (GError) error = NULL;
  g_assert_null (tet_grid_build (&surface, 4, TET_GRID_FIT_BOUNDS, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "flap.obj"));
  g_assert_nonnull (strstr (error->message, "not closed"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fem/tet-grid/triangle-box", test_triangle_box);
  g_test_add_func ("/fem/tet-grid/box-margin", test_box_grid_margin);
  g_test_add_func ("/fem/tet-grid/box-bounds", test_box_grid_bounds);
  g_test_add_data_func ("/fem/tet-grid/sphere-bounds", GINT_TO_POINTER (TET_GRID_FIT_BOUNDS),
                        test_sphere_grid);
  g_test_add_data_func ("/fem/tet-grid/sphere-margin", GINT_TO_POINTER (TET_GRID_FIT_MARGIN),
                        test_sphere_grid);
  g_test_add_data_func ("/fem/tet-grid/torus-bounds", GINT_TO_POINTER (TET_GRID_FIT_BOUNDS),
                        test_torus_grid);
  g_test_add_data_func ("/fem/tet-grid/torus-margin", GINT_TO_POINTER (TET_GRID_FIT_MARGIN),
                        test_torus_grid);
  g_test_add_func ("/fem/tet-grid/open-surface", test_open_surface_refused);
  return g_test_run ();
}

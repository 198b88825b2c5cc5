#include "test_shapes.h"

#include <math.h>

#include <cwb/vecmath.h>

static TestShape *
shape_new (GArray *vertices, GArray *triangles, char *source)
{
  TestShape *shape = g_new0 (TestShape, 1);
  size_t nv = vertices->len / 3, nt = triangles->len / 3;
  shape->vertices = (double *) (void *) g_array_free (vertices, FALSE);
  shape->triangles = (uint32_t *) (void *) g_array_free (triangles, FALSE);
  shape->source = source;
  shape->surface = (CwbSurfaceMesh) {
    .struct_size = sizeof (CwbSurfaceMesh),
    .vertices = shape->vertices,
    .n_vertices = nv,
    .triangles = shape->triangles,
    .n_triangles = nt,
    .closed = TRUE,
    .manifold = TRUE,
    .source = shape->source,
  };
  return shape;
}

TestShape *
test_shape_box (double sx, double sy, double sz)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *t = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  /* Vertex i has coordinate signs from its bits: x from bit 0, y bit 1, z bit 2. */
  for (int i = 0; i < 8; i++)
    {
      double p[3] = { (i & 1 ? 0.5 : -0.5) * sx, (i & 2 ? 0.5 : -0.5) * sy,
                      (i & 4 ? 0.5 : -0.5) * sz };
      g_array_append_vals (v, p, 3);
    }
  /* Two triangles per face, counter-clockwise seen from outside. */
  static const uint32_t faces[12][3] = {
    { 0, 2, 1 }, { 1, 2, 3 },   /* z- */
    { 4, 5, 6 }, { 5, 7, 6 },   /* z+ */
    { 0, 1, 4 }, { 1, 5, 4 },   /* y- */
    { 2, 6, 3 }, { 3, 6, 7 },   /* y+ */
    { 0, 4, 2 }, { 2, 4, 6 },   /* x- */
    { 1, 3, 5 }, { 3, 7, 5 },   /* x+ */
  };
  g_array_append_vals (t, faces, 36);
  return shape_new (v, t, g_strdup_printf ("test box %g x %g x %g", sx, sy, sz));
}

/* Index of the midpoint vertex of edge (a, b), created once per edge. */
static uint32_t
midpoint (GArray *v, GHashTable *cache, uint32_t a, uint32_t b, double radius)
{
  uint64_t key = ((uint64_t) MIN (a, b) << 32) | MAX (a, b);
  gpointer found;
  if (g_hash_table_lookup_extended (cache, &key, NULL, &found))
    return GPOINTER_TO_UINT (found);
  const double *pa = &g_array_index (v, double, 3 * a);
  const double *pb = &g_array_index (v, double, 3 * b);
  double m[3];
  cwb_v3_add (m, pa, pb);
  cwb_v3_normalize (m);
  cwb_v3_scale (m, m, radius);
  uint32_t index = v->len / 3;
  g_array_append_vals (v, m, 3);
  g_hash_table_insert (cache, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (index));
  return index;
}

TestShape *
test_shape_icosphere (double radius, int subdivisions)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *t = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  const double phi = (1.0 + sqrt (5.0)) / 2.0;
  const double base[12][3] = {
    { -1, phi, 0 }, { 1, phi, 0 }, { -1, -phi, 0 }, { 1, -phi, 0 },
    { 0, -1, phi }, { 0, 1, phi }, { 0, -1, -phi }, { 0, 1, -phi },
    { phi, 0, -1 }, { phi, 0, 1 }, { -phi, 0, -1 }, { -phi, 0, 1 },
  };
  static const uint32_t faces[20][3] = {
    { 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 }, { 0, 10, 11 },
    { 1, 5, 9 }, { 5, 11, 4 }, { 11, 10, 2 }, { 10, 7, 6 }, { 7, 1, 8 },
    { 3, 9, 4 }, { 3, 4, 2 }, { 3, 2, 6 }, { 3, 6, 8 }, { 3, 8, 9 },
    { 4, 9, 5 }, { 2, 4, 11 }, { 6, 2, 10 }, { 8, 6, 7 }, { 9, 8, 1 },
  };
  for (int i = 0; i < 12; i++)
    {
      double p[3];
      cwb_v3_copy (p, base[i]);
      cwb_v3_normalize (p);
      cwb_v3_scale (p, p, radius);
      g_array_append_vals (v, p, 3);
    }
  g_array_append_vals (t, faces, 60);

  for (int s = 0; s < subdivisions; s++)
    {
      g_autoptr (GHashTable) cache = g_hash_table_new_full (g_int64_hash, g_int64_equal,
                                                            g_free, NULL);
      GArray *finer = g_array_new (FALSE, FALSE, sizeof (uint32_t));
      for (guint k = 0; k < t->len / 3; k++)
        {
          uint32_t a = g_array_index (t, uint32_t, 3 * k);
          uint32_t b = g_array_index (t, uint32_t, 3 * k + 1);
          uint32_t c = g_array_index (t, uint32_t, 3 * k + 2);
          uint32_t ab = midpoint (v, cache, a, b, radius);
          uint32_t bc = midpoint (v, cache, b, c, radius);
          uint32_t ca = midpoint (v, cache, c, a, radius);
          const uint32_t tris[12] = { a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca };
          g_array_append_vals (finer, tris, 12);
        }
      g_array_free (t, TRUE);
      t = finer;
    }
  return shape_new (v, t, g_strdup_printf ("test icosphere r %g, %d subdivisions",
                                           radius, subdivisions));
}

void
test_shape_transform (TestShape *shape, const double rot[9], const double t[3])
{
  for (size_t k = 0; k < shape->surface.n_vertices; k++)
    {
      double *p = &shape->vertices[3 * k];
      cwb_m3_mul_v3 (p, rot, p);
      cwb_v3_add (p, p, t);
    }
}

void
test_shape_open (TestShape *shape)
{
  shape->surface.n_triangles--;
  shape->surface.closed = FALSE;
  shape->surface.manifold = FALSE;
}

void
test_shape_free (TestShape *shape)
{
  g_free (shape->vertices);
  g_free (shape->triangles);
  g_free (shape->source);
  g_free (shape);
}

/* The quadratic discrete-shells bending (bending.h). */
#include <math.h>

#include <cwb/vecmath.h>

#include "bending.h"

#define CLOTH_ERROR (g_quark_from_string ("cloth"))

/* The cotangent of the angle at p between p->a and p->b. */
static double
cotangent (const double p[3], const double a[3], const double b[3])
{
  double u[3], v[3], c[3];
  cwb_v3_sub (u, a, p);
  cwb_v3_sub (v, b, p);
  cwb_v3_cross (c, u, v);
  return cwb_v3_dot (u, v) / cwb_v3_norm (c);
}

static double
triangle_area (const double a[3], const double b[3], const double c[3])
{
  double u[3], v[3], n[3];
  cwb_v3_sub (u, b, a);
  cwb_v3_sub (v, c, a);
  cwb_v3_cross (n, u, v);
  return 0.5 * cwb_v3_norm (n);
}

static guint64
edge_key (uint32_t a, uint32_t b)
{
  return a < b ? ((guint64) a << 32) | b : ((guint64) b << 32) | a;
}

gboolean
bending_hinges (const double *x, const uint32_t *triangles, size_t n_triangles,
                GArray *hinges, GError **error)
{
  /* Each edge's first triangle (index + 1) and, for edges met again, the hinge made. */
  g_autoptr (GHashTable) first = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                        NULL);
  g_autoptr (GHashTable) paired = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         NULL);
  for (size_t t = 0; t < n_triangles; t++)
    {
      const uint32_t *tri = &triangles[3 * t];
      if (!(triangle_area (&x[3 * tri[0]], &x[3 * tri[1]], &x[3 * tri[2]]) > 0))
        {
          g_set_error (error, CLOTH_ERROR, 0, "triangle %zu (vertices %u, %u, %u) has no area",
                       t, tri[0], tri[1], tri[2]);
          return FALSE;
        }
      for (int e = 0; e < 3; e++)
        {
          uint32_t a = tri[e], b = tri[(e + 1) % 3], opposite = tri[(e + 2) % 3];
          guint64 key = edge_key (a, b);
          if (g_hash_table_contains (paired, &key))
            {
              g_set_error (error, CLOTH_ERROR, 0, "the edge between vertices %u and %u has "
                           "more than two triangles: a cloth must be a manifold surface",
                           a, b);
              return FALSE;
            }
          gpointer other = g_hash_table_lookup (first, &key);
          if (other == NULL)
            {
              g_hash_table_insert (first, g_memdup2 (&key, sizeof key),
                                   GSIZE_TO_POINTER (t + 1));
              continue;
            }
          const uint32_t *o = &triangles[3 * (GPOINTER_TO_SIZE (other) - 1)];
          uint32_t across = o[0] != a && o[0] != b ? o[0] : o[1] != a && o[1] != b ? o[1] : o[2];
          BendingHinge hinge = { .vertices = { a, b, opposite, across } };
          const double *x0 = &x[3 * a], *x1 = &x[3 * b], *x2 = &x[3 * opposite];
          const double *x3 = &x[3 * across];
          double cot_a0 = cotangent (x0, x1, x2), cot_a1 = cotangent (x1, x0, x2);
          double cot_b0 = cotangent (x0, x1, x3), cot_b1 = cotangent (x1, x0, x3);
          double scale = 1 / sqrt (triangle_area (x0, x1, x2) + triangle_area (x0, x1, x3));
          hinge.k[0] = scale * (cot_a1 + cot_b1);
          hinge.k[1] = scale * (cot_a0 + cot_b0);
          hinge.k[2] = -scale * (cot_a0 + cot_a1);
          hinge.k[3] = -scale * (cot_b0 + cot_b1);
          g_array_append_val (hinges, hinge);
          g_hash_table_insert (paired, g_memdup2 (&key, sizeof key), NULL);
        }
    }
  return TRUE;
}

void
bending_curvature (const BendingHinge *hinge, const double *q, double c[3])
{
  cwb_v3_set (c, 0, 0, 0);
  for (int i = 0; i < 4; i++)
    cwb_v3_axpy (c, hinge->k[i], &q[3 * hinge->vertices[i]]);
}

double
bending_energy (const BendingHinge *hinges, size_t n, double stiffness, const double *q)
{
  double e = 0;
  for (size_t h = 0; h < n; h++)
    {
      double c[3];
      bending_curvature (&hinges[h], q, c);
      e += 0.5 * stiffness * cwb_v3_dot (c, c);
    }
  return e;
}

void
bending_add_forces (const BendingHinge *hinges, size_t n, double stiffness, const double *q,
                    double *f)
{
  for (size_t h = 0; h < n; h++)
    {
      double c[3];
      bending_curvature (&hinges[h], q, c);
      for (int i = 0; i < 4; i++)
        cwb_v3_axpy (&f[3 * hinges[h].vertices[i]], -stiffness * hinges[h].k[i], c);
    }
}

void
bending_stiffness (const BendingHinge *hinge, double stiffness, double k[12][12])
{
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
          k[3 * i + r][3 * j + c] = r == c ? stiffness * hinge->k[i] * hinge->k[j] : 0;
}

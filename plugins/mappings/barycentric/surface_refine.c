/* Splitting a surface's long edges until every edge is within a limit (surface_refine.h). */
#include "surface_refine.h"

#include <cwb/vecmath.h>
#include <stdlib.h>

CWB_DEFINE_ERROR_QUARK (surface-refine-error-quark, surface_refine_error)

/* An edge is split when longer than the limit by more than this share of it: an edge that
 * equals the limit up to rounding (a box of 4 cells split twice, against the cell) is kept
 * rather than halved once more on the last bit. */
#define EDGE_SLACK 1e-9

/* An edge by its two vertex indices, smaller first, as one sortable key. */
static inline uint64_t
edge_key (uint32_t a, uint32_t b)
{
  return a < b ? ((uint64_t) a << 32) | b : ((uint64_t) b << 32) | a;
}

static int
compare_keys (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

static double
edge_length (const GArray *vertices, uint32_t a, uint32_t b)
{
  const double *v = (const double *) vertices->data;
  double d[3];
  cwb_v3_sub (d, &v[3 * a], &v[3 * b]);
  return cwb_v3_norm (d);
}

/* The midpoint vertex of edge (a, b) if it is marked (its key among the sorted `marked`,
 * whose midpoints are numbered from `first` in that order), else -1. */
static int64_t
midpoint_of (const uint64_t *marked, size_t n_marked, size_t first, uint32_t a, uint32_t b)
{
  uint64_t key = edge_key (a, b);
  const uint64_t *hit = bsearch (&key, marked, n_marked, sizeof *marked, compare_keys);
  return hit != NULL ? (int64_t) (first + (size_t) (hit - marked)) : -1;
}

static void
add_triangle (GArray *out, uint32_t a, uint32_t b, uint32_t c)
{
  uint32_t t[3] = { a, b, c };
  g_array_append_vals (out, t, 3);
}

/* Splits triangle (t[0], t[1], t[2]) whose edges t[k] -> t[k+1] have midpoints m[k] (-1 when
 * not marked), keeping its orientation. */
static void
split_triangle (const GArray *vertices, GArray *out, const uint32_t t[3], const int64_t m[3])
{
  int n_marked = (m[0] >= 0) + (m[1] >= 0) + (m[2] >= 0);
  if (n_marked == 0)
    {
      add_triangle (out, t[0], t[1], t[2]);
      return;
    }
  if (n_marked == 3)
    {
      uint32_t m0 = (uint32_t) m[0], m1 = (uint32_t) m[1], m2 = (uint32_t) m[2];
      add_triangle (out, t[0], m0, m2);
      add_triangle (out, m0, t[1], m1);
      add_triangle (out, m2, m1, t[2]);
      add_triangle (out, m0, m1, m2);
      return;
    }
  /* Rotate so that edge 0 (a -> b) is marked and, with two marked, edge 1 (b -> c) too. */
  int r = 0;
  if (n_marked == 1)
    r = m[0] >= 0 ? 0 : m[1] >= 0 ? 1 : 2;
  else
    r = m[2] < 0 ? 0 : m[0] < 0 ? 1 : 2;
  uint32_t a = t[r], b = t[(r + 1) % 3], c = t[(r + 2) % 3];
  uint32_t mab = (uint32_t) m[r];
  if (n_marked == 1)
    {
      add_triangle (out, a, mab, c);
      add_triangle (out, mab, b, c);
      return;
    }
  uint32_t mbc = (uint32_t) m[(r + 1) % 3];
  add_triangle (out, mab, b, mbc);
  /* The quad a, mab, mbc, c, cut along its shorter diagonal. */
  if (edge_length (vertices, a, mbc) <= edge_length (vertices, mab, c))
    {
      add_triangle (out, a, mab, mbc);
      add_triangle (out, a, mbc, c);
    }
  else
    {
      add_triangle (out, a, mab, c);
      add_triangle (out, mab, mbc, c);
    }
}

gboolean
surface_refine (const double *vertices, size_t n_vertices, const uint32_t *triangles,
                size_t n_triangles, double max_edge, size_t max_vertices, const char *what,
                SurfaceRefined *out, GError **error)
{
  g_return_val_if_fail (max_edge > 0 && out != NULL, FALSE);
  *out = (SurfaceRefined) { 0 };
  GArray *verts = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *tris = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  GArray *next = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  GArray *marked = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  g_array_append_vals (verts, vertices, 3 * n_vertices);
  g_array_append_vals (tris, triangles, 3 * n_triangles);

  gboolean ok = TRUE;
  for (;;)
    {
      const uint32_t *t = (const uint32_t *) tris->data;
      size_t n_tris = tris->len / 3;
      g_array_set_size (marked, 0);
      for (size_t i = 0; i < n_tris; i++)
        for (int k = 0; k < 3; k++)
          {
            uint32_t a = t[3 * i + k], b = t[3 * i + (k + 1) % 3];
            if (edge_length (verts, a, b) > max_edge * (1 + EDGE_SLACK))
              {
                uint64_t key = edge_key (a, b);
                g_array_append_val (marked, key);
              }
          }
      if (marked->len == 0)
        break;
      /* One midpoint per edge: sorted and deduplicated, an edge's rank numbers its vertex. */
      uint64_t *keys = (uint64_t *) marked->data;
      qsort (keys, marked->len, sizeof *keys, compare_keys);
      size_t n_marked = 0;
      for (size_t i = 0; i < marked->len; i++)
        if (n_marked == 0 || keys[i] != keys[n_marked - 1])
          keys[n_marked++] = keys[i];
      size_t first = verts->len / 3;
      if (first + n_marked > max_vertices)
        {
          g_set_error (error, SURFACE_REFINE_ERROR, SURFACE_REFINE_ERROR_TOO_FINE,
                       "body '%s': splitting its surface's edges down to %g m would pass "
                       "%zu vertices; raise `surface_spacing` or set `refine_surface: false`",
                       what, max_edge, max_vertices);
          ok = FALSE;
          break;
        }
      for (size_t i = 0; i < n_marked; i++)
        {
          const double *v = (const double *) verts->data;
          uint32_t a = (uint32_t) (keys[i] >> 32), b = (uint32_t) keys[i];
          double mid[3];
          cwb_v3_add (mid, &v[3 * a], &v[3 * b]);
          cwb_v3_scale (mid, mid, 0.5);
          g_array_append_vals (verts, mid, 3);
        }
      g_array_set_size (next, 0);
      for (size_t i = 0; i < n_tris; i++)
        {
          const uint32_t *tri = &((const uint32_t *) tris->data)[3 * i];
          int64_t m[3];
          for (int k = 0; k < 3; k++)
            m[k] = midpoint_of (keys, n_marked, first, tri[k], tri[(k + 1) % 3]);
          split_triangle (verts, next, tri, m);
        }
      GArray *swap = tris;
      tris = next;
      next = swap;
    }

  g_array_unref (next);
  g_array_unref (marked);
  if (!ok)
    {
      g_array_unref (verts);
      g_array_unref (tris);
      return FALSE;
    }
  out->n_vertices = verts->len / 3;
  out->n_triangles = tris->len / 3;
  out->vertices = (double *) g_array_free (verts, FALSE);
  out->triangles = (uint32_t *) g_array_free (tris, FALSE);
  return TRUE;
}

void
surface_refined_clear (SurfaceRefined *refined)
{
  g_clear_pointer (&refined->vertices, g_free);
  g_clear_pointer (&refined->triangles, g_free);
  refined->n_vertices = refined->n_triangles = 0;
}

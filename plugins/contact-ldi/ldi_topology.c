/* The edge-topology check that admits a surface into an LDI (ldi.h): every undirected edge
 * used by exactly two triangles, in opposite directions. The host's cwb_mesh_check counts
 * the same things on its meshes, but plugins do not link the host, and a mapping may produce
 * any triangles; this is the plugin-side guard. */
#include <stdlib.h>

#include "ldi.h"

/* An edge as (low, high) vertex indices and the direction a triangle traverses it. */
typedef struct Edge {
  uint32_t low, high;
  uint32_t forward;      /* 1: the triangle goes low -> high */
} Edge;

static int
edge_compare (const void *pa, const void *pb)
{
  const Edge *a = pa, *b = pb;
  if (a->low != b->low)
    return a->low < b->low ? -1 : 1;
  if (a->high != b->high)
    return a->high < b->high ? -1 : 1;
  return (int) a->forward - (int) b->forward;
}

gboolean
ldi_surface_check (const LdiSurface *surface, size_t index, GError **error)
{
  size_t n_edges = 3 * surface->n_triangles;
  if (surface->n_triangles == 0)
    {
      g_set_error (error, LDI_ERROR, LDI_ERROR_TOPOLOGY,
                   "surface %zu (geometry %u) has no triangles: it bounds no volume", index,
                   surface->geometry);
      return FALSE;
    }
  g_autofree Edge *edges = g_new (Edge, n_edges);
  size_t degenerate = 0;
  for (size_t t = 0; t < surface->n_triangles; t++)
    for (int k = 0; k < 3; k++)
      {
        uint32_t a = surface->triangles[3 * t + k], b = surface->triangles[3 * t + (k + 1) % 3];
        if (a >= surface->n_vertices || b >= surface->n_vertices)
          {
            g_set_error (error, LDI_ERROR, LDI_ERROR_INPUT,
                         "surface %zu (geometry %u): triangle %zu uses vertex %u of %zu",
                         index, surface->geometry, t, MAX (a, b), surface->n_vertices);
            return FALSE;
          }
        degenerate += a == b;
        edges[3 * t + k] = (Edge) { MIN (a, b), MAX (a, b), a < b };
      }
  qsort (edges, n_edges, sizeof (Edge), edge_compare);

  size_t boundary = 0, nonmanifold = 0, inconsistent = 0;
  for (size_t e = 0; e < n_edges;)
    {
      size_t end = e + 1;
      while (end < n_edges && edges[end].low == edges[e].low && edges[end].high == edges[e].high)
        end++;
      size_t uses = end - e;
      if (uses == 1)
        boundary++;
      else if (uses > 2)
        nonmanifold++;
      else if (edges[e].forward == edges[e + 1].forward)
        inconsistent++;
      e = end;
    }
  if (boundary == 0 && nonmanifold == 0 && inconsistent == 0 && degenerate == 0)
    return TRUE;

  g_autoptr (GString) what = g_string_new (NULL);
  if (boundary > 0)
    g_string_append_printf (what, "%s%zu boundary edge%s", what->len ? ", " : "", boundary,
                            boundary == 1 ? "" : "s");
  if (nonmanifold > 0)
    g_string_append_printf (what, "%s%zu non-manifold edge%s (used by more than two triangles)",
                            what->len ? ", " : "", nonmanifold, nonmanifold == 1 ? "" : "s");
  if (inconsistent > 0)
    g_string_append_printf (what, "%s%zu inconsistently oriented edge%s", what->len ? ", " : "",
                            inconsistent, inconsistent == 1 ? "" : "s");
  if (degenerate > 0)
    g_string_append_printf (what, "%s%zu edge%s joining a vertex to itself", what->len ? ", " : "",
                            degenerate, degenerate == 1 ? "" : "s");
  g_set_error (error, LDI_ERROR, LDI_ERROR_TOPOLOGY,
               "surface %zu (geometry %u, body %u) is not a closed, consistently oriented "
               "surface: %s; the LDI volume needs every edge shared by exactly two triangles "
               "that traverse it in opposite directions", index, surface->geometry,
               surface->body, what->str);
  return FALSE;
}

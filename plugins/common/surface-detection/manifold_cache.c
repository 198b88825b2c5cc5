/* Face manifolds kept from their clip and refreshed while the polytopes barely move (see the
 * header). */
#include "manifold_cache.h"

#include <math.h>

/* A kept manifold's largest allowed motion of its two polytopes since its clip, over the
 * smaller one's radius: the distance a kept point may be from a fresh clip's (the header).
 * The constraint solver keeps its operator while contact points move by 1e-7 of the bodies'
 * size; a kept manifold stays within the same. */
#define MANIFOLD_MOTION 1e-7

typedef struct KeptManifold {
  uint32_t a, b;
  double margin;
  SatOutcome outcome;
  uint32_t face;
  guint first, count;          /* its contacts in the contact pool */
  guint first_x, n_x;          /* the two polytopes' vertex positions at the clip, a's then
                                * b's, in the position pool */
} KeptManifold;

void
manifold_cache_init (ManifoldCache *cache)
{
  memset (cache, 0, sizeof *cache);
  cache->enabled = TRUE;
  cache->last = g_array_new (FALSE, FALSE, sizeof (KeptManifold));
  cache->next = g_array_new (FALSE, FALSE, sizeof (KeptManifold));
  cache->contacts = g_array_new (FALSE, FALSE, sizeof (ManifoldContact));
  cache->x = g_array_new (FALSE, FALSE, sizeof (double));
}

void
manifold_cache_clear (ManifoldCache *cache)
{
  g_clear_pointer (&cache->last, g_array_unref);
  g_clear_pointer (&cache->next, g_array_unref);
  g_clear_pointer (&cache->contacts, g_array_unref);
  g_clear_pointer (&cache->x, g_array_unref);
}

void
manifold_cache_begin (ManifoldCache *cache)
{
  g_array_set_size (cache->next, 0);
  cache->cursor = 0;
  cache->kept = 0;
}

/* Appends the polytope's vertex positions to `x`. */
static void
append_positions (GArray *x, const ConvexPolytope *p, const CwbGeometry *g)
{
  guint at = x->len;
  g_array_set_size (x, at + 3 * p->n_vertices);
  convex_polytope_positions (p, g, &g_array_index (x, double, at));
}

/* The point's position from its vertices' current positions. */
static void
rebuild (SurfacePoint *point, const CwbGeometry *geometries)
{
  const CwbGeometry *g = &geometries[point->geometry];
  double x[3] = { 0, 0, 0 };
  for (uint32_t k = 0; k < point->n; k++)
    cwb_v3_axpy (x, point->weight[k], &g->positions[3 * point->vertex[k]]);
  cwb_v3_copy (point->position, x);
}

gboolean
manifold_cache_refresh (ManifoldCache *cache, uint32_t a, uint32_t b,
                        const SatDecision *decision, double margin,
                        const CwbGeometry *geometries, const ConvexPolytope *polytopes,
                        GArray *contacts)
{
  /* Only face manifolds are stored, so a decision of another outcome finds none below. */
  if (!cache->enabled)
    return FALSE;
  const KeptManifold *last = (const KeptManifold *) (const void *) cache->last->data;
  while (cache->cursor < cache->last->len
         && (last[cache->cursor].a < a
             || (last[cache->cursor].a == a && last[cache->cursor].b < b)))
    cache->cursor++;
  if (cache->cursor == cache->last->len || last[cache->cursor].a != a
      || last[cache->cursor].b != b)
    return FALSE;
  const KeptManifold *kept = &last[cache->cursor];
  const ConvexPolytope *pa = &polytopes[a], *pb = &polytopes[b];
  /* The decision was kept, so neither structure was rebuilt since: the vertices are the
   * ones whose positions the clip left (their count is checked all the same). */
  if (kept->margin != margin || kept->outcome != decision->outcome
      || kept->face != decision->face || kept->n_x != 3 * (pa->n_vertices + pb->n_vertices))
    return FALSE;
  const double *x = &g_array_index (cache->x, double, kept->first_x);
  double moved = convex_polytope_motion (pa, &geometries[a], x)
                 + convex_polytope_motion (pb, &geometries[b], x + 3 * pa->n_vertices);
  if (moved > MANIFOLD_MOTION * fmin (pa->radius, pb->radius))
    return FALSE;
  const ConvexPolytope *reference = &polytopes[decision->outcome == SAT_FACE_A ? a : b];
  const double *normal = reference->faces[decision->face].normal;
  const ManifoldContact *clipped = &g_array_index (cache->contacts, ManifoldContact,
                                                   kept->first);
  for (guint k = 0; k < kept->count; k++)
    {
      ManifoldContact c = clipped[k];
      rebuild (&c.a, geometries);
      rebuild (&c.b, geometries);
      cwb_v3_copy (c.normal, normal);
      double gap[3];
      cwb_v3_sub (gap, c.a.position, c.b.position);
      c.gap = cwb_v3_dot (c.normal, gap);
      if (c.gap <= margin)
        g_array_append_val (contacts, c);
    }
  /* Kept on as it was clipped, where it lies in the pools. */
  g_array_append_val (cache->next, *kept);
  cache->kept++;
  return TRUE;
}

void
manifold_cache_store (ManifoldCache *cache, uint32_t a, uint32_t b,
                      const SatDecision *decision, double margin,
                      const CwbGeometry *geometries, const ConvexPolytope *polytopes,
                      const GArray *contacts, guint first)
{
  if (!cache->enabled)
    return;
  KeptManifold manifold = {
    .a = a, .b = b, .margin = margin, .outcome = decision->outcome, .face = decision->face,
    .first = cache->contacts->len, .count = contacts->len - first,
    .first_x = cache->x->len,
  };
  if (manifold.count > 0)
    g_array_append_vals (cache->contacts, &g_array_index (contacts, ManifoldContact, first),
                         manifold.count);
  append_positions (cache->x, &polytopes[a], &geometries[a]);
  append_positions (cache->x, &polytopes[b], &geometries[b]);
  manifold.n_x = cache->x->len - manifold.first_x;
  g_array_append_val (cache->next, manifold);
}

/* Copies the live manifolds' contacts and positions (live_contacts and live_x of them) into
 * fresh pools, in order. */
static void
compact (ManifoldCache *cache, guint live_contacts, guint live_x)
{
  GArray *contacts = g_array_sized_new (FALSE, FALSE, sizeof (ManifoldContact), live_contacts);
  GArray *x = g_array_sized_new (FALSE, FALSE, sizeof (double), live_x);
  KeptManifold *kept = (KeptManifold *) (void *) cache->last->data;
  for (guint k = 0; k < cache->last->len; k++)
    {
      g_array_append_vals (contacts, &g_array_index (cache->contacts, ManifoldContact,
                                                     kept[k].first), kept[k].count);
      g_array_append_vals (x, &g_array_index (cache->x, double, kept[k].first_x), kept[k].n_x);
      kept[k].first = contacts->len - kept[k].count;
      kept[k].first_x = x->len - kept[k].n_x;
    }
  g_array_unref (cache->contacts);
  g_array_unref (cache->x);
  cache->contacts = contacts;
  cache->x = x;
}

void
manifold_cache_end (ManifoldCache *cache)
{
  GArray *swap = cache->last;
  cache->last = cache->next;
  cache->next = swap;
  /* A clip appends to the pools and a refresh copies nothing: once the manifolds no longer
   * kept are most of the pools, the live ones are copied out. */
  const KeptManifold *kept = (const KeptManifold *) (const void *) cache->last->data;
  guint live_contacts = 0, live_x = 0;
  for (guint k = 0; k < cache->last->len; k++)
    {
      live_contacts += kept[k].count;
      live_x += kept[k].n_x;
    }
  if (cache->contacts->len > 2 * live_contacts || cache->x->len > 2 * live_x)
    compact (cache, live_contacts, live_x);
}

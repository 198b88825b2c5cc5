/* Surface adjacency, its cache and pseudo-normals (surface_topology.h), split out of the
 * collision detection that uses them. */
#include <math.h>

#include "surface_topology.h"

#define NONE SURFACE_NONE

/* A triangle whose |(b - a) x (c - a)| is below this times its longest edge squared has no
 * usable normal (relative error of the normal ~ 1e-16 / 1e-12 = 1e-4): it is skipped. Its
 * closest points lie within 1e-12 edge lengths of its longest edge, which the neighbouring
 * triangles of a closed surface contain, so nothing is lost but that sliver. */
#define DEGENERATE_RATIO 1e-12

static void
topology_free (gpointer data)
{
  Topology *topology = data;
  g_free (topology->neighbour);
  g_free (topology->vertex_start);
  g_free (topology->vertex_triangles);
  g_free (topology);
}

void
topology_cache_init (TopologyCache *cache)
{
  cache->topologies = g_ptr_array_new_with_free_func (topology_free);
}

void
topology_cache_clear (TopologyCache *cache)
{
  g_clear_pointer (&cache->topologies, g_ptr_array_unref);
}

/* FNV-1a over the indices: a changed index array under the same pointer and counts is seen. */
static uint64_t
triangles_checksum (const uint32_t *triangles, size_t n)
{
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < 3 * n; i++)
    {
      h ^= triangles[i];
      h *= 1099511628211ull;
    }
  return h;
}

typedef struct EdgeSlot {
  uint64_t key;                 /* min vertex << 32 | max vertex */
  uint32_t slot;                /* 3 t + k */
} EdgeSlot;

static int
edge_slot_compare (const void *pa, const void *pb)
{
  const EdgeSlot *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->slot < b->slot ? -1 : (a->slot > b->slot);
}

/* Built once per topology (allocates; not part of the steady state). */
static void
topology_build (Topology *topology)
{
  size_t nt = topology->n_triangles, np = topology->n_points;
  const uint32_t *tri = topology->triangles;
  topology->valid = TRUE;
  for (size_t i = 0; i < 3 * nt; i++)
    if (tri[i] >= np)
      {
        g_critical ("collision detection: triangle %zu has vertex %u of %zu", i / 3, tri[i], np);
        topology->valid = FALSE;
        return;
      }

  /* Edges: sort the 3 nt directed edges by their undirected key; an undirected edge met
   * exactly twice, in opposite directions, links its two triangles. */
  g_autofree EdgeSlot *edges = g_new (EdgeSlot, MAX (3 * nt, 1));
  for (size_t t = 0; t < nt; t++)
    for (int k = 0; k < 3; k++)
      {
        uint64_t u = tri[3 * t + k], v = tri[3 * t + (k + 1) % 3];
        edges[3 * t + k] = (EdgeSlot) { MIN (u, v) << 32 | MAX (u, v), (uint32_t) (3 * t + k) };
      }
  qsort (edges, 3 * nt, sizeof *edges, edge_slot_compare);
  topology->neighbour = g_new (uint32_t, MAX (3 * nt, 1));
  for (size_t i = 0; i < 3 * nt; i++)
    topology->neighbour[i] = NONE;
  for (size_t i = 0; i < 3 * nt;)
    {
      size_t j = i + 1;
      while (j < 3 * nt && edges[j].key == edges[i].key)
        j++;
      if (j == i + 2)
        {
          uint32_t s0 = edges[i].slot, s1 = edges[i + 1].slot;
          uint32_t from0 = tri[s0], from1 = tri[s1];
          if (from0 != from1)   /* opposite directions: consistently oriented */
            {
              topology->neighbour[s0] = s1 / 3;
              topology->neighbour[s1] = s0 / 3;
            }
        }
      i = j;
    }

  /* Incident triangles per vertex, in triangle order. */
  topology->vertex_start = g_new0 (uint32_t, np + 1);
  topology->vertex_triangles = g_new (uint32_t, MAX (3 * nt, 1));
  for (size_t i = 0; i < 3 * nt; i++)
    topology->vertex_start[tri[i] + 1]++;
  for (size_t v = 0; v < np; v++)
    topology->vertex_start[v + 1] += topology->vertex_start[v];
  g_autofree uint32_t *cursor = g_memdup2 (topology->vertex_start, (np + 1) * sizeof (uint32_t));
  for (size_t i = 0; i < 3 * nt; i++)
    topology->vertex_triangles[cursor[tri[i]]++] = (uint32_t) (i / 3);
}

Topology *
topology_cache_lookup (TopologyCache *cache, const CwbGeometry *geometry, uint64_t run,
                       gboolean *built)
{
  uint64_t checksum = triangles_checksum (geometry->triangles, geometry->n_triangles);
  *built = FALSE;
  for (guint i = 0; i < cache->topologies->len; i++)
    {
      Topology *topology = g_ptr_array_index (cache->topologies, i);
      if (topology->triangles == geometry->triangles
          && topology->n_triangles == geometry->n_triangles
          && topology->n_points == geometry->n_points && topology->checksum == checksum)
        {
          topology->last_run = run;
          return topology;
        }
    }
  Topology *topology = g_new0 (Topology, 1);
  topology->triangles = geometry->triangles;
  topology->n_triangles = geometry->n_triangles;
  topology->n_points = geometry->n_points;
  topology->checksum = checksum;
  topology->last_run = run;
  topology_build (topology);
  g_ptr_array_add (cache->topologies, topology);
  *built = TRUE;
  return topology;
}

void
topology_cache_prune (TopologyCache *cache, uint64_t run)
{
  for (guint i = cache->topologies->len; i > 0; i--)
    {
      Topology *topology = g_ptr_array_index (cache->topologies, i - 1);
      if (topology->last_run != run)
        g_ptr_array_remove_index (cache->topologies, i - 1);
    }
}

/* Unit normal of triangle t of a geometry into n; returns |(b - a) x (c - a)|, or 0 when the
 * triangle is degenerate (DEGENERATE_RATIO) or not finite (n is then zero). */
double
surface_triangle_normal (const CwbGeometry *geometry, size_t t, double n[3])
{
  const uint32_t *tri = geometry->triangles + 3 * t;
  const double *a = geometry->positions + 3 * tri[0], *b = geometry->positions + 3 * tri[1],
               *c = geometry->positions + 3 * tri[2];
  double ab[3], ac[3], bc[3];
  cwb_v3_sub (ab, b, a);
  cwb_v3_sub (ac, c, a);
  cwb_v3_sub (bc, c, b);
  cwb_v3_cross (n, ab, ac);
  double longest2 = MAX (cwb_v3_dot (ab, ab), MAX (cwb_v3_dot (ac, ac), cwb_v3_dot (bc, bc)));
  double norm = cwb_v3_norm (n);
  if (!(norm > DEGENERATE_RATIO * longest2) || !isfinite (norm))
    {
      cwb_v3_set (n, 0, 0, 0);
      return 0;
    }
  cwb_v3_scale (n, n, 1.0 / norm);
  return norm;
}

/* Angle-weighted pseudo-normal (Baerentzen & Aanaes 2005 eq. 2, unnormalised: only its sign
 * against p - closest is used) of a feature of triangle t of geometry b: the face normal; the
 * sum of the two face normals at an edge (each face's angle there is pi); at a vertex, the
 * sum over incident faces of the face's angle at the vertex times its normal. */
void
surface_pseudo_normal (const CwbGeometry *geometry, const Topology *topology, uint32_t t,
                       int feature, double out[3])
{
  double n[3];
  if (feature < FEATURE_VERTEX)
    {
      surface_triangle_normal (geometry, t, out);
      uint32_t other = feature == FEATURE_FACE
                         ? NONE : topology->neighbour[3 * t + (feature - FEATURE_EDGE)];
      if (other != NONE)
        {
          surface_triangle_normal (geometry, other, n);
          cwb_v3_add (out, out, n);
        }
      return;
    }
  uint32_t vertex = geometry->triangles[3 * t + (feature - FEATURE_VERTEX)];
  cwb_v3_set (out, 0, 0, 0);
  for (uint32_t i = topology->vertex_start[vertex]; i < topology->vertex_start[vertex + 1]; i++)
    {
      uint32_t u = topology->vertex_triangles[i];
      if (surface_triangle_normal (geometry, u, n) == 0)
        continue;
      const uint32_t *tri = geometry->triangles + 3 * u;
      int k = tri[0] == vertex ? 0 : (tri[1] == vertex ? 1 : 2);
      const double *v0 = geometry->positions + 3 * tri[k];
      double e1[3], e2[3], cross[3];
      cwb_v3_sub (e1, geometry->positions + 3 * tri[(k + 1) % 3], v0);
      cwb_v3_sub (e2, geometry->positions + 3 * tri[(k + 2) % 3], v0);
      cwb_v3_cross (cross, e1, e2);
      double angle = atan2 (cwb_v3_norm (cross), cwb_v3_dot (e1, e2));
      cwb_v3_axpy (out, angle, n);
    }
}

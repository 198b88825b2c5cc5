/* The surface around volume particles (particle_surface.h): the field of Zhu and Bridson
 * 2005 on a sparse grid, its zero set by marching tetrahedra, the vertices' weights over the
 * particles.
 *
 *   1. nodes: every grid node within a particle's support gets the sums sum k, sum k x_i and
 *      sum k r_i of the particles that reach it (scattered particle by particle, in their
 *      order, so the result does not depend on a hash's order), hence phi (eq. 3-4); a node
 *      that no particle reaches is outside;
 *   2. cells: every cube with an inside corner (phi < 0), split into Kuhn's six tetrahedra;
 *      a tetrahedron with corners on both sides gives one triangle (one corner apart) or a
 *      quad split in two (two and two), its vertices on the tetrahedron's edges where phi
 *      interpolated linearly vanishes, one vertex per grid edge;
 *   3. weights: each vertex's normalised kernel weights over the particles within reach of
 *      it (the Teschner spatial hash of surface-detection, cells of the largest support). */
#include "particle_surface.h"

#include <math.h>
#include <string.h>

#include <cwb/contact.h>

/* Grid coordinates are packed 20 bits an axis into a node key (60 bits), and a grid edge is
 * its lower node's key and its direction (3 bits): 2^20 cells an axis, 2.6 km of 2.5 mm
 * cells. */
#define AXIS_BITS 20
#define AXIS_LIMIT ((int64_t) 1 << AXIS_BITS)
#define EMPTY_KEY UINT64_MAX
/* A node no particle reaches is outside by this many of the largest radius: phi there is at
 * least R - r = r for the particle nearest to it (q = 1). */
#define OUTSIDE_RADII 1.0
/* A vertex is kept this fraction of its edge away from the edge's nodes: a vertex on a node
 * would make zero-area triangles that meet other triangles at a point. 1e-3 of a cell is
 * 2.5 um at 2.5 mm cells, far below the LDI's pixels. */
#define EDGE_CLAMP 1e-3
/* The grid's origin below the particles' lowest support, in cells (see the build). A whole
 * cell: with a cell of one radius, a lattice's particles and the midpoints between them lie
 * on nodes, where the field is least bumpy (a block of 1000 measured 1.2 % under its volume;
 * 6.9 % with the nodes shifted by half a cell). */
#define GRID_OFFSET_CELLS 1.0

/* An open-addressing table of 64-bit keys to 32-bit values (linear probing, at most half
 * full), cleared and refilled every build without freeing. */
struct ParticleSurfaceTable {
  uint64_t *keys;
  uint32_t *values;
  size_t capacity;        /* a power of two */
  size_t n;
};

typedef struct Node {
  double sum_k;           /* sum_i k_i */
  double sum_kx[3];       /* sum_i k_i x_i */
  double sum_kr;          /* sum_i k_i r_i */
  double best_k;          /* the largest k_i, of particle best */
  uint32_t best;
  double phi;
} Node;

static void
table_reset (ParticleSurfaceTable *table, size_t expected)
{
  size_t capacity = 64;
  while (capacity < 2 * expected)
    capacity *= 2;
  if (capacity > table->capacity)
    {
      table->keys = g_renew (uint64_t, table->keys, capacity);
      table->values = g_renew (uint32_t, table->values, capacity);
      table->capacity = capacity;
    }
  memset (table->keys, 0xff, table->capacity * sizeof (uint64_t));
  table->n = 0;
}

static void
table_free (ParticleSurfaceTable *table)
{
  if (table == NULL)
    return;
  g_free (table->keys);
  g_free (table->values);
  g_free (table);
}

static size_t
table_home (const ParticleSurfaceTable *table, uint64_t key)
{
  return (size_t) cwb_contact_id_mix (key) & (table->capacity - 1);
}

/* The value of key, UINT32_MAX when it is not in the table. */
static uint32_t
table_find (const ParticleSurfaceTable *table, uint64_t key)
{
  for (size_t s = table_home (table, key);; s = (s + 1) & (table->capacity - 1))
    {
      if (table->keys[s] == key)
        return table->values[s];
      if (table->keys[s] == EMPTY_KEY)
        return UINT32_MAX;
    }
}

static void
table_grow (ParticleSurfaceTable *table)
{
  uint64_t *keys = table->keys;
  uint32_t *values = table->values;
  size_t old = table->capacity;
  table->capacity = 2 * old;
  table->keys = g_new (uint64_t, table->capacity);
  table->values = g_new (uint32_t, table->capacity);
  memset (table->keys, 0xff, table->capacity * sizeof (uint64_t));
  for (size_t s = 0; s < old; s++)
    if (keys[s] != EMPTY_KEY)
      {
        size_t t = table_home (table, keys[s]);
        while (table->keys[t] != EMPTY_KEY)
          t = (t + 1) & (table->capacity - 1);
        table->keys[t] = keys[s];
        table->values[t] = values[s];
      }
  g_free (keys);
  g_free (values);
}

/* The value of key, inserting `value` when it is not there yet (*inserted says which). */
static uint32_t
table_insert (ParticleSurfaceTable *table, uint64_t key, uint32_t value, gboolean *inserted)
{
  if (2 * (table->n + 1) > table->capacity)
    table_grow (table);
  size_t s = table_home (table, key);
  for (; table->keys[s] != EMPTY_KEY; s = (s + 1) & (table->capacity - 1))
    if (table->keys[s] == key)
      {
        *inserted = FALSE;
        return table->values[s];
      }
  table->keys[s] = key;
  table->values[s] = value;
  table->n++;
  *inserted = TRUE;
  return value;
}

static uint64_t
node_key (const int64_t ijk[3])
{
  return (uint64_t) ijk[0] | ((uint64_t) ijk[1] << AXIS_BITS)
         | ((uint64_t) ijk[2] << (2 * AXIS_BITS));
}

/* k(q) = (1 - q^2)^3 for q = d / R < 1, from d^2 and R^2: smooth (its derivative vanishes at
 * the support's edge, so the weights fade in and out without a jump). */
static double
kernel (double d2, double support2)
{
  if (d2 >= support2)
    return 0;
  double a = 1 - d2 / support2;
  return a * a * a;
}

void
particle_surface_init (ParticleSurface *surface)
{
  memset (surface, 0, sizeof *surface);
  surface->positions = g_array_new (FALSE, FALSE, sizeof (double));
  surface->velocities = g_array_new (FALSE, FALSE, sizeof (double));
  surface->triangles = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  surface->weight_start = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  surface->weights = g_array_new (FALSE, FALSE, sizeof (ParticleSurfaceWeight));
  surface->nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  surface->node_keys = g_array_new (FALSE, FALSE, sizeof (uint64_t));
  surface->vertex_node = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  surface->offsets = g_array_new (FALSE, FALSE, sizeof (double));
  surface->node_table = g_new0 (ParticleSurfaceTable, 1);
  surface->edge_table = g_new0 (ParticleSurfaceTable, 1);
  surface->cell_table = g_new0 (ParticleSurfaceTable, 1);
  spatial_hash_init (&surface->hash);
}

void
particle_surface_clear (ParticleSurface *surface)
{
  g_clear_pointer (&surface->positions, g_array_unref);
  g_clear_pointer (&surface->velocities, g_array_unref);
  g_clear_pointer (&surface->triangles, g_array_unref);
  g_clear_pointer (&surface->weight_start, g_array_unref);
  g_clear_pointer (&surface->weights, g_array_unref);
  g_clear_pointer (&surface->nodes, g_array_unref);
  g_clear_pointer (&surface->node_keys, g_array_unref);
  g_clear_pointer (&surface->vertex_node, g_array_unref);
  g_clear_pointer (&surface->offsets, g_array_unref);
  g_clear_pointer (&surface->node_table, table_free);
  g_clear_pointer (&surface->edge_table, table_free);
  g_clear_pointer (&surface->cell_table, table_free);
  spatial_hash_clear (&surface->hash);
}

/* What a build reads of the particles, and the grid it lays over them. */
typedef struct Grid {
  const CwbGeometry *particles;
  double origin[3];       /* node (i, j, k) lies at origin + c (i, j, k) */
  double cell;            /* c */
  double support_scale;   /* R_i / r_i */
  double outside;         /* phi of a node no particle reaches */
} Grid;

static gboolean
particle_usable (const Grid *grid, size_t i)
{
  const double *x = &grid->particles->positions[3 * i];
  double r = grid->particles->radii[i];
  if (!(isfinite (x[0]) && isfinite (x[1]) && isfinite (x[2]) && r > 0 && isfinite (r)))
    return FALSE;
  for (int k = 0; k < 3; k++)
    if ((x[k] + grid->support_scale * r - grid->origin[k]) / grid->cell >= AXIS_LIMIT - 2)
      return FALSE;
  return TRUE;
}

/* Step 1: the nodes within each particle's support, with their sums, then phi. */
static void
scatter_nodes (ParticleSurface *surface, const Grid *grid)
{
  const CwbGeometry *particles = grid->particles;
  g_array_set_size (surface->nodes, 0);
  g_array_set_size (surface->node_keys, 0);
  table_reset (surface->node_table, surface->node_table->n);
  surface->skipped = 0;
  for (size_t i = 0; i < particles->n_points; i++)
    {
      if (!particle_usable (grid, i))
        {
          surface->skipped++;
          continue;
        }
      const double *x = &particles->positions[3 * i];
      double r = particles->radii[i], support = grid->support_scale * r;
      int64_t lo[3], hi[3];
      for (int k = 0; k < 3; k++)
        {
          lo[k] = (int64_t) ceil ((x[k] - support - grid->origin[k]) / grid->cell);
          hi[k] = (int64_t) floor ((x[k] + support - grid->origin[k]) / grid->cell);
        }
      int64_t ijk[3];
      for (ijk[2] = lo[2]; ijk[2] <= hi[2]; ijk[2]++)
        for (ijk[1] = lo[1]; ijk[1] <= hi[1]; ijk[1]++)
          for (ijk[0] = lo[0]; ijk[0] <= hi[0]; ijk[0]++)
            {
              double d2 = 0;
              for (int k = 0; k < 3; k++)
                {
                  double d = grid->origin[k] + grid->cell * (double) ijk[k] - x[k];
                  d2 += d * d;
                }
              double k_i = kernel (d2, support * support);
              if (k_i <= 0)
                continue;
              uint64_t key = node_key (ijk);
              gboolean inserted;
              uint32_t n = table_insert (surface->node_table, key, surface->nodes->len,
                                         &inserted);
              if (inserted)
                {
                  Node zero = { .best = (uint32_t) i };
                  g_array_append_val (surface->nodes, zero);
                  g_array_append_val (surface->node_keys, key);
                }
              Node *node = &g_array_index (surface->nodes, Node, n);
              node->sum_k += k_i;
              for (int k = 0; k < 3; k++)
                node->sum_kx[k] += k_i * x[k];
              node->sum_kr += k_i * r;
              if (k_i > node->best_k)
                {
                  node->best_k = k_i;
                  node->best = (uint32_t) i;
                }
            }
    }
  /* Zhu and Bridson 2005 eq. 3-4 at each node. */
  for (guint n = 0; n < surface->nodes->len; n++)
    {
      Node *node = &g_array_index (surface->nodes, Node, n);
      uint64_t key = g_array_index (surface->node_keys, uint64_t, n);
      double d2 = 0;
      for (int k = 0; k < 3; k++)
        {
          int64_t c = (int64_t) ((key >> (k * AXIS_BITS)) & (AXIS_LIMIT - 1));
          double d = grid->origin[k] + grid->cell * (double) c - node->sum_kx[k] / node->sum_k;
          d2 += d * d;
        }
      node->phi = sqrt (d2) - node->sum_kr / node->sum_k;
    }
}

/* phi at node ijk, and its index (UINT32_MAX: no particle reaches it, outside). */
static double
node_phi (const ParticleSurface *surface, const Grid *grid, uint64_t key, uint32_t *index)
{
  *index = table_find (surface->node_table, key);
  return *index == UINT32_MAX ? grid->outside
                              : g_array_index (surface->nodes, Node, *index).phi;
}

/* Kuhn's six tetrahedra of a cube whose corners are numbered x + 2 y + 4 z: the monotone
 * paths from corner 0 to corner 7, one per order of the axes, each written positively
 * oriented (det (p1 - p0, p2 - p0, p3 - p0) > 0; an odd order of the axes has its last two
 * corners swapped). Neighbouring cubes split their shared face along the same diagonal. */
static const uint8_t kuhn_tets[6][4] = {
  { 0, 1, 3, 7 },   /* x, y, z: even */
  { 0, 2, 6, 7 },   /* y, z, x: even */
  { 0, 4, 5, 7 },   /* z, x, y: even */
  { 0, 1, 7, 5 },   /* x, z, y: odd */
  { 0, 2, 7, 3 },   /* y, x, z: odd */
  { 0, 4, 7, 6 },   /* z, y, x: odd */
};

/* One cube's corners: their keys, phi and node indices. */
typedef struct Cube {
  uint64_t key[8];
  double phi[8];
  uint32_t node[8];
  double position[8][3];
} Cube;

/* The vertex on the edge between cube corners a (inside) and b (outside), made once per grid
 * edge. Two corners of one Kuhn tetrahedron are always ordered (one's bits contain the
 * other's), so the edge is its lower corner and the direction of the upper. */
static uint32_t
edge_vertex (ParticleSurface *surface, const Cube *cube, int a, int b)
{
  int lower = (a & b) == a ? a : b, upper = lower == a ? b : a;
  uint64_t key = (cube->key[lower] << 3) | (uint64_t) (upper ^ lower);
  uint32_t n = (uint32_t) particle_surface_n_vertices (surface);
  gboolean inserted;
  uint32_t v = table_insert (surface->edge_table, key, n, &inserted);
  if (!inserted)
    return v;
  double t = cube->phi[a] / (cube->phi[a] - cube->phi[b]);
  t = CLAMP (t, EDGE_CLAMP, 1 - EDGE_CLAMP);
  double p[3];
  for (int k = 0; k < 3; k++)
    p[k] = cube->position[a][k] + t * (cube->position[b][k] - cube->position[a][k]);
  g_array_append_vals (surface->positions, p, 3);
  g_array_append_val (surface->vertex_node, cube->node[a]);
  return n;
}

static void
emit (ParticleSurface *surface, uint32_t a, uint32_t b, uint32_t c)
{
  uint32_t t[3] = { a, b, c };
  g_array_append_vals (surface->triangles, t, 3);
}

/* Number of inversions of a permutation of 4, mod 2. */
static int
parity (const int order[4])
{
  int odd = 0;
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      odd ^= order[i] > order[j];
  return odd;
}

/* One positively oriented tetrahedron (corners t[0..3] of the cube): its piece of the zero
 * set. Its corners are reordered as an even permutation (positive still) with the inside
 * corners first; then for inside i and outside corners j, k, l the triangle (ij, ik, il) faces
 * away from i (for the unit tetrahedron, (e2 - e1) x (e3 - e1) = (1, 1, 1)); for outside o
 * and inside corners the triangle (oj, ol, ok) faces o; for inside a, b and outside c, d the
 * quad (ac, ad, bd, bc) faces c and d. */
static void
march_tet (ParticleSurface *surface, const Cube *cube, const uint8_t t[4])
{
  int order[4], n_inside = 0;
  for (int k = 0; k < 4; k++)
    if (cube->phi[t[k]] < 0)
      order[n_inside++] = k;
  if (n_inside == 0 || n_inside == 4)
    return;
  int n = n_inside;
  for (int k = 0; k < 4; k++)
    if (!(cube->phi[t[k]] < 0))
      order[n++] = k;
  if (n_inside == 3)
    {
      /* The outside corner first, then the inside ones. */
      int o = order[3];
      order[3] = order[2];
      order[2] = order[1];
      order[1] = order[0];
      order[0] = o;
    }
  if (parity (order))
    {
      int s = order[2];
      order[2] = order[3];
      order[3] = s;
    }
  int c0 = t[order[0]], c1 = t[order[1]], c2 = t[order[2]], c3 = t[order[3]];
  if (n_inside == 1)
    emit (surface, edge_vertex (surface, cube, c0, c1), edge_vertex (surface, cube, c0, c2),
          edge_vertex (surface, cube, c0, c3));
  else if (n_inside == 3)
    emit (surface, edge_vertex (surface, cube, c1, c0), edge_vertex (surface, cube, c3, c0),
          edge_vertex (surface, cube, c2, c0));
  else
    {
      uint32_t ac = edge_vertex (surface, cube, c0, c2), ad = edge_vertex (surface, cube, c0, c3);
      uint32_t bd = edge_vertex (surface, cube, c1, c3), bc = edge_vertex (surface, cube, c1, c2);
      emit (surface, ac, ad, bd);
      emit (surface, ac, bd, bc);
    }
}

/* Step 2: the cubes with an inside corner, each marched once, in the order their first
 * inside corner was made. */
static void
march_cells (ParticleSurface *surface, const Grid *grid)
{
  g_array_set_size (surface->positions, 0);
  g_array_set_size (surface->triangles, 0);
  g_array_set_size (surface->vertex_node, 0);
  table_reset (surface->cell_table, surface->cell_table->n);
  table_reset (surface->edge_table, surface->edge_table->n);
  for (guint n = 0; n < surface->nodes->len; n++)
    {
      if (!(g_array_index (surface->nodes, Node, n).phi < 0))
        continue;
      uint64_t key = g_array_index (surface->node_keys, uint64_t, n);
      int64_t ijk[3];
      for (int k = 0; k < 3; k++)
        ijk[k] = (int64_t) ((key >> (k * AXIS_BITS)) & (AXIS_LIMIT - 1));
      for (int corner = 0; corner < 8; corner++)
        {
          /* The cube whose corner `corner` is this node: its lowest corner. */
          int64_t low[3] = { ijk[0] - (corner & 1), ijk[1] - ((corner >> 1) & 1),
                             ijk[2] - ((corner >> 2) & 1) };
          gboolean inserted;
          table_insert (surface->cell_table, node_key (low), 0, &inserted);
          if (!inserted)
            continue;
          Cube cube;
          for (int c = 0; c < 8; c++)
            {
              int64_t at[3] = { low[0] + (c & 1), low[1] + ((c >> 1) & 1),
                                low[2] + ((c >> 2) & 1) };
              cube.key[c] = node_key (at);
              cube.phi[c] = node_phi (surface, grid, cube.key[c], &cube.node[c]);
              for (int k = 0; k < 3; k++)
                cube.position[c][k] = grid->origin[k] + grid->cell * (double) at[k];
            }
          for (int t = 0; t < 6; t++)
            march_tet (surface, &cube, kuhn_tets[t]);
        }
    }
}

static int
compare_weights (const void *pa, const void *pb)
{
  const ParticleSurfaceWeight *a = pa, *b = pb;
  return (a->particle > b->particle) - (a->particle < b->particle);
}

/* Step 3: each vertex's normalised kernel weights over the particles that reach it, sorted
 * by particle; a vertex that none reaches (it lies on an edge to a node no particle reaches,
 * beyond every support) goes with its inside node's nearest particle. Its velocity is the
 * weighted particles'. */
static void
weigh_vertices (ParticleSurface *surface, const Grid *grid, double largest_support)
{
  const CwbGeometry *particles = grid->particles;
  spatial_hash_build (&surface->hash, particles, 1, largest_support);
  size_t n_vertices = particle_surface_n_vertices (surface);
  g_array_set_size (surface->weight_start, n_vertices + 1);
  g_array_set_size (surface->weights, 0);
  g_array_set_size (surface->velocities, 3 * n_vertices);
  g_array_set_size (surface->offsets, 3 * n_vertices);
  const SpatialHash *hash = &surface->hash;
  for (size_t v = 0; v < n_vertices; v++)
    {
      const double *p = &g_array_index (surface->positions, double, 3 * v);
      guint first = surface->weights->len;
      g_array_index (surface->weight_start, uint32_t, v) = first;
      int32_t cell[3];
      spatial_hash_cell (hash, p, cell);
      double sum = 0;
      for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++)
            {
              int32_t near[3] = { cell[0] + dx, cell[1] + dy, cell[2] + dz };
              uint32_t bucket = spatial_hash_bucket (hash, near);
              for (uint32_t e = hash->bucket_start[bucket]; e < hash->bucket_start[bucket + 1];
                   e++)
                {
                  const SpatialHashEntry *entry = &hash->entries[e];
                  if (!spatial_hash_same_cell (entry->cell, near))
                    continue;
                  double support = grid->support_scale * particles->radii[entry->point];
                  double d2 = 0;
                  for (int k = 0; k < 3; k++)
                    d2 += (p[k] - entry->position[k]) * (p[k] - entry->position[k]);
                  double k_i = kernel (d2, support * support);
                  if (k_i <= 0)
                    continue;
                  ParticleSurfaceWeight w = { entry->point, k_i };
                  g_array_append_val (surface->weights, w);
                  sum += k_i;
                }
            }
      ParticleSurfaceWeight *w = &g_array_index (surface->weights, ParticleSurfaceWeight, first);
      guint n = surface->weights->len - first;
      if (n == 0)
        {
          uint32_t node = g_array_index (surface->vertex_node, uint32_t, v);
          ParticleSurfaceWeight nearest = { g_array_index (surface->nodes, Node, node).best, 1 };
          g_array_append_val (surface->weights, nearest);
          w = &g_array_index (surface->weights, ParticleSurfaceWeight, first);
          n = 1;
          sum = 1;
        }
      qsort (w, n, sizeof *w, compare_weights);
      double *velocity = &g_array_index (surface->velocities, double, 3 * v);
      double *offset = &g_array_index (surface->offsets, double, 3 * v);
      for (int c = 0; c < 3; c++)
        velocity[c] = 0, offset[c] = p[c];
      for (guint k = 0; k < n; k++)
        {
          w[k].w /= sum;
          for (int c = 0; c < 3; c++)
            {
              offset[c] -= w[k].w * particles->positions[3 * w[k].particle + c];
              if (particles->velocities != NULL)
                velocity[c] += w[k].w * particles->velocities[3 * w[k].particle + c];
            }
        }
    }
  g_array_index (surface->weight_start, uint32_t, n_vertices) = surface->weights->len;
}

void
particle_surface_follow (ParticleSurface *surface, const CwbGeometry *particles)
{
  size_t n_vertices = particle_surface_n_vertices (surface);
  for (size_t v = 0; v < n_vertices; v++)
    {
      double *p = &g_array_index (surface->positions, double, 3 * v);
      double *velocity = &g_array_index (surface->velocities, double, 3 * v);
      const double *offset = &g_array_index (surface->offsets, double, 3 * v);
      for (int c = 0; c < 3; c++)
        p[c] = offset[c], velocity[c] = 0;
      uint32_t end = g_array_index (surface->weight_start, uint32_t, v + 1);
      for (uint32_t k = g_array_index (surface->weight_start, uint32_t, v); k < end; k++)
        {
          const ParticleSurfaceWeight *w
            = &g_array_index (surface->weights, ParticleSurfaceWeight, k);
          for (int c = 0; c < 3; c++)
            {
              p[c] += w->w * particles->positions[3 * w->particle + c];
              if (particles->velocities != NULL)
                velocity[c] += w->w * particles->velocities[3 * w->particle + c];
            }
        }
    }
}

void
particle_surface_build (ParticleSurface *surface, const CwbGeometry *particles)
{
  g_return_if_fail (particles != NULL && particles->kind == CWB_GEOMETRY_PARTICLES);
  Grid grid = { .particles = particles, .support_scale = PARTICLE_SURFACE_SUPPORT_RADII };
  /* The grid: anchored to the particles' box (so that a translation of them translates the
   * surface), a margin of the largest support and a cell beyond it so that every node index
   * is positive; its cell from the radii (particle_surface.h). */
  double smallest = INFINITY, largest = 0, lo[3] = { INFINITY, INFINITY, INFINITY };
  for (size_t i = 0; particles->radii != NULL && i < particles->n_points; i++)
    {
      const double *x = &particles->positions[3 * i];
      double r = particles->radii[i];
      if (!(isfinite (x[0]) && isfinite (x[1]) && isfinite (x[2]) && r > 0 && isfinite (r)))
        continue;
      smallest = MIN (smallest, r);
      largest = MAX (largest, r);
      for (int k = 0; k < 3; k++)
        lo[k] = MIN (lo[k], x[k]);
    }
  g_array_set_size (surface->positions, 0);
  g_array_set_size (surface->velocities, 0);
  g_array_set_size (surface->offsets, 0);
  g_array_set_size (surface->triangles, 0);
  g_array_set_size (surface->weights, 0);
  g_array_set_size (surface->weight_start, 1);
  g_array_index (surface->weight_start, uint32_t, 0) = 0;
  if (!(largest > 0))
    {
      surface->skipped = particles->n_points;
      return;
    }
  double support = grid.support_scale * largest;
  grid.cell = MAX (PARTICLE_SURFACE_CELL_RADII * smallest, support / 4);
  grid.outside = OUTSIDE_RADII * largest;
  for (int k = 0; k < 3; k++)
    grid.origin[k] = lo[k] - support - GRID_OFFSET_CELLS * grid.cell;
  surface->cell_size = grid.cell;
  scatter_nodes (surface, &grid);
  march_cells (surface, &grid);
  weigh_vertices (surface, &grid, support);
}

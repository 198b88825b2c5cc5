/* Closed surfaces as convex polytopes (convex_polytope.h). */
#include "convex_polytope.h"

#include <math.h>

/* Two neighbouring triangles are parts of one face when their unit normals are within
 * 1e-5 rad (1 - cos = 5e-11): exact duplicates of a plane (a box's two triangles per side)
 * agree to round-off, while the flattest facets of a primitive (a 4096-segment cylinder's
 * sides, 1.5e-3 rad apart) stay separate faces. */
#define COPLANAR_COS (1.0 - 5e-11)
/* Convexity and planarity are checked to 1e-7 of the polytope's radius: far above the
 * round-off of a moved mesh (1e-15) and of single-precision mesh files (6e-8 relative),
 * far below anything that changes a contact. */
#define CONVEX_TOLERANCE 1e-7
/* A deformable box is not planar to that: an FEM block of 2e5 Pa resting on a box bends its
 * faces by 1e-3 to 2e-3 of its radius, and its corners stand up to 1.5e-2 of it in front
 * of the mean planes of the faces beside them. Up to this share of the radius such a body
 * stays a polytope: each face's plane is moved out to the polytope's support along its
 * normal, so that every vertex is behind every plane (the planes bound the surface and its
 * gaps err on the side of separation, by at most the deviation). Beyond it, the point
 * detection takes the body. Falling back to the points at 1e-7, such a block could not see
 * the box's edge cross its face: its corner slid off the edge and it sank 8 cm into the
 * box. A deformed surface whose vertices sample its faces (a deformable body's surface
 * refined to its grid) is left to the point detection at once: its manifold would bear on
 * four of its points where its vertices spread the load over the face. */
#define DEFORMED_TOLERANCE 5e-2
/* Edges whose directions are within 1e-9 rad of each other (sine) share a class: parallel
 * edges of a rigid mesh agree to round-off, and a deformed body whose edges turned further
 * apart than this loses its classes until its structure is rebuilt. */
#define CLASS_SINE 1e-9

/* Frees the structure built for a topology (faces, loops, edges, their classes), keeping
 * the key it was built for. */
static void
free_structure (ConvexPolytope *p)
{
  g_clear_pointer (&p->faces, g_free);
  g_clear_pointer (&p->loop, g_free);
  g_clear_pointer (&p->face_triangles, g_free);
  g_clear_pointer (&p->edges, g_free);
  g_clear_pointer (&p->edge_arcs, g_free);
  g_clear_pointer (&p->vertices, g_free);
  g_clear_pointer (&p->class_start, g_free);
  g_clear_pointer (&p->class_edges, g_free);
  g_clear_pointer (&p->class_directions, g_free);
  p->n_faces = p->n_edges = p->n_vertices = p->n_edge_classes = 0;
}

void
convex_polytope_clear (ConvexPolytope *p)
{
  free_structure (p);
  memset (p, 0, sizeof *p);
}

static uint32_t
find_root (uint32_t *parent, uint32_t x)
{
  while (parent[x] != x)
    {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
  return x;
}

static double
triangle_unit_normal (const CwbGeometry *g, size_t t, double n[3])
{
  const uint32_t *tri = &g->triangles[3 * t];
  double ab[3], ac[3];
  cwb_v3_sub (ab, &g->positions[3 * tri[1]], &g->positions[3 * tri[0]]);
  cwb_v3_sub (ac, &g->positions[3 * tri[2]], &g->positions[3 * tri[0]]);
  cwb_v3_cross (n, ab, ac);
  return cwb_v3_normalize (n);
}

static void
edge_direction (const ConvexPolytope *p, const CwbGeometry *g, uint32_t e, double d[3])
{
  cwb_v3_sub (d, &g->positions[3 * p->edges[e].v[1]], &g->positions[3 * p->edges[e].v[0]]);
}

/* Whether edge directions a and b (not zero) are parallel or opposed within CLASS_SINE. */
static gboolean
parallel (const double a[3], const double b[3])
{
  double x[3];
  cwb_v3_cross (x, a, b);
  return cwb_v3_norm (x) <= CLASS_SINE * cwb_v3_norm (a) * cwb_v3_norm (b);
}

/* Groups the edges into classes of parallel ones, each class in the order of its edges. */
static void
build_edge_classes (ConvexPolytope *p, const CwbGeometry *g)
{
  uint32_t n = p->n_edges;
  g_autofree uint32_t *class_of = g_new (uint32_t, MAX (n, 1));
  g_autofree uint32_t *first_edge = g_new (uint32_t, MAX (n, 1));
  uint32_t n_classes = 0;
  for (uint32_t e = 0; e < n; e++)
    {
      double d[3];
      edge_direction (p, g, e, d);
      class_of[e] = n_classes;
      for (uint32_t c = 0; c < n_classes; c++)
        {
          double r[3];
          edge_direction (p, g, first_edge[c], r);
          if (parallel (d, r))
            {
              class_of[e] = c;
              break;
            }
        }
      if (class_of[e] == n_classes)
        first_edge[n_classes++] = e;
    }
  p->n_edge_classes = n_classes;
  p->class_start = g_new0 (uint32_t, n_classes + 1);
  p->class_edges = g_new (uint32_t, MAX (n, 1));
  p->class_directions = g_new (double, 3 * MAX (n_classes, 1));
  for (uint32_t e = 0; e < n; e++)
    p->class_start[class_of[e] + 1]++;
  for (uint32_t c = 0; c < n_classes; c++)
    p->class_start[c + 1] += p->class_start[c];
  g_autofree uint32_t *fill = g_new0 (uint32_t, MAX (n_classes, 1));
  for (uint32_t e = 0; e < n; e++)
    p->class_edges[p->class_start[class_of[e]] + fill[class_of[e]]++] = e;
}

/* Each class's direction from its first edge, and whether its other edges are still
 * parallel to it. */
static gboolean
update_edge_classes (ConvexPolytope *p, const CwbGeometry *g)
{
  for (uint32_t c = 0; c < p->n_edge_classes; c++)
    {
      double *d = &p->class_directions[3 * c];
      edge_direction (p, g, p->class_edges[p->class_start[c]], d);
      for (uint32_t k = p->class_start[c] + 1; k < p->class_start[c + 1]; k++)
        {
          double r[3];
          edge_direction (p, g, p->class_edges[k], r);
          if (!parallel (d, r))
            return FALSE;
        }
      if (cwb_v3_normalize (d) == 0)
        return FALSE;
    }
  return TRUE;
}

/* A boundary half-edge of a face: from -> to, counter-clockwise around it. */
typedef struct HalfEdge {
  uint32_t from, to;
  uint32_t other_face;
} HalfEdge;

/* Faces from coplanar neighbours, their loops and edges. FALSE when the surface is not a
 * closed manifold, a face's boundary is not one simple loop, or the sizes exceed the limits. */
static gboolean
build_structure (ConvexPolytope *p, const CwbGeometry *g, const Topology *topology)
{
  size_t nt = g->n_triangles;
  if (nt < 4 || !topology->valid)
    return FALSE;
  g_autofree uint32_t *parent = g_new (uint32_t, nt);
  g_autofree double *normals = g_new (double, 3 * nt);
  for (size_t t = 0; t < nt; t++)
    {
      parent[t] = (uint32_t) t;
      if (triangle_unit_normal (g, t, &normals[3 * t]) == 0)
        return FALSE;
    }
  for (size_t t = 0; t < nt; t++)
    for (int k = 0; k < 3; k++)
      {
        uint32_t nb = topology->neighbour[3 * t + k];
        if (nb == SURFACE_NONE)
          return FALSE;
        if (cwb_v3_dot (&normals[3 * t], &normals[3 * nb]) >= COPLANAR_COS)
          parent[find_root (parent, (uint32_t) t)] = find_root (parent, nb);
      }

  /* Faces numbered in the order of their first triangle. */
  g_autofree uint32_t *face_of = g_new (uint32_t, nt);
  g_autofree uint32_t *face_of_root = g_new (uint32_t, nt);
  for (size_t t = 0; t < nt; t++)
    face_of_root[t] = G_MAXUINT32;
  uint32_t n_faces = 0;
  for (size_t t = 0; t < nt; t++)
    {
      uint32_t r = find_root (parent, (uint32_t) t);
      if (face_of_root[r] == G_MAXUINT32)
        face_of_root[r] = n_faces++;
      face_of[t] = face_of_root[r];
    }
  if (n_faces > POLYTOPE_MAX_FACES)
    return FALSE;

  p->n_faces = n_faces;
  p->faces = g_new0 (PolytopeFace, n_faces);
  p->face_triangles = g_new (uint32_t, nt);
  for (size_t t = 0; t < nt; t++)
    p->faces[face_of[t]].n_triangles++;
  for (uint32_t f = 1; f < n_faces; f++)
    p->faces[f].first_triangle = p->faces[f - 1].first_triangle + p->faces[f - 1].n_triangles;
  g_autofree uint32_t *fill = g_new0 (uint32_t, n_faces);
  for (size_t t = 0; t < nt; t++)
    {
      PolytopeFace *face = &p->faces[face_of[t]];
      p->face_triangles[face->first_triangle + fill[face_of[t]]++] = (uint32_t) t;
    }

  /* Each face's boundary half-edges, then its loop by following from -> to. */
  g_autoptr (GArray) half = g_array_new (FALSE, FALSE, sizeof (HalfEdge));
  g_autoptr (GArray) loop = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  g_autoptr (GArray) edges = g_array_new (FALSE, FALSE, sizeof (PolytopeEdge));
  for (uint32_t f = 0; f < n_faces; f++)
    {
      PolytopeFace *face = &p->faces[f];
      g_array_set_size (half, 0);
      for (uint32_t k = 0; k < face->n_triangles; k++)
        {
          uint32_t t = p->face_triangles[face->first_triangle + k];
          const uint32_t *tri = &g->triangles[3 * t];
          for (int e = 0; e < 3; e++)
            {
              uint32_t nb = topology->neighbour[3 * t + e];
              if (face_of[nb] == f)
                continue;
              HalfEdge h = { tri[e], tri[(e + 1) % 3], face_of[nb] };
              g_array_append_val (half, h);
              if (h.from < h.to)
                {
                  PolytopeEdge edge = { { h.from, h.to }, { f, h.other_face } };
                  g_array_append_val (edges, edge);
                }
            }
        }
      if (half->len < 3)
        return FALSE;
      const HalfEdge *hs = (const HalfEdge *) half->data;
      face->first_vertex = loop->len;
      uint32_t at = hs[0].from;
      for (guint step = 0; step < half->len; step++)
        {
          g_array_append_val (loop, at);
          guint next = half->len;
          for (guint k = 0; k < half->len && next == half->len; k++)
            if (hs[k].from == at)
              next = k;
          if (next == half->len)
            return FALSE;
          at = hs[next].to;
        }
      /* A single loop comes back to its start after exactly its half-edges. */
      if (at != hs[0].from)
        return FALSE;
      face->n_vertices = loop->len - face->first_vertex;
    }
  if (edges->len > POLYTOPE_MAX_EDGES)
    return FALSE;
  p->n_edges = edges->len;
  p->edges = (PolytopeEdge *) g_array_free (g_steal_pointer (&edges), FALSE);
  p->edge_arcs = g_new (double, 3 * MAX (p->n_edges, 1));
  guint n_loop = loop->len;
  p->loop = (uint32_t *) g_array_free (g_steal_pointer (&loop), FALSE);

  /* Each vertex's count of faces whose loop passes through it: a corner has at least three;
   * a vertex inside a face (none) or inside an edge (two) samples the surface. */
  g_autofree uint32_t *n_loops = g_new0 (uint32_t, g->n_points);
  p->vertices = g_new (uint32_t, MAX (n_loop, 1));
  for (guint k = 0; k < n_loop; k++)
    if (n_loops[p->loop[k]]++ == 0)
      p->vertices[p->n_vertices++] = p->loop[k];
  p->sampled = FALSE;
  for (size_t t = 0; t < 3 * nt && !p->sampled; t++)
    p->sampled = n_loops[g->triangles[t]] < 3;
  build_edge_classes (p, g);
  return TRUE;
}

/* The faces' planes (Newell's normal of each loop), the box, and whether every face is
 * planar and every vertex behind every plane (within DEFORMED_TOLERANCE, the planes then
 * moved out to the support; within CONVEX_TOLERANCE for a sampled surface). */
static gboolean
update_planes (ConvexPolytope *p, const CwbGeometry *g)
{
  const double *x = g->positions;
  double sum[3] = { 0, 0, 0 };
  for (uint32_t k = 0; k < p->n_vertices; k++)
    {
      const double *v = &x[3 * p->vertices[k]];
      for (int c = 0; c < 3; c++)
        if (!isfinite (v[c]))
          return FALSE;
      cwb_v3_add (sum, sum, v);
      for (int c = 0; c < 3; c++)
        {
          p->lo[c] = k == 0 ? v[c] : MIN (p->lo[c], v[c]);
          p->hi[c] = k == 0 ? v[c] : MAX (p->hi[c], v[c]);
        }
    }
  cwb_v3_scale (p->centroid, sum, 1.0 / p->n_vertices);
  p->radius = 0;
  for (uint32_t k = 0; k < p->n_vertices; k++)
    {
      double d[3];
      cwb_v3_sub (d, &x[3 * p->vertices[k]], p->centroid);
      p->radius = MAX (p->radius, cwb_v3_norm (d));
    }
  double tolerance = CONVEX_TOLERANCE * p->radius;
  double deformed = DEFORMED_TOLERANCE * p->radius;

  for (uint32_t f = 0; f < p->n_faces; f++)
    {
      PolytopeFace *face = &p->faces[f];
      const uint32_t *loop = &p->loop[face->first_vertex];
      double n[3] = { 0, 0, 0 };
      for (uint32_t k = 0; k < face->n_vertices; k++)
        {
          const double *a = &x[3 * loop[k]], *b = &x[3 * loop[(k + 1) % face->n_vertices]];
          n[0] += (a[1] - b[1]) * (a[2] + b[2]);
          n[1] += (a[2] - b[2]) * (a[0] + b[0]);
          n[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
      if (cwb_v3_normalize (n) == 0)
        return FALSE;
      cwb_v3_copy (face->normal, n);
      double offset = 0;
      for (uint32_t k = 0; k < face->n_vertices; k++)
        offset += cwb_v3_dot (n, &x[3 * loop[k]]);
      face->offset = offset / face->n_vertices;
      double deviation = 0;   /* off the mean plane (the face's points) or in front of it */
      for (uint32_t k = 0; k < face->n_triangles; k++)
        {
          const uint32_t *tri = &g->triangles[3 * p->face_triangles[face->first_triangle + k]];
          for (int c = 0; c < 3; c++)
            deviation = MAX (deviation, fabs (cwb_v3_dot (n, &x[3 * tri[c]]) - face->offset));
        }
      double support = face->offset;
      for (uint32_t k = 0; k < p->n_vertices; k++)
        support = MAX (support, cwb_v3_dot (n, &x[3 * p->vertices[k]]));
      deviation = MAX (deviation, support - face->offset);
      if (deviation > deformed || (deviation > tolerance && p->sampled))
        return FALSE;
      if (deviation > tolerance)
        face->offset = support;   /* deformed: the plane out to the support */
    }
  for (uint32_t e = 0; e < p->n_edges; e++)
    cwb_v3_cross (&p->edge_arcs[3 * e], p->faces[p->edges[e].face[1]].normal,
                  p->faces[p->edges[e].face[0]].normal);
  return TRUE;
}

gboolean
convex_polytope_update (ConvexPolytope *p, const CwbGeometry *g, const Topology *topology)
{
  gboolean rebuild = p->triangles != g->triangles || p->n_triangles != g->n_triangles
                     || p->n_points != g->n_points || p->checksum != topology->checksum;
  if (rebuild)
    {
      convex_polytope_clear (p);
      p->triangles = g->triangles;
      p->n_triangles = g->n_triangles;
      p->n_points = g->n_points;
      p->checksum = topology->checksum;
      p->structured = build_structure (p, g, topology);
      if (!p->structured)
        free_structure (p);   /* keep the key, drop the partial structure */
    }
  p->rebuilt = rebuild;
  p->convex = p->structured && update_planes (p, g);
  p->classes_parallel = p->convex && update_edge_classes (p, g);
  return p->convex;
}

void
convex_polytope_positions (const ConvexPolytope *p, const CwbGeometry *g, double *x)
{
  for (uint32_t k = 0; k < p->n_vertices; k++)
    cwb_v3_copy (&x[3 * k], &g->positions[3 * p->vertices[k]]);
}

double
convex_polytope_motion (const ConvexPolytope *p, const CwbGeometry *g, const double *then)
{
  double largest = 0;
  for (uint32_t k = 0; k < p->n_vertices; k++)
    {
      double d[3];
      cwb_v3_sub (d, &g->positions[3 * p->vertices[k]], &then[3 * k]);
      largest = fmax (largest, cwb_v3_dot (d, d));
    }
  return sqrt (largest);
}

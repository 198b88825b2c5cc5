/* Contact manifolds between convex polytopes (convex_contact.h).
 *
 * For two polytopes A and B the separating-axis test (SAT) looks for the axis of largest
 * separation among (Gottschalk 1996; Gregorius 2013, "The separating axis test between
 * convex polyhedra"):
 *   - the face normals of A, with separation min over B's vertices of n . v - offset, and
 *     those of B against A;
 *   - the cross products of an edge of A and an edge of B, only for the pairs whose arcs on
 *     the Gauss map of A - B cross (the pairs that form a face of the Minkowski difference),
 *     oriented away from A, with separation axis . (q - p) between points of the two edges.
 * The largest separation, when within the margin, decides the contact. A face axis is
 * preferred over an edge axis unless the edge's separation is larger by a small part of the
 * polytopes' size (resting boxes have edge axes as separated as their faces; the face gives
 * the full manifold). For a face axis, the face of the other polytope most opposed to the
 * reference normal (the incident face) is clipped against the side planes through the
 * reference face's edges (Sutherland-Hodgman); its points within the margin of the reference
 * plane become contacts, reduced to four (the deepest, the farthest from it, the largest
 * triangle with both, and the point farthest outside that triangle) so that a resting face
 * keeps its support polygon. For an edge axis, the closest points of the two edges make one
 * contact. */
#include "convex_contact.h"

#include <math.h>

#include "convex_polytope.h"
#include "manifold_cache.h"
#include "sat_cache.h"
#include "surface_topology.h"

/* An edge-edge axis replaces the best face axis only when it separates the polytopes by
 * more than this part of the smaller polytope's radius beyond it: equal separations (boxes
 * resting flush, whose edge crossings give the face's own normal) keep the face's manifold,
 * and a millimetre on a metre stays far below any real edge contact's lead. Likewise B's
 * face is the reference only when it separates by this much more than A's, so that the
 * reference face does not flip between steps on round-off. */
#define EDGE_PREFERENCE 1e-3
#define FACE_PREFERENCE 1e-4
/* Edges closer to parallel than 1e-6 rad give no edge axis (their cross product's direction
 * is round-off); the face axes cover parallel edges. */
#define PARALLEL_SINE 1e-6
/* A clipped vertex within this part of the smaller polytope's radius of a side plane counts
 * as on it: kept as itself, with no intersection point beside it. Boxes stacked flush have
 * vertices exactly on each other's side planes, where round-off and millimetre motions would
 * otherwise swap the vertex for an intersection point (another identity) from step to step
 * and cost the contact its warm start; the point kept lies at most this far off the
 * reference face, and its projection onto the face is clamped onto it. */
#define CLIP_TOLERANCE 1e-3
/* At most four points per manifold: enough to hold a face resting on a face. */
#define MANIFOLD_POINTS 4
/* Identities: a tag per kind of contact, and intersection keys marked apart from vertices. */
#define TAG_FACE 0x46u
#define TAG_EDGE 0x45u
#define CLIP_KEY_BIT 0x80000000u

struct ConvexDetector {
  TopologyCache topologies;
  GArray *polytopes;    /* ConvexPolytope, per geometry */
  GArray *order;        /* SweepEntry */
  GArray *pairs;        /* GeometryPair: the pairs whose grown boxes overlap */
  GArray *clip_in, *clip_out;   /* ClipVertex */
  GArray *depths;       /* double: heights of the clipped points over the reference face */
  SatCache sat;         /* the pairs' decisions kept from the last run */
  ManifoldCache manifolds;   /* the pairs' face manifolds kept from their clips */
  uint64_t run;
};

typedef struct SweepEntry {
  double lo;
  uint32_t geometry;
} SweepEntry;

typedef struct GeometryPair {
  uint32_t a, b;   /* a < b */
} GeometryPair;

typedef struct ClipVertex {
  double p[3];
  uint32_t key;
} ClipVertex;

ConvexDetector *
convex_detector_new (void)
{
  ConvexDetector *d = g_new0 (ConvexDetector, 1);
  topology_cache_init (&d->topologies);
  d->polytopes = g_array_new (FALSE, TRUE, sizeof (ConvexPolytope));
  d->order = g_array_new (FALSE, FALSE, sizeof (SweepEntry));
  d->pairs = g_array_new (FALSE, FALSE, sizeof (GeometryPair));
  d->clip_in = g_array_new (FALSE, FALSE, sizeof (ClipVertex));
  d->clip_out = g_array_new (FALSE, FALSE, sizeof (ClipVertex));
  d->depths = g_array_new (FALSE, FALSE, sizeof (double));
  sat_cache_init (&d->sat);
  manifold_cache_init (&d->manifolds);
  return d;
}

void
convex_detector_free (ConvexDetector *d)
{
  if (d == NULL)
    return;
  for (guint g = 0; g < d->polytopes->len; g++)
    convex_polytope_clear (&g_array_index (d->polytopes, ConvexPolytope, g));
  g_array_unref (d->polytopes);
  g_array_unref (d->order);
  g_array_unref (d->pairs);
  g_array_unref (d->clip_in);
  g_array_unref (d->clip_out);
  g_array_unref (d->depths);
  sat_cache_clear (&d->sat);
  manifold_cache_clear (&d->manifolds);
  topology_cache_clear (&d->topologies);
  g_free (d);
}

/* ---- identities ---------------------------------------------------------------------- */

static guint64
mix (guint64 h, guint64 v)
{
  return cwb_contact_id_mix (h ^ v);
}

static guint64
contact_id (uint32_t tag, uint32_t g0, uint32_t g1, uint32_t f0, uint32_t f1, uint32_t key)
{
  guint64 h = mix (mix (mix (mix (mix (mix (0, tag), g0), g1), f0), f1), key);
  return h != 0 ? h : 1;
}

/* ---- the separating-axis test -------------------------------------------------------- */

typedef struct FaceQuery {
  double separation;
  uint32_t face;
  double runner_up;     /* the next largest separation of another face */
} FaceQuery;

typedef struct EdgeQuery {
  double separation;
  uint32_t edge_a, edge_b;
  double axis[3];       /* unit, away from A */
  gboolean found;
} EdgeQuery;

static const double *
vertex (const CwbGeometry *g, uint32_t v)
{
  return &g->positions[3 * v];
}

/* The face of P whose plane separates Q the most. */
static FaceQuery
query_faces (const ConvexPolytope *p, const ConvexPolytope *q, const CwbGeometry *gq)
{
  FaceQuery best = { -INFINITY, 0, -INFINITY };
  for (uint32_t f = 0; f < p->n_faces; f++)
    {
      const PolytopeFace *face = &p->faces[f];
      double lowest = INFINITY;
      for (uint32_t k = 0; k < q->n_vertices; k++)
        lowest = MIN (lowest, cwb_v3_dot (face->normal, vertex (gq, q->vertices[k])));
      double separation = lowest - face->offset;
      if (separation > best.separation)
        best = (FaceQuery) { separation, f, best.separation };
      else if (separation > best.runner_up)
        best.runner_up = separation;
    }
  return best;
}

/* Whether arcs (a, b) and (c, d) of the Gauss map cross (Gregorius 2013): c and d on both
 * sides of the plane of (a, b) (normal bxa = b x a), a and b on both sides of that of
 * (c, d) (normal dxc = d x c), and the crossing on the same hemisphere rather than its
 * antipode. For A - B the arcs are an edge of A's face normals (a, b) and an edge of B's
 * negated normals (c, d) = (-n_0, -n_1), whose d x c is B's own arc n_1 x n_0. */
static gboolean
arcs_cross (const double a[3], const double b[3], const double bxa[3], const double c[3],
            const double d[3], const double dxc[3])
{
  double cba = cwb_v3_dot (c, bxa), dba = cwb_v3_dot (d, bxa);
  double adc = cwb_v3_dot (a, dxc), bdc = cwb_v3_dot (b, dxc);
  return cba * dba < 0 && adc * bdc < 0 && cba * bdc > 0;
}

static EdgeQuery
query_edge_arcs (const ConvexPolytope *pa, const CwbGeometry *ga, const ConvexPolytope *pb,
                 const CwbGeometry *gb)
{
  EdgeQuery best = { .separation = -INFINITY };
  for (uint32_t i = 0; i < pa->n_edges; i++)
    {
      const PolytopeEdge *ea = &pa->edges[i];
      const double *n_a0 = pa->faces[ea->face[0]].normal, *n_a1 = pa->faces[ea->face[1]].normal;
      const double *p0 = vertex (ga, ea->v[0]);
      double da[3];
      cwb_v3_sub (da, vertex (ga, ea->v[1]), p0);
      for (uint32_t j = 0; j < pb->n_edges; j++)
        {
          const PolytopeEdge *eb = &pb->edges[j];
          double c[3], d[3];
          cwb_v3_scale (c, pb->faces[eb->face[0]].normal, -1);
          cwb_v3_scale (d, pb->faces[eb->face[1]].normal, -1);
          if (!arcs_cross (n_a0, n_a1, &pa->edge_arcs[3 * i], c, d, &pb->edge_arcs[3 * j]))
            continue;
          const double *q0 = vertex (gb, eb->v[0]);
          double db[3], axis[3];
          cwb_v3_sub (db, vertex (gb, eb->v[1]), q0);
          cwb_v3_cross (axis, da, db);
          double length = cwb_v3_norm (axis);
          if (length <= PARALLEL_SINE * cwb_v3_norm (da) * cwb_v3_norm (db))
            continue;
          cwb_v3_scale (axis, axis, 1 / length);
          double out[3];
          cwb_v3_sub (out, p0, pa->centroid);
          if (cwb_v3_dot (axis, out) < 0)
            cwb_v3_scale (axis, axis, -1);
          double gap[3];
          cwb_v3_sub (gap, q0, p0);
          double separation = cwb_v3_dot (axis, gap);
          if (separation > best.separation)
            {
              best = (EdgeQuery) { separation, i, j, { 0 }, TRUE };
              cwb_v3_copy (best.axis, axis);
            }
        }
    }
  return best;
}

/* The lowest and highest of axis . x over a polytope's vertices. */
static void
extent (const ConvexPolytope *p, const CwbGeometry *g, const double axis[3], double *lo,
        double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (uint32_t k = 0; k < p->n_vertices; k++)
    {
      double s = cwb_v3_dot (axis, vertex (g, p->vertices[k]));
      *lo = MIN (*lo, s);
      *hi = MAX (*hi, s);
    }
}

/* The edge of class c of P whose points reach farthest along `axis` (perpendicular to the
 * class, so each edge has one value there): P's supporting edge in that direction. */
static uint32_t
supporting_edge (const ConvexPolytope *p, const CwbGeometry *g, uint32_t c, const double axis[3])
{
  uint32_t best = p->class_edges[p->class_start[c]];
  double reach = -INFINITY;
  for (uint32_t k = p->class_start[c]; k < p->class_start[c + 1]; k++)
    {
      uint32_t e = p->class_edges[k];
      double s = cwb_v3_dot (axis, vertex (g, p->edges[e].v[0]));
      if (s > reach)
        {
          reach = s;
          best = e;
        }
    }
  return best;
}

/* The same query over pairs of edge directions rather than pairs of edges: every face of the
 * Minkowski difference made by two edges has the normal d_a x d_b of their classes, and its
 * separation is that of the polytopes' extents along it, min_B - max_A (or, along -n,
 * min_A - max_B). An axis that is no such face's normal separates no more than the faces'
 * normals do, so the largest separation is the same as over crossing arcs; its edges are the
 * two polytopes' supporting edges of those classes along it. A box against a box: 9
 * directions and 16 vertices each, where the arcs cost 144 crossing tests. */
static EdgeQuery
query_edge_classes (const ConvexPolytope *pa, const CwbGeometry *ga, const ConvexPolytope *pb,
                    const CwbGeometry *gb)
{
  EdgeQuery best = { .separation = -INFINITY };
  uint32_t best_a = 0, best_b = 0;
  for (uint32_t i = 0; i < pa->n_edge_classes; i++)
    for (uint32_t j = 0; j < pb->n_edge_classes; j++)
      {
        double axis[3];
        cwb_v3_cross (axis, &pa->class_directions[3 * i], &pb->class_directions[3 * j]);
        double length = cwb_v3_norm (axis);
        if (length <= PARALLEL_SINE)
          continue;
        cwb_v3_scale (axis, axis, 1 / length);
        double lo_a, hi_a, lo_b, hi_b;
        extent (pa, ga, axis, &lo_a, &hi_a);
        extent (pb, gb, axis, &lo_b, &hi_b);
        double forward = lo_b - hi_a, backward = lo_a - hi_b;
        double separation = MAX (forward, backward);
        if (separation > best.separation)
          {
            best.separation = separation;
            best.found = TRUE;
            cwb_v3_scale (best.axis, axis, forward >= backward ? 1 : -1);
            best_a = i;
            best_b = j;
          }
      }
  if (best.found)
    {
      double away[3];
      cwb_v3_scale (away, best.axis, -1);
      best.edge_a = supporting_edge (pa, ga, best_a, best.axis);
      best.edge_b = supporting_edge (pb, gb, best_b, away);
    }
  return best;
}

/* The edge-edge axis of largest separation, by whichever of the two queries costs less for
 * the pair: direction classes need every class's edges still parallel. */
static EdgeQuery
query_edges (const ConvexPolytope *pa, const CwbGeometry *ga, const ConvexPolytope *pb,
             const CwbGeometry *gb)
{
  if (pa->classes_parallel && pb->classes_parallel)
    {
      size_t by_classes = (size_t) pa->n_edge_classes * pb->n_edge_classes
                          * (pa->n_vertices + pb->n_vertices);
      size_t by_arcs = (size_t) pa->n_edges * pb->n_edges * 4;
      if (by_classes <= by_arcs)
        return query_edge_classes (pa, ga, pb, gb);
    }
  return query_edge_arcs (pa, ga, pb, gb);
}

/* ---- surface points ------------------------------------------------------------------ */

/* x as a point of face f of polytope p: the closest point of the face's triangles, with its
 * barycentric weights (x lies on the face up to round-off, so this is x itself). */
static void
face_point (const ConvexPolytope *p, const CwbGeometry *g, uint32_t geometry, uint32_t f,
            const double x[3], SurfacePoint *out)
{
  const PolytopeFace *face = &p->faces[f];
  double best = INFINITY;
  for (uint32_t k = 0; k < face->n_triangles; k++)
    {
      const uint32_t *tri = &g->triangles[3 * p->face_triangles[face->first_triangle + k]];
      double bary[3], on[3] = { 0, 0, 0 }, d[3];
      cwb_triangle_closest_point (x, vertex (g, tri[0]), vertex (g, tri[1]), vertex (g, tri[2]),
                                  bary);
      for (int c = 0; c < 3; c++)
        cwb_v3_axpy (on, bary[c], vertex (g, tri[c]));
      cwb_v3_sub (d, on, x);
      double dist2 = cwb_v3_dot (d, d);
      if (dist2 >= best)
        continue;
      best = dist2;
      *out = (SurfacePoint) { .geometry = geometry };
      for (int c = 0; c < 3; c++)
        if (bary[c] != 0)
          {
            out->vertex[out->n] = tri[c];
            out->weight[out->n++] = bary[c];
          }
      cwb_v3_copy (out->position, on);
    }
}

static void
edge_point (const CwbGeometry *g, uint32_t geometry, const uint32_t v[2], double s,
            SurfacePoint *out)
{
  *out = (SurfacePoint) { .geometry = geometry };
  double w[2] = { 1 - s, s };
  for (int k = 0; k < 2; k++)
    if (w[k] != 0)
      {
        out->vertex[out->n] = v[k];
        out->weight[out->n++] = w[k];
        cwb_v3_axpy (out->position, w[k], vertex (g, v[k]));
      }
}

/* ---- edge contact -------------------------------------------------------------------- */

/* Closest points of segments p0 + s (p1 - p0) and q0 + t (q1 - q0), s, t in [0, 1]
 * (Ericson 2005, Real-Time Collision Detection 5.1.9). */
static void
segments_closest (const double p0[3], const double p1[3], const double q0[3],
                  const double q1[3], double *s_out, double *t_out)
{
  double d1[3], d2[3], r[3];
  cwb_v3_sub (d1, p1, p0);
  cwb_v3_sub (d2, q1, q0);
  cwb_v3_sub (r, p0, q0);
  double a = cwb_v3_dot (d1, d1), e = cwb_v3_dot (d2, d2), f = cwb_v3_dot (d2, r);
  double c = cwb_v3_dot (d1, r), b = cwb_v3_dot (d1, d2);
  double denom = a * e - b * b;
  double s = denom > 0 ? CLAMP ((b * f - c * e) / denom, 0, 1) : 0;
  double t = e > 0 ? (b * s + f) / e : 0;
  if (t < 0)
    {
      t = 0;
      s = a > 0 ? CLAMP (-c / a, 0, 1) : 0;
    }
  else if (t > 1)
    {
      t = 1;
      s = a > 0 ? CLAMP ((b - c) / a, 0, 1) : 0;
    }
  *s_out = s;
  *t_out = t;
}

static void
edge_contact (const ConvexPolytope *pa, const CwbGeometry *ga, uint32_t a,
              const ConvexPolytope *pb, const CwbGeometry *gb, uint32_t b,
              const EdgeQuery *q, GArray *contacts)
{
  const PolytopeEdge *ea = &pa->edges[q->edge_a], *eb = &pb->edges[q->edge_b];
  double s, t;
  segments_closest (vertex (ga, ea->v[0]), vertex (ga, ea->v[1]), vertex (gb, eb->v[0]),
                    vertex (gb, eb->v[1]), &s, &t);
  ManifoldContact c = { .id = contact_id (TAG_EDGE, a, b, q->edge_a, q->edge_b, 0) };
  edge_point (ga, a, ea->v, s, &c.a);
  edge_point (gb, b, eb->v, t, &c.b);
  /* The axis points from A towards B; b pushes a the other way. */
  cwb_v3_scale (c.normal, q->axis, -1);
  double d[3];
  cwb_v3_sub (d, c.a.position, c.b.position);
  c.gap = cwb_v3_dot (c.normal, d);
  g_array_append_val (contacts, c);
}

/* ---- face contact -------------------------------------------------------------------- */

static guint32
clip_key (uint32_t from, uint32_t to, uint32_t plane)
{
  return CLIP_KEY_BIT | (uint32_t) (mix (mix (mix (1, from), to), plane) & ~CLIP_KEY_BIT);
}

/* Keeps the part of polygon `in` with side . (x - origin) <= 0 into `out`; vertices within
 * `tolerance` of the plane count as on it. */
static void
clip_polygon (const GArray *in, GArray *out, const double side[3], const double origin[3],
              uint32_t plane, double tolerance)
{
  guint n = in->len;
  /* Each edge gives at most its first vertex and one crossing: grown once to that and
   * written in place. */
  g_array_set_size (out, 2 * n);
  ClipVertex *written = (ClipVertex *) (void *) out->data;
  const ClipVertex *vertices = (const ClipVertex *) (const void *) in->data;
  guint n_out = 0;
  for (guint k = 0; k < n; k++)
    {
      const ClipVertex *p = &vertices[k];
      const ClipVertex *q = &vertices[(k + 1) % n];
      double dp_[3], dq_[3];
      cwb_v3_sub (dp_, p->p, origin);
      cwb_v3_sub (dq_, q->p, origin);
      double dp = cwb_v3_dot (side, dp_), dq = cwb_v3_dot (side, dq_);
      if (dp <= tolerance)
        written[n_out++] = *p;
      /* An edge crosses the plane between a vertex clearly inside and one clearly outside;
       * a vertex on the plane is its own crossing. */
      if ((dp < -tolerance && dq > tolerance) || (dp > tolerance && dq < -tolerance))
        {
          double t = dp / (dp - dq);
          ClipVertex *x = &written[n_out++];
          *x = (ClipVertex) { .key = clip_key (p->key, q->key, plane) };
          for (int c = 0; c < 3; c++)
            x->p[c] = p->p[c] + t * (q->p[c] - p->p[c]);
        }
    }
  g_array_set_size (out, n_out);
}

/* Indices of at most four of the n points (depths `depth`, positions in `points`) that keep
 * the support polygon: the deepest, the farthest from it, the one making the largest
 * triangle with both, and the one farthest outside that triangle (normal n). */
static guint
reduce_points (const ClipVertex *points, const double *depth, guint n, const double n_[3],
               guint keep[MANIFOLD_POINTS])
{
  if (n <= MANIFOLD_POINTS)
    {
      for (guint k = 0; k < n; k++)
        keep[k] = k;
      return n;
    }
  guint first = 0;
  for (guint k = 1; k < n; k++)
    if (depth[k] < depth[first])
      first = k;
  guint second = first;
  double far = -1;
  for (guint k = 0; k < n; k++)
    {
      double d[3];
      cwb_v3_sub (d, points[k].p, points[first].p);
      if (cwb_v3_dot (d, d) > far)
        {
          far = cwb_v3_dot (d, d);
          second = k;
        }
    }
  guint third = first;
  double area = -1;
  for (guint k = 0; k < n; k++)
    {
      double u[3], v[3], x[3];
      cwb_v3_sub (u, points[second].p, points[first].p);
      cwb_v3_sub (v, points[k].p, points[first].p);
      cwb_v3_cross (x, u, v);
      double a = fabs (cwb_v3_dot (x, n_));
      if (a > area)
        {
          area = a;
          third = k;
        }
    }
  /* Orient the triangle counter-clockwise about n, then take the point most outside it. */
  guint tri[3] = { first, second, third };
  double u[3], v[3], x[3];
  cwb_v3_sub (u, points[second].p, points[first].p);
  cwb_v3_sub (v, points[third].p, points[first].p);
  cwb_v3_cross (x, u, v);
  if (cwb_v3_dot (x, n_) < 0)
    {
      tri[1] = third;
      tri[2] = second;
    }
  guint fourth = first;
  double outside = -INFINITY;
  for (guint k = 0; k < n; k++)
    {
      if (k == first || k == second || k == third)
        continue;
      double worst = -INFINITY;
      for (int e = 0; e < 3; e++)
        {
          double edge[3], side[3], rel[3];
          cwb_v3_sub (edge, points[tri[(e + 1) % 3]].p, points[tri[e]].p);
          cwb_v3_cross (side, edge, n_);
          cwb_v3_sub (rel, points[k].p, points[tri[e]].p);
          worst = MAX (worst, cwb_v3_dot (side, rel));
        }
      if (worst > outside)
        {
          outside = worst;
          fourth = k;
        }
    }
  keep[0] = first;
  keep[1] = second;
  keep[2] = third;
  if (fourth == first)
    return 3;
  keep[3] = fourth;
  return 4;
}

/* The manifold of reference face `ref_face` of R against the most opposed face of I. */
static void
face_contact (ConvexDetector *d, const ConvexPolytope *pr, const CwbGeometry *gr, uint32_t r,
              uint32_t ref_face, const ConvexPolytope *pi, const CwbGeometry *gi, uint32_t i,
              double margin, GArray *contacts)
{
  const PolytopeFace *ref = &pr->faces[ref_face];
  uint32_t inc_face = 0;
  double most_opposed = INFINITY;
  for (uint32_t f = 0; f < pi->n_faces; f++)
    {
      double c = cwb_v3_dot (ref->normal, pi->faces[f].normal);
      if (c < most_opposed)
        {
          most_opposed = c;
          inc_face = f;
        }
    }
  const PolytopeFace *inc = &pi->faces[inc_face];
  g_array_set_size (d->clip_in, inc->n_vertices);
  for (uint32_t k = 0; k < inc->n_vertices; k++)
    {
      uint32_t v = pi->loop[inc->first_vertex + k];
      ClipVertex *x = &g_array_index (d->clip_in, ClipVertex, k);
      *x = (ClipVertex) { .key = v };
      cwb_v3_copy (x->p, vertex (gi, v));
    }
  for (uint32_t k = 0; k < ref->n_vertices && d->clip_in->len > 0; k++)
    {
      const double *u = vertex (gr, pr->loop[ref->first_vertex + k]);
      const double *w = vertex (gr, pr->loop[ref->first_vertex + (k + 1) % ref->n_vertices]);
      double edge[3], side[3];
      cwb_v3_sub (edge, w, u);
      cwb_v3_cross (side, edge, ref->normal);
      if (cwb_v3_normalize (side) == 0)
        continue;
      clip_polygon (d->clip_in, d->clip_out, side, u, k,
                    CLIP_TOLERANCE * MIN (pr->radius, pi->radius));
      GArray *swap = d->clip_in;
      d->clip_in = d->clip_out;
      d->clip_out = swap;
    }

  /* The clipped points within the margin of the reference plane. */
  guint n = 0;
  ClipVertex *points = (ClipVertex *) d->clip_in->data;
  g_array_set_size (d->depths, MAX (d->clip_in->len, 1));
  double *depth = (double *) (void *) d->depths->data;
  for (guint k = 0; k < d->clip_in->len; k++)
    {
      double s = cwb_v3_dot (ref->normal, points[k].p) - ref->offset;
      if (s <= margin)
        {
          points[n] = points[k];
          depth[n++] = s;
        }
    }
  guint keep[MANIFOLD_POINTS];
  guint n_keep = reduce_points (points, depth, n, ref->normal, keep);
  for (guint k = 0; k < n_keep; k++)
    {
      const ClipVertex *x = &points[keep[k]];
      ManifoldContact c = {
        .id = contact_id (TAG_FACE, r, i, ref_face, inc_face, x->key),
      };
      double on_ref[3];
      cwb_v3_copy (on_ref, x->p);
      cwb_v3_axpy (on_ref, -depth[keep[k]], ref->normal);
      /* A clipped point that is an incident vertex (no crossing) is that vertex: the face's
       * closest point to it, with the weights face_point gives it, exactly. */
      if (x->key & CLIP_KEY_BIT)
        face_point (pi, gi, i, inc_face, x->p, &c.a);
      else
        {
          c.a = (SurfacePoint) { .geometry = i, .n = 1, .vertex = { x->key }, .weight = { 1 } };
          cwb_v3_copy (c.a.position, x->p);
        }
      face_point (pr, gr, r, ref_face, on_ref, &c.b);
      cwb_v3_copy (c.normal, ref->normal);
      double gap[3];
      cwb_v3_sub (gap, c.a.position, c.b.position);
      c.gap = cwb_v3_dot (c.normal, gap);
      g_array_append_val (contacts, c);
    }
}

/* ---- pairs --------------------------------------------------------------------------- */

/* The separating-axis test in full: the decision for the pair with the slacks it was taken
 * with (sat_cache.h), or FALSE for an edge axis, the query in *edge. */
static gboolean
full_test (const ConvexPolytope *pa, const CwbGeometry *ga, const ConvexPolytope *pb,
           const CwbGeometry *gb, double margin, SatDecision *decision, EdgeQuery *edge)
{
  *decision = (SatDecision) {
    .outcome = SAT_SEPARATED, .face_a_slack = -INFINITY, .face_b_slack = -INFINITY,
  };
  FaceQuery face_a = query_faces (pa, pb, gb);
  if (face_a.separation > margin)
    {
      decision->face_a_slack = face_a.separation - margin;
      return TRUE;
    }
  FaceQuery face_b = query_faces (pb, pa, ga);
  if (face_b.separation > margin)
    {
      decision->face_b_slack = face_b.separation - margin;
      return TRUE;
    }
  *edge = query_edges (pa, ga, pb, gb);
  if (edge->found && edge->separation > margin)
    return TRUE;
  double scale = MIN (pa->radius, pb->radius);
  double face_best = MAX (face_a.separation, face_b.separation);
  if (edge->found && edge->separation > face_best + EDGE_PREFERENCE * scale)
    return FALSE;
  gboolean b_reference = face_b.separation > face_a.separation + FACE_PREFERENCE * scale;
  /* The pair's separation over every axis: the largest of the three queries. */
  double largest = edge->found ? MAX (edge->separation, face_best) : face_best;
  *decision = (SatDecision) {
    .outcome = b_reference ? SAT_FACE_B : SAT_FACE_A,
    .face = b_reference ? face_b.face : face_a.face,
    .face_a_slack = MIN (margin - face_a.separation,
                         b_reference ? INFINITY : 0.5 * (face_a.separation - face_a.runner_up)),
    .face_b_slack = MIN (margin - face_b.separation,
                         b_reference ? 0.5 * (face_b.separation - face_b.runner_up) : INFINITY),
    .choice_slack = fabs (face_b.separation - face_a.separation - FACE_PREFERENCE * scale),
    .edge_margin_slack = margin - largest,
    .edge_slack = face_best + EDGE_PREFERENCE * scale - largest,
  };
  return TRUE;
}

static void
collide (ConvexDetector *d, const CwbGeometry *geometries, uint32_t a, uint32_t b,
         double margin, GArray *contacts)
{
  const ConvexPolytope *polytopes = (const ConvexPolytope *) (const void *) d->polytopes->data;
  const ConvexPolytope *pa = &polytopes[a], *pb = &polytopes[b];
  const CwbGeometry *ga = &geometries[a], *gb = &geometries[b];
  SatDecision decision;
  gboolean kept = sat_cache_lookup (&d->sat, a, b, pa, pb, margin, &decision);
  if (!kept)
    {
      EdgeQuery edge;
      if (!full_test (pa, ga, pb, gb, margin, &decision, &edge))
        {
          edge_contact (pa, ga, a, pb, gb, b, &edge, contacts);
          return;
        }
      sat_cache_store (&d->sat, a, b, margin, &decision);
    }
  if (decision.outcome == SAT_SEPARATED
      || (kept && manifold_cache_refresh (&d->manifolds, a, b, &decision, margin, geometries,
                                          polytopes, contacts)))
    return;
  guint first = contacts->len;
  if (decision.outcome == SAT_FACE_B)
    face_contact (d, pb, gb, b, decision.face, pa, ga, a, margin, contacts);
  else
    face_contact (d, pa, ga, a, decision.face, pb, gb, b, margin, contacts);
  manifold_cache_store (&d->manifolds, a, b, &decision, margin, geometries, polytopes,
                        contacts, first);
}

static int
compare_pairs (const void *x, const void *y)
{
  const GeometryPair *p = x, *q = y;
  if (p->a != q->a)
    return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}

static int
compare_sweep (const void *x, const void *y)
{
  const SweepEntry *a = x, *b = y;
  if (a->lo != b->lo)
    return a->lo < b->lo ? -1 : 1;
  return (a->geometry > b->geometry) - (a->geometry < b->geometry);
}

void
convex_detector_run (ConvexDetector *d, const CwbGeometry *geometries, size_t n_geometries,
                     double margin, gboolean *handled, GArray *contacts)
{
  g_return_if_fail (g_array_get_element_size (contacts) == sizeof (ManifoldContact));
  g_array_set_size (contacts, 0);
  d->run++;
  for (guint g = (guint) n_geometries; g < d->polytopes->len; g++)
    convex_polytope_clear (&g_array_index (d->polytopes, ConvexPolytope, g));
  g_array_set_size (d->polytopes, (guint) n_geometries);
  g_array_set_size (d->order, 0);
  sat_cache_begin (&d->sat, n_geometries);
  manifold_cache_begin (&d->manifolds);
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      handled[g] = FALSE;
      if (geometry->kind != CWB_GEOMETRY_SURFACE || !geometry->closed
          || geometry->n_triangles == 0 || geometry->positions == NULL)
        continue;
      gboolean built;
      Topology *topology = topology_cache_lookup (&d->topologies, geometry, d->run, &built);
      if (topology == NULL)
        continue;
      ConvexPolytope *p = &g_array_index (d->polytopes, ConvexPolytope, g);
      gboolean convex = convex_polytope_update (p, geometry, topology);
      sat_cache_track (&d->sat, (uint32_t) g, p, geometry);
      if (!convex)
        continue;
      handled[g] = TRUE;
      SweepEntry e = { p->lo[0], (uint32_t) g };
      g_array_append_val (d->order, e);
    }
  topology_cache_prune (&d->topologies, d->run);

  /* Sweep and prune along x, then the y and z boxes, all grown by the margin. The pairs found
   * are collided in the order of their geometries, not of the sweep (which two boxes level
   * along x swap from one step to the next by round-off): a set whose contacts last keeps
   * its order, and with it its identities' order, from step to step. */
  g_array_sort (d->order, compare_sweep);
  g_array_set_size (d->pairs, 0);
  const SweepEntry *order = (const SweepEntry *) d->order->data;
  for (guint k = 0; k < d->order->len; k++)
    {
      uint32_t a = order[k].geometry;
      const ConvexPolytope *pa = &g_array_index (d->polytopes, ConvexPolytope, a);
      for (guint j = k + 1; j < d->order->len && order[j].lo <= pa->hi[0] + margin; j++)
        {
          uint32_t b = order[j].geometry;
          const ConvexPolytope *pb = &g_array_index (d->polytopes, ConvexPolytope, b);
          if (pb->lo[1] > pa->hi[1] + margin || pa->lo[1] > pb->hi[1] + margin
              || pb->lo[2] > pa->hi[2] + margin || pa->lo[2] > pb->hi[2] + margin)
            continue;
          GeometryPair pair = { MIN (a, b), MAX (a, b) };
          g_array_append_val (d->pairs, pair);
        }
    }
  g_array_sort (d->pairs, compare_pairs);
  for (guint k = 0; k < d->pairs->len; k++)
    {
      const GeometryPair *pair = &g_array_index (d->pairs, GeometryPair, k);
      collide (d, geometries, pair->a, pair->b, margin, contacts);
    }
  sat_cache_end (&d->sat);
  manifold_cache_end (&d->manifolds);
}

void
convex_detector_set_coherence (ConvexDetector *d, gboolean keep_decisions)
{
  d->sat.enabled = keep_decisions;
}

guint
convex_detector_kept (const ConvexDetector *d)
{
  return d->sat.kept;
}

void
convex_detector_set_persistence (ConvexDetector *d, gboolean keep_manifolds)
{
  d->manifolds.enabled = keep_manifolds;
}

guint
convex_detector_refreshed (const ConvexDetector *d)
{
  return d->manifolds.kept;
}

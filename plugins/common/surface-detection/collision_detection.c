/* Collision detection for the contact models that work with points inside closed surfaces
 * (the penalty and proximity models), after Spillmann et al. 2007 and Lazarevych et al.
 * (section 3.1: "a collision detection algorithm based on optimized spatial hashing [THM*03]
 * provides a set of collisions"; section 3.3: collisions (i, T_i) with barycentric
 * coordinates h_ij and penetration depth vectors d_i).
 *
 * Teschner et al. 2003 hash the points of tetrahedral meshes and query each tetrahedron's
 * cells. Here the bodies are closed triangle surfaces, so a surface triangle T of a closed
 * geometry B stands for the layer of B's volume within max_depth behind it:
 *
 *  1. Every run, all points of all surface geometries are hashed (spatial_hash.c).
 *  2. For each closed B and each other surface geometry A whose box overlaps B's (grown by
 *     max_depth), each triangle T = (a, b, c) of B with unit outward normal n (counter-
 *     clockwise seen from outside) queries the cells of its box grown by max_depth, clipped
 *     to A's box (the ground's 20 m triangles would otherwise visit 10^5 cells; if the clipped
 *     box still holds more cells than A has points, A's points are scanned instead). For a
 *     point p of A there: s = n . (p - a) (the prism test: p is in T's prism when
 *     -max_depth <= s < 0 and its projection falls inside T), and whenever |s| <= max_depth
 *     the closest point of T to p (Ericson 2005, Real-Time Collision Detection 5.1.5), which
 *     is the projection when it falls inside T and a point of T's border otherwise. Per point,
 *     the nearest such point over all of B's triangles is kept: for prism hits this is the
 *     largest s, the nearest face; points in the gaps between prisms (reflex edges and
 *     corners of non-convex surfaces) get their closest edge or vertex point.
 *  3. p is inside B when the nearest feature says so: a face by the sign of s, an edge or a
 *     vertex by the sign of (p - closest) . N with N the angle-weighted pseudo-normal
 *     (Baerentzen & Aanaes 2005, "Signed distance computation using the angle weighted
 *     pseudonormal", theorem 1: exact for a closed manifold). Points inside within max_depth
 *     become candidates: T_i the triangle holding the closest point, h_ij its barycentric
 *     coordinates, d_i = closest - p (= -s n on a face).
 *     Keeping the nearest feature over both sides of every face (not only the faces p is
 *     behind) also rejects a point just outside a thin part of B that lies within max_depth
 *     behind the far face.
 *  4. The consistency pass (make_consistent below) then aligns outlying depth vectors of each
 *     (A, B) contact region with its dominant direction.
 *  5. With a margin > 0 the band of steps 2-3 is r = max(max_depth, margin) wide on both
 *     sides (boxes grown by r, |s| <= r), and the points whose nearest feature says outside
 *     (or which lie on the surface) within the margin become candidates as well, with the
 *     exact closest point and gap +|d_i|. Inside candidates stay limited to max_depth. With
 *     margin 0 the band is max_depth, as above, and nothing else changes.
 *  6. An open surface B (a cloth, a fixed rectangle) has no inside and is met as a sheet
 *     (add_sheet_candidates): each point within the band of it is on the side it came from
 *     (its height over the nearest triangle a step ago, by its velocity relative to B), and in
 *     contact when it lies within B's half-thickness of that side or past it.
 *
 * Exact (up to rounding): which points are within max_depth inside a closed manifold B, their
 * distance |d_i| to B's surface, and the closest point (ties between equidistant features are
 * broken by the lowest triangle index). Approximate: the depth vectors rewritten by the
 * consistency pass (penetration along the dominant direction, not the shortest one);
 * pseudo-normals near degenerate triangles (left out of the sums) and near the edges of
 * surfaces flagged closed that are not manifold. Failure cases: see collision_detection.h. */
#include "collision_detection.h"

#include "spatial_hash.h"
#include "surface_topology.h"

#include <cwb/vecmath.h>
#include <math.h>

#define NONE SURFACE_NONE

/* Ray hits (consistency pass) accept barycentric coordinates down to -1e-12 so that a ray
 * through an edge shared by two triangles hits at least one of them despite rounding
 * (Moeller-Trumbore's u, v carry ~1e-16 relative error for well-shaped triangles); the hit is
 * then clamped onto the triangle, moving it by at most 1e-12 edge lengths. */
#define BARY_TOLERANCE 1e-12
/* Rays within 1e-12 rad of a triangle's plane are treated as parallel (no hit). */
#define PARALLEL_RATIO 1e-12
/* Consistency pass: a depth vector "agrees" with a direction within 60 degrees of it, and a
 * contact region is dominated by one direction when the depth-weighted two thirds of its
 * candidates agree with their mean (a box face resting on a face; not a box in a corner). */
#define COS_60_DEGREES 0.5
#define DOMINANCE_FRACTION (2.0 / 3.0)
/* A sheet's (an open surface's) half-thickness for contact, of its mean edge length: a point
 * resting on a sheet keeps this far from it, on its own side (add_sheet_candidates). */
#define SHEET_THICKNESS_OF_EDGE 0.05

typedef struct GeometryInfo {
  size_t offset;                /* first global point id (surface and particle geometries) */
  double radius;                /* particles: the largest radius; 0 for a surface */
  size_t n_finite;              /* points with finite coordinates (= hashed) */
  double lo[3], hi[3];          /* box of the finite points */
  Topology *topology;           /* NULL: no triangles, or not a surface */
} GeometryInfo;

/* One triangle of the current surface B: what every query against it needs. */
typedef struct TriangleQuery {
  uint32_t triangle;
  gboolean usable;              /* finite and not degenerate */
  const double *v[3];
  double normal[3];             /* unit, outward */
  double cross_norm;            /* |(b - a) x (c - a)| = 2 area */
  double lo[3], hi[3];          /* the triangle's box grown by the reach */
} TriangleQuery;

/* Where a point's nearest feature of B puts it (detect_pair). */
typedef enum Side {
  SIDE_NONE = 0,                /* too far on either side */
  SIDE_INSIDE = 1,              /* inside B, within max_depth */
  SIDE_OUTSIDE = 2,             /* outside B or on its surface, within the margin */
} Side;

/* Per global point: the nearest feature of the current surface B (valid when stamp is the
 * current pair's). */
typedef struct Nearest {
  uint32_t stamp;
  uint32_t triangle;
  uint32_t feature;
  uint32_t ray_slot;            /* consistency pass: index in rays, or NONE */
  Side side;
  double dist2;
  double s;
  double bary[3];
  double depth[3];
} Nearest;

/* Consistency pass: the nearest exit of an outlier's ray along the dominant direction. */
typedef struct RayHit {
  uint32_t candidate;           /* index in found */
  uint32_t triangle;
  double t;
  double cos_normal;            /* n . m of the hit triangle */
  double bary[3];
} RayHit;

typedef enum QueryMode { QUERY_NEAREST, QUERY_RAY } QueryMode;

typedef struct PairQuery {
  uint32_t a;                   /* point geometry */
  uint32_t b;                   /* closed surface */
  uint32_t stamp;
  QueryMode mode;
  double max_depth;             /* the pair's: DetectionParams.max_depth + its motion */
  double reach;                 /* the band searched: max(max_depth, margin) */
  double ray_dir[3];            /* QUERY_RAY: the dominant direction m */
  size_t n_touched;
} PairQuery;

struct CollisionDetector {
  SpatialHash hash;
  TopologyCache topologies;     /* the adjacency of every surface seen */
  uint64_t run;
  uint32_t stamp;
  GeometryInfo *info;   size_t info_capacity;
  TriangleQuery *tris;  size_t tris_capacity;
  Nearest *nearest;     size_t nearest_capacity;
  uint32_t *touched;    size_t touched_capacity;
  RayHit *rays;         size_t rays_capacity;
  ContactCandidate *found; size_t n_found; size_t found_capacity;
  uint32_t *sort_start; size_t sort_start_capacity;
  double *edges;        size_t edges_capacity;
  DetectionStats stats;
};

CollisionDetector *
collision_detector_new (void)
{
  CollisionDetector *detector = g_new0 (CollisionDetector, 1);
  spatial_hash_init (&detector->hash);
  topology_cache_init (&detector->topologies);
  return detector;
}

void
collision_detector_free (CollisionDetector *detector)
{
  if (detector == NULL)
    return;
  spatial_hash_clear (&detector->hash);
  topology_cache_clear (&detector->topologies);
  g_free (detector->info);
  g_free (detector->tris);
  g_free (detector->nearest);
  g_free (detector->touched);
  g_free (detector->rays);
  g_free (detector->found);
  g_free (detector->sort_start);
  g_free (detector->edges);
  g_free (detector);
}

const DetectionStats *
collision_detector_get_stats (const CollisionDetector *detector)
{
  g_return_val_if_fail (detector != NULL, NULL);
  return &detector->stats;
}

void
collision_detector_set_table_size (CollisionDetector *detector, size_t table_size)
{
  g_return_if_fail (detector != NULL && table_size < G_MAXUINT32);
  detector->hash.forced_table_size = (uint32_t) table_size;
  detector->hash.sized_for = 0;
  detector->hash.table_size = 0;
}

/* Grows detector->field (capacity detector->field_capacity) to n elements (at least 1). */
#define RESERVE(detector, field, n)                                                         \
  ((detector)->field = spatial_hash_reserve ((detector)->field, &(detector)->field##_capacity,  \
                                             MAX ((size_t) (n), 1), sizeof *(detector)->field, \
                                             &(detector)->stats.growths))

/* ---- Geometry helpers -------------------------------------------------------------------- */

static gboolean
finite3 (const double p[3])
{
  return isfinite (p[0]) && isfinite (p[1]) && isfinite (p[2]);
}

static gboolean
in_box (const double p[3], const double lo[3], const double hi[3])
{
  /* Written so that NaN coordinates are outside. */
  return p[0] >= lo[0] && p[0] <= hi[0] && p[1] >= lo[1] && p[1] <= hi[1] && p[2] >= lo[2]
         && p[2] <= hi[2];
}

static gboolean
boxes_overlap (const double alo[3], const double ahi[3], const double blo[3], const double bhi[3])
{
  for (int k = 0; k < 3; k++)
    if (alo[k] > bhi[k] || blo[k] > ahi[k])
      return FALSE;
  return TRUE;
}

/* Clamps barycentric coordinates to >= 0 and renormalises them to sum 1. */
static void
bary_clamp (double bary[3])
{
  double sum = 0;
  for (int k = 0; k < 3; k++)
    sum += bary[k] = MAX (bary[k], 0.0);
  if (sum > 0)
    cwb_v3_scale (bary, bary, 1.0 / sum);
  else
    cwb_v3_set (bary, 1.0 / 3, 1.0 / 3, 1.0 / 3);
}

/* Moeller & Trumbore 1997 ray-triangle intersection of o + t dir, 0 < t <= max_t. */
static gboolean
ray_triangle (const double o[3], const double dir[3], const TriangleQuery *tq, double max_t,
              double *t_out, double bary[3])
{
  double e1[3], e2[3], pv[3], tv[3], qv[3];
  cwb_v3_sub (e1, tq->v[1], tq->v[0]);
  cwb_v3_sub (e2, tq->v[2], tq->v[0]);
  cwb_v3_cross (pv, dir, e2);
  double det = cwb_v3_dot (e1, pv);   /* = -dir . (e1 x e2) */
  if (!(fabs (det) > PARALLEL_RATIO * tq->cross_norm))
    return FALSE;
  double inv = 1.0 / det;
  cwb_v3_sub (tv, o, tq->v[0]);
  double u = cwb_v3_dot (tv, pv) * inv;
  if (u < -BARY_TOLERANCE || u > 1 + BARY_TOLERANCE)
    return FALSE;
  cwb_v3_cross (qv, tv, e1);
  double v = cwb_v3_dot (dir, qv) * inv;
  if (v < -BARY_TOLERANCE || u + v > 1 + BARY_TOLERANCE)
    return FALSE;
  double t = cwb_v3_dot (e2, qv) * inv;
  if (!(t > 0 && t <= max_t))
    return FALSE;
  *t_out = t;
  cwb_v3_set (bary, 1 - u - v, u, v);
  bary_clamp (bary);
  return TRUE;
}

/* ---- Queries ----------------------------------------------------------------------------- */

static void
visit_nearest (CollisionDetector *detector, PairQuery *pq, const TriangleQuery *tq,
               uint32_t point, const double p[3])
{
  if (!in_box (p, tq->lo, tq->hi))
    return;
  detector->stats.point_triangle_tests++;
  double ap[3];
  cwb_v3_sub (ap, p, tq->v[0]);
  double s = cwb_v3_dot (tq->normal, ap);
  if (!(fabs (s) <= pq->reach))   /* the nearest point of T is at least |s| away */
    return;
  double bary[3], depth[3];
  int feature = cwb_triangle_closest_point (p, tq->v[0], tq->v[1], tq->v[2], bary);
  bary_clamp (bary);
  if (feature == FEATURE_FACE)
    cwb_v3_scale (depth, tq->normal, -s);   /* inside T's prism: the orthogonal projection */
  else
    {
      for (int k = 0; k < 3; k++)
        depth[k] = bary[0] * tq->v[0][k] + bary[1] * tq->v[1][k] + bary[2] * tq->v[2][k] - p[k];
    }
  double dist2 = cwb_v3_dot (depth, depth);
  if (dist2 > pq->reach * pq->reach)
    return;
  Nearest *rec = &detector->nearest[detector->info[pq->a].offset + point];
  if (rec->stamp != pq->stamp)
    {
      rec->stamp = pq->stamp;
      rec->ray_slot = NONE;
      detector->touched[pq->n_touched++] = (uint32_t) (detector->info[pq->a].offset + point);
    }
  else if (!(dist2 < rec->dist2))   /* ties: the lowest triangle index stays */
    return;
  rec->dist2 = dist2;
  rec->s = s;
  rec->triangle = tq->triangle;
  rec->feature = (uint32_t) feature;
  cwb_v3_copy (rec->bary, bary);
  cwb_v3_copy (rec->depth, depth);
}

static void
visit_ray (CollisionDetector *detector, PairQuery *pq, const TriangleQuery *tq, uint32_t point,
           const double p[3])
{
  const Nearest *rec = &detector->nearest[detector->info[pq->a].offset + point];
  if (rec->stamp != pq->stamp || rec->ray_slot == NONE || !in_box (p, tq->lo, tq->hi))
    return;
  detector->stats.point_triangle_tests++;
  RayHit *hit = &detector->rays[rec->ray_slot];
  double t, bary[3];
  if (!ray_triangle (p, pq->ray_dir, tq, pq->max_depth, &t, bary) || !(t < hit->t))
    return;
  hit->t = t;
  hit->triangle = tq->triangle;
  hit->cos_normal = cwb_v3_dot (tq->normal, pq->ray_dir);
  cwb_v3_copy (hit->bary, bary);
}

static void
visit (CollisionDetector *detector, PairQuery *pq, const TriangleQuery *tq, uint32_t point,
       const double p[3])
{
  if (pq->mode == QUERY_NEAREST)
    visit_nearest (detector, pq, tq, point, p);
  else
    visit_ray (detector, pq, tq, point, p);
}

/* Visits the points of geometry pq->a in the cells of tq's box clipped to [clip_lo, clip_hi]
 * (Teschner 2003 section 4.2: the second pass queries the cells of each primitive's box). */
static void
query_triangle (CollisionDetector *detector, PairQuery *pq, const CwbGeometry *geometries,
                const TriangleQuery *tq, const double clip_lo[3], const double clip_hi[3])
{
  double lo[3], hi[3];
  for (int k = 0; k < 3; k++)
    {
      lo[k] = MAX (tq->lo[k], clip_lo[k]);
      hi[k] = MIN (tq->hi[k], clip_hi[k]);
      if (lo[k] > hi[k])
        return;
    }
  const SpatialHash *hash = &detector->hash;
  int32_t clo[3], chi[3];
  spatial_hash_cell (hash, lo, clo);
  spatial_hash_cell (hash, hi, chi);
  double n_cells = 1;
  for (int k = 0; k < 3; k++)
    n_cells *= (double) chi[k] - (double) clo[k] + 1;

  const GeometryInfo *info = &detector->info[pq->a];
  if (n_cells > (double) info->n_finite)
    {
      /* More cells than points: scanning the points is cheaper and visits the same ones. */
      detector->stats.direct_scans++;
      const CwbGeometry *geometry = &geometries[pq->a];
      for (size_t i = 0; i < geometry->n_points; i++)
        visit (detector, pq, tq, (uint32_t) i, geometry->positions + 3 * i);
      return;
    }
  int32_t cell[3];
  for (cell[2] = clo[2]; cell[2] <= chi[2]; cell[2]++)
    for (cell[1] = clo[1]; cell[1] <= chi[1]; cell[1]++)
      for (cell[0] = clo[0]; cell[0] <= chi[0]; cell[0]++)
        {
          detector->stats.cells_visited++;
          uint32_t bucket = spatial_hash_bucket (hash, cell);
          for (uint32_t e = hash->bucket_start[bucket]; e < hash->bucket_start[bucket + 1]; e++)
            {
              const SpatialHashEntry *entry = &hash->entries[e];
              if (!spatial_hash_same_cell (entry->cell, cell))
                {
                  detector->stats.hash_collisions++;
                  continue;
                }
              if (entry->geometry == pq->a)
                visit (detector, pq, tq, entry->point, entry->position);
            }
        }
}

/* Every triangle of surface pq->b against the points of pq->a in [clip_lo, clip_hi]. */
static void
query_surface (CollisionDetector *detector, PairQuery *pq, const CwbGeometry *geometries,
               const double clip_lo[3], const double clip_hi[3])
{
  size_t nt = geometries[pq->b].n_triangles;
  for (size_t t = 0; t < nt; t++)
    if (detector->tris[t].usable)
      query_triangle (detector, pq, geometries, &detector->tris[t], clip_lo, clip_hi);
}

static void
sift_down (uint32_t *x, size_t root, size_t end)
{
  for (size_t child; (child = 2 * root + 1) < end; root = child)
    {
      if (child + 1 < end && x[child + 1] > x[child])
        child++;
      if (x[root] >= x[child])
        return;
      uint32_t tmp = x[root];
      x[root] = x[child];
      x[child] = tmp;
    }
}

/* In-place heap sort of point ids (no allocation; the ids are unique). */
static void
sort_ids (uint32_t *x, size_t n)
{
  for (size_t i = n / 2; i-- > 0;)
    sift_down (x, i, n);
  for (size_t end = n; end > 1; end--)
    {
      uint32_t tmp = x[0];
      x[0] = x[end - 1];
      x[end - 1] = tmp;
      sift_down (x, 0, end - 1);
    }
}

/* ---- Consistency pass -------------------------------------------------------------------- */

/* Lazarevych section 3.3 (after Spillmann 2007 eq. 2): the model assumes the depth vectors of
 * a contact region collinear ("the contacting surfaces are almost flat"). Where a flat face
 * rests on B near one of B's edges, the points within max_depth of B's side face find that
 * face nearer and get sideways depth vectors that would push the body off the edge.
 *
 * Per (A, B) pair: m0 = the mean of the d_i (= sum of the unit directions weighted by |d_i|).
 * When at least DOMINANCE_FRACTION of the |d_i| weight lies within 60 degrees of m0, the
 * region is dominated by one direction m = the normalised sum of those d_i; every d_i more
 * than 60 degrees from m is recomputed as the penetration along m: the ray p + t m
 * (0 < t <= max_depth) to its first exit through B's surface, kept if that exit face's normal
 * is within 60 degrees of m (then d_i = t m, T_i and h_ij those of the exit point).
 * Remaining failure cases: points deeper than max_depth along m keep their sideways d_i (and
 * deep penetrations beyond max_depth are not found at all); features of B thinner than
 * max_depth can be pushed through along m as along any direction; genuinely multi-directional
 * contacts (a box in a corner of B: two faces sharing the weight) have no dominant direction
 * and are left as found, as are outliers whose ray leaves B through a face that disagrees. */
static void
make_consistent (CollisionDetector *detector, PairQuery *pq, const CwbGeometry *geometries,
                 size_t first, size_t end)
{
  if (end - first < 2)
    return;
  ContactCandidate *found = detector->found;
  double m0[3] = { 0, 0, 0 }, m[3] = { 0, 0, 0 }, total = 0, agreeing = 0;
  for (size_t i = first; i < end; i++)
    {
      cwb_v3_add (m0, m0, found[i].depth);
      total += cwb_v3_norm (found[i].depth);
    }
  if (cwb_v3_normalize (m0) == 0)
    return;
  for (size_t i = first; i < end; i++)
    {
      double len = cwb_v3_norm (found[i].depth);
      if (cwb_v3_dot (found[i].depth, m0) >= COS_60_DEGREES * len)
        {
          cwb_v3_add (m, m, found[i].depth);
          agreeing += len;
        }
    }
  if (agreeing < DOMINANCE_FRACTION * total || cwb_v3_normalize (m) == 0)
    return;

  size_t n_rays = 0;
  double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
  const CwbGeometry *geometry = &geometries[pq->a];
  for (size_t i = first; i < end; i++)
    {
      if (cwb_v3_dot (found[i].depth, m) >= COS_60_DEGREES * cwb_v3_norm (found[i].depth))
        continue;
      const double *p = geometry->positions + 3 * found[i].point;
      detector->nearest[detector->info[pq->a].offset + found[i].point].ray_slot =
        (uint32_t) n_rays;
      detector->rays[n_rays++] = (RayHit) { .candidate = (uint32_t) i, .t = INFINITY };
      for (int k = 0; k < 3; k++)
        {
          lo[k] = MIN (lo[k], p[k]);
          hi[k] = MAX (hi[k], p[k]);
        }
    }
  if (n_rays == 0)
    return;

  /* The exit point is within max_depth <= reach of p, so its triangle's grown box holds p. */
  pq->mode = QUERY_RAY;
  cwb_v3_copy (pq->ray_dir, m);
  query_surface (detector, pq, geometries, lo, hi);
  pq->mode = QUERY_NEAREST;

  for (size_t r = 0; r < n_rays; r++)
    {
      const RayHit *hit = &detector->rays[r];
      ContactCandidate *candidate = &found[hit->candidate];
      detector->nearest[detector->info[pq->a].offset + candidate->point].ray_slot = NONE;
      if (!isfinite (hit->t) || hit->cos_normal < COS_60_DEGREES)
        continue;
      candidate->triangle = hit->triangle;
      cwb_v3_copy (candidate->bary, hit->bary);
      cwb_v3_scale (candidate->depth, m, hit->t);
      detector->stats.consistency_fixes++;
    }
}

/* ---- Run --------------------------------------------------------------------------------- */

/* Element of rank (n - 1) / 2 (the lower median) by quickselect; reorders x. */
static double
select_median (double *x, size_t n)
{
  ptrdiff_t lo = 0, hi = (ptrdiff_t) n - 1, k = (ptrdiff_t) ((n - 1) / 2);
  while (lo < hi)
    {
      double a = x[lo], b = x[(lo + hi) / 2], c = x[hi];
      double pivot = MAX (MIN (a, b), MIN (MAX (a, b), c));   /* median of three */
      ptrdiff_t i = lo, j = hi;
      while (i <= j)
        {
          while (x[i] < pivot)
            i++;
          while (x[j] > pivot)
            j--;
          if (i <= j)
            {
              double tmp = x[i]; x[i] = x[j]; x[j] = tmp;
              i++;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        return x[k];
    }
  return x[k];
}

/* The automatic cell edge: the (lower) median edge length of all surface triangles (Teschner
 * 2003 section 5 finds cells of about the average edge length fastest; the median ignores the
 * few huge edges of a ground slab as long as they are not half of all edges, and the lower
 * median leans to the smaller cells, whose worst case query_triangle bounds by scanning).
 * Falls back to max_depth when there are no usable edges. */
static double
automatic_cell_size (CollisionDetector *detector, const CwbGeometry *geometries,
                     size_t n_geometries, double max_depth)
{
  size_t n_edges = 0;
  for (size_t g = 0; g < n_geometries; g++)
    if (detector->info[g].topology != NULL && detector->info[g].topology->valid)
      n_edges += 3 * geometries[g].n_triangles;
  RESERVE (detector, edges, n_edges);
  size_t n = 0;
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      if (detector->info[g].topology == NULL || !detector->info[g].topology->valid)
        continue;
      for (size_t i = 0; i < 3 * geometry->n_triangles; i++)
        {
          size_t j = i - i % 3 + (i + 1) % 3;
          double e[3];
          cwb_v3_sub (e, geometry->positions + 3 * geometry->triangles[i],
                      geometry->positions + 3 * geometry->triangles[j]);
          double len = cwb_v3_norm (e);
          if (isfinite (len) && len > 0)
            detector->edges[n++] = len;
        }
    }
  return n > 0 ? select_median (detector->edges, n) : max_depth;
}

/* Per-run geometry table: offsets, boxes of the finite points, topologies. Returns the number
 * of surface points. */
static size_t
prepare_geometries (CollisionDetector *detector, const CwbGeometry *geometries,
                    size_t n_geometries)
{
  RESERVE (detector, info, n_geometries);
  size_t total = 0;
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      GeometryInfo *info = &detector->info[g];
      *info = (GeometryInfo) { .offset = total, .lo = { INFINITY, INFINITY, INFINITY },
                               .hi = { -INFINITY, -INFINITY, -INFINITY } };
      if (!detection_geometry_has_points (geometry))
        continue;
      total += geometry->n_points;
      for (size_t i = 0; i < geometry->n_points; i++)
        {
          const double *p = geometry->positions + 3 * i;
          if (!finite3 (p))
            continue;
          if (geometry->kind == CWB_GEOMETRY_PARTICLES)
            info->radius = MAX (info->radius, geometry->radii[i]);
          info->n_finite++;
          for (int k = 0; k < 3; k++)
            {
              info->lo[k] = MIN (info->lo[k], p[k]);
              info->hi[k] = MAX (info->hi[k], p[k]);
            }
        }
      if (geometry->n_triangles > 0)
        {
          gboolean built = FALSE;
          info->topology = topology_cache_lookup (&detector->topologies, geometry, detector->run,
                                                  &built);
          detector->stats.growths += built;
        }
    }
  return total;
}

/* The triangles of surface b with their normals and boxes grown by `reach`, computed once per
 * run. */
static void
prepare_triangles (CollisionDetector *detector, const CwbGeometry *geometry, double reach)
{
  RESERVE (detector, tris, geometry->n_triangles);
  for (size_t t = 0; t < geometry->n_triangles; t++)
    {
      TriangleQuery *tq = &detector->tris[t];
      tq->triangle = (uint32_t) t;
      for (int k = 0; k < 3; k++)
        tq->v[k] = geometry->positions + 3 * geometry->triangles[3 * t + k];
      tq->cross_norm = surface_triangle_normal (geometry, t, tq->normal);
      tq->usable = tq->cross_norm > 0;
      for (int k = 0; k < 3; k++)
        {
          tq->lo[k] = MIN (tq->v[0][k], MIN (tq->v[1][k], tq->v[2][k])) - reach;
          tq->hi[k] = MAX (tq->v[0][k], MAX (tq->v[1][k], tq->v[2][k])) + reach;
        }
    }
}

static uint32_t
next_stamp (CollisionDetector *detector, size_t n_points)
{
  if (++detector->stamp == 0)
    {
      for (size_t i = 0; i < n_points; i++)
        detector->nearest[i].stamp = 0;
      detector->stamp = 1;
    }
  return detector->stamp;
}

/* Which side of B the nearest feature puts a point on: inside (p - closest = -d points against
 * the pseudo-normal, Baerentzen & Aanaes theorem 1) within max_depth, else outside or on the
 * surface within the margin (never with margin 0: the penalty model's points on a surface are
 * not in contact). */
static Side
classify (const Nearest *rec, const CwbGeometry *surface, const Topology *topology,
          const PairQuery *pq, const DetectionParams *params)
{
  if (rec->dist2 > 0)
    {
      double normal[3];
      surface_pseudo_normal (surface, topology, rec->triangle, (int) rec->feature, normal);
      if (cwb_v3_dot (rec->depth, normal) > 0)
        return rec->dist2 <= pq->max_depth * pq->max_depth ? SIDE_INSIDE : SIDE_NONE;
    }
  return params->margin > 0 && rec->dist2 <= params->margin * params->margin ? SIDE_OUTSIDE
                                                                            : SIDE_NONE;
}

/* A candidate of pair (a, b) from point `id`'s nearest-feature record (depth, triangle,
 * barycentric coordinates; gap and normal are the caller's). */
static ContactCandidate *
add_candidate (CollisionDetector *detector, uint32_t a, uint32_t b, size_t id,
               const Nearest *rec)
{
  ContactCandidate *candidate = &detector->found[detector->n_found++];
  *candidate = (ContactCandidate) {
    .point_geometry = a,
    .point = (uint32_t) (id - detector->info[a].offset),
    .surface_geometry = b,
    .triangle = rec->triangle,
  };
  cwb_v3_copy (candidate->bary, rec->bary);
  cwb_v3_copy (candidate->depth, rec->depth);
  return candidate;
}

/* The outside candidates of the pair (margin > 0): gap +|d_i| and normal -d_i / |d_i|, out of
 * B towards the point; a point on the surface takes the closest feature's pseudo-normal
 * (dropped in the degenerate case where that is zero). */
static void
add_outside_candidates (CollisionDetector *detector, const PairQuery *pq,
                        const CwbGeometry *surface, const Topology *topology)
{
  for (size_t i = 0; i < pq->n_touched; i++)
    {
      const Nearest *rec = &detector->nearest[detector->touched[i]];
      if (rec->side != SIDE_OUTSIDE)
        continue;
      ContactCandidate *candidate = add_candidate (detector, pq->a, pq->b,
                                                   detector->touched[i], rec);
      candidate->gap = cwb_v3_norm (candidate->depth);
      if (candidate->gap > 0)
        cwb_v3_scale (candidate->normal, candidate->depth, -1 / candidate->gap);
      else
        {
          surface_pseudo_normal (surface, topology, rec->triangle, (int) rec->feature,
                                 candidate->normal);
          if (cwb_v3_normalize (candidate->normal) == 0)
            {
              detector->n_found--;
              continue;
            }
        }
      detector->stats.outside_contacts++;
    }
}

/* How far the pair (a, b) may have moved into each other over a step (DetectionParams.motion):
 * motion_time times the largest |v_a - v_b| over the two velocity boxes, where exactly one of
 * them is fixed, or for a sheet (`sheet`: b is open) whether or not one is, since a sheet is
 * thin and two moving bodies cross it as readily as one; 0 otherwise. */
static double
pair_motion (const DetectionParams *params, size_t a, size_t b, gboolean sheet)
{
  if (params->motion == NULL
      || (!sheet && params->motion[a].fixed == params->motion[b].fixed))
    return 0;
  const DetectionVelocities *va = &params->motion[a], *vb = &params->motion[b];
  double d[3];
  for (int k = 0; k < 3; k++)
    d[k] = MAX (va->hi[k] - vb->lo[k], vb->hi[k] - va->lo[k]);
  return params->motion_time * cwb_v3_norm (d);
}

/* Whether `point` of geometry a, found inside b deeper than DetectionParams.max_depth
 * (within the pair's motion band), got there over this step: its depth must be what its
 * approach through the face it is nearest explains, motion_time times its velocity relative
 * to b's surface there (interpolated at the closest point) against the outward normal
 * d / |d|. A point that a fast fall carried in through that face passes; one found deep by
 * the far side of a thin part, whose nearest face it did not cross, does not, and is left
 * out as the fixed band left it out rather than pushed on through. (Between two moving FEM
 * bodies, where the band no longer grows, such points had made a pile of 40 cows under
 * proximity 12 cm deep; this check alone left it 4.8 cm deep and 3 times slower.) */
static gboolean
entered_this_step (const CwbGeometry *geometries, uint32_t a, uint32_t b, size_t point,
                   const Nearest *rec, const DetectionParams *params)
{
  const CwbGeometry *ga = &geometries[a], *gb = &geometries[b];
  if (ga->velocities == NULL || gb->velocities == NULL)
    return FALSE;
  double v[3];
  cwb_v3_copy (v, &ga->velocities[3 * point]);
  const uint32_t *tri = &gb->triangles[3 * (size_t) rec->triangle];
  for (int k = 0; k < 3; k++)
    cwb_v3_axpy (v, -rec->bary[k], &gb->velocities[3 * (size_t) tri[k]]);
  double depth = sqrt (rec->dist2);
  double approach = -cwb_v3_dot (v, rec->depth) / depth;   /* along -d / |d|, into b */
  return depth <= params->max_depth + params->motion_time * approach;
}

/* The candidates of particles against surface b (pair pq): a particle of radius r whose
 * centre lies at the signed distance s_d from B's surface (negative inside) along the
 * outward normal n at its nearest point penetrates by delta = r - s_d. With delta > 0 (and
 * the centre at most the pair's max_depth inside) it is an inside candidate: depth delta n, gap -delta; else,
 * within the margin, an outside one with gap -delta >= 0. The rows of a contact then join
 * the particle's centre to the surface point with the gap measured from the particle's
 * sphere, so that a particle rests on B with its centre r above it. */
static void
add_particle_candidates (CollisionDetector *detector, const CwbGeometry *geometries,
                         const PairQuery *pq, const DetectionParams *params)
{
  const CwbGeometry *particles = &geometries[pq->a], *surface = &geometries[pq->b];
  const Topology *topology = detector->info[pq->b].topology;
  sort_ids (detector->touched, pq->n_touched);
  RESERVE (detector, found, detector->n_found + pq->n_touched);
  for (size_t i = 0; i < pq->n_touched; i++)
    {
      const Nearest *rec = &detector->nearest[detector->touched[i]];
      size_t point = detector->touched[i] - detector->info[pq->a].offset;
      double dist = sqrt (rec->dist2), outward[3], normal[3];
      surface_pseudo_normal (surface, topology, rec->triangle, (int) rec->feature, normal);
      gboolean inside = dist > 0 && cwb_v3_dot (rec->depth, normal) > 0;
      if (dist > 0)
        cwb_v3_scale (outward, rec->depth, (inside ? 1 : -1) / dist);
      else
        {
          cwb_v3_copy (outward, normal);   /* on the surface: its pseudo-normal */
          if (cwb_v3_normalize (outward) == 0)
            continue;
        }
      /* The band holds centres within max_depth inside B, as it holds a surface's points. */
      double delta = particles->radii[point] - (inside ? -dist : dist);
      gboolean penetrates = delta > 0 && delta - particles->radii[point] <= pq->max_depth;
      if (!penetrates && !(params->margin > 0 && -delta <= params->margin && delta <= 0))
        continue;
      ContactCandidate *candidate = add_candidate (detector, pq->a, pq->b,
                                                   detector->touched[i], rec);
      candidate->gap = -delta;
      cwb_v3_copy (candidate->normal, outward);
      cwb_v3_scale (candidate->depth, outward, delta);   /* out of B inside, into it outside */
      if (!penetrates)
        detector->stats.outside_contacts++;
    }
}

/* A sheet's half-thickness: SHEET_THICKNESS_OF_EDGE times its triangles' mean edge length
 * at the current positions (0 for a sheet with no usable triangle). */
static double
sheet_half_thickness (const CwbGeometry *sheet)
{
  double sum = 0;
  size_t count = 0;
  for (size_t t = 0; t < sheet->n_triangles; t++)
    for (int k = 0; k < 3; k++)
      {
        const double *a = &sheet->positions[3 * (size_t) sheet->triangles[3 * t + k]];
        const double *b = &sheet->positions[3 * (size_t) sheet->triangles[3 * t + (k + 1) % 3]];
        double d[3];
        cwb_v3_sub (d, b, a);
        double length = cwb_v3_norm (d);
        if (isfinite (length))
          {
            sum += length;
            count++;
          }
      }
  return count > 0 ? SHEET_THICKNESS_OF_EDGE * sum / (double) count : 0;
}

/* The candidates of the points (or particles) of a against the sheet b (an open surface,
 * pair pq): a sheet has no inside, so a point is in contact with it from the side it came
 * from. With n the unit normal of the triangle holding the point's closest point c, s = n .
 * (p - c) the point's height over it and v its velocity relative to the sheet there, the
 * side is the sign of s - h n . v, where the point was a step ago (of s when it was on the
 * sheet); a point the step carried through the sheet is still on its first side, with a
 * negative height there. The sheet is `half_thickness` thick on each side (and a particle
 * adds its radius), so that a point resting on it is found on its own side at rest. Then
 *   - on the face, or past the sheet: normal side n, gap side s - thickness;
 *   - beside an edge or a vertex (a border or a fold), on its own side: normal (p - c) / |p -
 *     c|, gap |p - c| - thickness;
 * a candidate when the gap is negative within the pair's max_depth past the sheet, or
 * positive within the margin. */
static void
add_sheet_candidates (CollisionDetector *detector, const CwbGeometry *geometries,
                      const PairQuery *pq, const DetectionParams *params, double half_thickness)
{
  const CwbGeometry *points = &geometries[pq->a], *sheet = &geometries[pq->b];
  gboolean particles = points->kind == CWB_GEOMETRY_PARTICLES;
  sort_ids (detector->touched, pq->n_touched);
  RESERVE (detector, found, detector->n_found + pq->n_touched);
  for (size_t i = 0; i < pq->n_touched; i++)
    {
      const Nearest *rec = &detector->nearest[detector->touched[i]];
      size_t point = detector->touched[i] - detector->info[pq->a].offset;
      double n[3];
      if (surface_triangle_normal (sheet, rec->triangle, n) == 0)
        continue;
      double thickness = half_thickness + (particles ? points->radii[point] : 0);
      double height = -cwb_v3_dot (rec->depth, n), before = height;
      if (points->velocities != NULL && sheet->velocities != NULL)
        {
          double v[3];
          cwb_v3_copy (v, &points->velocities[3 * point]);
          const uint32_t *tri = &sheet->triangles[3 * (size_t) rec->triangle];
          for (int k = 0; k < 3; k++)
            cwb_v3_axpy (v, -rec->bary[k], &sheet->velocities[3 * (size_t) tri[k]]);
          before = height - params->motion_time * cwb_v3_dot (n, v);
        }
      double side = before > 0 ? 1 : before < 0 ? -1 : height >= 0 ? 1 : -1;
      double dist = sqrt (rec->dist2), normal[3], gap;
      if (rec->feature != FEATURE_FACE && dist > 0 && side * height >= 0)
        {
          cwb_v3_scale (normal, rec->depth, -1 / dist);
          gap = dist - thickness;
        }
      else
        {
          cwb_v3_scale (normal, n, side);
          gap = side * height - thickness;
        }
      gboolean penetrates = gap < 0 && -gap <= thickness + pq->max_depth;
      if (!penetrates && !(params->margin > 0 && gap >= 0 && gap <= params->margin))
        continue;
      ContactCandidate *candidate = add_candidate (detector, pq->a, pq->b,
                                                   detector->touched[i], rec);
      candidate->gap = gap;
      cwb_v3_copy (candidate->normal, normal);
      cwb_v3_scale (candidate->depth, normal, -gap);   /* out of the sheet's layer inside */
      if (!penetrates)
        detector->stats.outside_contacts++;
    }
  detector->stats.sheet_pairs++;
}

/* Points of geometry a against closed surface b (its triangles prepared). */
static void
detect_pair (CollisionDetector *detector, const CwbGeometry *geometries, uint32_t a,
             uint32_t b, const DetectionParams *params, size_t n_points, double half_thickness)
{
  const GeometryInfo *ia = &detector->info[a];
  const CwbGeometry *surface = &geometries[b];
  const Topology *topology = detector->info[b].topology;
  gboolean sheet = !surface->closed;
  double motion = pair_motion (params, a, b, sheet);
  PairQuery pq = { .a = a, .b = b, .stamp = next_stamp (detector, n_points),
                   .mode = QUERY_NEAREST, .max_depth = params->max_depth + motion };
  pq.reach = MAX (pq.max_depth, params->margin) + ia->radius + (sheet ? half_thickness : 0);
  detector->stats.pairs_tested++;
  query_surface (detector, &pq, geometries, ia->lo, ia->hi);
  if (sheet)
    {
      add_sheet_candidates (detector, geometries, &pq, params, half_thickness);
      return;
    }
  if (geometries[a].kind == CWB_GEOMETRY_PARTICLES)
    {
      add_particle_candidates (detector, geometries, &pq, params);
      return;
    }

  sort_ids (detector->touched, pq.n_touched);
  size_t first = detector->n_found;
  RESERVE (detector, found, detector->n_found + pq.n_touched);
  for (size_t i = 0; i < pq.n_touched; i++)
    {
      Nearest *rec = &detector->nearest[detector->touched[i]];
      rec->side = classify (rec, surface, topology, &pq, params);
      if (rec->side == SIDE_INSIDE && rec->dist2 > params->max_depth * params->max_depth
          && !entered_this_step (geometries, a, b, detector->touched[i] - ia->offset, rec,
                                 params))
        rec->side = SIDE_NONE;
      if (rec->side != SIDE_INSIDE)
        continue;
      if (rec->feature != FEATURE_FACE)
        detector->stats.edge_vertex_contacts++;
      add_candidate (detector, a, b, detector->touched[i], rec);
    }
  if (!params->raw_depths)
    make_consistent (detector, &pq, geometries, first, detector->n_found);
  /* After the consistency pass, which may turn d_i: the inside candidates' gap and normal. */
  for (size_t k = first; k < detector->n_found; k++)
    {
      ContactCandidate *candidate = &detector->found[k];
      double depth = cwb_v3_norm (candidate->depth);
      candidate->gap = -depth;
      cwb_v3_scale (candidate->normal, candidate->depth, 1 / depth);
    }
  if (params->margin > 0)
    add_outside_candidates (detector, &pq, surface, topology);
}

void
collision_detector_run (CollisionDetector *detector, const CwbGeometry *geometries,
                        size_t n_geometries, const DetectionParams *params, GArray *candidates)
{
  g_return_if_fail (detector != NULL && params != NULL && candidates != NULL);
  g_return_if_fail (g_array_get_element_size (candidates) == sizeof (ContactCandidate));
  g_array_set_size (candidates, 0);
  g_return_if_fail (params->max_depth > 0 && isfinite (params->max_depth));
  g_return_if_fail (params->margin >= 0 && isfinite (params->margin));
  g_return_if_fail (geometries != NULL || n_geometries == 0);
  g_return_if_fail (n_geometries < G_MAXUINT32);
  for (size_t g = 0; g < n_geometries; g++)
    g_return_if_fail (geometries[g].kind != CWB_GEOMETRY_SURFACE
                      || ((geometries[g].positions != NULL || geometries[g].n_points == 0)
                          && (geometries[g].triangles != NULL || geometries[g].n_triangles == 0)
                          && geometries[g].n_triangles < G_MAXUINT32 / 3));

  double max_depth = params->max_depth;
  double reach = MAX (max_depth, params->margin);
  g_return_if_fail (params->motion == NULL
                    || (params->motion_time >= 0 && isfinite (params->motion_time)));
  detector->stats = (DetectionStats) { 0 };
  detector->run++;
  detector->n_found = 0;
  if (params->skip_pairs_among != NULL)
    {
      /* Nothing to do when another detector has every surface and there are no particles. */
      gboolean any = FALSE;
      for (size_t g = 0; g < n_geometries && !any; g++)
        any = detection_geometry_has_points (&geometries[g]) && !params->skip_pairs_among[g];
      if (!any)
        return;
    }

  size_t n_points = prepare_geometries (detector, geometries, n_geometries);
  g_return_if_fail (n_points < G_MAXUINT32 / 2);   /* point ids and the table are 32-bit */
  double cell_size = params->cell_size > 0 && isfinite (params->cell_size)
                       ? params->cell_size
                       : automatic_cell_size (detector, geometries, n_geometries, max_depth);
  spatial_hash_build (&detector->hash, geometries, n_geometries, cell_size);
  detector->stats.cell_size = cell_size;
  detector->stats.table_size = detector->hash.table_size;
  detector->stats.points_hashed = detector->hash.n_entries;
  detector->stats.growths += detector->hash.growths;

  /* Per-point records; new ones start with stamp 0, which no pair uses. */
  size_t old_capacity = detector->nearest_capacity;
  RESERVE (detector, nearest, n_points);
  if (detector->nearest_capacity > old_capacity)
    memset (detector->nearest + old_capacity, 0,
            (detector->nearest_capacity - old_capacity) * sizeof (Nearest));
  RESERVE (detector, touched, n_points);
  RESERVE (detector, rays, n_points);

  for (size_t b = 0; b < n_geometries; b++)
    {
      const CwbGeometry *surface = &geometries[b];
      const GeometryInfo *ib = &detector->info[b];
      if (surface->kind != CWB_GEOMETRY_SURFACE || ib->topology == NULL
          || !ib->topology->valid || ib->n_finite == 0)
        continue;
      /* An open surface is a sheet (a cloth), met from either side (add_sheet_candidates). */
      gboolean sheet = !surface->closed;
      double half_thickness = sheet ? sheet_half_thickness (surface) : 0;
      double prepared = -1;   /* the reach b's triangles are grown by; < 0: not yet */
      for (size_t a = 0; a < n_geometries; a++)
        {
          const GeometryInfo *ia = &detector->info[a];
          if (a == b || !detection_geometry_has_points (&geometries[a]) || ia->n_finite == 0)
            continue;
          /* b's box grown by this pair's reach: its band, the step's motion and a's
           * particles' radius. */
          double pair_reach = reach + ia->radius + pair_motion (params, a, b, sheet)
                              + half_thickness;
          double lo[3], hi[3];
          for (int k = 0; k < 3; k++)
            {
              lo[k] = ib->lo[k] - pair_reach;
              hi[k] = ib->hi[k] + pair_reach;
            }
          if (!boxes_overlap (ia->lo, ia->hi, lo, hi))
            continue;
          if (params->skip_pairs_among != NULL && params->skip_pairs_among[a]
              && params->skip_pairs_among[b])
            continue;
          /* Grown by this pair's reach: a box grown by a wider one (a fast body's, against the
           * floor) would make every other pair visit more cells. */
          if (prepared != pair_reach)
            prepare_triangles (detector, surface, pair_reach);
          prepared = pair_reach;
          detect_pair (detector, geometries, (uint32_t) a, (uint32_t) b, params, n_points,
                       half_thickness);
        }
    }
  topology_cache_prune (&detector->topologies, detector->run);

  /* Counting sort by global point id (= by point_geometry, point); stable, and each point's
   * candidates were found in increasing surface order. */
  RESERVE (detector, sort_start, n_points + 1);
  uint32_t *start = detector->sort_start;
  memset (start, 0, (n_points + 1) * sizeof (uint32_t));
  for (size_t i = 0; i < detector->n_found; i++)
    {
      const ContactCandidate *c = &detector->found[i];
      start[detector->info[c->point_geometry].offset + c->point + 1]++;
    }
  for (size_t i = 0; i < n_points; i++)
    start[i + 1] += start[i];
  g_array_set_size (candidates, detector->n_found);
  ContactCandidate *out = (ContactCandidate *) (void *) candidates->data;
  for (size_t i = 0; i < detector->n_found; i++)
    {
      const ContactCandidate *c = &detector->found[i];
      out[start[detector->info[c->point_geometry].offset + c->point]++] = *c;
    }
}

void
detection_depth_init (DetectionDepth *depth)
{
  *depth = (DetectionDepth) { .motion = g_array_new (FALSE, FALSE, sizeof (DetectionVelocities)) };
}

void
detection_depth_clear (DetectionDepth *depth)
{
  g_clear_pointer (&depth->motion, g_array_unref);
}

void
detection_params_read (DetectionParams *params, DetectionDepth *depth, const CwbParamSet *set)
{
  depth->param = cwb_param_double (set, "max_depth", 0);
  params->cell_size = cwb_param_double (set, "cell_size", 0);
}

/* The median size (cwb_geometry_size) of the moving surfaces; 0 without any. */
static double
median_moving_size (const CwbContactQuery *query)
{
  g_autofree double *sizes = g_new (double, MAX (query->n_geometries, 1));
  size_t n = 0;
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      const CwbGeometry *geometry = &query->geometries[k];
      if (!detection_geometry_has_points (geometry) || geometry->n_points == 0
          || cwb_contact_query_geometry_fixed (query, geometry))
        continue;
      double size = cwb_geometry_size (geometry);
      if (isfinite (size))
        sizes[n++] = size;
    }
  return n > 0 ? select_median (sizes, n) : 0;
}

double
detection_automatic_margin (const CwbContactQuery *query)
{
  double g = CWB_STRUCT_HAS (query, CwbContactQuery, gravity) ? cwb_v3_norm (query->gravity) : 0;
  return MAX (MARGIN_STEPS_OF_FALL * g * query->h * query->h,
              MARGIN_OF_SIZE * median_moving_size (query));
}

double
detection_automatic_max_depth (const CwbContactQuery *query, double deepest)
{
  double size = median_moving_size (query);
  double depth = MAX (MAX_DEPTH_OF_SIZE * size,
                      MIN (MAX_DEPTH_OF_DEEPEST * (isfinite (deepest) ? deepest : 0),
                           MAX_DEPTH_CEILING_OF_SIZE * size));
  /* Without moving surfaces (or sizes) the detector still needs a band > 0. */
  return depth > 0 ? depth : MAX_DEPTH_OF_SIZE;
}

void
detection_motion (const CwbContactQuery *query, DetectionVelocities *motion)
{
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      const CwbGeometry *geometry = &query->geometries[k];
      DetectionVelocities *box = &motion[k];
      memset (box, 0, sizeof *box);
      box->fixed = cwb_contact_query_geometry_fixed (query, geometry);
      if (!detection_geometry_has_points (geometry) || geometry->velocities == NULL
          || geometry->n_points == 0 || box->fixed)
        continue;
      for (int c = 0; c < 3; c++)
        box->lo[c] = box->hi[c] = geometry->velocities[c];
      for (size_t i = 1; i < geometry->n_points; i++)
        for (int c = 0; c < 3; c++)
          {
            double v = geometry->velocities[3 * i + c];
            box->lo[c] = fmin (box->lo[c], v);   /* fmin, fmax: a NaN is passed over */
            box->hi[c] = fmax (box->hi[c], v);
          }
      for (int c = 0; c < 3; c++)
        if (!isfinite (box->lo[c]) || !isfinite (box->hi[c]))
          {
            memset (box->lo, 0, sizeof box->lo);
            memset (box->hi, 0, sizeof box->hi);
          }
    }
}

void
detection_resolve (DetectionParams *params, DetectionDepth *depth, const CwbContactQuery *query)
{
  params->max_depth = depth->param > 0 ? depth->param
                                       : detection_automatic_max_depth (query, depth->deepest);
  GArray *motion = depth->motion;
  g_array_set_size (motion, (guint) MAX (query->n_geometries, 1));
  detection_motion (query, (DetectionVelocities *) (void *) motion->data);
  params->motion = (const DetectionVelocities *) (void *) motion->data;
  params->motion_time = MOTION_STEPS * query->h;
}

void
detection_depth_publish (const DetectionDepth *depth, const DetectionParams *params,
                         CwbInspection *inspection)
{
  if (!(depth->param > 0))
    cwb_inspection_add_derived (inspection, "max_depth", params->max_depth);
}

gboolean
detection_check_geometries (const CwbGeometry *geometries, size_t n_geometries,
                            const char *model, GError **error)
{
  const CwbGeometry *first_particles = NULL;
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      if (!detection_geometry_has_points (geometry))
        {
          g_set_error (error, g_quark_from_string (model), 0,
                       "body %u: the %s model reads triangle surfaces and particles with radii; "
                       "this body's geometry is neither", geometry->body, model);
          return FALSE;
        }
      if (geometry->kind != CWB_GEOMETRY_PARTICLES || geometry->n_points == 0)
        continue;
      if (first_particles != NULL && first_particles->body != geometry->body)
        {
          g_set_error (error, g_quark_from_string (model), 0,
                       "bodies %u and %u: the %s model joins particles to triangle surfaces, "
                       "not to other particles, so these two would pass through each other; "
                       "the eulerian model makes particles meet particles",
                       first_particles->body, geometry->body, model);
          return FALSE;
        }
      first_particles = geometry;
    }
  return TRUE;
}

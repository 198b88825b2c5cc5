/* Embedding points in a tetrahedral mesh (tet_embedding.h). */
#include <math.h>

#include "tet_embedding.h"

CWB_DEFINE_ERROR_QUARK (tet-embedding-error-quark, tet_embedding_error)

/* At most this many buckets per usable tetrahedron. The bucket side follows the mean
 * element size, so a few large elements among many small ones could ask for a huge grid;
 * the cap keeps the bucket grid no larger than the lists it indexes (an element of the mean
 * size touches up to 8 buckets). */
#define MAX_BUCKETS_PER_TET 8

/* The mesh being embedded in, with the elements that are usable (not flat). */
typedef struct Mesh {
  const double *nodes;
  const uint32_t *tets;
  size_t n_tets;
  const guint8 *usable;
} Mesh;

/* A uniform grid of cubic buckets over the usable elements' bounding boxes, each bucket
 * listing the elements whose box touches it, in compressed rows: bucket b holds
 * list[start[b] .. start[b + 1]). */
typedef struct Buckets {
  double lo[3], hi[3];   /* bounds of all the boxes */
  double side;
  size_t dims[3];
  size_t *start;
  uint32_t *list;
} Buckets;

static void
buckets_clear (Buckets *b)
{
  g_free (b->start);
  g_free (b->list);
}

static void
tet_corners (const Mesh *mesh, size_t t, const double *x[4])
{
  for (int k = 0; k < 4; k++)
    x[k] = &mesh->nodes[3 * mesh->tets[4 * t + k]];
}

static void
tet_box (const double *x[4], double lo[3], double hi[3])
{
  for (int a = 0; a < 3; a++)
    {
      lo[a] = fmin (fmin (x[0][a], x[1][a]), fmin (x[2][a], x[3][a]));
      hi[a] = fmax (fmax (x[0][a], x[1][a]), fmax (x[2][a], x[3][a]));
    }
}

/* FALSE for a flat (or non-finite) element, see TET_EMBEDDING_FLAT_RATIO. */
static gboolean
tet_usable (const double *x[4])
{
  double longest = 0;
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      {
        double e[3];
        cwb_v3_sub (e, x[j], x[i]);
        longest = fmax (longest, cwb_v3_norm (e));
      }
  double e1[3], e2[3], e3[3], n[3];
  cwb_v3_sub (e1, x[1], x[0]);
  cwb_v3_sub (e2, x[2], x[0]);
  cwb_v3_sub (e3, x[3], x[0]);
  cwb_v3_cross (n, e2, e3);
  double six_volume = fabs (cwb_v3_dot (e1, n));
  /* Written so that NaN is not usable. */
  return six_volume >= TET_EMBEDDING_FLAT_RATIO * longest * longest * longest
         && six_volume > 0 && isfinite (six_volume) && isfinite (longest);
}

/* Bucket index of coordinate `value` along axis a, clamped to the grid. The same monotone
 * formula files the elements' boxes and looks points up, so an element holding a point is
 * always listed in that point's bucket. */
static size_t
bucket_coord (const Buckets *b, int a, double value)
{
  double f = floor ((value - b->lo[a]) / b->side);
  if (!(f > 0))
    return 0;
  if (f >= (double) b->dims[a])
    return b->dims[a] - 1;
  return (size_t) f;
}

static size_t
bucket_index (const Buckets *b, const size_t c[3])
{
  return c[0] + b->dims[0] * (c[1] + b->dims[1] * c[2]);
}

static void
buckets_build (const Mesh *mesh, size_t n_usable, Buckets *b)
{
  memset (b, 0, sizeof *b);
  for (int a = 0; a < 3; a++)
    {
      b->lo[a] = INFINITY;
      b->hi[a] = -INFINITY;
    }
  double extent_sum = 0;
  for (size_t t = 0; t < mesh->n_tets; t++)
    {
      if (!mesh->usable[t])
        continue;
      const double *x[4];
      double lo[3], hi[3];
      tet_corners (mesh, t, x);
      tet_box (x, lo, hi);
      for (int a = 0; a < 3; a++)
        {
          b->lo[a] = fmin (b->lo[a], lo[a]);
          b->hi[a] = fmax (b->hi[a], hi[a]);
        }
      extent_sum += fmax (hi[0] - lo[0], fmax (hi[1] - lo[1], hi[2] - lo[2]));
    }
  /* Buckets of the mean element size: a point then tests the few elements around it. */
  b->side = extent_sum / (double) n_usable;
  double cap = (double) MAX_BUCKETS_PER_TET * (double) n_usable;
  for (;;)
    {
      double count = 1;
      for (int a = 0; a < 3; a++)
        count *= fmax (1, ceil ((b->hi[a] - b->lo[a]) / b->side));
      if (count <= cap)
        break;
      /* Scaling by the cube root of the excess would do but for the ceilings; 1 % more
       * makes every pass shrink the count, and one or two passes end it. */
      b->side *= 1.01 * cbrt (count / cap);
    }
  size_t n_buckets = 1;
  for (int a = 0; a < 3; a++)
    {
      b->dims[a] = (size_t) fmax (1, ceil ((b->hi[a] - b->lo[a]) / b->side));
      n_buckets *= b->dims[a];
    }

  /* Two passes: count the entries per bucket, then fill them. */
  b->start = g_new0 (size_t, n_buckets + 1);
  for (int pass = 0; pass < 2; pass++)
    {
      for (size_t t = 0; t < mesh->n_tets; t++)
        {
          if (!mesh->usable[t])
            continue;
          const double *x[4];
          double lo[3], hi[3];
          tet_corners (mesh, t, x);
          tet_box (x, lo, hi);
          size_t from[3], to[3], c[3];
          for (int a = 0; a < 3; a++)
            {
              from[a] = bucket_coord (b, a, lo[a]);
              to[a] = bucket_coord (b, a, hi[a]);
            }
          for (c[2] = from[2]; c[2] <= to[2]; c[2]++)
            for (c[1] = from[1]; c[1] <= to[1]; c[1]++)
              for (c[0] = from[0]; c[0] <= to[0]; c[0]++)
                {
                  size_t k = bucket_index (b, c);
                  if (pass == 0)
                    b->start[k + 1]++;
                  else
                    b->list[b->start[k]++] = (uint32_t) t;
                }
        }
      if (pass == 0)
        {
          for (size_t k = 0; k < n_buckets; k++)
            b->start[k + 1] += b->start[k];
          b->list = g_new (uint32_t, b->start[n_buckets]);
        }
      else
        {
          /* The fill advanced each start to the next bucket's: shift them back. */
          memmove (b->start + 1, b->start, n_buckets * sizeof (size_t));
          b->start[0] = 0;
        }
    }
}

void
tet_embedding_barycentric (const double *x[4], const double p[3], double w[4])
{
  /* Cramer's rule on [X1 - X0, X2 - X0, X3 - X0] w = p - X0: each coordinate is a signed
   * volume with p in place of one corner over the element's (Ericson 2005, Real-Time
   * Collision Detection 3.4). */
  double e1[3], e2[3], e3[3], d[3], n[3];
  cwb_v3_sub (e1, x[1], x[0]);
  cwb_v3_sub (e2, x[2], x[0]);
  cwb_v3_sub (e3, x[3], x[0]);
  cwb_v3_sub (d, p, x[0]);
  cwb_v3_cross (n, e2, e3);
  double six_volume = cwb_v3_dot (e1, n);
  w[1] = cwb_v3_dot (d, n) / six_volume;
  cwb_v3_cross (n, d, e3);
  w[2] = cwb_v3_dot (e1, n) / six_volume;
  cwb_v3_cross (n, e2, d);
  w[3] = cwb_v3_dot (e1, n) / six_volume;
  w[0] = 1 - w[1] - w[2] - w[3];
}

static double
min4 (const double w[4])
{
  return fmin (fmin (w[0], w[1]), fmin (w[2], w[3]));
}

double
tet_embedding_distance (const double *x[4], const double p[3])
{
  double w[4];
  tet_embedding_barycentric (x, p, w);
  if (min4 (w) >= -TET_EMBEDDING_INSIDE_TOLERANCE)
    return 0;
  /* Outside a convex solid the nearest point lies on its boundary: the nearest of the four
   * faces (face k is the one opposite corner k). */
  static const int faces[4][3] = { { 1, 2, 3 }, { 0, 2, 3 }, { 0, 1, 3 }, { 0, 1, 2 } };
  double best = INFINITY;
  for (int f = 0; f < 4; f++)
    {
      const double *a = x[faces[f][0]], *b = x[faces[f][1]], *c = x[faces[f][2]];
      double bary[3], closest[3] = { 0, 0, 0 }, d[3];
      cwb_triangle_closest_point (p, a, b, c, bary);
      cwb_v3_axpy (closest, bary[0], a);
      cwb_v3_axpy (closest, bary[1], b);
      cwb_v3_axpy (closest, bary[2], c);
      cwb_v3_sub (d, p, closest);
      best = fmin (best, cwb_v3_norm (d));
    }
  return best;
}

/* The element of p's bucket that holds p, preferring the one it lies deepest in (largest
 * smallest coordinate; any of those sharing a face would do), with its coordinates in w;
 * -1 when none does. */
static gssize
locate (const Mesh *mesh, const Buckets *b, const double p[3], double w[4])
{
  for (int a = 0; a < 3; a++)
    if (!(p[a] >= b->lo[a] && p[a] <= b->hi[a]))
      return -1;
  size_t c[3];
  for (int a = 0; a < 3; a++)
    c[a] = bucket_coord (b, a, p[a]);
  size_t k = bucket_index (b, c);
  gssize best = -1;
  double best_min = -INFINITY;
  for (size_t i = b->start[k]; i < b->start[k + 1]; i++)
    {
      uint32_t t = b->list[i];
      const double *x[4];
      double wt[4];
      tet_corners (mesh, t, x);
      tet_embedding_barycentric (x, p, wt);
      double m = min4 (wt);
      if (m > best_min)
        {
          best_min = m;
          best = t;
          memcpy (w, wt, sizeof wt);
        }
    }
  return best_min >= -TET_EMBEDDING_INSIDE_TOLERANCE ? best : -1;
}

/* The usable element nearest to p (ties to the lowest index), searching shells of buckets of
 * growing Chebyshev radius r around p's (clamped) bucket. After shell r every element not yet
 * seen is listed only in buckets outside the box of the shells, so its box, and the element,
 * lies beyond one of that box's inner faces: the nearest such face bounds its distance from
 * below, and the search stops once the best distance is within that bound. */
static uint32_t
nearest (const Mesh *mesh, const Buckets *b, const double p[3], double *distance)
{
  size_t c[3];
  for (int a = 0; a < 3; a++)
    c[a] = bucket_coord (b, a, p[a]);
  uint32_t best = G_MAXUINT32;
  double best_d = INFINITY;
  for (size_t r = 0;; r++)
    {
      size_t lo[3], hi[3], s[3];
      for (int a = 0; a < 3; a++)
        {
          lo[a] = c[a] >= r ? c[a] - r : 0;
          hi[a] = MIN (c[a] + r, b->dims[a] - 1);
        }
      for (s[2] = lo[2]; s[2] <= hi[2]; s[2]++)
        for (s[1] = lo[1]; s[1] <= hi[1]; s[1]++)
          for (s[0] = lo[0]; s[0] <= hi[0]; s[0]++)
            {
              size_t ring = 0;
              for (int a = 0; a < 3; a++)
                ring = MAX (ring, s[a] > c[a] ? s[a] - c[a] : c[a] - s[a]);
              if (ring != r)
                continue;   /* seen in an earlier shell */
              size_t k = bucket_index (b, s);
              for (size_t i = b->start[k]; i < b->start[k + 1]; i++)
                {
                  uint32_t t = b->list[i];
                  const double *x[4];
                  tet_corners (mesh, t, x);
                  double d = tet_embedding_distance (x, p);
                  if (d < best_d || (d == best_d && t < best))
                    {
                      best_d = d;
                      best = t;
                    }
                }
            }
      double bound = INFINITY;
      for (int a = 0; a < 3; a++)
        {
          if (lo[a] > 0)
            bound = fmin (bound, p[a] - (b->lo[a] + (double) lo[a] * b->side));
          if (hi[a] + 1 < b->dims[a])
            bound = fmin (bound, b->lo[a] + (double) (hi[a] + 1) * b->side - p[a]);
        }
      if (isinf (bound) || best_d <= bound)
        break;
    }
  *distance = best_d;
  return best;
}

gboolean
tet_embedding_build (const double *nodes, size_t n_nodes, const uint32_t *tets, size_t n_tets,
                     const double *points, size_t n_points, TetEmbeddedPoint *out,
                     uint32_t *tet_of, TetEmbeddingStats *stats, GError **error)
{
  TetEmbeddingStats st = { 0 };
  for (size_t t = 0; t < n_tets; t++)
    for (int k = 0; k < 4; k++)
      if (tets[4 * t + k] >= n_nodes)
        {
          g_set_error (error, TET_EMBEDDING_ERROR, TET_EMBEDDING_ERROR_MESH,
                       "tetrahedron %zu names node %u, but there are %zu nodes", t,
                       tets[4 * t + k], n_nodes);
          return FALSE;
        }
  for (size_t i = 0; i < 3 * n_points; i++)
    if (!isfinite (points[i]))
      {
        g_set_error (error, TET_EMBEDDING_ERROR, TET_EMBEDDING_ERROR_MESH,
                     "point %zu is not finite", i / 3);
        return FALSE;
      }

  g_autofree guint8 *usable = g_new0 (guint8, n_tets);
  Mesh mesh = { .nodes = nodes, .tets = tets, .n_tets = n_tets, .usable = usable };
  size_t n_usable = 0;
  for (size_t t = 0; t < n_tets; t++)
    {
      const double *x[4];
      tet_corners (&mesh, t, x);
      usable[t] = tet_usable (x);
      n_usable += usable[t];
    }
  st.n_flat = n_tets - n_usable;
  if (n_usable == 0)
    {
      g_set_error (error, TET_EMBEDDING_ERROR, TET_EMBEDDING_ERROR_MESH,
                   "no usable tetrahedron to embed in (%zu given, all flat or not finite)",
                   n_tets);
      return FALSE;
    }

  Buckets buckets;
  buckets_build (&mesh, n_usable, &buckets);
  for (size_t i = 0; i < n_points; i++)
    {
      const double *p = &points[3 * i];
      double w[4];
      gssize t = locate (&mesh, &buckets, p, w);
      if (t < 0)
        {
          double d;
          t = nearest (&mesh, &buckets, p, &d);
          const double *x[4];
          tet_corners (&mesh, (size_t) t, x);
          tet_embedding_barycentric (x, p, w);
          /* Distance 0: inside an element within the tolerance, one listed only in a
           * neighbouring bucket (p a rounding error across the bucket's border). */
          if (d > 0 && (st.n_outside == 0 || d > st.max_outside_distance))
            {
              st.max_outside_distance = d;
              st.farthest = i;
            }
          st.n_outside += d > 0;
        }
      for (int k = 0; k < 4; k++)
        {
          out[i].nodes[k] = tets[4 * t + k];
          out[i].weights[k] = w[k];
        }
      if (tet_of != NULL)
        tet_of[i] = (uint32_t) t;
    }
  buckets_clear (&buckets);
  if (stats != NULL)
    *stats = st;
  return TRUE;
}

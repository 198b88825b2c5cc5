/* The CPU reference rasteriser of the LDI (Allard 2010 sec. 3.2, after Heidelberger et al.
 * 2003): for each axis, each triangle is projected onto the plane (u, v) orthogonal to it and
 * emits one fragment per pixel whose centre its projection covers.
 *
 * Coverage rule. A pixel centre c is covered by a triangle when c + w lies strictly inside
 * its projection, for a fixed infinitesimal w = (eps, -eps^2) in (u, v): the top-left fill
 * rule of GPU rasterisers, extended to both orientations. Per directed edge d = q - p:
 *   E(c) = (q - p) x (c - p)   (2D cross product)
 *   side = sign E(c)  if E(c) != 0,  else  sign (d x w) = -sign d_v, or -sign d_u when d_v = 0
 * and c is covered when the three sides agree: all +1 (counter-clockwise in (u, v): normal
 * . axis > 0, a back fragment) or all -1 (a front fragment). A point on a shared edge is thus
 * given to exactly one of two triangles that lie on either side of it, and to both or none of
 * two that fold over it (a silhouette), so a ray through a closed surface always meets an even
 * number of fragments, with no double or missing ones on edges and vertices. Edge-on
 * triangles (zero projected area) never have three agreeing sides and emit nothing.
 *
 * The rule needs the two triangles of an edge to see the same E: E is evaluated from the
 * edge's lexicographically smaller end point and negated for the other direction, so both get
 * bitwise opposite values, and E vanishes exactly at the edge's end points. (Rounding can
 * still disagree between the three edges of a vertex for a centre within ~1e-16 relative of
 * that vertex but not on it; exact predicates would close that gap.) This file is compiled
 * with -ffp-contract=off: a fused multiply-add would evaluate the two products of E
 * asymmetrically and break the exact zeros. */
#include <math.h>

#include "ldi_raster_cpu.h"

/* Triangles per rasterisation task: a few thousand pixels of work, enough to outweigh the
 * task's scheduling while giving every thread several tasks on a mesh of a few thousand
 * triangles. */
#define RASTER_CHUNK_TRIANGLES 1024u

typedef struct RasterJob {
  const Ldi *ldi;
  const LdiSurface *surfaces;
  size_t n_surfaces;
  const size_t *first_triangle;   /* n_surfaces + 1: prefix sums of the triangle counts */
  guint n_chunks;                 /* per axis */
  GArray **lists;                 /* 3 * n_chunks: LdiPixelFragment, axis-major */
} RasterJob;

/* The directed edge p -> q, set up once per triangle: E(c) is evaluated from the edge's
 * lexicographically smaller end point a towards the other b, so that q -> p gets exactly -E,
 * and negated when p is not a. */
typedef struct Edge {
  const double *p, *q;   /* the directed edge */
  const double *a;       /* its lexicographically smaller end point */
  double d[2];           /* b - a */
  gboolean forward;      /* a is p */
} Edge;

static void
edge_init (Edge *edge, const double p[2], const double q[2])
{
  edge->p = p;
  edge->q = q;
  edge->forward = p[0] < q[0] || (p[0] == q[0] && p[1] < q[1]);
  edge->a = edge->forward ? p : q;
  const double *b = edge->forward ? q : p;
  edge->d[0] = b[0] - edge->a[0];
  edge->d[1] = b[1] - edge->a[1];
}

/* E(c) of the directed edge. */
static inline double
edge_function (const Edge *edge, const double c[2])
{
  double e = edge->d[0] * (c[1] - edge->a[1]) - edge->d[1] * (c[0] - edge->a[0]);
  return edge->forward ? e : -e;
}

/* The side of c + w (see the top of the file): +1, -1, or 0 for a degenerate edge. */
static int
edge_side (double e, const double p[2], const double q[2])
{
  if (e != 0)
    return e > 0 ? 1 : -1;
  if (q[1] != p[1])
    return q[1] < p[1] ? 1 : -1;
  if (q[0] != p[0])
    return q[0] < p[0] ? 1 : -1;
  return 0;
}

/* First and last pixel index whose centre origin + (i + 0.5) h may lie in [lo, hi], clamped
 * to [0, n); FALSE when none. Rounding down the first and up the last keeps every centre
 * within rounding of the range (the edge tests decide): a centre left out lies a whole
 * pixel outside it. */
static gboolean
pixel_range (double lo, double hi, double origin, double h, uint32_t n, uint32_t *first,
             uint32_t *last)
{
  double a = floor ((lo - origin) / h - 0.5), b = ceil ((hi - origin) / h - 0.5);
  if (b < 0 || a > (double) n - 1)
    return FALSE;
  *first = (uint32_t) MAX (a, 0.0);
  *last = (uint32_t) MIN (b, (double) n - 1);
  return TRUE;
}

/* The pixels of a row (centre line v = row) that the projection a may cover: the u range
 * where its edges cross the line, rounded outwards to pixel indices as pixel_range does and
 * clipped to [i0, i1]; FALSE when the line misses the projection. The crossings are only
 * rounded: a centre within rounding of the range is kept and the edge tests decide. */
static gboolean
row_range (const double a[3][2], double row, double ou, double h, uint32_t i0, uint32_t i1,
           uint32_t *first, uint32_t *last)
{
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < 3; k++)
    {
      const double *p = a[k], *q = a[(k + 1) % 3];
      if (row < MIN (p[1], q[1]) || row > MAX (p[1], q[1]))
        continue;
      if (p[1] == q[1])
        {
          lo = MIN (lo, MIN (p[0], q[0]));
          hi = MAX (hi, MAX (p[0], q[0]));
          continue;
        }
      double u = p[0] + (row - p[1]) * (q[0] - p[0]) / (q[1] - p[1]);
      lo = MIN (lo, u);
      hi = MAX (hi, u);
    }
  if (!(lo <= hi))
    return FALSE;
  double first_centre = floor ((lo - ou) / h - 0.5), last_centre = ceil ((hi - ou) / h - 0.5);
  if (last_centre < i0 || first_centre > i1)
    return FALSE;
  *first = (uint32_t) MAX (first_centre, (double) i0);
  *last = (uint32_t) MIN (last_centre, (double) i1);
  return TRUE;
}

/* Depth and weights of a centre c on edge k (opposite vertex k) of a triangle, interpolated
 * along the edge alone from its lexicographically smaller end point: the triangles on either
 * side of the edge (a silhouette fold gives both the fragment) get bitwise equal depths, so
 * their fragments tie exactly and sort back before front (ldi.c) instead of in an order
 * rounding would pick, which could make a zero-length self-intersection. */
static void
edge_interpolate (const double a[3][2], const double *const p[3], uint32_t axis, int k,
                  const double c[2], LdiFragment *f)
{
  int i0 = (k + 1) % 3, i1 = (k + 2) % 3;
  gboolean forward = a[i0][0] < a[i1][0] || (a[i0][0] == a[i1][0] && a[i0][1] < a[i1][1]);
  int lo = forward ? i0 : i1, hi = forward ? i1 : i0;
  double d[2] = { a[hi][0] - a[lo][0], a[hi][1] - a[lo][1] };
  double t = ((c[0] - a[lo][0]) * d[0] + (c[1] - a[lo][1]) * d[1]) / (d[0] * d[0] + d[1] * d[1]);
  t = CLAMP (t, 0.0, 1.0);
  f->bary[k] = 0;
  f->bary[lo] = 1 - t;
  f->bary[hi] = t;
  f->depth = (1 - t) * p[lo][axis] + t * p[hi][axis];
}

static void
raster_triangle (const Ldi *ldi, const LdiImage *image, const LdiSurface *surface,
                 uint32_t surface_index, uint32_t t, GArray *out)
{
  const uint32_t *tri = surface->triangles + 3 * (size_t) t;
  const double *p[3];
  double a[3][2];   /* projections onto (u, v) */
  for (int k = 0; k < 3; k++)
    {
      p[k] = surface->positions + 3 * (size_t) tri[k];
      if (!isfinite (p[k][0]) || !isfinite (p[k][1]) || !isfinite (p[k][2]))
        return;
      a[k][0] = p[k][image->u];
      a[k][1] = p[k][image->v];
    }
  double h = ldi->pixel_size;
  double ou = ldi->box_min[image->u], ov = ldi->box_min[image->v];
  uint32_t i0, i1, j0, j1;
  if (!pixel_range (MIN (a[0][0], MIN (a[1][0], a[2][0])), MAX (a[0][0], MAX (a[1][0], a[2][0])),
                    ou, h, image->width, &i0, &i1)
      || !pixel_range (MIN (a[0][1], MIN (a[1][1], a[2][1])),
                       MAX (a[0][1], MAX (a[1][1], a[2][1])), ov, h, image->height, &j0, &j1))
    return;

  /* edges[k]: the edge opposite vertex k, from vertex k + 1 to vertex k + 2; for a
   * counter-clockwise triangle its E(c) is twice the area of (c, p_k+1, p_k+2), the
   * unnormalised barycentric weight of vertex k. */
  Edge edges[3];
  for (int k = 0; k < 3; k++)
    edge_init (&edges[k], a[(k + 1) % 3], a[(k + 2) % 3]);
  /* Fragments are written in place into room made row by row, trimmed once at the end. */
  guint base = out->len, count = 0;
  for (uint32_t j = j0; j <= j1; j++)
    {
      /* Only the centres of this row near the projection's crossing of the row's line:
       * most of a thin triangle's bounding box is outside it. */
      double row = ov + (j + 0.5) * h;
      uint32_t first, last;
      if (!row_range (a, row, ou, h, i0, i1, &first, &last))
        continue;
      if (out->len < base + count + (last - first + 1))
        g_array_set_size (out, base + count + (last - first + 1));
      LdiPixelFragment *row_out = &g_array_index (out, LdiPixelFragment, base);
      for (uint32_t i = first; i <= last; i++)
      {
        double c[2] = { ou + (i + 0.5) * h, ov + (j + 0.5) * h };
        double e[3];
        int side[3];
        for (int k = 0; k < 3; k++)
          {
            e[k] = edge_function (&edges[k], c);
            side[k] = edge_side (e[k], edges[k].p, edges[k].q);
          }
        if (side[0] == 0 || side[0] != side[1] || side[0] != side[2])
          continue;
        LdiPixelFragment f = { 0 };
        f.pixel = j * image->width + i;
        int on_edge = e[0] == 0 ? 0 : e[1] == 0 ? 1 : e[2] == 0 ? 2 : -1;
        if (on_edge >= 0)
          edge_interpolate (a, p, image->axis, on_edge, c, &f.fragment);
        else
          {
            double sum = e[0] + e[1] + e[2];
            for (int k = 0; k < 3; k++)
              f.fragment.bary[k] = e[k] / sum;
            f.fragment.depth = f.fragment.bary[0] * p[0][image->axis]
                               + f.fragment.bary[1] * p[1][image->axis]
                               + f.fragment.bary[2] * p[2][image->axis];
          }
        f.fragment.surface = surface_index;
        f.fragment.triangle = t;
        /* Counter-clockwise in (u, v) means normal . axis > 0: the ray leaves the volume. */
        f.fragment.facing = side[0] > 0 ? LDI_BACK : LDI_FRONT;
        row_out[count++] = f;
      }
    }
  if (out->len > base + count)
    g_array_set_size (out, base + count);
}

static void
raster_chunk (guint item, gpointer data)
{
  RasterJob *job = data;
  uint32_t axis = item / job->n_chunks, chunk = item % job->n_chunks;
  const LdiImage *image = &job->ldi->images[axis];
  size_t first = (size_t) chunk * RASTER_CHUNK_TRIANGLES;
  size_t end = MIN (first + RASTER_CHUNK_TRIANGLES, job->first_triangle[job->n_surfaces]);
  GArray *out = job->lists[item];
  g_array_set_size (out, 0);
  /* The surface holding the flattened triangle `first`: the last with first_triangle <= it. */
  size_t s = 0;
  while (s + 1 < job->n_surfaces && job->first_triangle[s + 1] <= first)
    s++;
  for (size_t g = first; g < end; g++)
    {
      while (g >= job->first_triangle[s + 1])
        s++;
      raster_triangle (job->ldi, image, &job->surfaces[s], (uint32_t) s,
                       (uint32_t) (g - job->first_triangle[s]), out);
    }
}

gboolean
ldi_raster_cpu (Ldi *ldi, const LdiSurface *surfaces, size_t n_surfaces, guint n_threads,
                GError **error)
{
  g_return_val_if_fail (n_surfaces < G_MAXUINT32, FALSE);
  if (!ldi_check_surfaces (ldi, surfaces, n_surfaces, error))
    return FALSE;

  g_autofree size_t *first_triangle = g_new (size_t, n_surfaces + 1);
  first_triangle[0] = 0;
  for (size_t s = 0; s < n_surfaces; s++)
    {
      g_return_val_if_fail (surfaces[s].n_triangles < G_MAXUINT32, FALSE);
      first_triangle[s + 1] = first_triangle[s] + surfaces[s].n_triangles;
    }
  guint n_chunks = (guint) ((first_triangle[n_surfaces] + RASTER_CHUNK_TRIANGLES - 1)
                            / RASTER_CHUNK_TRIANGLES);
  /* The lists are the LDI's, kept with their capacity for its next fill. */
  if (ldi->scratch == NULL)
    ldi->scratch = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  while (ldi->scratch->len < 3 * n_chunks)
    g_ptr_array_add (ldi->scratch, g_array_new (FALSE, FALSE, sizeof (LdiPixelFragment)));
  GArray **lists = (GArray **) ldi->scratch->pdata;
  RasterJob job = { ldi, surfaces, n_surfaces, first_triangle, n_chunks, lists };
  ldi_parallel_for (3 * n_chunks, n_threads, raster_chunk, &job);

  for (uint32_t axis = 0; axis < 3; axis++)
    ldi_image_fill (&ldi->images[axis], lists + (size_t) axis * n_chunks, n_chunks, n_threads);
  ldi->n_surfaces = n_surfaces;
  return TRUE;
}

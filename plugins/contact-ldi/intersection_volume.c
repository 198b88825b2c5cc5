/* Intersection volumes and their gradients from the sorted fragments of an LDI (Allard 2010
 * sec. 3.2, eq. 11-14; multi-volume cells sec. 5, eq. 22-24).
 *
 * Along each pixel's ray the fragments are walked in depth order with an inside counter per
 * body (+1 at a front fragment, -1 at a back one). Bodies a != b intersect where both
 * counters are >= 1; a body intersects itself where its counter is >= 2. Each such interval
 * [z-, z+] adds a (z+ - z-) to the pair's volume along that axis, a = h^2 the pixel area
 * (eq. 11), and its bounding fragments add to the gradient (eq. 12): the upper one, of the
 * set S+, +a b_k along the axis to vertex k of its triangle, the lower one, of S-, -a b_k,
 * where b_k is the barycentric weight of vertex k at the pixel centre (dz/dp_k^axis = b_k).
 * The volume is the mean of the three images' volumes; the gradient takes its x, y and z
 * components from the x, y and z images (eq. 13-14).
 *
 * Surface-normal gradient (LDI_GRADIENT_NORMAL). Eq. 12 is the exact derivative of image c's
 * volume along c only; that image's volume also depends on the vertices' other coordinates,
 * through the tilt of the triangles: at a fixed pixel a fragment's depth moves by
 * b_k N . dp / N_c when vertex k moves by dp (N the triangle's normal), i.e. along
 * m = N / N_c, whose c component is 1. Eq. 12 keeps that c component and takes the others
 * from the images along them, where a contact patch tilted against the axes is seen at a
 * grazing angle over a few pixel rows: each component is then counted to a whole row (a
 * 5 mm pixel, a 0.2 m box on a 32 degree incline: 6 or 7 rows per 5 cm cell, 15 %), the
 * gradient's direction jumps by degrees as the box moves, and the friction of the contact
 * turns into a ratchet. Here every image gives the whole vector, each interval along one
 * direction shared by its two bounds (so that action and reaction stay exact, pixel by
 * pixel): u, the unit mean of its two surfaces' normals (both turned to +c), each bound
 * adding a b_k u u_c instead of a b_k e_c. Over the three images u u_c sums to u
 * (u_x^2 + u_y^2 + u_z^2 = 1), so a patch is counted mostly by the image that sees it face
 * on, and a planar patch (both surfaces parallel) has the exact direction at any pixel size.
 * Bounds more than 5 degrees apart keep e_c, and the thin corners of an intersection (bounds
 * more than 60 degrees apart, less than a pixel apart) give no gradient: see
 * PARALLEL_BOUNDS_COS and CORNER_BOUNDS_COS below. The gradient is then no longer the exact
 * derivative of the mean volume (the tests of eq. 12 against finite differences use
 * LDI_GRADIENT_AXIS) but a better estimate of the continuous one: the surface integral of
 * b_k n over the intersection's boundary.
 *
 * Multi-volume (sec. 5): an interval is cut at the walls of a cubic grid. A piece
 * [lo, hi] in a cell adds a (hi - lo) to that cell's volume; its bounds are surface pixels
 * (z-, z+) or wall pixels W- = beta z+ + (1 - beta) z-, W+ = alpha z+ + (1 - alpha) z-
 * (eq. 22-23) whose pressure is dispatched on the surfaces by eq. 24. With alpha = 1 for a
 * surface top and beta = 0 for a surface bottom, eq. 24 sums for the piece to
 *   a (alpha - beta) (dz+/dp - dz-/dp),   alpha - beta = (hi - lo) / (z+ - z-),
 * the interval's gradient scaled by the share of it in the cell: the pieces of an interval
 * add up to its mono-volume gradient, and each cell's gradient sums to zero over a common
 * translation of both bodies (action and reaction).
 *
 * The three images are walked in parallel, each into its own accumulators, merged in the
 * order x, y, z: the result does not depend on the number of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cwb/inspection.h>

#include "intersection_volume.h"
#include "sparse_map.h"

G_STATIC_ASSERT (sizeof (int32_t) == sizeof (uint32_t));

/* A body met along one ray. */
typedef struct RayBody {
  uint32_t body;
  int count;            /* inside counter: fronts minus backs so far */
  uint32_t enter;       /* fragment where count last rose to 1 */
  uint32_t self_enter;  /* fragment where count last rose to 2 */
} RayBody;

/* Recently used triangles, direct-mapped: along a row of pixels an interval's bounds lie on
 * the same few triangles, whose normal and gradient entries are then looked up once rather
 * than per pixel (the same values: a cache, not an approximation). */
#define TRIANGLE_CACHE_SIZE 64u

typedef struct NormalCacheEntry {
  uint32_t surface, triangle;   /* surface G_MAXUINT32: empty */
  double normal[3];
} NormalCacheEntry;

typedef struct GradientCacheEntry {
  const SparseMap *map;         /* NULL: empty */
  uint32_t volume, surface, triangle;
  uint32_t index[3];            /* the entries of the triangle's vertices in map */
} GradientCacheEntry;

/* What one image's walk accumulates. Keys: pairs (a, b, 0, 0, 0), cells (a, b, ix, iy, iz),
 * gradients (volume index, geometry, vertex, 0, 0); values: component [axis]. */
typedef struct AxisAccum {
  const Ldi *ldi;
  const LdiSurface *surfaces;
  const LdiVolumeParams *params;
  uint32_t axis;
  SparseMap pairs, pair_gradients, cells, cell_gradients;
  GArray *spans;        /* CwbInspectSpan, or NULL */
  GArray *ray;          /* RayBody scratch */
  NormalCacheEntry normals[TRIANGLE_CACHE_SIZE];
  GradientCacheEntry gradient_entries[TRIANGLE_CACHE_SIZE];
} AxisAccum;

static uint32_t
triangle_slot (uint32_t surface, uint32_t triangle, uint32_t salt)
{
  return (triangle * 2654435761u + surface * 40503u + salt * 97u) % TRIANGLE_CACHE_SIZE;
}

/* Adds a coefficient times the barycentric weights of fragment f to its triangle's vertices,
 * along `direction` (e_axis, or u u_axis: see the top of the file), in the gradient of
 * volume `volume`. */
static void
add_fragment_gradient (AxisAccum *acc, SparseMap *gradients, uint32_t volume,
                       const LdiFragment *f, double coefficient, const double direction[3])
{
  if (direction[0] == 0 && direction[1] == 0 && direction[2] == 0)
    return;   /* a thin corner (CORNER_BOUNDS_COS) */
  const LdiSurface *s = &acc->surfaces[f->surface];
  GradientCacheEntry *cached = &acc->gradient_entries[triangle_slot (f->surface, f->triangle,
                                                                      volume)];
  if (cached->map != gradients || cached->volume != volume || cached->surface != f->surface
      || cached->triangle != f->triangle)
    {
      *cached = (GradientCacheEntry) { .map = gradients, .volume = volume,
                                       .surface = f->surface, .triangle = f->triangle };
      for (int k = 0; k < 3; k++)
        {
          uint32_t key[SPARSE_KEY_WORDS] = { volume, s->geometry,
                                             s->triangles[3 * (size_t) f->triangle + k], 0, 0 };
          cached->index[k] = sparse_map_index (gradients, key);
        }
    }
  for (int k = 0; k < 3; k++)
    {
      double *value = sparse_map_entry (gradients, cached->index[k])->value;
      for (int c = 0; c < 3; c++)
        if (direction[c] != 0)
          value[c] += coefficient * f->bary[k] * direction[c];
    }
}

/* The unit normal of fragment f's triangle, turned so that its `axis` component is >= 0. */
static void
fragment_normal (AxisAccum *acc, const LdiFragment *f, double n[3])
{
  NormalCacheEntry *cached = &acc->normals[triangle_slot (f->surface, f->triangle, 0)];
  if (cached->surface == f->surface && cached->triangle == f->triangle)
    {
      cwb_v3_copy (n, cached->normal);
      return;
    }
  const LdiSurface *s = &acc->surfaces[f->surface];
  const uint32_t *t = &s->triangles[3 * (size_t) f->triangle];
  const double *p0 = &s->positions[3 * (size_t) t[0]], *p1 = &s->positions[3 * (size_t) t[1]],
               *p2 = &s->positions[3 * (size_t) t[2]];
  double e1[3], e2[3];
  cwb_v3_sub (e1, p1, p0);
  cwb_v3_sub (e2, p2, p0);
  cwb_v3_cross (n, e1, e2);
  cwb_v3_normalize (n);
  if (n[acc->axis] < 0)
    cwb_v3_scale (n, n, -1);
  cached->surface = f->surface;
  cached->triangle = f->triangle;
  cwb_v3_copy (cached->normal, n);
}

/* Bounds whose normals (both turned to +axis) make a larger angle than this keep eq. 12's
 * axis direction. Their mean normal u is off each surface's by half that angle: for a flat
 * face pressed into a curved one (a jaw into a soft ball), the cells' normals would lean off
 * the flat face's by up to half the angle at the lens's rim, and a ball sliding between two
 * jaws would plough into the leaning cells ahead of it (measured with 15 degrees: a slip
 * 11 % slower than Coulomb's with the frames' forces; with 5, 0.3 %). Two parallel faces
 * (a box on a tilted slab: 0 degrees), what the normal gradient is for, are well inside, and
 * a corner of the intersection (a box's side face under the ground's top, 90 degrees), whose
 * mean normal is neither surface's, far outside. */
#define PARALLEL_BOUNDS_COS 0.9961946980917455   /* cos 5 degrees */

/* Bounds further apart than this (60 degrees) over an interval shorter than a pixel are the
 * corner of a thin intersection: the side face of a box sunk a fraction of a pixel into the
 * ground, a strip thinner than a pixel that a row of pixel centres catches or misses as the
 * box moves. Caught, it counts a whole row's area (ten times the strip's, for a layer a
 * tenth of a pixel deep) in a direction off the contact's, and the cell at the box's edge
 * took a normal 27 degrees off the slope and stopped a box sliding at 2.6 m/s in one step.
 * Such intervals keep their volume but give no gradient: a side wall thinner than a pixel is
 * below what the LDI resolves (its true share is the strip's area, and the front and back
 * strips of a uniform layer cancel). Deep intersections keep their corners: a box sunk
 * several pixels has side walls of long intervals; a sphere lens loses the band along its
 * rim where it is thinner than a pixel (tests/ldi/test_ldi_gradient.c, lens-vector-area). */
#define CORNER_BOUNDS_COS 0.5

/* The direction the bounds of the interval [lower, upper] move its length along: e_axis for
 * eq. 12, or u u_axis with u the unit mean of the bounds' normals (top of the file) where
 * the interval lies between two bodies' nearly parallel surfaces, or none for the thin
 * corner of an intersection (CORNER_BOUNDS_COS). Both bounds of an interval
 * that crosses one body from face to face keep e_axis: that body's faces are cut by the ray
 * where it enters and leaves it, and a direction off the ray would turn the two equal and
 * opposite contributions into a torque that no motion of the body produces. A fragment's
 * triangle is never parallel to the ray (such triangles cover no pixel centre), so both
 * normals have a positive axis component and so has their sum. */
static void
interval_direction (AxisAccum *acc, const LdiFragment *lower, const LdiFragment *upper,
                    double direction[3])
{
  uint32_t axis = acc->axis;
  cwb_v3_set (direction, 0, 0, 0);
  direction[axis] = 1;
  if (acc->params->gradient != LDI_GRADIENT_NORMAL
      || acc->surfaces[lower->surface].body == acc->surfaces[upper->surface].body)
    return;
  double n_lower[3], n_upper[3];
  fragment_normal (acc, lower, n_lower);
  fragment_normal (acc, upper, n_upper);
  double cosine = cwb_v3_dot (n_lower, n_upper);
  if (cosine < CORNER_BOUNDS_COS && upper->depth - lower->depth < acc->ldi->pixel_size)
    {
      cwb_v3_set (direction, 0, 0, 0);
      return;
    }
  if (cosine < PARALLEL_BOUNDS_COS)
    return;
  cwb_v3_add (direction, n_lower, n_upper);
  cwb_v3_normalize (direction);
  cwb_v3_scale (direction, direction, direction[axis]);
}

/* The cell index of coordinate x on a grid of side s from origin, clamped to a quarter of the
 * int32 range: a surface far outside the region (depth is not clipped) or a tiny cell size
 * must not overflow the conversion. */
static int32_t
cell_index (double x, double origin, double s, gboolean round_up)
{
  double k = round_up ? ceil ((x - origin) / s) : floor ((x - origin) / s);
  return (int32_t) CLAMP (k, (double) (G_MININT32 / 4), (double) (G_MAXINT32 / 4));
}

/* Cuts [z-, z+] = [lower->depth, upper->depth] at the cell walls along the axis (eq. 22-24,
 * see the top of the file). */
static void
add_cells (AxisAccum *acc, uint32_t body_a, uint32_t body_b, const double centre[3],
           const LdiFragment *lower, const LdiFragment *upper, const double direction[3])
{
  const Ldi *ldi = acc->ldi;
  double s = acc->params->cell_size, a = ldi->pixel_size * ldi->pixel_size;
  double z0 = lower->depth, z1 = upper->depth, length = z1 - z0;
  if (!(length > 0))
    return;
  uint32_t axis = acc->axis;
  int32_t cell[3];
  for (int c = 0; c < 3; c++)
    cell[c] = cell_index (centre[c], ldi->box_min[c], s, FALSE);
  double origin = ldi->box_min[axis];
  int32_t k0 = cell_index (z0, origin, s, FALSE), k1 = cell_index (z1, origin, s, TRUE) - 1;
  for (int32_t k = k0; k <= MAX (k0, k1); k++)
    {
      double lo = MAX (z0, origin + k * s), hi = MIN (z1, origin + (k + 1) * s);
      if (!(hi > lo))
        continue;
      cell[axis] = k;
      uint32_t key[SPARSE_KEY_WORDS] = { body_a, body_b, (uint32_t) cell[0], (uint32_t) cell[1],
                                         (uint32_t) cell[2] };
      uint32_t index = sparse_map_index (&acc->cells, key);
      sparse_map_entry (&acc->cells, index)->value[axis] += a * (hi - lo);
      /* Allard 2010 eq. 24: alpha - beta = (hi - lo) / (z+ - z-) of the interval's gradient. */
      double share = (hi - lo) / length;
      add_fragment_gradient (acc, &acc->cell_gradients, index, upper, a * share, direction);
      add_fragment_gradient (acc, &acc->cell_gradients, index, lower, -a * share, direction);
    }
}

/* One intersection interval of bodies (a, b) along the ray of `pixel`, from fragment lower
 * (z-, in S-) to fragment upper (z+, in S+). */
static void
add_interval (AxisAccum *acc, uint32_t pixel, uint32_t body_a, uint32_t body_b,
              const LdiFragment *lower, const LdiFragment *upper)
{
  const Ldi *ldi = acc->ldi;
  double a = ldi->pixel_size * ldi->pixel_size;
  if (body_a > body_b)
    {
      uint32_t t = body_a;
      body_a = body_b;
      body_b = t;
    }
  uint32_t key[SPARSE_KEY_WORDS] = { body_a, body_b, 0, 0, 0 };
  uint32_t index = sparse_map_index (&acc->pairs, key);
  /* Allard 2010 eq. 11: V = a sum z+ - a sum z-. */
  sparse_map_entry (&acc->pairs, index)->value[acc->axis] += a * (upper->depth - lower->depth);
  /* Eq. 12: dV/dp_k = a sum_{S+} dz+/dp_k - a sum_{S-} dz-/dp_k, dz/dp_k = b_k (along the
   * interval's direction with LDI_GRADIENT_NORMAL). */
  double direction[3];
  interval_direction (acc, lower, upper, direction);
  add_fragment_gradient (acc, &acc->pair_gradients, index, upper, a, direction);
  add_fragment_gradient (acc, &acc->pair_gradients, index, lower, -a, direction);

  double start[3];
  ldi_pixel_point (ldi, acc->axis, pixel, lower->depth, start);
  if (acc->spans != NULL)
    {
      /* Zeroed padding too: results compare (and hash) bytewise. */
      CwbInspectSpan span;
      memset (&span, 0, sizeof span);
      span.body_a = body_a;
      span.body_b = body_b;
      span.axis = acc->axis;
      memcpy (span.start, start, sizeof span.start);
      span.length = upper->depth - lower->depth;
      span.pixel_size = ldi->pixel_size;
      g_array_append_val (acc->spans, span);
    }
  if (acc->params->cell_size > 0)
    add_cells (acc, body_a, body_b, start, lower, upper, direction);
}

static RayBody *
ray_body (GArray *ray, uint32_t body)
{
  for (guint k = 0; k < ray->len; k++)
    if (g_array_index (ray, RayBody, k).body == body)
      return &g_array_index (ray, RayBody, k);
  RayBody b = { body, 0, 0, 0 };
  g_array_append_val (ray, b);
  return &g_array_index (ray, RayBody, ray->len - 1);
}

static void
walk_pixel (AxisAccum *acc, uint32_t pixel)
{
  const LdiImage *image = &acc->ldi->images[acc->axis];
  uint32_t n;
  const LdiFragment *f = ldi_image_pixel (image, pixel, &n);
  if (n < 2)
    return;
  g_array_set_size (acc->ray, 0);
  for (uint32_t i = 0; i < n; i++)
    {
      uint32_t body = acc->surfaces[f[i].surface].body;
      RayBody *x = ray_body (acc->ray, body);
      int before = x->count;
      x->count += f[i].facing == LDI_FRONT ? 1 : -1;
      if (before < 1 && x->count >= 1)
        x->enter = i;
      else if (before >= 1 && x->count < 1)
        {
          /* x leaves: every body y still inside closes the interval that opened when the
           * later of the two entered. */
          for (guint k = 0; k < acc->ray->len; k++)
            {
              const RayBody *y = &g_array_index (acc->ray, RayBody, k);
              if (y->body != body && y->count >= 1)
                add_interval (acc, pixel, body, y->body, &f[MAX (x->enter, y->enter)], &f[i]);
            }
        }
      /* Self-intersection: the counter at 2 or more (sec. 3.2: interval parity). */
      if (before < 2 && x->count >= 2)
        x->self_enter = i;
      else if (before >= 2 && x->count < 2)
        add_interval (acc, pixel, body, body, &f[x->self_enter], &f[i]);
    }
}

static void
walk_image (guint axis, gpointer data)
{
  AxisAccum *acc = &((AxisAccum *) data)[axis];
  const LdiImage *image = &acc->ldi->images[axis];
  g_return_if_fail (image->sorted);
  uint32_t n_pixels = image->width * image->height;
  for (uint32_t p = 0; p < n_pixels; p++)
    walk_pixel (acc, p);
}

/* ---- Merging the three images into the result ----------------------------------------- */

static int
key_compare (const uint32_t *a, const uint32_t *b, int words, gboolean signed_tail)
{
  for (int k = 0; k < words; k++)
    if (a[k] != b[k])
      {
        if (signed_tail && k >= 2)
          return (int32_t) a[k] < (int32_t) b[k] ? -1 : 1;
        return a[k] < b[k] ? -1 : 1;
      }
  return 0;
}

static int
volume_entry_compare (const void *pa, const void *pb)
{
  return key_compare (((const SparseEntry *) pa)->key, ((const SparseEntry *) pb)->key,
                      SPARSE_KEY_WORDS, TRUE);
}

static int
gradient_entry_compare (const void *pa, const void *pb)
{
  return key_compare (((const SparseEntry *) pa)->key, ((const SparseEntry *) pb)->key, 3,
                      FALSE);
}

/* The volume a normal gradient (LDI_GRADIENT_NORMAL) is the derivative of. Sec. 3.2 takes
 * the mean of the three images' volumes V_c; with the normal gradient image c adds
 * a b_k u u_c per bound, so over the images the gradient weighs each image's intervals by
 * u_c^2, not by 1/3. The consistent volume weighs V_c by the share w_c of the repulsion
 * direction R = sum_b dV/dp - sum_a dV/dp (the frame's normal, sec. 4.2) that image c gave:
 * w_c = R_c . R / |R|^2, sum w_c = 1. For a planar layer with normal u, V_c = V in every
 * image that resolves it and w_c = u_c^2: V again. For a layer thinner than a pixel the
 * images along it see a row of pixel centres or none (V_c jumps between 0 and a pixel's
 * thickness times the patch's width: for 1 m boxes under 3.1 cm pixels the mean depth moved
 * by a centimetre), and their intervals, bounded by the two bodies' side faces, give no net
 * R_c: w_c = 0, and V is the image that sees the layer face on. Images whose share is
 * negative (round-off, or a gradient pointing against the repulsion) count for none; a
 * volume without a repulsion direction (a self-intersection, bounds of one body only) keeps
 * the mean. */
static double
weighted_volume (const double axis_volume[3], const double repulsion[3][3])
{
  double r[3] = { 0, 0, 0 }, w[3], sum = 0;
  for (int c = 0; c < 3; c++)
    cwb_v3_add (r, r, repulsion[c]);
  double rr = cwb_v3_dot (r, r);
  for (int c = 0; c < 3; c++)
    {
      w[c] = rr > 0 ? MAX (0.0, cwb_v3_dot (repulsion[c], r) / rr) : 0;
      sum += w[c];
    }
  if (!(sum > 0))
    return (axis_volume[0] + axis_volume[1] + axis_volume[2]) / 3;
  return (w[0] * axis_volume[0] + w[1] * axis_volume[1] + w[2] * axis_volume[2]) / sum;
}

/* The body of each geometry index among the surfaces (G_MAXUINT32: none). */
static uint32_t *
geometry_bodies (const LdiSurface *surfaces, size_t n_surfaces, uint32_t *n_geometries)
{
  uint32_t n = 0;
  for (size_t s = 0; s < n_surfaces; s++)
    n = MAX (n, surfaces[s].geometry + 1);
  uint32_t *body = g_new (uint32_t, MAX (n, 1));
  for (uint32_t g = 0; g < n; g++)
    body[g] = G_MAXUINT32;
  for (size_t s = 0; s < n_surfaces; s++)
    body[surfaces[s].geometry] = surfaces[s].body;
  *n_geometries = n;
  return body;
}

/* Merges the images' volume maps (key -> component [axis]) and gradient maps into `volumes`
 * (LdiVolume) and `gradients` (CwbPointWeight). geometry_body (geometry_bodies, n_geometries
 * of them) is given when the gradients are weighted (LDI_GRADIENT_NORMAL), NULL otherwise. */
static void
merge_volumes (AxisAccum acc[3], gboolean cells, const uint32_t *geometry_body,
               uint32_t n_geometries, GArray *volumes, GArray *gradients)
{
  gboolean weighted = geometry_body != NULL;
  SparseMap all;
  sparse_map_init (&all);
  for (int axis = 0; axis < 3; axis++)
    {
      SparseMap *m = cells ? &acc[axis].cells : &acc[axis].pairs;
      for (uint32_t e = 0; e < sparse_map_size (m); e++)
        {
          const SparseEntry *src = sparse_map_entry (m, e);
          sparse_map_entry (&all, sparse_map_index (&all, src->key))->value[axis]
            = src->value[axis];
        }
    }
  /* Sorted volumes, and the rank of each merged key. */
  GArray *sorted = g_array_copy (all.entries);
  g_array_sort (sorted, volume_entry_compare);
  g_autofree uint32_t *rank = g_new (uint32_t, MAX (sorted->len, 1));
  for (uint32_t r = 0; r < sorted->len; r++)
    rank[sparse_map_find (&all, g_array_index (sorted, SparseEntry, r).key)] = r;

  /* Gradients keyed by the rank of their volume: sorting them groups them by volume. Each
   * image's repulsion direction per volume, for weighted_volume. */
  SparseMap grads;
  sparse_map_init (&grads);
  typedef double Repulsion[3][3];   /* [image][component] */
  g_autofree Repulsion *repulsion = weighted ? g_malloc0_n (MAX (sorted->len, 1),
                                                            sizeof (Repulsion))
                                             : NULL;
  for (int axis = 0; axis < 3; axis++)
    {
      SparseMap *vm = cells ? &acc[axis].cells : &acc[axis].pairs;
      SparseMap *gm = cells ? &acc[axis].cell_gradients : &acc[axis].pair_gradients;
      for (uint32_t e = 0; e < sparse_map_size (gm); e++)
        {
          const SparseEntry *src = sparse_map_entry (gm, e);
          uint32_t volume = rank[sparse_map_find (&all, sparse_map_entry (vm, src->key[0])->key)];
          uint32_t key[SPARSE_KEY_WORDS] = { volume, src->key[1], src->key[2], 0, 0 };
          double *value = sparse_map_entry (&grads, sparse_map_index (&grads, key))->value;
          for (int c = 0; c < 3; c++)
            value[c] += src->value[c];
          if (weighted && src->key[1] < n_geometries)
            {
              const SparseEntry *ve = &g_array_index (sorted, SparseEntry, volume);
              uint32_t body = geometry_body[src->key[1]];
              /* sum_b dV/dp - sum_a dV/dp; a self-intersection's bounds cancel. */
              double sign = body == ve->key[1] ? 1 : body == ve->key[0] ? -1 : 0;
              if (ve->key[0] == ve->key[1])
                sign = 0;
              for (int c = 0; c < 3; c++)
                repulsion[volume][axis][c] += sign * src->value[c];
            }
        }
    }
  GArray *sorted_grads = g_array_copy (grads.entries);
  g_array_sort (sorted_grads, gradient_entry_compare);

  uint32_t g = 0;
  for (uint32_t r = 0; r < sorted->len; r++)
    {
      const SparseEntry *e = &g_array_index (sorted, SparseEntry, r);
      LdiVolume v;
      memset (&v, 0, sizeof v);
      v.body_a = e->key[0];
      v.body_b = e->key[1];
      for (int c = 0; c < 3; c++)
        {
          v.cell[c] = (int32_t) e->key[2 + c];
          v.axis_volume[c] = e->value[c];
        }
      v.volume = weighted ? weighted_volume (v.axis_volume, repulsion[r])
                          : (e->value[0] + e->value[1] + e->value[2]) / 3;
      v.first_gradient = gradients->len;
      for (; g < sorted_grads->len && g_array_index (sorted_grads, SparseEntry, g).key[0] == r; g++)
        {
          const SparseEntry *ge = &g_array_index (sorted_grads, SparseEntry, g);
          CwbPointWeight w = { ge->key[1], ge->key[2], { ge->value[0], ge->value[1], ge->value[2] } };
          g_array_append_val (gradients, w);
        }
      v.n_gradients = gradients->len - v.first_gradient;
      g_array_append_val (volumes, v);
    }
  g_array_unref (sorted_grads);
  g_array_unref (sorted);
  sparse_map_clear (&grads);
  sparse_map_clear (&all);
}

LdiVolumeResult *
ldi_intersection_volume (const Ldi *ldi, const LdiSurface *surfaces, size_t n_surfaces,
                         const LdiVolumeParams *params)
{
  g_return_val_if_fail (ldi != NULL && params != NULL, NULL);
  g_return_val_if_fail (n_surfaces == ldi->n_surfaces, NULL);
  LdiVolumeResult *result = g_new0 (LdiVolumeResult, 1);
  result->pairs = g_array_new (FALSE, FALSE, sizeof (LdiVolume));
  result->pair_gradients = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  result->cells = g_array_new (FALSE, FALSE, sizeof (LdiVolume));
  result->cell_gradients = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));

  AxisAccum acc[3];
  for (uint32_t axis = 0; axis < 3; axis++)
    {
      acc[axis] = (AxisAccum) { .ldi = ldi, .surfaces = surfaces, .params = params, .axis = axis };
      sparse_map_init (&acc[axis].pairs);
      sparse_map_init (&acc[axis].pair_gradients);
      sparse_map_init (&acc[axis].cells);
      sparse_map_init (&acc[axis].cell_gradients);
      acc[axis].spans = params->want_spans ? g_array_new (FALSE, FALSE, sizeof (CwbInspectSpan))
                                           : NULL;
      acc[axis].ray = g_array_new (FALSE, FALSE, sizeof (RayBody));
      for (guint k = 0; k < TRIANGLE_CACHE_SIZE; k++)
        {
          acc[axis].normals[k].surface = G_MAXUINT32;
          acc[axis].gradient_entries[k].map = NULL;
        }
    }
  ldi_parallel_for (3, params->n_threads, walk_image, acc);

  uint32_t n_geometries = 0;
  g_autofree uint32_t *geometry_body
    = params->gradient == LDI_GRADIENT_NORMAL
        ? geometry_bodies (surfaces, ldi->n_surfaces, &n_geometries) : NULL;
  merge_volumes (acc, FALSE, geometry_body, n_geometries, result->pairs,
                 result->pair_gradients);
  if (params->cell_size > 0)
    merge_volumes (acc, TRUE, geometry_body, n_geometries, result->cells,
                   result->cell_gradients);
  if (params->want_spans)
    {
      result->spans = g_array_new (FALSE, FALSE, sizeof (CwbInspectSpan));
      for (int axis = 0; axis < 3; axis++)
        g_array_append_vals (result->spans, acc[axis].spans->data, acc[axis].spans->len);
    }
  for (int axis = 0; axis < 3; axis++)
    {
      sparse_map_clear (&acc[axis].pairs);
      sparse_map_clear (&acc[axis].pair_gradients);
      sparse_map_clear (&acc[axis].cells);
      sparse_map_clear (&acc[axis].cell_gradients);
      if (acc[axis].spans != NULL)
        g_array_unref (acc[axis].spans);
      g_array_unref (acc[axis].ray);
    }
  return result;
}

void
ldi_volume_result_free (LdiVolumeResult *result)
{
  if (result == NULL)
    return;
  g_array_unref (result->pairs);
  g_array_unref (result->pair_gradients);
  g_array_unref (result->cells);
  g_array_unref (result->cell_gradients);
  if (result->spans != NULL)
    g_array_unref (result->spans);
  g_free (result);
}

const LdiVolume *
ldi_volume_result_pair (const LdiVolumeResult *result, uint32_t body_a, uint32_t body_b)
{
  uint32_t a = MIN (body_a, body_b), b = MAX (body_a, body_b);
  for (guint k = 0; k < result->pairs->len; k++)
    {
      const LdiVolume *v = &g_array_index (result->pairs, LdiVolume, k);
      if (v->body_a == a && v->body_b == b)
        return v;
    }
  return NULL;
}

void
ldi_cell_bounds (const Ldi *ldi, double cell_size, const int32_t cell[3], double min[3],
                 double max[3])
{
  for (int c = 0; c < 3; c++)
    {
      min[c] = ldi->box_min[c] + cell[c] * cell_size;
      max[c] = ldi->box_min[c] + (cell[c] + 1) * cell_size;
    }
}

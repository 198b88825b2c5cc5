/* Bounding-box overlaps, one LDI region per pair (contact_regions.h).
 *
 * The pairs come from a sweep and prune along x: bodies sorted by their box's lower x, each
 * compared with the following ones until their lower x passes its upper x. That is
 * n log n plus the pairs whose x ranges overlap, instead of n^2 / 2 box tests (a pyramid of
 * 820 boxes: 336 000 tests). The pairs are then sorted by (body_a, body_b), so that the
 * regions, hence the frames, come in an order that does not depend on the positions. */
#include <math.h>
#include <string.h>

#include "contact_regions.h"

void
contact_regions_init (ContactRegions *regions)
{
  regions->regions = g_array_new (FALSE, FALSE, sizeof (ContactRegion));
  regions->geometries = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  regions->body_boxes = g_array_new (FALSE, FALSE, 6 * sizeof (double));
  regions->order = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  regions->body_geometries = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  regions->body_first = g_array_new (FALSE, FALSE, sizeof (uint32_t));
}

void
contact_regions_clear (ContactRegions *regions)
{
  g_clear_pointer (&regions->regions, g_array_unref);
  g_clear_pointer (&regions->geometries, g_array_unref);
  g_clear_pointer (&regions->body_boxes, g_array_unref);
  g_clear_pointer (&regions->order, g_array_unref);
  g_clear_pointer (&regions->body_geometries, g_array_unref);
  g_clear_pointer (&regions->body_first, g_array_unref);
}

static gboolean
is_surface_of_world (const CwbGeometry *geometry, size_t n_bodies)
{
  return geometry->kind == CWB_GEOMETRY_SURFACE && geometry->body < n_bodies;
}

/* Each body's bounding box, and its surface geometries grouped by body (CSR, in increasing
 * geometry order within each body). */
static void
body_boxes (ContactRegions *regions, const CwbGeometry *geometries, size_t n_geometries,
            size_t n_bodies)
{
  g_array_set_size (regions->body_boxes, n_bodies);
  double *boxes = (double *) regions->body_boxes->data;
  for (size_t b = 0; b < n_bodies; b++)
    for (int k = 0; k < 3; k++)
      {
        boxes[6 * b + k] = INFINITY;
        boxes[6 * b + 3 + k] = -INFINITY;
      }
  g_array_set_size (regions->body_first, n_bodies + 1);
  uint32_t *first = (uint32_t *) regions->body_first->data;
  memset (first, 0, (n_bodies + 1) * sizeof (uint32_t));
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      if (!is_surface_of_world (geometry, n_bodies))
        continue;
      first[geometry->body + 1]++;
      double *box = boxes + 6 * geometry->body;
      for (size_t i = 0; i < geometry->n_points; i++)
        for (int k = 0; k < 3; k++)
          {
            double x = geometry->positions[3 * i + k];
            box[k] = fmin (box[k], x);
            box[3 + k] = fmax (box[3 + k], x);
          }
    }
  for (size_t b = 0; b < n_bodies; b++)
    first[b + 1] += first[b];
  g_array_set_size (regions->body_geometries, first[n_bodies]);
  uint32_t *list = (uint32_t *) regions->body_geometries->data;
  g_autofree uint32_t *cursor = g_memdup2 (first, (n_bodies + 1) * sizeof (uint32_t));
  for (size_t g = 0; g < n_geometries; g++)
    if (is_surface_of_world (&geometries[g], n_bodies))
      list[cursor[geometries[g].body]++] = (uint32_t) g;
}

static gboolean
boxes_overlap (const double a_min[3], const double a_max[3], const double b_min[3],
               const double b_max[3])
{
  for (int k = 0; k < 3; k++)
    if (!(fmin (a_max[k], b_max[k]) > fmax (a_min[k], b_min[k])))
      return FALSE;
  return TRUE;
}

/* Whether body a's box starts before body b's along x (ties by index: a total order). */
static gboolean
starts_before (const double *boxes, uint32_t a, uint32_t b)
{
  double xa = boxes[6 * (size_t) a], xb = boxes[6 * (size_t) b];
  return xa < xb || (xa == xb && a < b);
}

static int
region_compare (const void *pa, const void *pb)
{
  const ContactRegion *a = pa, *b = pb;
  if (a->body_a != b->body_a)
    return a->body_a < b->body_a ? -1 : 1;
  return a->body_b < b->body_b ? -1 : a->body_b > b->body_b;
}

/* Sorts the bodies with a box by lower x: an insertion sort from the order of the last
 * call, which the bodies mostly keep from one detection to the next, so it runs in about n. */
static void
sort_by_lower_x (GArray *order, const double *boxes, size_t n_bodies)
{
  /* Keep the last order's bodies that still have a box, then add the others. */
  g_autofree gboolean *listed = g_new0 (gboolean, MAX (n_bodies, 1));
  guint kept = 0;
  uint32_t *o = (uint32_t *) order->data;
  for (guint i = 0; i < order->len; i++)
    if (o[i] < n_bodies && boxes[6 * (size_t) o[i]] <= boxes[6 * (size_t) o[i] + 3])
      {
        listed[o[i]] = TRUE;
        o[kept++] = o[i];
      }
  g_array_set_size (order, kept);
  for (uint32_t b = 0; b < n_bodies; b++)
    if (!listed[b] && boxes[6 * (size_t) b] <= boxes[6 * (size_t) b + 3])
      g_array_append_val (order, b);
  o = (uint32_t *) order->data;
  for (guint i = 1; i < order->len; i++)
    {
      uint32_t x = o[i];
      guint j = i;
      while (j > 0 && starts_before (boxes, x, o[j - 1]))
        {
          o[j] = o[j - 1];
          j--;
        }
      o[j] = x;
    }
}

void
contact_regions_find (ContactRegions *regions, const CwbGeometry *geometries,
                      size_t n_geometries, size_t n_bodies, const gboolean *body_fixed)
{
  g_array_set_size (regions->regions, 0);
  g_array_set_size (regions->geometries, 0);
  body_boxes (regions, geometries, n_geometries, n_bodies);
  const double *boxes = (const double *) regions->body_boxes->data;
  sort_by_lower_x (regions->order, boxes, n_bodies);
  const uint32_t *order = (const uint32_t *) regions->order->data;

  for (guint i = 0; i < regions->order->len; i++)
    for (guint j = i + 1; j < regions->order->len; j++)
      {
        uint32_t a = MIN (order[i], order[j]), b = MAX (order[i], order[j]);
        const double *box_a = boxes + 6 * a, *box_b = boxes + 6 * b;
        if (!(boxes[6 * order[j]] < boxes[6 * order[i] + 3]))
          break;   /* this body and all after it start past order[i]'s upper x */
        if (body_fixed != NULL && body_fixed[a] && body_fixed[b])
          continue;
        if (!boxes_overlap (box_a, box_a + 3, box_b, box_b + 3))
          continue;
        ContactRegion region = { .body_a = a, .body_b = b };
        for (int k = 0; k < 3; k++)
          {
            region.overlap_min[k] = fmax (box_a[k], box_b[k]);
            region.overlap_max[k] = fmin (box_a[3 + k], box_b[3 + k]);
          }
        g_array_append_val (regions->regions, region);
      }
  g_array_sort (regions->regions, region_compare);

  /* Each region's geometries: a's and b's, merged in increasing geometry order. */
  const uint32_t *first = (const uint32_t *) regions->body_first->data;
  const uint32_t *list = (const uint32_t *) regions->body_geometries->data;
  for (guint r = 0; r < regions->regions->len; r++)
    {
      ContactRegion *region = &g_array_index (regions->regions, ContactRegion, r);
      region->first_geometry = regions->geometries->len;
      uint32_t i = first[region->body_a], i_end = first[region->body_a + 1];
      uint32_t j = first[region->body_b], j_end = first[region->body_b + 1];
      while (i < i_end || j < j_end)
        {
          gboolean take_a = j == j_end || (i < i_end && list[i] < list[j]);
          uint32_t g = take_a ? list[i++] : list[j++];
          g_array_append_val (regions->geometries, g);
        }
      region->n_geometries = regions->geometries->len - region->first_geometry;
    }
}

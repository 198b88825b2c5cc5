/* Bounding-box overlaps grouped into LDI regions (contact_regions.h).
 *
 * Every pair of bodies is tested (n^2 / 2 box tests: a few microseconds for the tens of
 * bodies of the paper's scenes; a sweep and prune would pay beyond some hundreds). Pairs whose
 * overlap boxes intersect are merged with a union-find, and a region is the union box of a
 * group. A region's LDI holds the surfaces of all its bodies, so it may also see a pair whose
 * overlap belongs to another region (b and c both in the region through other pairs): the
 * volumes are taken from the region that owns the pair only (contact_regions_owner). */
#include <math.h>

#include "contact_regions.h"

typedef struct OverlapPair {
  uint32_t body_a, body_b;   /* body_a < body_b */
  uint32_t parent;           /* union-find over pairs */
  uint32_t region;
  double min[3], max[3];
} OverlapPair;

void
contact_regions_init (ContactRegions *regions)
{
  regions->regions = g_array_new (FALSE, FALSE, sizeof (ContactRegion));
  regions->geometries = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  regions->body_boxes = g_array_new (FALSE, FALSE, 6 * sizeof (double));
  regions->pairs = g_array_new (FALSE, FALSE, sizeof (OverlapPair));
}

void
contact_regions_clear (ContactRegions *regions)
{
  g_clear_pointer (&regions->regions, g_array_unref);
  g_clear_pointer (&regions->geometries, g_array_unref);
  g_clear_pointer (&regions->body_boxes, g_array_unref);
  g_clear_pointer (&regions->pairs, g_array_unref);
}

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
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      if (geometry->kind != CWB_GEOMETRY_SURFACE || geometry->body >= n_bodies)
        continue;
      double *box = boxes + 6 * geometry->body;
      for (size_t i = 0; i < geometry->n_points; i++)
        for (int k = 0; k < 3; k++)
          {
            double x = geometry->positions[3 * i + k];
            box[k] = fmin (box[k], x);
            box[3 + k] = fmax (box[3 + k], x);
          }
    }
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

static uint32_t
find_root (OverlapPair *pairs, uint32_t i)
{
  while (pairs[i].parent != i)
    {
      pairs[i].parent = pairs[pairs[i].parent].parent;   /* path halving */
      i = pairs[i].parent;
    }
  return i;
}

void
contact_regions_find (ContactRegions *regions, const CwbGeometry *geometries,
                      size_t n_geometries, size_t n_bodies, const gboolean *body_fixed,
                      double snap)
{
  g_array_set_size (regions->regions, 0);
  g_array_set_size (regions->geometries, 0);
  g_array_set_size (regions->pairs, 0);
  body_boxes (regions, geometries, n_geometries, n_bodies);
  const double *boxes = (const double *) regions->body_boxes->data;

  for (uint32_t a = 0; a < n_bodies; a++)
    for (uint32_t b = a + 1; b < n_bodies; b++)
      {
        if (body_fixed != NULL && body_fixed[a] && body_fixed[b])
          continue;
        const double *box_a = boxes + 6 * a, *box_b = boxes + 6 * b;
        if (!boxes_overlap (box_a, box_a + 3, box_b, box_b + 3))
          continue;
        OverlapPair pair = { .body_a = a, .body_b = b, .parent = regions->pairs->len };
        for (int k = 0; k < 3; k++)
          {
            pair.min[k] = fmax (box_a[k], box_b[k]);
            pair.max[k] = fmin (box_a[3 + k], box_b[3 + k]);
          }
        g_array_append_val (regions->pairs, pair);
      }

  OverlapPair *pairs = (OverlapPair *) regions->pairs->data;
  uint32_t n_pairs = regions->pairs->len;
  for (uint32_t i = 0; i < n_pairs; i++)
    for (uint32_t j = i + 1; j < n_pairs; j++)
      if (boxes_overlap (pairs[i].min, pairs[i].max, pairs[j].min, pairs[j].max))
        {
          uint32_t ri = find_root (pairs, i), rj = find_root (pairs, j);
          if (ri != rj)
            pairs[MAX (ri, rj)].parent = MIN (ri, rj);
        }

  /* One region per root, in the order of the roots (the first pair of each group), so the
   * regions come in the same order for the same configuration. */
  g_autofree uint32_t *region_of_root = g_new (uint32_t, MAX (n_pairs, 1));
  for (uint32_t i = 0; i < n_pairs; i++)
    {
      uint32_t root = find_root (pairs, i);
      if (root == i)
        {
          region_of_root[i] = regions->regions->len;
          ContactRegion region = { .n_pairs = 0 };
          for (int k = 0; k < 3; k++)
            {
              region.box_min[k] = INFINITY;
              region.box_max[k] = -INFINITY;
            }
          g_array_append_val (regions->regions, region);
        }
      pairs[i].region = region_of_root[root];
      ContactRegion *region = &g_array_index (regions->regions, ContactRegion, pairs[i].region);
      region->n_pairs++;
      for (int k = 0; k < 3; k++)
        {
          region->box_min[k] = fmin (region->box_min[k], pairs[i].min[k]);
          region->box_max[k] = fmax (region->box_max[k], pairs[i].max[k]);
        }
    }

  /* Each region's geometries: the surfaces of the bodies of its pairs. */
  g_autofree gboolean *in_region = g_new (gboolean, MAX (n_bodies, 1));
  for (uint32_t r = 0; r < regions->regions->len; r++)
    {
      ContactRegion *region = &g_array_index (regions->regions, ContactRegion, r);
      for (int k = 0; k < 3; k++)
        if (snap > 0)
          region->box_min[k] = floor (region->box_min[k] / snap) * snap;
      memset (in_region, 0, MAX (n_bodies, 1) * sizeof (gboolean));
      for (uint32_t i = 0; i < n_pairs; i++)
        if (pairs[i].region == r)
          in_region[pairs[i].body_a] = in_region[pairs[i].body_b] = TRUE;
      region->first_geometry = regions->geometries->len;
      for (uint32_t g = 0; g < n_geometries; g++)
        if (geometries[g].kind == CWB_GEOMETRY_SURFACE && geometries[g].body < n_bodies
            && in_region[geometries[g].body])
          g_array_append_val (regions->geometries, g);
      region->n_geometries = regions->geometries->len - region->first_geometry;
    }
}

uint32_t
contact_regions_owner (const ContactRegions *regions, uint32_t body_a, uint32_t body_b)
{
  uint32_t a = MIN (body_a, body_b), b = MAX (body_a, body_b);
  const OverlapPair *pairs = (const OverlapPair *) regions->pairs->data;
  /* The pairs were appended in (a, b) order: a binary search. */
  uint32_t lo = 0, hi = regions->pairs->len;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (pairs[mid].body_a < a || (pairs[mid].body_a == a && pairs[mid].body_b < b))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < regions->pairs->len && pairs[lo].body_a == a && pairs[lo].body_b == b)
    return pairs[lo].region;
  return G_MAXUINT32;
}

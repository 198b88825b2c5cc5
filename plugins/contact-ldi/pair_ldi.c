/* One body pair's LDI, kept across detections (pair_ldi.h).
 *
 * Culling. An intersection of bodies a and b lies inside their overlap O, which the box B
 * holds with a margin. The image along axis c (in-plane axes u, v) walks each ray upwards,
 * counting which bodies it is inside (intersection_volume.c): a triangle matters to image c
 * when its projection reaches the image's footprint (it overlaps B along u and v) and it is
 * not wholly above B along c. Above B, a crossing can neither open nor close an interval of
 * the pair, which ends inside O, below B's top; below B it still counts (whether the ray
 * enters B inside a or b), so it is kept. A triangle is kept when some image needs it: it
 * overlaps B on every axis, or on every axis but one, along which it lies wholly below B.
 * Dropping the others leaves every ray of every image with the crossings that decide the
 * pair's intervals, so the pair's volume and gradient are the same sums as without culling,
 * term for term (fragments are sorted by depth, then facing, surface and triangle: culling
 * keeps the kept triangles' order). The test box is B grown by a pixel on every side: the
 * images' last row and column of pixel centres may lie up to half a pixel past box_max, and
 * a triangle within rounding of a centre must be kept. */
#include <math.h>
#include <string.h>

#include "pair_ldi.h"

/* The margin around a pair's overlap, in pixels: the culling keeps triangles by comparing
 * their vertices with the box, and a margin keeps every triangle that bounds the pair's
 * intersection clear of that comparison's rounding (pair_ldi.c, top). Two pixels cost a
 * ring of two pixels around the contact's footprint in each image. */
#define PAIR_LDI_MARGIN_PIXELS 2.0

void
pair_ldi_init (PairLdi *pair, uint32_t body_a, uint32_t body_b)
{
  memset (pair, 0, sizeof *pair);
  pair->body_a = body_a;
  pair->body_b = body_b;
  pair->surfaces = g_array_new (FALSE, FALSE, sizeof (LdiSurface));
  pair->triangles = g_array_new (FALSE, FALSE, sizeof (uint32_t));
}

void
pair_ldi_clear (PairLdi *pair)
{
  g_clear_pointer (&pair->ldi, ldi_free);
  g_clear_pointer (&pair->spare, ldi_free);
  g_clear_pointer (&pair->result, ldi_volume_result_free);
  g_clear_pointer (&pair->surfaces, g_array_unref);
  g_clear_pointer (&pair->triangles, g_array_unref);
}

static void
fresh_box (const double overlap_min[3], const double overlap_max[3], double h, double grid,
           double box_min[3], double box_max[3])
{
  double margin = PAIR_LDI_MARGIN_PIXELS * h;
  for (int k = 0; k < 3; k++)
    {
      box_min[k] = floor ((overlap_min[k] - margin) / grid) * grid;
      box_max[k] = overlap_max[k] + margin;
    }
}

void
pair_ldi_place (PairLdi *pair, const double overlap_min[3], const double overlap_max[3],
                double h, double grid)
{
  double box_min[3], box_max[3];
  fresh_box (overlap_min, overlap_max, h, grid, box_min, box_max);
  if (pair->ldi != NULL && pair->pixel_size == h && pair->grid == grid
      && memcmp (pair->box_min, box_min, sizeof box_min) == 0
      && memcmp (pair->box_max, box_max, sizeof box_max) == 0)
    return;
  pair->pixel_size = h;
  pair->grid = grid;
  memcpy (pair->box_min, box_min, sizeof box_min);
  memcpy (pair->box_max, box_max, sizeof box_max);
  if (pair->ldi != NULL)
    {
      ldi_free (pair->spare);
      pair->spare = g_steal_pointer (&pair->ldi);
    }
  g_clear_pointer (&pair->result, ldi_volume_result_free);
}

/* Whether triangle t of `geometry` can matter to an image of the box [lo, hi] (the top of
 * the file). */
static gboolean
triangle_kept (const CwbGeometry *geometry, size_t t, const double lo[3], const double hi[3])
{
  const uint32_t *tri = &geometry->triangles[3 * t];
  double t_min[3], t_max[3];
  for (int k = 0; k < 3; k++)
    {
      t_min[k] = t_max[k] = geometry->positions[3 * (size_t) tri[0] + k];
      for (int i = 1; i < 3; i++)
        {
          double x = geometry->positions[3 * (size_t) tri[i] + k];
          t_min[k] = fmin (t_min[k], x);
          t_max[k] = fmax (t_max[k], x);
        }
    }
  int apart = 0;
  gboolean below = FALSE;
  for (int k = 0; k < 3; k++)
    if (t_max[k] < lo[k] || t_min[k] > hi[k])
      {
        apart++;
        below = t_max[k] < lo[k];
      }
  /* A non-finite vertex fails every comparison: kept, and the rasteriser skips it. */
  return apart == 0 || (apart == 1 && below);
}

void
pair_ldi_cull (PairLdi *pair, const CwbGeometry *geometries, const uint32_t *geometry_list,
               uint32_t n)
{
  double lo[3], hi[3];
  for (int k = 0; k < 3; k++)
    {
      lo[k] = pair->box_min[k] - pair->pixel_size;
      hi[k] = pair->box_max[k] + pair->pixel_size;
    }
  g_array_set_size (pair->surfaces, n);
  g_array_set_size (pair->triangles, 0);
  g_autofree size_t *first = g_new (size_t, n + 1);
  for (uint32_t i = 0; i < n; i++)
    {
      const CwbGeometry *geometry = &geometries[geometry_list[i]];
      first[i] = pair->triangles->len;
      for (size_t t = 0; t < geometry->n_triangles; t++)
        if (triangle_kept (geometry, t, lo, hi))
          g_array_append_vals (pair->triangles, &geometry->triangles[3 * t], 3);
    }
  first[n] = pair->triangles->len;
  const uint32_t *triangles = (const uint32_t *) (void *) pair->triangles->data;
  for (uint32_t i = 0; i < n; i++)
    {
      LdiSurface *surface = &g_array_index (pair->surfaces, LdiSurface, i);
      *surface = ldi_surface_of_geometry (geometries, geometry_list[i]);
      surface->triangles = triangles + first[i];
      surface->n_triangles = (first[i + 1] - first[i]) / 3;
      surface->checked = TRUE;   /* at attach: a subset of a closed surface's triangles,
                                  * which covers every ray the LDI walks as the whole surface
                                  * does */
    }
}

size_t
pair_ldi_triangles (const PairLdi *pair)
{
  return pair->triangles->len / 3;
}

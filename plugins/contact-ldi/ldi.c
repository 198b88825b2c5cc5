/* The LDI data structure: the pixel grids of the three axes and the fill-then-sort step that
 * every backend ends with (ldi.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldi.h"

CWB_DEFINE_ERROR_QUARK (ldi-error-quark, ldi_error)

/* Pixels per sorting task: large enough that a task outweighs its scheduling, small enough
 * that the busy pixels of an intersection spread over several tasks. */
#define SORT_CHUNK_PIXELS 4096u

/* The pixel counts along x, y and z of an LDI over [box_min, box_max] with pixels of side
 * pixel_size; FALSE with LDI_ERROR_INPUT or LDI_ERROR_TOO_LARGE when there is none. */
static gboolean
ldi_layout (const double box_min[3], const double box_max[3], double pixel_size,
            uint32_t cells[3], GError **error)
{
  if (!(pixel_size > 0) || !isfinite (pixel_size))
    {
      g_set_error (error, LDI_ERROR, LDI_ERROR_INPUT, "LDI pixel size %g is not positive",
                   pixel_size);
      return FALSE;
    }
  for (int k = 0; k < 3; k++)
    {
      double extent = box_max[k] - box_min[k];
      if (!(extent > 0) || !isfinite (extent))
        {
          g_set_error (error, LDI_ERROR, LDI_ERROR_INPUT,
                       "LDI region is empty along axis %c: [%g, %g]", "xyz"[k], box_min[k],
                       box_max[k]);
          return FALSE;
        }
      double n = ceil (extent / pixel_size);
      if (n > LDI_MAX_PIXELS)
        {
          g_set_error (error, LDI_ERROR, LDI_ERROR_TOO_LARGE,
                       "LDI region %g along %c holds %.0f pixels of %g", extent, "xyz"[k], n,
                       pixel_size);
          return FALSE;
        }
      cells[k] = (uint32_t) n;
    }
  for (int axis = 0; axis < 3; axis++)
    {
      uint64_t n = (uint64_t) cells[(axis + 1) % 3] * cells[(axis + 2) % 3];
      if (n > LDI_MAX_PIXELS)
        {
          g_set_error (error, LDI_ERROR, LDI_ERROR_TOO_LARGE,
                       "LDI image along %c would hold %" G_GUINT64_FORMAT
                       " pixels of %g (at most %u)", "xyz"[axis], n, pixel_size,
                       LDI_MAX_PIXELS);
          return FALSE;
        }
    }
  return TRUE;
}

/* Lays ldi out over the box as ldi_layout found, empty: offsets (re)allocated to the new
 * pixel counts and zeroed; the fragment arrays and the backend's lists are kept. */
static void
ldi_place (Ldi *ldi, const double box_min[3], const double box_max[3], double pixel_size,
           const uint32_t cells[3])
{
  memcpy (ldi->box_min, box_min, sizeof ldi->box_min);
  memcpy (ldi->box_max, box_max, sizeof ldi->box_max);
  ldi->pixel_size = pixel_size;
  ldi->n_surfaces = 0;
  for (uint32_t axis = 0; axis < 3; axis++)
    {
      LdiImage *image = &ldi->images[axis];
      image->axis = axis;
      image->u = (axis + 1) % 3;
      image->v = (axis + 2) % 3;
      size_t n_before = image->offsets != NULL ? (size_t) image->width * image->height + 1 : 0;
      image->width = cells[image->u];
      image->height = cells[image->v];
      size_t n = (size_t) image->width * image->height + 1;
      if (n != n_before)
        {
          g_free (image->offsets);
          image->offsets = g_new (uint32_t, n);
        }
      memset (image->offsets, 0, n * sizeof (uint32_t));
      image->n_fragments = 0;
      image->sorted = TRUE;
    }
}

Ldi *
ldi_new (const double box_min[3], const double box_max[3], double pixel_size, GError **error)
{
  uint32_t cells[3];
  if (!ldi_layout (box_min, box_max, pixel_size, cells, error))
    return NULL;
  Ldi *ldi = g_new0 (Ldi, 1);
  ldi_place (ldi, box_min, box_max, pixel_size, cells);
  return ldi;
}

gboolean
ldi_reset (Ldi *ldi, const double box_min[3], const double box_max[3], double pixel_size,
           GError **error)
{
  uint32_t cells[3];
  if (!ldi_layout (box_min, box_max, pixel_size, cells, error))
    return FALSE;
  ldi_place (ldi, box_min, box_max, pixel_size, cells);
  return TRUE;
}

void
ldi_free (Ldi *ldi)
{
  if (ldi == NULL)
    return;
  for (int axis = 0; axis < 3; axis++)
    {
      g_free (ldi->images[axis].offsets);
      g_free (ldi->images[axis].fragments);
    }
  if (ldi->scratch != NULL)
    g_ptr_array_unref (ldi->scratch);
  g_free (ldi);
}

void
ldi_pixel_point (const Ldi *ldi, uint32_t axis, uint32_t pixel, double depth, double p[3])
{
  const LdiImage *image = &ldi->images[axis];
  uint32_t i = pixel % image->width, j = pixel / image->width;
  p[image->u] = ldi->box_min[image->u] + (i + 0.5) * ldi->pixel_size;
  p[image->v] = ldi->box_min[image->v] + (j + 0.5) * ldi->pixel_size;
  p[axis] = depth;
}

/* Depth first; at equal depth an exit before an entry, so that surfaces that touch without
 * overlapping make no zero-length intersection interval; then surface and triangle, which
 * no two fragments of one pixel share: the order is total. */
static int
fragment_compare (const void *pa, const void *pb)
{
  const LdiFragment *a = pa, *b = pb;
  if (a->depth != b->depth)
    return a->depth < b->depth ? -1 : 1;
  if (a->facing != b->facing)
    return a->facing == LDI_BACK ? -1 : 1;
  if (a->surface != b->surface)
    return a->surface < b->surface ? -1 : 1;
  if (a->triangle != b->triangle)
    return a->triangle < b->triangle ? -1 : 1;
  return 0;
}

/* Pixels of at most this many fragments (a few surfaces crossing the ray: nearly all of
 * them) are sorted by insertion, in place: qsort's merge sort allocates and calls through a
 * pointer per comparison, several times the cost on lists of two to eight. The order is
 * total, so both sorts give the same lists. */
#define INSERTION_SORT_MAX 16u

static void
sort_chunk (guint item, gpointer data)
{
  LdiImage *image = data;
  uint32_t n_pixels = image->width * image->height;
  uint32_t first = item * SORT_CHUNK_PIXELS;
  uint32_t last = MIN (n_pixels, first + SORT_CHUNK_PIXELS);
  for (uint32_t p = first; p < last; p++)
    {
      uint32_t n = image->offsets[p + 1] - image->offsets[p];
      LdiFragment *f = image->fragments + image->offsets[p];
      if (n > INSERTION_SORT_MAX)
        qsort (f, n, sizeof (LdiFragment), fragment_compare);
      else
        for (uint32_t i = 1; i < n; i++)
          {
            LdiFragment x = f[i];
            uint32_t j = i;
            for (; j > 0 && fragment_compare (&f[j - 1], &x) > 0; j--)
              f[j] = f[j - 1];
            f[j] = x;
          }
    }
}

void
ldi_image_sort (LdiImage *image, guint n_threads)
{
  uint32_t n_pixels = image->width * image->height;
  guint n_chunks = (n_pixels + SORT_CHUNK_PIXELS - 1) / SORT_CHUNK_PIXELS;
  ldi_parallel_for (n_chunks, n_threads, sort_chunk, image);
  image->sorted = TRUE;
}

void
ldi_image_fill (LdiImage *image, GArray *const *lists, size_t n_lists, guint n_threads)
{
  uint32_t n_pixels = image->width * image->height;
  size_t total = 0;
  memset (image->offsets, 0, ((size_t) n_pixels + 1) * sizeof (uint32_t));
  for (size_t l = 0; l < n_lists; l++)
    {
      const LdiPixelFragment *f = (const LdiPixelFragment *) (void *) lists[l]->data;
      for (guint k = 0; k < lists[l]->len; k++)
        {
          g_return_if_fail (f[k].pixel < n_pixels);
          image->offsets[f[k].pixel + 1]++;
        }
      total += lists[l]->len;
    }
  g_return_if_fail (total <= G_MAXUINT32);
  for (uint32_t p = 0; p < n_pixels; p++)
    image->offsets[p + 1] += image->offsets[p];

  if (total > image->capacity || image->fragments == NULL)
    {
      g_free (image->fragments);
      image->capacity = MAX (total, 1);
      image->fragments = g_new (LdiFragment, image->capacity);
    }
  image->n_fragments = total;
  g_autofree uint32_t *cursor = g_memdup2 (image->offsets, (size_t) n_pixels * sizeof (uint32_t));
  for (size_t l = 0; l < n_lists; l++)
    {
      const LdiPixelFragment *f = (const LdiPixelFragment *) (void *) lists[l]->data;
      for (guint k = 0; k < lists[l]->len; k++)
        image->fragments[cursor[f[k].pixel]++] = f[k].fragment;
    }
  image->sorted = FALSE;
  ldi_image_sort (image, n_threads);
}

void
ldi_clear (Ldi *ldi)
{
  ldi->n_surfaces = 0;
  for (int axis = 0; axis < 3; axis++)
    ldi_image_fill (&ldi->images[axis], NULL, 0, 1);
}

gboolean
ldi_check_surfaces (Ldi *ldi, const LdiSurface *surfaces, size_t n_surfaces, GError **error)
{
  for (size_t s = 0; s < n_surfaces; s++)
    if (!surfaces[s].checked && !ldi_surface_check (&surfaces[s], s, error))
      {
        ldi_clear (ldi);
        return FALSE;
      }
  return TRUE;
}

/* The root level of the Eulerian grid and the cells refined under it (see the header). */
#include "grid_hierarchy.h"

#include <math.h>

/* How far past a surface its density's transition reaches, in steps: density_profile is
 * constant beyond one step, and the distances are taken to 3/2 (density_grid.c). Marking
 * the wider reach keeps every point with a distance in a marked cell. */
#define BAND_REACH 1.5

GridHierarchy *
grid_hierarchy_new (void)
{
  GridHierarchy *h = g_new0 (GridHierarchy, 1);
  for (int s = 0; s < 2; s++)
    {
      h->band[s] = g_array_new (FALSE, TRUE, sizeof (guint8));
      h->inside[s] = g_array_new (FALSE, TRUE, sizeof (guint8));
    }
  h->active = g_array_new (FALSE, TRUE, sizeof (guint8));
  return h;
}

void
grid_hierarchy_free (GridHierarchy *h)
{
  if (h == NULL)
    return;
  for (int s = 0; s < 2; s++)
    {
      g_array_unref (h->band[s]);
      g_array_unref (h->inside[s]);
    }
  g_array_unref (h->active);
  g_free (h);
}

static size_t
root_cells (const GridHierarchy *h)
{
  return (size_t) h->mask.n[0] * (size_t) h->mask.n[1] * (size_t) h->mask.n[2];
}

static void
clear (GArray *cells, size_t n)
{
  g_array_set_size (cells, (guint) n);
  memset (cells->data, 0, n);
}

void
grid_hierarchy_begin (GridHierarchy *h, const GridBox *box, int levels)
{
  h->mask.cell = 1 << MAX (levels - 1, 0);
  for (int c = 0; c < 3; c++)
    h->mask.n[c] = (box->n[c] + h->mask.cell - 1) / h->mask.cell;
  h->mask.active = NULL;
  if (levels <= 1)
    return;   /* flat: no marks, every point refined */
  size_t n = root_cells (h);
  for (int s = 0; s < 2; s++)
    {
      clear (h->band[s], n);
      clear (h->inside[s], n);
    }
  clear (h->active, n);
  h->mask.active = (const guint8 *) h->active->data;
}

/* Marks the root cells holding a point of the box within [lo, hi] (m). */
static void
mark_bounds (GridHierarchy *h, const GridBox *box, const double lo[3], const double hi[3],
             guint8 *cells)
{
  int first[3], last[3];
  for (int c = 0; c < 3; c++)
    {
      first[c] = (int) ceil (lo[c] / box->step) - box->lo[c];
      last[c] = (int) floor (hi[c] / box->step) - box->lo[c];
      first[c] = MAX (first[c], 0);
      last[c] = MIN (last[c], box->n[c] - 1);
      if (first[c] > last[c])
        return;
      first[c] /= h->mask.cell;
      last[c] /= h->mask.cell;
    }
  for (int k = first[2]; k <= last[2]; k++)
    for (int j = first[1]; j <= last[1]; j++)
      for (int i = first[0]; i <= last[0]; i++)
        cells[((size_t) k * (size_t) h->mask.n[1] + (size_t) j) * (size_t) h->mask.n[0]
              + (size_t) i] = 1;
}

void
grid_hierarchy_mark_surface (GridHierarchy *h, int side, const BodyDensity *d,
                             const double *x, const uint32_t *tri, size_t n_triangles)
{
  const GridBox *box = &d->box;
  double reach = BAND_REACH * box->step;
  guint8 *band = (guint8 *) h->band[side]->data;
  for (size_t t = 0; t < n_triangles; t++)
    {
      double lo[3], hi[3];
      for (int c = 0; c < 3; c++)
        {
          double a = x[3 * tri[3 * t] + c], b = x[3 * tri[3 * t + 1] + c],
                 e = x[3 * tri[3 * t + 2] + c];
          lo[c] = MIN (a, MIN (b, e)) - reach;
          hi[c] = MAX (a, MAX (b, e)) + reach;
        }
      mark_bounds (h, box, lo, hi, band);
    }
  body_density_mark_inside (d, h->mask.cell, h->mask.n, (guint8 *) h->inside[side]->data);
}

void
grid_hierarchy_mark_particles (GridHierarchy *h, int side, const GridBox *box,
                               const CwbGeometry *g, double reach)
{
  guint8 *band = (guint8 *) h->band[side]->data;
  for (size_t p = 0; p < g->n_points; p++)
    {
      double lo[3], hi[3];
      for (int c = 0; c < 3; c++)
        {
          lo[c] = g->positions[3 * p + c] - reach;
          hi[c] = g->positions[3 * p + c] + reach;
        }
      mark_bounds (h, box, lo, hi, band);
    }
  /* A body of particles has no inside apart from where its particles reach. */
  memcpy (h->inside[side]->data, band, root_cells (h));
}

void
grid_hierarchy_finish (GridHierarchy *h)
{
  const guint8 *band[2] = { (const guint8 *) h->band[0]->data,
                            (const guint8 *) h->band[1]->data };
  const guint8 *inside[2] = { (const guint8 *) h->inside[0]->data,
                              (const guint8 *) h->inside[1]->data };
  guint8 *active = (guint8 *) h->active->data;
  for (size_t c = 0; c < root_cells (h); c++)
    active[c] = (band[0][c] && (band[1][c] || inside[1][c])) || (band[1][c] && inside[0][c]);
}

void
grid_hierarchy_cell_bounds (const GridHierarchy *h, const GridBox *box, int ci, int cj, int ck,
                            double min[3], double max[3])
{
  int cell[3] = { ci, cj, ck };
  for (int c = 0; c < 3; c++)
    {
      int first = cell[c] * h->mask.cell;
      int last = MIN (first + h->mask.cell, box->n[c]) - 1;
      /* The cell holds its points and half a step around them. */
      min[c] = (box->lo[c] + first - 0.5) * box->step;
      max[c] = (box->lo[c] + last + 0.5) * box->step;
    }
}

/* The tetrahedral grid around a closed surface (tet_grid.h). */
#include <math.h>

#include "tet_grid.h"

#define FEM_ERROR (g_quark_from_string ("fem"))

enum { CELL_EMPTY = 0, CELL_SURFACE = 1, CELL_OUTSIDE = 2 };

/* Relative growth of a cell's box in the surface test: far above the rounding of grid
 * coordinates (1e-16 relative), far below any feature a grid cell resolves. */
#define CELL_SLACK 1e-9

void
tet_grid_free (TetGrid *grid)
{
  if (grid == NULL)
    return;
  g_array_unref (grid->nodes);
  g_array_unref (grid->tets);
  g_array_unref (grid->cells);
  g_free (grid);
}

/* ---- triangle against box ------------------------------------------------------------- */

/* The projections of the triangle (centred on the box) and of the box's half extents onto
 * an axis overlap, closed intervals. */
static gboolean
overlap_on_axis (const double axis[3], const double v0[3], const double v1[3],
                 const double v2[3], const double half[3])
{
  double p0 = cwb_v3_dot (axis, v0), p1 = cwb_v3_dot (axis, v1), p2 = cwb_v3_dot (axis, v2);
  double lo = fmin (p0, fmin (p1, p2)), hi = fmax (p0, fmax (p1, p2));
  double r = half[0] * fabs (axis[0]) + half[1] * fabs (axis[1]) + half[2] * fabs (axis[2]);
  return !(lo > r || hi < -r);
}

gboolean
tet_grid_triangle_box_overlap (const double a[3], const double b[3], const double c[3],
                               const double lo[3], const double hi[3])
{
  double centre[3], half[3], v0[3], v1[3], v2[3];
  for (int i = 0; i < 3; i++)
    {
      centre[i] = 0.5 * (lo[i] + hi[i]);
      half[i] = 0.5 * (hi[i] - lo[i]);
    }
  cwb_v3_sub (v0, a, centre);
  cwb_v3_sub (v1, b, centre);
  cwb_v3_sub (v2, c, centre);
  double edges[3][3];
  cwb_v3_sub (edges[0], v1, v0);
  cwb_v3_sub (edges[1], v2, v1);
  cwb_v3_sub (edges[2], v0, v2);
  /* The box's three face normals: the triangle's bounds against the box's. */
  for (int i = 0; i < 3; i++)
    {
      double axis[3] = { 0, 0, 0 };
      axis[i] = 1;
      if (!overlap_on_axis (axis, v0, v1, v2, half))
        return FALSE;
    }
  /* The triangle's plane. */
  double normal[3];
  cwb_v3_cross (normal, edges[0], edges[1]);
  if (!overlap_on_axis (normal, v0, v1, v2, half))
    return FALSE;
  /* The nine cross products of box axes and triangle edges (a zero axis separates
   * nothing: its projections are all 0). */
  for (int i = 0; i < 3; i++)
    for (int e = 0; e < 3; e++)
      {
        double unit[3] = { 0, 0, 0 }, axis[3];
        unit[i] = 1;
        cwb_v3_cross (axis, unit, edges[e]);
        if (!overlap_on_axis (axis, v0, v1, v2, half))
          return FALSE;
      }
  return TRUE;
}

/* ---- the grid ------------------------------------------------------------------------- */

static size_t
cell_index (const int dims[3], int i, int j, int k)
{
  return (size_t) i + (size_t) dims[0] * ((size_t) j + (size_t) dims[1] * (size_t) k);
}

static void
cell_box (const TetGrid *g, int i, int j, int k, double lo[3], double hi[3])
{
  const int ijk[3] = { i, j, k };
  for (int a = 0; a < 3; a++)
    {
      lo[a] = g->origin[a] + ijk[a] * g->cell[a];
      hi[a] = lo[a] + g->cell[a];
    }
}

/* Marks every cell the surface touches, visiting for each triangle only the cells its
 * bounding box reaches. */
static void
mark_surface_cells (const TetGrid *g, const CwbSurfaceMesh *s, guint8 *state)
{
  for (size_t t = 0; t < s->n_triangles; t++)
    {
      const double *p[3];
      for (int e = 0; e < 3; e++)
        p[e] = &s->vertices[3 * s->triangles[3 * t + e]];
      int from[3], to[3];
      for (int a = 0; a < 3; a++)
        {
          double lo = fmin (p[0][a], fmin (p[1][a], p[2][a]));
          double hi = fmax (p[0][a], fmax (p[1][a], p[2][a]));
          from[a] = CLAMP ((int) floor ((lo - g->origin[a]) / g->cell[a]) - 1, 0, g->dims[a] - 1);
          to[a] = CLAMP ((int) floor ((hi - g->origin[a]) / g->cell[a]) + 1, 0, g->dims[a] - 1);
        }
      for (int k = from[2]; k <= to[2]; k++)
        for (int j = from[1]; j <= to[1]; j++)
          for (int i = from[0]; i <= to[0]; i++)
            {
              size_t c = cell_index (g->dims, i, j, k);
              if (state[c] == CELL_SURFACE)
                continue;
              double lo[3], hi[3];
              cell_box (g, i, j, k, lo, hi);
              /* Grown by a hair, so that a face lying on a cell's face (a box's sides on the
               * border of a grid fitted to its bounds) touches it despite rounding. */
              for (int a = 0; a < 3; a++)
                {
                  lo[a] -= CELL_SLACK * g->cell[a];
                  hi[a] += CELL_SLACK * g->cell[a];
                }
              if (tet_grid_triangle_box_overlap (p[0], p[1], p[2], lo, hi))
                state[c] = CELL_SURFACE;
            }
    }
}

/* Floods the untouched cells reachable from the grid's border through shared faces. */
static void
flood_outside (const TetGrid *g, guint8 *state)
{
  const int *d = g->dims;
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (size_t));
  for (int k = 0; k < d[2]; k++)
    for (int j = 0; j < d[1]; j++)
      for (int i = 0; i < d[0]; i++)
        {
          gboolean border = i == 0 || j == 0 || k == 0 || i == d[0] - 1 || j == d[1] - 1
                            || k == d[2] - 1;
          size_t c = cell_index (d, i, j, k);
          if (border && state[c] == CELL_EMPTY)
            {
              state[c] = CELL_OUTSIDE;
              g_array_append_val (stack, c);
            }
        }
  while (stack->len > 0)
    {
      size_t c = g_array_index (stack, size_t, stack->len - 1);
      g_array_set_size (stack, stack->len - 1);
      int i = (int) (c % (size_t) d[0]);
      int j = (int) ((c / (size_t) d[0]) % (size_t) d[1]);
      int k = (int) (c / ((size_t) d[0] * (size_t) d[1]));
      const int step[6][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 },
                               { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, -1 } };
      for (int n = 0; n < 6; n++)
        {
          int ni = i + step[n][0], nj = j + step[n][1], nk = k + step[n][2];
          if (ni < 0 || nj < 0 || nk < 0 || ni >= d[0] || nj >= d[1] || nk >= d[2])
            continue;
          size_t nc = cell_index (d, ni, nj, nk);
          if (state[nc] != CELL_EMPTY)
            continue;
          state[nc] = CELL_OUTSIDE;
          g_array_append_val (stack, nc);
        }
    }
}

/* The Kuhn triangulation of the unit cube: one tetrahedron per order of the axes, the path
 * from corner 000 to corner 111 stepping along them in that order. Corners are numbered
 * bit 0 = x, bit 1 = y, bit 2 = z. */
static const int kuhn_axes[6][3] = {
  { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

static double
signed_volume (const double *a, const double *b, const double *c, const double *d)
{
  double u[3], v[3], w[3], uv[3];
  cwb_v3_sub (u, b, a);
  cwb_v3_sub (v, c, a);
  cwb_v3_sub (w, d, a);
  cwb_v3_cross (uv, u, v);
  return cwb_v3_dot (uv, w) / 6;
}

/* Node ids of the grid vertices the kept cells use, then six tetrahedra per kept cell. */
static void
split_cells (TetGrid *g)
{
  const int *d = g->dims;
  int vd[3] = { d[0] + 1, d[1] + 1, d[2] + 1 };
  size_t n_vertices = (size_t) vd[0] * vd[1] * vd[2];
  g_autofree guint32 *node_of = g_new (guint32, n_vertices);
  for (size_t v = 0; v < n_vertices; v++)
    node_of[v] = G_MAXUINT32;
  for (guint n = 0; n < g->cells->len; n++)
    {
      size_t c = g_array_index (g->cells, guint32, n);
      int i = (int) (c % (size_t) d[0]);
      int j = (int) ((c / (size_t) d[0]) % (size_t) d[1]);
      int k = (int) (c / ((size_t) d[0] * (size_t) d[1]));
      guint32 corner[8];
      for (int bits = 0; bits < 8; bits++)
        {
          int ci = i + (bits & 1), cj = j + ((bits >> 1) & 1), ck = k + ((bits >> 2) & 1);
          size_t v = cell_index (vd, ci, cj, ck);
          if (node_of[v] == G_MAXUINT32)
            {
              node_of[v] = (guint32) (g->nodes->len / 3);
              double p[3] = { g->origin[0] + ci * g->cell[0], g->origin[1] + cj * g->cell[1],
                              g->origin[2] + ck * g->cell[2] };
              g_array_append_vals (g->nodes, p, 3);
            }
          corner[bits] = node_of[v];
        }
      for (int t = 0; t < 6; t++)
        {
          int bits = 0;
          guint32 tet[4];
          tet[0] = corner[0];
          for (int s = 0; s < 3; s++)
            {
              bits |= 1 << kuhn_axes[t][s];
              tet[s + 1] = corner[bits];
            }
          const double *x = (const double *) (const void *) g->nodes->data;
          if (signed_volume (&x[3 * tet[0]], &x[3 * tet[1]], &x[3 * tet[2]], &x[3 * tet[3]]) < 0)
            {
              guint32 swap = tet[2];
              tet[2] = tet[3];
              tet[3] = swap;
            }
          g_array_append_vals (g->tets, tet, 4);
        }
    }
}

TetGrid *
tet_grid_build (const CwbSurfaceMesh *surface, int resolution, TetGridFit fit,
                GError **error)
{
  const char *source = surface->source != NULL ? surface->source : "surface";
  if (surface->n_triangles == 0 || surface->n_vertices == 0)
    {
      g_set_error (error, FEM_ERROR, 0, "%s: no triangles to build a tetrahedral grid around",
                   source);
      return NULL;
    }
  if (!surface->closed)
    {
      g_set_error (error, FEM_ERROR, 0,
                   "%s: the surface is not closed, so it has no inside to fill with "
                   "tetrahedra (a deformable body needs a closed surface)", source);
      return NULL;
    }
  if (resolution < 1)
    {
      g_set_error (error, FEM_ERROR, 0, "grid resolution: expected at least 1 cell, got %d",
                   resolution);
      return NULL;
    }
  double lo[3], hi[3];
  cwb_v3_copy (lo, surface->vertices);
  cwb_v3_copy (hi, surface->vertices);
  for (size_t v = 1; v < surface->n_vertices; v++)
    for (int a = 0; a < 3; a++)
      {
        lo[a] = fmin (lo[a], surface->vertices[3 * v + a]);
        hi[a] = fmax (hi[a], surface->vertices[3 * v + a]);
      }
  double longest = fmax (hi[0] - lo[0], fmax (hi[1] - lo[1], hi[2] - lo[2]));
  if (!(longest > 0) || !isfinite (longest))
    {
      g_set_error (error, FEM_ERROR, 0, "%s: the surface has no extent", source);
      return NULL;
    }

  TetGrid *g = g_new0 (TetGrid, 1);
  g->nodes = g_array_new (FALSE, FALSE, sizeof (double));
  g->tets = g_array_new (FALSE, FALSE, sizeof (guint32));
  g->cells = g_array_new (FALSE, FALSE, sizeof (guint32));
  double h = longest / resolution;
  for (int a = 0; a < 3; a++)
    {
      double extent = hi[a] - lo[a];
      if (fit == TET_GRID_FIT_BOUNDS)
        {
          /* Whole cells spanning the bounds exactly, each as close to h as a whole number
           * allows (a flat axis gets one cell of side h). */
          g->dims[a] = extent > 0 ? MAX (1, (int) lround (extent / h)) : 1;
          g->cell[a] = extent > 0 ? extent / g->dims[a] : h;
        }
      else
        {
          /* Whole cells over the extent, plus one: half a cell to spare on each side. The
           * tolerance keeps an extent of exactly n cells (up to rounding) at n + 1. */
          g->cell[a] = h;
          g->dims[a] = (int) ceil (extent / h - 1e-9) + 1;
        }
      g->origin[a] = fit == TET_GRID_FIT_BOUNDS
                       ? lo[a] : 0.5 * (lo[a] + hi[a]) - 0.5 * g->dims[a] * g->cell[a];
    }
  size_t n_cells = (size_t) g->dims[0] * g->dims[1] * g->dims[2];
  g_autofree guint8 *state = g_new0 (guint8, n_cells);
  mark_surface_cells (g, surface, state);
  flood_outside (g, state);
  for (size_t c = 0; c < n_cells; c++)
    if (state[c] != CELL_OUTSIDE)
      {
        guint32 index = (guint32) c;
        g_array_append_val (g->cells, index);
      }
  split_cells (g);
  return g;
}

gssize
tet_grid_cell_at (const TetGrid *g, const double p[3])
{
  int ijk[3];
  for (int a = 0; a < 3; a++)
    {
      double x = (p[a] - g->origin[a]) / g->cell[a];
      if (!(x >= 0 && x <= g->dims[a]))
        return -1;
      ijk[a] = MIN ((int) floor (x), g->dims[a] - 1);
    }
  guint32 c = (guint32) cell_index (g->dims, ijk[0], ijk[1], ijk[2]);
  /* The kept cells are in increasing index order: binary search. */
  guint lo = 0, hi = g->cells->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      guint32 m = g_array_index (g->cells, guint32, mid);
      if (m == c)
        return (gssize) mid;
      if (m < c)
        lo = mid + 1;
      else
        hi = mid;
    }
  return -1;
}

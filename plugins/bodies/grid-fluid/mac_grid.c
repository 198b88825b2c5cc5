/* The MAC grid and its particle transfers (see mac_grid.h). */
#include "mac_grid.h"

#include <math.h>
#include <string.h>

void
mac_grid_init (MacGrid *grid, const double lo[3], const double hi[3], double dx)
{
  memset (grid, 0, sizeof *grid);
  grid->dx = dx;
  grid->n_cells = 1;
  for (int c = 0; c < 3; c++)
    {
      grid->n[c] = MAX (3, (int) ceil ((hi[c] - lo[c]) / dx - 1e-9));
      grid->origin[c] = lo[c];
      grid->n_cells *= (size_t) grid->n[c];
    }
  for (int a = 0; a < 3; a++)
    {
      grid->n_faces[a] = 1;
      for (int c = 0; c < 3; c++)
        grid->n_faces[a] *= (size_t) (grid->n[c] + (c == a));
      grid->u[a] = g_new0 (double, grid->n_faces[a]);
      grid->mass[a] = g_new0 (double, grid->n_faces[a]);
    }
  grid->cell_mass = g_new0 (double, grid->n_cells);
  grid->fluid = g_new0 (uint8_t, grid->n_cells);
}

void
mac_grid_clear (MacGrid *grid)
{
  for (int a = 0; a < 3; a++)
    {
      g_free (grid->u[a]);
      g_free (grid->mass[a]);
    }
  g_free (grid->cell_mass);
  g_free (grid->fluid);
  memset (grid, 0, sizeof *grid);
}

gboolean
mac_grid_inside (const MacGrid *grid, const double x[3])
{
  for (int c = 0; c < 3; c++)
    {
      double t = (x[c] - grid->origin[c]) / grid->dx;
      if (!(t >= 1 && t < grid->n[c] - 1))
        return FALSE;
    }
  return TRUE;
}

/* The trilinear stencil of x on the sample points origin + dx (index + offset): the lowest
 * index per axis and the weights of it and the next. Axis a's faces have offset 0 along a
 * and 1/2 along the others; cell centres 1/2 along all. */
typedef struct Stencil {
  int base[3];
  double w[3][2];
} Stencil;

static void
stencil_at (const MacGrid *grid, const double x[3], int face_axis, Stencil *s)
{
  for (int c = 0; c < 3; c++)
    {
      double t = (x[c] - grid->origin[c]) / grid->dx - (c == face_axis ? 0 : 0.5);
      double lo = floor (t);
      s->base[c] = (int) lo;
      s->w[c][1] = t - lo;
      s->w[c][0] = 1 - s->w[c][1];
    }
}

/* The eight sample indices and weights of a stencil on the faces normal to axis a (a = 3:
 * the cell centres). */
static void
stencil_points (const MacGrid *grid, const Stencil *s, int a, size_t index[8], double w[8])
{
  int p = 0;
  for (int dk = 0; dk < 2; dk++)
    for (int dj = 0; dj < 2; dj++)
      for (int di = 0; di < 2; di++, p++)
        {
          int i = s->base[0] + di, j = s->base[1] + dj, k = s->base[2] + dk;
          index[p] = a < 3 ? mac_grid_face (grid, a, i, j, k) : mac_grid_cell (grid, i, j, k);
          w[p] = s->w[0][di] * s->w[1][dj] * s->w[2][dk];
        }
}

/* The cell x lies in. */
static size_t
home_cell (const MacGrid *grid, const double x[3])
{
  int cell[3];
  for (int c = 0; c < 3; c++)
    cell[c] = (int) floor ((x[c] - grid->origin[c]) / grid->dx);
  return mac_grid_cell (grid, cell[0], cell[1], cell[2]);
}

void
mac_grid_splat (MacGrid *grid, const double *x, const double *v, double m, size_t n,
                const uint8_t *inside)
{
  for (int a = 0; a < 3; a++)
    {
      memset (grid->u[a], 0, grid->n_faces[a] * sizeof (double));
      memset (grid->mass[a], 0, grid->n_faces[a] * sizeof (double));
    }
  memset (grid->cell_mass, 0, grid->n_cells * sizeof (double));
  memset (grid->fluid, 0, grid->n_cells);
  for (size_t p = 0; p < n; p++)
    if (inside[p])
      grid->fluid[home_cell (grid, &x[3 * p])] = 1;
  for (size_t p = 0; p < n; p++)
    {
      if (!inside[p])
        continue;
      const double *xp = &x[3 * p];
      size_t index[8];
      double w[8];
      Stencil s;
      for (int a = 0; a < 4; a++)
        {
          stencil_at (grid, xp, a, &s);
          stencil_points (grid, &s, a, index, w);
          for (int k = 0; k < 8; k++)
            if (a < 3)
              {
                grid->mass[a][index[k]] += m * w[k];
                grid->u[a][index[k]] += m * w[k] * v[3 * p + a];
              }
            else
              grid->cell_mass[grid->fluid[index[k]] ? index[k] : home_cell (grid, xp)]
                += m * w[k];
        }
    }
  for (int a = 0; a < 3; a++)
    for (size_t f = 0; f < grid->n_faces[a]; f++)
      if (grid->mass[a][f] > 0)
        grid->u[a][f] /= grid->mass[a][f];
}

void
mac_grid_sample (const MacGrid *grid, double *const field[3], const double x[3], double out[3])
{
  size_t index[8];
  double w[8];
  Stencil s;
  for (int a = 0; a < 3; a++)
    {
      stencil_at (grid, x, a, &s);
      stencil_points (grid, &s, a, index, w);
      out[a] = 0;
      for (int k = 0; k < 8; k++)
        out[a] += w[k] * field[a][index[k]];
    }
}

double
mac_grid_sample_cells (const MacGrid *grid, const double *cells, const double x[3])
{
  size_t index[8];
  double w[8], sum = 0;
  Stencil s;
  stencil_at (grid, x, 3, &s);
  stencil_points (grid, &s, 3, index, w);
  for (int k = 0; k < 8; k++)
    sum += w[k] * cells[index[k]];
  return sum;
}

double
mac_grid_divergence (const MacGrid *grid, double *const u[3], int i, int j, int k)
{
  double sum = u[0][mac_grid_face (grid, 0, i + 1, j, k)] - u[0][mac_grid_face (grid, 0, i, j, k)]
               + u[1][mac_grid_face (grid, 1, i, j + 1, k)]
               - u[1][mac_grid_face (grid, 1, i, j, k)]
               + u[2][mac_grid_face (grid, 2, i, j, k + 1)]
               - u[2][mac_grid_face (grid, 2, i, j, k)];
  return sum / grid->dx;
}

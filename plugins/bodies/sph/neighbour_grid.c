/* The uniform grid's counting sort and the neighbour lists (see neighbour_grid.h). */
#include "neighbour_grid.h"

#include <math.h>
#include <string.h>

#define NO_SLOT UINT32_MAX

void
neighbour_grid_init (NeighbourGrid *grid)
{
  memset (grid, 0, sizeof *grid);
}

void
neighbour_grid_clear (NeighbourGrid *grid)
{
  g_free (grid->slot_start);
  g_free (grid->sorted);
  g_free (grid->particle_slot);
  g_free (grid->start);
  g_free (grid->neighbours);
  neighbour_grid_init (grid);
}

static gboolean
finite3 (const double *p)
{
  return isfinite (p[0]) && isfinite (p[1]) && isfinite (p[2]);
}

/* The slot of the cell c (cell coordinates relative to the box's corner). */
static uint32_t
cell_slot (const NeighbourGrid *grid, const int64_t c[3])
{
  if (!grid->hashed)
    {
      for (int k = 0; k < 3; k++)
        if (c[k] < 0 || c[k] >= grid->dims[k])
          return NO_SLOT;
      return (uint32_t) (c[0] + grid->dims[0] * (c[1] + grid->dims[1] * c[2]));
    }
  /* Teschner et al. 2003 eq. 1's primes, in wrapping unsigned arithmetic. */
  uint32_t h = ((uint32_t) c[0] * 73856093u) ^ ((uint32_t) c[1] * 19349663u)
               ^ ((uint32_t) c[2] * 83492791u);
  return h % (uint32_t) grid->n_slots;
}

static void
particle_cell (const NeighbourGrid *grid, const double *p, int64_t c[3])
{
  for (int k = 0; k < 3; k++)
    {
      c[k] = (int64_t) floor ((p[k] - grid->origin[k]) / grid->radius);
      c[k] = CLAMP (c[k], 0, grid->dims[k] - 1);
    }
}

/* Sizes the box of the finite positions and decides between cells and hashing. */
static void
box_size (NeighbourGrid *grid, const double *positions, size_t n)
{
  double lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
  gboolean any = FALSE;
  for (size_t i = 0; i < n; i++)
    {
      const double *p = &positions[3 * i];
      if (!finite3 (p))
        continue;
      for (int k = 0; k < 3; k++)
        {
          lo[k] = any ? MIN (lo[k], p[k]) : p[k];
          hi[k] = any ? MAX (hi[k], p[k]) : p[k];
        }
      any = TRUE;
    }
  double cells = 1;
  for (int k = 0; k < 3; k++)
    {
      grid->origin[k] = lo[k];
      double d = floor ((hi[k] - lo[k]) / grid->radius) + 1;
      /* A box too long for int64 cells is hashed; its cell count is only compared below. */
      grid->dims[k] = d < 1e15 ? (int64_t) d : (int64_t) 1e15;
      cells *= d;
    }
  size_t most = NEIGHBOUR_GRID_CELLS_PER_PARTICLE * MAX (n, 1);
  grid->hashed = !(cells <= (double) most);
  grid->n_slots = grid->hashed ? most : (size_t) cells;
}

static void
sort_into_slots (NeighbourGrid *grid, const double *positions, size_t n)
{
  if (n > grid->capacity_particles || grid->start == NULL)
    {
      grid->capacity_particles = MAX (MAX (n, 1), 2 * grid->capacity_particles);
      grid->sorted = g_renew (uint32_t, grid->sorted, grid->capacity_particles);
      grid->particle_slot = g_renew (uint32_t, grid->particle_slot, grid->capacity_particles);
      grid->start = g_renew (uint32_t, grid->start, grid->capacity_particles + 1);
    }
  if (grid->n_slots + 1 > grid->capacity_slots)
    {
      grid->capacity_slots = MAX (grid->n_slots + 1, 2 * grid->capacity_slots);
      grid->slot_start = g_renew (uint32_t, grid->slot_start, grid->capacity_slots);
    }
  memset (grid->slot_start, 0, (grid->n_slots + 1) * sizeof (uint32_t));
  for (size_t i = 0; i < n; i++)
    {
      const double *p = &positions[3 * i];
      uint32_t slot = NO_SLOT;
      if (finite3 (p))
        {
          int64_t c[3];
          particle_cell (grid, p, c);
          slot = cell_slot (grid, c);
          grid->slot_start[slot + 1]++;
        }
      grid->particle_slot[i] = slot;
    }
  for (size_t s = 0; s < grid->n_slots; s++)
    grid->slot_start[s + 1] += grid->slot_start[s];
  /* Fill with a running cursor per slot (slot_start shifted by one, restored after). */
  for (size_t i = 0; i < n; i++)
    if (grid->particle_slot[i] != NO_SLOT)
      grid->sorted[grid->slot_start[grid->particle_slot[i]]++] = (uint32_t) i;
  for (size_t s = grid->n_slots; s > 0; s--)
    grid->slot_start[s] = grid->slot_start[s - 1];
  grid->slot_start[0] = 0;
}

/* The distinct slots of the 27 cells around particle i's cell, into slots; their count. */
static int
slots_around (const NeighbourGrid *grid, const double *p, uint32_t slots[27])
{
  int64_t c[3];
  particle_cell (grid, p, c);
  int n = 0;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++)
        {
          int64_t d[3] = { c[0] + dx, c[1] + dy, c[2] + dz };
          uint32_t slot = cell_slot (grid, d);
          gboolean seen = slot == NO_SLOT;
          for (int k = 0; k < n && !seen && grid->hashed; k++)
            seen = slots[k] == slot;
          if (!seen)
            slots[n++] = slot;
        }
  return n;
}

void
neighbour_grid_build (NeighbourGrid *grid, const double *positions, size_t n, double radius)
{
  g_return_if_fail (radius > 0);
  grid->radius = radius;
  box_size (grid, positions, n);
  sort_into_slots (grid, positions, n);

  double r2 = radius * radius;
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    {
      grid->start[i] = (uint32_t) count;
      const double *p = &positions[3 * i];
      if (grid->particle_slot[i] == NO_SLOT)
        continue;
      uint32_t slots[27];
      int n_slots = slots_around (grid, p, slots);
      for (int s = 0; s < n_slots; s++)
        for (uint32_t k = grid->slot_start[slots[s]]; k < grid->slot_start[slots[s] + 1]; k++)
          {
            uint32_t j = grid->sorted[k];
            const double *pj = &positions[3 * j];
            double dx = p[0] - pj[0], dy = p[1] - pj[1], dz = p[2] - pj[2];
            if (j == i || dx * dx + dy * dy + dz * dz >= r2)
              continue;
            if (count + 1 > grid->capacity_neighbours)
              {
                grid->capacity_neighbours = MAX (count + 1, 2 * grid->capacity_neighbours);
                grid->neighbours = g_renew (uint32_t, grid->neighbours,
                                            grid->capacity_neighbours);
              }
            grid->neighbours[count++] = j;
          }
    }
  grid->start[n] = (uint32_t) count;
}

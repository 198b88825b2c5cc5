/* Fixed-radius neighbour search for the SPH fluid: the particles counting-sorted into the
 * cells of a uniform grid whose cell is the kernel's support radius, so that a particle's
 * neighbours lie in its own cell and the 26 around it (Ihmsen et al. 2011, "A parallel SPH
 * implementation on multi-core CPUs", sec. 4: the uniform grid with a counting sort).
 *
 * The grid spans the particles' bounding box, so its cell array is the box's volume over the
 * cell's, not the whole space: a fluid that spreads thin over a large box costs more cells,
 * and a particle flung far away would too, which is why the grid refuses a box of more than
 * NEIGHBOUR_GRID_CELLS_PER_PARTICLE cells a particle and hashes then instead (the cells
 * folded onto a table of that size; collisions only add candidates the distance test
 * rejects). Building and querying are linear in the particles. The lists are kept in one
 * array (CSR), rebuilt each step, so that the pressure iterations revisit them without a
 * search. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Cells per particle above which the box's cells are hashed onto a table instead. */
#define NEIGHBOUR_GRID_CELLS_PER_PARTICLE 8

typedef struct NeighbourGrid {
  double radius;              /* the search radius, the cell's side */
  double origin[3];           /* the lower corner of the bounding box */
  int64_t dims[3];            /* cells along each axis */
  gboolean hashed;            /* cells folded onto n_slots (the box is too large) */
  size_t n_slots;             /* cells or hash slots */
  uint32_t *slot_start;       /* n_slots + 1 */
  uint32_t *sorted;           /* the particles ordered by slot */
  uint32_t *particle_slot;    /* each particle's slot */
  /* CSR neighbour lists: particle i's neighbours (itself excluded) are
   * neighbours[start[i] .. start[i + 1]). */
  uint32_t *start;
  uint32_t *neighbours;
  size_t capacity_particles, capacity_slots, capacity_neighbours;
} NeighbourGrid;

void neighbour_grid_init (NeighbourGrid *grid);
void neighbour_grid_clear (NeighbourGrid *grid);

/* Finds, for each of the n particles at positions (3 n), every other particle closer than
 * radius. Non-finite positions find no neighbours and are nobody's. */
void neighbour_grid_build (NeighbourGrid *grid, const double *positions, size_t n,
                           double radius);

static inline size_t
neighbour_grid_count (const NeighbourGrid *grid, size_t i)
{
  return grid->start[i + 1] - grid->start[i];
}

G_END_DECLS

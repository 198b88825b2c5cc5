/* Optimised spatial hashing of points (Teschner et al. 2003, "Optimized spatial hashing for
 * collision detection of deformable objects", section 4): every point of every surface
 * geometry goes into the cell (ix, iy, iz) = floor(p / cell_size), and the cell into one of
 * table_size buckets by the paper's hash
 *   H(ix, iy, iz) = (ix p1 xor iy p2 xor iz p3) mod table_size,  p1, p2, p3 = 73856093,
 *   19349663, 83492791,
 * with table_size a prime (the paper's tables are primes about the number of primitives; here
 * the next prime >= 2 x points). The table is rebuilt every run by a counting sort of the
 * points into their buckets (bucket_start + one sorted entry array), so a bucket's points are
 * contiguous, in the order of the geometries and points, and nothing is allocated once the
 * sizes have settled. Each entry keeps its exact cell, so a query rejects the entries that
 * share a bucket with the queried cell but not the cell itself (the hash collisions the paper
 * accepts as false positives to the exact test; here they never reach it). */
#pragma once

#include <math.h>
#include <string.h>

#include <cwb/geometry.h>

G_BEGIN_DECLS

/* Cell coordinates are clamped to +-SPATIAL_HASH_CELL_LIMIT so that floor(p / cell_size)
 * always fits an int32 (positions 2^30 cells away from the origin share the clamped cell:
 * slower, never wrong, since every point is tested exactly after the hash). */
#define SPATIAL_HASH_CELL_LIMIT 1073741824.0

typedef struct SpatialHashEntry {
  int32_t cell[3];       /* exact cell, to reject hash collisions */
  uint32_t geometry;     /* index in the geometries array */
  uint32_t point;        /* point index in that geometry */
  double position[3];    /* copy of the point, read by the exact tests without a jump */
} SpatialHashEntry;

typedef struct SpatialHash {
  double cell_size;
  uint32_t table_size;        /* prime, or the forced size */
  uint32_t forced_table_size; /* 0: automatic; else this size (tests force collisions) */
  uint32_t *bucket_start;     /* table_size + 1: bucket k holds entries [start[k], start[k + 1]) */
  size_t bucket_capacity;
  SpatialHashEntry *entries;  /* n_entries, grouped by bucket */
  size_t n_entries;
  size_t entry_capacity;
  uint32_t *point_bucket;     /* scratch: each hashed point's bucket, in hashing order */
  size_t point_bucket_capacity;
  size_t sized_for;           /* number of points the automatic prime was chosen for */
  size_t growths;             /* buffer (re)allocations in the last build: 0 in steady state */
} SpatialHash;

void spatial_hash_init (SpatialHash *hash);
void spatial_hash_clear (SpatialHash *hash);

/* Rebuilds the table from the points of the SURFACE and PARTICLES geometries (points with a
 * non-finite coordinate are left out). cell_size > 0. */
void spatial_hash_build (SpatialHash *hash, const CwbGeometry *geometries, size_t n_geometries,
                         double cell_size);

static inline void
spatial_hash_cell (const SpatialHash *hash, const double p[3], int32_t cell[3])
{
  for (int k = 0; k < 3; k++)
    {
      double c = floor (p[k] / hash->cell_size);
      /* Written so that a NaN lands on the lower limit instead of an undefined conversion. */
      c = c >= -SPATIAL_HASH_CELL_LIMIT ? (c <= SPATIAL_HASH_CELL_LIMIT ? c : SPATIAL_HASH_CELL_LIMIT)
                                        : -SPATIAL_HASH_CELL_LIMIT;
      cell[k] = (int32_t) c;
    }
}

/* Teschner 2003 eq. 1, in unsigned 32-bit arithmetic (wrapping, so negative cells hash too). */
static inline uint32_t
spatial_hash_bucket (const SpatialHash *hash, const int32_t cell[3])
{
  uint32_t h = ((uint32_t) cell[0] * 73856093u) ^ ((uint32_t) cell[1] * 19349663u)
               ^ ((uint32_t) cell[2] * 83492791u);
  return h % hash->table_size;
}

/* Returns `buffer` grown to hold n elements of elem_size bytes (at least doubling, contents
 * kept), counting each reallocation in *growths so that callers can check that a steady
 * state allocates nothing. */
static inline void *
spatial_hash_reserve (void *buffer, size_t *capacity, size_t n, size_t elem_size,
                      size_t *growths)
{
  if (n <= *capacity)
    return buffer;
  *capacity = MAX (n, 2 * *capacity);
  (*growths)++;
  return g_realloc_n (buffer, *capacity, elem_size);
}

static inline gboolean
spatial_hash_same_cell (const int32_t a[3], const int32_t b[3])
{
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

G_END_DECLS

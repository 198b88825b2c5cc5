/* Optimised spatial hashing of points, rebuilt every run (Teschner et al. 2003, section 4).
 * See spatial_hash.h for the layout. */
#include "spatial_hash.h"

#include <math.h>

void
spatial_hash_init (SpatialHash *hash)
{
  memset (hash, 0, sizeof *hash);
}

void
spatial_hash_clear (SpatialHash *hash)
{
  g_free (hash->bucket_start);
  g_free (hash->entries);
  g_free (hash->point_bucket);
  spatial_hash_init (hash);
}

static gboolean
is_prime (uint32_t n)
{
  if (n < 2)
    return FALSE;
  if (n % 2 == 0)
    return n == 2;
  for (uint32_t d = 3; (uint64_t) d * d <= n; d += 2)
    if (n % d == 0)
      return FALSE;
  return TRUE;
}

/* The smallest prime >= n (trial division: only when the number of points changes). */
static uint32_t
next_prime (uint32_t n)
{
  while (!is_prime (n))
    n++;
  return n;
}

static gboolean
point_is_finite (const double p[3])
{
  return isfinite (p[0]) && isfinite (p[1]) && isfinite (p[2]);
}

void
spatial_hash_build (SpatialHash *hash, const CwbGeometry *geometries, size_t n_geometries,
                    double cell_size)
{
  g_return_if_fail (cell_size > 0 && isfinite (cell_size));
  hash->cell_size = cell_size;
  hash->growths = 0;

  size_t n_points = 0;
  for (size_t g = 0; g < n_geometries; g++)
    if (geometries[g].kind == CWB_GEOMETRY_SURFACE
        || geometries[g].kind == CWB_GEOMETRY_PARTICLES)
      n_points += geometries[g].n_points;
  g_return_if_fail (n_points < G_MAXUINT32 / 2);

  /* Teschner 2003 section 5 (table size): a prime, here about twice the number of points so
   * that most non-empty buckets hold one cell. Chosen again only when the count changes. */
  if (hash->forced_table_size > 0)
    hash->table_size = hash->forced_table_size;
  else if (hash->sized_for != n_points || hash->table_size == 0)
    {
      hash->table_size = next_prime ((uint32_t) MAX (2 * n_points, 3));
      hash->sized_for = n_points;
    }

  hash->bucket_start = spatial_hash_reserve (hash->bucket_start, &hash->bucket_capacity,
                                             (size_t) hash->table_size + 1, sizeof (uint32_t),
                                             &hash->growths);
  hash->entries = spatial_hash_reserve (hash->entries, &hash->entry_capacity, MAX (n_points, 1),
                                        sizeof (SpatialHashEntry), &hash->growths);
  hash->point_bucket = spatial_hash_reserve (hash->point_bucket, &hash->point_bucket_capacity,
                                             MAX (n_points, 1), sizeof (uint32_t),
                                             &hash->growths);

  /* Counting sort, pass 1: count the points of each bucket (finite points only). */
  uint32_t *start = hash->bucket_start;
  memset (start, 0, ((size_t) hash->table_size + 1) * sizeof (uint32_t));
  size_t k = 0;
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      if (geometry->kind != CWB_GEOMETRY_SURFACE && geometry->kind != CWB_GEOMETRY_PARTICLES)
        continue;
      for (size_t i = 0; i < geometry->n_points; i++)
        {
          const double *p = geometry->positions + 3 * i;
          if (!point_is_finite (p))
            continue;
          int32_t cell[3];
          spatial_hash_cell (hash, p, cell);
          uint32_t bucket = spatial_hash_bucket (hash, cell);
          hash->point_bucket[k++] = bucket;
          start[bucket + 1]++;
        }
    }
  hash->n_entries = k;

  /* Pass 2: prefix sums give each bucket's first entry. */
  for (uint32_t b = 0; b < hash->table_size; b++)
    start[b + 1] += start[b];

  /* Pass 3: scatter, in geometry and point order (so each bucket is deterministic); start[b]
   * is used as the bucket's write cursor and restored afterwards by a shift. */
  k = 0;
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbGeometry *geometry = &geometries[g];
      if (geometry->kind != CWB_GEOMETRY_SURFACE && geometry->kind != CWB_GEOMETRY_PARTICLES)
        continue;
      for (size_t i = 0; i < geometry->n_points; i++)
        {
          const double *p = geometry->positions + 3 * i;
          if (!point_is_finite (p))
            continue;
          uint32_t bucket = hash->point_bucket[k++];
          SpatialHashEntry *entry = &hash->entries[start[bucket]++];
          spatial_hash_cell (hash, p, entry->cell);
          entry->geometry = (uint32_t) g;
          entry->point = (uint32_t) i;
          memcpy (entry->position, p, sizeof entry->position);
        }
    }
  /* After the scatter start[b] is the end of bucket b, i.e. the start of bucket b + 1. */
  for (uint32_t b = hash->table_size; b > 0; b--)
    start[b] = start[b - 1];
  start[0] = 0;
}

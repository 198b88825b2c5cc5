/* Open-addressing map from fixed-size keys to 3-vectors (sparse_map.h). */
#include <string.h>

#include "sparse_map.h"

/* Slots start at 64 and double when more than half are used, keeping probe chains short. */
#define SPARSE_INITIAL_CAPACITY 64u

static uint32_t
key_hash (const uint32_t key[SPARSE_KEY_WORDS])
{
  /* FNV-1a over the words, then a final avalanche (murmur3's fmix32). */
  uint32_t h = 2166136261u;
  for (int k = 0; k < SPARSE_KEY_WORDS; k++)
    h = (h ^ key[k]) * 16777619u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

void
sparse_map_init (SparseMap *map)
{
  map->entries = g_array_new (FALSE, FALSE, sizeof (SparseEntry));
  map->capacity = SPARSE_INITIAL_CAPACITY;
  map->slots = g_new0 (uint32_t, map->capacity);
}

void
sparse_map_clear (SparseMap *map)
{
  g_clear_pointer (&map->entries, g_array_unref);
  g_clear_pointer (&map->slots, g_free);
  map->capacity = 0;
}

static size_t
probe (const SparseMap *map, const uint32_t key[SPARSE_KEY_WORDS])
{
  size_t mask = map->capacity - 1;
  for (size_t s = key_hash (key) & mask;; s = (s + 1) & mask)
    {
      uint32_t e = map->slots[s];
      if (e == 0
          || memcmp (g_array_index (map->entries, SparseEntry, e - 1).key, key,
                     sizeof (uint32_t) * SPARSE_KEY_WORDS) == 0)
        return s;
    }
}

uint32_t
sparse_map_find (const SparseMap *map, const uint32_t key[SPARSE_KEY_WORDS])
{
  uint32_t e = map->slots[probe (map, key)];
  return e == 0 ? G_MAXUINT32 : e - 1;
}

uint32_t
sparse_map_index (SparseMap *map, const uint32_t key[SPARSE_KEY_WORDS])
{
  size_t s = probe (map, key);
  if (map->slots[s] != 0)
    return map->slots[s] - 1;
  SparseEntry entry = { { 0 }, { 0, 0, 0 } };
  memcpy (entry.key, key, sizeof entry.key);
  g_array_append_val (map->entries, entry);
  map->slots[s] = map->entries->len;
  if (2 * (size_t) map->entries->len > map->capacity)
    {
      g_free (map->slots);
      map->capacity *= 2;
      map->slots = g_new0 (uint32_t, map->capacity);
      for (uint32_t e = 0; e < map->entries->len; e++)
        map->slots[probe (map, g_array_index (map->entries, SparseEntry, e).key)] = e + 1;
    }
  return map->entries->len - 1;
}

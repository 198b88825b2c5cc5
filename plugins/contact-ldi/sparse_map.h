/* A map from small fixed-size integer keys to 3-vectors of doubles, in insertion order: the
 * accumulator of per-pair volumes and per-vertex gradients of intersection_volume.c. Open
 * addressing over an index array; entries stay in insertion order, so walking them is as
 * deterministic as the insertions were. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

#define SPARSE_KEY_WORDS 5

typedef struct SparseEntry {
  uint32_t key[SPARSE_KEY_WORDS];
  double value[3];
} SparseEntry;

typedef struct SparseMap {
  GArray *entries;      /* SparseEntry, in insertion order */
  uint32_t *slots;      /* capacity: entry index + 1, 0 when empty */
  size_t capacity;      /* a power of two */
} SparseMap;

void sparse_map_init (SparseMap *map);
void sparse_map_clear (SparseMap *map);
/* The index of the entry with this key, inserted with a zero value when missing. */
uint32_t sparse_map_index (SparseMap *map, const uint32_t key[SPARSE_KEY_WORDS]);
/* The index of the entry with this key, or G_MAXUINT32. */
uint32_t sparse_map_find (const SparseMap *map, const uint32_t key[SPARSE_KEY_WORDS]);

static inline SparseEntry *
sparse_map_entry (SparseMap *map, uint32_t index)
{
  return &g_array_index (map->entries, SparseEntry, index);
}

static inline uint32_t
sparse_map_size (const SparseMap *map)
{
  return map->entries->len;
}

G_END_DECLS

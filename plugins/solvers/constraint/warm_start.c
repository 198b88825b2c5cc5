/* The warm-start cache (see the header): an open-addressing hash table from contact identity
 * to world-frame force, rebuilt from the last store at the first look-up after it, so a step
 * allocates nothing once the number of contacts settles, and a step that looks nothing up
 * (a velocity pass on the operator kept, which takes the last forces row by row) builds no
 * table. */
#include "warm_start.h"

#include "frame_rows.h"

/* A slot of the table; id 0 is an empty slot (0 is "no identity" in the ABI). */
typedef struct Slot {
  guint64 id;
  double force[3];   /* world frame, N */
} Slot;

/* A kept frame that had no identity: found again by its body pair and its origin. */
typedef struct Anonymous {
  guint64 pair;      /* body_a << 32 | body_b */
  double origin[3];
  double force[3];   /* world frame, N */
} Anonymous;

/* A frame's force as the last store gave it, before the table is built from it. */
typedef struct Stored {
  guint64 id;        /* 0: none (the frame is kept by pair and origin where it has an area) */
  gboolean has_area;
  Anonymous kept;
} Stored;

struct WarmStart {
  GArray *slots;     /* Slot, a power of two in size, at most half full */
  size_t used;
  GArray *anonymous; /* Anonymous, sorted by pair */
  GArray *stored;    /* Stored: the last store, while `built` is FALSE */
  gboolean built;    /* slots and anonymous hold `stored` */
};

WarmStart *
warm_start_new (void)
{
  WarmStart *cache = g_new0 (WarmStart, 1);
  cache->slots = g_array_new (FALSE, TRUE, sizeof (Slot));
  cache->anonymous = g_array_new (FALSE, FALSE, sizeof (Anonymous));
  cache->stored = g_array_new (FALSE, FALSE, sizeof (Stored));
  cache->built = TRUE;
  return cache;
}

void
warm_start_free (WarmStart *cache)
{
  if (cache == NULL)
    return;
  g_array_unref (cache->slots);
  g_array_unref (cache->anonymous);
  g_array_unref (cache->stored);
  g_free (cache);
}

static void
empty_table (WarmStart *cache)
{
  if (cache->slots->len > 0)
    memset (cache->slots->data, 0, (size_t) cache->slots->len * sizeof (Slot));
  cache->used = 0;
  g_array_set_size (cache->anonymous, 0);
}

void
warm_start_forget (WarmStart *cache)
{
  empty_table (cache);
  g_array_set_size (cache->stored, 0);
  cache->built = TRUE;
}

static void build_table (WarmStart *cache);

size_t
warm_start_size (WarmStart *cache)
{
  build_table (cache);
  return cache->used + cache->anonymous->len;
}

static guint64
pair_of (const CwbContactFrame *frame)
{
  return ((guint64) frame->body_a << 32) | frame->body_b;
}

static int
compare_anonymous (const void *a, const void *b)
{
  guint64 pa = ((const Anonymous *) a)->pair, pb = ((const Anonymous *) b)->pair;
  return pa < pb ? -1 : pa > pb;
}

/* The kept frame without identity that stands for `frame`: of the same body pair, the one
 * whose origin is nearest, if within the frame's reach: half the side of its contact area
 * (a volume contact, or an LDI cell, moves less than that in a step while it lasts). Point
 * contacts without identity have no area and are not matched. */
static const double *
anonymous_force (const WarmStart *cache, const CwbContactFrame *frame)
{
  if (!(frame->area > 0) || cache->anonymous->len == 0)
    return NULL;
  const Anonymous *kept = (const Anonymous *) cache->anonymous->data;
  guint64 pair = pair_of (frame);
  size_t lo = 0, hi = cache->anonymous->len;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (kept[mid].pair < pair)
        lo = mid + 1;
      else
        hi = mid;
    }
  double reach2 = 0.25 * frame->area, best = reach2;
  const double *force = NULL;
  for (size_t k = lo; k < cache->anonymous->len && kept[k].pair == pair; k++)
    {
      double d[3];
      cwb_v3_sub (d, kept[k].origin, frame->origin);
      double d2 = cwb_v3_dot (d, d);
      if (d2 <= best)
        {
          best = d2;
          force = kept[k].force;
        }
    }
  return force;
}

/* The slot holding `id`, or the empty slot where it would go. The identities of point
 * contacts are packed indices, far from random: mixed (cwb_contact_id_mix) they spread over
 * the table. */
static Slot *
probe (const WarmStart *cache, guint64 id)
{
  size_t mask = cache->slots->len - 1;
  Slot *slots = (Slot *) cache->slots->data;
  for (size_t k = (size_t) cwb_contact_id_mix (id) & mask;; k = (k + 1) & mask)
    if (slots[k].id == id || slots[k].id == 0)
      return &slots[k];
}

/* The frame's normal row and tangent rows (frame_rows.h); FALSE when it has no normal row
 * (nothing to warm-start). */
static gboolean
frame_rows (const CwbContactSet *set, const CwbContactFrame *frame, int rows[3])
{
  return frame_block_rows ((const CwbConstraintRow *) set->rows->data, set->rows->len, frame,
                           rows) >= 0;
}

/* The force kept for frame k of `set`: by its identity, or by its pair for a model that gives
 * none; NULL when the last store kept none. */
static const double *
kept_force (WarmStart *cache, const CwbContactSet *set, guint k)
{
  guint64 id = cwb_contact_set_id (set, k);
  if (id == 0)
    return anonymous_force (cache, &g_array_index (set->frames, CwbContactFrame, k));
  const Slot *slot = probe (cache, id);
  return slot->id == id ? slot->force : NULL;
}

size_t
warm_start_guess (WarmStart *cache, const CwbContactSet *set, CwbFrictionLaw law,
                  double factor, double *f)
{
  if (warm_start_size (cache) == 0 || !(factor > 0))
    return 0;
  size_t found = 0;
  for (guint k = 0; k < set->frames->len; k++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, k);
      int rows[3];
      if (!frame_rows (set, frame, rows))
        continue;
      const double *force = kept_force (cache, set, k);
      if (force == NULL)
        continue;
      /* The kept force on the new frame, then back in Signorini's and Coulomb's sets. */
      double f_n = MAX (0, cwb_v3_dot (force, frame->normal));
      double f_t[2] = { rows[1] >= 0 ? cwb_v3_dot (force, frame->t1) : 0,
                        rows[2] >= 0 ? cwb_v3_dot (force, frame->t2) : 0 };
      double radius = frame->mu * f_n;
      double gauge = cwb_friction_gauge (law, f_t);
      double scale = gauge > radius ? radius / gauge : 1;
      f[rows[0]] = factor * f_n;
      for (int a = 0; a < 2; a++)
        if (rows[1 + a] >= 0)
          f[rows[1 + a]] = factor * scale * f_t[a];
      found++;
    }
  return found;
}

gboolean
warm_start_kept (WarmStart *cache, const CwbContactSet *set, guint frame)
{
  return warm_start_size (cache) > 0 && frame < set->frames->len
         && kept_force (cache, set, frame) != NULL;
}

/* Grows the table to hold n identities at most half full, and empties it. */
static void
reset_for (WarmStart *cache, size_t n)
{
  size_t size = 16;
  while (size < 2 * n)
    size *= 2;
  if (cache->slots->len != size)
    g_array_set_size (cache->slots, (guint) size);
  empty_table (cache);
}

void
warm_start_store (WarmStart *cache, const CwbContactSet *set, const double *f)
{
  g_array_set_size (cache->stored, 0);
  cache->built = FALSE;
  for (guint k = 0; k < set->frames->len; k++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, k);
      int rows[3];
      if (!frame_rows (set, frame, rows))
        continue;
      Stored stored = { .id = cwb_contact_set_id (set, k), .has_area = frame->area > 0,
                        .kept = { .pair = pair_of (frame) } };
      double *force = stored.kept.force;
      cwb_v3_axpy (force, f[rows[0]], frame->normal);
      if (rows[1] >= 0)
        cwb_v3_axpy (force, f[rows[1]], frame->t1);
      if (rows[2] >= 0)
        cwb_v3_axpy (force, f[rows[2]], frame->t2);
      cwb_v3_copy (stored.kept.origin, frame->origin);
      g_array_append_val (cache->stored, stored);
    }
}

/* Builds the table from the last store, once. */
static void
build_table (WarmStart *cache)
{
  if (cache->built)
    return;
  cache->built = TRUE;
  reset_for (cache, cache->stored->len);
  const Stored *stored = (const Stored *) cache->stored->data;
  for (guint k = 0; k < cache->stored->len; k++)
    {
      if (stored[k].id == 0)
        {
          if (stored[k].has_area)
            g_array_append_val (cache->anonymous, stored[k].kept);
          continue;
        }
      Slot *slot = probe (cache, stored[k].id);
      if (slot->id == stored[k].id)
        continue;   /* a model that repeated an identity: the first frame keeps it */
      slot->id = stored[k].id;
      cwb_v3_copy (slot->force, stored[k].kept.force);
      cache->used++;
    }
  /* Stable for equal pairs, so that the numbering stays deterministic (qsort is not). */
  g_array_sort (cache->anonymous, compare_anonymous);
}

/* Time-coherent static friction (see static_friction.h). */
#include "static_friction.h"

/* The secant step divides by u^k - u^(k-1); below this (m/s) the two iterates are
 * indistinguishable in double and the step falls back to the fixed-point one. */
#define SECANT_MIN_DENOMINATOR 1e-15

struct FrictionMemory {
  GArray *states;   /* FrictionState, sorted by (point_key, surface_geometry) */
  guint64 step;
};

FrictionMemory *
friction_memory_new (void)
{
  FrictionMemory *m = g_new0 (FrictionMemory, 1);
  m->states = g_array_new (FALSE, FALSE, sizeof (FrictionState));
  return m;
}

void
friction_memory_free (FrictionMemory *memory)
{
  if (memory == NULL)
    return;
  g_array_unref (memory->states);
  g_free (memory);
}

void
friction_memory_begin_step (FrictionMemory *memory)
{
  memory->step++;
}

static int
compare_state (guint64 key, uint32_t surface, const FrictionState *s)
{
  if (key != s->point_key)
    return key < s->point_key ? -1 : 1;
  return (surface > s->surface_geometry) - (surface < s->surface_geometry);
}

FrictionState *
friction_memory_lookup (FrictionMemory *memory, guint64 point_key, uint32_t surface_geometry)
{
  GArray *a = memory->states;
  guint lo = 0, hi = a->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int c = compare_state (point_key, surface_geometry, &g_array_index (a, FrictionState, mid));
      if (c == 0)
        {
          FrictionState *s = &g_array_index (a, FrictionState, mid);
          s->seen = memory->step;
          return s;
        }
      if (c < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
  FrictionState fresh = {
    .point_key = point_key, .surface_geometry = surface_geometry,
    .lambda = 1, .normal_force = NAN, .seen = memory->step,
  };
  g_array_insert_val (a, lo, fresh);
  return &g_array_index (a, FrictionState, lo);
}

void
friction_memory_end_step (FrictionMemory *memory)
{
  GArray *a = memory->states;
  guint out = 0;
  for (guint k = 0; k < a->len; k++)
    if (g_array_index (a, FrictionState, k).seen == memory->step)
      g_array_index (a, FrictionState, out++) = g_array_index (a, FrictionState, k);
  g_array_set_size (a, out);
}

size_t
friction_memory_size (const FrictionMemory *memory)
{
  return memory->states->len;
}

void
friction_memory_clear (FrictionMemory *memory)
{
  g_array_set_size (memory->states, 0);
}

typedef struct SavedHeader {
  guint32 magic;        /* SAVED_MAGIC */
  guint32 state_size;   /* sizeof (FrictionState) of the build that wrote it */
  guint64 step;
} SavedHeader;

#define SAVED_MAGIC 0x50465231u   /* "PFR1" */

GBytes *
friction_memory_save (const FrictionMemory *memory)
{
  SavedHeader header = { .magic = SAVED_MAGIC, .state_size = sizeof (FrictionState),
                         .step = memory->step };
  size_t states = memory->states->len * sizeof (FrictionState);
  guint8 *data = g_malloc (sizeof header + states);
  memcpy (data, &header, sizeof header);
  if (states > 0)
    memcpy (data + sizeof header, memory->states->data, states);
  return g_bytes_new_take (data, sizeof header + states);
}

gboolean
friction_memory_restore (FrictionMemory *memory, GBytes *bytes, GError **error)
{
  size_t size = 0;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  SavedHeader header;
  if (size >= sizeof header)
    memcpy (&header, data, sizeof header);
  if (size < sizeof header || header.magic != SAVED_MAGIC
      || header.state_size != sizeof (FrictionState)
      || (size - sizeof header) % sizeof (FrictionState) != 0)
    {
      g_set_error (error, g_quark_from_string ("penalty"), 0,
                   "friction memory: %zu bytes are not a state this build of the penalty "
                   "model saved", size);
      return FALSE;
    }
  guint n = (guint) ((size - sizeof header) / sizeof (FrictionState));
  g_array_set_size (memory->states, n);
  if (n > 0)
    memcpy (memory->states->data, data + sizeof header, n * sizeof (FrictionState));
  memory->step = header.step;
  return TRUE;
}

double
friction_gamma (double u_tilde, double u_star)
{
  if (u_star > 0 || !(u_tilde > 0))
    return 1;   /* f_max is not enough to stop the sliding: dynamic friction */
  return u_tilde / (u_tilde - u_star);   /* eq. 13 */
}

void
friction_update (FrictionState *state, double u, FrictionIteration iteration, double alpha,
                 double lambda_max)
{
  double next;
  double du = u - state->u_prev;
  if (iteration == FRICTION_SECANT && state->has_prev && fabs (du) > SECANT_MIN_DENOMINATOR)
    next = state->lambda - (state->lambda - state->lambda_prev) / du * u;   /* eq. 19 */
  else
    next = state->lambda - alpha * u;   /* eq. 17: the fixed point of lambda - alpha u */
  state->lambda_prev = state->lambda;
  state->u_prev = u;
  state->has_prev = TRUE;
  state->lambda = CLAMP (next, 0, lambda_max);
}

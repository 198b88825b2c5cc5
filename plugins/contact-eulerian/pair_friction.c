/* Pair friction as a bounded tangential spring (see the header). */
#include "pair_friction.h"

#include <math.h>

typedef struct PairSpring {
  guint64 id;
  double u[3];
} PairSpring;

#define SAVED_MAGIC 0x45554650u   /* "EUFP" */

struct PairFriction {
  GArray *last;        /* PairSpring: the last detection's */
  GArray *next;        /* PairSpring: this detection's */
  GHashTable *index;   /* id -> position in last + 1 */
};

PairFriction *
pair_friction_new (void)
{
  PairFriction *f = g_new0 (PairFriction, 1);
  f->last = g_array_new (FALSE, FALSE, sizeof (PairSpring));
  f->next = g_array_new (FALSE, FALSE, sizeof (PairSpring));
  f->index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return f;
}

void
pair_friction_free (PairFriction *f)
{
  if (f == NULL)
    return;
  g_array_unref (f->last);
  g_array_unref (f->next);
  g_hash_table_unref (f->index);
  g_free (f);
}

static void
index_last (PairFriction *f)
{
  g_hash_table_remove_all (f->index);
  for (guint k = 0; k < f->last->len; k++)
    {
      gint64 *key = g_new (gint64, 1);
      *key = (gint64) g_array_index (f->last, PairSpring, k).id;
      g_hash_table_insert (f->index, key, GUINT_TO_POINTER (k + 1));
    }
}

void
pair_friction_begin (PairFriction *f)
{
  g_array_set_size (f->next, 0);
  index_last (f);
}

void
pair_friction_end (PairFriction *f)
{
  GArray *swap = f->last;
  f->last = f->next;
  f->next = swap;
  g_array_set_size (f->next, 0);
  g_hash_table_remove_all (f->index);
}

gboolean
pair_friction_force (PairFriction *f, guint64 id, const double normal[3], double normal_force,
                     double mu, const double velocity[3], double stiffness, double damping,
                     double h, double force[3])
{
  PairSpring spring = { .id = id };
  gint64 key = (gint64) id;
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (f->index, &key));
  double vt[3];
  cwb_v3_copy (vt, velocity);
  cwb_v3_axpy (vt, -cwb_v3_dot (velocity, normal), normal);
  if (at > 0)
    {
      /* The last displacement, turned into this tangent plane with its length kept. */
      const double *u = g_array_index (f->last, PairSpring, at - 1).u;
      double length = cwb_v3_norm (u);
      cwb_v3_copy (spring.u, u);
      cwb_v3_axpy (spring.u, -cwb_v3_dot (u, normal), normal);
      double projected = cwb_v3_norm (spring.u);
      if (projected > 0)
        cwb_v3_scale (spring.u, spring.u, length / projected);
    }
  cwb_v3_axpy (spring.u, h, vt);
  for (int c = 0; c < 3; c++)
    force[c] = -stiffness * spring.u[c] - damping * vt[c];
  double magnitude = cwb_v3_norm (force), bound = mu * MAX (normal_force, 0);
  gboolean slips = magnitude > bound;
  if (slips)
    {
      /* On the cone: the spring holds what the dashpot does not give. */
      double scale = magnitude > 0 ? bound / magnitude : 0;
      cwb_v3_scale (force, force, scale);
      for (int c = 0; c < 3; c++)
        spring.u[c] = stiffness > 0 ? -(force[c] + damping * vt[c]) / stiffness : 0;
    }
  g_array_append_val (f->next, spring);
  return slips;
}

typedef struct SavedHeader {
  guint32 magic;
  guint32 spring_size;
} SavedHeader;

GBytes *
pair_friction_save (const PairFriction *f)
{
  SavedHeader header = { .magic = SAVED_MAGIC, .spring_size = sizeof (PairSpring) };
  size_t springs = f->last->len * sizeof (PairSpring);
  guint8 *data = g_malloc (sizeof header + springs);
  memcpy (data, &header, sizeof header);
  if (springs > 0)
    memcpy (data + sizeof header, f->last->data, springs);
  return g_bytes_new_take (data, sizeof header + springs);
}

gboolean
pair_friction_restore (PairFriction *f, GBytes *bytes, GError **error)
{
  size_t size = 0;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  SavedHeader header = { 0 };
  if (size >= sizeof header)
    memcpy (&header, data, sizeof header);
  if (size < sizeof header || header.magic != SAVED_MAGIC
      || header.spring_size != sizeof (PairSpring)
      || (size - sizeof header) % sizeof (PairSpring) != 0)
    {
      g_set_error (error, g_quark_from_static_string ("eulerian"), 0,
                   "friction memory: %zu bytes are not a state this build of the eulerian "
                   "model saved", size);
      return FALSE;
    }
  guint n = (guint) ((size - sizeof header) / sizeof (PairSpring));
  g_array_set_size (f->last, n);
  if (n > 0)
    memcpy (f->last->data, data + sizeof header, n * sizeof (PairSpring));
  g_array_set_size (f->next, 0);
  return TRUE;
}

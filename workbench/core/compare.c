/* A/B compare: the difference of two worlds built from one scene, bodies matched by name. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "compare.h"

/* One side's moving bodies: names and summaries, from a world or a snapshot. */
typedef struct Side {
  GPtrArray *names;      /* const char *, borrowed */
  GArray *summaries;     /* CwbBodySummary */
  GArray *index;         /* int: each one's index among all the side's bodies */
  double kinetic_energy;
  size_t contacts;
} Side;

static void
side_init (Side *side, size_t n)
{
  side->names = g_ptr_array_sized_new ((guint) n);
  side->summaries = g_array_sized_new (FALSE, FALSE, sizeof (CwbBodySummary), (guint) n);
  side->index = g_array_sized_new (FALSE, FALSE, sizeof (int), (guint) n);
  side->kinetic_energy = 0;
  side->contacts = 0;
}

static void
side_clear (Side *side)
{
  g_ptr_array_unref (side->names);
  g_array_unref (side->summaries);
  g_array_unref (side->index);
}

static void
side_add (Side *side, int index, const char *name, gboolean fixed,
          const CwbBodySummary *summary)
{
  side->kinetic_energy += summary->kinetic_energy;
  if (fixed)
    return;
  g_ptr_array_add (side->names, (gpointer) name);
  g_array_append_val (side->summaries, *summary);
  g_array_append_val (side->index, index);
}

double
cwb_compare_angle (const double a[4], const double b[4])
{
  /* The angle between the two points on the unit sphere of R^4, taken on the same
   * hemisphere: 2 atan2 (|a - b|, |a + b|) is the half angle's double without cancellation. */
  double sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
  double diff = 0, sum = 0;
  for (int k = 0; k < 4; k++)
    {
      double d = a[k] - sign * b[k], s = a[k] + sign * b[k];
      diff += d * d;
      sum += s * s;
    }
  return 4 * atan2 (sqrt (diff), sqrt (sum));
}

static void
compare_sides (const Side *a, const Side *b, CwbCompareMeasure *out)
{
  memset (out, 0, sizeof *out);
  out->farthest = -1;
  out->kinetic_energy[0] = a->kinetic_energy;
  out->kinetic_energy[1] = b->kinetic_energy;
  out->contacts[0] = a->contacts;
  out->contacts[1] = b->contacts;
  g_autoptr (GHashTable) in_b = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint j = 0; j < b->names->len; j++)
    g_hash_table_insert (in_b, b->names->pdata[j], GUINT_TO_POINTER (j + 1));
  for (guint i = 0; i < a->names->len; i++)
    {
      guint j = GPOINTER_TO_UINT (g_hash_table_lookup (in_b, a->names->pdata[i]));
      if (j == 0)
        continue;
      const CwbBodySummary *sa = &g_array_index (a->summaries, CwbBodySummary, i);
      const CwbBodySummary *sb = &g_array_index (b->summaries, CwbBodySummary, j - 1);
      double d[3];
      cwb_v3_sub (d, sa->centroid, sb->centroid);
      double distance = cwb_v3_norm (d);
      if (out->farthest < 0 || distance > out->max_distance)
        {
          out->max_distance = distance;
          out->farthest = g_array_index (a->index, int, i);
        }
      out->max_angle = fmax (out->max_angle,
                             cwb_compare_angle (sa->orientation, sb->orientation));
      out->matched++;
    }
}

static void
world_side (const CwbWorld *world, Side *side)
{
  size_t n = cwb_world_n_bodies (world);
  side_init (side, n);
  for (size_t i = 0; i < n; i++)
    {
      CwbBodySummary summary;
      cwb_world_body_summary (world, i, &summary);
      side_add (side, (int) i, cwb_world_body_name (world, i),
                cwb_world_body_slot (world, i)->fixed, &summary);
    }
  side->contacts = cwb_world_last_stats (world)->contacts;
}

void
cwb_compare_worlds (const CwbWorld *a, const CwbWorld *b, CwbCompareMeasure *out)
{
  Side sa, sb;
  world_side (a, &sa);
  world_side (b, &sb);
  compare_sides (&sa, &sb, out);
  side_clear (&sa);
  side_clear (&sb);
}

static void
snapshot_side (const CwbSnapshot *snapshot, Side *side)
{
  side_init (side, snapshot->n_bodies);
  for (size_t i = 0; i < snapshot->n_bodies; i++)
    side_add (side, (int) i, snapshot->bodies[i].name, snapshot->bodies[i].fixed,
              &snapshot->bodies[i].summary);
  side->contacts = snapshot->stats.contacts;
}

void
cwb_compare_snapshots (const CwbSnapshot *a, const CwbSnapshot *b, CwbCompareMeasure *out)
{
  Side sa, sb;
  snapshot_side (a, &sa);
  snapshot_side (b, &sb);
  compare_sides (&sa, &sb, out);
  side_clear (&sa);
  side_clear (&sb);
}

char *
cwb_compare_b_path (const char *path)
{
  const char *base = strrchr (path, G_DIR_SEPARATOR);
  base = base != NULL ? base + 1 : path;
  const char *dot = strrchr (base, '.');
  if (dot == NULL || dot == base)
    return g_strconcat (path, ".b", NULL);
  return g_strdup_printf ("%.*s.b%s", (int) (dot - path), path, dot);
}

/* The bounded history of snapshots (history.h). */
#include "history.h"

struct CwbHistory {
  GPtrArray *snapshots;    /* CwbSnapshot*, oldest first */
  GArray *bytes;           /* size_t per snapshot, as counted when pushed */
  size_t total_bytes;
  size_t max_states, max_bytes;
};

CwbHistory *
cwb_history_new (size_t max_states, size_t max_bytes)
{
  CwbHistory *h = g_new0 (CwbHistory, 1);
  h->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_snapshot_unref);
  h->bytes = g_array_new (FALSE, FALSE, sizeof (size_t));
  h->max_states = MAX (max_states, 1);
  h->max_bytes = max_bytes;
  return h;
}

void
cwb_history_free (CwbHistory *h)
{
  if (h == NULL)
    return;
  g_ptr_array_unref (h->snapshots);
  g_array_unref (h->bytes);
  g_free (h);
}

/* Drops the oldest `n` snapshots. Removing from the front moves the pointers behind: a few
 * thousand at most, cheap next to a step. */
static void
drop_oldest (CwbHistory *h, size_t n)
{
  for (size_t k = 0; k < n; k++)
    h->total_bytes -= g_array_index (h->bytes, size_t, k);
  g_ptr_array_remove_range (h->snapshots, 0, (guint) n);
  g_array_remove_range (h->bytes, 0, (guint) n);
}

void
cwb_history_push (CwbHistory *h, CwbSnapshot *snapshot)
{
  size_t bytes = cwb_snapshot_bytes (snapshot);
  g_ptr_array_add (h->snapshots, cwb_snapshot_ref (snapshot));
  g_array_append_val (h->bytes, bytes);
  h->total_bytes += bytes;
  size_t excess = 0;
  size_t total = h->total_bytes;
  while (h->snapshots->len - excess > 1
         && (h->snapshots->len - excess > h->max_states || total > h->max_bytes))
    total -= g_array_index (h->bytes, size_t, excess++);
  if (excess > 0)
    drop_oldest (h, excess);
}

size_t
cwb_history_len (const CwbHistory *h)
{
  return h->snapshots->len;
}

CwbSnapshot *
cwb_history_get (const CwbHistory *h, size_t index)
{
  g_return_val_if_fail (index < h->snapshots->len, NULL);
  return g_ptr_array_index (h->snapshots, index);
}

void
cwb_history_truncate (CwbHistory *h, size_t len)
{
  if (len >= h->snapshots->len)
    return;
  for (size_t k = len; k < h->snapshots->len; k++)
    h->total_bytes -= g_array_index (h->bytes, size_t, k);
  g_ptr_array_set_size (h->snapshots, (gint) len);
  g_array_set_size (h->bytes, (guint) len);
}

void
cwb_history_clear (CwbHistory *h)
{
  cwb_history_truncate (h, 0);
}

size_t
cwb_history_bytes (const CwbHistory *h)
{
  return h->total_bytes;
}

/* A parallel loop over work items on a GThreadPool (ldi.h). */
#include "ldi.h"

typedef struct ParallelFor {
  void (*func) (guint item, gpointer data);
  gpointer data;
} ParallelFor;

static void
parallel_for_task (gpointer task, gpointer user_data)
{
  const ParallelFor *loop = user_data;
  loop->func (GPOINTER_TO_UINT (task) - 1, loop->data);
}

void
ldi_parallel_for (guint n_items, guint n_threads, void (*func) (guint item, gpointer data),
                  gpointer data)
{
  if (n_threads == 0)
    n_threads = g_get_num_processors ();
  n_threads = MIN (n_threads, n_items);
  if (n_threads <= 1)
    {
      for (guint item = 0; item < n_items; item++)
        func (item, data);
      return;
    }
  ParallelFor loop = { func, data };
  /* A private (exclusive) pool: its threads start now and end with the loop, so nested or
   * concurrent loops cannot starve each other of the shared pool's threads. */
  GThreadPool *pool = g_thread_pool_new (parallel_for_task, &loop, (gint) n_threads, TRUE, NULL);
  if (pool == NULL)
    {
      for (guint item = 0; item < n_items; item++)
        func (item, data);
      return;
    }
  for (guint item = 0; item < n_items; item++)
    g_thread_pool_push (pool, GUINT_TO_POINTER (item + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
}

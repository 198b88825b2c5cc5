/* The worker-thread simulation (simulation.h).
 *
 * Two locks. `world_lock` is held by whoever uses the world: the worker for one step and its
 * snapshot, or the controlling thread for an edit. `lock` guards the shared bookkeeping (what
 * to do next, the latest snapshot, the history, the statistics). Whoever holds both took
 * `world_lock` first (a step or an edit publishing its snapshot), and nobody waits for
 * `world_lock` while holding `lock`, so they cannot deadlock. A change that waits for the
 * world says so first (`changes_waiting`), and the worker starts no step meanwhile: a mutex
 * is not fair, and a worker stepping as fast as it can would otherwise take the world again
 * and again before the change gets it. */
#include "simulation.h"

#define DEFAULT_HISTORY_STATES 2000
#define DEFAULT_HISTORY_BYTES ((size_t) 512 << 20)
/* Steps of statistics kept for the plots: more than an hour of a 10 ms step; when full the
 * older half goes. */
#define STATS_KEPT 200000
/* Real time falls back to "as fast as possible" for a scene slower than the wall clock; when
 * it lags by more than this it stops trying to catch up, so that it does not then sprint. */
#define REALTIME_MAX_LAG_S 0.1

struct CwbSimulation {
  GThread *thread;
  GMutex world_lock;
  CwbWorld *world;                /* world_lock */
  CwbSnapshot *last_captured;     /* world_lock: shares topology with the next capture */

  GMutex lock;
  GCond changed;                  /* every command and every step's end */
  gboolean quit, playing, stepping;
  guint steps_requested;
  guint64 stop_at;
  gboolean realtime;
  double speed;
  gboolean anchored;              /* real-time pacing: wall time and simulated time */
  gint64 anchor_wall_us;
  double anchor_time;
  CwbSnapshot *latest;
  guint64 revision;
  CwbHistory *history;
  gssize seek;                    /* history entry to resume from, -1 none */
  char *error;
  GArray *stats;                  /* CwbStepStats */
  guint64 stats_first;            /* running index of stats[0] */
  gboolean grab_changed, grab_on;
  CwbGrab grab;
  guint changes_waiting;          /* edits and replacements waiting for world_lock */
  gboolean stages_requested;      /* the next requested step records its stages */
  GPtrArray *stages;              /* CwbSnapshot: the stages of the last recorded step */
};

static void
collect_stage (CwbSnapshot *stage, gpointer data)
{
  g_ptr_array_add (data, stage);
}

/* Under `lock`: makes `snapshot` (taken) the one shown. */
static void
publish (CwbSimulation *sim, CwbSnapshot *snapshot)
{
  g_clear_pointer (&sim->latest, cwb_snapshot_unref);
  sim->latest = snapshot;
  sim->revision++;
  g_cond_broadcast (&sim->changed);
}

/* Under `world_lock`. */
static CwbSnapshot *
capture (CwbSimulation *sim)
{
  CwbSnapshot *snapshot = cwb_snapshot_capture (sim->world, sim->last_captured);
  g_clear_pointer (&sim->last_captured, cwb_snapshot_unref);
  sim->last_captured = cwb_snapshot_ref (snapshot);
  return snapshot;
}

/* Takes `world_lock` for a change between two steps, ahead of the worker's next step. */
static void
take_world (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  sim->changes_waiting++;
  g_mutex_unlock (&sim->lock);
  g_mutex_lock (&sim->world_lock);
  g_mutex_lock (&sim->lock);
  sim->changes_waiting--;
  g_cond_broadcast (&sim->changed);
  g_mutex_unlock (&sim->lock);
}

/* Under `world_lock`: when the user went back in the history, puts the world back in that
 * state and drops the entries after it. */
static gboolean
apply_seek (CwbSimulation *sim, GError **error)
{
  g_mutex_lock (&sim->lock);
  gssize seek = sim->seek;
  CwbSnapshot *from = seek >= 0 ? cwb_snapshot_ref (cwb_history_get (sim->history, (size_t) seek))
                                : NULL;
  sim->seek = -1;
  if (seek >= 0)
    cwb_history_truncate (sim->history, (size_t) seek + 1);
  g_mutex_unlock (&sim->lock);
  if (from == NULL)
    return TRUE;
  /* The contact model's memory only where it is the same model of the same world (the
   * history may hold states from before a swap or a rebuild). */
  const char *model = cwb_world_contact_model_name (sim->world);
  gboolean same_model = from->world_serial == cwb_world_serial (sim->world) && model != NULL
                        && g_strcmp0 (from->contact_model, model) == 0;
  gboolean ok = cwb_world_restore_state (sim->world, from->q, from->nq, from->v, from->nv,
                                         from->time, from->steps,
                                         same_model ? from->contact_state : NULL, error);
  cwb_snapshot_unref (from);
  return ok;
}

/* Under `lock`: the wall time (monotonic, us) at which the next step may start in real time;
 * 0 when it may start now. */
static gint64
realtime_due (CwbSimulation *sim)
{
  gint64 now = g_get_monotonic_time ();
  double time = sim->latest->time;
  if (!sim->anchored
      || (double) (now - sim->anchor_wall_us) * 1e-6 * sim->speed - (time - sim->anchor_time)
           > REALTIME_MAX_LAG_S)
    {
      sim->anchored = TRUE;
      sim->anchor_wall_us = now;
      sim->anchor_time = time;
      return 0;
    }
  gint64 due = sim->anchor_wall_us + (gint64) ((time - sim->anchor_time) / sim->speed * 1e6);
  return due > now ? due : 0;
}

static void
append_stats (CwbSimulation *sim, const CwbStepStats *stats)
{
  if (sim->stats->len >= STATS_KEPT)
    {
      g_array_remove_range (sim->stats, 0, STATS_KEPT / 2);
      sim->stats_first += STATS_KEPT / 2;
    }
  g_array_append_val (sim->stats, *stats);
}

/* One step, entered and left with `lock` released. The step's snapshot is published before
 * `world_lock` is let go, so that an edit waiting for the world publishes after it: the
 * latest snapshot always describes the world as it now is. */
static void
worker_step (CwbSimulation *sim, gboolean grab_changed, gboolean grab_on, const CwbGrab *grab,
             gboolean record_stages)
{
  GError *error = NULL;
  g_mutex_lock (&sim->world_lock);
  gboolean ok = apply_seek (sim, &error);
  if (ok && grab_changed)
    cwb_world_set_grab (sim->world, grab_on ? grab : NULL);
  g_autoptr (GPtrArray) stages = NULL;
  if (record_stages)
    {
      stages = g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_snapshot_unref);
      cwb_world_set_stage_observer (sim->world, collect_stage, stages);
    }
  if (ok)
    ok = cwb_world_step (sim->world, &error);
  if (record_stages)
    cwb_world_set_stage_observer (sim->world, NULL, NULL);
  CwbSnapshot *snapshot = ok ? capture (sim) : NULL;

  g_mutex_lock (&sim->lock);
  sim->stepping = FALSE;
  if (ok && record_stages)
    {
      g_clear_pointer (&sim->stages, g_ptr_array_unref);
      sim->stages = g_steal_pointer (&stages);
    }
  if (ok)
    {
      append_stats (sim, &snapshot->stats);
      cwb_history_push (sim->history, snapshot);
      if (sim->stop_at > 0 && snapshot->steps >= sim->stop_at)
        sim->playing = FALSE;
      publish (sim, snapshot);
    }
  else
    {
      g_free (sim->error);
      sim->error = g_strdup (error->message);
      g_error_free (error);
      sim->playing = FALSE;
      sim->steps_requested = 0;
      g_cond_broadcast (&sim->changed);
    }
  g_mutex_unlock (&sim->lock);
  g_mutex_unlock (&sim->world_lock);
}

static gpointer
worker (gpointer data)
{
  CwbSimulation *sim = data;
  g_mutex_lock (&sim->lock);
  while (!sim->quit)
    {
      if (sim->changes_waiting > 0)
        {
          g_cond_wait (&sim->changed, &sim->lock);
          continue;
        }
      if (!sim->playing && sim->steps_requested == 0)
        {
          sim->anchored = FALSE;
          g_cond_wait (&sim->changed, &sim->lock);
          continue;
        }
      if (sim->playing && sim->realtime)
        {
          gint64 due = realtime_due (sim);
          if (due > 0)
            {
              g_cond_wait_until (&sim->changed, &sim->lock, due);
              continue;
            }
        }
      gboolean record_stages = FALSE;
      if (sim->steps_requested > 0)
        {
          sim->steps_requested--;
          record_stages = sim->stages_requested && !sim->playing;
          sim->stages_requested = FALSE;
        }
      sim->stepping = TRUE;
      gboolean grab_changed = sim->grab_changed, grab_on = sim->grab_on;
      CwbGrab grab = sim->grab;
      sim->grab_changed = FALSE;
      g_mutex_unlock (&sim->lock);
      worker_step (sim, grab_changed, grab_on, &grab, record_stages);
      g_mutex_lock (&sim->lock);
    }
  g_mutex_unlock (&sim->lock);
  return NULL;
}

CwbSimulation *
cwb_simulation_new (CwbWorld *world, const CwbSimulationOptions *options)
{
  CwbSimulation *sim = g_new0 (CwbSimulation, 1);
  g_mutex_init (&sim->world_lock);
  g_mutex_init (&sim->lock);
  g_cond_init (&sim->changed);
  sim->world = world;
  sim->realtime = TRUE;
  sim->speed = 1;
  sim->seek = -1;
  size_t states = options != NULL && options->history_states > 0 ? options->history_states
                                                                 : DEFAULT_HISTORY_STATES;
  size_t bytes = options != NULL && options->history_bytes > 0 ? options->history_bytes
                                                              : DEFAULT_HISTORY_BYTES;
  sim->history = cwb_history_new (states, bytes);
  sim->stats = g_array_new (FALSE, FALSE, sizeof (CwbStepStats));
  /* The initial state is the history's first entry: the user can always go back to it. */
  CwbSnapshot *first = capture (sim);
  cwb_history_push (sim->history, first);
  sim->latest = first;
  sim->thread = g_thread_new ("cwb-simulation", worker, sim);
  return sim;
}

void
cwb_simulation_free (CwbSimulation *sim)
{
  if (sim == NULL)
    return;
  g_mutex_lock (&sim->lock);
  sim->quit = TRUE;
  g_cond_broadcast (&sim->changed);
  g_mutex_unlock (&sim->lock);
  g_thread_join (sim->thread);
  cwb_world_free (sim->world);
  g_clear_pointer (&sim->last_captured, cwb_snapshot_unref);
  g_clear_pointer (&sim->latest, cwb_snapshot_unref);
  cwb_history_free (sim->history);
  g_array_unref (sim->stats);
  g_free (sim->error);
  g_clear_pointer (&sim->stages, g_ptr_array_unref);
  g_cond_clear (&sim->changed);
  g_mutex_clear (&sim->lock);
  g_mutex_clear (&sim->world_lock);
  g_free (sim);
}

void
cwb_simulation_play (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  sim->playing = TRUE;
  g_cond_broadcast (&sim->changed);
  g_mutex_unlock (&sim->lock);
}

void
cwb_simulation_pause (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  sim->playing = FALSE;
  sim->steps_requested = 0;
  g_cond_broadcast (&sim->changed);
  while (sim->stepping)
    g_cond_wait (&sim->changed, &sim->lock);
  g_mutex_unlock (&sim->lock);
}

gboolean
cwb_simulation_is_playing (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  gboolean playing = sim->playing;
  g_mutex_unlock (&sim->lock);
  return playing;
}

void
cwb_simulation_step (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  if (!sim->playing)
    {
      sim->steps_requested++;
      g_cond_broadcast (&sim->changed);
    }
  g_mutex_unlock (&sim->lock);
}

void
cwb_simulation_step_stages (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  if (!sim->playing)
    {
      sim->steps_requested++;
      sim->stages_requested = TRUE;
      g_clear_pointer (&sim->stages, g_ptr_array_unref);
      g_cond_broadcast (&sim->changed);
    }
  g_mutex_unlock (&sim->lock);
}

GPtrArray *
cwb_simulation_take_stages (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  GPtrArray *stages = g_steal_pointer (&sim->stages);
  g_mutex_unlock (&sim->lock);
  return stages;
}

void
cwb_simulation_wait_idle (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  while (sim->playing || sim->steps_requested > 0 || sim->stepping)
    g_cond_wait (&sim->changed, &sim->lock);
  g_mutex_unlock (&sim->lock);
}

void
cwb_simulation_set_realtime (CwbSimulation *sim, gboolean realtime, double speed)
{
  g_mutex_lock (&sim->lock);
  sim->realtime = realtime;
  sim->speed = speed > 0 ? speed : 1;
  sim->anchored = FALSE;
  g_cond_broadcast (&sim->changed);
  g_mutex_unlock (&sim->lock);
}

void
cwb_simulation_set_stop_at (CwbSimulation *sim, guint64 steps)
{
  g_mutex_lock (&sim->lock);
  sim->stop_at = steps;
  g_mutex_unlock (&sim->lock);
}

CwbSnapshot *
cwb_simulation_latest (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  CwbSnapshot *snapshot = cwb_snapshot_ref (sim->latest);
  g_mutex_unlock (&sim->lock);
  return snapshot;
}

guint64
cwb_simulation_revision (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  guint64 revision = sim->revision;
  g_mutex_unlock (&sim->lock);
  return revision;
}

char *
cwb_simulation_take_error (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  char *error = g_steal_pointer (&sim->error);
  g_mutex_unlock (&sim->lock);
  return error;
}

void
cwb_simulation_stats_since (CwbSimulation *sim, guint64 *cursor, GArray *out)
{
  g_mutex_lock (&sim->lock);
  if (*cursor < sim->stats_first)
    *cursor = sim->stats_first;
  guint64 end = sim->stats_first + sim->stats->len;
  if (*cursor < end)
    g_array_append_vals (out, &g_array_index (sim->stats, CwbStepStats,
                                              (guint) (*cursor - sim->stats_first)),
                         (guint) (end - *cursor));
  *cursor = end;
  g_mutex_unlock (&sim->lock);
}

gboolean
cwb_simulation_edit (CwbSimulation *sim, CwbSimulationEditFunc func, gpointer data,
                     GError **error)
{
  take_world (sim);
  /* An edit made while looking at an earlier state applies to that state: "go back, swap
   * the contact model, resume" compares two models from the same moment. */
  gboolean ok = apply_seek (sim, error) && func (sim->world, data, error);
  if (ok)
    {
      CwbSnapshot *snapshot = capture (sim);
      g_mutex_lock (&sim->lock);
      publish (sim, snapshot);
      g_mutex_unlock (&sim->lock);
    }
  g_mutex_unlock (&sim->world_lock);
  return ok;
}

gboolean
cwb_simulation_replace_world (CwbSimulation *sim, CwbWorld *world, gboolean carry,
                              const char *const *except, const char *const *renamed)
{
  take_world (sim);
  size_t old_nq, old_nv, new_nq, new_nv;
  cwb_world_q (sim->world, &old_nq);
  cwb_world_v (sim->world, &old_nv);
  cwb_world_q (world, &new_nq);
  cwb_world_v (world, &new_nv);
  gboolean keep_history = carry && old_nq == new_nq && old_nv == new_nv;
  if (carry)
    {
      g_autoptr (GError) error = NULL;
      if (!apply_seek (sim, &error))
        g_warning ("going back in the history before an edit: %s", error->message);
      cwb_world_carry_state (world, sim->world, except, renamed);
    }
  CwbWorld *old = sim->world;
  sim->world = world;
  g_clear_pointer (&sim->last_captured, cwb_snapshot_unref);
  CwbSnapshot *snapshot = capture (sim);
  g_mutex_lock (&sim->lock);
  sim->seek = -1;
  sim->grab_changed = sim->grab_on;   /* the new world has no grab yet */
  /* apply_seek left the state the edit applies to last; the edited state takes its place. */
  if (keep_history && cwb_history_len (sim->history) > 0)
    cwb_history_truncate (sim->history, cwb_history_len (sim->history) - 1);
  else
    cwb_history_clear (sim->history);
  cwb_history_push (sim->history, snapshot);
  sim->anchored = FALSE;
  publish (sim, snapshot);
  g_mutex_unlock (&sim->lock);
  g_mutex_unlock (&sim->world_lock);
  cwb_world_free (old);
  return keep_history;
}

void
cwb_simulation_set_grab (CwbSimulation *sim, const CwbGrab *grab)
{
  g_mutex_lock (&sim->lock);
  sim->grab_changed = TRUE;
  sim->grab_on = grab != NULL;
  if (grab != NULL)
    sim->grab = *grab;
  g_mutex_unlock (&sim->lock);
}

size_t
cwb_simulation_history_len (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  size_t len = cwb_history_len (sim->history);
  g_mutex_unlock (&sim->lock);
  return len;
}

CwbSnapshot *
cwb_simulation_history_get (CwbSimulation *sim, size_t index)
{
  g_mutex_lock (&sim->lock);
  CwbSnapshot *snapshot = index < cwb_history_len (sim->history)
                            ? cwb_snapshot_ref (cwb_history_get (sim->history, index))
                            : NULL;
  g_mutex_unlock (&sim->lock);
  return snapshot;
}

gssize
cwb_simulation_history_position (CwbSimulation *sim)
{
  g_mutex_lock (&sim->lock);
  gssize seek = sim->seek;
  g_mutex_unlock (&sim->lock);
  return seek;
}

void
cwb_simulation_seek (CwbSimulation *sim, size_t index)
{
  cwb_simulation_pause (sim);
  g_mutex_lock (&sim->lock);
  size_t len = cwb_history_len (sim->history);
  if (index < len)
    {
      /* The newest entry is the world's own state: nothing to put back (and the contact
       * model keeps its memory, so pausing and playing changes nothing). */
      sim->seek = index + 1 < len ? (gssize) index : -1;
      publish (sim, cwb_snapshot_ref (cwb_history_get (sim->history, index)));
    }
  g_mutex_unlock (&sim->lock);
}

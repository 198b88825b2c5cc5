/* The simulation: a world stepped by a worker thread, so that the GUI stays responsive while
 * a heavy scene steps. After every step the worker captures a snapshot (snapshot.h), publishes
 * it as the latest and keeps it in the history; the GUI only ever reads snapshots.
 *
 * Anything that changes the world (a swap, a parameter edit, a new world after a scene edit,
 * going back in the history) runs between two steps: the calls below wait for the step in
 * progress, if any, to end. Everything here may be called from any one controlling thread (the
 * GUI's); the worker is internal. */
#pragma once

#include "history.h"
#include "world.h"

G_BEGIN_DECLS

typedef struct CwbSimulationOptions {
  size_t history_states;   /* most snapshots kept (0: default 2000) */
  size_t history_bytes;    /* most memory the history may hold (0: default 512 MiB) */
} CwbSimulationOptions;

typedef struct CwbSimulation CwbSimulation;

/* Takes the world and starts the worker, paused. `options` may be NULL. */
CwbSimulation *cwb_simulation_new (CwbWorld *world, const CwbSimulationOptions *options);
/* Stops and joins the worker, then frees the world. */
void cwb_simulation_free (CwbSimulation *simulation);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbSimulation, cwb_simulation_free)

/* ---- running ------------------------------------------------------------------------- */

void cwb_simulation_play (CwbSimulation *simulation);
/* Returns once the worker is between steps and will start no other: the state is then
 * settled (tests compare it bit for bit). */
void cwb_simulation_pause (CwbSimulation *simulation);
gboolean cwb_simulation_is_playing (CwbSimulation *simulation);
/* One step, when paused (ignored while playing). */
void cwb_simulation_step (CwbSimulation *simulation);
/* Blocks until the worker is paused with no step requested (tests, benchmarks). */
void cwb_simulation_wait_idle (CwbSimulation *simulation);
/* Phase stepping: one step (as cwb_simulation_step) that records the solver's stages; once
 * it is done, cwb_simulation_take_stages gives their snapshots (cwb_snapshot_capture_stage),
 * in order (an empty array: the solver declares none), and NULL before or after a failure. */
void cwb_simulation_step_stages (CwbSimulation *simulation);
GPtrArray *cwb_simulation_take_stages (CwbSimulation *simulation);
/* Real time (the default) paces steps so that simulated time follows the wall clock, scaled
 * by `speed`; otherwise the worker steps as fast as it can. A scene slower than real time
 * simply runs as fast as it can. */
void cwb_simulation_set_realtime (CwbSimulation *simulation, gboolean realtime, double speed);
/* Pauses after the step that reaches `steps` steps in total (0: never). */
void cwb_simulation_set_stop_at (CwbSimulation *simulation, guint64 steps);

/* The snapshot to show (a new reference): the latest step's, or the history's entry the
 * user went back to. */
CwbSnapshot *cwb_simulation_latest (CwbSimulation *simulation);
/* Increases whenever cwb_simulation_latest changes; cheap, for polling from a frame clock. */
guint64 cwb_simulation_revision (CwbSimulation *simulation);

/* The last failure of a step (the worker paused, the world keeps its last good state), or
 * NULL; clears it. */
char *cwb_simulation_take_error (CwbSimulation *simulation);

/* Statistics of every step since `*cursor` (a running count of steps taken, starting at 0),
 * appended to `out` (CwbStepStats); updates the cursor. Steps older than the bound kept
 * (200 000) are skipped. For plots: after a resume from the history, times go back. */
void cwb_simulation_stats_since (CwbSimulation *simulation, guint64 *cursor, GArray *out);

/* ---- changing the world between steps ------------------------------------------------ */

typedef gboolean (*CwbSimulationEditFunc) (CwbWorld *world, gpointer data, GError **error);
/* Runs `func` on the world between steps and publishes a fresh snapshot. While it runs the
 * worker waits. FALSE with the function's error when it fails (it must then leave the world
 * as it was). */
gboolean cwb_simulation_edit (CwbSimulation *simulation, CwbSimulationEditFunc func,
                              gpointer data, GError **error);
/* Replaces the world (taken) by one built from an edited scene. With `carry`, the state of
 * the bodies of the old world goes on in the new one (cwb_world_carry_state; `except` names
 * the bodies that start from their new description, `renamed` pairs old and new names), and
 * when the new world's state has the old one's layout (the same positions and velocities:
 * no body added, removed or re-meshed) the history is kept, its last state replaced by the
 * edited one: going back then resumes an earlier state in the edited world, as after a swap.
 * Otherwise (no carry, or a new layout) the history starts over from the new state. Returns
 * whether the history was kept. */
gboolean cwb_simulation_replace_world (CwbSimulation *simulation, CwbWorld *world,
                                       gboolean carry, const char *const *except,
                                       const char *const *renamed);

/* The mouse spring (cwb_world_set_grab): applied from the next step on; NULL releases. */
void cwb_simulation_set_grab (CwbSimulation *simulation, const CwbGrab *grab);

/* ---- history ------------------------------------------------------------------------- */

size_t cwb_simulation_history_len (CwbSimulation *simulation);
/* A new reference to the history's entry (0 is the oldest kept), or NULL out of range. */
CwbSnapshot *cwb_simulation_history_get (CwbSimulation *simulation, size_t index);
/* The history entry being shown, or -1 when the latest is. */
gssize cwb_simulation_history_position (CwbSimulation *simulation);
/* Pauses and shows history entry `index`. The next step (play or step) first puts the world
 * back in that state (cwb_world_restore_state) and drops the entries after it. */
void cwb_simulation_seek (CwbSimulation *simulation, size_t index);

G_END_DECLS

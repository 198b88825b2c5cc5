/* Sleeping bodies: an island of bodies (connected through contacts, contact_islands.h) whose
 * bodies all moved slower than a speed limit for a time falls asleep: its velocities are set
 * to zero and it takes no free motion, no solve and no corrective motion until it wakes.
 *
 * Wake rule (docs/plugins/constraint.md, "Sleeping"): a sleeping body wakes, with every
 * sleeping body of its island, when
 *   - a contact of this step's detection connects it, through its island, to an awake body
 *     that is not fixed (a box dropped on a sleeping stack; a body that slid against it);
 *   - the host drives it in this step (the mouse spring of a drag, CwbStepContext.body_driven);
 *   - anything the step depends on besides q and v changed (CwbStepContext.edits: a
 *     parameter of the contact model or the solver, a swapped plugin, a state restored from
 *     the history or carried in by an edit), or the state is not the one the solver left
 *     (all wake).
 * Fixed bodies neither sleep nor wake anything. Contacts between sleeping bodies (or a
 * sleeping and a fixed one) keep the force they had when the island fell asleep, which is
 * what the report shows for them and what their solve starts from when they wake. */
#pragma once

#include <cwb/cwb.h>

#include "contact_islands.h"

G_BEGIN_DECLS

typedef struct SleepParams {
  gboolean enabled;
  double speed;   /* m/s; <= 0: automatic per body (sleep_speed_limit) */
  double time;    /* s a body must stay below the speed before its island sleeps */
} SleepParams;

typedef struct Sleep Sleep;

Sleep *sleep_new (void);
void sleep_free (Sleep *sleep);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Sleep, sleep_free)

/* Wakes every body and forgets how long each has been still. */
void sleep_wake_all (Sleep *sleep);

/* At the start of a step: sizes the state to ctx's bodies, wakes every body when ctx's edits
 * differ from the last step's, and wakes the bodies the host drives. */
void sleep_begin_step (Sleep *sleep, CwbStepContext *ctx);

/* Per body, TRUE while it sleeps; NULL when no body sleeps. */
const gboolean *sleep_asleep (const Sleep *sleep);

/* After the velocity pass's detection: wakes the sleeping bodies of every island (through the
 * rows of `set`, H) that also holds an awake body. Returns TRUE when it woke any, so that the
 * step redoes its free motion and detection with them awake. */
gboolean sleep_wake_touched (Sleep *sleep, CwbStepContext *ctx, const CwbContactSet *set);

/* Whether a frame rests on sleeping bodies only (then it is left out of the solves). */
gboolean sleep_frame_asleep (const Sleep *sleep, const CwbContactFrame *frame);

/* At the end of a step (ctx->q, ctx->v final): measures each awake body's speed, the largest
 * of its geometry points', and puts to sleep every island of the last sleep_wake_touched
 * whose bodies have all stayed below their speed limit for params->time (a body without
 * contacts is an island of its own), setting their velocities to zero. */
void sleep_end_step (Sleep *sleep, CwbStepContext *ctx, const SleepParams *params);

/* The speed limit of a body of size `size` (the largest extent of its geometry, m) when the
 * parameter leaves it automatic: min (SLEEP_GRAVITY_SHARE g h, SLEEP_SIZE_SHARE size / time). */
double sleep_speed_limit (const CwbStepContext *ctx, const SleepParams *params, double size);

G_END_DECLS

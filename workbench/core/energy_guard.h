/* The energy guard: a step whose bodies end with far more kinetic energy than anything could
 * have given them since the run (or the last edit) began is a numerical blow-up, even while
 * every speed is finite and below light's (issue 19: a mouse spring on a FEM snake reached
 * 7e11 J in 0.1 s, growing about four times a step, and the run went on).
 *
 * The budget: the kinetic energy when the guard starts (a build, a restore, an edit: the
 * world's edit count changes), plus, every step, the work gravity did on each moving body
 * (m g . (c_before - c_after), when positive) and the mouse spring's stored energy
 * (k d^2 / 2), plus a floor of each moving body's m (|g| L + (1 m/s)^2 / 2), L its size, so
 * that bodies starting at rest have something to move with. A step ending above GROWTH times
 * the budget stops the run. Contacts only take energy out in a sound step; the factor leaves
 * room for what a penalty or a deep overlap gives back (100 times the budget's speeds). */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

#define CWB_ENERGY_GUARD_GROWTH 1e4

typedef struct CwbEnergyGuard {
  gboolean started;
  guint64 edits;            /* the world's edit count the budget began at */
  double budget;            /* J */
  GArray *centroids;        /* double, 3 per body: where the last step left them */
} CwbEnergyGuard;

void cwb_energy_guard_init (CwbEnergyGuard *guard);
void cwb_energy_guard_clear (CwbEnergyGuard *guard);

/* Whether the next check starts the budget over (the first, or the world was edited or
 * changed its bodies): only then does it read the bodies' sizes. */
gboolean cwb_energy_guard_starting (const CwbEnergyGuard *guard, guint64 edits, size_t n_bodies);

/* After a step that left the bodies with `summaries` (one per body), with the mouse spring
 * storing `spring_energy`: FALSE, with the body of largest kinetic energy in *body and why in
 * *why, when the total passed the budget; TRUE otherwise, the budget then advanced. `fixed`
 * is per body; `sizes` too (m), read only when the guard starts (NULL otherwise); `edits`
 * the world's edit count. */
gboolean cwb_energy_guard_check (CwbEnergyGuard *guard, const CwbBodySummary *summaries,
                                 const double *sizes, const gboolean *fixed, size_t n_bodies,
                                 const double gravity[3], double spring_energy, guint64 edits,
                                 int *body, char **why);

G_END_DECLS

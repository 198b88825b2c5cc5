/* Warm start: the contact forces of the last step's velocity-pass solve, kept per contact
 * identity (CwbContactSet.contact_ids, ABI 1.6), as the initial guess of the next solve for
 * the frames that keep their identity. Projected Gauss-Seidel converges linearly from its
 * initial guess, so starting a resting contact from the force it had one step earlier
 * instead of zero removes most of the sweeps a stack needs (Duriez et al. 2006 sec. 4
 * solve each step from scratch; rigid-body engines carry the multipliers, docs/plugins/
 * constraint.md).
 *
 * A force is kept as a world-frame vector F = f_n n + f_t1 t1 + f_t2 t2, so that a contact
 * whose normal turned a little, or whose tangent basis the model chose anew, gets the same
 * force projected on its new frame: f_n = F . n', f_t = (F . t1', F . t2'), then put back in
 * its laws (f_n >= 0, f_t in the friction set of radius mu f_n) and scaled by the warm-start
 * factor. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef struct WarmStart WarmStart;

WarmStart *warm_start_new (void);
void warm_start_free (WarmStart *cache);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WarmStart, warm_start_free)

/* Forgets every contact (a state replaced from outside the step, a swapped contact model). */
void warm_start_forget (WarmStart *cache);

/* Sets f (one per row of `set`, zeroed by the caller) to the kept force of each frame of
 * `set` with an identity kept from the last store, times `factor`. Returns the frames
 * warm-started. */
size_t warm_start_guess (WarmStart *cache, const CwbContactSet *set, CwbFrictionLaw law,
                         double factor, double *f);

/* Whether frame `frame` of `set` is a contact the last store kept (by its identity, or by
 * its pair for a model that gives none): a contact that lasts, not one that just began. */
gboolean warm_start_kept (WarmStart *cache, const CwbContactSet *set, guint frame);

/* Keeps the forces f (one per row of `set`, a solve's result) of the frames of `set` that
 * have an identity, replacing what was kept (looked up from the next guess or query on). */
void warm_start_store (WarmStart *cache, const CwbContactSet *set, const double *f);

/* Contacts kept. */
size_t warm_start_size (WarmStart *cache);

G_END_DECLS

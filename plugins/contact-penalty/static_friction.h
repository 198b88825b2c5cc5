/* Friction of the penalty model (Lazarevych et al. sec. 4.2): dynamic Coulomb friction
 * f_max = -mu |f_n| u / |u| (eq. 7); the stick test comparing u* (the relative velocity
 * that f_max would leave, eq. 11) with u~ (the one without friction); the scaling
 * gamma = u~ / (u~ - u*) that stops the sliding in the model (eq. 13); and the time-coherent
 * per-contact factor lambda (eq. 14) that corrects what the model gets wrong (the
 * post-correction, the coupling of contacts through the bodies), found by one step per time
 * step of a relaxed fixed-point iteration (eq. 16-18) or of the secant method (eq. 19).
 *
 * Velocities here are scalars along the direction of u~ (the paper's Proj). */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef enum FrictionIteration {
  FRICTION_FIXED_POINT = 0,
  FRICTION_SECANT = 1,
} FrictionIteration;

/* The per-contact memory, kept from step to step while the contact lasts. */
typedef struct FrictionState {
  guint64 point_key;          /* penalty_point_key (geometry, point) of i */
  uint32_t surface_geometry;  /* the body of T_i */
  double lambda;              /* the time-coherent scaling (eq. 14), 1 at first contact */
  double lambda_prev, u_prev; /* the secant method's previous iterate (eq. 19) */
  gboolean has_prev;
  double friction[3];         /* last step's friction force on point i (warm start) */
  double normal_force;        /* last step's normal pair force (N), the warm start of the
                               * normal solve; NAN for a contact new in this step */
  guint64 seen;               /* the step it was last used in */
} FrictionState;

typedef struct FrictionMemory FrictionMemory;

FrictionMemory *friction_memory_new (void);
void friction_memory_free (FrictionMemory *memory);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FrictionMemory, friction_memory_free)

/* Starts a step: contacts looked up from now on are marked as seen in it. */
void friction_memory_begin_step (FrictionMemory *memory);
/* The state of a contact, created (lambda = 1, normal_force NAN) if it is new. Valid until the
 * next lookup. */
FrictionState *friction_memory_lookup (FrictionMemory *memory, guint64 point_key,
                                       uint32_t surface_geometry);
/* Forgets the contacts not looked up in this step: a broken contact starts afresh. */
void friction_memory_end_step (FrictionMemory *memory);
size_t friction_memory_size (const FrictionMemory *memory);
void friction_memory_clear (FrictionMemory *memory);
/* The memory as bytes for the host's history (the model's save_state), and back. The blob
 * is only read back in the process that wrote it (the host's rule), so the states are kept
 * as they lie in memory; a header with the layout's size catches a blob of another build. */
GBytes *friction_memory_save (const FrictionMemory *memory);
gboolean friction_memory_restore (FrictionMemory *memory, GBytes *bytes, GError **error);

/* eq. 11-13: given u~ > 0 and u* = u~ - w f_max / dt, the fraction gamma of f_max that
 * brings the relative velocity to zero; 1 (dynamic friction) when u* > 0. */
double friction_gamma (double u_tilde, double u_star);

/* One iteration of eq. 17 (fixed point, lambda <- lambda - alpha u) or eq. 19 (secant) for a
 * sticking contact with relative velocity u (along u~) under the current lambda. The result
 * is kept in [0, lambda_max] (lambda_max = 1 / gamma keeps the force inside the cone). */
void friction_update (FrictionState *state, double u, FrictionIteration iteration,
                      double alpha, double lambda_max);

G_END_DECLS

/* The world: the running scene. Bodies (a body model and a mapping each), one contact model,
 * one solver, their parameters, time, the flat state arrays q and v, and the latest contact
 * set and inspection data. Built from a CwbScene (which it does not keep) and a registry
 * (which must outlive it).
 *
 * The world is what implements the solver's CwbStepContext: it maps bodies to geometries,
 * runs the contact model, chains constraint Jacobians through the mappings into DOF space and
 * times the four phases of Allard 2010 Table 1. */
#pragma once

#include <gio/gio.h>

#include <cwb/cwb.h>

#include "registry.h"
#include "scene.h"

G_BEGIN_DECLS

#define CWB_WORLD_ERROR (cwb_world_error_quark ())
GQuark cwb_world_error_quark (void);

typedef enum CwbWorldError {
  CWB_WORLD_ERROR_STEP_FAILED,   /* the solver failed the step */
  CWB_WORLD_ERROR_BLOW_UP,       /* a non-finite state: the last good state is kept */
  CWB_WORLD_ERROR_EDIT,          /* an edit that does not fit this world (a state of other
                                  * sizes, parameters of a contact model it does not have) */
} CwbWorldError;

typedef enum CwbPhase {
  CWB_PHASE_COLLISION_DETECTION = 0,
  CWB_PHASE_CONTACT_MODELING = 1,
  CWB_PHASE_MECHANICAL_MOTION = 2,
  CWB_PHASE_CONSTRAINT_SOLVER = 3,
  CWB_PHASE_COUNT = 4,
} CwbPhase;

/* Report name of a phase ("collision_detection", ...). */
const char *cwb_phase_name (CwbPhase phase);

/* What one step measured, for the report and the GUI's plots. */
typedef struct CwbStepStats {
  double time;                  /* simulated time after the step */
  double kinetic_energy;
  size_t contacts;              /* contact frames of the last detection */
  double intersection_volume;   /* NAN when the contact model has none */
  double max_penetration;       /* NAN when the contact model has none */
  int solver_iterations;        /* -1 when no solve happened */
  double solver_residual;       /* NAN when no solve happened */
  /* 1 when the solve reached its tolerance, 0 when it stopped at its sweep cap without it,
   * -1 when unknown (no solve, or a solver that does not say its limits, ABI < 1.6). */
  int solver_converged;
  double phase_ms[CWB_PHASE_COUNT];
  /* Time inside the body models' compliance_apply (part of constraint_solver): building
   * the contact-space operator W = H C H^T column by column and the corrective motion,
   * Saupin 2008 Table 2's "compliance computation". */
  double compliance_ms;
  /* Post-stabilization (CwbStepContext.report_stabilization): position passes, -1 when the
   * solver ran none; the violation left beyond tolerance at the step's end, NAN then. */
  int stabilization_passes;
  double stabilization_violation;
} CwbStepStats;

typedef struct CwbWorld CwbWorld;

CwbWorld *cwb_world_new (const CwbScene *scene, CwbRegistry *registry, GError **error);

/* ---- progress and cancellation of long plugin work ------------------------------------ */

/* Where the progress of a plugin's long work goes (a body model precomputing its compliance
 * in create): `what` names it as the plugin words it ("body 'beam': compliance"), and
 * `fraction` is in [0, 1]. It is called on the thread that builds the world or swaps the
 * plugin (a worker thread in the GUI), as often as the plugin reports: a sink that draws must
 * throttle. */
typedef void (*CwbProgressFunc) (const char *what, double fraction, gpointer user_data);

typedef struct CwbWorldBuildOptions {
  CwbProgressFunc progress;     /* may be NULL */
  gpointer user_data;
  /* May be NULL. Cancelling it (from any thread, the sink included) makes the plugin's next
   * progress report return FALSE, so that the plugin stops; the build or swap then fails with
   * G_IO_ERROR_CANCELLED, naming what was being made, and leaves what was there before. */
  GCancellable *cancellable;
} CwbWorldBuildOptions;

/* cwb_world_new with a progress sink and a cancellable (`options` may be NULL), borrowed for
 * the call only. A cancelled build fails with G_IO_ERROR_CANCELLED ("loading cancelled while
 * body 'beam' was being built"), other failures as cwb_world_new's. The registry is only read,
 * so several worlds may be built at once on different threads. */
CwbWorld *cwb_world_new_full (const CwbScene *scene, CwbRegistry *registry,
                              const CwbWorldBuildOptions *options, GError **error);

/* The sink and cancellable that the plugins this world creates from now on report to (swaps,
 * parameter edits and restores that re-create a plugin); NULL: none (reports are only logged
 * at debug level). The options are copied (the cancellable referenced), and are for the
 * thread that then changes the world: set them around the change, and clear them after. */
void cwb_world_set_build_options (CwbWorld *world, const CwbWorldBuildOptions *options);
void cwb_world_free (CwbWorld *world);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbWorld, cwb_world_free)

/* Advances by one time step. On failure the state is the one before the step. */
gboolean cwb_world_step (CwbWorld *world, GError **error);

double cwb_world_time (const CwbWorld *world);
double cwb_world_dt (const CwbWorld *world);
guint64 cwb_world_step_count (const CwbWorld *world);
const CwbStepStats *cwb_world_last_stats (const CwbWorld *world);
/* Residual after each iteration of the last solve (may be empty). */
const double *cwb_world_residual_history (const CwbWorld *world, size_t *n);

size_t cwb_world_n_bodies (const CwbWorld *world);
const char *cwb_world_body_name (const CwbWorld *world, size_t body);
const char *cwb_world_body_model_name (const CwbWorld *world, size_t body);
void cwb_world_body_summary (const CwbWorld *world, size_t body, CwbBodySummary *out);
/* The same at a state (q, v) other than the world's (flat, the world's layout). */
void cwb_world_body_summary_at (const CwbWorld *world, size_t body, const double *q,
                                const double *v, CwbBodySummary *out);
const CwbBodySlot *cwb_world_body_slot (const CwbWorld *world, size_t body);
/* The flat state; writable for editing tools (the GUI's drag, tests). */
double *cwb_world_q (CwbWorld *world, size_t *nq);
double *cwb_world_v (CwbWorld *world, size_t *nv);

const char *cwb_world_contact_model_name (const CwbWorld *world);   /* NULL: none */
const char *cwb_world_solver_name (const CwbWorld *world);
const CwbContactSet *cwb_world_contacts (const CwbWorld *world);
/* Whether the contact set is a detection's at the current state: FALSE before the first step,
 * after the state was replaced (a restore, a carry) and after a step that did not detect. */
gboolean cwb_world_contacts_detected (const CwbWorld *world);
const CwbInspection *cwb_world_inspection (const CwbWorld *world);
/* What the solver's automatic parameters resolved to in the last step (CwbDerivedParam,
 * names without the "solver." prefix; empty before the first step). */
const GArray *cwb_world_solver_derived (const CwbWorld *world);
const CwbGeometry *cwb_world_geometries (const CwbWorld *world, size_t *n);

/* Swaps the contact model or the solver between steps, with body states untouched. The new
 * plugin's parameters come from `params` (CwbSceneParam*, may be NULL: defaults). When the
 * new plugin refuses (its create or attach fails) the previous one stays and the error says
 * why. The contact set is rebuilt from scratch at the next step. */
gboolean cwb_world_set_contact_model (CwbWorld *world, const char *name, GPtrArray *params,
                                      GError **error);
gboolean cwb_world_set_solver (CwbWorld *world, const char *name, GPtrArray *params,
                               GError **error);
/* Puts a contact model (NULL: none) and a solver in place, either or both new, each with its
 * parameters. When both change the new pair is what must fit (a pair refused alone in one
 * order may be taken in the other); when it does not, the old solver comes back with
 * `old_solver_params` and the error says why. */
gboolean cwb_world_set_pair (CwbWorld *world, const char *contact_model,
                             GPtrArray *contact_params, const char *solver,
                             GPtrArray *solver_params, GPtrArray *old_solver_params,
                             GError **error);

/* A hash of the exact bits of q and v (FNV-1a, 64 bits): equal hashes mean bit-identical
 * states, so determinism tests and regression checks can compare runs. */
guint64 cwb_world_state_hash (const CwbWorld *world);
/* The same hash of any flat state (a snapshot's copies of q and v). */
guint64 cwb_state_hash (const double *q, size_t nq, const double *v, size_t nv);

/* ---- editing, history and the mouse spring (the GUI's needs) ------------------------- */

/* A number unique to each world built in this process, so snapshots can tell worlds apart. */
guint64 cwb_world_serial (const CwbWorld *world);

/* The contact model's memory between steps (CwbContactModelVTable.save_state), for the
 * history; NULL when there is no model or it keeps none. */
GBytes *cwb_world_save_contact_state (CwbWorld *world);

/* Puts back a state captured earlier from this world (a snapshot's q, v, time and step
 * count; the sizes must match, CWB_WORLD_ERROR_EDIT otherwise, and then nothing changes).
 * Body states become bit-identical to the captured ones. The contact model is re-created
 * with its current parameters, so nothing of the contacts of the state being left survives
 * (as after a swap): the contact set stays empty until the next step. `contact_state`
 * (may be NULL) is the memory cwb_world_save_contact_state gave at the captured moment, for
 * the same contact model of this world: given back to the new model, the run goes on as it
 * did from there. A grab stays set. */
gboolean cwb_world_restore_state (CwbWorld *world, const double *q, size_t nq, const double *v,
                                  size_t nv, double time, guint64 steps, GBytes *contact_state,
                                  GError **error);

/* Copies into `world` the state of each body of `from` that has a body of the same name, the
 * same body model and the same DOF counts here, except the bodies named in `except`
 * (NULL-terminated, may be NULL); the time and step count too. `renamed` (may be NULL)
 * lists names in pairs, old then new, NULL-terminated: the body called new here takes the
 * state of the one called old in `from` (a rename is no reason to start over). When an edit
 * rebuilds the world during a run, the edited body starts from its new description and the
 * others go on from where they were. The geometries are mapped at the result and the
 * contact set is cleared (its contacts belonged to the state replaced) until the next
 * step. */
void cwb_world_carry_state (CwbWorld *world, const CwbWorld *from, const char *const *except,
                            const char *const *renamed);

/* A live edit of the contact model's or the solver's parameters (kind is
 * CWB_PLUGIN_CONTACT_MODEL or CWB_PLUGIN_SOLVER): `params` (CwbSceneParam*) is the section's
 * whole list, as the scene holds it (names it lacks take their defaults), validated against
 * the schema; the plugin's params_changed is called when it has one, else the plugin is
 * re-created with the new values (a contact model then starts from an empty contact state).
 * On error (a bad value, no contact model: CWB_WORLD_ERROR_EDIT) nothing changes. */
gboolean cwb_world_set_plugin_params (CwbWorld *world, CwbPluginKind kind, GPtrArray *params,
                                      GError **error);

/* The mouse spring (as in SOFA and MuJoCo's simulate): pulls a point of a body's geometry,
 * given by barycentric weights on up to three of its points, towards a world target with
 * the force f = stiffness (target - p) - damping v_p, evaluated at the start of each step
 * and applied through the mapping's J^T as an external force of the free motion. */
typedef struct CwbGrab {
  uint32_t body;
  uint32_t points[3];
  double weights[3];     /* sum to 1; unused points have weight 0 */
  double target[3];
  double stiffness;      /* N/m */
  double damping;        /* N s/m */
} CwbGrab;

/* Sets (or with NULL releases) the grab; the next step uses it. */
void cwb_world_set_grab (CwbWorld *world, const CwbGrab *grab);

/* Phase stepping: while an observer is set, every stage the solver reports during
 * cwb_world_step (CwbSolverVTable.stages, ABI 1.13) is captured as a snapshot of the state
 * it left (cwb_snapshot_capture_stage) and handed to `observe` (which takes it). The step
 * itself goes on exactly as without, bit for bit. NULL: none. */
typedef struct CwbSnapshot CwbSnapshot;
typedef void (*CwbStageObserver) (CwbSnapshot *stage, gpointer data);
void cwb_world_set_stage_observer (CwbWorld *world, CwbStageObserver observe, gpointer data);
/* The stages the world's solver declares (NULL and 0 when none). */
const CwbSolverStage *cwb_world_solver_stages (const CwbWorld *world, size_t *n);
/* The grabbed point's position at the current state; FALSE when nothing is grabbed. */
gboolean cwb_world_grab_point (const CwbWorld *world, double p[3]);

G_END_DECLS

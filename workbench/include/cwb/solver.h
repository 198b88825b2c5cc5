/* Solvers: own the animation loop of one time step (Saupin 2008 free + corrective motion,
 * Allard 2010 Algorithm 1, Harmon 2009's event loop). A solver reaches the world only
 * through the CwbStepContext the host passes to step(): the bodies through their body-model
 * operators, the contacts through the host's detection, and the constraint Jacobians already
 * chained through the mappings into DOF space (Saupin 2008's H). */
#pragma once

#include <cwb/body_model.h>
#include <cwb/contact.h>
#include <cwb/contact_model.h>   /* CwbContactPass */

G_BEGIN_DECLS

typedef struct CwbStepContext CwbStepContext;

/* ABI 1.13: a stage of the solver's step, as the solver declares it for phase stepping (the
 * GUI steps through one time step stage by stage, showing the state each leaves and this
 * caption). */
typedef enum CwbStageFlags {
  CWB_STAGE_CONTACTS = 1 << 0,   /* the contact set is this step's detection */
  CWB_STAGE_FORCES = 1 << 1,     /* ... and its forces this step's solution */
} CwbStageFlags;

typedef struct CwbSolverStage {
  const char *name;      /* short: "free motion" */
  const char *caption;   /* a sentence or two: what happens, with the paper's equation */
  uint32_t flags;        /* CwbStageFlags */
} CwbSolverStage;

typedef struct CwbBodySlot {
  size_t nq, nv;
  size_t q_offset, v_offset;   /* into the flat state arrays */
  gboolean fixed;
  double mass;
} CwbBodySlot;

/* One nonzero of H: row `row` of the contact set on DOF `dof` (nv space) of body `body`. */
typedef struct CwbDofEntry {
  uint32_t body;
  uint32_t dof;
  double value;
} CwbDofEntry;

/* H = dg/dq (nv space) for every row of a contact set, in compressed rows:
 * row i's entries are entries[row_start[i] .. row_start[i + 1]), sorted by body then dof. */
typedef struct CwbDofRows {
  size_t n_rows;
  const size_t *row_start;
  const CwbDofEntry *entries;
} CwbDofRows;

struct CwbStepContext {
  size_t struct_size;
  void *host_data;           /* opaque to the solver */

  double h, time;
  double gravity[3];
  size_t n_bodies;
  const CwbBodySlot *bodies;
  size_t nq, nv;
  double *q, *v;             /* the state this step advances, flat, in body order */

  /* Body-model operators, by body index (timed as "mechanical motion"). f_ext and k_ext are
   * in the body's own nv space and may be NULL. q_free and v_free may point into other flat
   * arrays of the solver's. */
  void (*free_motion) (CwbStepContext *ctx, uint32_t body, const double *q, const double *v,
                       const double *f_ext, const CwbLinearOperator *k_ext,
                       double *q_free, double *v_free);
  void (*integrate_position) (CwbStepContext *ctx, uint32_t body, const double *q,
                              const double *dv, double h, double *q_out);
  void (*compliance_apply) (CwbStepContext *ctx, uint32_t body, const double *q,
                            CwbCompliance kind, const double *r, double *dq);

  /* Maps every body at (q, v) (flat arrays), runs the contact model's detect and model
   * (timed as "collision detection" and "contact modeling") and returns the world's contact
   * set, valid until the next call. The solver writes its multipliers into the rows. */
  CwbContactSet *(*detect) (CwbStepContext *ctx, const double *q, const double *v,
                                  CwbContactPass pass, GError **error);

  /* H for the rows of the last detected set, at the configuration it was detected at. */
  const CwbDofRows *(*dof_rows) (CwbStepContext *ctx);

  /* r += J^T f for the last set's penalty point forces, per body in the flat nv space. */
  void (*point_forces_to_dofs) (CwbStepContext *ctx, double *r);

  /* The geometries mapped by the last detect (for solvers that work on geometry, such as
   * Harmon 2009's kinetic separation slabs). */
  const CwbGeometry *(*geometries) (CwbStepContext *ctx, size_t *n);

  /* Statistics for the report and the GUI's plots: iterations and final residual of the last
   * solve, and optionally the residual after each iteration. */
  void (*report_solve) (CwbStepContext *ctx, int iterations, double residual,
                        const double *residual_history, size_t n_history);

  /* ABI 1.1 (check struct_size; absent from an older host): df = J_b^T K J_b dq, the
   * stiffness of the last detected set's penalty forces (its CwbPointStiffness blocks between
   * points of body b's geometry) in body b's nv space, at the configuration of that
   * detection. A solver hands it to free_motion as k_ext to integrate the contact forces
   * implicitly. Blocks between two bodies are not included (k_ext is per body; ABI 1.17's
   * contact_coupling_apply has them). */
  void (*contact_stiffness_apply) (CwbStepContext *ctx, uint32_t body, const double *dq,
                                   double *df);

  /* ABI 1.5 (check struct_size): statistics of a post-stabilization (Allard 2010 Algorithm 1,
   * lines 4-9) for the report: the position MLCPs solved this step, and what the detection
   * at the step's final positions measured: the largest normal-row violation beyond its
   * tolerance (0 when every contact is within it), the set's intersection volume and its
   * largest penetration (NAN where the model has none). The report's per-step volume and
   * penetration are then these end-of-step values rather than the velocity pass's. */
  void (*report_stabilization) (CwbStepContext *ctx, int passes, double violation,
                                double intersection_volume, double max_penetration);

  /* ABI 1.6 (check struct_size): the limits the last report_solve's solve ran under, its
   * sweep cap and its stopping tolerance (same units as its residual), so that the host
   * reports a solve that stopped at the cap without reaching the tolerance (report field
   * solver_converged, GUI status) instead of passing it silently. Call it after report_solve;
   * a solver that never calls it gets solver_converged null. */
  void (*report_solve_limits) (CwbStepContext *ctx, int max_iterations, double tolerance);

  /* ABI 1.6 (check struct_size): whether the host drives body `body` itself in this step's
   * free motion (the mouse spring of a drag, added to its f_ext inside free_motion). A
   * solver that lets bodies sleep, skipping their free motion, wakes a body it drives. */
  gboolean (*body_driven) (CwbStepContext *ctx, uint32_t body);

  /* ABI 1.6 (check struct_size): maps the bodies at (q, v) into the geometries that
   * `geometries` returns, without detecting: positions and velocities of every geometry
   * point, e.g. for a solver's measure of how fast each body moves at the end of a step. */
  void (*map_geometries) (CwbStepContext *ctx, const double *q, const double *v);

  /* ABI 1.6 (check struct_size): a count the host raises whenever something a step depends
   * on changes other than q and v: parameters of the contact model or the solver, the
   * contact model itself, a state restored or carried in. A solver that keeps memory across
   * steps (sleeping bodies) drops it when the count differs from its last step's. */
  uint64_t edits;

  /* ABI 1.8 (check struct_size): the value automatic parameter `name` of the solver (its
   * schema name, one the user left at its automatic value, such as a tolerance derived from
   * gravity and the step) resolved to in this step, for the report (derived_params,
   * "solver.NAME") and the property editor. A later call with the same name replaces it;
   * the host forgets the values at the start of each step. */
  void (*report_derived) (CwbStepContext *ctx, const char *name, double value);

  /* ABI 1.13 (check struct_size; NULL when the host is not recording stages, which is the
   * usual case): the solver reached the end of its declared stage `stage` (an index into
   * CwbSolverVTable.stages), leaving the state (q, v) (flat, nq and nv). Calls come in
   * increasing stage order; a stage that did not run this step (no stabilization needed) is
   * not reported. The host only reads: the step goes on exactly as without the call. */
  void (*stage_done) (CwbStepContext *ctx, uint32_t stage, const double *q, const double *v);

  /* ABI 1.15 (check struct_size): df = J_b^T B J_b dv, the velocity derivative of the last
   * detected set's penalty forces (its CwbContactSet.damping blocks between points of body
   * b's geometry) in body b's nv space, as contact_stiffness_apply does for their position
   * derivative. A solver hands it to free_motion as b_ext; the forces it passes are then
   * taken as those at the body's current velocity, so a solver that detected at another
   * velocity v_d shifts them by B (v - v_d). */
  void (*contact_damping_apply) (CwbStepContext *ctx, uint32_t body, const double *dv,
                                 double *df);

  /* ABI 1.15 (check struct_size): free_motion with the external forces' velocity derivative
   * b_ext = d f_ext / dv as well (CwbFreeMotion.b_ext; may be NULL). */
  void (*free_motion_damped) (CwbStepContext *ctx, uint32_t body, const double *q,
                              const double *v, const double *f_ext,
                              const CwbLinearOperator *k_ext, const CwbLinearOperator *b_ext,
                              double *q_free, double *v_free);

  /* ABI 1.17 (check struct_size): df = sum over the other bodies c of
   * J_b^T (K_bc J_c dq_c + B_bc J_c dv_c), the last detected set's stiffness and damping
   * blocks from points of other bodies' geometries to points of body b's (what
   * contact_stiffness_apply and contact_damping_apply leave out), in body b's nv space; dq
   * and dv are the whole system's (nv, at each body's v_offset), dv may be NULL (no
   * damping). A solver that integrates each body with its own blocks as k_ext and b_ext
   * couples the bodies with this, e.g. by sweeping them until their motions agree
   * (predictor-corrector's `implicit_contacts`). */
  void (*contact_coupling_apply) (CwbStepContext *ctx, uint32_t body, const double *dq,
                                  const double *dv, double *df);

  /* ABI 1.20 (check struct_size): the diagonal of body `body`'s compliance at q (its nv
   * values into `diagonal`) and TRUE when the body model declares it diagonal
   * (CwbBodyModelVTable.compliance_diagonal); FALSE otherwise (then nothing is written). */
  gboolean (*compliance_diagonal) (CwbStepContext *ctx, uint32_t body, const double *q,
                                   CwbCompliance kind, double *diagonal);
};

typedef struct CwbSolverCreateInfo {
  size_t struct_size;
  const CwbParamSet *params;
} CwbSolverCreateInfo;

typedef struct CwbSolverVTable {
  size_t struct_size;
  void *(*create) (const CwbSolverCreateInfo *info, const CwbHostServices *host, GError **error);
  void (*destroy) (void *self);
  /* Advances ctx->q, ctx->v by ctx->h. On failure the host restores the state it had before
   * the step (a numerical blow-up stops the run with the last good state kept). After a
   * successful step the multipliers and frame forces of the last detected set are filled. */
  gboolean (*step) (void *self, CwbStepContext *ctx, GError **error);
  void (*params_changed) (void *self, const CwbParamSet *params);

  /* ABI 1.9 (check struct_size): what the solver solves (CwbContactOutput bits), whatever its
   * parameters; 0: undeclared, never checked. A contact model whose outputs it lacks is
   * refused with it before any step, and the message names the solvers that declare them. */
  uint32_t solves;

  /* ABI 1.13 (check struct_size): the stages of one step, in order, for phase stepping; the
   * solver reports each through CwbStepContext.stage_done. NULL, 0: none declared. */
  const CwbSolverStage *stages;
  size_t n_stages;

  /* ABI 1.18 (check struct_size): whether, with its present parameters, the solver
   * integrates contact forces implicitly through contact_stiffness_apply (and
   * contact_damping_apply); the host hands it to contact models as
   * CwbContactQuery.forces_implicit. NULL: the forces act explicitly. */
  gboolean (*contact_forces_implicit) (void *self);

  /* ABI 1.19 (check struct_size), optional: what the paired contact model declares
   * (CwbContactModelVTable.outputs, CwbContactOutput bits; 0 with no model or none
   * declared), told after every pairing and after every edit of the model's parameters,
   * before the next step: a solver may follow it (integrate the forces implicitly where
   * the model asks, CWB_CONTACT_OUTPUT_IMPLICIT_FORCES). NULL: not told. */
  void (*contact_outputs_changed) (void *self, uint32_t outputs);
} CwbSolverVTable;

G_END_DECLS

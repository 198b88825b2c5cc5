/* The world's internals, shared by the world's own files only (world.c, world_edit.c,
 * step_context.c, point_response.c, contact_set.c, inspection.c, host_services.c). */
#pragma once

#include "contact_blocks.h"
#include "mesh.h"
#include "param_bind.h"
#include "energy_guard.h"
#include "world.h"

typedef struct CwbWorldBody {
  char *name;
  const CwbPluginDesc *model_desc;
  const CwbBodyModelVTable *model;
  void *model_self;
  CwbParamBinding *model_params;
  const CwbPluginDesc *mapping_desc;
  const CwbMappingVTable *mapping;
  void *mapping_self;
  CwbParamBinding *mapping_params;
  CwbMesh *mesh;                /* the shape as loaded, kept while the body model may read it */
  CwbBodySlot slot;
  double friction;
} CwbWorldBody;

/* Scratch of cwb_world_point_response, reused from call to call (point_response.c). */
typedef struct CwbResponseScratch {
  GArray *touched;           /* per geometry: what the current call did with it (stamped) */
  GArray *touched_list;      /* uint32_t: the geometries that got a force in the call */
  GArray *point_ids;         /* uint32_t: one run's query points */
  GArray *dofs;              /* double: r then dq (nv each) of each geometry touched */
  GArray *full;              /* double: J dq at all points, for ABI 1.0 mappings */
  GArray *diagonal;          /* double, nv of the world: diagonal compliances, per body */
  GArray *diagonal_serial;   /* guint64 per body: q_detect_serial + 1 the diagonal is of
                              * (0: none cached), G_MAXUINT64: the body has no diagonal */
  GArray *dof_stamp;         /* guint64, nv of the world: the call that last zeroed r, dq */
  GArray *forced;            /* uint32_t: (geometry, dof) pairs a sparse body was forced at */
  double diagonal_h;         /* the step length the cached diagonals are for */
  size_t n_touched, dofs_used, full_used;   /* the parts of the three above in use */
  guint64 stamp;             /* the current call's number */
} CwbResponseScratch;

/* A plugin instance of the contact model or the solver, with its parameters. */
/* One of the mouse spring's derivatives as a CwbLinearOperator's data: y = other x +
 * scale J^T J x (world_edit.c). */
typedef struct CwbGrabDerivative {
  struct CwbWorld *world;
  double scale;                       /* -stiffness or -damping */
  const CwbLinearOperator *other;     /* the solver's k_ext, or NULL */
  CwbLinearOperator op;
} CwbGrabDerivative;

typedef struct CwbWorldPlugin {
  const CwbPluginDesc *desc;
  void *self;
  CwbParamBinding *params;
} CwbWorldPlugin;

struct CwbWorld {
  CwbRegistry *registry;        /* borrowed */
  guint64 serial;               /* cwb_world_serial */
  CwbHostServices services;
  char *cache_dir;              /* host service: made on first use; "" when unusable */
  CwbWorldBuildOptions build;   /* where progress goes and what cancels (host_services.c) */
  char *being_made;             /* "body 'beam'" while its plugins are made, for a cancel */
  gboolean building;            /* inside cwb_world_new_full: a cancel is "loading cancelled" */
  double h, time, gravity[3];
  guint64 steps;

  GArray *bodies;               /* CwbWorldBody */
  CwbBodySlot *slots;           /* n_bodies, mirrors bodies[i].slot for the step context */
  double *friction;             /* per body, for contact queries */
  gboolean *body_fixed;         /* per body, for contact queries (slots[i].fixed) */
  double *body_mass;            /* per body, kg, for contact queries */
  gboolean *points_apart;       /* per body, for contact queries (world_points_apart) */
  size_t nq, nv;
  double *q, *v;
  double *q_prev, *v_prev;      /* state before the current step, restored on failure */

  CwbGeometry *geometries;      /* one per body, in body order */
  double *q_detect;             /* configuration of the last detection (where J is taken) */
  guint64 q_detect_serial;      /* bumped whenever q_detect changes (point_response.c's
                                 * cached diagonals) */

  CwbWorldPlugin contact;       /* desc == NULL: no contact model */
  CwbWorldPlugin solver;

  CwbContactSet contacts;
  CwbInspection inspection;
  gboolean contacts_fresh;      /* the set belongs to this step's detection */

  /* H in compressed rows, rebuilt lazily after each detection */
  gboolean dof_rows_valid;
  GArray *dof_row_start;        /* size_t */
  GArray *dof_entries;          /* CwbDofEntry */
  CwbDofRows dof_rows;
  GArray *scratch_weights;      /* CwbPointWeight */
  GArray *scratch_r;            /* double */
  CwbContactBlocks *contact_blocks;   /* the set's blocks by body, assembled lazily */

  CwbResponseScratch response;

  /* The mouse spring: what cwb_world_set_grab stored, and during a step the generalized
   * force J^T f it gives the grabbed body (its nv), computed once at the start of the step. */
  gboolean grabbing;
  CwbGrab grab;
  gboolean grab_in_step;        /* grab_dofs holds this step's force */
  CwbEnergyGuard energy_guard;  /* blow-ups below light speed (energy_guard.h) */
  GArray *summaries;            /* CwbBodySummary: each body's at the end of the last step */
  CwbStageObserver stage_observer;   /* phase stepping (cwb_world_set_stage_observer) */
  gpointer stage_observer_data;
  uint64_t edits;               /* raised by every change besides q and v a step depends on
                                 * (CwbStepContext.edits) */
  GArray *grab_dofs;            /* double */
  GArray *grab_f_ext;           /* double: the solver's f_ext plus grab_dofs */
  /* The spring's derivatives for the body model's implicit step: d f / dq = -stiffness
   * J^T J (plus the solver's k_ext) and d f / dv = -damping J^T J, J the grabbed point's
   * Jacobian at the step's start (world_edit.c). */
  CwbGrabDerivative grab_k, grab_b;
  GArray *grab_scratch;         /* double: apply_j's output where a mapping lacks
                                 * apply_j_points */

  CwbStepContext ctx;
  gint64 phase_ns[CWB_PHASE_COUNT];
  gint64 compliance_ns;            /* inside compliance_apply this step */
  CwbStepStats stats;
  GArray *residual_history;     /* double */
  GArray *solver_derived;       /* CwbDerivedParam: the solver's automatic parameters, this
                                 * step */
};

/* host_services.c: the services table (host_data is the world). */
void cwb_world_init_services (CwbWorld *world);
/* The build options' cancellable was cancelled. */
gboolean cwb_world_cancelled (const CwbWorld *world);

/* world.c: re-creates the contact model (when there is one) with its current parameter values,
 * so that nothing of its contacts survives; the contact set and inspection are cleared. On
 * failure (the plugin refuses) the previous instance stays. */
gboolean cwb_world_renew_contact_model (CwbWorld *world, GError **error);

/* world_edit.c: the mouse spring's force for the step about to start (once per step, at the
 * state the step starts from), and the f_ext a free motion of `body` gets: the solver's
 * (may be NULL) plus that force when `body` is grabbed (a world scratch, valid until the next
 * call), else the solver's unchanged. */
void cwb_world_grab_begin_step (CwbWorld *world);
/* Adds the spring to a free motion of `body` whose f_ext and k_ext the solver set (either
 * may be NULL): f_ext gains the spring's force (a world scratch, valid until the next call),
 * k_ext and b_ext its derivatives, so the body model integrates the spring implicitly and a
 * stiff spring on a light point (a FEM body's node) stays stable. Unchanged when `body` is
 * not grabbed in this step. */
void cwb_world_grab_free_motion (CwbWorld *world, uint32_t body, CwbFreeMotion *args);

/* step_context.c */
void cwb_world_init_step_context (CwbWorld *world);
/* The contact model's view of the world at the last mapping. */
CwbContactQuery cwb_world_contact_query (CwbWorld *world, CwbContactPass pass);

/* What the world's solver solves (CwbContactOutput bits), 0 without a solver or when it does
 * not say. */
uint32_t cwb_world_solver_solves (const CwbWorld *world);
/* Whether the world's solver integrates contact forces implicitly (FALSE when it does not
 * say or no solver is attached). */
gboolean cwb_world_solver_forces_implicit (const CwbWorld *world);

/* point_response.c: CwbContactQuery.point_response (host_data is the world). */
void cwb_world_point_response (void *host_data, const CwbPointWeight *forces, size_t n_forces,
                               const CwbPointWeight *at, size_t n_at, double *displacements);
void cwb_response_scratch_init (CwbResponseScratch *scratch);
/* dp = J(q) dq at one point, with apply_j_points when the mapping has it (scratch holds all
 * points' otherwise). */
void cwb_mapping_j_point (const CwbMappingVTable *vt, void *mapping, const double *q,
                          const double *dq, uint32_t point, double dp[3], GArray *scratch);
void cwb_response_scratch_destroy (CwbResponseScratch *scratch);
/* Maps every body at (q, v) into its geometry (positions and velocities). */
void cwb_world_map_geometries (CwbWorld *world, const double *q, const double *v);

/* contact_set.c: frame forces and stick/slip/open states from the solved multipliers. */
void cwb_contact_results_fill (CwbContactSet *set, const CwbGeometry *geometries);

/* contact_set.c and inspection.c: the arrays plugins append to. */
void cwb_contact_set_init (CwbContactSet *set);
void cwb_contact_set_clear (CwbContactSet *set);
void cwb_contact_set_destroy (CwbContactSet *set);
void cwb_inspection_init (CwbInspection *inspection);
void cwb_inspection_clear (CwbInspection *inspection);
void cwb_inspection_destroy (CwbInspection *inspection);

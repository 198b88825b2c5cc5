/* A snapshot: an immutable copy of what a completed step left in the world (time, body
 * states and summaries, mapped geometries, the contact frames with their forces, the
 * inspection data, the step's statistics and residual history). The simulation worker
 * captures one after every step; the GUI draws and inspects snapshots, never the world the
 * worker is stepping, and the history keeps the recent ones so the user can go back to any
 * of them and resume from it.
 *
 * Snapshots are reference counted and never change after capture, so any thread may read
 * one it holds a reference to. Triangle topology is fixed for the life of a world, so a
 * snapshot shares it with the previous snapshot of the same world instead of copying it. */
#pragma once

#include "world.h"

G_BEGIN_DECLS

typedef struct CwbSnapshotBody {
  char *name;
  char *model;                  /* body-model plugin name */
  gboolean fixed;
  CwbBodySummary summary;
  /* The mapped geometry, world frame. */
  CwbGeometryKind kind;
  size_t n_points;
  double *positions;            /* 3 * n_points, owned */
  double *velocities;           /* 3 * n_points, owned */
  GBytes *triangles;            /* uint32_t, 3 per triangle; shared between snapshots */
  size_t n_triangles;
  GBytes *radii;                /* PARTICLES: double per point; NULL otherwise; shared */
  size_t q_offset, nq, v_offset, nv;   /* the body's slice of q and v */
  /* A deformable body whose model inspects its elements (ABI 1.12 inspect_elements; NULL
   * and 0 otherwise): its tetrahedra (4 node indices each; shared), the nodes' world
   * positions, and per tetrahedron its strain tensor (6 values: CwbElementInspection) and
   * rotation angle (rad). */
  GBytes *tetrahedra;
  size_t n_tetrahedra, n_nodes;
  double *nodes, *element_strain, *element_rotation;   /* owned */
  /* A body whose model inspects its nodes (ABI 1.22 inspect_nodes; NULL and 0 otherwise):
   * per node, its density error rho / rho_0 - 1, pressure (Pa) and speed (m/s), NAN where the
   * model has no such field (CwbNodeInspection). */
  size_t n_node_values;
  double *node_density_error, *node_pressure, *node_speed;   /* owned */
} CwbSnapshotBody;

typedef struct CwbSnapshot {
  guint64 world_serial;         /* which world (build) it came from */
  double time;
  double dt;                    /* the world's time step */
  guint64 steps;
  CwbStepStats stats;           /* of the step that produced it (zeros before the first) */
  GArray *residuals;            /* double: residual after each solver iteration */
  char *contact_model;          /* NULL when the world has none */
  GBytes *contact_state;        /* the model's memory for resuming (NULL: it keeps none) */
  char *solver;
  size_t n_bodies;
  CwbSnapshotBody *bodies;
  size_t nq, nv;
  double *q, *v;                /* the flat state, for resuming */
  GArray *frames;               /* CwbContactFrame */
  gboolean contacts_detected;   /* frames are a detection's at this state (not before the first
                                 * step or after a restore: cwb_world_contacts_detected) */
  CwbFrictionLaw friction_law;  /* the set bounding the frames' friction: the overlay draws it */
  double intersection_volume;   /* NAN where it does not apply */
  double max_penetration;
  CwbInspection inspection;     /* copies of the four arrays */
  GArray *solver_derived;       /* CwbDerivedParam: the solver's automatic parameters */
  /* Phase stepping: the solver's stage this state is the end of (-1: a whole step), with
   * the stage's name and caption. */
  int stage;
  char *stage_name, *stage_caption;
} CwbSnapshot;

/* Copies the world's current state. `share` may be a previous snapshot of the same world:
 * its topology is then shared rather than copied. */
CwbSnapshot *cwb_snapshot_capture (CwbWorld *world, const CwbSnapshot *share);
/* The state a solver's stage left mid-step (cwb_world_set_stage_observer): q and v in place
 * of the world's, geometries mapped at them (and put back after), time and step count of
 * the step under way, and the contact set as the stage's flags say (none before detection,
 * no forces before the solve). */
CwbSnapshot *cwb_snapshot_capture_stage (CwbWorld *world, const CwbSnapshot *share,
                                         const CwbSolverStage *stage, uint32_t index,
                                         const double *q, const double *v);
CwbSnapshot *cwb_snapshot_ref (CwbSnapshot *snapshot);
void cwb_snapshot_unref (CwbSnapshot *snapshot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbSnapshot, cwb_snapshot_unref)

/* cwb_world_state_hash of the world the snapshot was taken from, at that moment. */
guint64 cwb_snapshot_state_hash (const CwbSnapshot *snapshot);

/* Bytes the snapshot owns beyond shared topology (for the history's memory bound). */
size_t cwb_snapshot_bytes (const CwbSnapshot *snapshot);

/* The axis-aligned box around one body's points; FALSE when it has none. */
gboolean cwb_snapshot_body_bounds (const CwbSnapshotBody *body, double lo[3], double hi[3]);

/* The median of the moving bodies' sizes (each the largest side of its bounding box), the
 * scene's scale for what is drawn or added; 0 when no body moves. */
double cwb_snapshot_median_moving_size (const CwbSnapshot *snapshot);

/* The axis-aligned box around every body's points (fixed bodies left out when there are
 * moving ones, so a large ground does not dwarf the scene); FALSE when there are no points. */
gboolean cwb_snapshot_bounds (const CwbSnapshot *snapshot, gboolean moving_only, double lo[3],
                              double hi[3]);

G_END_DECLS

/* Contact models: read geometries, detect contact and model it (Allard 2010 LDI volumes,
 * Faure 2007 Eulerian densities, Spillmann 2007 / Lazarevych penalty). They see geometries
 * only, never body models or solvers. The host times detect as "collision detection" and
 * model as "contact modeling" (Allard 2010 Table 1). */
#pragma once

#include <cwb/contact.h>
#include <cwb/host.h>
#include <cwb/inspection.h>
#include <cwb/params.h>

G_BEGIN_DECLS

typedef struct CwbContactModelCreateInfo {
  size_t struct_size;
  const CwbParamSet *params;
} CwbContactModelCreateInfo;

typedef enum CwbContactPass {
  CWB_CONTACT_PASS_VELOCITY = 0,  /* the step's main detection */
  CWB_CONTACT_PASS_POSITION = 1,  /* a post-stabilization re-detection (Allard 2010 Alg. 1,
                                   * lines 4 and 8): friction rows are not needed */
} CwbContactPass;

/* The world as a contact model sees it. */
typedef struct CwbContactQuery {
  size_t struct_size;
  const CwbGeometry *geometries;
  size_t n_geometries;
  const double *friction;     /* per body: the material's Coulomb coefficient */
  size_t n_bodies;
  double h;                   /* the time step */
  double time;
  CwbContactPass pass;

  /* ABI 1.1 (check struct_size before use; NULL from an older host). How the bodies answer
   * forces, for force-based models that size their forces to what the bodies will do with
   * them (Spillmann 2007's m_i / dt^2 generalised to any body model):
   *   displacements[3 k .. 3 k + 2] = the displacement over one step of length h of the point
   *   at[k] (geometry, point; its w is ignored) caused by the point forces `forces` (w = the
   *   force, N), through each body's mapping J^T, compliance C and mapping J, at the
   *   configuration of this query. Fixed bodies do not move. Forces on different bodies act
   *   together, so a call can measure one contact alone or a whole set at once. */
  void *host_data;
  void (*point_response) (void *host_data, const CwbPointWeight *forces, size_t n_forces,
                          const CwbPointWeight *at, size_t n_at, double *displacements);

  /* ABI 1.4 (check struct_size): per body, whether it never moves (a fixed body). A contact
   * between two fixed bodies has nothing to act on: models leave it out without asking the
   * bodies' compliance (which, for a deformable body, costs a factorisation). */
  const gboolean *body_fixed;

  /* ABI 1.6 (check struct_size): the world's gravity (m/s^2), from which models derive the
   * distances a step's free motion covers (g h^2) when a parameter is left automatic. */
  double gravity[3];

  /* ABI 1.14 (check struct_size): what the world's solver solves (CwbContactOutput bits; 0
   * when it does not say or no solver is attached), for a model that can return either
   * constraint rows or penalty forces and follows the solver when left to choose. */
  uint32_t solves;

  /* ABI 1.18 (check struct_size): whether the world's solver integrates the set's forces
   * implicitly, with their stiffness and damping (CwbSolverVTable.contact_forces_implicit),
   * so that a force-based model may size an automatic stiffness by the load a contact
   * carries rather than by an explicit step's stability; and per body its mass (kg), from
   * which that load follows. */
  gboolean forces_implicit;
  const double *body_mass;

  /* ABI 1.21 (check struct_size; NULL from an older host): per body, whether a force at one
   * of its geometry's points moves that point alone, so that two contacts on the geometry
   * move each other only when they share a point: a body whose compliance is diagonal
   * (CwbBodyModelVTable.compliance_diagonal) under a mapping that gives each point DOFs of
   * its own (CwbMappingVTable.point_dofs), as a fluid's particles are. The host decides it
   * once, when the body is made. FALSE: any force on the body may move any of its points. */
  const gboolean *points_apart;
} CwbContactQuery;

/* Whether a geometry's body never moves (the query's body_fixed, ABI 1.4; FALSE from an
 * older host). */
static inline gboolean
cwb_contact_query_geometry_fixed (const CwbContactQuery *query, const CwbGeometry *geometry)
{
  return CWB_STRUCT_HAS (query, CwbContactQuery, body_fixed) && query->body_fixed != NULL
         && geometry->body < query->n_bodies && query->body_fixed[geometry->body];
}

/* Whether a geometry's points move apart (the query's points_apart, ABI 1.21; FALSE from an
 * older host). */
static inline gboolean
cwb_contact_query_points_apart (const CwbContactQuery *query, const CwbGeometry *geometry)
{
  return CWB_STRUCT_HAS (query, CwbContactQuery, points_apart) && query->points_apart != NULL
         && geometry->body < query->n_bodies && query->points_apart[geometry->body];
}


typedef struct CwbContactModelVTable {
  size_t struct_size;

  void *(*create) (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                   GError **error);
  void (*destroy) (void *self);

  /* Called once when the model is attached to a world (at load or on a runtime swap) with
   * the geometries' layouts: a model that cannot handle them (an open surface for a volume
   * method, a geometry kind it does not know) refuses with a message naming the body. */
  gboolean (*attach) (void *self, const CwbContactQuery *query, GError **error);

  /* Collision detection: find pairs, rasterize, hash... keeps its results inside self. */
  gboolean (*detect) (void *self, const CwbContactQuery *query, GError **error);

  /* Contact modelling: fill the (cleared) contact set and inspection from the detection. */
  gboolean (*model) (void *self, const CwbContactQuery *query, CwbContactSet *contacts,
                     CwbInspection *inspection, GError **error);

  /* Optional: the solved set (multipliers and frame forces filled), for models that keep
   * per-contact state from step to step (time-coherent static friction). */
  void (*feedback) (void *self, const CwbContactSet *solved);
  void (*params_changed) (void *self, const CwbParamSet *params);

  /* ABI 1.2, optional (check struct_size, then NULL): the memory a model keeps from step to
   * step (time-coherent friction, warm starts), so that a run resumed from the host's
   * history (the GUI's scrubber) goes on exactly as it went the first time. save_state
   * returns that memory as an opaque blob (NULL: nothing to keep), taken after a step;
   * restore_state gets back a blob this model saved in the same process, for the geometries
   * it is attached to, after re-creation and attach and before the next step. It refuses
   * (FALSE with a message) what it cannot read; the host then goes on with fresh memory.
   * A model without memory leaves both NULL. */
  GBytes *(*save_state) (void *self);
  gboolean (*restore_state) (void *self, GBytes *state, GError **error);

  /* ABI 1.9, optional (check struct_size, then NULL): what detect and model return with the
   * current parameters (CwbContactOutput bits), asked after create and after each
   * params_changed. The host refuses to pair the model with a solver that does not solve
   * them all (CwbSolverVTable.solves), before any step. NULL: undeclared, never checked. */
  uint32_t (*outputs) (void *self);
} CwbContactModelVTable;

G_END_DECLS

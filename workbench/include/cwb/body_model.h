/* Body models: own the independent DOFs of one body and its physics.
 *
 * State layout follows MuJoCo: nq position coordinates and nv velocity DOFs (a rigid body has
 * nq = 7, position + unit quaternion, and nv = 6, linear + angular velocity). Generalized
 * forces, compliance columns and velocity increments live in the nv space; positions are only
 * ever advanced through integrate_position, so quaternions stay on their manifold.
 *
 * The operators are those of the papers:
 *   free_motion         Saupin 2008 eq. 11-12, Allard 2010 eq. 2-3 (linearised backward Euler)
 *   compliance_apply    Saupin 2008 eq. 14/21 (exact C) and eq. 23 (warped R C0 R^T)
 *   internal_forces,    f(q, v), K = df/dq for implicit penalty integration (Spillmann 2007)
 *   stiffness_apply       and the Eulerian coupling (Faure 2007 sec. 5)
 *   element_*           local force elements with their own stable step (Harmon 2009 sec. 2)
 *   inspect_elements    each tetrahedron's strain and rotation, for the element overlay
 *   inspect_nodes       each node's density error, pressure and speed (a fluid's particles)
 * The instance (`self`) holds what is described (mass, rest shape, precomputed C0); the state
 * q, v belongs to the world, which passes it in: a body model keeps no copy of the state. */
#pragma once

#include <cwb/geometry.h>
#include <cwb/host.h>
#include <cwb/params.h>

G_BEGIN_DECLS

/* y = A x for a linear operator the host or another plugin supplies (an external stiffness
 * such as a penalty contact's, in the body's nv space). */
typedef struct CwbLinearOperator {
  void (*apply) (void *data, const double *x, double *y);
  void *data;
} CwbLinearOperator;

typedef struct CwbBodyCreateInfo {
  size_t struct_size;
  const char *name;               /* the body's scene name, for messages */
  const CwbParamSet *params;      /* the body model's own declared parameters */
  const CwbSurfaceMesh *surface;  /* the shape in its own (mesh) frame, closed when it
                                   * must be for mass properties */
  double density;                 /* kg/m^3, from the body's material */
  gboolean fixed;                 /* a fixed body never moves and has zero compliance */
  double position[3];             /* pose of the mesh frame in the world */
  double orientation[4];          /* unit quaternion w, x, y, z */
  double linear_velocity[3];      /* of the centre of mass, world frame */
  double angular_velocity[3];     /* world frame */
  /* ABI 1.3 (check struct_size): the world's time step, for models that precompute
   * operators depending on it (the FEM body's rest compliance C0 = (M/h^2 + D/h + K0)^-1,
   * Saupin 2008 sec. 3.1). 0 when unknown. */
  double dt;
} CwbBodyCreateInfo;

/* What a mapping needs to embed a shape into the body's DOFs. */
typedef struct CwbBodyInfo {
  size_t struct_size;
  size_t nq, nv;
  double mass;
  double center_of_mass[3];  /* in the shape's (mesh) frame */
  double inertia[9];         /* about the centre of mass, reference frame axes, row-major */
  gboolean fixed;
  /* The shape expressed in the body model's reference configuration: for a rigid body the
   * body frame (origin at the centre of mass), for a deformable one its rest configuration. */
  const CwbSurfaceMesh *reference_surface;
  /* Deformable bodies: rest positions of the nodes (3 * n_nodes) and the tetrahedra
   * (4 * n_tetrahedra node indices) a barycentric mapping embeds the surface in. */
  const double *rest_nodes;
  size_t n_nodes;
  const uint32_t *tetrahedra;
  size_t n_tetrahedra;
  /* ABI 1.20 (check struct_size): a body whose nodes are particles of its own (a fluid's),
   * each with a radius (m) and a mass (kg), n_nodes each; NULL for any other body. The
   * particles mapping shows them to the contact models as they are. */
  const double *node_radii;
  const double *node_masses;
} CwbBodyInfo;

/* Inputs and outputs of one unconstrained step of length h. */
typedef struct CwbFreeMotion {
  size_t struct_size;
  double h;
  double gravity[3];
  const double *q, *v;              /* state at the start of the step */
  const double *f_ext;              /* generalized external force (nv), or NULL */
  const CwbLinearOperator *k_ext;   /* d f_ext / dq in nv space for implicit use, or NULL */
  const CwbLinearOperator *b_ext;   /* d f_ext / dv, or NULL */
  double *q_free, *v_free;          /* outputs (nq, nv); may not alias q, v */
} CwbFreeMotion;

typedef enum CwbCompliance {
  CWB_COMPLIANCE_EXACT = 0,   /* C = (M/h^2 + B/h + K)^-1 at q (Saupin 2008 eq. 21) */
  CWB_COMPLIANCE_WARPED = 1,  /* C~ = R C0 R^T (Saupin 2008 eq. 23) */
} CwbCompliance;

/* Quantities the report and the GUI show, and the conservation tests check. */
typedef struct CwbBodySummary {
  size_t struct_size;
  double centroid[3];          /* centre of mass, world */
  double linear_velocity[3];   /* of the centre of mass */
  double orientation[4];       /* w, x, y, z (best-fit rotation for deformables) */
  double angular_velocity[3];  /* world frame */
  double kinetic_energy;
  double linear_momentum[3];
  double angular_momentum[3];  /* about the centre of mass, world frame */
  double mass;
} CwbBodySummary;

/* One local force element (Harmon 2009): the DOFs it touches and its stable time step. */
typedef struct CwbLocalElement {
  size_t struct_size;
  const uint32_t *dofs;   /* nv-space indices */
  size_t n_dofs;
  double stable_dt;
} CwbLocalElement;

/* ABI 1.12: a deformable body's elements as they are at q, for the element overlay (what the
 * corotational formulation measures in each tetrahedron of CwbBodyInfo.tetrahedra). The host
 * allocates the arrays from CwbBodyInfo's n_nodes and n_tetrahedra; the model fills them. */
typedef struct CwbElementInspection {
  size_t struct_size;
  double *nodes;       /* 3 * n_nodes: the nodes' world positions */
  double *strain;      /* 6 per tetrahedron: the corotated small strain e = sym(R^T F) - I
                        * (F = Ds Dm^-1, R its polar rotation: what a corotational element's
                        * energy measures) as e_xx, e_yy, e_zz, e_yz, e_xz, e_xy */
  double *rotation;    /* per tetrahedron: the angle of R (rad, 0 to pi) */
} CwbElementInspection;

/* ABI 1.22: per-node fields at q, v, for the element overlay's colouring of a body whose
 * nodes are particles (CwbBodyInfo.node_radii: the renderer colours the geometry's point k by
 * node k). The host allocates each array of CwbBodyInfo's n_nodes values and fills it with
 * NAN before the call; the model writes the fields it has and leaves the others NAN (not
 * known: such a node keeps the body's colour). Fields appended by a later minor version are
 * written only when CWB_STRUCT_HAS (out, CwbNodeInspection, field) says the host has them. */
typedef struct CwbNodeInspection {
  size_t struct_size;
  double *density_error;   /* rho / rho_0 - 1 (dimensionless): > 0 compressed, < 0 rarefied
                            * (as a free surface's particles are, with fewer neighbours) */
  double *pressure;        /* Pa */
  double *speed;           /* |v| of the node, m/s */
} CwbNodeInspection;

typedef struct CwbBodyModelVTable {
  size_t struct_size;

  void *(*create) (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error);
  void (*destroy) (void *self);
  void (*get_info) (void *self, CwbBodyInfo *info);

  /* Writes the initial state from the creation pose and velocities. */
  void (*init_state) (void *self, double *q, double *v);

  void (*free_motion) (void *self, const CwbFreeMotion *args);

  /* q_out = q (+) h dv: advance positions by a velocity-space increment (the exponential map
   * for rotations). q_out may alias q. */
  void (*integrate_position) (void *self, const double *q, const double *dv, double h,
                              double *q_out);

  /* dq = C r in nv space: the displacement answering a generalized force r over a step of
   * length h, with the compliance of the linearised system at q. Zero for fixed bodies. */
  void (*compliance_apply) (void *self, const double *q, double h, CwbCompliance kind,
                            const double *r, double *dq);

  /* y = M(q) x */
  void (*mass_apply) (void *self, const double *q, const double *x, double *y);

  void (*summary) (void *self, const double *q, const double *v, CwbBodySummary *out);

  /* Optional (NULL when the model has none). */
  void (*internal_forces) (void *self, const double *q, const double *v, double *f);
  void (*stiffness_apply) (void *self, const double *q, const double *v, const double *dq,
                           double *df);
  void (*params_changed) (void *self, const CwbParamSet *params);
  size_t (*element_count) (void *self);
  void (*element_get) (void *self, size_t element, CwbLocalElement *out);
  void (*element_force) (void *self, size_t element, const double *q, const double *v,
                         double *f_on_dofs);
  /* ABI 1.12, optional: fills `out` for the state q (bodies reporting tetrahedra). */
  void (*inspect_elements) (void *self, const double *q, CwbElementInspection *out);
  /* ABI 1.20, optional: for a body whose compliance at q is diagonal (each DOF answers its
   * own force alone, as a fluid's particles do), writes that diagonal (nv values: C =
   * diag(diagonal), what compliance_apply multiplies by) and returns TRUE; FALSE for a
   * compliance that is not, whose columns a solver must then take from compliance_apply. A
   * solver that knows the diagonal builds a contact row's column over the row's own DOFs
   * instead of all nv. */
  gboolean (*compliance_diagonal) (void *self, const double *q, double h, CwbCompliance kind,
                                   double *diagonal);
  /* ABI 1.22, optional: fills `out` (CwbNodeInspection) for the state q, v. The host calls
   * it whenever it captures a state (after a step, or at a solver's stage within one), on
   * the thread that steps the world, never during another of the model's calls. */
  void (*inspect_nodes) (void *self, const double *q, const double *v, CwbNodeInspection *out);
} CwbBodyModelVTable;

G_END_DECLS

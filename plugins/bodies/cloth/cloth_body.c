/* The cloth body model: a triangle surface whose vertices are its DOFs, with corotational
 * constant-strain membrane triangles for stretching (membrane.h) and discrete-shells bending
 * in Bergou 2006's quadratic form (bending.h), lumped mass, Rayleigh damping and pinned
 * vertices. Harmon 2009 drapes and pushes such cloth; here it also meets every body through
 * the synchronous solvers and the penalty and proximity models.
 *
 * State: q = the vertices' world positions (3n), v = their velocities (3n); the surface rides
 * them through the `identity` mapping. The surface is the body's shape: a `rectangle` (flat,
 * open) or any manifold triangle mesh, open or closed; its area times `thickness` times the
 * material's density is the mass, a third of each triangle's on each of its vertices.
 *
 * Free motion, the linearised backward Euler shared with the FEM body (implicit_step.h;
 * Baraff and Witkin 1998 for cloth): with K = sum R K0 R^T + K_bend at the step's start and
 * D = alpha M + beta K, f = f_elastic(q) + M g + f_ext - D v,
 *
 *   (M + h D + h^2 K) dv = h f - h^2 K v,    v+ = v + dv,  q+ = q + h v+,
 *
 * solved by CHOLMOD's sparse Cholesky (the default: the system's pattern is the mesh's, and
 * a factor serves the exact compliance's contact columns too) or by conjugate gradients
 * (what runs when a contact model adds an external stiffness).
 *
 * Compliance: exact, C = h^2 (M + h D + h^2 K(q))^-1 (Saupin 2008 eq. 21), factorised once
 * for each q it is asked at; a warped request gets it too (no rest compliance is kept).
 * Pinned vertices (`pin_border`, `fixed_box`) have zero compliance and never move. */
#include <math.h>
#include <string.h>

#include <cwb/body_model.h>
#include <cwb/vecmath.h>

#include "bending.h"
#include "implicit_step.h"
#include "linear_solve.h"
#include "membrane.h"
#include "node_summary.h"
#include "rigid_placement.h"

#define CLOTH_ERROR (g_quark_from_string ("cloth"))

/* Vertices within this share of the shape's largest extent of the fixed box's faces count as
 * inside it, so that a box drawn exactly on the cloth's border catches its vertices. */
#define FIXED_BOX_SLACK 1e-9

typedef enum LinearSolver {
  LINEAR_SOLVER_CHOLESKY = 0,
  LINEAR_SOLVER_CG = 1,
} LinearSolver;

typedef struct ClothBody {
  char *name;
  gboolean fixed_body;
  /* Parameters. */
  double young, poisson, thickness, bending, alpha, beta;
  LinearSolver solver;
  int cg_iterations;
  double cg_tolerance;
  /* The mesh, in the mesh frame. */
  size_t n_nodes, n_triangles;
  double *rest;                  /* 3 n */
  uint32_t *triangles;           /* 3 per triangle */
  MembraneTriangle *membranes;
  GArray *hinges;                /* BendingHinge */
  double *node_mass;
  gboolean *fixed;               /* per vertex */
  double mass, com_mesh[3], inertia[9];
  CwbSurfaceMesh reference;
  char *source;
  double position[3], orientation[4], linear_velocity[3], angular_velocity[3];
  /* Operators. */
  BlockMatrix *system;           /* element set 0: triangles, set 1: hinges */
  BlockCholesky *cholesky;
  double *factored_q;
  double factored_h;
  gboolean factored;
  double *rotations_q;
  gboolean rotations_valid;
  double *rotations;             /* 6 per triangle (R, 3 x 2) */
  ImplicitStep step;             /* the free motion's right side, solution and scratch */
  double *bend_scratch;          /* 3 n: the bending forces of a displacement (K dx) */
} ClothBody;

static void
cloth_body_free (ClothBody *body)
{
  if (body == NULL)
    return;
  g_free (body->name);
  g_free (body->rest);
  g_free (body->triangles);
  g_free (body->membranes);
  if (body->hinges != NULL)
    g_array_unref (body->hinges);
  g_free (body->node_mass);
  g_free (body->fixed);
  g_free (body->source);
  block_matrix_free (body->system);
  block_cholesky_free (body->cholesky);
  g_free (body->factored_q);
  g_free (body->rotations_q);
  g_free (body->rotations);
  implicit_step_clear (&body->step);
  g_free (body->bend_scratch);
  g_free (body);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ClothBody, cloth_body_free)

static const CwbParamSpec cloth_params[] = {
  { "young_modulus", CWB_PARAM_DOUBLE, "Pa", "1e6", 1e-6, 1e15, NULL,
    "Young's modulus E of the cloth's isotropic linear material; its membrane modulus is "
    "E thickness (N/m)." },
  { "poisson_ratio", CWB_PARAM_DOUBLE, "1", "0.3", 0, 0.49, NULL,
    "Poisson's ratio nu of the membrane (plane stress)." },
  { "thickness", CWB_PARAM_DOUBLE, "m", "0.001", 1e-7, 1, NULL,
    "The cloth's thickness t: the mass is density t area, the membrane modulus E t." },
  { "bending_stiffness", CWB_PARAM_DOUBLE, "N m", "0", 0, 1e6, NULL,
    "The bending stiffness D of the discrete-shells energy. 0: automatic, the plate's "
    "E t^3 / (12 (1 - nu^2))." },
  { "rayleigh_mass", CWB_PARAM_DOUBLE, "1/s", "0", 0, 1e6, NULL,
    "Rayleigh damping D = alpha M + beta K: alpha, the mass-proportional part (air drag)." },
  { "rayleigh_stiffness", CWB_PARAM_DOUBLE, "s", "0", 0, 1e3, NULL,
    "Rayleigh damping D = alpha M + beta K: beta, the stiffness-proportional part." },
  { "linear_solver", CWB_PARAM_ENUM, "", "cholesky", 1, 0, "cholesky|cg",
    "The free motion's linear solve: sparse Cholesky (CHOLMOD; its factor also serves the "
    "exact compliance) or conjugate gradients." },
  { "cg_iterations", CWB_PARAM_INT, "1", "1000", 1, 1000000, NULL,
    "Most conjugate-gradient iterations per solve." },
  { "cg_tolerance", CWB_PARAM_DOUBLE, "1", "1e-10", 0, 1, NULL,
    "Conjugate gradients stop when the residual is below this fraction of the right side." },
  { "pin_border", CWB_PARAM_BOOL, "", "false", 1, 0, NULL,
    "Pin every vertex of the surface's border (its edges of one triangle): a trampoline, a "
    "drum; with fixed_box, both are pinned." },
  { "fixed_box", CWB_PARAM_BOOL, "", "false", 1, 0, NULL,
    "Pin the vertices inside [fixed_box_min, fixed_box_max] (mesh frame): they never move." },
  { "fixed_box_min", CWB_PARAM_VEC3, "m", "[0, 0, 0]", -1e9, 1e9, NULL,
    "Lower corner of the box of pinned vertices, in the mesh frame." },
  { "fixed_box_max", CWB_PARAM_VEC3, "m", "[0, 0, 0]", -1e9, 1e9, NULL,
    "Upper corner of the box of pinned vertices, in the mesh frame." },
};

static void
read_params (ClothBody *body, const CwbParamSet *params)
{
  body->young = cwb_param_double (params, "young_modulus", 1e6);
  body->poisson = cwb_param_double (params, "poisson_ratio", 0.3);
  body->thickness = cwb_param_double (params, "thickness", 1e-3);
  body->bending = cwb_param_double (params, "bending_stiffness", 0);
  if (!(body->bending > 0))
    body->bending = body->young * pow (body->thickness, 3)
                    / (12 * (1 - body->poisson * body->poisson));
  body->alpha = cwb_param_double (params, "rayleigh_mass", 0);
  body->beta = cwb_param_double (params, "rayleigh_stiffness", 0);
  body->solver = cwb_param_int (params, "linear_solver", 0) == 1 ? LINEAR_SOLVER_CG
                                                               : LINEAR_SOLVER_CHOLESKY;
  body->cg_iterations = (int) cwb_param_int (params, "cg_iterations", 1000);
  body->cg_tolerance = cwb_param_double (params, "cg_tolerance", 1e-10);
}

static void
triangle_positions (const ClothBody *body, const double *q, size_t t, double x[3][3])
{
  for (int a = 0; a < 3; a++)
    cwb_v3_copy (x[a], &q[3 * body->triangles[3 * t + a]]);
}

static gboolean
build_elements (ClothBody *body, GError **error)
{
  body->membranes = g_new (MembraneTriangle, MAX (body->n_triangles, 1));
  double modulus = body->young * body->thickness;
  for (size_t t = 0; t < body->n_triangles; t++)
    {
      double x[3][3];
      triangle_positions (body, body->rest, t, x);
      if (!membrane_init (&body->membranes[t], x, modulus, body->poisson))
        {
          g_set_error (error, CLOTH_ERROR, 0, "body '%s': triangle %zu has no area", body->name,
                       t);
          return FALSE;
        }
    }
  body->hinges = g_array_new (FALSE, FALSE, sizeof (BendingHinge));
  g_autoptr (GError) hinge_error = NULL;
  if (!bending_hinges (body->rest, body->triangles, body->n_triangles, body->hinges,
                       &hinge_error))
    {
      g_set_error (error, CLOTH_ERROR, 0, "body '%s': %s", body->name, hinge_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Lumped masses (a third of each triangle's), the centre of mass and the inertia about it. */
static void
build_masses (ClothBody *body, double density)
{
  body->node_mass = g_new0 (double, body->n_nodes);
  for (size_t t = 0; t < body->n_triangles; t++)
    for (int a = 0; a < 3; a++)
      body->node_mass[body->triangles[3 * t + a]]
        += density * body->thickness * body->membranes[t].area / 3;
  body->mass = 0;
  double com[3] = { 0, 0, 0 };
  for (size_t i = 0; i < body->n_nodes; i++)
    {
      body->mass += body->node_mass[i];
      cwb_v3_axpy (com, body->node_mass[i], &body->rest[3 * i]);
    }
  cwb_v3_scale (body->com_mesh, com, 1 / body->mass);
  memset (body->inertia, 0, sizeof body->inertia);
  for (size_t i = 0; i < body->n_nodes; i++)
    {
      double d[3];
      cwb_v3_sub (d, &body->rest[3 * i], body->com_mesh);
      double d2 = cwb_v3_dot (d, d);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          body->inertia[3 * a + b] += body->node_mass[i] * ((a == b ? d2 : 0) - d[a] * d[b]);
    }
}

static void
mark_fixed_nodes (ClothBody *body, const CwbParamSet *params)
{
  body->fixed = g_new0 (gboolean, body->n_nodes);
  if (body->fixed_body)
    {
      for (size_t i = 0; i < body->n_nodes; i++)
        body->fixed[i] = TRUE;
      return;
    }
  if (cwb_param_bool (params, "pin_border", FALSE))
    {
      /* An edge met once is on the border: count each edge's triangles. */
      g_autoptr (GHashTable) uses = g_hash_table_new (g_int64_hash, g_int64_equal);
      g_autofree gint64 *keys = g_new (gint64, 3 * MAX (body->n_triangles, 1));
      for (size_t t = 0; t < body->n_triangles; t++)
        for (int e = 0; e < 3; e++)
          {
            uint32_t a = body->triangles[3 * t + e], b = body->triangles[3 * t + (e + 1) % 3];
            gint64 *key = &keys[3 * t + e];
            *key = a < b ? ((gint64) a << 32) | b : ((gint64) b << 32) | a;
            gpointer count = g_hash_table_lookup (uses, key);
            g_hash_table_insert (uses, key, GSIZE_TO_POINTER (GPOINTER_TO_SIZE (count) + 1));
          }
      for (size_t k = 0; k < 3 * body->n_triangles; k++)
        if (GPOINTER_TO_SIZE (g_hash_table_lookup (uses, &keys[k])) == 1)
          {
            body->fixed[keys[k] >> 32] = TRUE;
            body->fixed[keys[k] & 0xffffffff] = TRUE;
          }
    }
  if (!cwb_param_bool (params, "fixed_box", FALSE))
    {
      size_t count = 0;
      for (size_t i = 0; i < body->n_nodes; i++)
        count += body->fixed[i];
      g_debug ("body '%s': %zu of %zu vertices pinned", body->name, count, body->n_nodes);
      return;
    }
  const CwbParamValue *lo = cwb_param_find (params, "fixed_box_min");
  const CwbParamValue *hi = cwb_param_find (params, "fixed_box_max");
  double extent = 0;
  for (size_t i = 0; i < body->n_nodes; i++)
    for (int a = 0; a < 3; a++)
      extent = MAX (extent, fabs (body->rest[3 * i + a] - body->com_mesh[a]));
  double slack = FIXED_BOX_SLACK * extent;
  size_t count = 0;
  for (size_t i = 0; i < body->n_nodes; i++)
    {
      gboolean inside = TRUE;
      for (int a = 0; a < 3; a++)
        {
          double x = body->rest[3 * i + a];
          inside = inside && x >= lo->v3[a] - slack && x <= hi->v3[a] + slack;
        }
      body->fixed[i] = body->fixed[i] || inside;
      count += body->fixed[i];
    }
  g_debug ("body '%s': %zu of %zu vertices pinned", body->name, count, body->n_nodes);
}

/* The triangles' rotations at q. */
static void
ensure_rotations (ClothBody *body, const double *q)
{
  size_t n = 3 * body->n_nodes;
  if (body->rotations_valid && memcmp (body->rotations_q, q, n * sizeof (double)) == 0)
    return;
  for (size_t t = 0; t < body->n_triangles; t++)
    {
      double x[3][3];
      triangle_positions (body, q, t, x);
      membrane_rotation (&body->membranes[t], x, &body->rotations[6 * t]);
    }
  memcpy (body->rotations_q, q, n * sizeof (double));
  body->rotations_valid = TRUE;
}

/* A = M (1 + h alpha) + K(q) (h^2 + h beta), pinned vertices projected out. */
static void
assemble (ClothBody *body, const double *q, double h)
{
  BlockMatrix *m = body->system;
  block_matrix_zero (m);
  ensure_rotations (body, q);
  double scale = h * h + h * body->beta;
  for (size_t t = 0; t < body->n_triangles; t++)
    {
      double k[9][9];
      membrane_stiffness (&body->membranes[t], &body->rotations[6 * t], k);
      block_matrix_add_element (m, 0, t, &k[0][0], scale);
    }
  const BendingHinge *hinges = (const BendingHinge *) body->hinges->data;
  for (size_t e = 0; e < body->hinges->len; e++)
    {
      double k[12][12];
      bending_stiffness (&hinges[e], body->bending, k);
      block_matrix_add_element (m, 1, e, &k[0][0], scale);
    }
  block_matrix_add_diagonal (m, body->node_mass, 1 + h * body->alpha);
  block_matrix_fix_nodes (m, body->fixed);
  body->factored = FALSE;
}

/* The Cholesky factor of A(q) for step h, reused while q and h stay the same. */
static gboolean
ensure_factor (ClothBody *body, const double *q, double h)
{
  size_t n = 3 * body->n_nodes;
  if (body->factored && body->factored_h == h
      && memcmp (body->factored_q, q, n * sizeof (double)) == 0)
    return TRUE;
  assemble (body, q, h);
  g_autoptr (GError) error = NULL;
  if (!block_cholesky_factor (body->cholesky, body->system, &error))
    {
      g_warning ("body '%s': %s", body->name, error->message);
      return FALSE;
    }
  memcpy (body->factored_q, q, n * sizeof (double));
  body->factored_h = h;
  body->factored = TRUE;
  return TRUE;
}

static void *
cloth_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->surface != NULL, NULL);
  const CwbSurfaceMesh *surface = info->surface;
  g_autoptr (ClothBody) body = g_new0 (ClothBody, 1);
  body->name = g_strdup (info->name != NULL ? info->name : "(unnamed)");
  body->fixed_body = info->fixed;
  read_params (body, info->params);
  if (!(info->density > 0))
    {
      g_set_error (error, CLOTH_ERROR, 0, "body '%s': material.density must be positive for a "
                   "cloth, got %g", body->name, info->density);
      return NULL;
    }
  if (surface->n_triangles == 0)
    {
      g_set_error (error, CLOTH_ERROR, 0, "body '%s': a cloth needs a triangle surface (a "
                   "rectangle or a mesh), got none", body->name);
      return NULL;
    }
  body->n_nodes = surface->n_vertices;
  body->n_triangles = surface->n_triangles;
  body->rest = g_memdup2 (surface->vertices, 3 * body->n_nodes * sizeof (double));
  body->triangles = g_memdup2 (surface->triangles, 3 * body->n_triangles * sizeof (uint32_t));
  if (!build_elements (body, error))
    return NULL;
  build_masses (body, info->density);
  mark_fixed_nodes (body, info->params);
  g_debug ("body '%s': %zu vertices, %zu triangles, %u hinges, mass %g kg, bending %g N m",
           body->name, body->n_nodes, body->n_triangles, body->hinges->len, body->mass,
           body->bending);

  BlockElements sets[2] = {
    { body->triangles, 3, body->n_triangles },
    { NULL, 4, body->hinges->len },
  };
  g_autofree uint32_t *hinge_nodes = g_new (uint32_t, 4 * MAX (body->hinges->len, 1));
  for (size_t e = 0; e < body->hinges->len; e++)
    memcpy (&hinge_nodes[4 * e], g_array_index (body->hinges, BendingHinge, e).vertices,
            4 * sizeof (uint32_t));
  sets[1].nodes = hinge_nodes;
  body->system = block_matrix_new (body->n_nodes, sets, 2);
  body->cholesky = block_cholesky_new (body->system);
  size_t n = 3 * body->n_nodes;
  body->factored_q = g_new (double, n);
  body->rotations_q = g_new (double, n);
  body->rotations = g_new (double, 6 * MAX (body->n_triangles, 1));
  implicit_step_init (&body->step, body->n_nodes, body->node_mass, body->fixed);
  body->bend_scratch = g_new (double, n);

  body->source = g_strdup (surface->source);
  body->reference = *surface;
  body->reference.vertices = body->rest;
  body->reference.triangles = body->triangles;
  body->reference.source = body->source;
  rigid_placement_pose (info, body->position, body->orientation, body->linear_velocity,
                        body->angular_velocity);
  return g_steal_pointer (&body);
}

static void
cloth_destroy (void *self)
{
  cloth_body_free (self);
}

static void
cloth_get_info (void *self, CwbBodyInfo *info)
{
  ClothBody *body = self;
  *info = (CwbBodyInfo) {
    .struct_size = sizeof (CwbBodyInfo),
    .nq = 3 * body->n_nodes,
    .nv = 3 * body->n_nodes,
    .mass = body->fixed_body ? 0 : body->mass,
    .fixed = body->fixed_body,
    .reference_surface = &body->reference,
    .rest_nodes = body->rest,
    .n_nodes = body->n_nodes,
  };
  cwb_v3_copy (info->center_of_mass, body->com_mesh);
  memcpy (info->inertia, body->inertia, sizeof info->inertia);
}

static void
cloth_init_state (void *self, double *q, double *v)
{
  ClothBody *body = self;
  rigid_placement_apply (body->rest, body->n_nodes, body->position, body->orientation,
                         body->com_mesh, body->linear_velocity, body->angular_velocity, q, v);
  for (size_t i = 0; i < body->n_nodes; i++)
    if (body->fixed[i])
      cwb_v3_set (&v[3 * i], 0, 0, 0);
}

/* The elastic forces at q: membranes (rotations current for q) and bending. */
static void
elastic_forces (ClothBody *body, const double *q, double *f)
{
  ensure_rotations (body, q);
  memset (f, 0, 3 * body->n_nodes * sizeof (double));
  for (size_t t = 0; t < body->n_triangles; t++)
    {
      double x[3][3], ft[3][3];
      triangle_positions (body, q, t, x);
      membrane_forces (&body->membranes[t], x, &body->rotations[6 * t], ft);
      for (int a = 0; a < 3; a++)
        cwb_v3_add (&f[3 * body->triangles[3 * t + a]], &f[3 * body->triangles[3 * t + a]],
                    ft[a]);
    }
  bending_add_forces ((const BendingHinge *) body->hinges->data, body->hinges->len,
                      body->bending, q, f);
}

/* y = K dx at the rotations of the last ensure_rotations. */
static void
stiffness_product (const ClothBody *body, const double *dx, double *y)
{
  memset (y, 0, 3 * body->n_nodes * sizeof (double));
  for (size_t t = 0; t < body->n_triangles; t++)
    {
      double k[9][9], d[9];
      membrane_stiffness (&body->membranes[t], &body->rotations[6 * t], k);
      for (int a = 0; a < 3; a++)
        cwb_v3_copy (&d[3 * a], &dx[3 * body->triangles[3 * t + a]]);
      for (int r = 0; r < 9; r++)
        {
          double s = 0;
          for (int c = 0; c < 9; c++)
            s += k[r][c] * d[c];
          y[3 * body->triangles[3 * t + r / 3] + r % 3] += s;
        }
    }
  /* The bending Hessian: D k (k . dx) per hinge; minus the forces of dx. */
  double *bend = body->bend_scratch;
  memset (bend, 0, 3 * body->n_nodes * sizeof (double));
  bending_add_forces ((const BendingHinge *) body->hinges->data, body->hinges->len,
                      body->bending, dx, bend);
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    y[k] -= bend[k];
}

static void
cloth_free_motion (void *self, const CwbFreeMotion *a)
{
  ClothBody *body = self;
  size_t n = 3 * body->n_nodes;
  if (body->fixed_body)
    {
      memcpy (a->q_free, a->q, n * sizeof (double));
      memset (a->v_free, 0, n * sizeof (double));
      return;
    }
  ImplicitStep *step = &body->step;
  step->alpha = body->alpha;
  step->beta = body->beta;
  elastic_forces (body, a->q, step->rhs);
  stiffness_product (body, a->v, step->kv);
  implicit_step_rhs (step, a);
  if (body->solver == LINEAR_SOLVER_CHOLESKY && !implicit_step_external (a))
    {
      memset (step->dv, 0, n * sizeof (double));
      if (ensure_factor (body, a->q, a->h))
        block_cholesky_solve (body->cholesky, step->rhs, step->dv, 1);
    }
  else
    {
      assemble (body, a->q, a->h);
      implicit_step_solve_iterative (step, a, body->system, body->cg_iterations,
                                     body->cg_tolerance, body->name);
    }
  implicit_step_finish (step, a);
}

static void
cloth_integrate_position (void *self, const double *q, const double *dv, double h,
                          double *q_out)
{
  ClothBody *body = self;
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    q_out[k] = q[k] + (body->fixed[k / 3] ? 0 : h * dv[k]);
}

static void
cloth_compliance_apply (void *self, const double *q, double h, CwbCompliance kind,
                        const double *r, double *dq)
{
  ClothBody *body = self;
  size_t n = 3 * body->n_nodes;
  if (body->fixed_body || !ensure_factor (body, q, h))
    {
      memset (dq, 0, n * sizeof (double));
      return;
    }
  block_cholesky_solve (body->cholesky, r, dq, 1);
  for (size_t k = 0; k < n; k++)
    dq[k] = body->fixed[k / 3] ? 0 : h * h * dq[k];
}

static void
cloth_mass_apply (void *self, const double *q, const double *x, double *y)
{
  ClothBody *body = self;
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    y[k] = body->fixed[k / 3] ? 0 : body->node_mass[k / 3] * x[k];   /* 0 stands for infinite */
}

static void
cloth_summary (void *self, const double *q, const double *v, CwbBodySummary *out)
{
  ClothBody *body = self;
  node_summary (q, v, body->rest, body->com_mesh, body->node_mass, body->n_nodes, body->mass,
                out);
}

/* f = f_elastic(q) - D v (gravity and contact are external). */
static void
cloth_internal_forces (void *self, const double *q, const double *v, double *f)
{
  ClothBody *body = self;
  elastic_forces (body, q, f);
  double *kv = body->step.kv;
  stiffness_product (body, v, kv);
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    f[k] -= body->alpha * body->node_mass[k / 3] * v[k] + body->beta * kv[k];
}

/* df = -K(q) dq (the membranes' rotations held fixed, as in the free motion). */
static void
cloth_stiffness_apply (void *self, const double *q, const double *v, const double *dq,
                       double *df)
{
  ClothBody *body = self;
  ensure_rotations (body, q);
  stiffness_product (body, dq, df);
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    df[k] = body->fixed[k / 3] ? 0 : -df[k];
}

static void
cloth_params_changed (void *self, const CwbParamSet *params)
{
  ClothBody *body = self;
  double young = body->young, poisson = body->poisson, thickness = body->thickness;
  read_params (body, params);
  body->factored = FALSE;
  if (young == body->young && poisson == body->poisson && thickness == body->thickness)
    return;
  /* A new material: the membranes' rest stiffnesses (the mass stays the creation's). */
  double modulus = body->young * body->thickness;
  for (size_t t = 0; t < body->n_triangles; t++)
    {
      double x[3][3];
      triangle_positions (body, body->rest, t, x);
      membrane_init (&body->membranes[t], x, modulus, body->poisson);
    }
}

static const CwbBodyModelVTable cloth_vtable = {
  .struct_size = sizeof (CwbBodyModelVTable),
  .create = cloth_create,
  .destroy = cloth_destroy,
  .get_info = cloth_get_info,
  .init_state = cloth_init_state,
  .free_motion = cloth_free_motion,
  .integrate_position = cloth_integrate_position,
  .compliance_apply = cloth_compliance_apply,
  .mass_apply = cloth_mass_apply,
  .summary = cloth_summary,
  .internal_forces = cloth_internal_forces,
  .stiffness_apply = cloth_stiffness_apply,
  .params_changed = cloth_params_changed,
};

static const CwbPluginDesc cloth_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_BODY_MODEL,
  .name = "cloth",
  .version = "1.0.0",
  .summary = "Cloth: corotational membrane triangles and discrete-shells bending on a "
             "triangle surface, pinned vertices",
  .params = cloth_params,
  .n_params = G_N_ELEMENTS (cloth_params),
  .vtable = &cloth_vtable,
};

CWB_DEFINE_PLUGIN (cloth_desc)

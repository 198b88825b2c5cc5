/* The deformable body model `fem`: corotational linear elasticity on a tetrahedral grid built
 * around the body's closed surface (tet_grid.c), lumped mass, Rayleigh damping, fixed nodes,
 * and the two compliances of Saupin 2008.
 *
 * State: q = world positions of the n grid nodes (3n), v = their velocities (3n). The shape
 * rides the nodes through a mapping (`barycentric`), which reads the rest nodes and
 * tetrahedra from get_info.
 *
 * Free motion, the linearised backward Euler of Saupin 2008 eq. 10-12 / Allard 2010 sec. 3.1
 * (one Newton step): with K = R K0 R^T assembled at the step's start (eq. 24-26, element
 * rotations by polar decomposition), D = alpha M + beta K (Rayleigh) and
 * f = f_elastic(q) + M g + f_ext - D v,
 *
 *   (M + h D + h^2 K) dv = h f - h^2 K v,    v+ = v + dv,  q+ = q + h v+,
 *
 * solved by conjugate gradients (faster on these grids, docs/benchmarks.md) or by CHOLMOD's
 * sparse Cholesky (the `linear_solver` parameter; CG is also what runs when a contact model
 * adds an external stiffness, which comes as an operator only).
 *
 * Compliance (body_model.h):
 *   exact   C = h^2 (M + h D + h^2 K(q))^-1 (eq. 21), factorised once for each q it is asked
 *           at and solved per contact column (or, with `exact_compliance: dense`, inverted
 *           whole by LAPACK once per q: the baseline of the paper's Table 2);
 *   warped  C~ = R C0 R^T (eq. 23) with C0 precomputed at rest (rest_compliance.c) and R the
 *           node rotations, each the rotation of the volume-weighted sum of its elements'
 *           rotations (fig. 1b), applied in the three corrective-motion steps of sec. 3.2.
 * Fixed nodes have zero compliance and never move. */
#include <float.h>
#include <math.h>

#include <cwb/body_model.h>
#include <cwb/vecmath.h>

#include "block_matrix.h"
#include "corotational.h"
#include "dense_inverse.h"
#include "implicit_step.h"
#include "linear_solve.h"
#include "node_summary.h"
#include "polar_rotation.h"
#include "rest_compliance.h"
#include "rigid_placement.h"
#include "tet_grid.h"

#define FEM_ERROR (g_quark_from_string ("fem"))

/* Nodes within this fraction of a cell of the fixed box's faces count as inside it, so that
 * a box drawn exactly on a grid plane catches the nodes on it despite rounding. */
#define FIXED_BOX_SLACK 1e-6

typedef enum LinearSolver {
  LINEAR_SOLVER_CHOLESKY = 0,
  LINEAR_SOLVER_CG = 1,
} LinearSolver;

typedef struct FemBody {
  char *name;
  gboolean fixed_body;
  /* Parameters. */
  double young, poisson, alpha, beta;
  int resolution;
  TetGridFit fit;
  LinearSolver solver;
  int cg_iterations;
  double cg_tolerance;
  gboolean use_cache, precompute_c0, dense_exact;
  /* The mesh, in the mesh frame. */
  TetGrid *grid;
  size_t n_nodes, n_tets;
  const double *rest;            /* grid->nodes */
  const uint32_t *tets;          /* grid->tets */
  CorotationalTet *elements;
  double *node_mass;
  gboolean *fixed;               /* per node */
  double mass, com_mesh[3], inertia[9];
  CwbSurfaceMesh reference;      /* the detailed surface, mesh frame (owned copies) */
  double *ref_vertices;
  uint32_t *ref_triangles;
  char *ref_source;
  /* Creation pose and velocities. */
  double position[3], orientation[4], linear_velocity[3], angular_velocity[3];
  /* Operators. */
  BlockMatrix *system;
  BlockCholesky *cholesky;
  double *factored_q;            /* the q (and h) the Cholesky factor holds A for */
  double factored_h;
  gboolean factored;
  DenseInverse *dense;           /* exact_compliance: dense */
  double *dense_q;               /* the q (and h) it holds the inverse for */
  double dense_h;
  gboolean dense_valid;
  double *rotations_q;           /* the q the rotations below are for */
  gboolean rotations_valid;
  double *element_rotations;     /* 9 per element */
  double *node_rotations;        /* 9 per node */
  RestCompliance *c0;
  const CwbHostServices *host;
  ImplicitStep step;             /* the free motion's right side, solution and scratch */
} FemBody;

static const CwbParamSpec fem_params[] = {
  { "young_modulus", CWB_PARAM_DOUBLE, "Pa", "1e5", 1e-6, 1e15, NULL,
    "Young's modulus E of the isotropic linear material." },
  { "poisson_ratio", CWB_PARAM_DOUBLE, "1", "0.3", 0, 0.49, NULL,
    "Poisson's ratio nu (below 0.5: linear tetrahedra lock near incompressibility)." },
  { "resolution", CWB_PARAM_INT, "1", "8", 1, 256, NULL,
    "Grid cells along the surface's longest side; each kept cell is six tetrahedra." },
  { "grid_fit", CWB_PARAM_ENUM, "", "bounds", 1, 0, "bounds|margin",
    "bounds: the grid spans the surface's bounding box exactly (a box is meshed exactly); "
    "margin: cubic cells with half a cell to spare on each side." },
  { "rayleigh_mass", CWB_PARAM_DOUBLE, "1/s", "0", 0, 1e6, NULL,
    "Rayleigh damping D = alpha M + beta K: alpha, the mass-proportional part." },
  { "rayleigh_stiffness", CWB_PARAM_DOUBLE, "s", "0", 0, 1e3, NULL,
    "Rayleigh damping D = alpha M + beta K: beta, the stiffness-proportional part." },
  { "linear_solver", CWB_PARAM_ENUM, "", "cg", 1, 0, "cholesky|cg",
    "The free motion's linear solve: conjugate gradients (faster from a few hundred nodes "
    "on, docs/benchmarks.md) or sparse Cholesky (CHOLMOD)." },
  { "cg_iterations", CWB_PARAM_INT, "1", "1000", 1, 1000000, NULL,
    "Most conjugate-gradient iterations per solve." },
  { "cg_tolerance", CWB_PARAM_DOUBLE, "1", "1e-10", 0, 1, NULL,
    "Conjugate gradients stop when the residual is below this fraction of the right side." },
  { "fixed_box", CWB_PARAM_BOOL, "", "false", 1, 0, NULL,
    "Fix the nodes inside [fixed_box_min, fixed_box_max] (mesh frame): they never move." },
  { "fixed_box_min", CWB_PARAM_VEC3, "m", "[0, 0, 0]", -1e9, 1e9, NULL,
    "Lower corner of the box of fixed nodes, in the mesh frame." },
  { "fixed_box_max", CWB_PARAM_VEC3, "m", "[0, 0, 0]", -1e9, 1e9, NULL,
    "Upper corner of the box of fixed nodes, in the mesh frame." },
  { "warped_compliance", CWB_PARAM_BOOL, "", "true", 1, 0, NULL,
    "Precompute the rest compliance C0 at load for the warped compliance (dense: 72 n^2 "
    "bytes for n nodes); off, a warped request uses the exact compliance." },
  { "exact_compliance", CWB_PARAM_ENUM, "", "sparse", 1, 0, "sparse|dense",
    "How the exact compliance is computed: sparse (CHOLMOD factorisation once per "
    "configuration, a solve per contact column) or dense (the whole inverse by LAPACK once "
    "per configuration, O(n^3): the baseline Saupin 2008 Table 2 measures warping against; "
    "for comparisons)." },
  { "compliance_cache", CWB_PARAM_BOOL, "", "true", 1, 0, NULL,
    "Keep the precomputed rest compliance C0 on disk so the next load is instant." },
};

static void
fem_body_free (FemBody *body)
{
  if (body == NULL)
    return;
  g_free (body->name);
  tet_grid_free (body->grid);
  g_free (body->elements);
  g_free (body->node_mass);
  g_free (body->fixed);
  g_free (body->ref_vertices);
  g_free (body->ref_triangles);
  g_free (body->ref_source);
  block_matrix_free (body->system);
  block_cholesky_free (body->cholesky);
  dense_inverse_free (body->dense);
  g_free (body->dense_q);
  g_free (body->factored_q);
  g_free (body->rotations_q);
  g_free (body->element_rotations);
  g_free (body->node_rotations);
  rest_compliance_free (body->c0);
  implicit_step_clear (&body->step);
  g_free (body);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FemBody, fem_body_free)

/* ---- construction --------------------------------------------------------------------- */

static double
surface_volume (const CwbSurfaceMesh *s)
{
  /* Divergence theorem: the sum of the signed volumes of the tetrahedra (0, a, b, c). */
  double volume = 0;
  for (size_t t = 0; t < s->n_triangles; t++)
    {
      const double *a = &s->vertices[3 * s->triangles[3 * t]];
      const double *b = &s->vertices[3 * s->triangles[3 * t + 1]];
      const double *c = &s->vertices[3 * s->triangles[3 * t + 2]];
      double bc[3];
      cwb_v3_cross (bc, b, c);
      volume += cwb_v3_dot (a, bc) / 6;
    }
  return volume;
}

static gboolean
build_elements (FemBody *body, GError **error)
{
  double lambda, mu;
  fem_lame (body->young, body->poisson, &lambda, &mu);
  body->elements = g_new (CorotationalTet, body->n_tets);
  for (size_t e = 0; e < body->n_tets; e++)
    {
      double x[4][3];
      for (int a = 0; a < 4; a++)
        cwb_v3_copy (x[a], &body->rest[3 * body->tets[4 * e + a]]);
      if (!fem_tet_init (&body->elements[e], x, lambda, mu))
        {
          g_set_error (error, FEM_ERROR, 0, "body '%s': tetrahedron %zu of the grid is "
                       "degenerate", body->name, e);
          return FALSE;
        }
    }
  return TRUE;
}

/* Lumped mass: each element's mass in quarters on its nodes, all scaled so the total is the
 * density times the surface's own volume (the grid's cells on the surface reach past it). */
static void
build_masses (FemBody *body, const CwbSurfaceMesh *surface, double density)
{
  body->node_mass = g_new0 (double, body->n_nodes);
  double grid_volume = 0;
  for (size_t e = 0; e < body->n_tets; e++)
    grid_volume += body->elements[e].volume;
  double volume = surface_volume (surface);
  double scale = volume > 0 ? volume / grid_volume : 1;
  for (size_t e = 0; e < body->n_tets; e++)
    for (int a = 0; a < 4; a++)
      body->node_mass[body->tets[4 * e + a]] += density * scale * body->elements[e].volume / 4;
  body->mass = 0;
  double moment[3] = { 0, 0, 0 };
  for (size_t i = 0; i < body->n_nodes; i++)
    {
      body->mass += body->node_mass[i];
      cwb_v3_axpy (moment, body->node_mass[i], &body->rest[3 * i]);
    }
  cwb_v3_scale (body->com_mesh, moment, 1 / body->mass);
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
mark_fixed_nodes (FemBody *body, const CwbParamSet *params)
{
  body->fixed = g_new0 (gboolean, body->n_nodes);
  if (body->fixed_body)
    {
      for (size_t i = 0; i < body->n_nodes; i++)
        body->fixed[i] = TRUE;
      return;
    }
  if (!cwb_param_bool (params, "fixed_box", FALSE))
    return;
  const CwbParamValue *lo = cwb_param_find (params, "fixed_box_min");
  const CwbParamValue *hi = cwb_param_find (params, "fixed_box_max");
  size_t count = 0;
  for (size_t i = 0; i < body->n_nodes; i++)
    {
      gboolean inside = TRUE;
      for (int a = 0; a < 3; a++)
        {
          double slack = FIXED_BOX_SLACK * body->grid->cell[a];
          double x = body->rest[3 * i + a];
          inside = inside && x >= lo->v3[a] - slack && x <= hi->v3[a] + slack;
        }
      body->fixed[i] = inside;
      count += inside;
    }
  g_debug ("body '%s': %zu of %zu nodes fixed", body->name, count, body->n_nodes);
}

static void
read_params (FemBody *body, const CwbParamSet *params)
{
  body->young = cwb_param_double (params, "young_modulus", 1e5);
  body->poisson = cwb_param_double (params, "poisson_ratio", 0.3);
  body->resolution = (int) cwb_param_int (params, "resolution", 8);
  body->fit = cwb_param_int (params, "grid_fit", 0) == 1 ? TET_GRID_FIT_MARGIN
                                                         : TET_GRID_FIT_BOUNDS;
  body->alpha = cwb_param_double (params, "rayleigh_mass", 0);
  body->beta = cwb_param_double (params, "rayleigh_stiffness", 0);
  body->solver = cwb_param_int (params, "linear_solver", 1) == 0 ? LINEAR_SOLVER_CHOLESKY
                                                                 : LINEAR_SOLVER_CG;
  body->cg_iterations = (int) cwb_param_int (params, "cg_iterations", 1000);
  body->cg_tolerance = cwb_param_double (params, "cg_tolerance", 1e-10);
  body->use_cache = cwb_param_bool (params, "compliance_cache", TRUE);
  body->precompute_c0 = cwb_param_bool (params, "warped_compliance", TRUE);
  body->dense_exact = cwb_param_int (params, "exact_compliance", 0) == 1;
}

/* ---- rotations and the system matrix ---------------------------------------------------- */

static void
element_positions (const FemBody *body, const double *q, size_t e, double x[4][3])
{
  for (int a = 0; a < 4; a++)
    cwb_v3_copy (x[a], &q[3 * body->tets[4 * e + a]]);
}

/* Element rotations at q, and the node rotations of Saupin 2008 fig. 1b: each node's is the
 * rotation of the volume-weighted sum of its elements' rotations. */
static void
ensure_rotations (FemBody *body, const double *q)
{
  size_t n = 3 * body->n_nodes;
  if (body->rotations_valid && memcmp (body->rotations_q, q, n * sizeof (double)) == 0)
    return;
  g_autofree double *sum = g_new0 (double, 9 * body->n_nodes);
  for (size_t e = 0; e < body->n_tets; e++)
    {
      double x[4][3];
      double *r = &body->element_rotations[9 * e];
      element_positions (body, q, e, x);
      fem_tet_rotation (&body->elements[e], x, r);
      for (int a = 0; a < 4; a++)
        for (int k = 0; k < 9; k++)
          sum[9 * body->tets[4 * e + a] + k] += body->elements[e].volume * r[k];
    }
  for (size_t i = 0; i < body->n_nodes; i++)
    polar_rotation (&sum[9 * i], &body->node_rotations[9 * i]);
  memcpy (body->rotations_q, q, n * sizeof (double));
  body->rotations_valid = TRUE;
}

/* A = M (1 + h alpha) + K(q) (h^2 + h beta), fixed nodes projected out. With no q, K is K0
 * (all rotations the identity): the rest system of C0. */
static void
assemble (FemBody *body, const double *q, double h)
{
  BlockMatrix *m = body->system;
  block_matrix_zero (m);
  if (q != NULL)
    ensure_rotations (body, q);
  double k[12][12];
  for (size_t e = 0; e < body->n_tets; e++)
    {
      if (q != NULL)
        fem_tet_stiffness (&body->elements[e], &body->element_rotations[9 * e], k);
      else
        memcpy (k, body->elements[e].k0, sizeof k);
      block_matrix_add_element (m, 0, e, &k[0][0], h * h + h * body->beta);
    }
  block_matrix_add_diagonal (m, body->node_mass, 1 + h * body->alpha);
  block_matrix_fix_nodes (m, body->fixed);
  body->factored = FALSE;
}

/* The Cholesky factor of A(q) for step h, reused while q and h stay the same. */
static gboolean
ensure_factor (FemBody *body, const double *q, double h)
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

/* The dense inverse of A(q) for step h (exact_compliance: dense), reused likewise. */
static gboolean
ensure_dense_inverse (FemBody *body, const double *q, double h)
{
  size_t n = 3 * body->n_nodes;
  if (body->dense_valid && body->dense_h == h
      && memcmp (body->dense_q, q, n * sizeof (double)) == 0)
    return TRUE;
  assemble (body, q, h);
  g_autoptr (GError) error = NULL;
  if (!dense_inverse_compute (body->dense, body->system, &error))
    {
      g_warning ("body '%s': %s", body->name, error->message);
      return FALSE;
    }
  memcpy (body->dense_q, q, n * sizeof (double));
  body->dense_h = h;
  body->dense_valid = TRUE;
  return TRUE;
}

/* ---- the rest compliance --------------------------------------------------------------- */

/* Everything C0 depends on, for the cache's name. */
static GBytes *
compliance_key (const FemBody *body, double h)
{
  GByteArray *key = g_byte_array_new ();
  const char tag[] = "fem-c0 v1";
  g_byte_array_append (key, (const guint8 *) tag, sizeof tag);
  guint64 counts[2] = { body->n_nodes, body->n_tets };
  g_byte_array_append (key, (const guint8 *) counts, sizeof counts);
  g_byte_array_append (key, (const guint8 *) body->rest, 3 * body->n_nodes * sizeof (double));
  g_byte_array_append (key, (const guint8 *) body->tets, 4 * body->n_tets * sizeof (uint32_t));
  g_byte_array_append (key, (const guint8 *) body->node_mass, body->n_nodes * sizeof (double));
  for (size_t i = 0; i < body->n_nodes; i++)
    {
      guint8 f = body->fixed[i] ? 1 : 0;
      g_byte_array_append (key, &f, 1);
    }
  double material[5] = { body->young, body->poisson, body->alpha, body->beta, h };
  g_byte_array_append (key, (const guint8 *) material, sizeof material);
  return g_byte_array_free_to_bytes (key);
}

/* C0 is dense: refuse what would not fit in memory rather than fail to allocate it. */
#define MAX_REST_COMPLIANCE_BYTES ((double) (2u << 30))

static gboolean
check_rest_compliance_size (const FemBody *body, GError **error)
{
  double bytes = 9.0 * body->n_nodes * body->n_nodes * sizeof (double);
  if (bytes <= MAX_REST_COMPLIANCE_BYTES)
    return TRUE;
  g_set_error (error, FEM_ERROR, 0,
               "body '%s': the rest compliance C0 of %zu nodes would take %.0f MiB (at most "
               "%.0f MiB): lower `resolution` or set `warped_compliance: false`",
               body->name, body->n_nodes, bytes / (1 << 20), MAX_REST_COMPLIANCE_BYTES / (1 << 20));
  return FALSE;
}

static gboolean
build_rest_compliance (FemBody *body, double h, GError **error)
{
  if (!check_rest_compliance_size (body, error))
    return FALSE;
  assemble (body, NULL, h);
  g_autoptr (GBytes) key = compliance_key (body, h);
  g_autofree char *what = g_strdup_printf ("body '%s': rest compliance C0 (%zu nodes)",
                                           body->name, body->n_nodes);
  RestComplianceSource source = {
    .a0 = body->system, .fixed = body->fixed, .h = h, .key = key, .host = body->host,
    .what = what, .use_cache = body->use_cache,
  };
  RestCompliance *c0 = rest_compliance_new (&source, error);
  if (c0 == NULL)
    return FALSE;
  rest_compliance_free (body->c0);
  body->c0 = c0;
  g_debug ("%s: %s", what, rest_compliance_from_cache (c0) ? "from the cache" : "computed");
  return TRUE;
}

/* ---- the vtable --------------------------------------------------------------------------- */

static void *
fem_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->surface != NULL, NULL);
  const CwbSurfaceMesh *surface = info->surface;
  g_autoptr (FemBody) body = g_new0 (FemBody, 1);
  body->name = g_strdup (info->name != NULL ? info->name : "(unnamed)");
  body->fixed_body = info->fixed;
  body->host = host;
  read_params (body, info->params);

  g_autoptr (GError) grid_error = NULL;
  body->grid = tet_grid_build (surface, body->resolution, body->fit, &grid_error);
  if (body->grid == NULL)
    {
      g_set_error (error, FEM_ERROR, 0, "body '%s': %s", body->name, grid_error->message);
      return NULL;
    }
  body->n_nodes = tet_grid_n_nodes (body->grid);
  body->n_tets = tet_grid_n_tets (body->grid);
  body->rest = (const double *) body->grid->nodes->data;
  body->tets = (const uint32_t *) body->grid->tets->data;
  if (!build_elements (body, error))
    return NULL;
  build_masses (body, surface, info->density);
  mark_fixed_nodes (body, info->params);
  g_debug ("body '%s': %zu nodes, %zu tetrahedra (%d x %d x %d cells), mass %g kg", body->name,
           body->n_nodes, body->n_tets, body->grid->dims[0], body->grid->dims[1],
           body->grid->dims[2], body->mass);

  size_t n = 3 * body->n_nodes;
  BlockElements tets = { body->tets, 4, body->n_tets };
  body->system = block_matrix_new (body->n_nodes, &tets, 1);
  body->cholesky = block_cholesky_new (body->system);
  if (body->dense_exact)
    {
      g_autoptr (GError) dense_error = NULL;
      body->dense = dense_inverse_new (body->system, MAX_REST_COMPLIANCE_BYTES, &dense_error);
      if (body->dense == NULL)
        {
          g_set_error (error, FEM_ERROR, 0, "body '%s': exact_compliance: dense: %s; lower "
                       "`resolution` or use `exact_compliance: sparse`", body->name,
                       dense_error->message);
          return NULL;
        }
      body->dense_q = g_new (double, n);
    }
  body->factored_q = g_new (double, n);
  body->rotations_q = g_new (double, n);
  body->element_rotations = g_new (double, 9 * body->n_tets);
  body->node_rotations = g_new (double, 9 * body->n_nodes);
  implicit_step_init (&body->step, body->n_nodes, body->node_mass, body->fixed);

  body->ref_vertices = g_memdup2 (surface->vertices, 3 * surface->n_vertices * sizeof (double));
  body->ref_triangles = g_memdup2 (surface->triangles,
                                   3 * surface->n_triangles * sizeof (uint32_t));
  body->ref_source = g_strdup (surface->source);
  body->reference = *surface;
  body->reference.vertices = body->ref_vertices;
  body->reference.triangles = body->ref_triangles;
  body->reference.source = body->ref_source;

  rigid_placement_pose (info, body->position, body->orientation, body->linear_velocity,
                        body->angular_velocity);

  /* The rest compliance needs the step; an older host (ABI < 1.3) does not give it, and
   * then C0 is built at the first warped compliance request instead. */
  double dt = CWB_STRUCT_HAS (info, CwbBodyCreateInfo, dt) ? info->dt : 0;
  if (body->precompute_c0 && !body->fixed_body && dt > 0
      && !build_rest_compliance (body, dt, error))
    return NULL;
  return g_steal_pointer (&body);
}

static void
fem_destroy (void *self)
{
  fem_body_free (self);
}

static void
fem_get_info (void *self, CwbBodyInfo *info)
{
  FemBody *body = self;
  *info = (CwbBodyInfo) {
    .struct_size = sizeof (CwbBodyInfo),
    .nq = 3 * body->n_nodes,
    .nv = 3 * body->n_nodes,
    .mass = body->fixed_body ? 0 : body->mass,
    .fixed = body->fixed_body,
    .reference_surface = &body->reference,
    .rest_nodes = body->rest,
    .n_nodes = body->n_nodes,
    .tetrahedra = body->tets,
    .n_tetrahedra = body->n_tets,
  };
  cwb_v3_copy (info->center_of_mass, body->com_mesh);
  memcpy (info->inertia, body->inertia, sizeof info->inertia);
}

static void
fem_init_state (void *self, double *q, double *v)
{
  FemBody *body = self;
  rigid_placement_apply (body->rest, body->n_nodes, body->position, body->orientation,
                         body->com_mesh, body->linear_velocity, body->angular_velocity, q, v);
  for (size_t i = 0; i < body->n_nodes; i++)
    if (body->fixed[i])
      cwb_v3_set (&v[3 * i], 0, 0, 0);
}

/* Adds each element's four 3-vectors into the nodes' entries of y (3n). */
static void
scatter (const FemBody *body, size_t e, const double fe[4][3], double *y)
{
  for (int a = 0; a < 4; a++)
    cwb_v3_add (&y[3 * body->tets[4 * e + a]], &y[3 * body->tets[4 * e + a]], fe[a]);
}

/* The elastic forces at q (rotations already current for q). */
static void
elastic_forces (const FemBody *body, const double *q, double *f)
{
  memset (f, 0, 3 * body->n_nodes * sizeof (double));
  for (size_t e = 0; e < body->n_tets; e++)
    {
      double x[4][3], fe[4][3];
      element_positions (body, q, e, x);
      fem_tet_forces (&body->elements[e], x, &body->element_rotations[9 * e], fe);
      scatter (body, e, fe, f);
    }
}

/* y = K dx with K = sum R K0 R^T at the current rotations, element by element. */
static void
stiffness_product (const FemBody *body, const double *dx, double *y)
{
  memset (y, 0, 3 * body->n_nodes * sizeof (double));
  for (size_t e = 0; e < body->n_tets; e++)
    {
      double de[4][3], ye[4][3];
      element_positions (body, dx, e, de);
      fem_tet_stiffness_apply (&body->elements[e], &body->element_rotations[9 * e], de, ye);
      scatter (body, e, ye, y);
    }
}

static void
fem_free_motion (void *self, const CwbFreeMotion *a)
{
  FemBody *body = self;
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
  ensure_rotations (body, a->q);
  elastic_forces (body, a->q, step->rhs);
  stiffness_product (body, a->v, step->kv);
  implicit_step_rhs (step, a);
  /* The fixed nodes' right side needs no zeroing: both solves decouple them (the matrix is
   * projected, CG projects its residual), and their velocity is set to zero at the end. */
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
fem_integrate_position (void *self, const double *q, const double *dv, double h,
                        double *q_out)
{
  FemBody *body = self;
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    q_out[k] = q[k] + (body->fixed[k / 3] ? 0 : h * dv[k]);
}

static void
fem_compliance_apply (void *self, const double *q, double h, CwbCompliance kind,
                      const double *r, double *dq)
{
  FemBody *body = self;
  size_t n = 3 * body->n_nodes;
  if (body->fixed_body)
    {
      memset (dq, 0, n * sizeof (double));
      return;
    }
  if (kind == CWB_COMPLIANCE_WARPED && !body->precompute_c0)
    kind = CWB_COMPLIANCE_EXACT;
  if (kind == CWB_COMPLIANCE_WARPED)
    {
      if (body->c0 == NULL || rest_compliance_h (body->c0) != h)
        {
          /* Built at creation for the world's step; a step changed since (or a host too old
           * to tell) means building it now, without the chance to cancel. */
          g_autoptr (GError) error = NULL;
          if (!build_rest_compliance (body, h, &error))
            {
              g_warning ("body '%s': %s; using the exact compliance", body->name,
                         error->message);
              kind = CWB_COMPLIANCE_EXACT;
            }
        }
      if (kind == CWB_COMPLIANCE_WARPED)
        {
          /* R at q itself. The rotations of the step's start (which the free motion's K
           * used, and SOFA's warped correction reads) would save the polar decompositions
           * at q_free, but lag by h omega: tried, the rain of tumbling bodies gained energy
           * and its contacts grew tenfold within a second. */
          ensure_rotations (body, q);
          rest_compliance_apply (body->c0, body->node_rotations, r, dq);
          return;
        }
    }
  if (!(body->dense != NULL ? ensure_dense_inverse (body, q, h) : ensure_factor (body, q, h)))
    {
      memset (dq, 0, n * sizeof (double));
      return;
    }
  /* The projected matrix decouples the fixed nodes: r there changes nothing elsewhere, and
   * their displacement is zeroed here. */
  if (body->dense != NULL)
    dense_inverse_apply (body->dense, r, dq);
  else
    block_cholesky_solve (body->cholesky, r, dq, 1);
  for (size_t k = 0; k < n; k++)
    dq[k] = body->fixed[k / 3] ? 0 : h * h * dq[k];
}

static void
fem_mass_apply (void *self, const double *q, const double *x, double *y)
{
  FemBody *body = self;
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    y[k] = body->fixed[k / 3] ? 0 : body->node_mass[k / 3] * x[k];   /* 0 stands for infinite */
}

static void
fem_summary (void *self, const double *q, const double *v, CwbBodySummary *out)
{
  FemBody *body = self;
  node_summary (q, v, body->rest, body->com_mesh, body->node_mass, body->n_nodes, body->mass,
                out);
}

/* f = f_elastic(q) - D v (the internal forces; gravity and contact are external). */
static void
fem_internal_forces (void *self, const double *q, const double *v, double *f)
{
  FemBody *body = self;
  ensure_rotations (body, q);
  elastic_forces (body, q, f);
  double *kv = body->step.kv;
  stiffness_product (body, v, kv);
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    f[k] -= body->alpha * body->node_mass[k / 3] * v[k] + body->beta * kv[k];
}

/* df = (d f / d q) dq = -K(q) dq with K = R K0 R^T (R held fixed, as in the free motion). */
static void
fem_stiffness_apply (void *self, const double *q, const double *v, const double *dq,
                     double *df)
{
  FemBody *body = self;
  ensure_rotations (body, q);
  stiffness_product (body, dq, df);
  for (size_t k = 0; k < 3 * body->n_nodes; k++)
    df[k] = body->fixed[k / 3] ? 0 : -df[k];
}

static void
fem_inspect_elements (void *self, const double *q, CwbElementInspection *out)
{
  FemBody *body = self;
  memcpy (out->nodes, q, 3 * body->n_nodes * sizeof (double));
  for (size_t e = 0; e < body->n_tets; e++)
    {
      double x[4][3];
      element_positions (body, q, e, x);
      fem_tet_strain (&body->elements[e], x, &out->strain[6 * e], &out->rotation[e]);
    }
}

static const CwbBodyModelVTable fem_vtable = {
  .struct_size = sizeof (CwbBodyModelVTable),
  .create = fem_create,
  .destroy = fem_destroy,
  .get_info = fem_get_info,
  .init_state = fem_init_state,
  .free_motion = fem_free_motion,
  .integrate_position = fem_integrate_position,
  .compliance_apply = fem_compliance_apply,
  .mass_apply = fem_mass_apply,
  .summary = fem_summary,
  .internal_forces = fem_internal_forces,
  .stiffness_apply = fem_stiffness_apply,
  .inspect_elements = fem_inspect_elements,
};

static const CwbPluginDesc fem_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_BODY_MODEL,
  .name = "fem",
  .version = "1.0.0",
  .summary = "Deformable body: corotational linear tetrahedra on a grid around the surface, "
             "exact and warped compliance (Saupin 2008)",
  .params = fem_params,
  .n_params = G_N_ELEMENTS (fem_params),
  .vtable = &fem_vtable,
};

CWB_DEFINE_PLUGIN (fem_desc)

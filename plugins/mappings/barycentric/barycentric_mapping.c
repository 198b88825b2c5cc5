/* The barycentric mapping: a deformable body's detailed surface embedded in its coarse
 * tetrahedral mesh (SOFA's BarycentricMapping; Saupin 2008 and Allard 2010 run the FEM on a
 * coarse grid and let the fine surface the contact models see follow it this way).
 *
 * At creation each vertex p_j of the reference surface (mesh frame, the frame of the body's
 * rest nodes X) is located in the rest mesh: the tetrahedron (n_0 .. n_3) holding it and its
 * barycentric coordinates w_jk, with p_j = sum_k w_jk X_{n_k} and sum_k w_jk = 1
 * (tet_embedding.c). The body's state is q = the nodes' world positions, v = their
 * velocities (nq = nv = 3 n_nodes, node-major), and then
 *
 *   p_j    = sum_k w_jk q_{n_jk}                 positions
 *   pdot_j = sum_k w_jk v_{n_jk} = J_j v         velocities, J_j = [w_j0 I3, .., w_j3 I3]
 *   r_{n_jk} += w_jk f_j         = J_j^T f_j     forces back to the nodes
 *
 * J does not depend on q, so the map is linear, J^T f does not change with q and the
 * geometric stiffness d(J^T f)/dq of Faure 2007 sec. 5 is zero: the vtable leaves it NULL.
 * Because the weights sum to 1 and reproduce the rest positions, an affine motion of the
 * nodes, q = A X + b, moves every vertex to A p + b exactly (up to rounding).
 *
 * The surface embedded is the body's, refined (surface_refine.h) until no edge is longer than
 * the grid's cell (the tetrahedra's mean box):
 * the contact models apply their forces at the surface's vertices, J^T carries each to the
 * four nodes around it, and a surface coarser than the grid (a box's 8 corners) would
 * press on the few nodes next to its vertices only, denting the body there and bending it
 * between them where a continuum bears the load over the whole face.
 *
 * With `sample: volume` the embedded points are the particles of the volume layer (Faure
 * 2007 sec. 5.4, volume_particles.h: the lattice points inside the reference surface, each
 * with its share of the body's mass), so the body meets the Eulerian model through its
 * deforming volume. */
#include <cwb/mapping.h>
#include <cwb/vecmath.h>

#include "surface_refine.h"
#include "tet_embedding.h"
#include "volume_particles.h"

/* At most this many vertices in a refined surface: a spacing far too small for its body is
 * refused (as many as the volume layer's particles). */
#define REFINED_SURFACE_MAX_VERTICES (1u << 20)

/* Errors a user can cause: mapping a body that has no tetrahedra to embed in. */
#define BARYCENTRIC_MAPPING_ERROR (barycentric_mapping_error_quark ())
static GQuark barycentric_mapping_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-barycentric-mapping-error-quark, barycentric_mapping_error)
enum { BARYCENTRIC_MAPPING_ERROR_BODY };

typedef struct BarycentricMapping {
  TetEmbeddedPoint *points;   /* n_points: 4 node indices and 4 weights per vertex */
  size_t n_points;
  uint32_t *triangles;        /* 3 * n_triangles, the reference surface's */
  size_t n_triangles;
  gboolean closed;
  double *radii;              /* particles: n_points each */
  double *masses;
} BarycentricMapping;

static void
barycentric_mapping_free (BarycentricMapping *map)
{
  g_free (map->points);
  g_free (map->triangles);
  g_free (map->radii);
  g_free (map->masses);
  g_free (map);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BarycentricMapping, barycentric_mapping_free)

/* The grid's cell: the mean over the tetrahedra of their bounding box's largest side (the
 * FEM grid's tetrahedra each span their cell's diagonal, so their boxes are the cells). */
static double
grid_cell (const CwbBodyInfo *body)
{
  double sum = 0;
  for (size_t t = 0; t < body->n_tetrahedra; t++)
    {
      double lo[3], hi[3];
      for (int k = 0; k < 4; k++)
        {
          const double *x = &body->rest_nodes[3 * body->tetrahedra[4 * t + k]];
          for (int c = 0; c < 3; c++)
            {
              lo[c] = k == 0 ? x[c] : MIN (lo[c], x[c]);
              hi[c] = k == 0 ? x[c] : MAX (hi[c], x[c]);
            }
        }
      sum += MAX (hi[0] - lo[0], MAX (hi[1] - lo[1], hi[2] - lo[2]));
    }
  return sum / (double) body->n_tetrahedra;
}

/* The surface the mapping embeds: the body's, refined to `surface_spacing` (0: the grid's
 * cell) unless `refine_surface` is off, when `refined` stays empty. */
static gboolean
refine_reference (const CwbBodyInfo *body, const CwbParamSet *params, const char *name,
                  SurfaceRefined *refined, GError **error)
{
  *refined = (SurfaceRefined) { 0 };
  if (!cwb_param_bool (params, "refine_surface", TRUE))
    return TRUE;
  const CwbSurfaceMesh *surface = body->reference_surface;
  double spacing = cwb_param_double (params, "surface_spacing", 0);
  if (spacing <= 0)
    spacing = grid_cell (body);
  return surface_refine (surface->vertices, surface->n_vertices, surface->triangles,
                         surface->n_triangles, spacing, REFINED_SURFACE_MAX_VERTICES, name,
                         refined, error);
}

static void *
mapping_create (const CwbMappingCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->body != NULL, NULL);
  const CwbBodyInfo *body = info->body;
  const char *name = info->name != NULL ? info->name : "(unnamed)";
  const CwbSurfaceMesh *surface = body->reference_surface;
  gboolean has_mesh = body->tetrahedra != NULL && body->n_tetrahedra > 0
                      && body->rest_nodes != NULL && body->n_nodes > 0;
  if (!has_mesh)
    {
      g_set_error (error, BARYCENTRIC_MAPPING_ERROR, BARYCENTRIC_MAPPING_ERROR_BODY,
                   "body '%s': the barycentric mapping needs a deformable body model (rest "
                   "nodes and tetrahedra to embed the surface in); this body has none "
                   "(nq %zu, nv %zu): use the rigid mapping for a rigid body",
                   name, body->nq, body->nv);
      return NULL;
    }
  if (body->nq != 3 * body->n_nodes || body->nv != 3 * body->n_nodes)
    {
      g_set_error (error, BARYCENTRIC_MAPPING_ERROR, BARYCENTRIC_MAPPING_ERROR_BODY,
                   "body '%s': the barycentric mapping needs the state to be the positions "
                   "and velocities of the %zu nodes (nq = nv = %zu); this body has nq %zu, "
                   "nv %zu", name, body->n_nodes, 3 * body->n_nodes, body->nq, body->nv);
      return NULL;
    }
  if (surface == NULL)
    {
      g_set_error (error, BARYCENTRIC_MAPPING_ERROR, BARYCENTRIC_MAPPING_ERROR_BODY,
                   "body '%s': the barycentric mapping needs a reference surface to embed, "
                   "and the body model gave none", name);
      return NULL;
    }

  g_autoptr (BarycentricMapping) map = g_new0 (BarycentricMapping, 1);
  VolumeParticles particles = { 0 };
  gboolean volume = volume_particles_wanted (info->params);
  if (volume
      && !volume_particles_sample (surface, cwb_param_double (info->params, "particle_spacing",
                                                              0),
                                   name, &particles, error))
    return NULL;
  SurfaceRefined refined = { 0 };
  if (!volume && !refine_reference (body, info->params, name, &refined, error))
    return NULL;
  const double *embedded = volume ? particles.positions
                           : refined.vertices != NULL ? refined.vertices : surface->vertices;
  map->n_points = volume ? particles.n
                  : refined.vertices != NULL ? refined.n_vertices : surface->n_vertices;
  map->points = g_new (TetEmbeddedPoint, MAX (map->n_points, 1));
  TetEmbeddingStats stats;
  g_autoptr (GError) embed_error = NULL;
  gboolean embedded_ok = tet_embedding_build (body->rest_nodes, body->n_nodes, body->tetrahedra,
                                              body->n_tetrahedra, embedded, map->n_points,
                                              map->points, NULL, &stats, &embed_error);
  if (volume)
    volume_particles_layout (&particles, body->mass, &map->radii, &map->masses);
  volume_particles_clear (&particles);
  if (!embedded_ok)
    {
      surface_refined_clear (&refined);
      g_set_error (error, BARYCENTRIC_MAPPING_ERROR, BARYCENTRIC_MAPPING_ERROR_BODY,
                   "body '%s': cannot embed surface %s in its tetrahedra: %s", name,
                   surface->source != NULL ? surface->source : "(unnamed)",
                   embed_error->message);
      return NULL;
    }
  const char *what = volume ? "volume particles" : "surface vertices";
  g_debug ("body '%s': %zu %s embedded in %zu tetrahedra (%zu flat ones skipped), %zu "
           "outside every tetrahedron", name, map->n_points, what, body->n_tetrahedra,
           stats.n_flat, stats.n_outside);
  if (stats.n_outside > 0)
    g_message ("body '%s': %zu of %zu %s lie outside every tetrahedron and follow the "
               "nearest one by extrapolation; the farthest, point %zu, is %g m from it", name,
               stats.n_outside, map->n_points, what, stats.farthest,
               stats.max_outside_distance);
  if (volume)
    return g_steal_pointer (&map);

  if (refined.triangles != NULL)
    {
      if (refined.n_vertices > surface->n_vertices)
        g_debug ("body '%s': surface refined from %zu to %zu vertices", name,
                 surface->n_vertices, refined.n_vertices);
      map->n_triangles = refined.n_triangles;
      map->triangles = g_steal_pointer (&refined.triangles);
      surface_refined_clear (&refined);
    }
  else
    {
      map->n_triangles = surface->n_triangles;
      map->triangles = g_memdup2 (surface->triangles,
                                  3 * surface->n_triangles * sizeof (uint32_t));
    }
  map->closed = surface->closed;
  return g_steal_pointer (&map);
}

static void
mapping_destroy (void *self)
{
  barycentric_mapping_free (self);
}

static void
mapping_get_layout (void *self, CwbGeometryLayout *layout)
{
  BarycentricMapping *map = self;
  *layout = (CwbGeometryLayout) {
    .struct_size = sizeof (CwbGeometryLayout),
    .kind = map->radii != NULL ? CWB_GEOMETRY_PARTICLES : CWB_GEOMETRY_SURFACE,
    .n_points = map->n_points,
    .triangles = map->triangles,
    .n_triangles = map->n_triangles,
    .closed = map->closed,
    .radii = map->radii,
    .masses = map->masses,
  };
}

/* out = J_j x = sum_k w_jk x_{n_jk}: one vertex of the map, for positions (x = q),
 * velocities (x = v) and increments (x = dq) alike, the map being linear. */
static inline void
point_combine (const TetEmbeddedPoint *point, const double *x, double out[3])
{
  cwb_v3_set (out, 0, 0, 0);
  for (int k = 0; k < 4; k++)
    cwb_v3_axpy (out, point->weights[k], &x[3 * point->nodes[k]]);
}

static void
mapping_apply (void *self, const double *q, const double *v, double *positions,
               double *velocities)
{
  BarycentricMapping *map = self;
  for (size_t j = 0; j < map->n_points; j++)
    {
      if (positions != NULL)
        point_combine (&map->points[j], q, &positions[3 * j]);
      if (velocities != NULL && v != NULL)
        point_combine (&map->points[j], v, &velocities[3 * j]);
    }
}

static void
mapping_apply_j (void *self, const double *q, const double *dq, double *dp)
{
  BarycentricMapping *map = self;
  for (size_t j = 0; j < map->n_points; j++)
    point_combine (&map->points[j], dq, &dp[3 * j]);
}

/* J at a few points: the rows of mapping_apply_j, for a contact's response. */
static void
mapping_apply_j_points (void *self, const double *q, const double *dq, const uint32_t *points,
                        size_t n, double *dp)
{
  BarycentricMapping *map = self;
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (points[i] < map->n_points);
      point_combine (&map->points[points[i]], dq, &dp[3 * i]);
    }
}

static void
mapping_apply_jt (void *self, const double *q, const CwbPointWeight *f, size_t n, double *r)
{
  BarycentricMapping *map = self;
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (f[i].point < map->n_points);
      const TetEmbeddedPoint *point = &map->points[f[i].point];
      for (int k = 0; k < 4; k++)
        cwb_v3_axpy (&r[3 * point->nodes[k]], point->weights[k], f[i].w);
    }
}

/* A point's force moves the three DOFs of each of its tetrahedron's four nodes. */
static size_t
mapping_point_dofs (void *self, uint32_t point, uint32_t *dofs, size_t capacity)
{
  BarycentricMapping *map = self;
  g_return_val_if_fail (point < map->n_points, 0);
  const TetEmbeddedPoint *embedded = &map->points[point];
  for (size_t k = 0; k < 4; k++)
    for (size_t c = 0; c < 3 && 3 * k + c < capacity; c++)
      dofs[3 * k + c] = 3 * embedded->nodes[k] + (uint32_t) c;
  return 12;
}

static const CwbParamSpec mapping_params[] = {
  VOLUME_PARTICLES_PARAMS,
  { "refine_surface", CWB_PARAM_BOOL, "", "true", 1, 0, NULL,
    "Split the surface's triangles until no edge is longer than `surface_spacing`, so that "
    "contact forces spread over the grid's nodes (a box's faces otherwise bear on its 8 "
    "corners only)." },
  { "surface_spacing", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,
    "The longest edge of the refined surface. 0: automatic, the body's grid cell." },
};

static const CwbMappingVTable mapping_vtable = {
  .struct_size = sizeof (CwbMappingVTable),
  .create = mapping_create,
  .destroy = mapping_destroy,
  .get_layout = mapping_get_layout,
  .apply = mapping_apply,
  .apply_j = mapping_apply_j,
  .apply_j_points = mapping_apply_j_points,
  .apply_jt = mapping_apply_jt,
  .point_dofs = mapping_point_dofs,
  /* Linear map: no geometric stiffness (see the top of the file). */
  .geometric_stiffness_apply = NULL,
};

static const CwbPluginDesc mapping_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_MAPPING,
  .name = "barycentric",
  .version = "1.0.0",
  .summary = "Barycentric mapping: a detailed surface, or particles filling it, embedded in "
             "a deformable body's tetrahedra",
  .params = mapping_params,
  .n_params = G_N_ELEMENTS (mapping_params),
  .vtable = &mapping_vtable,
};

CWB_DEFINE_PLUGIN (mapping_desc)

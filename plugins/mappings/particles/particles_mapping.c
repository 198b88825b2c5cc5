/* The particles mapping: a body whose nodes are particles of its own (a fluid's; CwbBodyInfo
 * node_radii and node_masses) shown to the contact models as those particles.
 *
 * With q the nodes' positions and v their velocities (nq = nv = 3 n, node-major), the map is
 * the identity:
 *   p_k = q_k,   pdot_k = v_k,   J = I,   r_k += f_k (J^T),
 * linear, so its geometric stiffness is zero. */
#include <cwb/mapping.h>
#include <cwb/vecmath.h>

#define PARTICLES_MAPPING_ERROR (particles_mapping_error_quark ())
static GQuark particles_mapping_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-particles-mapping-error-quark, particles_mapping_error)
enum { PARTICLES_MAPPING_ERROR_BODY };

typedef struct ParticlesMapping {
  size_t n_points;
  double *radii, *masses;
} ParticlesMapping;

static void
particles_mapping_free (ParticlesMapping *map)
{
  g_free (map->radii);
  g_free (map->masses);
  g_free (map);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ParticlesMapping, particles_mapping_free)

static void *
mapping_create (const CwbMappingCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->body != NULL, NULL);
  const CwbBodyInfo *body = info->body;
  const char *name = info->name != NULL ? info->name : "(unnamed)";
  gboolean has_particles = body->struct_size >= G_STRUCT_OFFSET (CwbBodyInfo, node_masses)
                                                  + sizeof body->node_masses
                           && body->node_radii != NULL && body->node_masses != NULL
                           && body->n_nodes > 0;
  if (!has_particles || body->nq != 3 * body->n_nodes || body->nv != 3 * body->n_nodes)
    {
      g_set_error (error, PARTICLES_MAPPING_ERROR, PARTICLES_MAPPING_ERROR_BODY,
                   "body '%s': the particles mapping needs a body whose nodes are particles "
                   "(a fluid: node radii and masses, nq = nv = 3 nodes); this body has %s"
                   "(nq %zu, nv %zu): use the rigid mapping for a rigid body, the "
                   "barycentric one for a FEM body", name,
                   has_particles ? "" : "none ", body->nq, body->nv);
      return NULL;
    }
  g_autoptr (ParticlesMapping) map = g_new0 (ParticlesMapping, 1);
  map->n_points = body->n_nodes;
  map->radii = g_memdup2 (body->node_radii, body->n_nodes * sizeof (double));
  map->masses = g_memdup2 (body->node_masses, body->n_nodes * sizeof (double));
  return g_steal_pointer (&map);
}

static void
mapping_destroy (void *self)
{
  particles_mapping_free (self);
}

static void
mapping_get_layout (void *self, CwbGeometryLayout *layout)
{
  ParticlesMapping *map = self;
  *layout = (CwbGeometryLayout) {
    .struct_size = sizeof (CwbGeometryLayout),
    .kind = CWB_GEOMETRY_PARTICLES,
    .n_points = map->n_points,
    .radii = map->radii,
    .masses = map->masses,
  };
}

static void
mapping_apply (void *self, const double *q, const double *v, double *positions,
               double *velocities)
{
  ParticlesMapping *map = self;
  if (positions != NULL)
    memcpy (positions, q, 3 * map->n_points * sizeof (double));
  if (velocities != NULL && v != NULL)
    memcpy (velocities, v, 3 * map->n_points * sizeof (double));
}

static void
mapping_apply_j (void *self, const double *q, const double *dq, double *dp)
{
  ParticlesMapping *map = self;
  memcpy (dp, dq, 3 * map->n_points * sizeof (double));
}

static void
mapping_apply_j_points (void *self, const double *q, const double *dq, const uint32_t *points,
                        size_t n, double *dp)
{
  ParticlesMapping *map = self;
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (points[i] < map->n_points);
      cwb_v3_copy (&dp[3 * i], &dq[3 * points[i]]);
    }
}

static void
mapping_apply_jt (void *self, const double *q, const CwbPointWeight *f, size_t n, double *r)
{
  ParticlesMapping *map = self;
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (f[i].point < map->n_points);
      cwb_v3_add (&r[3 * f[i].point], &r[3 * f[i].point], f[i].w);
    }
}

/* A particle's force moves that particle's three DOFs alone. */
static size_t
mapping_point_dofs (void *self, uint32_t point, uint32_t *dofs, size_t capacity)
{
  ParticlesMapping *map = self;
  g_return_val_if_fail (point < map->n_points, 0);
  for (size_t c = 0; c < 3 && c < capacity; c++)
    dofs[c] = 3 * point + (uint32_t) c;
  return 3;
}

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
};

static const CwbPluginDesc mapping_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_MAPPING,
  .name = "particles",
  .version = "1.0.0",
  .summary = "Particles mapping: a fluid's particles, as they are, for the contact models",
  .vtable = &mapping_vtable,
};

CWB_DEFINE_PLUGIN (mapping_desc)

/* The particles mapping: a body whose nodes are particles of its own (a fluid's; CwbBodyInfo
 * node_radii and node_masses) shown to the contact models as those particles.
 *
 * With q the nodes' positions and v their velocities (nq = nv = 3 n, node-major), the map is
 * the identity (identity_map.h). */
#include <cwb/mapping.h>

#include "identity_map.h"

#define PARTICLES_MAPPING_ERROR (particles_mapping_error_quark ())
static GQuark particles_mapping_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-particles-mapping-error-quark, particles_mapping_error)
enum { PARTICLES_MAPPING_ERROR_BODY };

typedef struct ParticlesMapping {
  IdentityMap identity;   /* first: the shared operators read it */
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
  map->identity.n_points = body->n_nodes;
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
    .n_points = map->identity.n_points,
    .radii = map->radii,
    .masses = map->masses,
  };
}

static const CwbMappingVTable mapping_vtable = {
  .struct_size = sizeof (CwbMappingVTable),
  .create = mapping_create,
  .destroy = mapping_destroy,
  .get_layout = mapping_get_layout,
  .apply = identity_map_apply,
  .apply_j = identity_map_apply_j,
  .apply_j_points = identity_map_apply_j_points,
  .apply_jt = identity_map_apply_jt,
  .point_dofs = identity_map_point_dofs,
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

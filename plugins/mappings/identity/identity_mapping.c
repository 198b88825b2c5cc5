/* The identity mapping (SOFA's IdentityMapping): a body whose nodes are the vertices of its
 * own surface (the cloth's) shown to the contact models as that surface, p = q, J = I
 * (identity_map.h). The surface keeps the body's triangles and its closedness: an open
 * cloth's vertices meet closed surfaces as points, and no point is tested inside it. */
#include <string.h>

#include <cwb/mapping.h>

#include "identity_map.h"

#define IDENTITY_MAPPING_ERROR (identity_mapping_error_quark ())
static GQuark identity_mapping_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-identity-mapping-error-quark, identity_mapping_error)
enum { IDENTITY_MAPPING_ERROR_BODY };

typedef struct IdentityMapping {
  IdentityMap identity;   /* first: the shared operators read it */
  uint32_t *triangles;
  size_t n_triangles;
  gboolean closed;
} IdentityMapping;

static void
identity_mapping_free (IdentityMapping *map)
{
  g_free (map->triangles);
  g_free (map);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (IdentityMapping, identity_mapping_free)

static void *
mapping_create (const CwbMappingCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->body != NULL, NULL);
  const CwbBodyInfo *body = info->body;
  const CwbSurfaceMesh *surface = body->reference_surface;
  const char *name = info->name != NULL ? info->name : "(unnamed)";
  gboolean nodes_are_vertices = surface != NULL && body->rest_nodes != NULL
                                && body->n_nodes == surface->n_vertices
                                && body->nq == 3 * body->n_nodes
                                && body->nv == 3 * body->n_nodes
                                && memcmp (body->rest_nodes, surface->vertices,
                                           3 * body->n_nodes * sizeof (double)) == 0;
  if (!nodes_are_vertices)
    {
      g_set_error (error, IDENTITY_MAPPING_ERROR, IDENTITY_MAPPING_ERROR_BODY,
                   "body '%s': the identity mapping needs a body whose nodes are its "
                   "surface's vertices (a cloth: nq = nv = 3 vertices); this body has %zu "
                   "nodes for %zu surface vertices (nq %zu, nv %zu): use the rigid mapping "
                   "for a rigid body, the barycentric one for a FEM body, particles for a "
                   "fluid", name, body->n_nodes, surface != NULL ? surface->n_vertices : 0,
                   body->nq, body->nv);
      return NULL;
    }
  g_autoptr (IdentityMapping) map = g_new0 (IdentityMapping, 1);
  map->identity.n_points = body->n_nodes;
  map->n_triangles = surface->n_triangles;
  map->triangles = g_memdup2 (surface->triangles, 3 * surface->n_triangles * sizeof (uint32_t));
  map->closed = surface->closed;
  return g_steal_pointer (&map);
}

static void
mapping_destroy (void *self)
{
  identity_mapping_free (self);
}

static void
mapping_get_layout (void *self, CwbGeometryLayout *layout)
{
  IdentityMapping *map = self;
  *layout = (CwbGeometryLayout) {
    .struct_size = sizeof (CwbGeometryLayout),
    .kind = CWB_GEOMETRY_SURFACE,
    .n_points = map->identity.n_points,
    .triangles = map->triangles,
    .n_triangles = map->n_triangles,
    .closed = map->closed,
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
  .name = "identity",
  .version = "1.0.0",
  .summary = "Identity mapping: a body's nodes as the vertices of its surface (cloth)",
  .vtable = &mapping_vtable,
};

CWB_DEFINE_PLUGIN (mapping_desc)

/* The rigid mapping: a body's reference surface carried by its frame.
 *
 * With q = [x, quat] and v = [v, omega] (world; see the rigid body model) and r0_k the
 * reference position of point k (body frame, origin at the centre of mass), a_k = R r0_k:
 *
 *   p_k    = x + a_k                                   positions
 *   pdot_k = v + omega x a_k            = J_k v          velocities, J_k = [I3, -[a_k]x]
 *   r     += [f_k, a_k x f_k]           = J_k^T f_k      forces back to the DOFs
 *
 * Geometric stiffness. Positions move with q through the exponential map on the left,
 * R(eps) = exp(eps dtheta) R (the body model's integrate_position), so
 * d a_k / d eps = dtheta x a_k and the linear part of J^T f does not depend on q. For
 * constant world forces f_k the torque tau = sum_k a_k x f_k changes by
 *
 *   d tau = sum_k (dtheta x a_k) x f_k = sum_k [a_k (f_k . dtheta) - dtheta (a_k . f_k)]
 *
 * (vector triple product (u x v) x w = v (u . w) - u (v . w)), i.e.
 *   K_geo = [[0, 0], [0, sum_k (a_k f_k^T - (a_k . f_k) I3)]]
 * which is not symmetric in general: it is the derivative of a torque of fixed world forces
 * under a world-frame rotation increment (Faure 2007 sec. 5's d(J^T f)/dq term).
 *
 * With `sample: volume` the points are the particles of the volume layer (Faure 2007 sec.
 * 5.4, volume_particles.h) instead of the surface's vertices, carried the same way. */
#include <cwb/mapping.h>
#include <cwb/vecmath.h>

#include "volume_particles.h"

/* Errors a user can cause: mapping a body that is not rigid. */
#define RIGID_MAPPING_ERROR (rigid_mapping_error_quark ())
static GQuark rigid_mapping_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-rigid-mapping-error-quark, rigid_mapping_error)
enum { RIGID_MAPPING_ERROR_BODY };

typedef struct RigidMapping {
  double *r0;             /* 3 * n_points, body frame */
  size_t n_points;
  uint32_t *triangles;    /* 3 * n_triangles */
  size_t n_triangles;
  gboolean closed;
  double *radii;          /* particles: n_points each */
  double *masses;
} RigidMapping;

static void
rigid_mapping_free (RigidMapping *map)
{
  g_free (map->r0);
  g_free (map->triangles);
  g_free (map->radii);
  g_free (map->masses);
  g_free (map);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RigidMapping, rigid_mapping_free)

static void *
mapping_create (const CwbMappingCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->body != NULL, NULL);
  const CwbSurfaceMesh *surface = info->body->reference_surface;
  if (surface == NULL || info->body->nq != 7 || info->body->nv != 6)
    {
      g_set_error (error, RIGID_MAPPING_ERROR, RIGID_MAPPING_ERROR_BODY,
                   "body '%s': the rigid mapping needs a rigid body (nq 7, nv 6) with a "
                   "reference surface; this body has nq %zu, nv %zu%s",
                   info->name != NULL ? info->name : "(unnamed)", info->body->nq,
                   info->body->nv, surface == NULL ? " and no surface" : "");
      return NULL;
    }

  g_autoptr (RigidMapping) map = g_new0 (RigidMapping, 1);
  if (volume_particles_wanted (info->params))
    {
      VolumeParticles particles;
      if (!volume_particles_sample (surface, cwb_param_double (info->params,
                                                               "particle_spacing", 0),
                                    info->name, &particles, error))
        return NULL;
      map->n_points = particles.n;
      g_debug ("body '%s': %zu volume particles of %g m", info->name, particles.n,
               particles.spacing);
      volume_particles_layout (&particles, info->body->mass, &map->radii, &map->masses);
      map->r0 = g_steal_pointer (&particles.positions);
      volume_particles_clear (&particles);
      return g_steal_pointer (&map);
    }
  map->n_points = surface->n_vertices;
  map->r0 = g_memdup2 (surface->vertices, 3 * surface->n_vertices * sizeof (double));
  map->n_triangles = surface->n_triangles;
  map->triangles = g_memdup2 (surface->triangles, 3 * surface->n_triangles * sizeof (uint32_t));
  map->closed = surface->closed;
  return g_steal_pointer (&map);
}

static void
mapping_destroy (void *self)
{
  rigid_mapping_free (self);
}

static void
mapping_get_layout (void *self, CwbGeometryLayout *layout)
{
  RigidMapping *map = self;
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

/* a = R r0_k, the point's arm from the centre of mass in the world. */
static inline void
arm (const RigidMapping *map, const double rot[9], size_t k, double a[3])
{
  cwb_m3_mul_v3 (a, rot, &map->r0[3 * k]);
}

static void
mapping_apply (void *self, const double *q, const double *v, double *positions,
               double *velocities)
{
  RigidMapping *map = self;
  double rot[9];
  cwb_quat_to_m3 (rot, q + 3);
  for (size_t k = 0; k < map->n_points; k++)
    {
      double a[3];
      arm (map, rot, k, a);
      if (positions != NULL)
        cwb_v3_add (&positions[3 * k], q, a);
      if (velocities != NULL && v != NULL)
        {
          double wxa[3];
          cwb_v3_cross (wxa, v + 3, a);
          cwb_v3_add (&velocities[3 * k], v, wxa);
        }
    }
}

/* dp = dx + dtheta x a for point k: one row block of J. */
static void
point_j (const RigidMapping *map, const double rot[9], size_t k, const double *dq, double dp[3])
{
  double a[3], wxa[3];
  arm (map, rot, k, a);
  cwb_v3_cross (wxa, dq + 3, a);
  cwb_v3_add (dp, dq, wxa);
}

static void
mapping_apply_j (void *self, const double *q, const double *dq, double *dp)
{
  RigidMapping *map = self;
  double rot[9];
  cwb_quat_to_m3 (rot, q + 3);
  for (size_t k = 0; k < map->n_points; k++)
    point_j (map, rot, k, dq, &dp[3 * k]);
}

/* J at a few points: the rows of mapping_apply_j, for a contact's response. */
static void
mapping_apply_j_points (void *self, const double *q, const double *dq, const uint32_t *points,
                        size_t n, double *dp)
{
  RigidMapping *map = self;
  double rot[9];
  cwb_quat_to_m3 (rot, q + 3);
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (points[i] < map->n_points);
      point_j (map, rot, points[i], dq, &dp[3 * i]);
    }
}

static void
mapping_apply_jt (void *self, const double *q, const CwbPointWeight *f, size_t n, double *r)
{
  RigidMapping *map = self;
  double rot[9];
  cwb_quat_to_m3 (rot, q + 3);
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (f[i].point < map->n_points);
      double a[3], axf[3];
      arm (map, rot, f[i].point, a);
      cwb_v3_cross (axf, a, f[i].w);
      cwb_v3_add (r, r, f[i].w);
      cwb_v3_add (r + 3, r + 3, axf);
    }
}

static void
mapping_geometric_stiffness_apply (void *self, const double *q, const CwbPointWeight *f,
                                   size_t n, const double *dq, double *df)
{
  RigidMapping *map = self;
  double rot[9];
  cwb_quat_to_m3 (rot, q + 3);
  const double *dtheta = dq + 3;
  for (size_t i = 0; i < n; i++)
    {
      g_return_if_fail (f[i].point < map->n_points);
      double a[3];
      arm (map, rot, f[i].point, a);
      /* d tau += a (f . dtheta) - dtheta (a . f), see the comment at the top. */
      cwb_v3_axpy (df + 3, cwb_v3_dot (f[i].w, dtheta), a);
      cwb_v3_axpy (df + 3, -cwb_v3_dot (a, f[i].w), dtheta);
    }
}

static const CwbParamSpec mapping_params[] = { VOLUME_PARTICLES_PARAMS };

static const CwbMappingVTable mapping_vtable = {
  .struct_size = sizeof (CwbMappingVTable),
  .create = mapping_create,
  .destroy = mapping_destroy,
  .get_layout = mapping_get_layout,
  .apply = mapping_apply,
  .apply_j = mapping_apply_j,
  .apply_j_points = mapping_apply_j_points,
  .apply_jt = mapping_apply_jt,
  .geometric_stiffness_apply = mapping_geometric_stiffness_apply,
};

static const CwbPluginDesc mapping_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_MAPPING,
  .name = "rigid",
  .version = "1.0.0",
  .summary = "Rigid mapping: the body's reference surface, or particles filling it, moved "
             "by its frame",
  .params = mapping_params,
  .n_params = G_N_ELEMENTS (mapping_params),
  .vtable = &mapping_vtable,
};

CWB_DEFINE_PLUGIN (mapping_desc)

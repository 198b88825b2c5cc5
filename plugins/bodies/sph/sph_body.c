/* The SPH fluid body model: a Lagrangian particle fluid whose DOFs are its particles.
 *
 * State: q = the particles' positions, v = their velocities (world, particle-major), so
 * nq = nv = 3 n. The fluid fills its shape on a cubic lattice of spacing s (each lattice cell
 * at least half inside the shape gets a particle at its centre), every particle of mass
 * rho s^3 with rho the material's density, so that the fluid weighs its shape's volume of
 * water to the lattice's precision.
 *
 * Free motion is one PCISPH step (pcisph.h) under gravity, viscosity and the contact
 * model's forces; the fluid's walls are other bodies, met through the contact model like any
 * body's (Faure 2007 sec. 5 couples its fluids through the Eulerian layer alone), never a
 * boundary of the fluid's own. Compliance: C = h^2 M^-1, each particle its own mass: the
 * contact's correction moves the particles it touches, and the next step's pressure spreads
 * it through the fluid. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <cwb/body_model.h>
#include <cwb/vecmath.h>

#include "lattice_fill.h"
#include "pcisph.h"
#include "point_masses.h"
#include "rigid_placement.h"

#define SPH_ERROR (sph_error_quark ())
static GQuark sph_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-sph-error-quark, sph_error)
enum { SPH_ERROR_SHAPE };

/* The automatic spacing's share of the shape's largest extent: 20 particles across. */
#define SPH_SPACING_OF_SIZE (1.0 / 20)
/* A lattice cell gets a particle when at least this share of it is inside the shape. */
#define SPH_CELL_INSIDE_SHARE 0.5

typedef struct SphBody {
  PointMasses points;   /* first: the shared operators read it */
  char *name;
  double spacing, mass;
  double *rest;            /* 3 n: the particles in the shape's (mesh) frame */
  double *radii, *masses;  /* n each, for the particles mapping */
  double com_mesh[3], inertia[9];
  double position[3], orientation[4], linear_velocity[3], angular_velocity[3];
  SurfaceCopy reference;
  SphSolver solver;
} SphBody;

static void
sph_body_free (SphBody *body)
{
  sph_solver_clear (&body->solver);
  g_free (body->name);
  g_free (body->rest);
  g_free (body->radii);
  g_free (body->masses);
  surface_copy_clear (&body->reference);
  g_free (body);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SphBody, sph_body_free)

static const CwbParamSpec sph_params[] = {
  { "particle_spacing", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,
    "The lattice spacing the particles fill the shape on (the kernel's support is twice "
    "it). 0: automatic, 1/20 of the shape's largest extent" },
  { "viscosity", CWB_PARAM_DOUBLE, "m^2/s", "1e-6", 0, 100, NULL,
    "Kinematic viscosity (water: 1e-6 m^2/s; Monaghan 2005's SPH viscosity)" },
  { "density_tolerance", CWB_PARAM_DOUBLE, "", "0.001", 1e-6, 0.5, NULL,
    "The mean compression (a share of the rest density) at which the pressure iterations "
    "of a step stop (Solenthaler and Pajarola 2009)" },
  { "max_compression", CWB_PARAM_DOUBLE, "", "0.01", 1e-6, 0.5, NULL,
    "The most compression (a share of the rest density) any one particle may keep when the "
    "pressure iterations stop" },
  { "max_pressure_iterations", CWB_PARAM_INT, "", "100", SPH_MIN_ITERATIONS, 10000, NULL,
    "The most pressure iterations a step makes" },
};

static void
solver_params (const SphBody *body, const CwbParamSet *params, SphParams *out)
{
  *out = (SphParams) {
    .spacing = body->spacing,
    .mass = body->points.m,
    .viscosity = cwb_param_double (params, "viscosity", 1e-6),
    .tolerance = cwb_param_double (params, "density_tolerance", 0.001),
    .max_compression = cwb_param_double (params, "max_compression", 0.01),
    .max_iterations = (int) cwb_param_int (params, "max_pressure_iterations", 100),
  };
}

/* The lattice cells at least SPH_CELL_INSIDE_SHARE inside the surface, their centres into
 * body->rest (lattice_fill.h). */
static gboolean
fill_shape (SphBody *body, const CwbSurfaceMesh *surface, double spacing, GError **error)
{
  if (!(spacing > 0))
    spacing = SPH_SPACING_OF_SIZE * lattice_fill_extent (surface);
  LatticeFill fill;
  if (!lattice_fill (surface, spacing, SPH_CELL_INSIDE_SHARE, body->name, "particle_spacing",
                     &fill, error))
    return FALSE;
  body->rest = g_steal_pointer (&fill.points);
  body->points.n = fill.n;
  body->spacing = spacing;
  return TRUE;
}

static void *
sph_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->surface != NULL, NULL);
  g_autoptr (SphBody) body = g_new0 (SphBody, 1);
  body->name = g_strdup (info->name != NULL ? info->name : "(unnamed)");
  body->points.fixed = info->fixed;
  if (!(info->density > 0))
    {
      g_set_error (error, SPH_ERROR, SPH_ERROR_SHAPE,
                   "body '%s': material.density must be positive for a fluid, got %g",
                   body->name, info->density);
      return NULL;
    }
  if (!fill_shape (body, info->surface,
                   cwb_param_double (info->params, "particle_spacing", 0), error))
    return NULL;
  body->points.m = info->density * body->spacing * body->spacing * body->spacing;
  body->mass = body->points.m * body->points.n;
  point_masses_properties (body->rest, body->points.n, body->points.m, body->com_mesh,
                           body->inertia);
  body->radii = g_new (double, body->points.n);
  body->masses = g_new (double, body->points.n);
  for (size_t i = 0; i < body->points.n; i++)
    {
      body->radii[i] = 0.5 * body->spacing;
      body->masses[i] = body->points.m;
    }
  surface_copy_init (&body->reference, info->surface);

  SphParams params;
  solver_params (body, info->params, &params);
  sph_solver_init (&body->solver, &params, body->points.n);
  g_debug ("body '%s': %zu particles of %g m, %g kg each; lattice rest density %g kg/m^3",
           body->name, body->points.n, body->spacing, body->points.m,
           body->solver.rest_density);

  cwb_v3_copy (body->position, info->position);
  memcpy (body->orientation, info->orientation, sizeof body->orientation);
  if (body->orientation[0] == 0 && body->orientation[1] == 0 && body->orientation[2] == 0
      && body->orientation[3] == 0)
    cwb_quat_identity (body->orientation);
  cwb_quat_normalize (body->orientation);
  cwb_v3_copy (body->linear_velocity, info->linear_velocity);
  cwb_v3_copy (body->angular_velocity, info->angular_velocity);
  return g_steal_pointer (&body);
}

static void
sph_destroy (void *self)
{
  sph_body_free (self);
}

static void
sph_get_info (void *self, CwbBodyInfo *info)
{
  SphBody *body = self;
  *info = (CwbBodyInfo) {
    .struct_size = sizeof (CwbBodyInfo),
    .nq = 3 * body->points.n,
    .nv = 3 * body->points.n,
    .mass = body->points.fixed ? 0 : body->mass,
    .fixed = body->points.fixed,
    .reference_surface = &body->reference.mesh,
    .rest_nodes = body->rest,
    .n_nodes = body->points.n,
    .node_radii = body->radii,
    .node_masses = body->masses,
  };
  cwb_v3_copy (info->center_of_mass, body->com_mesh);
  memcpy (info->inertia, body->inertia, sizeof info->inertia);
}

static void
sph_init_state (void *self, double *q, double *v)
{
  SphBody *body = self;
  rigid_placement_apply (body->rest, body->points.n, body->position, body->orientation,
                         body->com_mesh, body->linear_velocity, body->angular_velocity, q, v);
  if (body->points.fixed)
    memset (v, 0, 3 * body->points.n * sizeof (double));
}

static void
sph_free_motion (void *self, const CwbFreeMotion *a)
{
  SphBody *body = self;
  if (body->points.fixed)
    {
      memcpy (a->q_free, a->q, 3 * body->points.n * sizeof (double));
      memset (a->v_free, 0, 3 * body->points.n * sizeof (double));
      return;
    }
  sph_solver_step (&body->solver, a->q, a->v, a->f_ext, a->gravity, a->h, a->q_free,
                   a->v_free);
  g_debug ("body '%s': %d substeps, %d pressure iterations, compression mean %.2e max %.2e",
           body->name, body->solver.stats.substeps, body->solver.stats.iterations,
           body->solver.stats.mean_compression, body->solver.stats.max_compression);
}

static void
sph_params_changed (void *self, const CwbParamSet *params)
{
  SphBody *body = self;
  SphParams next;
  solver_params (body, params, &next);
  body->solver.params = next;
}

/* The particles' fields for the element overlay (ABI 1.22). The density is recomputed at q
 * (eq. 1 on a grid of the inspection's own), so that it belongs to the state shown whatever
 * brought it there: a step, a restored or edited state, a solver's stage. The pressure is no
 * function of the state: it is what the last PCISPH step solved for (the pressures of its
 * last substep's final iteration, which moved the particles to that step's end), zero before
 * the first step and for a fixed fluid. */
static void
sph_inspect_nodes (void *self, const double *q, const double *v, CwbNodeInspection *out)
{
  SphBody *body = self;
  sph_solver_inspect_densities (&body->solver, q, out->density_error);
  double rho0 = body->solver.rest_density;
  for (size_t i = 0; i < body->points.n; i++)
    {
      out->density_error[i] = out->density_error[i] / rho0 - 1;
      out->pressure[i] = body->points.fixed ? 0 : body->solver.pressure[i];
      out->speed[i] = cwb_v3_norm (&v[3 * i]);
    }
}

static const CwbBodyModelVTable sph_vtable = {
  .struct_size = sizeof (CwbBodyModelVTable),
  .create = sph_create,
  .destroy = sph_destroy,
  .get_info = sph_get_info,
  .init_state = sph_init_state,
  .free_motion = sph_free_motion,
  .integrate_position = point_masses_integrate_position,
  .compliance_apply = point_masses_compliance_apply,
  .compliance_diagonal = point_masses_compliance_diagonal,
  .mass_apply = point_masses_mass_apply,
  .summary = point_masses_body_summary,
  .params_changed = sph_params_changed,
  .inspect_nodes = sph_inspect_nodes,
};

static const CwbPluginDesc sph_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_BODY_MODEL,
  .name = "sph",
  .version = "1.0.0",
  .summary = "SPH fluid: particles filling the shape, PCISPH pressure, Monaghan viscosity",
  .params = sph_params,
  .n_params = G_N_ELEMENTS (sph_params),
  .vtable = &sph_vtable,
};

CWB_DEFINE_PLUGIN (sph_desc)

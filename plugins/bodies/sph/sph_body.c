/* The SPH fluid body model: a Lagrangian particle fluid whose DOFs are its particles.
 *
 * State: q = the particles' positions, v = their velocities (world, particle-major), so
 * nq = nv = 3 n. The fluid fills its shape on a cubic lattice of spacing s (each lattice cell
 * at least half inside the shape gets a particle at its centre), every particle of mass
 * rho s^3 with rho the material's density, so that the fluid weighs its shape's volume of
 * water to the lattice's precision.
 *
 * An inflow (inflow.h) adds particles over time through a nozzle. The world sizes the
 * state once, so they are the body's from its creation, a reserve after the fill (up to
 * max_particles in all), parked and then driven through the nozzle until they leave it.
 *
 * Free motion is one PCISPH step (pcisph.h) under gravity, viscosity, optional surface
 * tension (surface_tension.h) and the contact model's forces; the fluid's walls are other
 * bodies, met through the contact model like any body's (Faure 2007 sec. 5 couples its
 * fluids through the Eulerian layer alone), never a boundary of the fluid's own.
 * Compliance: C = h^2 M^-1, each particle its own mass: the contact's correction moves the
 * particles it touches, and the next step's pressure spreads it through the fluid; an
 * inflow's particle in the nozzle or waiting behind it answers no force (C = 0). */
#include <float.h>
#include <math.h>
#include <string.h>

#include <cwb/body_model.h>
#include <cwb/vecmath.h>

#include "inflow.h"
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
  PointMasses points;   /* first: the shared operators read it; n counts all particles,
                         * the fill's n_fill, then the inflow's reserve */
  size_t n_fill;
  double spacing;
  SphSolver solver;
  gboolean has_inflow;
  SphInflow inflow;
  /* n SPH_MODE_* of the state the last free motion started from (init_state's before the
   * first), for the operators that get q alone; NULL without an inflow. */
  uint8_t *modes;
} SphBody;

static void
sph_body_free (SphBody *body)
{
  sph_solver_clear (&body->solver);
  sph_inflow_clear (&body->inflow);
  g_free (body->modes);
  point_masses_clear (&body->points);
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
  { "surface_tension", CWB_PARAM_DOUBLE, "", "0", 0, 1e6, NULL,
    "Akinci et al. 2013's surface tension coefficient gamma (cohesion and curvature, eq. 1-5; "
    "SPlisHSPlasH's surfaceTension), not a tension in N/m. 0: none" },
  { "fill", CWB_PARAM_BOOL, "", "true", 0, 0, NULL,
    "Whether the fluid starts filling its shape; false: it starts empty (the shape only sets "
    "the automatic spacing) and the inflow brings it" },
  { "max_particles", CWB_PARAM_INT, "", "0", 0, 1 << 24, NULL,
    "The most particles the body has, the fill's and the inflow's together: what is left "
    "after the fill is the inflow's reserve. 0: the fill's" },
  { "inflow_speed", CWB_PARAM_DOUBLE, "m/s", "0", 0, 1e3, NULL,
    "The speed the inflow's particles leave the nozzle at; its mass rate is density x the "
    "nozzle's area x this speed. 0: no inflow" },
  { "inflow_position", CWB_PARAM_VEC3, "m", "[0, 0, 0]", -1e9, 1e9, NULL,
    "The centre of the inflow's nozzle, world frame" },
  { "inflow_direction", CWB_PARAM_VEC3, "", "[0, 0, -1]", -1e9, 1e9, NULL,
    "The direction the inflow leaves the nozzle in, world frame (normalised)" },
  { "inflow_shape", CWB_PARAM_ENUM, "", "disc", 0, 0, "disc|rectangle",
    "The nozzle's opening: a disc of inflow_radius, or a rectangle of inflow_width (along "
    "world x in the nozzle's plane; y for a jet along x) by inflow_height" },
  { "inflow_radius", CWB_PARAM_DOUBLE, "m", "0.01", 0, 100, NULL,
    "The disc nozzle's radius" },
  { "inflow_width", CWB_PARAM_DOUBLE, "m", "0.02", 0, 100, NULL,
    "The rectangular nozzle's width" },
  { "inflow_height", CWB_PARAM_DOUBLE, "m", "0.02", 0, 100, NULL,
    "The rectangular nozzle's height" },
  { "inflow_duration", CWB_PARAM_DOUBLE, "s", "0", 0, 1e9, NULL,
    "How long the inflow runs from the start. 0: until max_particles are out" },
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
    .surface_tension = cwb_param_double (params, "surface_tension", 0),
  };
}

/* The lattice cells at least SPH_CELL_INSIDE_SHARE inside the surface, their centres into
 * body->points.rest (lattice_fill.h). */
static gboolean
fill_shape (SphBody *body, const CwbSurfaceMesh *surface, double spacing, GError **error)
{
  if (!(spacing > 0))
    spacing = SPH_SPACING_OF_SIZE * lattice_fill_extent (surface);
  LatticeFill fill;
  if (!lattice_fill (surface, spacing, SPH_CELL_INSIDE_SHARE, body->points.name, "particle_spacing",
                     &fill, error))
    return FALSE;
  body->points.rest = g_steal_pointer (&fill.points);
  body->points.n = fill.n;
  body->spacing = spacing;
  return TRUE;
}

/* Mass (every particle's, the reserve's too), centre of mass and inertia of the particles
 * filling the shape (points of equal mass; all of them when the fluid starts empty): the
 * shape's, about which an initial spin turns the fill. */
static void
mass_properties (SphBody *body)
{
  body->points.mass = body->points.m * body->points.n;
  size_t n = body->n_fill > 0 ? body->n_fill : body->points.n;
  point_masses_properties (body->points.rest, n, body->points.m, body->points.com_mesh,
                           body->points.inertia);
}

/* The inflow from the parameters, its reserve appended to the fill (rest positions: the
 * park point in the shape's frame). */
static gboolean
inflow_setup (SphBody *body, const CwbBodyCreateInfo *info, GError **error)
{
  const CwbParamSet *params = info->params;
  SphInflowSpec spec = {
    .speed = cwb_param_double (params, "inflow_speed", 0),
    .shape = (SphNozzle) cwb_param_int (params, "inflow_shape", SPH_NOZZLE_DISC),
    .radius = cwb_param_double (params, "inflow_radius", 0.01),
    .width = cwb_param_double (params, "inflow_width", 0.02),
    .height = cwb_param_double (params, "inflow_height", 0.02),
    .duration = cwb_param_double (params, "inflow_duration", 0),
  };
  const CwbParamValue *centre = cwb_param_find (params, "inflow_position");
  const CwbParamValue *direction = cwb_param_find (params, "inflow_direction");
  if (centre != NULL)
    cwb_v3_copy (spec.centre, centre->v3);
  cwb_v3_set (spec.direction, 0, 0, -1);
  if (direction != NULL)
    cwb_v3_copy (spec.direction, direction->v3);
  size_t most = (size_t) cwb_param_int (params, "max_particles", 0);
  spec.reserve = most > body->n_fill ? most - body->n_fill : 0;
  if (!(spec.speed > 0))
    {
      if (body->points.n == 0)
        {
          g_set_error (error, SPH_ERROR, SPH_ERROR_SHAPE,
                       "body '%s': with fill false and no inflow (inflow_speed 0) the fluid "
                       "has no particle", body->points.name);
          return FALSE;
        }
      return TRUE;
    }
  if (body->points.fixed)
    {
      g_set_error (error, SPH_ERROR, SPH_ERROR_SHAPE,
                   "body '%s': a fixed fluid has no inflow; set inflow_speed 0 or fixed false",
                   body->points.name);
      return FALSE;
    }
  if (!sph_inflow_init (&body->inflow, &spec, body->spacing, body->n_fill, info->dt,
                        body->points.name, error))
    return FALSE;
  body->has_inflow = TRUE;
  body->points.n = body->n_fill + sph_inflow_particles (&body->inflow);
  body->points.rest = g_renew (double, body->points.rest, 3 * body->points.n);
  double rot[9], rel[3];
  cwb_quat_to_m3 (rot, body->points.orientation);
  cwb_v3_sub (rel, body->inflow.park, body->points.position);
  for (size_t i = body->n_fill; i < body->points.n; i++)
    cwb_m3t_mul_v3 (&body->points.rest[3 * i], rot, rel);
  body->modes = g_new0 (uint8_t, body->points.n);
  return TRUE;
}

static void *
sph_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->surface != NULL, NULL);
  g_autoptr (SphBody) body = g_new0 (SphBody, 1);
  body->points.name = g_strdup (info->name != NULL ? info->name : "(unnamed)");
  body->points.fixed = info->fixed;
  if (!(info->density > 0))
    {
      g_set_error (error, SPH_ERROR, SPH_ERROR_SHAPE,
                   "body '%s': material.density must be positive for a fluid, got %g",
                   body->points.name, info->density);
      return NULL;
    }
  if (!fill_shape (body, info->surface,
                   cwb_param_double (info->params, "particle_spacing", 0), error))
    return NULL;
  if (!cwb_param_bool (info->params, "fill", TRUE))
    body->points.n = 0;
  body->n_fill = body->points.n;
  rigid_placement_pose (info, body->points.position, body->points.orientation,
                        body->points.linear_velocity, body->points.angular_velocity);
  if (!inflow_setup (body, info, error))
    return NULL;
  body->points.m = info->density * body->spacing * body->spacing * body->spacing;
  mass_properties (body);
  body->points.radii = g_new (double, body->points.n);
  body->points.masses = g_new (double, body->points.n);
  for (size_t i = 0; i < body->points.n; i++)
    {
      body->points.radii[i] = 0.5 * body->spacing;
      body->points.masses[i] = body->points.m;
    }
  surface_copy_init (&body->points.reference, info->surface);

  SphParams params;
  solver_params (body, info->params, &params);
  sph_solver_init (&body->solver, &params, body->points.n);
  body->solver.modes = body->modes;
  g_debug ("body '%s': %zu particles of %g m, %g kg each; lattice rest density %g kg/m^3",
           body->points.name, body->points.n, body->spacing, body->points.m,
           body->solver.rest_density);
  if (body->has_inflow)
    g_debug ("body '%s': inflow of %zu layers of %zu particles, %g kg/s for %g s",
             body->points.name, body->inflow.n_layers, body->inflow.layer_size,
             body->points.m * body->inflow.layer_size * body->inflow.speed
               / body->spacing,
             body->inflow.n_layers * body->spacing / body->inflow.speed);
  return g_steal_pointer (&body);
}

static void
sph_destroy (void *self)
{
  sph_body_free (self);
}

static void
sph_init_state (void *self, double *q, double *v)
{
  SphBody *body = self;
  point_masses_place (&body->points, body->n_fill, q, v);
  if (body->has_inflow)
    {
      sph_inflow_start (&body->inflow, q, v);
      sph_inflow_modes (&body->inflow, q, v, body->points.n, body->modes);
    }
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
  if (body->has_inflow)
    sph_inflow_modes (&body->inflow, a->q, a->v, body->points.n, body->modes);
  sph_solver_step (&body->solver, a->q, a->v, a->f_ext, a->gravity, a->h, a->q_free,
                   a->v_free);
  if (body->has_inflow)
    sph_inflow_emit (&body->inflow, a->q, body->modes, a->h, a->q_free, a->v_free);
  g_debug ("body '%s': %d substeps, %d pressure iterations, compression mean %.2e max %.2e, "
           "neighbour search %.3f ms", body->points.name, body->solver.stats.substeps,
           body->solver.stats.iterations, body->solver.stats.mean_compression,
           body->solver.stats.max_compression, 1e3 * body->solver.stats.search_seconds);
}

/* Particle i's compliance h^2 / m; 0 for a fixed fluid, and for an inflow's particle that
 * its step drives or parks, which no force moves. */
static double
particle_compliance (const SphBody *body, size_t i, double h)
{
  if (body->points.fixed || (body->modes != NULL && body->modes[i] != SPH_MODE_FREE))
    return 0;
  return h * h / body->points.m;
}

/* C = h^2 M^-1 (Saupin 2008 eq. 14 without the fluid's pressure stiffness). */
static void
sph_compliance_apply (void *self, const double *q, double h, CwbCompliance kind,
                      const double *r, double *dq)
{
  SphBody *body = self;
  for (size_t c = 0; c < 3 * body->points.n; c++)
    dq[c] = particle_compliance (body, c / 3, h) * r[c];
}

/* The same C as a diagonal: each particle answers its own force alone. */
static gboolean
sph_compliance_diagonal (void *self, const double *q, double h, CwbCompliance kind,
                         double *diagonal)
{
  SphBody *body = self;
  for (size_t c = 0; c < 3 * body->points.n; c++)
    diagonal[c] = particle_compliance (body, c / 3, h);
  return TRUE;
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
 * the first step and for a fixed fluid. An inflow's parked particles have no fields (NAN:
 * they keep the body's colour) and are nobody's neighbour. */
static void
sph_inspect_nodes (void *self, const double *q, const double *v, CwbNodeInspection *out)
{
  SphBody *body = self;
  g_autofree uint8_t *modes = body->has_inflow ? g_new (uint8_t, body->points.n) : NULL;
  if (modes != NULL)
    sph_inflow_modes (&body->inflow, q, v, body->points.n, modes);
  sph_solver_inspect_densities (&body->solver, q, modes, out->density_error);
  double rho0 = body->solver.rest_density;
  for (size_t i = 0; i < body->points.n; i++)
    {
      if (modes != NULL && modes[i] == SPH_MODE_PARKED)
        {
          out->density_error[i] = out->pressure[i] = out->speed[i] = NAN;
          continue;
        }
      out->density_error[i] = out->density_error[i] / rho0 - 1;
      out->pressure[i] = body->points.fixed ? 0 : body->solver.pressure[i];
      out->speed[i] = cwb_v3_norm (&v[3 * i]);
    }
}

static const CwbBodyModelVTable sph_vtable = {
  .struct_size = sizeof (CwbBodyModelVTable),
  .create = sph_create,
  .destroy = sph_destroy,
  .get_info = point_masses_get_info,
  .init_state = sph_init_state,
  .free_motion = sph_free_motion,
  .integrate_position = point_masses_integrate_position,
  .compliance_apply = sph_compliance_apply,
  .compliance_diagonal = sph_compliance_diagonal,
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

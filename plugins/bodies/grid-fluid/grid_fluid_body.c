/* The grid fluid body model: an Eulerian fluid on a MAC grid whose DOFs are its marker
 * particles (Faure 2007 fig. 5 bottom: a grid fluid meeting a FEM rack and a rigid body
 * through the Eulerian layer).
 *
 * State: q = the marker particles' positions, v = their velocities (world, particle-major),
 * nq = nv = 3 n, as the sph body's: the `particles` mapping shows them to any contact model
 * unchanged. The fluid fills its shape with particles on a cubic lattice of spacing s =
 * dx / 2, two a cell and axis (Bridson 2015 sec. 7.6's eight a cell), each of mass rho s^3.
 *
 * Free motion is one FLIP/PIC step (flip_step.h) on a grid fixed in the world over the
 * fluid's domain box: the creation pose's particles grown by `domain_margin` (or the box
 * `domain_min`, `domain_max`), plus one cell of air a side, the domain's open border. The
 * fluid's walls are other bodies met through the contact model, never a boundary of the
 * grid's: a contact's force (penalty) or its correction of the particles' velocities
 * (constraint solvers) enters the next step's grid with the particles' momentum, before the
 * projection, whose pressure spreads it through the fluid. Compliance: C = h^2 M^-1, each
 * particle its own mass, as the sph body's. */
#include <math.h>
#include <string.h>

#include <cwb/body_model.h>
#include <cwb/vecmath.h>

#include "flip_step.h"
#include "lattice_fill.h"
#include "point_masses.h"
#include "rigid_placement.h"

#define GRID_FLUID_ERROR (grid_fluid_error_quark ())
static GQuark grid_fluid_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-grid-fluid-error-quark, grid_fluid_error)
enum { GRID_FLUID_ERROR_SHAPE };

/* The automatic cell size's share of the shape's largest extent: 16 cells across. */
#define GRID_FLUID_CELL_OF_SIZE (1.0 / 16)
/* Marker particles per cell and axis (Bridson 2015 sec. 7.6: 2 x 2 x 2 a cell). */
#define GRID_FLUID_MARKERS_PER_AXIS 2
/* A lattice cell gets a particle when at least this share of it is inside the shape. */
#define GRID_FLUID_CELL_INSIDE_SHARE 0.5
/* The automatic domain margin's share of the shape's largest extent, and its least number
 * of cells. */
#define GRID_FLUID_MARGIN_OF_SIZE 0.25
#define GRID_FLUID_MIN_MARGIN_CELLS 2
/* The most cells a domain may have (the projection's arrays are 12 doubles a cell). */
#define GRID_FLUID_MAX_CELLS (1u << 24)

typedef struct GridFluidBody {
  PointMasses points;   /* first: the shared operators read it */
  double spacing, density;
  FlipSolver solver;
} GridFluidBody;

static void
grid_fluid_body_free (GridFluidBody *body)
{
  flip_solver_clear (&body->solver);
  point_masses_clear (&body->points);
  g_free (body);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GridFluidBody, grid_fluid_body_free)

static const CwbParamSpec grid_fluid_params[] = {
  { "cell_size", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,
    "The grid's cell size dx; the marker particles lie two a cell and axis (spacing dx / 2). "
    "0: automatic, 1/16 of the shape's largest extent" },
  { "flip_ratio", CWB_PARAM_DOUBLE, "1", "0", 0, 1, NULL,
    "The FLIP share of the particles' velocity update (Zhu and Bridson 2005): 1 is pure FLIP "
    "(no numerical viscosity, noisy), 0 pure PIC (smooth, viscous). Above about 0.1, water "
    "held at rest by contacts gains energy within seconds (docs/plugins/grid-fluid.md)" },
  { "density_gain", CWB_PARAM_DOUBLE, "1", "0.5", 0, 1, NULL,
    "The share of a cell's excess particle density the projection removes in one substep "
    "(the density correction that lets the fluid stand on walls met through contacts)" },
  { "domain_margin", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,
    "How far the grid reaches beyond the fluid's shape at creation on every side. 0: "
    "automatic, 1/4 of the shape's largest extent (at least two cells)" },
  { "domain_min", CWB_PARAM_VEC3, "m", "[0, 0, 0]", -1e9, 1e9, NULL,
    "The grid's lower corner in the world, used with domain_max when domain_max exceeds it "
    "on every axis (then domain_margin is not)" },
  { "domain_max", CWB_PARAM_VEC3, "m", "[0, 0, 0]", -1e9, 1e9, NULL,
    "The grid's upper corner in the world" },
  { "pressure_tolerance", CWB_PARAM_DOUBLE, "1", "1e-6", 1e-14, 0.5, NULL,
    "The projection's conjugate gradients stop when the largest divergence error is below "
    "this share of the largest before the projection" },
  { "max_pressure_iterations", CWB_PARAM_INT, "", "500", 1, 100000, NULL,
    "The most conjugate-gradient iterations of one projection" },
};

static void
solver_params (const GridFluidBody *body, const CwbParamSet *params, FlipParams *out)
{
  *out = (FlipParams) {
    .cell_size = GRID_FLUID_MARKERS_PER_AXIS * body->spacing,
    .particle_mass = body->points.m,
    .density = body->density,
    .flip_ratio = cwb_param_double (params, "flip_ratio", 0),
    .density_gain = cwb_param_double (params, "density_gain", 0.5),
    .tolerance = cwb_param_double (params, "pressure_tolerance", 1e-6),
    .max_iterations = (int) cwb_param_int (params, "max_pressure_iterations", 500),
  };
}

/* The grid's box in the world: the explicit domain, or the particles at the creation pose
 * grown by the margin; then moved out to whole cells from the particle lattice's corner (so
 * that a lattice at rest in an unturned body puts its particles at a quarter cell from each
 * cell's centre, eight a cell), and grown by one cell of air a side. */
static gboolean
domain_box (GridFluidBody *body, const CwbParamSet *params, const double corner_mesh[3],
            double extent, double lo[3], double hi[3], GError **error)
{
  double dx = GRID_FLUID_MARKERS_PER_AXIS * body->spacing;
  const CwbParamValue *dmin = cwb_param_find (params, "domain_min");
  const CwbParamValue *dmax = cwb_param_find (params, "domain_max");
  gboolean explicit_box = dmin != NULL && dmax != NULL;
  for (int c = 0; c < 3 && explicit_box; c++)
    explicit_box = dmax->v3[c] > dmin->v3[c];
  g_autofree double *q = g_new (double, 3 * body->points.n);
  g_autofree double *v = g_new (double, 3 * body->points.n);
  double zero[3] = { 0, 0, 0 };
  rigid_placement_apply (body->points.rest, body->points.n, body->points.position,
                         body->points.orientation, body->points.com_mesh, zero, zero, q, v);
  if (explicit_box)
    {
      cwb_v3_copy (lo, dmin->v3);
      cwb_v3_copy (hi, dmax->v3);
    }
  else
    {
      double margin = cwb_param_double (params, "domain_margin", 0);
      if (!(margin > 0))
        margin = MAX (GRID_FLUID_MARGIN_OF_SIZE * extent, GRID_FLUID_MIN_MARGIN_CELLS * dx);
      CwbGeometry points = { .n_points = body->points.n, .positions = q };
      cwb_geometry_bounds (&points, lo, hi);
      for (int c = 0; c < 3; c++)
        {
          lo[c] -= margin + 0.5 * body->spacing;
          hi[c] += margin + 0.5 * body->spacing;
        }
    }
  double rot[9], corner[3];
  cwb_quat_to_m3 (rot, body->points.orientation);
  cwb_m3_mul_v3 (corner, rot, corner_mesh);
  cwb_v3_add (corner, corner, body->points.position);
  double cells = 1;
  for (int c = 0; c < 3; c++)
    {
      lo[c] = corner[c] - ceil ((corner[c] - lo[c]) / dx - 1e-9) * dx - dx;
      hi[c] = corner[c] + ceil ((hi[c] - corner[c]) / dx - 1e-9) * dx + dx;
      cells *= ceil ((hi[c] - lo[c]) / dx - 1e-9);
    }
  if (cells > GRID_FLUID_MAX_CELLS)
    {
      g_set_error (error, GRID_FLUID_ERROR, GRID_FLUID_ERROR_SHAPE,
                   "body '%s': the domain [%g, %g, %g] to [%g, %g, %g] m at cell_size %g m "
                   "has %.3g cells, more than %u; raise cell_size or shrink the domain",
                   body->points.name, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], dx, cells,
                   GRID_FLUID_MAX_CELLS);
      return FALSE;
    }
  return TRUE;
}

static void *
grid_fluid_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->surface != NULL, NULL);
  g_autoptr (GridFluidBody) body = g_new0 (GridFluidBody, 1);
  body->points.name = g_strdup (info->name != NULL ? info->name : "(unnamed)");
  body->points.fixed = info->fixed;
  if (!(info->density > 0))
    {
      g_set_error (error, GRID_FLUID_ERROR, GRID_FLUID_ERROR_SHAPE,
                   "body '%s': material.density must be positive for a fluid, got %g",
                   body->points.name, info->density);
      return NULL;
    }
  double extent = lattice_fill_extent (info->surface);
  double dx = cwb_param_double (info->params, "cell_size", 0);
  if (!(dx > 0))
    dx = GRID_FLUID_CELL_OF_SIZE * extent;
  body->spacing = dx / GRID_FLUID_MARKERS_PER_AXIS;
  LatticeFill fill;
  if (!lattice_fill (info->surface, body->spacing, GRID_FLUID_CELL_INSIDE_SHARE, body->points.name,
                     "cell_size / 2", &fill, error))
    return NULL;
  body->points.rest = g_steal_pointer (&fill.points);
  body->points.n = fill.n;
  body->density = info->density;
  body->points.m = info->density * body->spacing * body->spacing * body->spacing;
  body->points.mass = body->points.m * body->points.n;
  point_masses_properties (body->points.rest, body->points.n, body->points.m, body->points.com_mesh,
                           body->points.inertia);
  body->points.radii = g_new (double, body->points.n);
  body->points.masses = g_new (double, body->points.n);
  for (size_t i = 0; i < body->points.n; i++)
    {
      body->points.radii[i] = 0.5 * body->spacing;
      body->points.masses[i] = body->points.m;
    }
  surface_copy_init (&body->points.reference, info->surface);
  rigid_placement_pose (info, body->points.position, body->points.orientation,
                        body->points.linear_velocity, body->points.angular_velocity);

  double lo[3], hi[3];
  if (!domain_box (body, info->params, fill.corner, extent, lo, hi, error))
    return NULL;
  FlipParams params;
  solver_params (body, info->params, &params);
  flip_solver_init (&body->solver, &params, body->points.n, lo, hi);
  const MacGrid *grid = &body->solver.grid;
  g_debug ("body '%s': %zu particles of %g kg on a %d x %d x %d grid of %g m from "
           "[%g, %g, %g]", body->points.name, body->points.n, body->points.m, grid->n[0],
           grid->n[1], grid->n[2], grid->dx, grid->origin[0], grid->origin[1], grid->origin[2]);
  return g_steal_pointer (&body);
}

static void
grid_fluid_destroy (void *self)
{
  grid_fluid_body_free (self);
}

static void
grid_fluid_init_state (void *self, double *q, double *v)
{
  GridFluidBody *body = self;
  point_masses_place (&body->points, body->points.n, q, v);
}

static void
grid_fluid_free_motion (void *self, const CwbFreeMotion *a)
{
  GridFluidBody *body = self;
  if (body->points.fixed)
    {
      memcpy (a->q_free, a->q, 3 * body->points.n * sizeof (double));
      memset (a->v_free, 0, 3 * body->points.n * sizeof (double));
      return;
    }
  flip_solver_step (&body->solver, a->q, a->v, a->f_ext, a->gravity, a->h, a->q_free,
                    a->v_free);
  const FlipStats *stats = &body->solver.stats;
  g_debug ("body '%s': %d substeps, %d CG iterations (residual %.2e 1/s), %zu fluid cells, "
           "density error up to %.3f, %zu particles outside the domain", body->points.name,
           stats->substeps, stats->iterations, stats->residual, stats->fluid_cells,
           stats->max_density_error, stats->outside);
}

static void
grid_fluid_params_changed (void *self, const CwbParamSet *params)
{
  GridFluidBody *body = self;
  FlipParams next;
  solver_params (body, params, &next);
  body->solver.params = next;
}

/* The particles' fields for the element overlay (ABI 1.22). The density error is the
 * particles' cell density at q (splatted on a grid of the inspection's own, the step's
 * untouched) interpolated at each particle; the pressure is the last step's projection's,
 * interpolated at each particle (0 before the first step, for a fixed fluid and outside
 * the domain). */
static void
grid_fluid_inspect_nodes (void *self, const double *q, const double *v, CwbNodeInspection *out)
{
  GridFluidBody *body = self;
  const MacGrid *step_grid = &body->solver.grid;
  double lo[3], hi[3];
  for (int c = 0; c < 3; c++)
    {
      lo[c] = step_grid->origin[c];
      hi[c] = lo[c] + step_grid->n[c] * step_grid->dx;
    }
  MacGrid grid;
  mac_grid_init (&grid, lo, hi, step_grid->dx);
  g_autofree uint8_t *inside = g_new (uint8_t, body->points.n);
  for (size_t i = 0; i < body->points.n; i++)
    inside[i] = mac_grid_inside (&grid, &q[3 * i]);
  mac_grid_splat (&grid, q, v, body->points.m, body->points.n, inside);
  double volume = grid.dx * grid.dx * grid.dx;
  for (size_t i = 0; i < body->points.n; i++)
    {
      if (inside[i])
        out->density_error[i] = mac_grid_sample_cells (&grid, grid.cell_mass, &q[3 * i])
                                  / (volume * body->density) - 1;
      out->pressure[i] = body->points.fixed ? 0
                                            : flip_solver_pressure_at (&body->solver, &q[3 * i]);
      out->speed[i] = cwb_v3_norm (&v[3 * i]);
    }
  mac_grid_clear (&grid);
}

static const CwbBodyModelVTable grid_fluid_vtable = {
  .struct_size = sizeof (CwbBodyModelVTable),
  .create = grid_fluid_create,
  .destroy = grid_fluid_destroy,
  .get_info = point_masses_get_info,
  .init_state = grid_fluid_init_state,
  .free_motion = grid_fluid_free_motion,
  .integrate_position = point_masses_integrate_position,
  .compliance_apply = point_masses_compliance_apply,
  .compliance_diagonal = point_masses_compliance_diagonal,
  .mass_apply = point_masses_mass_apply,
  .summary = point_masses_body_summary,
  .params_changed = grid_fluid_params_changed,
  .inspect_nodes = grid_fluid_inspect_nodes,
};

static const CwbPluginDesc grid_fluid_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_BODY_MODEL,
  .name = "grid-fluid",
  .version = "1.0.0",
  .summary = "Grid fluid: marker particles on a MAC grid, FLIP/PIC, free-surface pressure "
             "projection",
  .params = grid_fluid_params,
  .n_params = G_N_ELEMENTS (grid_fluid_params),
  .vtable = &grid_fluid_vtable,
};

CWB_DEFINE_PLUGIN (grid_fluid_desc)

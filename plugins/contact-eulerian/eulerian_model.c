/* The Eulerian contact model `eulerian` (Faure, Allard and Nesme 2007): bodies meet in a
 * common regular grid of points, each body sampled there as a spatial density, and contact
 * is wherever two densities sum to more than one (sec. 4.1). Nothing in it names a pair of
 * body kinds: it reads geometries (closed triangle surfaces and volume particles, whatever
 * body model and mapping made them) and answers with constraint rows or with forces on their
 * points.
 *
 * One detection, for each two geometries of different bodies, not both fixed, whose boxes
 * overlap:
 *   1. the grid box over the overlap of their bounding boxes (widened by a step and two
 *      points), the only place where both can be present: densities are computed nowhere
 *      else (the hierarchy of sec. 6 reduced to its root, the bodies' boxes, and one fine
 *      level);
 *   2. both densities sampled over it: a surface by scan conversion, a smooth step across
 *      it and its exact derivatives (density_grid.h); particles by eq. 4-6, their volumes
 *      spread over the points around them as smoothed cubes (particle_density.h);
 *   3. at each point where rho_bar = rho_a + rho_b - 1 > 0, how it moves with each body
 *      (grid_point.h, the kinematic coefficients dr/dq of sec. 5.1), then
 *   4. the response, by `response`: constraints (sec. 4.3, cell_constraints.h) for the
 *      constraint solver, or the penalty of eq. 2 (+F on a, -F on b at every point), its
 *      exact stiffness (appendix B, from eq. 3's one-body parts) and a damping along the
 *      gradient, with Coulomb friction per pair
 *      (pair_friction.h), for solvers of forces; `automatic` follows the solver.
 *
 * Automatic parameters are derived from the scene: the step from the smallest moving body's
 * size (once), the stiffness of a pair from its more mobile body's response over a step
 * (measured through the host's point_response) so that an explicit corrector stays stable
 * or, where the solver integrates the forces implicitly, so that a contact carries the
 * weight resting on it or hanging from it over the patch its shape gives (a face, or a
 * curved surface's patch, there no stiffer than the body under it), and the damping time
 * from the step (docs/plugins/eulerian.md). */
#include <cwb/cwb.h>

#include "density_grid.h"
#include "density_penalty.h"
#include "cell_constraints.h"
#include "grid_hierarchy.h"
#include "grid_point.h"
#include "pair_friction.h"
#include "particle_density.h"

#include "collision_detection.h"
#include "covered_faces.h"

/* Automatic step: this share of the smallest moving geometry's size (16 points across). */
#define STEP_OF_SIZE (1.0 / 16)
/* ... and at most this share of the thinnest moving surface's thickness 2 V / S (a slab's
 * own; a ball's diameter over three): a body thinner than its densities' transition (two
 * steps) has the gradient turn past its middle, and one pressed past it is pulled
 * through. */
#define STEP_OF_THICKNESS 0.5
/* A pair's grid box holds at most this many points; a pair past it is refused with a
 * message naming the step to raise (a step far too small for the bodies' overlap). */
#define MAX_BOX_POINTS (8u << 20)
/* The automatic stiffness makes a contact patch as large as the body's size squared (area
 * L^2: stiffness k L^2 / h) move the body, over one step, by this share of the force's
 * static displacement: (k L^2 / h) x mobility = STIFFNESS_SHARE, where mobility is the
 * displacement a newton makes at a vertex over one step (dt^2 / m for a particle). Explicit
 * integration of a spring is stable up to 4 on this scale; a smaller patch is softer. */
#define STIFFNESS_SHARE 2.0
/* Where the solver integrates the forces implicitly, a curved contact's patch spring
 * (LOAD_SPRING k A / h) at most this share of its more mobile geometry's own spring over a
 * step (1 / mobility): stiffer, a soft body gives way under it instead, pressed over a
 * patch smaller than its elements (the poolrack's foam torus, E = 3e4 Pa, under its 37 kg
 * block asked 15 times its own spring, and its step blew up; the default scene's jelly at
 * twice its spring threw its ring, 15 J; at half, the ring sank through it). */
#define BODY_SPRING_SHARE 1.0
/* Where the solver integrates the forces implicitly, stability no longer bounds the
 * stiffness but the sink does: a contact carrying its load sinks by this share of the step
 * (the transition is two steps deep). */
#define LOAD_SINK 0.25
/* A patch of area A pushed in by d carries LOAD_SPRING k A d / h: its points' forces
 * k h^2 rho_bar |g| h summed across the two smooth steps (the slope squared integrates to
 * 0.6 / h). */
#define LOAD_SPRING 0.6
/* The automatic margin of the constraint response at most this share of the grid step: the
 * densities measure a gap only where both bodies' transitions reach, up to two steps apart
 * for surfaces, and a narrower band keeps the measure where both gradients are steep. */
#define MARGIN_OF_STEP 0.5
/* Triangles whose unit normals' components round to the same multiples of this are one
 * face (contact_area): 3 degrees, a face of a deformed block too. */
#define FACE_NORMAL_BIN 0.05
/* A geometry rests on a face at least this share of its volume^(2/3) (a box's, a
 * cylinder's cap); a smaller one is a facet of a curved surface (a torus's quads, 4 %). */
#define FLAT_FACE_SHARE 0.25
/* The friction spring over the normal one. */
#define TANGENT_SHARE 0.25
/* The automatic hierarchy: root cells of 2 steps, the fastest of 1 to 4 levels on the
 * benchmark's surfaces (docs/benchmarks.md, bench/eulerian_levels.sh: 0.59 to 0.88 of the
 * flat grid's detection); a pair with a body of particles stays flat, where marking every
 * particle's cells cost 10 % more than it saved on the 23 000-particle stack. */
#define AUTOMATIC_LEVELS 2
/* The most points a side of a pair may carry its friction at for the friction's exact
 * velocity derivative (their square of blocks: 65 536 at most). */
#define FRICTION_BLOCK_POINTS 256

#define EULERIAN_ERROR (g_quark_from_static_string ("eulerian"))

/* How much of a pair's surfaces carries its load: the largest footprint its overlap has had
 * since it began (pair_footprint), kept while it overlaps. */
typedef struct PairFootprint {
  double area;
  guint64 seen;   /* the velocity pass it was last measured in */
} PairFootprint;

typedef struct PairContact {
  uint32_t a, b;        /* geometries */
  double mu;            /* the pair's combined Coulomb coefficient */
  double normal[3];     /* unit, along the resultant of the normal forces on a */
  double normal_force;  /* their resultant's size */
  double friction[3];   /* the friction force on a */
  gboolean slips;
  double friction_damping;   /* -d F_t / d v_t (pair_friction_force): h k_t + c_t sticking */
  double twist_damping;      /* d T / d spin while the twist sticks: h k_theta + c_theta */
  double polar;              /* J = sum lambda |d|^2 over its points' levers */
  double center[3];     /* where it acts: the points weighted by their force */
  double weight;
  double deepest;       /* the largest depth 2 rho_bar / |g| of its points (m) */
  double volume;        /* sum rho_bar V */
  double stiffness;     /* k of the pair, Pa */
  guint64 cell;         /* its friction cell's key + 1 (0: the whole pair) */
} PairContact;

/* One grid point where a pair overlaps, between the normal forces and their emission. */
typedef struct GridContact {
  GridPoint moves[2];   /* how the point moves with a and with b */
  double force[3];      /* on a: eq. 2 and the normal damping */
  double k[2][9];       /* dF/dd_a and dF/dd_b, the one-body derivatives eq. 3 averages */
  double turn_gain[2][9];   /* dF = G_s dn_s where side s's face or edge turns by dn_s
                             * (add_point_stiffness's (3)): eq. 2's k V rho_bar / 2
                             * d(grad rho_a - grad rho_b), or the projection's */
  double dashpot;       /* c: the damping force -c (g . v_rel) g */
  double share;         /* lambda: its share of the pair's load (the friction's weight); its
                         * load |F| until add_pair_friction divides by the pair's */
  double elastic[3];    /* eq. 2's force on a, without the damping */
  double bearing[3];    /* what bounds the friction: the force, or with implicit contacts
                         * eq. 2's taken back from the predicted state to the step's start,
                         * F - h (dF/dd_a v_a + dF/dd_b v_b), as the implicit step sees it */
  double gradient[3];   /* g = grad rho_a - grad rho_b, or on one body's face alone its
                         * part along the face's normal (penalty_point) */
  double velocity[3];   /* v_a - v_b at the point */
  double spring;        /* k V / 4 |g|^2: the point's stiffness along g */
  double position[3];
  double volume;        /* rho_bar V */
  double depth;         /* 2 rho_bar / |g|, at most two steps */
  gint64 cell;          /* its friction cell's lattice key (cell_key) */
  double arm[3];        /* n x d / J, d its lever about the pair's centre in the tangent
                         * plane, J = sum lambda |d|^2: its share of a torque T is
                         * lambda T arm, and the pair's spin sum lambda arm . v_rel */
} GridContact;

/* A grid point on both bodies' faces under the penalty response, kept until its pair's
 * sure normal is known (density_crossed_face). */
typedef struct CrossedPenalty {
  GridContact contact;   /* its moves */
  DensitySample sample[2];
  double position[3];
} CrossedPenalty;

typedef enum Response {
  RESPONSE_AUTOMATIC = 0,
  RESPONSE_PENALTY = 1,
  RESPONSE_CONSTRAINT = 2,
} Response;

/* What a geometry's automatic stiffness is sized by, measured once per attachment: taken
 * anew at every detection, a deformable body's size (its bounding box) moved the stiffness
 * as its nodes moved, a force no stiffness block accounts for. */
typedef struct GeometryScale {
  double mobility;  /* displacement per newton over a step at its first vertex; < 0 not
                     * yet measured, 0 fixed */
  double size;      /* its largest extent */
  double area;      /* the area a load on it spreads over (contact_area) */
  gboolean curved;  /* that area a curved surface's patch, not a face */
  double load;      /* the weight (N) of the moving bodies no lower than it, itself included:
                     * what may rest on it */
  double hanging;   /* the weight of the moving bodies no higher than it, itself included:
                     * what may hang from it */
  double height;    /* its box's centre's, against gravity (m) */
  double face_scale;  /* particles: particle_density_face_scale at the step face_scale_step;
                       * 0 not yet measured */
  double face_scale_step;
} GeometryScale;

typedef struct Eulerian {
  double step_param;        /* 0: automatic */
  double margin_param;      /* < 0: automatic */
  double margin;            /* this detection's */
  double stiffness_param;   /* 0: automatic */
  double damping_param;     /* < 0: automatic (the time step) */
  gboolean stiffness_blocks;
  gboolean exact_stiffness; /* the blocks with appendix B's moving weights and turning faces */
  Response response;
  gboolean rows;            /* this detection's response: constraint rows, not forces */
  gboolean implicit;        /* this detection's solver integrates the forces implicitly
                             * (CwbContactQuery.forces_implicit, ABI 1.18) */
  int cell_points;          /* constraint_cell */
  int friction_points;      /* friction_cell */
  int levels_param;         /* 0: automatic */
  GridHierarchy *hierarchy; /* one pair's root level, scratch */
  GArray *present;          /* guint8 per point: where a pair's first body is, scratch */
  GArray *cells;            /* CwbInspectCell: the root level, refined or one body's */
  GArray *shares[2];        /* CwbPointWeight per side: the friction's shares, scratch */
  GArray *twists[2];        /* double[3] per share: the points' twist coefficients, scratch */
  GHashTable *share_index;  /* point + 1 -> its index + 1 in shares, scratch */
  CellConstraints *constraints;
  CoveredFaces *covered;    /* the fixed surfaces' faces against another fixed surface */
  double step;              /* this detection's */
  BodyDensity *density[2];
  GArray *scales;           /* GeometryScale per geometry */
  GPtrArray *apexes;        /* GArray of uint32_t per geometry: its triangles' apexes
                             * (grid_point_map), kept from attachment to attachment */
  GArray *pairs;            /* PairContact: a friction cell each (friction_cell) */
  double volume, deepest;   /* this detection's sum of rho_bar V and largest depth */
  GArray *grid;             /* GridContact: one pair's overlapping points, scratch */
  GArray *crossed;          /* CrossedPenalty: one pair's points on two faces, scratch */
  PairFriction *friction;
  GArray *forces;           /* CwbPointWeight */
  GArray *stiffness;        /* CwbPointStiffness */
  GArray *damping;          /* CwbPointStiffness: d f / d v */
  GArray *voxels;           /* CwbInspectVoxel, the overlap points */
  GArray *vectors;          /* CwbInspectVector, the density gradients */
  GHashTable *footprints;   /* pair key -> PairFootprint, while the pair overlaps */
  guint64 velocity_passes;  /* detections of the velocity pass so far */
} Eulerian;

static const CwbParamSpec eulerian_params[] = {
  { "cell_size", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,
    "The grid step h: bodies are sampled as densities at the points k h. 0: automatic, "
    "1/16 of the smallest moving body's size (a fluid's particles count by their own side, "
    "not the fluid's extent), and no finer than the largest moving volume particle (the "
    "report shows the value used)" },
  { "stiffness", CWB_PARAM_DOUBLE, "Pa", "0", 0, 1e15, NULL,
    "k of the penalty energy 1/2 k V rho_bar^2 (Faure 2007 sec. 4.2). 0: automatic, per "
    "pair, from its more mobile body's response over a step, as stiff as an explicit step "
    "allows; where the solver integrates the forces implicitly, at least stiff enough that "
    "the contact carries the weight of the bodies above it sunk a quarter of the grid "
    "step" },
  { "damping", CWB_PARAM_DOUBLE, "s", "-1", -1, 10, NULL,
    "beta of the damping force beta dF/dd v_rel (the penalty's stiffness along the density "
    "gradient times the bodies' relative velocity): a stiffness-proportional damping. "
    "Negative: automatic, the time step" },
  { "response", CWB_PARAM_ENUM, "", "automatic", 0, 0, "automatic|penalty|constraint",
    "How contact is answered: `penalty`, forces from the energy 1/2 k V rho_bar^2 "
    "(Faure 2007 sec. 4.2); `constraint`, one unilateral constraint per overlapping grid "
    "point along the densities' averaged gradient, with Coulomb friction, for the constraint "
    "solver (sec. 4.3); `automatic`, constraints where the solver solves them, forces "
    "otherwise" },
  { "margin", CWB_PARAM_DOUBLE, "m", "-1", -1, 1, NULL,
    "Constraint response: grid points where the bodies are apart by less than this, along "
    "the densities' normal, make contacts too, with a positive gap, so that bodies resting "
    "on each other and falling together in a step's free motion keep their contact. "
    "Negative: automatic, a few steps' fall under gravity (4 |g| dt^2), at most half a grid "
    "step" },
  { "constraint_cell", CWB_PARAM_INT, "", "4", 1, 64, NULL,
    "Constraint response: the grid points are grouped into cells of this many points a side "
    "and each pair keeps one constraint per cell, the mean of its points' weighted by their "
    "overlap (1: every point); a pair with a fluid takes cells no wider than its particles" },
  { "friction_cell", CWB_PARAM_INT, "", "4", 0, 64, NULL,
    "Penalty response: a pair's grid points are grouped into cells of this many points a "
    "side, each with its own friction spring, anchors, normal and Coulomb bound (0: one "
    "for the whole pair)" },
  { "levels", CWB_PARAM_INT, "", "0", 0, 8, NULL,
    "Levels of the grid's hierarchy (Faure 2007 sec. 6): root cells of 2^(levels - 1) steps, "
    "refined to the grid's step only where two bodies meet in them (1: a flat grid). "
    "0: automatic, 2 (a pair with a body of particles: 1)" },
  { "stiffness_blocks", CWB_PARAM_BOOL, "", "true", 1, 0, NULL,
    "Hand the forces' derivatives (Faure 2007 appendix B, with eq. 3's one-body parts) "
    "to the solver for implicit integration" },
  { "exact_stiffness", CWB_PARAM_BOOL, "", "false", 0, 1, NULL,
    "With stiffness_blocks, hand over the forces' exact derivative: also how the point's "
    "weights in its body move and how the face under it turns, which are not symmetric; "
    "false: the one-body derivatives alone, spread over the points that carry the force, "
    "which keeps a light deformable body's implicit step solvable under a heavy one" },
};

static void
read_params (Eulerian *self, const CwbParamSet *params)
{
  self->step_param = cwb_param_double (params, "cell_size", 0);
  self->margin_param = cwb_param_double (params, "margin", -1);
  self->stiffness_param = cwb_param_double (params, "stiffness", 0);
  self->damping_param = cwb_param_double (params, "damping", -1);
  self->stiffness_blocks = cwb_param_bool (params, "stiffness_blocks", TRUE);
  self->exact_stiffness = cwb_param_bool (params, "exact_stiffness", FALSE);
  self->response = (Response) cwb_param_int (params, "response", RESPONSE_AUTOMATIC);
  self->cell_points = (int) cwb_param_int (params, "constraint_cell", 4);
  self->friction_points = (int) cwb_param_int (params, "friction_cell", 4);
  self->levels_param = (int) cwb_param_int (params, "levels", 0);
}

static void *
eulerian_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                 GError **error)
{
  (void) host;
  (void) error;
  Eulerian *self = g_new0 (Eulerian, 1);
  read_params (self, info->params);
  self->density[0] = body_density_new ();
  self->density[1] = body_density_new ();
  self->hierarchy = grid_hierarchy_new ();
  self->present = g_array_new (FALSE, FALSE, sizeof (guint8));
  self->cells = g_array_new (FALSE, FALSE, sizeof (CwbInspectCell));
  for (int s = 0; s < 2; s++)
    {
      self->shares[s] = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
      self->twists[s] = g_array_new (FALSE, FALSE, 3 * sizeof (double));
    }
  self->share_index = g_hash_table_new (NULL, NULL);
  self->scales = g_array_new (FALSE, FALSE, sizeof (GeometryScale));
  self->apexes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  self->pairs = g_array_new (FALSE, FALSE, sizeof (PairContact));
  self->grid = g_array_new (FALSE, FALSE, sizeof (GridContact));
  self->crossed = g_array_new (FALSE, FALSE, sizeof (CrossedPenalty));
  self->constraints = cell_constraints_new ();
  self->covered = covered_faces_new ();
  self->friction = pair_friction_new ();
  self->forces = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  self->stiffness = g_array_new (FALSE, FALSE, sizeof (CwbPointStiffness));
  self->damping = g_array_new (FALSE, FALSE, sizeof (CwbPointStiffness));
  self->voxels = g_array_new (FALSE, FALSE, sizeof (CwbInspectVoxel));
  self->vectors = g_array_new (FALSE, FALSE, sizeof (CwbInspectVector));
  self->footprints = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  return self;
}

static void
eulerian_destroy (void *data)
{
  Eulerian *self = data;
  body_density_free (self->density[0]);
  body_density_free (self->density[1]);
  grid_hierarchy_free (self->hierarchy);
  g_array_unref (self->present);
  g_array_unref (self->cells);
  for (int s = 0; s < 2; s++)
    {
      g_array_unref (self->shares[s]);
      g_array_unref (self->twists[s]);
    }
  g_hash_table_unref (self->share_index);
  g_array_unref (self->scales);
  g_ptr_array_unref (self->apexes);
  g_array_unref (self->pairs);
  g_array_unref (self->grid);
  g_array_unref (self->crossed);
  cell_constraints_free (self->constraints);
  covered_faces_free (self->covered);
  pair_friction_free (self->friction);
  g_array_unref (self->forces);
  g_array_unref (self->stiffness);
  g_array_unref (self->damping);
  g_array_unref (self->voxels);
  g_array_unref (self->vectors);
  g_hash_table_unref (self->footprints);
  g_free (self);
}

static void
eulerian_params_changed (void *data, const CwbParamSet *params)
{
  Eulerian *self = data;
  read_params (self, params);
  self->step = 0;
}

/* Forgets every geometry's scales (measure_scales measures them again when needed). */
static void
forget_scales (Eulerian *self, size_t n_geometries)
{
  g_array_set_size (self->scales, (guint) n_geometries);
  for (size_t k = 0; k < n_geometries; k++)
    {
      GeometryScale *scale = &g_array_index (self->scales, GeometryScale, k);
      scale->mobility = -1;
      scale->face_scale = 0;
    }
}

/* Geometry k's particle_density_face_scale at this detection's step, kept while the step
 * is: both responses divide the body's density by it, so that a body thinner than the
 * smoothing (a rod one particle thick) has its density's half at its particles' faces as a
 * thick body has. */
static double
geometry_face_scale (Eulerian *self, const CwbContactQuery *query, uint32_t k)
{
  GeometryScale *scale = &g_array_index (self->scales, GeometryScale, k);
  if (!(scale->face_scale > 0) || scale->face_scale_step != self->step)
    {
      scale->face_scale = particle_density_face_scale (&query->geometries[k], self->step);
      scale->face_scale_step = self->step;
    }
  return scale->face_scale;
}

/* Closed triangle surfaces (a density needs an inside) and volume particles with their
 * radii and masses. */
static gboolean
eulerian_attach (void *data, const CwbContactQuery *query, GError **error)
{
  Eulerian *self = data;
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      const CwbGeometry *g = &query->geometries[k];
      if (g->kind == CWB_GEOMETRY_SURFACE && g->closed)
        continue;
      if (g->kind == CWB_GEOMETRY_PARTICLES && g->radii != NULL && g->masses != NULL)
        continue;
      g_set_error (error, EULERIAN_ERROR, 0,
                   "eulerian: body %u: %s; the Eulerian model samples closed triangle "
                   "surfaces and volume particles into densities",
                   g->body,
                   g->kind == CWB_GEOMETRY_SURFACE     ? "its surface is not closed"
                   : g->kind == CWB_GEOMETRY_PARTICLES ? "its particles have no radii or masses"
                                                       : "its geometry is of an unknown kind");
      return FALSE;
    }
  forget_scales (self, query->n_geometries);
  g_ptr_array_set_size (self->apexes, 0);
  g_hash_table_remove_all (self->footprints);
  self->step = 0;
  return TRUE;
}

static double geometry_volume (const CwbGeometry *g);
static double surface_area (const CwbGeometry *g);

/* The step this detection uses: the parameter, or STEP_OF_SIZE of the smallest moving
 * geometry (of any geometry when none moves), and at least the side of the largest moving
 * particle's cube (particle_density.h): a step finer than the particles would smooth their
 * cubes' faces over less than a particle, and a lattice of particles turned against the grid
 * (a body that rotated) would show its cells as ripples of the density, dips and crests of
 * up to half the density between particles; smoothed over a particle's side they fall
 * to a few percent. And no coarser than STEP_OF_THICKNESS of the thinnest moving surface's
 * 2 V / S. A geometry whose points move apart counts by its particles alone. */
static double
resolve_step (const Eulerian *self, const CwbContactQuery *query)
{
  if (self->step_param > 0)
    return self->step_param;
  double smallest = INFINITY, smallest_any = INFINITY, particle = 0, thinnest = INFINITY;
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      const CwbGeometry *g = &query->geometries[k];
      double size = cwb_geometry_size (g);
      gboolean sized = size > 0 && isfinite (size);
      if (sized)
        smallest_any = MIN (smallest_any, size);
      if (cwb_contact_query_geometry_fixed (query, g))
        continue;
      /* A lone particle's centres span nothing, but the particle has its side: left out, a
       * droplet alone took the tank's sixteenth as its step and fell through the floor. */
      if (g->kind == CWB_GEOMETRY_PARTICLES && g->n_points > 0)
        particle = MAX (particle, particle_density_side (g));
      if (!sized)
        continue;
      /* Particles that move apart (a fluid's) have no size of their own but their
       * particles': the water's extent would set a step of a sixteenth of the tank. */
      if (!cwb_contact_query_points_apart (query, g))
        smallest = MIN (smallest, size);
      if (g->kind != CWB_GEOMETRY_PARTICLES)
        {
          double area = surface_area (g);
          if (area > 0)
            thinnest = MIN (thinnest, 2 * geometry_volume (g) / area);
        }
    }
  if (!isfinite (smallest) && particle > 0)
    return MIN (particle, STEP_OF_THICKNESS * thinnest);   /* only a fluid moves */
  double size = isfinite (smallest) ? smallest : smallest_any;
  if (!isfinite (size))
    return 1;
  return MAX (MIN (STEP_OF_SIZE * size, STEP_OF_THICKNESS * thinnest), particle);
}

/* Triangle t's (x1 - x0) x (x2 - x0) into n; its length, twice the triangle's area. */
static double
triangle_cross (const CwbGeometry *g, size_t t, double n[3])
{
  const double *x0 = g->positions + 3 * g->triangles[3 * t];
  const double *x1 = g->positions + 3 * g->triangles[3 * t + 1];
  const double *x2 = g->positions + 3 * g->triangles[3 * t + 2];
  double e1[3], e2[3];
  cwb_v3_sub (e1, x1, x0);
  cwb_v3_sub (e2, x2, x0);
  cwb_v3_cross (n, e1, e2);
  return cwb_v3_norm (n);
}

/* A surface geometry's area (0 for particles). */
static double
surface_area (const CwbGeometry *g)
{
  double area = 0;
  if (g->kind == CWB_GEOMETRY_PARTICLES)
    return 0;
  for (size_t t = 0; t < g->n_triangles; t++)
    {
      double n[3];
      area += 0.5 * triangle_cross (g, t, n);
    }
  return area;
}

/* A geometry's volume: a closed surface's by the divergence theorem, particles' as balls. */
static double
geometry_volume (const CwbGeometry *g)
{
  double volume = 0;
  if (g->kind == CWB_GEOMETRY_PARTICLES)
    {
      for (size_t p = 0; p < g->n_points; p++)
        volume += 4.0 / 3.0 * G_PI * g->radii[p] * g->radii[p] * g->radii[p];
      return volume;
    }
  for (size_t t = 0; t < g->n_triangles; t++)
    {
      const double *x0 = g->positions + 3 * g->triangles[3 * t];
      const double *x1 = g->positions + 3 * g->triangles[3 * t + 1];
      const double *x2 = g->positions + 3 * g->triangles[3 * t + 2];
      double cross[3];
      cwb_v3_cross (cross, x1, x2);
      volume += cwb_v3_dot (x0, cross) / 6;
    }
  return fabs (volume);
}

/* A curved surface's patch (contact_area): pi rho LOAD_SINK h with rho = 2 V / S, at most
 * `across`; *curved where it is less. */
static double
curved_patch (double volume, double surface, double across, double h, gboolean *curved)
{
  double patch = G_PI * (2 * volume / surface) * LOAD_SINK * h;
  *curved = patch < across;
  return MIN (across, patch);
}

/* The area a load on the geometry spreads over, resting on it sunk LOAD_SINK of a step (h):
 * its largest flat face where it has one of at least FLAT_FACE_SHARE of its volume^(2/3)
 * (the triangles of one normal, binned by FACE_NORMAL_BIN, summed), at most that; where it
 * has none, a curved surface's patch: a surface of radius rho sunk d touches over
 * 2 pi rho d, half as deep on average, so it carries what a face of pi rho LOAD_SINK h
 * does, rho = 2 V / S (V its volume, S its area: a tube's radius, two thirds of a ball's).
 * A chain's links and a box's corners on a torus touch at points; sized as faces they sank
 * through (a quarter step of a link's load needs 38 times a face's stiffness). Particles:
 * their faces and area read off the lattice (particle_density_surface), their flat face
 * taken as volume^(2/3) as before it was read (a box's largest face, within a factor of
 * its aspect). */
static double
contact_area (const CwbGeometry *g, double h, gboolean *curved)
{
  double volume = geometry_volume (g), across = pow (volume, 2.0 / 3.0);
  double surface = 0, flat = 0;
  *curved = FALSE;
  if (g->kind == CWB_GEOMETRY_PARTICLES)
    {
      particle_density_surface (g, FACE_NORMAL_BIN, &surface, &flat);
      if (flat >= FLAT_FACE_SHARE * across || !(surface > 0))
        return across;
      /* At least a ball's area for the volume: partial cells at a curved surface shift
       * their centres inward, closer than a lattice step to more neighbours. */
      surface = MAX (surface, cbrt (36 * G_PI * volume * volume));
      return curved_patch (volume, surface, across, h, curved);
    }
  if (g->n_triangles == 0)
    return across;
  g_autoptr (GHashTable) faces = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                        g_free);
  for (size_t t = 0; t < g->n_triangles; t++)
    {
      double n[3], twice = triangle_cross (g, t, n);
      if (!(twice > 0))
        continue;
      surface += 0.5 * twice;
      cwb_v3_scale (n, n, 1 / twice);
      double bin = face_bins_add (faces, n, FACE_NORMAL_BIN, 0.5 * twice);
      flat = MAX (flat, bin);
    }
  if (flat >= FLAT_FACE_SHARE * across || !(surface > 0))
    return MIN (across, flat);
  return curved_patch (volume, surface, across, h, curved);
}

/* Each geometry's loads: the weight of the moving bodies whose boxes' centres are no lower
 * along gravity than its own, itself included (all that may rest on it, wherever it lies:
 * counted only over the geometry's footprint across gravity, a pyramid's lower rows carried
 * a fraction of the rows above, which their faces spread sideways, and the pyramid blew
 * up), and of those no higher (all that may hang from it); none without gravity or the
 * bodies' masses (ABI 1.18). */
static void
measure_loads (Eulerian *self, const CwbContactQuery *query)
{
  GeometryScale *scale = (GeometryScale *) self->scales->data;
  double weight = cwb_v3_norm (query->gravity);
  gboolean masses = CWB_STRUCT_HAS (query, CwbContactQuery, body_mass)
                    && query->body_mass != NULL && weight > 0;
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      double lo[3], hi[3], centre[3];
      cwb_geometry_bounds (&query->geometries[k], lo, hi);
      for (int c = 0; c < 3; c++)
        centre[c] = 0.5 * (lo[c] + hi[c]);
      scale[k].height = masses ? -cwb_v3_dot (centre, query->gravity) / weight : 0;
    }
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      scale[k].load = scale[k].hanging = 0;
      for (size_t j = 0; masses && j < query->n_geometries; j++)
        {
          const CwbGeometry *g = &query->geometries[j];
          if (g->body >= query->n_bodies || cwb_contact_query_geometry_fixed (query, g))
            continue;
          double w = query->body_mass[g->body] * weight;
          if (scale[j].height >= scale[k].height)
            scale[k].load += w;
          if (scale[j].height <= scale[k].height)
            scale[k].hanging += w;
        }
    }
}

/* Every geometry's scales (GeometryScale), measured the first time they are needed, the
 * mobilities for all of them in one point_response call: the displacement of its first
 * vertex over one step per newton pushed there (along z), 0 for a fixed body; without
 * point_response (a host before ABI 1.1), a body of 1 kg: h^2. */
static void
measure_scales (Eulerian *self, const CwbContactQuery *query)
{
  GeometryScale *scale = (GeometryScale *) self->scales->data;
  gboolean missing = FALSE;
  for (size_t k = 0; k < query->n_geometries; k++)
    missing |= scale[k].mobility < 0;
  if (!missing)
    return;
  measure_loads (self, query);
  gboolean response = CWB_STRUCT_HAS (query, CwbContactQuery, point_response)
                      && query->point_response != NULL;
  g_autoptr (GArray) probe = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      const CwbGeometry *g = &query->geometries[k];
      if (scale[k].mobility >= 0)
        continue;
      scale[k].size = cwb_geometry_size (g);
      if (g->kind == CWB_GEOMETRY_PARTICLES && g->n_points > 0)   /* a lone particle's side */
        scale[k].size = MAX (scale[k].size, particle_density_side (g));
      scale[k].area = contact_area (g, self->step, &scale[k].curved);
      if (cwb_contact_query_geometry_fixed (query, g) || g->n_points == 0)
        scale[k].mobility = 0;
      else if (!response)
        scale[k].mobility = query->h * query->h;
      else
        {
          CwbPointWeight p = { .geometry = (uint32_t) k, .point = 0, .w = { 0, 0, 1 } };
          g_array_append_val (probe, p);
        }
    }
  if (probe->len == 0)
    return;
  g_autofree double *dp = g_new0 (double, 3 * probe->len);
  const CwbPointWeight *p = (const CwbPointWeight *) probe->data;
  query->point_response (query->host_data, p, probe->len, p, probe->len, dp);
  for (guint n = 0; n < probe->len; n++)
    scale[p[n].geometry].mobility = MAX (dp[3 * n + 2], 0);
}

/* The stiffness that lets a pair's contact carry its load sunk LOAD_SINK of a step: what
 * rests on its upper moving geometry or, where the upper one is fixed, what hangs from the
 * lower one (a chain's top link carries the links below it), on a patch of the smaller
 * area A, a spring of LOAD_SPRING k A / h. Between two moving geometries the upper one's
 * load: what hangs from the lower one counts bodies that may rest on others below (a
 * pyramid's boxes under an upper row). 0 without a load. */
static double
load_stiffness (const GeometryScale *sa, const GeometryScale *sb, gboolean a_upper,
                double area)
{
  const GeometryScale *upper = a_upper ? sa : sb, *lower = a_upper ? sb : sa;
  double load = upper->mobility > 0 ? upper->load : lower->hanging;
  if (!(load > 0) || !(area > 0))
    return 0;
  return load / (LOAD_SPRING * LOAD_SINK * area);
}

/* The pair's k: the parameter, or the stiffness that makes a patch of its more mobile
 * geometry's size squared move it by STIFFNESS_SHARE of the force over a step; where the
 * solver integrates the forces implicitly (ABI 1.18), at least the one that carries the
 * pair's load (load_stiffness) as far as the more mobile geometry can bear it; `footprint`
 * the pair's (pair_footprint), 0 where not measured. */
static double
pair_stiffness (const Eulerian *self, const CwbContactQuery *query, uint32_t a, uint32_t b,
                double footprint)
{
  if (self->stiffness_param > 0)
    return self->stiffness_param;
  const GeometryScale *scale = (const GeometryScale *) self->scales->data;
  const GeometryScale *m = scale[a].mobility >= scale[b].mobility ? &scale[a] : &scale[b];
  if (!(m->mobility > 0) || !(m->size > 0))
    return 0;
  double stiffness = STIFFNESS_SHARE * self->step / (m->size * m->size * m->mobility);
  if (!self->implicit)
    return stiffness;
  /* Implicitly, on a curved patch, at most a patch spring LOAD_SPRING k A / h of
   * BODY_SPRING_SHARE times the more mobile geometry's own spring over a step
   * (1 / mobility, at a vertex: a face's load spreads over many). */
  const GeometryScale *smaller = scale[a].area <= scale[b].area ? &scale[a] : &scale[b];
  double yielding = smaller->curved && smaller->area > 0
                      ? BODY_SPRING_SHARE * self->step
                          / (LOAD_SPRING * smaller->area * m->mobility)
                      : INFINITY;
  /* The load on the smaller patch, or on the pair's footprint where that is smaller (a face
   * touching on an edge, a corner or a rib). The yielding cap stays the patch's. */
  double area = footprint > 0 ? MIN (smaller->area, footprint) : smaller->area;
  double load = load_stiffness (&scale[a], &scale[b], scale[a].height >= scale[b].height,
                                area);
  return MAX (stiffness, MIN (load, yielding));
}

/* The area the pair's overlap carries on, seen along the grid's axes: each column of
 * points along an axis counts a step squared times its largest overlap over the pair's
 * largest (a face pressed in evenly counts whole, a point's or an edge's surroundings
 * little); the most of the three axes. */
static double
overlap_footprint (const Eulerian *self, const GridBox *box)
{
  const int *n = box->n;
  size_t sizes[3] = { (size_t) n[1] * n[2], (size_t) n[0] * n[2], (size_t) n[0] * n[1] };
  double *along[3];
  for (int c = 0; c < 3; c++)
    along[c] = g_new0 (double, sizes[c]);
  const double *rho_a = (const double *) self->density[0]->rho->data;
  const double *rho_b = (const double *) self->density[1]->rho->data;
  double deepest = 0;
  for (int k = 0; k < n[2]; k++)
    for (int j = 0; j < n[1]; j++)
      for (int i = 0; i < n[0]; i++)
        {
          /* The second body's density is read only where the first is present. */
          size_t p = grid_box_index (box, i, j, k);
          if (!(rho_a[p] > 0 && rho_b[p] > 0 && rho_a[p] + rho_b[p] > 1))
            continue;
          double excess = rho_a[p] + rho_b[p] - 1;
          deepest = MAX (deepest, excess);
          size_t cell[3] = { (size_t) j + (size_t) n[1] * k, (size_t) i + (size_t) n[0] * k,
                             (size_t) i + (size_t) n[0] * j };
          for (int c = 0; c < 3; c++)
            along[c][cell[c]] = MAX (along[c][cell[c]], excess);
        }
  double most = 0;
  for (int c = 0; c < 3; c++)
    {
      double sum = 0;
      for (size_t q = 0; q < sizes[c]; q++)
        sum += along[c][q];
      most = MAX (most, sum);
      g_free (along[c]);
    }
  return deepest > 0 ? most / deepest * box->step * box->step : 0;
}

/* The footprint the pair's stiffness is sized on (pair_stiffness): the largest its overlap
 * has covered since it began, so that the stiffness never rises within a contact (a spring
 * stiffened while pressed gives back more than it took); 0 where there is none. Measured and
 * kept on the velocity pass. */
static double
pair_footprint (Eulerian *self, const CwbContactQuery *query, uint32_t a, uint32_t b,
                const GridBox *box)
{
  double now = overlap_footprint (self, box);
  guint64 key = ((guint64) a << 32) | b;
  PairFootprint *kept = g_hash_table_lookup (self->footprints, &key);
  gboolean going_on = kept != NULL && kept->seen + 1 >= self->velocity_passes;
  double area = going_on ? MAX (kept->area, now) : now;
  if (query->pass == CWB_CONTACT_PASS_VELOCITY)
    {
      if (!(now > 0))
        g_hash_table_remove (self->footprints, &key);
      else
        {
          if (kept == NULL)
            {
              kept = g_new0 (PairFootprint, 1);
              g_hash_table_insert (self->footprints, g_memdup2 (&key, sizeof key), kept);
            }
          kept->area = area;
          kept->seen = self->velocity_passes;
        }
    }
  return area;
}

/* Geometry k's triangle apexes (grid_point_map), kept across detections. */
static GArray *
geometry_apexes (Eulerian *self, uint32_t k)
{
  while (self->apexes->len <= k)
    g_ptr_array_add (self->apexes, g_array_new (FALSE, FALSE, sizeof (uint32_t)));
  return g_ptr_array_index (self->apexes, k);
}

/* The point's sample of one body, with how the point moves with it. */
static void
sample_at (BodyDensity *d, const CwbGeometry *g, GArray *apexes, int i, int j, int k,
           DensitySample *sample, GridPoint *moves)
{
  size_t p = grid_box_index (&d->box, i, j, k);
  sample->rho = g_array_index (d->rho, double, p);
  if (d->from_particles)
    {
      particle_density_sample (d, g, i, j, k, sample, moves);
      return;
    }
  body_density_derivatives (d, i, j, k, sample->gradient, sample->hessian);
  grid_point_map (d, g, apexes, i, j, k, moves);
  if (body_density_face_or_edge (d, i, j, k, moves->normal, moves->edge))
    moves->turn = cwb_v3_dot (sample->gradient, moves->normal);
}

/* How the gradient's direction n turns as corner `corner` of the edge the point's density is
 * taken from moves (the direction's motion beyond what the edge's translation gives, which
 * the Hessian holds): with t the edge's unit direction and L its length, the edge turning by
 * dt = (I - t t^T) (dp_b - dp_a) / L turns n by -t n^T (dp_b - dp_a) / L. */
static void
edge_turn (const CwbGeometry *g, const GridPoint *m, int corner, double turn[9])
{
  memset (turn, 0, 9 * sizeof (double));
  int other = -1;
  for (int v = 0; v < 3; v++)
    if (v != corner && m->carry[v] != 0)
      other = v;
  if (m->carry[corner] == 0 || other < 0)
    return;
  double along[3];
  cwb_v3_sub (along, &g->positions[3 * m->point[corner]], &g->positions[3 * m->point[other]]);
  double length = cwb_v3_norm (along);
  if (!(length > 0))
    return;
  /* -1 / L for the corner the edge points to, +1 / L for the other. */
  double s = (cwb_v3_dot (along, m->edge) > 0 ? -1 : 1) / length;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      turn[3 * r + c] = s * m->edge[r] * m->normal[c];
}

/* How a face's unit normal n turns as its vertex `corner` moves: dn = T dp with
 * T = s (I - n n^T) [u]x^T / |N|, N = (p1 - p0) x (p2 - p0) (dN = dp x u, u = p1 - p2,
 * p2 - p0, p0 - p1 for corners 0, 1, 2) and s the sign of n . N. */
static void
face_turn (const CwbGeometry *g, const GridPoint *m, int corner, double turn[9])
{
  const double *p[3];
  for (int v = 0; v < 3; v++)
    p[v] = &g->positions[3 * m->point[v]];
  double e1[3], e2[3], normal[3], u[3];
  cwb_v3_sub (e1, p[1], p[0]);
  cwb_v3_sub (e2, p[2], p[0]);
  cwb_v3_cross (normal, e1, e2);
  double length = cwb_v3_norm (normal);
  memset (turn, 0, 9 * sizeof (double));
  if (!(length > 0))
    return;
  cwb_v3_sub (u, p[(corner + 1) % 3], p[(corner + 2) % 3]);
  double s = (cwb_v3_dot (normal, m->normal) < 0 ? -1 : 1) / length;
  /* [u]x^T dp = dp x u; (I - n n^T) applied to its columns. */
  const double cross_t[9] = { 0, u[2], -u[1], -u[2], 0, u[0], u[1], -u[0], 0 };
  const double *n = m->normal;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      {
        double along = n[0] * cross_t[c] + n[1] * cross_t[3 + c] + n[2] * cross_t[6 + c];
        turn[3 * r + c] = s * (cross_t[3 * r + c] - n[r] * along);
      }
}

/* The point forces of one grid point: w_m F on a's points, -w_m F on b's. */
static void
add_point_forces (Eulerian *self, const uint32_t geometry[2], const GridPoint moves[2],
                  const double force[3])
{
  for (int s = 0; s < 2; s++)
    for (int m = 0; m < GRID_POINT_TERMS; m++)
      {
        if (moves[s].weight[m] == 0)
          continue;
        CwbPointWeight f = { .geometry = geometry[s], .point = moves[s].point[m] };
        cwb_v3_scale (f.w, force, (s == 0 ? 1 : -1) * moves[s].weight[m]);
        g_array_append_val (self->forces, f);
      }
}

/* The forces' velocity derivative between the points carrying the grid point. Its relative
 * velocity is sum_y s_y w_y v_y over both sides' points, so the normal damping s_x w_x F on
 * point x changes by -s_x s_y w_x w_y c g g^T dv_y. With `local_friction`
 * (add_pair_friction_damping's fallback) also the friction's part within the grid point,
 * -s_x s_y w_x w_y lambda (h k_t + c_t) P, and the twist's. The blocks within one body are
 * symmetric and negative semi-definite, as conjugate gradients need (the host hands each
 * body its own);
 * those between the two bodies, when both move, couple their implicit steps (ABI 1.17,
 * contact_coupling_apply), without which the damping would not act equally on both. */
static void
add_point_damping (Eulerian *self, const CwbContactQuery *query, const uint32_t geometry[2],
                   const PairContact *pair, const GridContact *contact,
                   gboolean local_friction)
{
  const GridPoint *moves = contact->moves;
  const double *g = contact->gradient, *n = pair->normal;
  double tangential = local_friction ? contact->share * pair->friction_damping : 0;
  /* The twist's part within the point, along its arm's direction e: lambda D / J e e^T,
   * the exact one under a rigid spin. */
  double arm = cwb_v3_norm (contact->arm);
  double turning = local_friction && arm > 0 && pair->polar > 0
                     ? contact->share * pair->twist_damping / (pair->polar * arm * arm)
                     : 0;
  double k[9];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      k[3 * r + c] = contact->dashpot * g[r] * g[c]
                     + tangential * ((r == c) - n[r] * n[c])
                     + turning * contact->arm[r] * contact->arm[c];
  gboolean moving[2];
  for (int s = 0; s < 2; s++)
    moving[s] = !cwb_contact_query_geometry_fixed (query, &query->geometries[geometry[s]]);
  for (int sx = 0; sx < 2; sx++)
    for (int sy = 0; sy < 2; sy++)
      for (int mx = 0; moving[sx] && moving[sy] && mx < GRID_POINT_TERMS; mx++)
        for (int my = 0; my < GRID_POINT_TERMS; my++)
          {
            double scale = (sx == sy ? -1 : 1) * moves[sx].weight[mx] * moves[sy].weight[my];
            if (scale == 0)
              continue;
            CwbPointStiffness block = {
              .geometry_a = geometry[sx],
              .point_a = moves[sx].point[mx],
              .geometry_b = geometry[sy],
              .point_b = moves[sy].point[my],
            };
            for (int e = 0; e < 9; e++)
              block.k[e] = scale * k[e];
            g_array_append_val (self->damping, block);
          }
}

/* Side s's share a_x = sum_k lambda_k w_kx of the contact at each of its points
 * (CwbPointWeight: the point, a_x in w[0]) and its twist coefficient
 * t_x = sum_k lambda_k w_kx arm_k (3 doubles a point in `twists`), over the n grid points
 * of one friction cell. */
static void
side_shares (const GridContact *grid, guint n, uint32_t geometry, int s, GArray *shares,
             GArray *twists, GHashTable *index)
{
  g_array_set_size (shares, 0);
  g_array_set_size (twists, 0);
  g_hash_table_remove_all (index);
  for (guint k = 0; k < n; k++)
    for (int m = 0; m < GRID_POINT_TERMS; m++)
      {
        double w = grid[k].share * grid[k].moves[s].weight[m];
        if (w == 0)
          continue;
        gpointer key = GUINT_TO_POINTER (grid[k].moves[s].point[m] + 1);
        gpointer found = g_hash_table_lookup (index, key);
        if (found == NULL)
          {
            CwbPointWeight share = { .geometry = geometry, .point = grid[k].moves[s].point[m] };
            double none[3] = { 0, 0, 0 };
            g_array_append_val (shares, share);
            g_array_append_vals (twists, none, 1);
            found = GUINT_TO_POINTER (shares->len);
            g_hash_table_insert (index, key, found);
          }
        guint at = GPOINTER_TO_UINT (found) - 1;
        g_array_index (shares, CwbPointWeight, at).w[0] += w;
        cwb_v3_axpy ((double *) twists->data + 3 * at, w, grid[k].arm);
      }
}

/* The friction's velocity derivative, exact: it acts on the pair's load-weighted mean
 * velocity sum_k lambda_k (sum_y s_y w_ky v_y) and is spread back by the same shares, so
 * between two points x, y it is -s_x s_y a_x a_y (h k_t + c_t) P (between the two bodies
 * only when both move), with a_x =
 * sum_k lambda_k w_kx the point's share of the pair's contact and P the tangent plane's
 * projector (symmetric, negative semi-definite, of rank 2 over the side); the twist's
 * likewise, -s_x s_y (h k_theta + c_theta) t_x t_y^T with t_x the points' twist
 * coefficients (side_shares), of rank 1. A side carrying
 * the pair at more than FRICTION_BLOCK_POINTS points (a body of particles) would need their
 * square of blocks: FALSE, and the caller hands over each grid point's own part instead,
 * which equals the exact one when the side's points move alike (a rigid body's translation)
 * and damps more where they move apart. */
static gboolean
add_pair_friction_damping (Eulerian *self, const CwbContactQuery *query,
                           const uint32_t geometry[2], const PairContact *pair)
{
  if (!(pair->friction_damping > 0) && !(pair->twist_damping > 0))
    return TRUE;
  gboolean moving[2];
  for (int s = 0; s < 2; s++)
    {
      /* add_pair_friction gathered the shares of the moving sides. */
      moving[s] = !cwb_contact_query_geometry_fixed (query, &query->geometries[geometry[s]]);
      if (self->shares[s]->len > FRICTION_BLOCK_POINTS)
        return FALSE;
    }
  const double *n = pair->normal;
  for (int sx = 0; sx < 2; sx++)
    for (int sy = 0; sy < 2; sy++)
      {
        const CwbPointWeight *a = (const CwbPointWeight *) self->shares[sx]->data;
        const CwbPointWeight *b = (const CwbPointWeight *) self->shares[sy]->data;
        guint n_a = moving[sx] && moving[sy] ? self->shares[sx]->len : 0;
        for (guint x = 0; x < n_a; x++)
          for (guint y = 0; y < self->shares[sy]->len; y++)
            {
              double sign = sx == sy ? -1 : 1;
              double scale = sign * pair->friction_damping * a[x].w[0] * b[y].w[0];
              const double *ta = (const double *) self->twists[sx]->data + 3 * x;
              const double *tb = (const double *) self->twists[sy]->data + 3 * y;
              CwbPointStiffness block = {
                .geometry_a = geometry[sx], .point_a = a[x].point,
                .geometry_b = geometry[sy], .point_b = b[y].point,
              };
              for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                  block.k[3 * r + c] = scale * ((r == c) - n[r] * n[c])
                                       + sign * pair->twist_damping * ta[r] * tb[c];
              g_array_append_val (self->damping, block);
            }
      }
  return TRUE;
}

/* Appendix B's middle term between the points carrying the grid point, for the model as it
 * is discretised: the grid point stays fixed in space while either body moves under it.
 * (1) The densities move: the force on a's point x is +w_x F, on b's -w_x F, and side s's
 * point y moving by dp moves that body's density by c_y dp (c the carrying weights,
 * grid_point.h), so block (x, y) is s_x w_x c_y dF/dd_s (the one-body derivatives, not
 * eq. 3's average of them: eq. 3 is half the difference, half of what one body feels
 * alone). (2) The weights move: the point's coordinates in the body change by
 * dw_x = -grad w_x . sum_y w_y dp_y, and the force a side puts there on its point x by
 * dw_x s_x F: blocks -w_y s_x F (grad w_x)^T between the points of the same side. (3) The
 * face or edge the density is taken from turns as its vertices move, and the gradient with
 * it (face_turn, edge_turn). None is symmetric in general. With `exact` the blocks are the
 * true derivatives, as CwbPointStiffness states; without it, their stable part: (1) alone,
 * the density taken to move with the points that carry the force (w_y for c_y: the
 * tetrahedron's affine motion at the point), so that every point a force reaches has its
 * column. (2) and (3) put the force over an element's size on a light body's nodes, not
 * symmetrically: on a soft ring under a heavy block they made its implicit step's system
 * near singular (docs/plugins/eulerian.md). */
static void
add_point_stiffness (Eulerian *self, const uint32_t geometry[2], const CwbGeometry *g[2],
                     const GridContact *contact, gboolean exact)
{
  const GridPoint *moves = contact->moves;
  const double *force = contact->force;
  /* (3)'s turn of each side's face or edge per corner, the same for every block. */
  double turns[2][3][9];
  for (int s = 0; s < 2; s++)
    for (int corner = 0; corner < 3 && exact && moves[s].turn != 0; corner++)
      if (cwb_v3_dot (moves[s].edge, moves[s].edge) > 0)
        edge_turn (g[s], &moves[s], corner, turns[s][corner]);
      else
        face_turn (g[s], &moves[s], corner, turns[s][corner]);
  for (int sx = 0; sx < 2; sx++)
    for (int mx = 0; mx < GRID_POINT_TERMS; mx++)
      for (int sy = 0; sy < 2; sy++)
        for (int my = 0; my < GRID_POINT_TERMS; my++)
          {
            double side = sx == 0 ? 1 : -1;
            double carry = exact ? moves[sy].carry[my] : moves[sy].weight[my];
            double scale = side * moves[sx].weight[mx] * carry;
            const double *gradient = moves[sx].gradient[mx];
            gboolean moving_weight = exact && sx == sy && moves[sy].weight[my] != 0
                                     && (gradient[0] != 0 || gradient[1] != 0
                                         || gradient[2] != 0);
            gboolean turning = exact && moves[sy].turn != 0 && my < 3
                               && moves[sx].weight[mx] != 0;
            if (scale == 0 && !moving_weight && !turning)
              continue;
            CwbPointStiffness block = {
              .geometry_a = geometry[sx],
              .point_a = moves[sx].point[mx],
              .geometry_b = geometry[sy],
              .point_b = moves[sy].point[my],
            };
            for (int e = 0; e < 9; e++)
              block.k[e] = scale * contact->k[sy][e];
            if (turning)
              {
                /* (3) The face under the point turns: grad rho_s by turn dn. */
                const double *turn = turns[sy][my];
                double gained[9];
                cwb_m3_mul (gained, contact->turn_gain[sy], turn);
                for (int e = 0; e < 9; e++)
                  block.k[e] += side * moves[sx].weight[mx] * gained[e];
              }
            if (moving_weight)
              {
                double w = moves[sy].weight[my];
                for (int i = 0; i < 3; i++)
                  for (int j = 0; j < 3; j++)
                    block.k[3 * i + j] -= w * side * force[i] * gradient[j];
              }
            g_array_append_val (self->stiffness, block);
          }
}


/* The twist's lever arms (GridContact.arm) about the pair's centre c in the tangent plane of
 * its normal n, by the points' shares lambda (set): into `twist`, the pair's spin
 * sum lambda arm . v_rel and its mean lever arm R = sum lambda |d|; returns J =
 * sum lambda |d|^2 (0: a single point, no twist). */
static double
twist_arms (GridContact *grid, guint n, const double normal[3], const double center[3],
            PairTwist *twist)
{
  double polar = 0;
  twist->spin = twist->radius = 0;
  for (guint k = 0; k < n; k++)
    {
      double d[3];
      cwb_v3_sub (d, grid[k].position, center);
      cwb_v3_reject (d, normal);
      cwb_v3_cross (grid[k].arm, normal, d);
      double lever = cwb_v3_norm (d);
      polar += grid[k].share * lever * lever;
      twist->radius += grid[k].share * lever;
    }
  for (guint k = 0; k < n; k++)
    {
      if (polar > 0)
        cwb_v3_scale (grid[k].arm, grid[k].arm, 1 / polar);
      else
        grid[k].arm[0] = grid[k].arm[1] = grid[k].arm[2] = 0;
      twist->spin += grid[k].share * cwb_v3_dot (grid[k].arm, grid[k].velocity);
    }
  return polar;
}


/* The pair's friction (pair_friction.h) from its grid points: normal along the resultant of
 * their eq. 2 forces (with the damping's, the friction's plane would turn with the velocity,
 * a dependence none of its blocks carries: a box resting at 1e6 Pa implicitly rang on it
 * with a period of two steps), bounded by the whole forces along it, the relative velocity
 * their load-weighted mean, the tangential spring as
 * stiff as the points' springs along their gradients together, and its dashpot beta times
 * that; its twist about the normal with the same spring spread over the points' levers
 * (k_theta = k_t J); then each point takes a share of the force in proportion to its normal
 * force, and of the torque T by its arm. */
static void
add_pair_friction (Eulerian *self, const CwbContactQuery *query, PairContact *pair,
                   GridContact *grid, guint n, gboolean turns, double beta)
{
  double resultant[3] = { 0, 0, 0 }, elastic[3] = { 0, 0, 0 }, velocity[3] = { 0, 0, 0 };
  double load = pair->weight, spring = 0;
  for (guint k = 0; k < n; k++)
    {
      cwb_v3_add (resultant, resultant, grid[k].bearing);
      cwb_v3_add (elastic, elastic, grid[k].elastic);
      cwb_v3_axpy (velocity, grid[k].share, grid[k].velocity);
      spring += grid[k].spring;
    }
  double elastic_force = cwb_v3_norm (elastic);
  if (!(elastic_force > 0) || !(load > 0))
    return;
  cwb_v3_scale (pair->normal, elastic, 1 / elastic_force);
  double normal_force = MAX (cwb_v3_dot (resultant, pair->normal), 0);
  if (!(normal_force > 0))
    return;
  cwb_v3_scale (velocity, velocity, 1 / load);
  pair->normal_force = normal_force;
  if (!(pair->mu > 0) || query->pass != CWB_CONTACT_PASS_VELOCITY)
    return;
  for (guint k = 0; k < n; k++)
    grid[k].share /= load;
  guint64 id = cwb_contact_id_mix (((guint64) pair->a << 32) | pair->b);
  if (pair->cell != 0)
    id = cwb_contact_id_mix (id ^ pair->cell);
  double tangent_spring = TANGENT_SHARE * spring;
  PairTwist twist = { 0 };
  pair->polar = twist_arms (grid, n, pair->normal, pair->center, &twist);
  if (!turns)
    twist.radius = 0;
  twist.stiffness = turns ? tangent_spring * pair->polar : 0;
  twist.damping = beta * twist.stiffness;
  pair->slips = pair_friction_force (self->friction, id, query->geometries, query->n_geometries,
                                     pair->normal, normal_force, pair->mu, velocity,
                                     tangent_spring, beta * tangent_spring, query->h,
                                     pair->friction, &pair->friction_damping, &twist);
  /* Its velocity derivatives (pair_friction_force's): sticking, F_t = -k_t u - c_t v_t
   * with u grown by the anchors' motion, h v_t over a step; the twist's likewise. */
  pair->twist_damping = twist.derivative;
  for (guint k = 0; k < n; k++)
    {
      cwb_v3_axpy (grid[k].force, grid[k].share, pair->friction);
      cwb_v3_axpy (grid[k].force, grid[k].share * twist.torque, grid[k].arm);
    }
  /* Each moving side's points by their shares of the pair: the spring's anchors for the
   * next detection, and the blocks of its velocity derivative. */
  uint32_t geometry[2] = { pair->a, pair->b };
  for (int s = 0; s < 2; s++)
    {
      g_array_set_size (self->shares[s], 0);
      g_array_set_size (self->twists[s], 0);
      if (cwb_contact_query_geometry_fixed (query, &query->geometries[geometry[s]]))
        continue;
      side_shares (grid, n, geometry[s], s, self->shares[s], self->twists[s],
                   self->share_index);
      pair_friction_anchor (self->friction, query->geometries,
                            (const CwbPointWeight *) self->shares[s]->data,
                            (const double *) self->twists[s]->data, self->shares[s]->len,
                            s == 0 ? 1 : -1);
    }
}

/* What bounds the point's friction (GridContact.bearing). The predictor-corrector detects at
 * the predicted state, where a resting body has fallen by g h^2 into its support and moves
 * down at g h. Explicitly those forces act as they are. With implicit contacts the step
 * takes them back to its start through their stiffness and damping (K h (v - v_p) and
 * B (v - v_p)), so the normal force that carries the body is eq. 2's less
 * h (dF/dd_a v_a + dF/dd_b v_b), its damping about none at rest: bounded by the predicted
 * forces, a box spun on the ground turned down at 1.48 times Coulomb's rate (49 N against
 * its weight of 39 N). */
static void
contact_bearing (GridContact *contact, gboolean implicit, double h, const double va[3],
                 const double vb[3])
{
  if (!implicit)
    {
      cwb_v3_copy (contact->bearing, contact->force);
      return;
    }
  cwb_v3_copy (contact->bearing, contact->elastic);
  for (int side = 0; side < 2; side++)
    {
      double change[3];
      cwb_m3_mul_v3 (change, contact->k[side], side == 0 ? va : vb);
      cwb_v3_axpy (contact->bearing, -h, change);
    }
}

/* The pair's root level for inspection: each refined cell (both bodies), and each cell
 * left coarse that one body's transition passes through (body_b CWB_NO_BODY: where that body
 * alone is computed, at the root level only). */
static void
add_hierarchy_cells (Eulerian *self, const CwbGeometry *g[2], const GridBox *box)
{
  const GridHierarchy *hierarchy = self->hierarchy;
  const GridMask *mask = &hierarchy->mask;
  const guint8 *band[2] = { (const guint8 *) hierarchy->band[0]->data,
                            (const guint8 *) hierarchy->band[1]->data };
  size_t c = 0;
  for (int ck = 0; ck < mask->n[2]; ck++)
    for (int cj = 0; cj < mask->n[1]; cj++)
      for (int ci = 0; ci < mask->n[0]; ci++, c++)
        for (int s = 0; s < 2; s++)
          {
            gboolean refined = mask->active[c];
            if (refined ? s > 0 : !band[s][c])
              continue;
            CwbInspectCell cell = { .body_a = g[refined ? 0 : s]->body,
                                    .body_b = refined ? g[1]->body : CWB_NO_BODY,
                                    .volume = 0, .frame = UINT32_MAX };
            grid_hierarchy_cell_bounds (hierarchy, box, ci, cj, ck, cell.min, cell.max);
            g_array_append_val (self->cells, cell);
          }
}

/* Both densities over the pair's box: the scan conversions, the root level's marks, then the
 * densities in the refined cells (grid_hierarchy.h), the second body's only where the first
 * is present; the root level's cells for inspection. */
static void
sample_pair (Eulerian *self, const CwbContactQuery *query, const uint32_t geometry[2],
             const GridBox *box)
{
  const CwbGeometry *g[2] = { &query->geometries[geometry[0]],
                              &query->geometries[geometry[1]] };
  GridHierarchy *hierarchy = self->hierarchy;
  int levels = self->levels_param > 0 ? self->levels_param
               : g[0]->kind == CWB_GEOMETRY_PARTICLES || g[1]->kind == CWB_GEOMETRY_PARTICLES
                 ? 1
                 : AUTOMATIC_LEVELS;
  grid_hierarchy_begin (hierarchy, box, levels);
  for (int s = 0; s < 2; s++)
    if (g[s]->kind != CWB_GEOMETRY_PARTICLES)
      body_density_begin_surface (self->density[s], box, g[s]->positions, g[s]->triangles,
                                  g[s]->n_triangles);
  const GridMask *mask = NULL;
  if (levels > 1)
    {
      for (int s = 0; s < 2; s++)
        if (g[s]->kind == CWB_GEOMETRY_PARTICLES)
          grid_hierarchy_mark_particles (hierarchy, s, box, g[s],
                                         particle_density_reach (g[s], box->step));
        else
          grid_hierarchy_mark_surface (hierarchy, s, self->density[s], g[s]->positions,
                                       g[s]->triangles, g[s]->n_triangles);
      grid_hierarchy_finish (hierarchy);
      mask = &hierarchy->mask;
      add_hierarchy_cells (self, g, box);
    }
  GridMask first_present;
  for (int s = 0; s < 2; s++)
    {
      if (g[s]->kind == CWB_GEOMETRY_PARTICLES)
        body_density_sample_particles (self->density[s], box, g[s], mask,
                                       geometry_face_scale (self, query, geometry[s]));
      else
        body_density_finish_surface (self->density[s], g[s]->positions, g[s]->triangles,
                                     g[s]->n_triangles,
                                     covered_faces_flags (self->covered, geometry[s]), mask);
      /* The second body only where the first is present: elsewhere no point overlaps, and
       * its density there is never read. */
      if (s == 0)
        {
          grid_mask_where_present (&first_present, self->present, mask, self->density[0]);
          mask = &first_present;
        }
    }
}

/* Where both bodies are present at a point, each body's density there as a density voxel
 * (inspection) where it is in its transition: body a's a box of 0.8 steps, body b's of 0.5,
 * so that both show where they meet. */
static void
add_density_voxels (Eulerian *self, const CwbGeometry *g[2], const GridBox *box, int i, int j,
                    int k, double rho_a, double rho_b)
{
  const double rho[2] = { rho_a, rho_b }, size[2] = { 0.8, 0.5 };
  for (int s = 0; s < 2; s++)
    {
      if (!(rho[s] < 1))
        continue;
      CwbInspectVoxel voxel = {
        .kind = CWB_VOXEL_DENSITY, .body_a = g[s]->body, .body_b = CWB_NO_BODY,
        .size = { size[s] * box->step, size[s] * box->step, size[s] * box->step },
        .value = rho[s],
      };
      grid_box_point (box, i, j, k, voxel.center);
      g_array_append_val (self->voxels, voxel);
    }
}

/* The penalty at one grid point where the pair overlaps, into the pair's points
 * (self->grid): eq. 2's force, or on one body's face alone (`face`: density_contact_kind)
 * its part along that face's normal n, P F with P = n n^T; its one-body derivatives (the
 * projection's P K: a mesh's face is flat, so its density's Hessian lies along n and a
 * move of either body leaves n as it is, but for the face's turn); the damping along its
 * gradient (beta times the point's spring, a stiffness-proportional damping of the normal
 * motion; the tangential one is the friction's) and what bounds its friction. Eq. 2 under
 * a box's edge resting on a face points half along the edge's rounded density, sideways:
 * on a box sliding down a slope it pushed the leading edge uphill, below the centre of
 * mass, and tipped the box over (mu 0.5 on atan (1.3 mu), where a cube cannot tip). */
static void
penalty_point (Eulerian *self, const CwbContactQuery *query, const CwbGeometry *g[2],
               PairContact *pair, GridContact *contact, const DensitySample sample[2],
               const double r[3], int face, double kv, double beta)
{
  double gradient[3], va[3], vb[3];
  double push = 0.5 * kv * density_overlap (&sample[0], &sample[1]);
  cwb_v3_sub (gradient, sample[0].gradient, sample[1].gradient);
  density_penalty_force (kv, &sample[0], &sample[1], contact->force);
  for (int moving = 0; moving < 2; moving++)
    density_penalty_body_stiffness (kv, &sample[0], &sample[1], moving, contact->k[moving]);
  /* Side s's gradient turns by d grad_s = turn_s dn_s (sample_at's GridPoint.turn): eq. 2
   * changes by push (+-) turn_s dn_s. */
  for (int side = 0; side < 2; side++)
    {
      memset (contact->turn_gain[side], 0, sizeof contact->turn_gain[side]);
      for (int c = 0; c < 3; c++)
        contact->turn_gain[side][4 * c] = (side == 0 ? push : -push)
                                          * contact->moves[side].turn;
    }
  if (face >= 0)
    {
      /* F = push (n . g) n. Under the face's turn dn (n . dn = 0, and n . d g = 0 as the
       * face's gradient turns with it): dF = push (n g^T + (n . g) I) dn, dn carrying the
       * sign of n against the face's normal; under the other side's, P push d g. */
      double n[3], projector[9], k[9], raw[3], along;
      cwb_v3_copy (raw, gradient);
      cwb_v3_copy (n, sample[face].gradient);
      cwb_v3_normalize (n);
      along = cwb_v3_dot (gradient, n);
      for (int row = 0; row < 3; row++)
        for (int c = 0; c < 3; c++)
          projector[3 * row + c] = n[row] * n[c];
      cwb_v3_scale (contact->force, n, cwb_v3_dot (contact->force, n));
      cwb_v3_scale (gradient, n, along);
      for (int moving = 0; moving < 2; moving++)
        {
          cwb_m3_mul (k, projector, contact->k[moving]);
          memcpy (contact->k[moving], k, sizeof k);
        }
      int other = 1 - face;
      cwb_m3_mul (k, projector, contact->turn_gain[other]);
      memcpy (contact->turn_gain[other], k, sizeof k);
      double sign = contact->moves[face].turn >= 0 ? push : -push;
      for (int row = 0; row < 3; row++)
        for (int c = 0; c < 3; c++)
          contact->turn_gain[face][3 * row + c] = sign * (n[row] * raw[c] + (row == c ? along : 0));
    }
  cwb_v3_copy (contact->elastic, contact->force);
  grid_point_velocity (g[0], &contact->moves[0], va);
  grid_point_velocity (g[1], &contact->moves[1], vb);
  cwb_v3_sub (contact->velocity, va, vb);
  contact->spring = 0.25 * kv * cwb_v3_dot (gradient, gradient);
  contact->dashpot = 0.25 * kv * beta;
  cwb_v3_copy (contact->gradient, gradient);
  cwb_v3_copy (contact->position, r);
  cwb_v3_axpy (contact->force, -contact->dashpot * cwb_v3_dot (gradient, contact->velocity),
               gradient);
  contact_bearing (contact, self->implicit, query->h, va, vb);
  /* Its load, the friction's weight: made its share of the pair's by add_pair_friction. */
  contact->share = cwb_v3_norm (contact->force);
  g_array_append_val (self->grid, *contact);
  cwb_v3_axpy (pair->center, contact->share, r);
  pair->weight += contact->share;
}

/* The lattice cell of `points` grid points a side holding the grid point r (on the
 * lattice k h): its three indices packed, 21 bits each. */
static gint64
cell_key (const double r[3], double h, int points)
{
  gint64 key = 0;
  for (int c = 0; c < 3; c++)
    {
      gint64 i = (gint64) llround (r[c] / h);
      i = i >= 0 ? i / points : -((points - 1 - i) / points);
      key |= (i & 0x1fffff) << (21 * c);
    }
  return key;
}

static gint
compare_cells (gconstpointer a, gconstpointer b)
{
  gint64 ka = ((const GridContact *) a)->cell, kb = ((const GridContact *) b)->cell;
  return (ka > kb) - (ka < kb);
}

/* The pair's friction by cells of `friction_cell` grid points a side (add_pair_friction on
 * each, its points' shares of its load), then every point's forces and blocks. One friction
 * for the whole pair acts on its mean motion and twist only: the arcs of a soft ring under a
 * block swung against each other with nothing to hold them (docs/plugins/eulerian.md).
 * Each cell becomes one of the set's frames. */
static void
add_friction_cells (Eulerian *self, const CwbContactQuery *query, const uint32_t geometry[2],
                    const CwbGeometry *g[2], const PairContact *whole, double beta)
{
  guint n = self->grid->len;
  GridContact *grid = (GridContact *) self->grid->data;
  for (guint k = 0; k < n; k++)
    grid[k].cell = self->friction_points > 0
                     ? cell_key (grid[k].position, self->step, self->friction_points)
                     : 0;
  if (self->friction_points > 0)
    g_array_sort (self->grid, compare_cells);
  grid = (GridContact *) self->grid->data;
  gboolean one_cell = n == 0 || grid[0].cell == grid[n - 1].cell;
  for (guint start = 0, end; start < n; start = end)
    {
      for (end = start + 1; end < n && grid[end].cell == grid[start].cell; end++)
        ;
      PairContact cell = *whole;
      cell.cell = self->friction_points > 0 ? (guint64) grid[start].cell + 1 : 0;
      cell.weight = cell.volume = cell.deepest = 0;
      memset (cell.center, 0, sizeof cell.center);
      for (guint k = start; k < end; k++)
        {
          cwb_v3_axpy (cell.center, grid[k].share, grid[k].position);
          cell.weight += grid[k].share;
          cell.volume += grid[k].volume;
          cell.deepest = MAX (cell.deepest, grid[k].depth);
        }
      if (cell.weight > 0)
        {
          cwb_v3_scale (cell.center, cell.center, 1 / cell.weight);
          add_pair_friction (self, query, &cell, grid + start, end - start, one_cell, beta);
        }
      gboolean local_friction = self->stiffness_blocks
                                && !add_pair_friction_damping (self, query, geometry, &cell);
      for (guint k = start; k < end; k++)
        {
          add_point_forces (self, geometry, grid[k].moves, grid[k].force);
          if (self->stiffness_blocks)
            {
              add_point_stiffness (self, geometry, g, &grid[k], self->exact_stiffness);
              add_point_damping (self, query, geometry, &cell, &grid[k], local_friction);
            }
        }
      g_array_append_val (self->pairs, cell);
    }
}

/* One pair: its box, both densities, the forces at every overlapping point. FALSE (with a
 * message) when the box would be too large. */
static gboolean
detect_pair (Eulerian *self, const CwbContactQuery *query, uint32_t a, uint32_t b,
             GError **error)
{
  const uint32_t geometry[2] = { a, b };
  const CwbGeometry *g[2] = { &query->geometries[a], &query->geometries[b] };
  double lo[2][3], hi[2][3], min[3], max[3];
  /* A geometry whose points move apart (a fluid's particles, ABI 1.21) meets the rows in
   * cells no wider than its particles (cell_constraints_begin_pair), and in the velocity
   * pass alone: a position pass moves points without changing their velocities, and a
   * fluid's next pressure solve reads such a move of a few particles, into their
   * neighbours, as compression and turns it into velocity within its step, energy from
   * nowhere at every step. Its velocity pass's rows (the margin's among them) stop the
   * particles at contact. */
  int cell_points = self->cell_points;
  for (int s = 0; s < 2; s++)
    if (cwb_contact_query_points_apart (query, g[s]))
      {
        if (self->rows && query->pass == CWB_CONTACT_PASS_POSITION)
          return TRUE;
        double particle = particle_density_side (g[s]);
        cell_points = MIN (cell_points, MAX ((int) floor (particle / self->step), 1));
      }
  for (int s = 0; s < 2; s++)
    {
      /* Where the density reaches: the surface's box, or the particles' centres' widened by
       * their kernels. */
      cwb_geometry_bounds (g[s], lo[s], hi[s]);
      double widen = g[s]->kind == CWB_GEOMETRY_PARTICLES
                       ? particle_density_reach (g[s], self->step) : 0;
      for (int c = 0; c < 3; c++)
        {
          lo[s][c] -= widen;
          hi[s][c] += widen;
        }
    }
  double reach = self->step;
  for (int c = 0; c < 3; c++)
    {
      min[c] = MAX (lo[0][c], lo[1][c]) - reach;
      max[c] = MIN (hi[0][c], hi[1][c]) + reach;
      if (min[c] > max[c])
        return TRUE;
    }
  GridBox box;
  if (!grid_box_cover (&box, self->step, min, max, 2, MAX_BOX_POINTS))
    {
      g_set_error (error, EULERIAN_ERROR, 0,
                   "eulerian: bodies %u and %u overlap over more than %u grid points at the "
                   "step %g m; raise cell_size",
                   g[0]->body, g[1]->body, MAX_BOX_POINTS, self->step);
      return FALSE;
    }
  sample_pair (self, query, geometry, &box);
  GArray *apexes[2] = { geometry_apexes (self, a), geometry_apexes (self, b) };
  double stiffness = self->rows ? 0
                     : pair_stiffness (self, query, a, b,
                                       self->implicit ? pair_footprint (self, query, a, b, &box)
                                                      : 0);
  double volume = box.step * box.step * box.step;
  double kv = stiffness * volume;
  double beta = self->damping_param >= 0 ? self->damping_param : query->h;
  PairContact pair = {
    .a = a, .b = b, .stiffness = stiffness,
    .mu = cwb_friction_combine (g[0]->body < query->n_bodies ? query->friction[g[0]->body] : 0,
                                g[1]->body < query->n_bodies ? query->friction[g[1]->body] : 0),
  };
  g_array_set_size (self->grid, 0);
  g_array_set_size (self->crossed, 0);
  double sure_normal[3] = { 0, 0, 0 };   /* sum of rho_bar n over the points sure of it */
  cell_constraints_begin_pair (self->constraints, cell_points);
  for (int k = 0; k < box.n[2]; k++)
    for (int j = 0; j < box.n[1]; j++)
      for (int i = 0; i < box.n[0]; i++)
        {
          size_t p = grid_box_index (&box, i, j, k);
          double rho_a = g_array_index (self->density[0]->rho, double, p);
          double rho_b = g_array_index (self->density[1]->rho, double, p);
          /* rho_a + rho_b - 1: the overlap where positive; within the margin (rows only)
           * a point of both transitions whose gap, -excess over the densities' rate along
           * the normal, can be under the margin: each density's slope is at most 2 / h
           * (1.5 / (2 h) for a surface's step, 1 / h a particle tent's per axis). */
          double excess = rho_a + rho_b - 1;
          if (rho_a > 0 && rho_b > 0 && grid_mask_active (&self->hierarchy->mask, i, j, k))
            add_density_voxels (self, g, &box, i, j, k, rho_a, rho_b);
          gboolean near = self->margin > 0 && rho_a > 0 && rho_b > 0
                          && excess > -2 * self->margin / box.step;
          if (!(excess > 0) && !near)
            continue;
          DensitySample sample[2];
          GridContact contact = { 0 };
          for (int s = 0; s < 2; s++)
            sample_at (self->density[s], g[s], apexes[s], i, j, k, &sample[s],
                       &contact.moves[s]);
          double overlap = density_overlap (&sample[0], &sample[1]);
          double r[3];
          grid_box_point (&box, i, j, k, r);
          gboolean on_face[2] = {
            g_array_index (self->density[0]->on_face, guint8, p),
            g_array_index (self->density[1]->on_face, guint8, p),
          };
          if (self->rows)
            cell_constraints_add (self->constraints, a, b, pair.mu, contact.moves, r, sample,
                                  on_face, excess, self->margin, volume);
          if (!(overlap > 0))
            continue;
          contact.volume = overlap * volume;
          pair.volume += contact.volume;
          CwbInspectVoxel voxel = {
            .kind = CWB_VOXEL_INTERSECTION, .body_a = g[0]->body, .body_b = g[1]->body,
            .center = { r[0], r[1], r[2] }, .size = { box.step, box.step, box.step },
            .value = overlap,
          };
          g_array_append_val (self->voxels, voxel);
          double gradient[3];
          cwb_v3_sub (gradient, sample[0].gradient, sample[1].gradient);
          double slope = cwb_v3_norm (gradient);
          if (!(slope > 0))
            continue;
          /* How far the bodies would have to part along g to clear the point (as a
           * constraint's gap, cell_constraints.h): what the report calls its depth. */
          contact.depth = MIN (2 * overlap / slope, 2 * self->step);
          pair.deepest = MAX (pair.deepest, contact.depth);
          CwbInspectVector arrow = {
            .kind = CWB_VECTOR_DENSITY_GRADIENT, .geometry = a, .point = contact.moves[0].point[0],
            .origin = { r[0], r[1], r[2] },
          };
          cwb_v3_scale (arrow.vector, gradient, box.step);
          g_array_append_val (self->vectors, arrow);
          if (self->rows)
            continue;
          DensityContact kind = density_contact_kind (&sample[0], &sample[1], on_face);
          if (kind == DENSITY_CONTACT_CROSSED)
            {
              /* On two faces: which one carries it waits for the pair's sure normal. */
              CrossedPenalty crossed = { .contact = contact };
              memcpy (crossed.sample, sample, sizeof crossed.sample);
              cwb_v3_copy (crossed.position, r);
              g_array_append_val (self->crossed, crossed);
              continue;
            }
          int face = kind == DENSITY_CONTACT_FACE_A ? 0 : kind == DENSITY_CONTACT_FACE_B ? 1 : -1;
          penalty_point (self, query, g, &pair, &contact, sample, r, face, kv, beta);
          if (kind == DENSITY_CONTACT_AVERAGED || face >= 0)
            {
              double normal[3];
              cwb_v3_copy (normal, contact.gradient);
              cwb_v3_normalize (normal);
              cwb_v3_axpy (sure_normal, overlap, normal);
            }
        }
  for (guint c = 0; c < self->crossed->len; c++)
    {
      CrossedPenalty *crossed = &g_array_index (self->crossed, CrossedPenalty, c);
      penalty_point (self, query, g, &pair, &crossed->contact, crossed->sample,
                     crossed->position,
                     density_crossed_face (&crossed->sample[0], &crossed->sample[1],
                                           sure_normal),
                     kv, beta);
    }
  if (self->rows)
    cell_constraints_end_pair (self->constraints);
  if (self->rows || !(pair.weight > 0))
    return TRUE;
  self->volume += pair.volume;
  self->deepest = MAX (self->deepest, pair.deepest);
  cwb_v3_scale (pair.center, pair.center, 1 / pair.weight);
  add_friction_cells (self, query, geometry, g, &pair, beta);
  return TRUE;
}

static gboolean
eulerian_detect (void *data, const CwbContactQuery *query, GError **error)
{
  Eulerian *self = data;
  /* The automatic step is taken once per attachment (and parameter change): derived at
   * every detection, it followed the bounding boxes of turning bodies, and a lattice that
   * moves from step to step changes every density under bodies at rest. */
  if (!(self->step > 0))
    self->step = resolve_step (self, query);
  /* A face of a fixed surface closer than half a step to another fixed surface bounds no
   * free space for the grid: the seams of a tank of abutting walls (covered_faces.h). */
  covered_faces_update (self->covered, query, 0.5 * self->step);
  uint32_t solves = CWB_STRUCT_HAS (query, CwbContactQuery, solves) ? query->solves : 0;
  self->rows = self->response == RESPONSE_CONSTRAINT
               || (self->response == RESPONSE_AUTOMATIC && (solves & CWB_CONTACT_OUTPUT_ROWS));
  self->implicit = CWB_STRUCT_HAS (query, CwbContactQuery, forces_implicit)
                   && query->forces_implicit;
  self->margin = !self->rows            ? 0
                 : self->margin_param >= 0 ? self->margin_param
                                          : MIN (MARGIN_OF_STEP * self->step,
                                                 detection_automatic_margin (query));
  cell_constraints_begin (self->constraints, self->step, self->cell_points);
  g_array_set_size (self->pairs, 0);
  self->volume = self->deepest = 0;
  g_array_set_size (self->forces, 0);
  g_array_set_size (self->stiffness, 0);
  g_array_set_size (self->damping, 0);
  g_array_set_size (self->voxels, 0);
  g_array_set_size (self->vectors, 0);
  g_array_set_size (self->cells, 0);
  /* The mobilities size the penalty's stiffness; constraints need none (and measuring one
   * costs a deformable body a factorisation). */
  if (!self->rows)
    {
      if (self->scales->len != query->n_geometries)
        forget_scales (self, query->n_geometries);
      measure_scales (self, query);
    }
  gboolean velocity_pass = query->pass == CWB_CONTACT_PASS_VELOCITY;
  if (velocity_pass)
    {
      pair_friction_begin (self->friction);
      self->velocity_passes++;
    }
  for (uint32_t a = 0; a < query->n_geometries; a++)
    for (uint32_t b = a + 1; b < query->n_geometries; b++)
      {
        const CwbGeometry *ga = &query->geometries[a], *gb = &query->geometries[b];
        if (ga->body == gb->body
            || (cwb_contact_query_geometry_fixed (query, ga)
                && cwb_contact_query_geometry_fixed (query, gb)))
          continue;
        if (!detect_pair (self, query, a, b, error))
          {
            if (velocity_pass)
              pair_friction_end (self->friction);
            return FALSE;
          }
      }
  if (velocity_pass)
    pair_friction_end (self->friction);
  return TRUE;
}

/* One frame per pair: the resultant, along its own direction, at the points' force-weighted
 * centre; its gap is minus the deepest of its points' depths (2 rho_bar / |g|, how far the
 * bodies would have to part along g to clear the point), its volume sum rho_bar V. */
static gboolean
eulerian_model (void *data, const CwbContactQuery *query, CwbContactSet *set,
                CwbInspection *inspection, GError **error)
{
  (void) error;
  Eulerian *self = data;
  g_array_append_vals (inspection->voxels, self->voxels->data, self->voxels->len);
  g_array_append_vals (inspection->vectors, self->vectors->data, self->vectors->len);
  g_array_append_vals (inspection->cells, self->cells->data, self->cells->len);
  if (self->levels_param <= 0)
    cwb_inspection_add_derived (inspection, "levels", AUTOMATIC_LEVELS);
  if (!(self->step_param > 0))
    cwb_inspection_add_derived (inspection, "cell_size", self->step);
  if (self->rows && self->margin_param < 0)
    cwb_inspection_add_derived (inspection, "margin", self->margin);
  if (self->rows)
    {
      cell_constraints_write (self->constraints, query, set);
      return TRUE;
    }
  double smallest_stiffness = INFINITY;
  for (guint k = 0; k < self->pairs->len; k++)
    {
      const PairContact *pair = &g_array_index (self->pairs, PairContact, k);
      const CwbGeometry *ga = &query->geometries[pair->a], *gb = &query->geometries[pair->b];
      CwbContactFrame frame = {
        .mu = pair->mu,
        .body_a = ga->body,
        .body_b = gb->body,
        .gap = -pair->deepest,
        .volume = pair->volume,
        .state = pair->slips ? CWB_CONTACT_SLIP : CWB_CONTACT_STICK,
      };
      cwb_v3_copy (frame.origin, pair->center);
      cwb_v3_copy (frame.normal, pair->normal);
      cwb_v3_tangents (frame.normal, frame.t1, frame.t2);
      frame.force[0] = pair->normal_force;
      frame.force[1] = cwb_v3_dot (pair->friction, frame.t1);
      frame.force[2] = cwb_v3_dot (pair->friction, frame.t2);
      g_array_append_val (set->frames, frame);
      guint64 id = cwb_contact_id_mix (((guint64) pair->a << 32) | pair->b);
      cwb_contact_set_add_id (set, pair->cell != 0 ? cwb_contact_id_mix (id ^ pair->cell) : id);
      smallest_stiffness = MIN (smallest_stiffness, pair->stiffness);
    }
  g_array_append_vals (set->forces, self->forces->data, self->forces->len);
  if (set->stiffness != NULL)
    g_array_append_vals (set->stiffness, self->stiffness->data, self->stiffness->len);
  if (CWB_STRUCT_HAS (set, CwbContactSet, damping) && set->damping != NULL)
    g_array_append_vals (set->damping, self->damping->data, self->damping->len);
  set->intersection_volume = self->volume;
  set->max_penetration = self->deepest;
  if (!(self->stiffness_param > 0) && isfinite (smallest_stiffness))
    cwb_inspection_add_derived (inspection, "stiffness", smallest_stiffness);
  return TRUE;
}

/* The memory between steps is the pairs' friction springs. */
static GBytes *
eulerian_save_state (void *data)
{
  return pair_friction_save (((Eulerian *) data)->friction);
}

static gboolean
eulerian_restore_state (void *data, GBytes *state, GError **error)
{
  return pair_friction_restore (((Eulerian *) data)->friction, state, error);
}

/* Forces (any solver that integrates forces) or rows (the constraint solver); left
 * automatic, the model follows the solver and declares nothing to solve. Its forces, the
 * paper's penalty, are meant for an implicit step (ABI 1.19's hint): sized by the load
 * there, by stability otherwise. */
static uint32_t
eulerian_outputs (void *data)
{
  const Eulerian *self = data;
  switch (self->response)
    {
    case RESPONSE_PENALTY:
      return CWB_CONTACT_OUTPUT_FORCES | CWB_CONTACT_OUTPUT_IMPLICIT_FORCES;
    case RESPONSE_CONSTRAINT:
      return CWB_CONTACT_OUTPUT_ROWS;
    case RESPONSE_AUTOMATIC:
    default:
      return CWB_CONTACT_OUTPUT_IMPLICIT_FORCES;
    }
}

static const CwbContactModelVTable eulerian_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = eulerian_create,
  .destroy = eulerian_destroy,
  .attach = eulerian_attach,
  .detect = eulerian_detect,
  .model = eulerian_model,
  .params_changed = eulerian_params_changed,
  .save_state = eulerian_save_state,
  .restore_state = eulerian_restore_state,
  .outputs = eulerian_outputs,
};

static const CwbPluginDesc eulerian_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_CONTACT_MODEL,
  .name = "eulerian",
  .version = "0.1.0",
  .summary = "Eulerian density-grid contact: bodies sampled as densities in a common grid, "
             "constraints or penalty forces where they overlap (Faure 2007)",
  .params = eulerian_params,
  .n_params = G_N_ELEMENTS (eulerian_params),
  .vtable = &eulerian_vtable,
};

CWB_DEFINE_PLUGIN (eulerian_desc)

/* The penalty contact model `penalty`: Spillmann et al. 2007's predictor-corrector penalty
 * forces with Lazarevych et al.'s force post-correction and time-coherent static friction.
 * It returns forces (and their stiffness), never constraint rows: any solver that applies a
 * contact set's point forces integrates it (the predictor-corrector solver re-integrates
 * with them, the constraint solver applies them through the bodies' compliance).
 *
 * One model() call, for the configuration the solver predicted (positions and velocities
 * after free motion, i.e. at t + dt):
 *   1. collisions (point i, triangle T_i) with depth vectors d_i (collision_detection.c);
 *   2. effective masses m_i, m_j along each depth direction from the host's point_response;
 *   3. F_i = (m_i / dt^2) eps_i d_i (eq. 3-5, contact_force.c), then a group guard: the
 *      forces are applied together, and a contact whose point the whole set would move past
 *      its surface (several contacts on one rigid body each sized as if alone) is scaled back
 *      to close its own penetration;
 *   4. the post-correction (eq. 6) distributes each F_i: half on i, half on T_i;
 *   5. friction per contact (eq. 7-19, static_friction.c), distributed on T_i by its
 *      barycentric weights without the post-correction's scaling (sec. 4.1).
 * The relative velocities the friction law needs ("after the forces") are predicted with
 * point_response, which is exactly what the solvers do with the forces. */
#include <cwb/cwb.h>

#include "collision_detection.h"
#include "contact_force.h"
#include "static_friction.h"

/* A contact's relative tangential velocity below this (m/s) is "zero within acceptable
 * error" (Lazarevych sec. 4.2): no direction can be taken from it, and no friction force is
 * needed to keep it. 1e-12 m/s is a picometre per second: far below anything visible, far
 * above the round-off of velocities of order 1 m/s. */
#define PENALTY_VELOCITY_EPSILON 1e-12
/* A contact whose relative tangential velocity after the step's forces exceeds this (m/s)
 * is shown as sliding: the criterion for "sticks" (below 1e-6 m/s). */
#define PENALTY_SLIP_VELOCITY 1e-6
/* A friction force within this relative distance of mu f_n is on the cone (dynamic): the
 * disk solve puts a sliding force there to 1e-14, a sticking one is inside by far more. */
#define PENALTY_CONE_TOLERANCE 1e-9

typedef struct Contact {
  PenaltyPair pair;
  double normal[3];       /* d_i / |d_i| */
  double depth;           /* |d_i| */
  double mu;
  double force[3];        /* F_i: the collision's normal force before the post-correction */
  double tangent[3];      /* u~ / |u~| (zero when there is no sliding to oppose) */
  double base_velocity[3];/* relative velocity with the normal forces applied, no friction */
  double gamma;           /* eq. 13 (1 when sliding) */
  double friction;        /* the friction force's magnitude, opposing `tangent` */
  gboolean sticks;        /* static friction applied: its scaling is iterated after */
  CwbContactState contact_state;
} Contact;

typedef struct Penalty {
  DetectionParams detection;
  gboolean static_friction;
  FrictionIteration iteration;
  double alpha;
  int friction_sweeps;
  CollisionDetector *detector;
  FrictionMemory *memory;
  PenaltyNormalisation *norm;
  GArray *candidates;   /* ContactCandidate */
  GArray *contacts;     /* Contact */
  GArray *forces;       /* CwbPointWeight, scratch for point_response */
  GArray *at;           /* CwbPointWeight, 4 per contact: i, then T_i's vertices */
  GArray *dp;           /* double, 3 per entry of at */
  GArray *normal_forces;/* double, 3 per contact */
  GArray *pairs;        /* PenaltyPair, scratch */
  GArray *rel;          /* double, 3 per contact: relative responses */
  GArray *rel_friction; /* double, 3 per contact: response to the friction decided so far */
  GArray *by_geometry_start, *by_geometry;   /* contacts touching each geometry (CSR) */
  GArray *stamp;        /* guint per contact, to list a contact once */
  GArray *movable;      /* gboolean per geometry: some contact measured a finite mass on it */
  guint stamp_now;
  GArray *affected;     /* guint: contacts a friction force can move */
  GArray *spread_at, *spread_dp;             /* point_response scratch for them */
} Penalty;

static const CwbParamSpec penalty_params[] = {
  { "static_friction", CWB_PARAM_BOOL, "", "true", 1, 0, NULL,
    "Static friction with its time-coherent stabilisation (Lazarevych sec. 4.2); false "
    "gives Spillmann 2007's original, always dynamic friction, to compare" },
  { "iteration", CWB_PARAM_ENUM, "", "fixed_point", 1, 0, "fixed_point|secant",
    "How the per-contact friction scaling is iterated, one step per time step: relaxed "
    "fixed point (eq. 16-18) or secant (eq. 19)" },
  { "alpha", CWB_PARAM_DOUBLE, "s/m", "-0.1", -1, 1, NULL,
    "Relaxation of the fixed-point iteration (eq. 17); the paper's best is -0.1" },
  { "friction_sweeps", CWB_PARAM_INT, "1", "10", 1, 1000, NULL,
    "Passes over the contacts per step when sizing friction: the paper makes one (each force "
    "distributed before the next contact); the contacts of a rigid body share its sliding, "
    "so they need a few to agree" },
  DETECTION_PARAM_SPECS,
};

static void
read_params (Penalty *self, const CwbParamSet *params)
{
  self->static_friction = cwb_param_bool (params, "static_friction", TRUE);
  self->iteration = cwb_param_int (params, "iteration", 0) == 1 ? FRICTION_SECANT
                                                                : FRICTION_FIXED_POINT;
  self->alpha = cwb_param_double (params, "alpha", -0.1);
  self->friction_sweeps = (int) cwb_param_int (params, "friction_sweeps", 10);
  detection_params_read (&self->detection, params);
}

static void *
penalty_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                GError **error)
{
  Penalty *self = g_new0 (Penalty, 1);
  read_params (self, info->params);
  self->detector = collision_detector_new ();
  self->memory = friction_memory_new ();
  self->norm = penalty_normalisation_new ();
  self->candidates = g_array_new (FALSE, FALSE, sizeof (ContactCandidate));
  self->contacts = g_array_new (FALSE, TRUE, sizeof (Contact));
  self->forces = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  self->at = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  self->dp = g_array_new (FALSE, FALSE, sizeof (double));
  self->normal_forces = g_array_new (FALSE, FALSE, sizeof (double));
  self->pairs = g_array_new (FALSE, FALSE, sizeof (PenaltyPair));
  self->rel = g_array_new (FALSE, FALSE, sizeof (double));
  self->rel_friction = g_array_new (FALSE, FALSE, sizeof (double));
  self->by_geometry_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  self->by_geometry = g_array_new (FALSE, FALSE, sizeof (guint));
  self->stamp = g_array_new (FALSE, TRUE, sizeof (guint));
  self->movable = g_array_new (FALSE, TRUE, sizeof (gboolean));
  self->affected = g_array_new (FALSE, FALSE, sizeof (guint));
  self->spread_at = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  self->spread_dp = g_array_new (FALSE, FALSE, sizeof (double));
  return self;
}

static void
penalty_destroy (void *data)
{
  Penalty *self = data;
  collision_detector_free (self->detector);
  friction_memory_free (self->memory);
  penalty_normalisation_free (self->norm);
  g_array_unref (self->candidates);
  g_array_unref (self->contacts);
  g_array_unref (self->forces);
  g_array_unref (self->at);
  g_array_unref (self->dp);
  g_array_unref (self->normal_forces);
  g_array_unref (self->pairs);
  g_array_unref (self->rel);
  g_array_unref (self->rel_friction);
  g_array_unref (self->by_geometry_start);
  g_array_unref (self->by_geometry);
  g_array_unref (self->stamp);
  g_array_unref (self->movable);
  g_array_unref (self->affected);
  g_array_unref (self->spread_at);
  g_array_unref (self->spread_dp);
  g_free (self);
}

static void
penalty_params_changed (void *self, const CwbParamSet *params)
{
  read_params (self, params);
}

static gboolean
penalty_attach (void *data, const CwbContactQuery *query, GError **error)
{
  Penalty *self = data;
  if (!CWB_STRUCT_HAS (query, CwbContactQuery, point_response) || query->point_response == NULL)
    {
      g_set_error_literal (error, g_quark_from_static_string ("penalty"), 0,
                           "the penalty model needs a host of ABI 1.1 or later (point_response)");
      return FALSE;
    }
  if (!detection_check_geometries (query->geometries, query->n_geometries, "penalty", error))
    return FALSE;
  /* A new attachment (a swap, a reload) starts without friction memory. */
  friction_memory_clear (self->memory);
  return TRUE;
}

static gboolean
penalty_detect (void *data, const CwbContactQuery *query, GError **error)
{
  Penalty *self = data;
  collision_detector_run (self->detector, query->geometries, query->n_geometries,
                          &self->detection, self->candidates);
  return TRUE;
}

/* ---- the bodies' response ---------------------------------------------------------- */

/* The mass point (geometry, point) shows along n over one step: dt^2 / (n . J C J^T n);
 * INFINITY when it cannot move. */
static double
effective_mass (const CwbContactQuery *query, uint32_t geometry, uint32_t point,
                const double n[3])
{
  CwbPointWeight force = { .geometry = geometry, .point = point };
  cwb_v3_copy (force.w, n);
  CwbPointWeight at = { .geometry = geometry, .point = point };
  double dp[3];
  query->point_response (query->host_data, &force, 1, &at, 1, dp);
  double mobility = cwb_v3_dot (n, dp);
  return mobility > 0 ? query->h * query->h / mobility : INFINITY;
}

/* Fills self->at with the 4 points of every contact: i, then T_i's vertices. */
static void
set_response_points (Penalty *self)
{
  GArray *contacts = self->contacts;
  g_array_set_size (self->at, 4 * contacts->len);
  for (guint k = 0; k < contacts->len; k++)
    {
      const PenaltyPair *p = &g_array_index (contacts, Contact, k).pair;
      CwbPointWeight *at = &g_array_index (self->at, CwbPointWeight, 4 * k);
      at[0] = (CwbPointWeight){ .geometry = p->point_geometry, .point = p->point };
      for (int v = 0; v < 3; v++)
        at[1 + v] = (CwbPointWeight){ .geometry = p->surface_geometry, .point = p->vertices[v] };
    }
}

/* The displacement of every contact's point relative to its triangle location,
 * dp_i - sum_j h_ij dp_j, caused by self->forces acting together. rel: 3 per contact. */
static void
relative_response (Penalty *self, const CwbContactQuery *query, double *rel)
{
  size_t n_at = self->at->len;
  g_array_set_size (self->dp, 3 * MAX (n_at, 1));
  double *dp = (double *) self->dp->data;
  query->point_response (query->host_data, (const CwbPointWeight *) self->forces->data,
                         self->forces->len, (const CwbPointWeight *) self->at->data, n_at, dp);
  for (guint k = 0; k < self->contacts->len; k++)
    {
      const PenaltyPair *p = &g_array_index (self->contacts, Contact, k).pair;
      const double *d = &dp[12 * k];
      cwb_v3_copy (&rel[3 * k], d);
      for (int v = 0; v < 3; v++)
        cwb_v3_axpy (&rel[3 * k], -p->bary[v], &d[3 + 3 * v]);
    }
}

/* ---- the forces ---------------------------------------------------------------------- */

/* Collisions to contacts: geometry, masses, friction coefficient. Pairs where neither side
 * can move are dropped. */
static void
build_contacts (Penalty *self, const CwbContactQuery *query)
{
  g_array_set_size (self->contacts, 0);
  g_array_set_size (self->movable, MAX (query->n_geometries, 1));
  gboolean *movable = (gboolean *) self->movable->data;
  memset (movable, 0, self->movable->len * sizeof (gboolean));
  for (guint k = 0; k < self->candidates->len; k++)
    {
      const ContactCandidate *c = &g_array_index (self->candidates, ContactCandidate, k);
      const CwbGeometry *surface = &query->geometries[c->surface_geometry];
      Contact contact = { .pair = {
        .point_geometry = c->point_geometry, .point = c->point,
        .surface_geometry = c->surface_geometry,
      } };
      memcpy (contact.pair.bary, c->bary, sizeof c->bary);
      memcpy (contact.pair.depth, c->depth, sizeof c->depth);
      for (int v = 0; v < 3; v++)
        contact.pair.vertices[v] = surface->triangles[3 * c->triangle + v];
      contact.depth = cwb_v3_norm (c->depth);
      if (!(contact.depth > 0))
        continue;
      cwb_v3_scale (contact.normal, c->depth, 1 / contact.depth);
      contact.pair.m_point = effective_mass (query, c->point_geometry, c->point, contact.normal);
      gboolean surface_moves = FALSE;
      for (int v = 0; v < 3; v++)
        {
          contact.pair.m_vertex[v] = effective_mass (query, c->surface_geometry,
                                                     contact.pair.vertices[v], contact.normal);
          surface_moves = surface_moves || !isinf (contact.pair.m_vertex[v]);
        }
      if (isinf (contact.pair.m_point) && !surface_moves)
        continue;
      movable[c->point_geometry] |= !isinf (contact.pair.m_point);
      movable[c->surface_geometry] |= surface_moves;
      uint32_t body_a = query->geometries[c->point_geometry].body;
      uint32_t body_b = surface->body;
      contact.mu = cwb_friction_combine (query->friction[body_a], query->friction[body_b]);
      g_array_append_val (self->contacts, contact);
    }
}

/* Sets self->forces to the post-corrected normal forces of all contacts. */
static void
set_normal_forces (Penalty *self)
{
  g_array_set_size (self->normal_forces, 3 * self->contacts->len);
  double *f = (double *) self->normal_forces->data;
  for (guint k = 0; k < self->contacts->len; k++)
    cwb_v3_copy (&f[3 * k], g_array_index (self->contacts, Contact, k).force);
  g_array_set_size (self->forces, 0);
  /* Contacts are Contact structs, not PenaltyPair arrays: correct one at a time. */
  for (guint k = 0; k < self->contacts->len; k++)
    penalty_post_correct (&g_array_index (self->contacts, Contact, k).pair, &f[3 * k], 1,
                          self->forces);
}

/* eq. 3-5, then the group guard. */
static void
normal_forces (Penalty *self, const CwbContactQuery *query, double *rel)
{
  GArray *contacts = self->contacts;
  g_array_set_size (self->pairs, contacts->len);
  for (guint k = 0; k < contacts->len; k++)
    g_array_index (self->pairs, PenaltyPair, k) = g_array_index (contacts, Contact, k).pair;
  penalty_normalisation_build (self->norm, (const PenaltyPair *) self->pairs->data,
                               contacts->len);
  for (guint k = 0; k < contacts->len; k++)
    {
      Contact *c = &g_array_index (contacts, Contact, k);
      penalty_contact_force (&c->pair, self->norm, query->h, c->force);
    }
  /* The guard: applied together, would the forces move a contact's point past its
   * surface? Then scale that contact back to its own penetration (one Jacobi step on the
   * coupling the per-contact formula ignores). */
  set_normal_forces (self);
  relative_response (self, query, rel);
  for (guint k = 0; k < contacts->len; k++)
    {
      Contact *c = &g_array_index (contacts, Contact, k);
      double closing = cwb_v3_dot (&rel[3 * k], c->normal);
      if (closing > c->depth)
        cwb_v3_scale (c->force, c->force, c->depth / closing);
    }
  set_normal_forces (self);
}

/* The relative velocity of contact k's point and triangle location in the predicted state. */
static void
predicted_relative_velocity (const CwbContactQuery *query, const Contact *c, double v[3])
{
  const CwbGeometry *a = &query->geometries[c->pair.point_geometry];
  const CwbGeometry *b = &query->geometries[c->pair.surface_geometry];
  cwb_v3_copy (v, &a->velocities[3 * c->pair.point]);
  for (int j = 0; j < 3; j++)
    cwb_v3_axpy (v, -c->pair.bary[j], &b->velocities[3 * c->pair.vertices[j]]);
}

/* The relative displacement of contact c (dp_i - sum_j h_ij dp_j) per unit force
 * +direction on i and -h_ij direction on T_i: one column of the pair's mobility. */
static void
pair_response (const CwbContactQuery *query, const Contact *c, const double direction[3],
               double rel[3])
{
  CwbPointWeight forces[4];
  forces[0] = (CwbPointWeight){ .geometry = c->pair.point_geometry, .point = c->pair.point };
  cwb_v3_copy (forces[0].w, direction);
  for (int j = 0; j < 3; j++)
    {
      forces[1 + j] = (CwbPointWeight){ .geometry = c->pair.surface_geometry,
                                        .point = c->pair.vertices[j] };
      cwb_v3_scale (forces[1 + j].w, direction, -c->pair.bary[j]);
    }
  double dp[12];
  query->point_response (query->host_data, forces, 4, forces, 4, dp);
  cwb_v3_copy (rel, dp);
  for (int j = 0; j < 3; j++)
    cwb_v3_axpy (rel, -c->pair.bary[j], &dp[3 + 3 * j]);
}

/* The contacts touching each movable geometry, so that a force's response is evaluated
 * only where it can act: at the contacts that share a moving body with it. A fixed body (the
 * ground, a basket) carries no list: it would tie every contact on it to every other. */
static void
index_contacts (Penalty *self, size_t n_geometries)
{
  GArray *contacts = self->contacts;
  const gboolean *movable = (const gboolean *) self->movable->data;
  g_array_set_size (self->by_geometry_start, n_geometries + 1);
  size_t *start = (size_t *) self->by_geometry_start->data;
  memset (start, 0, (n_geometries + 1) * sizeof (size_t));
  for (guint k = 0; k < contacts->len; k++)
    {
      const PenaltyPair *p = &g_array_index (contacts, Contact, k).pair;
      if (movable[p->point_geometry])
        start[p->point_geometry + 1]++;
      if (p->surface_geometry != p->point_geometry && movable[p->surface_geometry])
        start[p->surface_geometry + 1]++;
    }
  for (size_t g = 0; g < n_geometries; g++)
    start[g + 1] += start[g];
  g_array_set_size (self->by_geometry, start[n_geometries]);
  g_autofree size_t *fill = g_memdup2 (start, MAX (n_geometries, 1) * sizeof (size_t));
  for (guint k = 0; k < contacts->len; k++)
    {
      const PenaltyPair *p = &g_array_index (contacts, Contact, k).pair;
      if (movable[p->point_geometry])
        g_array_index (self->by_geometry, guint, fill[p->point_geometry]++) = k;
      if (p->surface_geometry != p->point_geometry && movable[p->surface_geometry])
        g_array_index (self->by_geometry, guint, fill[p->surface_geometry]++) = k;
    }
  g_array_set_size (self->stamp, MAX (contacts->len, 1));
  memset (self->stamp->data, 0, self->stamp->len * sizeof (guint));
  self->stamp_now = 0;
}

/* The four forces of a friction of magnitude f opposing `tangent` at contact c: -f u on i,
 * +h_ij f u on T_i (sec. 4.1: without the post-correction's scaling). */
static void
friction_pattern (const Contact *c, const double tangent[3], double f, CwbPointWeight forces[4])
{
  forces[0] = (CwbPointWeight){ .geometry = c->pair.point_geometry, .point = c->pair.point };
  cwb_v3_scale (forces[0].w, tangent, -f);
  for (int j = 0; j < 3; j++)
    {
      forces[1 + j] = (CwbPointWeight){ .geometry = c->pair.surface_geometry,
                                        .point = c->pair.vertices[j] };
      cwb_v3_scale (forces[1 + j].w, tangent, f * c->pair.bary[j]);
    }
}

/* acc[3 j] += the relative displacement that the n forces cause at every contact j that
 * shares a body with contact k (the only contacts they can move). */
static void
spread_forces (Penalty *self, const CwbContactQuery *query, guint k,
               const CwbPointWeight *forces, size_t n_forces, double *acc)
{
  const Contact *c = &g_array_index (self->contacts, Contact, k);
  const size_t *start = (const size_t *) self->by_geometry_start->data;
  guint *stamp = (guint *) self->stamp->data;
  self->stamp_now++;
  g_array_set_size (self->affected, 0);
  uint32_t geometries[2] = { c->pair.point_geometry, c->pair.surface_geometry };
  for (int side = 0; side < 2; side++)
    for (size_t e = start[geometries[side]]; e < start[geometries[side] + 1]; e++)
      {
        guint j = g_array_index (self->by_geometry, guint, e);
        if (stamp[j] == self->stamp_now)
          continue;
        stamp[j] = self->stamp_now;
        g_array_append_val (self->affected, j);
      }
  guint n = self->affected->len;
  g_array_set_size (self->spread_at, 4 * n);
  g_array_set_size (self->spread_dp, 12 * MAX (n, 1));
  for (guint a = 0; a < n; a++)
    memcpy (&g_array_index (self->spread_at, CwbPointWeight, 4 * a),
            &g_array_index (self->at, CwbPointWeight, 4 * g_array_index (self->affected, guint, a)),
            4 * sizeof (CwbPointWeight));
  double *dp = (double *) self->spread_dp->data;
  query->point_response (query->host_data, forces, n_forces,
                         (const CwbPointWeight *) self->spread_at->data, 4 * n, dp);
  for (guint a = 0; a < n; a++)
    {
      guint j = g_array_index (self->affected, guint, a);
      const PenaltyPair *p = &g_array_index (self->contacts, Contact, j).pair;
      const double *d = &dp[12 * a];
      cwb_v3_add (&acc[3 * j], &acc[3 * j], d);
      for (int v = 0; v < 3; v++)
        cwb_v3_axpy (&acc[3 * j], -p->bary[v], &d[3 + 3 * v]);
    }
}

/* The relative displacement at contact c of the forces (its own friction). */
static void
own_response (Penalty *self, const CwbContactQuery *query, guint k,
              const CwbPointWeight *forces, double rel_out[3])
{
  const PenaltyPair *p = &g_array_index (self->contacts, Contact, k).pair;
  const CwbPointWeight *at = &g_array_index (self->at, CwbPointWeight, 4 * k);
  double dp[12];
  query->point_response (query->host_data, forces, 4, at, 4, dp);
  cwb_v3_copy (rel_out, dp);
  for (int v = 0; v < 3; v++)
    cwb_v3_axpy (rel_out, -p->bary[v], &dp[3 + 3 * v]);
}

/* Sizes contact c's friction (eq. 7-14) against the sliding the others leave it, u_rest:
 * its relative velocity with the normal forces and every other friction applied.
 *
 * The paper's test works on the scalar projection along u~ (eq. 11-13), exact when the
 * pair's tangential mobility is isotropic (lumped masses). A rigid body's corner is not
 * isotropic (its response to a tangential push turns the body), so the same test is made
 * in the tangent plane: with w the pair's 2x2 tangential mobility (velocity per unit
 * force), f stops the sliding when w f = -u~; if that f lies inside the cone it is
 * gamma f_max with gamma < 1 (eq. 13: static friction), else the friction is f_max
 * opposing the remaining slip (eq. 7: dynamic friction). cwb_coulomb_disk_solve does both,
 * and reduces to eq. 11-13 exactly for an isotropic w. */
static void
size_friction (Penalty *self, const CwbContactQuery *query, Contact *c, const double u_rest[3])
{
  double f_n = 0.5 * cwb_v3_norm (c->force);   /* the pair's force after eq. 6 */
  double v[3];
  cwb_v3_copy (v, u_rest);
  cwb_v3_axpy (v, -cwb_v3_dot (v, c->normal), c->normal);
  double u_tilde = cwb_v3_norm (v);
  c->gamma = 1;
  c->friction = 0;
  c->sticks = FALSE;
  if (u_tilde <= PENALTY_VELOCITY_EPSILON || c->mu == 0 || f_n == 0)
    return;
  double f_max = c->mu * f_n;                                                  /* eq. 7 */
  if (!self->static_friction)
    {
      /* Spillmann 2007's friction, to compare: always dynamic, f_max against u~. */
      cwb_v3_scale (c->tangent, v, 1 / u_tilde);
      c->friction = f_max;
      return;
    }
  double t[2][3];
  cwb_v3_scale (t[0], v, 1 / u_tilde);
  cwb_v3_cross (t[1], c->normal, t[0]);
  double w[4];
  for (int b = 0; b < 2; b++)
    {
      double rel[3];
      pair_response (query, c, t[b], rel);
      for (int a = 0; a < 2; a++)
        w[2 * a + b] = cwb_v3_dot (t[a], rel) / query->h;
    }
  /* The force here is the friction itself (on i), so the slip it leaves is u~ + w f. */
  double slip[2] = { u_tilde, 0 }, f[2];
  cwb_coulomb_disk_solve (w, slip, f_max, f);
  double magnitude = hypot (f[0], f[1]);
  if (!(magnitude > 0))
    return;
  c->gamma = magnitude / f_max;                                                /* eq. 13 */
  gboolean sticks = c->gamma < 1 - PENALTY_CONE_TOLERANCE;
  double lambda = 1;
  if (sticks)
    {
      /* The pointer is used at once: a later lookup may insert and move the states. */
      FrictionState *state = friction_memory_lookup (
        self->memory, penalty_point_key (c->pair.point_geometry, c->pair.point),
        c->pair.surface_geometry);
      lambda = state->lambda;
      c->sticks = TRUE;
    }
  /* c->tangent: the direction the friction opposes (the force is -friction tangent). */
  for (int i = 0; i < 3; i++)
    c->tangent[i] = -(f[0] * t[0][i] + f[1] * t[1][i]) / magnitude;
  c->friction = MIN (lambda * c->gamma, 1) * f_max;                              /* eq. 14 */
}

/* Friction of every contact, one contact after the other as in the paper's implementation
 * (sec. 4.2: each force is distributed before the next contact is processed, "analogous to
 * Seidel's method"): a contact's u~ includes the friction already decided for the others,
 * so the contacts of one body do not each stop the same sliding. The paper makes one pass;
 * the corners of a rigid body are coupled strongly enough to need a few (friction_sweeps).
 * rel holds the normal forces' relative response. */
static void
friction_forces (Penalty *self, const CwbContactQuery *query, const double *rel)
{
  index_contacts (self, query->n_geometries);
  g_array_set_size (self->rel_friction, 3 * MAX (self->contacts->len, 1));
  double *rel_friction = (double *) self->rel_friction->data;
  memset (rel_friction, 0, self->rel_friction->len * sizeof (double));
  for (guint k = 0; k < self->contacts->len; k++)
    {
      Contact *c = &g_array_index (self->contacts, Contact, k);
      c->friction = 0;
      c->sticks = FALSE;
      /* The same in every sweep: the predicted velocity with the normal forces applied. */
      predicted_relative_velocity (query, c, c->base_velocity);
      cwb_v3_axpy (c->base_velocity, 1 / query->h, &rel[3 * k]);
      if (!self->static_friction)
        continue;
      /* Warm start: a lasting contact begins from last step's friction (in the current
       * tangent plane, inside the current cone), so the sweeps refine rather than rebuild
       * it; a resting stack then converges over the steps instead of within each one. */
      FrictionState *state = friction_memory_lookup (
        self->memory, penalty_point_key (c->pair.point_geometry, c->pair.point),
        c->pair.surface_geometry);
      double f[3];
      cwb_v3_copy (f, state->friction);
      cwb_v3_axpy (f, -cwb_v3_dot (f, c->normal), c->normal);
      double magnitude = cwb_v3_norm (f);
      double cone = c->mu * 0.5 * cwb_v3_norm (c->force);
      if (!(magnitude > 0) || !(cone > 0))
        continue;
      cwb_v3_scale (c->tangent, f, -1 / magnitude);
      c->friction = MIN (magnitude, cone);
      CwbPointWeight initial[4];
      friction_pattern (c, c->tangent, c->friction, initial);
      spread_forces (self, query, k, initial, 4, rel_friction);
    }
  for (int sweep = 0; sweep < self->friction_sweeps; sweep++)
    for (guint k = 0; k < self->contacts->len; k++)
      {
        Contact *c = &g_array_index (self->contacts, Contact, k);
        CwbPointWeight old_forces[4];
        double old_tangent[3], old_friction = c->friction;
        cwb_v3_copy (old_tangent, c->tangent);
        friction_pattern (c, old_tangent, old_friction, old_forces);
        double u[3], own[3] = { 0, 0, 0 };
        cwb_v3_copy (u, c->base_velocity);
        cwb_v3_axpy (u, 1 / query->h, &rel_friction[3 * k]);   /* every friction so far */
        if (old_friction != 0)
          {
            own_response (self, query, k, old_forces, own);
            cwb_v3_axpy (u, -1 / query->h, own);                 /* less its own */
          }
        size_friction (self, query, c, u);
        if (c->friction == old_friction && cwb_v3_dot (c->tangent, old_tangent) == 1)
          continue;
        /* Spread the change: the new friction less the old one. */
        CwbPointWeight change[8];
        friction_pattern (c, c->tangent, c->friction, change);
        friction_pattern (c, old_tangent, -old_friction, change + 4);
        spread_forces (self, query, k, change, old_friction != 0 ? 8 : 4, rel_friction);
      }
}

/* Appends every contact's friction to self->forces. */
static void
add_friction_forces (Penalty *self)
{
  for (guint k = 0; k < self->contacts->len; k++)
    {
      const Contact *c = &g_array_index (self->contacts, Contact, k);
      if (c->friction == 0)
        continue;
      CwbPointWeight forces[4];
      friction_pattern (c, c->tangent, c->friction, forces);
      for (int j = 0; j < 4; j++)
        if (j == 0 || c->pair.bary[j - 1] != 0)
          g_array_append_val (self->forces, forces[j]);
    }
}

/* After all forces: each contact's state from the relative tangential velocity they leave
 * (sliding above PENALTY_SLIP_VELOCITY), and one iteration of the time-coherent scaling for
 * the sticking ones (eq. 16-19), from that velocity along u~. rel: the response to all
 * forces. */
static void
finish_contacts (Penalty *self, const CwbContactQuery *query, const double *rel)
{
  for (guint k = 0; k < self->contacts->len; k++)
    {
      Contact *c = &g_array_index (self->contacts, Contact, k);
      double v[3];
      predicted_relative_velocity (query, c, v);
      cwb_v3_axpy (v, 1 / query->h, &rel[3 * k]);
      cwb_v3_axpy (v, -cwb_v3_dot (v, c->normal), c->normal);
      gboolean slides = cwb_v3_norm (v) > PENALTY_SLIP_VELOCITY;
      c->contact_state = cwb_v3_norm (c->force) == 0 ? CWB_CONTACT_OPEN
                         : slides                    ? CWB_CONTACT_SLIP
                                                     : CWB_CONTACT_STICK;
      if (!self->static_friction)
        continue;
      FrictionState *state = friction_memory_lookup (
        self->memory, penalty_point_key (c->pair.point_geometry, c->pair.point),
        c->pair.surface_geometry);
      cwb_v3_scale (state->friction, c->tangent, -c->friction);
      if (c->friction == 0)
        continue;
      if (c->sticks)
        friction_update (state, cwb_v3_dot (v, c->tangent), self->iteration, self->alpha,
                         1 / c->gamma);
      else
        state->lambda = 1;   /* sliding: the next sticking phase starts afresh */
    }
}

/* ---- output -------------------------------------------------------------------------- */

static void
add_frames (Penalty *self, const CwbContactQuery *query, CwbContactSet *set,
            CwbInspection *inspection)
{
  double deepest = 0;
  for (guint k = 0; k < self->contacts->len; k++)
    {
      const Contact *c = &g_array_index (self->contacts, Contact, k);
      const CwbGeometry *a = &query->geometries[c->pair.point_geometry];
      const CwbGeometry *b = &query->geometries[c->pair.surface_geometry];
      CwbContactFrame frame = {
        .mu = c->mu,
        .body_a = a->body, .body_b = b->body,
        .gap = -c->depth,
        .force = { 0.5 * cwb_v3_norm (c->force), -c->friction, 0 },
        .state = c->contact_state,
      };
      for (int j = 0; j < 3; j++)
        cwb_v3_axpy (frame.origin, c->pair.bary[j], &b->positions[3 * c->pair.vertices[j]]);
      cwb_v3_copy (frame.normal, c->normal);
      if (c->friction > 0)
        {
          cwb_v3_copy (frame.t1, c->tangent);
          cwb_v3_cross (frame.t2, frame.normal, frame.t1);
        }
      else
        cwb_v3_tangents (frame.normal, frame.t1, frame.t2);
      g_array_append_val (set->frames, frame);
      deepest = MAX (deepest, c->depth);

      CwbInspectVector depth = { .kind = CWB_VECTOR_DEPTH,
                                 .geometry = c->pair.point_geometry, .point = c->pair.point };
      cwb_v3_copy (depth.origin, &a->positions[3 * c->pair.point]);
      cwb_v3_copy (depth.vector, c->pair.depth);
      g_array_append_val (inspection->vectors, depth);
    }
  set->max_penetration = deepest;
}

/* d(force)/d(position) of every contact's post-corrected normal force, for implicit
 * integrators: with g = (p_i - sum_j h_ij p_j) . n, the pair's force is -k g n with
 * k = |F_i| / (2 |d_i|), acting +1 on i and -h_ij on T_i's vertices. */
static void
add_stiffness (Penalty *self, CwbContactSet *set)
{
  for (guint k = 0; k < self->contacts->len; k++)
    {
      const Contact *c = &g_array_index (self->contacts, Contact, k);
      double stiffness = 0.5 * cwb_v3_norm (c->force) / c->depth;
      if (stiffness == 0)
        continue;
      uint32_t geometry[4] = { c->pair.point_geometry, c->pair.surface_geometry,
                               c->pair.surface_geometry, c->pair.surface_geometry };
      uint32_t point[4] = { c->pair.point, c->pair.vertices[0], c->pair.vertices[1],
                            c->pair.vertices[2] };
      double weight[4] = { 1, -c->pair.bary[0], -c->pair.bary[1], -c->pair.bary[2] };
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
          {
            if (weight[a] == 0 || weight[b] == 0)
              continue;
            CwbPointStiffness block = { geometry[a], point[a], geometry[b], point[b], { 0 } };
            for (int r = 0; r < 3; r++)
              for (int s = 0; s < 3; s++)
                block.k[3 * r + s] = -stiffness * weight[a] * weight[b] * c->normal[r]
                                     * c->normal[s];
            g_array_append_val (set->stiffness, block);
          }
    }
}

static gboolean
penalty_model (void *data, const CwbContactQuery *query, CwbContactSet *set,
               CwbInspection *inspection, GError **error)
{
  Penalty *self = data;
  friction_memory_begin_step (self->memory);
  build_contacts (self, query);
  set_response_points (self);
  g_array_set_size (self->rel, 3 * MAX (self->contacts->len, 1));
  double *rel = (double *) self->rel->data;
  normal_forces (self, query, rel);
  if (query->pass == CWB_CONTACT_PASS_VELOCITY)
    {
      relative_response (self, query, rel);   /* the guarded normal forces' */
      friction_forces (self, query, rel);
      add_friction_forces (self);
      relative_response (self, query, rel);   /* all forces together */
      finish_contacts (self, query, rel);
    }
  friction_memory_end_step (self->memory);

  g_array_append_vals (set->forces, self->forces->data, self->forces->len);
  penalty_merge_point_forces (set->forces);
  add_frames (self, query, set, inspection);
  add_stiffness (self, set);
  return TRUE;
}

/* The model's memory between steps is the static-friction state of each lasting contact
 * (eq. 14-19): lambda, the secant iterate and the warm-start force. */
static GBytes *
penalty_save_state (void *data)
{
  Penalty *self = data;
  return friction_memory_save (self->memory);
}

static gboolean
penalty_restore_state (void *data, GBytes *state, GError **error)
{
  Penalty *self = data;
  return friction_memory_restore (self->memory, state, error);
}

static const CwbContactModelVTable penalty_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = penalty_create,
  .destroy = penalty_destroy,
  .attach = penalty_attach,
  .detect = penalty_detect,
  .model = penalty_model,
  .params_changed = penalty_params_changed,
  .save_state = penalty_save_state,
  .restore_state = penalty_restore_state,
};

static const CwbPluginDesc penalty_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_CONTACT_MODEL,
  .name = "penalty",
  .version = "0.1.0",
  .summary = "Predictor-corrector penalty forces with post-correction and time-coherent "
             "static friction (Spillmann 2007, Lazarevych)",
  .params = penalty_params,
  .n_params = G_N_ELEMENTS (penalty_params),
  .vtable = &penalty_vtable,
};

CWB_DEFINE_PLUGIN (penalty_desc)

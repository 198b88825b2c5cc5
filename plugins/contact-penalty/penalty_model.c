/* The penalty contact model `penalty`: Spillmann et al. 2007's predictor-corrector penalty
 * forces with Lazarevych et al.'s force post-correction and time-coherent static friction.
 * It returns forces (and their stiffness), never constraint rows: any solver that applies a
 * contact set's point forces integrates it (the predictor-corrector solver re-integrates
 * with them, the constraint solver applies them through the bodies' compliance).
 *
 * One model() call, for the configuration the solver predicted (positions and velocities
 * after free motion, i.e. at t + dt):
 *   1. collisions (point i, triangle T_i) with depth vectors d_i (collision_detection.c),
 *      and the points outside within `margin` (gap >= 0) that the forces may push in;
 *      between two convex polytopes, the contacts of their manifolds instead
 *      (convex_contact.c: face-face, edge-face, edge-edge), each a pair whose i is a
 *      weighted point of an edge or a face (contact_force.h), d_i = -gap n;
 *   2. the pairs' mobility W over the step from the host's point_response, once
 *      (pair_mobility.c): every later response is a product with it;
 *   3. normal forces: F_i = (m_i / dt^2) eps_i d_i (eq. 3-5, contact_force.c) with the
 *      post-correction's pattern (eq. 6: half on i, half on T_i) for a contact new in this
 *      step, the last step's force for a lasting one; then `normal_sweeps` projected
 *      Gauss-Seidel sweeps make the forces, applied together, close every penetration by
 *      t + dt (the paper's aim, which its per-contact formula meets only when the contacts
 *      do not move each other: flat contact, lumped masses);
 *   4. friction per contact (eq. 7-19, static_friction.c), distributed on T_i by its
 *      barycentric weights without the post-correction's scaling (sec. 4.1).
 * The relative velocities the friction law needs ("after the forces") are predicted with W,
 * which is exactly what the solvers do with the forces. */
#include <cwb/cwb.h>

#include "contact_force.h"
#include "entry_face.h"
#include "pair_mobility.h"
#include "static_friction.h"
#include "surface_contacts.h"

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
/* The normal solve stops when a sweep changes no contact's closing by more than this
 * fraction of the deepest penetration. A closing error e leaves a velocity error e / h; at
 * rest the deepest penetration is g dt^2, so this leaves 1e-6 g dt (5e-8 m/s at dt 0.005),
 * below the 1e-6 m/s that counts as sticking (1e-3 left resting stacks trembling at
 * 1e-4 m/s). */
#define PENALTY_NORMAL_TOLERANCE 1e-6
/* The detection margin is widened to this multiple of the step's deepest penetration: the
 * forces closing a penetration d move the surface they act on by up to about this much
 * (one push on a rigid body moves no point of a cube farther than the pushed one; a rod's
 * far end moves up to 1.5 times as far, when pushed a sixth of its length off its centre:
 * (1 + 6 x) / (1 + 12 x^2) at its maximum, x = 1/6). */
#define PENALTY_MARGIN_FACTOR 1.5
/* The friction memory's surface field for a manifold contact, whose key is its identity
 * (ManifoldContact.id) rather than a point: no geometry has this index, so the two kinds of
 * keys never meet. */
#define PENALTY_MANIFOLD_SURFACE G_MAXUINT32

typedef struct Contact {
  PenaltyPair pair;
  guint64 key;            /* the friction memory's key: the point's (penalty_point_key) for a
                           * point contact, ManifoldContact.id for a manifold's */
  uint32_t key_surface;   /* T_i's geometry, PENALTY_MANIFOLD_SURFACE for a manifold's */
  guint64 id;             /* the frame's identity (CwbContactSet.contact_ids) */
  double normal[3];       /* unit, out of T_i's surface (d_i / |d_i| for a point inside) */
  double gap;             /* signed distance along it at the predicted state: -|d_i| inside,
                           * >= 0 for a point outside within the margin */
  double approach;        /* how far the free motion brings the pair together over the step
                           * along the normal, >= 0 (h times the predicted approach speed) */
  double mu;
  double f_n;             /* the pair's normal force (N): +f_n n on i, -h_ij f_n n on T_i
                           * (eq. 6's F_i / 2 for the paper's force) */
  double tangent[3];      /* u~ / |u~| (zero when there is no sliding to oppose) */
  double base_velocity[3];/* relative velocity with the normal forces applied, no friction */
  double gamma;           /* eq. 13 (1 when sliding) */
  double friction;        /* the friction force's magnitude, opposing `tangent` */
  gboolean sticks;        /* static friction applied: its scaling is iterated after */
  CwbContactState contact_state;
} Contact;

/* One contact's constants in the normal sweeps: w_k = n_k . W_kk n_k, its softness s_k, and
 * the mobility its steps are scaled by (w_k while W is stored, w_k times the contacts it
 * shares its bodies with past W's budget). */
typedef struct SweepTerms {
  double w_nn, soft, step;
  double reach;   /* the most the normal forces may move the pair apart this step */
} SweepTerms;

typedef struct Penalty {
  DetectionParams detection;
  gboolean static_friction;
  FrictionIteration iteration;
  double alpha;
  int friction_sweeps;
  int normal_sweeps;
  double softness;
  double margin;
  double depenetration_param;   /* the parameter: < 0 automatic */
  double depenetration;         /* what this step uses (m) */
  DetectionDepth depth;
  SurfaceContacts *detector;
  FrictionMemory *memory;
  PenaltyNormalisation *norm;
  PairMobility *mobility;
  GArray *candidates;   /* ContactCandidate */
  GArray *manifold;     /* ManifoldContact: pairs of convex polytopes */
  GArray *contacts;     /* Contact */
  GArray *forces;       /* CwbPointWeight: the contact set's point forces */
  GArray *pairs;        /* PenaltyPair, scratch */
  GArray *inside;       /* guint: the contacts eq. 3-5 sizes */
  GArray *inside_pairs; /* PenaltyPair of each entry of inside */
  GArray *normal_vectors;/* double, 3 per contact: f_n n */
  GArray *sweep_terms;   /* SweepTerms per contact: the normal sweeps' constants */
  GArray *rel;          /* double, 3 per contact: relative response to the normal forces */
  GArray *rel_friction; /* double, 3 per contact: response to the friction decided so far */
  GArray *movable;      /* gboolean per geometry: some contact measured a finite mass on it */
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
  { "normal_sweeps", CWB_PARAM_INT, "1", "100", 0, 100000, NULL,
    "Most Gauss-Seidel sweeps making the normal forces, applied together, close every "
    "penetration by the end of the step; 0: the paper's per-contact forces as they are "
    "(eq. 3-6), exact only for contacts that do not move each other" },
  { "softness", CWB_PARAM_DOUBLE, "1", "0.01", 0, 10, NULL,
    "Compliance each contact adds to its closing, in units of its own mobility: a lone "
    "contact closes 1 / (1 + softness) of its penetration per step, and an overlap no "
    "motion can close (a box clamped between fixed bars) is held by finite forces, "
    "1 / softness times those that would close it alone; 0: exact closure" },
  { "max_depenetration", CWB_PARAM_DOUBLE, "m", "-1", -1, 1, NULL,
    "Most the normal forces push a pair apart in a step beyond what the step brings it "
    "together: an overlap deeper than that (found after a swap or an edit) closes by this "
    "much a step instead of throwing the bodies apart; < 0: automatic, g h^2 (what a step of "
    "gravity adds) or 0.05 % of the moving bodies' median size without gravity" },
  { "mobility_memory", CWB_PARAM_DOUBLE, "MB", "320", 0, 1e6, NULL,
    "Most memory the pairs' mobility W may take (its coupled blocks, 76 bytes each, grow with "
    "the square of the contacts on a deformable body): past it the normal forces are solved "
    "without W, by accelerated Jacobi iterations of one coupled response each, which need "
    "more iterations for the same forces; 0: always without W" },
  { "margin", CWB_PARAM_DOUBLE, "m", "0", 0, 1, NULL,
    "Least reach outside a body: points outside closer than this are contacts too, pushed "
    "only when the other forces would move them in. Each step widens it to 1.5 times the "
    "deepest penetration found (1.5 g dt^2 at rest)" },
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
  self->normal_sweeps = (int) cwb_param_int (params, "normal_sweeps", 100);
  self->softness = cwb_param_double (params, "softness", 0.01);
  detection_params_read (&self->detection, &self->depth, params);
  self->margin = cwb_param_double (params, "margin", 0);
  double mobility_mb = cwb_param_double (params, "mobility_memory", 320);
  pair_mobility_set_max_blocks (self->mobility,
                                (size_t) (mobility_mb * 1e6 / PAIR_MOBILITY_BLOCK_BYTES));
  self->depenetration_param = cwb_param_double (params, "max_depenetration", -1);
}

static void *
penalty_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                GError **error)
{
  Penalty *self = g_new0 (Penalty, 1);
  detection_depth_init (&self->depth);
  self->mobility = pair_mobility_new ();
  read_params (self, info->params);
  self->detector = surface_contacts_new ();
  self->manifold = g_array_new (FALSE, FALSE, sizeof (ManifoldContact));
  self->memory = friction_memory_new ();
  self->norm = penalty_normalisation_new ();
  self->candidates = g_array_new (FALSE, FALSE, sizeof (ContactCandidate));
  self->contacts = g_array_new (FALSE, TRUE, sizeof (Contact));
  self->forces = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  self->pairs = g_array_new (FALSE, FALSE, sizeof (PenaltyPair));
  self->inside = g_array_new (FALSE, FALSE, sizeof (guint));
  self->inside_pairs = g_array_new (FALSE, FALSE, sizeof (PenaltyPair));
  self->normal_vectors = g_array_new (FALSE, FALSE, sizeof (double));
  self->sweep_terms = g_array_new (FALSE, FALSE, sizeof (SweepTerms));
  self->rel = g_array_new (FALSE, FALSE, sizeof (double));
  self->rel_friction = g_array_new (FALSE, FALSE, sizeof (double));
  self->movable = g_array_new (FALSE, TRUE, sizeof (gboolean));
  return self;
}

static void
penalty_destroy (void *data)
{
  Penalty *self = data;
  surface_contacts_free (self->detector);
  friction_memory_free (self->memory);
  penalty_normalisation_free (self->norm);
  pair_mobility_free (self->mobility);
  GArray *arrays[] = { self->candidates, self->manifold, self->contacts, self->forces,
                       self->pairs, self->inside, self->inside_pairs, self->normal_vectors,
                       self->sweep_terms, self->rel, self->rel_friction, self->movable };
  for (size_t k = 0; k < G_N_ELEMENTS (arrays); k++)
    g_array_unref (arrays[k]);
  detection_depth_clear (&self->depth);
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
      g_set_error_literal (error, g_quark_from_string ("penalty"), 0,
                           "the penalty model needs a host of ABI 1.1 or later (point_response)");
      return FALSE;
    }
  if (!detection_check_geometries (query->geometries, query->n_geometries, "penalty", error))
    return FALSE;
  /* A new attachment (a swap, a reload) starts without friction memory or a last depth. */
  friction_memory_clear (self->memory);
  self->depth.deepest = 0;
  return TRUE;
}

/* Detection with points outside within `margin`: the manifolds of the pairs of convex
 * polytopes (convex_contact.c), then the points of every other pair, each inside
 * candidate's depth taken through the face it came in through (entry_face.c); returns the
 * deepest penetration. */
static double
detect_entered (Penalty *self, const CwbContactQuery *query, double margin)
{
  self->detection.margin = margin;
  surface_contacts_run (self->detector, query->geometries, query->n_geometries,
                        &self->detection, self->manifold, self->candidates);
  double deepest = 0;
  for (guint k = 0; k < self->manifold->len; k++)
    deepest = MAX (deepest, -g_array_index (self->manifold, ManifoldContact, k).gap);
  for (guint k = 0; k < self->candidates->len; k++)
    {
      ContactCandidate *c = &g_array_index (self->candidates, ContactCandidate, k);
      entry_face_correct (c, query->geometries, query->h);
      deepest = MAX (deepest, -c->gap);
    }
  return deepest;
}

/* Points outside a body are contacts when the step's forces may push them in: the forces
 * move the surfaces they act on by about the penetrations they close, so the margin is
 * widened to PENALTY_MARGIN_FACTOR times the deepest one (a stack whose lower box lands and
 * is pushed up into the box falling 1 cm above it; at rest this is 1.5 g dt^2, the
 * penetration a step of gravity makes). */
static gboolean
penalty_detect (void *data, const CwbContactQuery *query, GError **error)
{
  Penalty *self = data;
  detection_resolve (&self->detection, &self->depth, query);
  double deepest = detect_entered (self, query, self->margin);
  double reach = MIN (PENALTY_MARGIN_FACTOR * deepest, self->detection.max_depth);
  if (reach > self->margin)
    detect_entered (self, query, reach);
  self->depth.deepest = deepest;
  return TRUE;
}

/* ---- the bodies' response ---------------------------------------------------------- */

/* The mass the weighted point sum_k w_k x_k (n vertices of `geometry`) shows along unit n
 * over one step: dt^2 / (n . J C J^T n) with J the weighted point's, i.e. the force w_k n on
 * each vertex k and the response read as sum_k w_k dp_k; INFINITY when it cannot move. A
 * lone vertex (n = 1, w = 1) is the paper's mass point. */
static double
effective_mass (const CwbContactQuery *query, uint32_t geometry, uint32_t n,
                const uint32_t *points, const double *weights, const double normal[3])
{
  CwbPointWeight force[3], at[3];
  for (uint32_t k = 0; k < n; k++)
    {
      force[k] = at[k] = (CwbPointWeight){ .geometry = geometry, .point = points[k] };
      cwb_v3_scale (force[k].w, normal, weights[k]);
    }
  double dp[9], sum[3];
  query->point_response (query->host_data, force, n, at, n, dp);
  cwb_v3_scale (sum, dp, weights[0]);
  for (uint32_t k = 1; k < n; k++)
    cwb_v3_axpy (sum, weights[k], &dp[3 * k]);
  double mobility = cwb_v3_dot (normal, sum);
  return mobility > 0 ? query->h * query->h / mobility : INFINITY;
}

/* ---- the forces ---------------------------------------------------------------------- */

static void predicted_relative_velocity (const CwbContactQuery *query, const Contact *c,
                                         double v[3]);

/* Completes contact (pair geometry, normal, gap, keys set): masses along the normal and the
 * friction coefficient, and appends it, unless neither side can move. */
static void
add_contact (Penalty *self, const CwbContactQuery *query, Contact *contact)
{
  gboolean *movable = (gboolean *) self->movable->data;
  PenaltyPair *pair = &contact->pair;
  if (!(cwb_v3_norm (contact->normal) > 0))
    return;
  pair->m_point = effective_mass (query, pair->point_geometry, pair->n_points, pair->points,
                                  pair->weights, contact->normal);
  gboolean surface_moves = FALSE;
  for (int v = 0; v < 3; v++)
    {
      pair->m_vertex[v] = effective_mass (query, pair->surface_geometry, 1, &pair->vertices[v],
                                          (const double[]){ 1 }, contact->normal);
      surface_moves = surface_moves || !isinf (pair->m_vertex[v]);
    }
  if (isinf (pair->m_point) && !surface_moves)
    return;
  double v[3];
  predicted_relative_velocity (query, contact, v);
  contact->approach = MAX (0, -cwb_v3_dot (contact->normal, v)) * query->h;
  movable[pair->point_geometry] |= !isinf (pair->m_point);
  movable[pair->surface_geometry] |= surface_moves;
  uint32_t body_a = query->geometries[pair->point_geometry].body;
  uint32_t body_b = query->geometries[pair->surface_geometry].body;
  contact->mu = cwb_friction_combine (query->friction[body_a], query->friction[body_b]);
  g_array_append_val (self->contacts, *contact);
}

/* A manifold contact (convex_contact.h) as a pair: i its point of a (1 to 3 weighted
 * vertices), the other side its point of b, the normal from b towards a as for a point
 * contact, and inside (gap < 0) the depth vector from a's point to its location on b along
 * the normal, d_i = -gap n (the points differ by exactly that along n; a manifold's points
 * lie on one line along it). */
static void
manifold_contact (const ManifoldContact *m, Contact *contact)
{
  *contact = (Contact){
    .pair = { .point_geometry = m->a.geometry, .n_points = MIN (m->a.n, 3),
              .surface_geometry = m->b.geometry },
    .key = m->id, .key_surface = PENALTY_MANIFOLD_SURFACE, .id = m->id,
    .gap = m->gap,
  };
  PenaltyPair *pair = &contact->pair;
  for (uint32_t k = 0; k < 3; k++)
    {
      gboolean a_side = k < m->a.n, b_side = k < m->b.n;
      pair->points[k] = m->a.vertex[a_side ? k : 0];
      pair->weights[k] = a_side ? m->a.weight[k] : 0;
      pair->vertices[k] = m->b.vertex[b_side ? k : 0];
      pair->bary[k] = b_side ? m->b.weight[k] : 0;
    }
  cwb_v3_copy (contact->normal, m->normal);
  if (m->gap < 0)
    cwb_v3_scale (pair->depth, m->normal, -m->gap);
}

/* Collisions to contacts: geometry, masses, friction coefficient; the point candidates
 * first, in the detector's order, then the polytopes' manifold contacts. Pairs where
 * neither side can move are dropped. */
static void
build_contacts (Penalty *self, const CwbContactQuery *query)
{
  g_array_set_size (self->contacts, 0);
  g_array_set_size (self->movable, MAX (query->n_geometries, 1));
  memset (self->movable->data, 0, self->movable->len * sizeof (gboolean));
  for (guint k = 0; k < self->candidates->len; k++)
    {
      const ContactCandidate *c = &g_array_index (self->candidates, ContactCandidate, k);
      const CwbGeometry *surface = &query->geometries[c->surface_geometry];
      Contact contact = {
        .pair = { .surface_geometry = c->surface_geometry },
        .key = penalty_point_key (c->point_geometry, c->point),
        .key_surface = c->surface_geometry,
        .id = contact_candidate_id (c),
      };
      penalty_pair_set_vertex (&contact.pair, c->point_geometry, c->point);
      memcpy (contact.pair.bary, c->bary, sizeof c->bary);
      for (int v = 0; v < 3; v++)
        contact.pair.vertices[v] = surface->triangles[3 * c->triangle + v];
      contact.gap = c->gap;
      cwb_v3_copy (contact.normal, c->normal);
      if (c->gap < 0)
        memcpy (contact.pair.depth, c->depth, sizeof c->depth);   /* d_i: only inside */
      add_contact (self, query, &contact);
    }
  for (guint k = 0; k < self->manifold->len; k++)
    {
      Contact contact;
      manifold_contact (&g_array_index (self->manifold, ManifoldContact, k), &contact);
      add_contact (self, query, &contact);
    }
  g_array_set_size (self->pairs, self->contacts->len);
  for (guint k = 0; k < self->contacts->len; k++)
    g_array_index (self->pairs, PenaltyPair, k) = g_array_index (self->contacts, Contact, k).pair;
}

/* The normal force eq. 3-5 gives each contact inside (0 outside), as the post-correction
 * distributes it (eq. 6: F_i / 2 on the pair). The normalisation c (eq. 5) counts the
 * collisions only, not the points outside. */
static void
paper_normal_forces (Penalty *self, const CwbContactQuery *query, double *f_n)
{
  GArray *contacts = self->contacts;
  g_array_set_size (self->inside, 0);
  g_array_set_size (self->inside_pairs, 0);
  for (guint k = 0; k < contacts->len; k++)
    {
      const Contact *c = &g_array_index (contacts, Contact, k);
      f_n[k] = 0;
      if (c->gap < 0)
        {
          g_array_append_val (self->inside, k);
          g_array_append_val (self->inside_pairs, c->pair);
        }
    }
  penalty_normalisation_build (self->norm, (const PenaltyPair *) self->inside_pairs->data,
                               self->inside_pairs->len);
  for (guint e = 0; e < self->inside->len; e++)
    {
      guint k = g_array_index (self->inside, guint, e);
      double force[3];
      penalty_contact_force (&g_array_index (self->inside_pairs, PenaltyPair, e), self->norm,
                             query->h, force);
      f_n[k] = 0.5 * cwb_v3_norm (force);
    }
}

/* The deepest penetration among the contacts (0 with none inside). */
static double
deepest_penetration (const Penalty *self)
{
  double deepest = 0;
  for (guint k = 0; k < self->contacts->len; k++)
    deepest = MAX (deepest, -g_array_index (self->contacts, Contact, k).gap);
  return deepest;
}

/* The change of contact c's normal force, from f_n, that closes its own gap given rel, the
 * relative displacement all normal forces cause at it (normal_sweeps). */
static double
normal_change (const Contact *c, double f_n, const SweepTerms *terms, const double rel[3])
{
  double w_nn = terms->w_nn, soft = terms->soft, step = terms->step;
  if (!(w_nn > 0))
    return 0;
  double moved = cwb_v3_dot (c->normal, rel);
  double open = c->gap + moved + soft * w_nn * f_n;
  double next = MAX (0, f_n - open / (step + soft * w_nn));
  /* A bounded response: the pair moves apart by its approach and the reach at most, so a
   * deep overlap closes over several steps instead of throwing bodies apart. */
  next = MAX (0, MIN (next, f_n + (terms->reach - moved) / step));
  return next - f_n;
}

/* The normal solve past W's memory budget (pair_mobility.c), without W: projected gradient
 * steps on the sweeps' problem, each contact's step scaled by its diagonal (which counts the
 * contacts it shares its bodies with, so that no body is pushed further than all its
 * contacts together ask), accelerated by Nesterov's momentum with a restart whenever the
 * step goes uphill (O'Donoghue and Candes 2015): one coupled product of all the forces
 * (point_response) per iteration. Its fixed point is the Gauss-Seidel sweeps' (the same law
 * with the true W), and the warm start carries what a step leaves into the next. */
static void
normal_accelerated (Penalty *self, const CwbContactQuery *query, const SweepTerms *terms,
                    double tolerance, double *rel)
{
  GArray *contacts = self->contacts;
  guint n = contacts->len;
  const PenaltyPair *pairs = (const PenaltyPair *) self->pairs->data;
  double *vectors = (double *) self->normal_vectors->data;
  /* f: the iterate (c->f_n); y: where the next step is taken from, rel_y = W y n. */
  g_autofree double *y = g_new (double, MAX (n, 1));
  g_autofree double *rel_y = g_memdup2 (rel, 3 * MAX (n, 1) * sizeof (double));
  for (guint k = 0; k < n; k++)
    y[k] = g_array_index (contacts, Contact, k).f_n;
  g_autofree double *next = g_new (double, MAX (n, 1));
  double theta = 1;
  for (int sweep = 0; sweep < self->normal_sweeps; sweep++)
    {
      /* A step from y against the law's opening there (the gradient, scaled). */
      double largest = 0, along = 0;
      for (guint k = 0; k < n; k++)
        {
          const Contact *c = &g_array_index (contacts, Contact, k);
          double f = c->f_n;
          next[k] = y[k] + normal_change (c, y[k], &terms[k], &rel_y[3 * k]);
          largest = MAX (largest, fabs (next[k] - f) * terms[k].step);
          along += (y[k] - next[k]) * (next[k] - f) * terms[k].step;
        }
      /* Momentum, restarted when the step from y goes against the motion it adds. */
      double theta_next = along > 0 ? 1 : 0.5 * (1 + sqrt (1 + 4 * theta * theta));
      double beta = along > 0 ? 0 : (theta - 1) / theta_next;
      theta = theta_next;
      for (guint k = 0; k < n; k++)
        {
          Contact *c = &g_array_index (contacts, Contact, k);
          y[k] = MAX (0, next[k] + beta * (next[k] - c->f_n));
          c->f_n = next[k];
        }
      if (largest <= tolerance)
        break;
      for (guint k = 0; k < n; k++)
        cwb_v3_scale (&vectors[3 * k], g_array_index (contacts, Contact, k).normal, y[k]);
      pair_mobility_apply (self->mobility, query, pairs, vectors, rel_y);
    }
  for (guint k = 0; k < n; k++)
    {
      const Contact *c = &g_array_index (contacts, Contact, k);
      cwb_v3_scale (&vectors[3 * k], c->normal, c->f_n);
    }
  pair_mobility_apply (self->mobility, query, pairs, vectors, rel);
}

/* Projected Gauss-Seidel on the normal forces, the coupled problem the per-contact formula
 * leaves out: with rel_k = sum_j W_kj f_n,j n_j the relative displacement all normal forces
 * cause at k over the step and other_k what the other forces (friction) cause, every
 * contact ends closed or pulls nothing,
 *   o_k = gap_k + n_k . (rel_k + other_k) + s_k w_k f_n,k >= 0,  f_n,k >= 0,  f_n,k o_k = 0,
 * w_k = n_k . W_kk n_k, each sweep setting f_n,k to close its own gap given the others. The
 * softness s_k (0 between movable bodies) is the compliance a contact with a fixed body
 * adds: an overlap no motion can close (a box wider than the gap between fixed bars) then
 * has a finite solution. rel is kept equal to W times the normal forces. */
static void
normal_sweeps (Penalty *self, const CwbContactQuery *query, double *rel)
{
  GArray *contacts = self->contacts;
  const gboolean *movable = (const gboolean *) self->movable->data;
  double tolerance = PENALTY_NORMAL_TOLERANCE * deepest_penetration (self);
  /* w_k and s_k stay the same through the sweeps. */
  g_array_set_size (self->sweep_terms, MAX (contacts->len, 1));
  SweepTerms *terms = (SweepTerms *) (void *) self->sweep_terms->data;
  for (guint k = 0; k < contacts->len; k++)
    {
      const Contact *c = &g_array_index (contacts, Contact, k);
      double w[3];
      const double *w_kk = pair_mobility_diagonal (self->mobility, k);
      for (int r = 0; r < 3; r++)
        w[r] = cwb_v3_dot (&w_kk[3 * r], c->normal);
      terms[k].step = cwb_v3_dot (c->normal, w);
      terms[k].w_nn = terms[k].step / pair_mobility_own_scale (self->mobility, k);
      terms[k].soft = movable[c->pair.point_geometry] && movable[c->pair.surface_geometry]
                        ? 0 : self->softness;
      terms[k].reach = c->approach + self->depenetration;
    }
  if (!pair_mobility_coupled (self->mobility))
    {
      normal_accelerated (self, query, terms, tolerance, rel);
      return;
    }
  for (int sweep = 0; sweep < self->normal_sweeps; sweep++)
    {
      double largest = 0;
      for (guint k = 0; k < contacts->len; k++)
        {
          Contact *c = &g_array_index (contacts, Contact, k);
          double change = normal_change (c, c->f_n, &terms[k], &rel[3 * k]);
          if (change == 0)
            continue;
          largest = MAX (largest, fabs (change) * terms[k].w_nn);
          double delta[3];
          cwb_v3_scale (delta, c->normal, change);
          pair_mobility_spread (self->mobility, k, delta, rel);
          c->f_n += change;
        }
      if (largest <= tolerance)
        break;
    }
}

/* The normal forces: eq. 3-6 for a contact new in this step, the last step's force for a
 * lasting one, then the normal sweeps. rel: 3 per contact, the normal forces' response. */
static void
normal_forces (Penalty *self, const CwbContactQuery *query, double *rel)
{
  GArray *contacts = self->contacts;
  guint n = contacts->len;
  g_autofree double *f_n = g_new0 (double, MAX (n, 1));
  paper_normal_forces (self, query, f_n);
  g_array_set_size (self->normal_vectors, 3 * MAX (n, 1));
  double *vectors = (double *) self->normal_vectors->data;
  for (guint k = 0; k < n; k++)
    {
      Contact *c = &g_array_index (contacts, Contact, k);
      if (self->normal_sweeps > 0)
        {
          const FrictionState *state = friction_memory_lookup (
            self->memory, c->key, c->key_surface);
          if (!isnan (state->normal_force))
            f_n[k] = state->normal_force;   /* warm start: a lasting contact */
        }
      c->f_n = f_n[k];
      cwb_v3_scale (&vectors[3 * k], c->normal, c->f_n);
    }
  pair_mobility_apply (self->mobility, query, (const PenaltyPair *) self->pairs->data, vectors,
                       rel);
  normal_sweeps (self, query, rel);
}

/* The contact set's point forces: every contact's normal force in the pattern of eq. 6,
 * kept as the next step's start. */
static void
add_normal_forces (Penalty *self)
{
  g_array_set_size (self->forces, 0);
  for (guint k = 0; k < self->contacts->len; k++)
    {
      const Contact *c = &g_array_index (self->contacts, Contact, k);
      FrictionState *state = friction_memory_lookup (
        self->memory, c->key, c->key_surface);
      state->normal_force = c->f_n;
      if (c->f_n == 0)
        continue;
      double f[3];
      CwbPointWeight pattern[PENALTY_PAIR_PATTERN_MAX];
      cwb_v3_scale (f, c->normal, c->f_n);
      g_array_append_vals (self->forces, pattern,
                           (guint) penalty_pair_pattern (&c->pair, f, pattern));
    }
}

/* The relative velocity of contact k's point and triangle location in the predicted state:
 * sum_k w_k v_k - sum_j h_ij v_j. */
static void
predicted_relative_velocity (const CwbContactQuery *query, const Contact *c, double v[3])
{
  const CwbGeometry *a = &query->geometries[c->pair.point_geometry];
  const CwbGeometry *b = &query->geometries[c->pair.surface_geometry];
  cwb_v3_scale (v, &a->velocities[3 * c->pair.points[0]], c->pair.weights[0]);
  for (uint32_t k = 1; k < c->pair.n_points; k++)
    cwb_v3_axpy (v, c->pair.weights[k], &a->velocities[3 * c->pair.points[k]]);
  for (int j = 0; j < 3; j++)
    cwb_v3_axpy (v, -c->pair.bary[j], &b->velocities[3 * c->pair.vertices[j]]);
}

/* rel = W_kk f: the relative displacement contact k's own pair force f causes. */
static void
own_response (const Penalty *self, guint k, const double f[3], double rel[3])
{
  const double *w = pair_mobility_diagonal (self->mobility, k);
  for (int r = 0; r < 3; r++)
    rel[r] = cwb_v3_dot (&w[3 * r], f);
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
size_friction (Penalty *self, const CwbContactQuery *query, guint k, const double u_rest[3])
{
  Contact *c = &g_array_index (self->contacts, Contact, k);
  double f_n = c->f_n;
  double v[3];
  cwb_v3_copy (v, u_rest);
  cwb_v3_reject (v, c->normal);
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
      own_response (self, k, t[b], rel);
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
        self->memory, c->key, c->key_surface);
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
 * rel holds the normal forces' relative response; rel_friction is kept equal to the
 * friction's (W times the friction decided so far). */
static void
friction_forces (Penalty *self, const CwbContactQuery *query, const double *rel)
{
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
        self->memory, c->key, c->key_surface);
      double f[3];
      cwb_v3_copy (f, state->friction);
      cwb_v3_reject (f, c->normal);
      double magnitude = cwb_v3_norm (f);
      double cone = c->mu * c->f_n;
      if (!(magnitude > 0) || !(cone > 0))
        continue;
      cwb_v3_scale (c->tangent, f, -1 / magnitude);
      c->friction = MIN (magnitude, cone);
      double initial[3];
      cwb_v3_scale (initial, c->tangent, -c->friction);
      pair_mobility_spread (self->mobility, k, initial, rel_friction);
    }
  for (int sweep = 0; sweep < self->friction_sweeps; sweep++)
    for (guint k = 0; k < self->contacts->len; k++)
      {
        Contact *c = &g_array_index (self->contacts, Contact, k);
        double old[3], old_tangent[3], old_friction = c->friction;
        cwb_v3_copy (old_tangent, c->tangent);
        cwb_v3_scale (old, old_tangent, -old_friction);   /* its pair force */
        double u[3], own[3];
        cwb_v3_copy (u, c->base_velocity);
        cwb_v3_axpy (u, 1 / query->h, &rel_friction[3 * k]);   /* every friction so far */
        own_response (self, k, old, own);
        cwb_v3_axpy (u, -1 / query->h, own);                   /* less its own */
        size_friction (self, query, k, u);
        if (c->friction == old_friction && cwb_v3_dot (c->tangent, old_tangent) == 1)
          continue;
        /* Spread the change: the new friction less the old one. */
        double change[3];
        cwb_v3_scale (change, c->tangent, -c->friction);
        cwb_v3_sub (change, change, old);
        pair_mobility_spread (self->mobility, k, change, rel_friction);
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
      double f[3];
      CwbPointWeight pattern[PENALTY_PAIR_PATTERN_MAX];
      cwb_v3_scale (f, c->tangent, -c->friction);
      g_array_append_vals (self->forces, pattern,
                           (guint) penalty_pair_pattern (&c->pair, f, pattern));
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
      cwb_v3_reject (v, c->normal);
      gboolean slides = cwb_v3_norm (v) > PENALTY_SLIP_VELOCITY;
      c->contact_state = c->f_n == 0 ? CWB_CONTACT_OPEN
                         : slides                    ? CWB_CONTACT_SLIP
                                                     : CWB_CONTACT_STICK;
      if (!self->static_friction)
        continue;
      FrictionState *state = friction_memory_lookup (
        self->memory, c->key, c->key_surface);
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
  for (guint k = 0; k < self->contacts->len; k++)
    {
      const Contact *c = &g_array_index (self->contacts, Contact, k);
      const CwbGeometry *a = &query->geometries[c->pair.point_geometry];
      const CwbGeometry *b = &query->geometries[c->pair.surface_geometry];
      CwbContactFrame frame = {
        .mu = c->mu,
        .body_a = a->body, .body_b = b->body,
        .gap = c->gap,
        .force = { c->f_n, -c->friction, 0 },
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
      cwb_contact_set_add_id (set, c->id);
      if (!(c->gap < 0))
        continue;   /* a point outside: no depth vector to show */

      CwbInspectVector depth = { .kind = CWB_VECTOR_DEPTH,
                                 .geometry = c->pair.point_geometry,
                                 .point = c->pair.points[0] };
      cwb_v3_scale (depth.origin, &a->positions[3 * c->pair.points[0]], c->pair.weights[0]);
      for (uint32_t l = 1; l < c->pair.n_points; l++)
        cwb_v3_axpy (depth.origin, c->pair.weights[l], &a->positions[3 * c->pair.points[l]]);
      cwb_v3_copy (depth.vector, c->pair.depth);
      g_array_append_val (inspection->vectors, depth);
    }
  set->max_penetration = deepest_penetration (self);
}

/* d(force)/d(position) of every contact's normal force, for implicit integrators: with
 * g = (sum_k w_k p_k - sum_j h_ij p_j) . n (p_i itself for a lone vertex), the pair's force
 * is -k g n with k = f_n / |d_i| (eq. 3: a force proportional to the depth; for the paper's
 * force k = |F_i| / (2 |d_i|)), acting +w_k on i's vertices and -h_ij on T_i's. A point outside that carries a force (pushed by the
 * others) has no depth to scale: it gets no stiffness. */
static void
add_stiffness (Penalty *self, CwbContactSet *set)
{
  for (guint k = 0; k < self->contacts->len; k++)
    {
      const Contact *c = &g_array_index (self->contacts, Contact, k);
      if (!(c->gap < 0) || c->f_n == 0)
        continue;
      double stiffness = c->f_n / -c->gap;
      uint32_t geometry[6], point[6];
      double weight[6];
      int n = 0;
      for (uint32_t l = 0; l < c->pair.n_points; l++, n++)
        {
          geometry[n] = c->pair.point_geometry;
          point[n] = c->pair.points[l];
          weight[n] = c->pair.weights[l];
        }
      for (int j = 0; j < 3; j++, n++)
        {
          geometry[n] = c->pair.surface_geometry;
          point[n] = c->pair.vertices[j];
          weight[n] = -c->pair.bary[j];
        }
      for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
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
  self->depenetration = self->depenetration_param >= 0
                          ? self->depenetration_param
                          : detection_automatic_margin (query) / MARGIN_STEPS_OF_FALL;
  friction_memory_begin_step (self->memory);
  build_contacts (self, query);
  pair_mobility_build (self->mobility, query, (const PenaltyPair *) self->pairs->data,
                       self->pairs->len, (const gboolean *) self->movable->data);
  g_array_set_size (self->rel, 3 * MAX (self->contacts->len, 1));
  double *rel = (double *) self->rel->data;
  normal_forces (self, query, rel);
  if (query->pass == CWB_CONTACT_PASS_VELOCITY)
    {
      friction_forces (self, query, rel);
      const double *rel_friction = (const double *) self->rel_friction->data;
      add_normal_forces (self);
      add_friction_forces (self);
      /* All forces together: the normal forces' response and the friction's. */
      for (guint k = 0; k < 3 * self->contacts->len; k++)
        rel[k] += rel_friction[k];
      finish_contacts (self, query, rel);
    }
  else
    add_normal_forces (self);
  friction_memory_end_step (self->memory);

  g_array_append_vals (set->forces, self->forces->data, self->forces->len);
  penalty_merge_point_forces (set->forces);
  add_frames (self, query, set, inspection);
  add_stiffness (self, set);
  if (self->depenetration_param < 0)
    cwb_inspection_add_derived (inspection, "max_depenetration", self->depenetration);
  detection_depth_publish (&self->depth, &self->detection, inspection);
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

/* Penalty forces with their stiffness: any solver that integrates forces. */
static uint32_t
penalty_outputs (void *self)
{
  (void) self;
  return CWB_CONTACT_OUTPUT_FORCES;
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
  .outputs = penalty_outputs,
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

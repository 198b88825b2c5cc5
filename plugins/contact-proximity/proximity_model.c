/* The point-contact constraint model `proximity`: Saupin et al. 2008's "potential contact
 * spots alpha = 1 ... n_c with their associate direction n_alpha" (sec. 2.3) as Signorini and
 * Coulomb constraint rows for the constraint solver, between any bodies whose geometries are
 * triangle surfaces (deformable or rigid).
 *
 * Detection is the penalty model's (plugins/common/surface-detection): a point i of a
 * geometry A inside the closed surface of another geometry B within max_depth, with the
 * closest point of B's surface on triangle T at barycentric coordinates h_j (p_j the
 * positions of T's vertices) and the depth vector d pointing out of B. Each such candidate is
 * one contact frame:
 *
 *   n = d / |d| (from B towards A), origin sum_j h_j p_j (on T), gap = -|d|,
 *   mu = cwb_friction_combine (mu_A, mu_B), body_a = A's body, body_b = B's body,
 *
 * and one normal row, Saupin eq. 15 linearised (eq. 16) at the detected configuration:
 *
 *   g = n . (p_i - sum_j h_j p_j),  dg/dp_i = +n,  dg/dp_j = -h_j n,  violation -|d|,
 *
 * so that H (eq. 18) is these weights chained through the mappings by the host, and
 * W = H C H^T (eq. 19) is the solver's. In the velocity pass, when mu > 0, two tangent rows
 * follow along t1, t2 with the same pattern (Coulomb, Saupin eq. 2); a position pass
 * (post-stabilization) needs none.
 *
 * With a `margin` > 0, points outside B within it (or on its surface) make contacts too, with
 * gap = their distance >= 0 (admissible) and n from the closest point towards the point. The
 * constraint solver detects at the free-motion configuration, so such a row carries force
 * only when the corrective motion would close its gap (Signorini on g_free + W f): a body
 * turned by its contacts at one edge pushes its other edge into the support, and without the
 * margin that edge's contacts would be missing from the MLCP until the next step found it
 * inside. It does not catch a free motion that carries a point deeper than max_depth, or
 * through a thin part, within one step: that needs detection along the motion (continuous
 * detection), which this model does not do. Resting contacts pressed by gravity are found
 * with or without a margin, since each free motion sinks them.
 *
 * Pairs of convex polytopes (boxes, prisms, any closed surface whose faces are planar and
 * convex, up to POLYTOPE_MAX_FACES faces) are detected instead by the separating-axis test
 * with clipped face manifolds (convex_contact.h): face-face, edge-face and edge-edge contact
 * that points inside surfaces cannot see (boxes resting flush, corners on edges). Each such
 * contact joins a point of one surface (a vertex, a point of an edge or of a face, as
 * weights w_k on its vertices) to a point of the other, with the same rows:
 *
 *   g = n . (sum_k w_k p_k - sum_l w_l q_l),  dg/dp_k = +w_k n,  dg/dq_l = -w_l n.
 *
 * Every frame carries an identity (CwbContactSet.contact_ids): the features that made it,
 * or (point geometry, point, surface geometry) for a point contact, so a solver can warm-start
 * it. The margin is automatic by default (detection_automatic_margin, collision_detection.h).
 * The model keeps no other memory between steps. */
#include <cwb/cwb.h>

#include "surface_contacts.h"

typedef struct Proximity {
  DetectionParams detection;
  double margin_param;   /* the parameter: < 0 automatic */
  DetectionDepth depth;
  SurfaceContacts *detector;
  GArray *candidates;    /* ContactCandidate */
  GArray *manifold;      /* ManifoldContact */
  GArray *mobility;      /* Mobility per geometry, decided lazily in each model() */
  GArray *probe;         /* CwbPointWeight, scratch for point_response */
  GArray *response;      /* double, scratch for point_response */
} Proximity;

typedef enum Mobility {
  MOBILITY_UNKNOWN = 0,
  MOBILITY_FIXED = 1,
  MOBILITY_MOVES = 2,
} Mobility;

static const CwbParamSpec proximity_params[] = {
  DETECTION_PARAM_SPECS,
  { "margin", CWB_PARAM_DOUBLE, "m", "-1", -1, 1, NULL,
    "Points closer than this without touching also make contacts (gap >= 0), which carry "
    "force only if the step would close them: bodies falling together, the far edge of a "
    "body that turns as it lands. Negative: automatic, from gravity, the time step and "
    "the bodies' size (the report and the property editor show the value used)" },
};

static void
read_params (Proximity *self, const CwbParamSet *params)
{
  detection_params_read (&self->detection, &self->depth, params);
  self->margin_param = cwb_param_double (params, "margin", -1);
}

static void *
proximity_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                  GError **error)
{
  Proximity *self = g_new0 (Proximity, 1);
  detection_depth_init (&self->depth);
  read_params (self, info->params);
  self->detector = surface_contacts_new ();
  self->candidates = g_array_new (FALSE, FALSE, sizeof (ContactCandidate));
  self->manifold = g_array_new (FALSE, FALSE, sizeof (ManifoldContact));
  self->mobility = g_array_new (FALSE, TRUE, sizeof (Mobility));
  self->probe = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  self->response = g_array_new (FALSE, FALSE, sizeof (double));
  return self;
}

static void
proximity_destroy (void *data)
{
  Proximity *self = data;
  surface_contacts_free (self->detector);
  g_array_unref (self->candidates);
  g_array_unref (self->manifold);
  g_array_unref (self->mobility);
  g_array_unref (self->probe);
  g_array_unref (self->response);
  detection_depth_clear (&self->depth);
  g_free (self);
}

static void
proximity_params_changed (void *self, const CwbParamSet *params)
{
  read_params (self, params);
}

static gboolean
proximity_attach (void *data, const CwbContactQuery *query, GError **error)
{
  ((Proximity *) data)->depth.deepest = 0;   /* a new attachment has no last detection */
  return detection_check_geometries (query->geometries, query->n_geometries, "proximity",
                                     error);
}

static gboolean
proximity_detect (void *data, const CwbContactQuery *query, GError **error)
{
  Proximity *self = data;
  self->detection.margin = self->margin_param >= 0 ? self->margin_param
                                                   : detection_automatic_margin (query);
  detection_resolve (&self->detection, &self->depth, query);
  surface_contacts_run (self->detector, query->geometries, query->n_geometries,
                        &self->detection, self->manifold, self->candidates);
  self->depth.deepest = 0;
  for (guint k = 0; k < self->candidates->len; k++)
    self->depth.deepest = MAX (self->depth.deepest,
                               -g_array_index (self->candidates, ContactCandidate, k).gap);
  return TRUE;
}

/* Whether geometry g can move at all. A contact between two geometries that cannot move gets
 * a zero row of W, which no multiplier can satisfy: such contacts are left out, as the
 * penalty model leaves them out. The host says which bodies are fixed (ABI 1.4). An older
 * host is asked through point_response: the response to the same force on each point is
 * zero only for a fixed body (but for a deformable body that costs a factorisation). Without
 * either (a host before ABI 1.1) every geometry is taken to move. */
static gboolean
geometry_moves (Proximity *self, const CwbContactQuery *query, uint32_t g)
{
  Mobility *mobility = &g_array_index (self->mobility, Mobility, g);
  if (*mobility != MOBILITY_UNKNOWN)
    return *mobility == MOBILITY_MOVES;
  *mobility = MOBILITY_MOVES;
  if (CWB_STRUCT_HAS (query, CwbContactQuery, body_fixed) && query->body_fixed != NULL)
    {
      uint32_t body = query->geometries[g].body;
      gboolean moves = body >= query->n_bodies || !query->body_fixed[body];
      *mobility = moves ? MOBILITY_MOVES : MOBILITY_FIXED;
      return moves;
    }
  if (!CWB_STRUCT_HAS (query, CwbContactQuery, point_response) || query->point_response == NULL)
    return TRUE;
  const CwbGeometry *geometry = &query->geometries[g];
  size_t n = geometry->n_points;
  g_array_set_size (self->probe, n);
  g_array_set_size (self->response, 3 * MAX (n, 1));
  for (size_t i = 0; i < n; i++)
    g_array_index (self->probe, CwbPointWeight, i) =
      (CwbPointWeight) { .geometry = g, .point = (uint32_t) i, .w = { 1, 1, 1 } };
  const CwbPointWeight *probe = (const CwbPointWeight *) self->probe->data;
  double *dp = (double *) self->response->data;
  query->point_response (query->host_data, probe, n, probe, n, dp);
  gboolean moves = FALSE;
  for (size_t k = 0; k < 3 * n && !moves; k++)
    moves = dp[k] != 0;
  *mobility = moves ? MOBILITY_MOVES : MOBILITY_FIXED;
  return moves;
}

/* The set's arrays grown once for a detection's contacts (to what they can take: three rows
 * a frame, each on the contact's vertices), written in place and cut to what was written at
 * the end. */
typedef struct SetWriter {
  CwbContactSet *set;
  guint n_frames, n_rows, n_weights, n_ids;
  gboolean ids;
} SetWriter;

#define ROWS_PER_FRAME 3

static void
set_writer_begin (SetWriter *w, CwbContactSet *set, guint max_frames, guint max_weights)
{
  *w = (SetWriter) {
    .set = set,
    .n_frames = set->frames->len,
    .n_rows = set->rows->len,
    .n_weights = set->weights->len,
    .ids = CWB_STRUCT_HAS (set, CwbContactSet, contact_ids) && set->contact_ids != NULL,
  };
  g_array_set_size (set->frames, w->n_frames + max_frames);
  g_array_set_size (set->rows, w->n_rows + ROWS_PER_FRAME * max_frames);
  g_array_set_size (set->weights, w->n_weights + max_weights);
  if (w->ids)
    {
      w->n_ids = set->contact_ids->len;
      g_array_set_size (set->contact_ids, w->n_ids + max_frames);
    }
}

static void
set_writer_end (SetWriter *w)
{
  g_array_set_size (w->set->frames, w->n_frames);
  g_array_set_size (w->set->rows, w->n_rows);
  g_array_set_size (w->set->weights, w->n_weights);
  if (w->ids)
    g_array_set_size (w->set->contact_ids, w->n_ids);
}

/* One row of frame `frame`: +w_k `direction` on a's vertices, -w_l `direction` on b's. */
static void
write_row (SetWriter *w, CwbRowKind kind, uint32_t frame, const ManifoldContact *c,
           const double direction[3], double violation)
{
  const SurfacePoint *sides[2] = { &c->a, &c->b };
  CwbConstraintRow *row = &g_array_index (w->set->rows, CwbConstraintRow, w->n_rows++);
  *row = (CwbConstraintRow) {
    .kind = kind,
    .frame = frame,
    .first_weight = w->n_weights,
    .n_weights = sides[0]->n + sides[1]->n,
    .violation = violation,
  };
  CwbPointWeight *weight = &g_array_index (w->set->weights, CwbPointWeight, w->n_weights);
  w->n_weights += row->n_weights;
  for (int s = 0; s < 2; s++)
    for (uint32_t k = 0; k < sides[s]->n; k++, weight++)
      {
        *weight = (CwbPointWeight) { .geometry = sides[s]->geometry,
                                     .point = sides[s]->vertex[k] };
        cwb_v3_scale (weight->w, direction,
                      s == 0 ? sides[s]->weight[k] : -sides[s]->weight[k]);
      }
}

/* A point candidate as a contact between two surface points: the point itself, and the
 * closest point of the surface on T (vertices with h_j = 0 carry nothing and are left out). */
static void
candidate_contact (const CwbContactQuery *query, const ContactCandidate *c,
                   ManifoldContact *out)
{
  const CwbGeometry *a = &query->geometries[c->point_geometry];
  const CwbGeometry *b = &query->geometries[c->surface_geometry];
  *out = (ManifoldContact) {
    .a = { .geometry = c->point_geometry, .n = 1, .vertex = { c->point }, .weight = { 1 } },
    .b = { .geometry = c->surface_geometry },
    .gap = c->gap,
    .id = contact_candidate_id (c),
  };
  cwb_v3_copy (out->a.position, &a->positions[3 * c->point]);
  for (int j = 0; j < 3; j++)
    {
      uint32_t v = b->triangles[3 * c->triangle + j];
      cwb_v3_axpy (out->b.position, c->bary[j], &b->positions[3 * v]);
      if (c->bary[j] == 0)
        continue;
      out->b.vertex[out->b.n] = v;
      out->b.weight[out->b.n++] = c->bary[j];
    }
  cwb_v3_copy (out->normal, c->normal);
}

/* One contact frame, its rows and its identity; the depth shown when it penetrates. */
static void
add_contact (const CwbContactQuery *query, const ManifoldContact *c, SetWriter *w,
             CwbInspection *inspection, double *deepest)
{
  const CwbGeometry *a = &query->geometries[c->a.geometry];
  const CwbGeometry *b = &query->geometries[c->b.geometry];
  double mu = cwb_friction_combine (query->friction[a->body], query->friction[b->body]);
  gboolean friction = mu > 0 && query->pass == CWB_CONTACT_PASS_VELOCITY;
  uint32_t frame_index = w->n_frames++;
  CwbContactFrame *frame = &g_array_index (w->set->frames, CwbContactFrame, frame_index);
  *frame = (CwbContactFrame) {
    .mu = mu,
    .body_a = a->body,
    .body_b = b->body,
    .first_row = w->n_rows,
    .n_rows = friction ? 3 : 1,
    .gap = c->gap,
  };
  cwb_v3_copy (frame->origin, c->b.position);
  cwb_v3_copy (frame->normal, c->normal);
  cwb_v3_tangents (frame->normal, frame->t1, frame->t2);
  if (w->ids)
    g_array_index (w->set->contact_ids, guint64, w->n_ids++) = c->id;
  write_row (w, CWB_ROW_NORMAL, frame_index, c, frame->normal, c->gap);
  if (friction)
    {
      write_row (w, CWB_ROW_TANGENT, frame_index, c, frame->t1, 0);
      write_row (w, CWB_ROW_TANGENT, frame_index, c, frame->t2, 0);
    }
  if (c->gap >= 0)
    return;
  /* A penetrating contact shows its depth vector at its point of a, as the penalty model's. */
  *deepest = MAX (*deepest, -c->gap);
  CwbInspectVector depth = { .kind = CWB_VECTOR_DEPTH,
                             .geometry = c->a.geometry, .point = c->a.vertex[0] };
  cwb_v3_copy (depth.origin, c->a.position);
  cwb_v3_sub (depth.vector, c->b.position, c->a.position);
  g_array_append_val (inspection->vectors, depth);
}

static gboolean
proximity_model (void *data, const CwbContactQuery *query, CwbContactSet *set,
                 CwbInspection *inspection, GError **error)
{
  Proximity *self = data;
  g_array_set_size (self->mobility, MAX (query->n_geometries, 1));
  memset (self->mobility->data, 0, self->mobility->len * sizeof (Mobility));
  double deepest = 0;
  /* A point candidate's rows weigh its point and up to three vertices of the triangle. */
  guint max_weights = ROWS_PER_FRAME * 4 * self->candidates->len;
  for (guint k = 0; k < self->manifold->len; k++)
    {
      const ManifoldContact *c = &g_array_index (self->manifold, ManifoldContact, k);
      max_weights += ROWS_PER_FRAME * (c->a.n + c->b.n);
    }
  SetWriter writer;
  set_writer_begin (&writer, set, self->manifold->len + self->candidates->len, max_weights);
  for (guint k = 0; k < self->manifold->len; k++)
    {
      const ManifoldContact *c = &g_array_index (self->manifold, ManifoldContact, k);
      if (geometry_moves (self, query, c->a.geometry)
          || geometry_moves (self, query, c->b.geometry))
        add_contact (query, c, &writer, inspection, &deepest);
    }
  for (guint k = 0; k < self->candidates->len; k++)
    {
      const ContactCandidate *candidate =
        &g_array_index (self->candidates, ContactCandidate, k);
      if (!geometry_moves (self, query, candidate->point_geometry)
          && !geometry_moves (self, query, candidate->surface_geometry))
        continue;
      ManifoldContact c;
      candidate_contact (query, candidate, &c);
      add_contact (query, &c, &writer, inspection, &deepest);
    }
  set_writer_end (&writer);
  set->intersection_volume = NAN;   /* point contacts have no volume */
  set->max_penetration = deepest;
  /* Every pair within the margin is in the set, its rows linear in the points: a solver can
   * measure a small motion through them (CwbContactSet.reach, ABI 1.11). */
  if (CWB_STRUCT_HAS (set, CwbContactSet, reach))
    set->reach = self->detection.margin;
  if (self->margin_param < 0)
    cwb_inspection_add_derived (inspection, "margin", self->detection.margin);
  detection_depth_publish (&self->depth, &self->detection, inspection);
  return TRUE;
}
/* Signorini and Coulomb rows, for the constraint solver. */
static uint32_t
proximity_outputs (void *self)
{
  (void) self;
  return CWB_CONTACT_OUTPUT_ROWS;
}

static const CwbContactModelVTable proximity_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = proximity_create,
  .destroy = proximity_destroy,
  .attach = proximity_attach,
  .detect = proximity_detect,
  .model = proximity_model,
  .params_changed = proximity_params_changed,
  .outputs = proximity_outputs,
};

static const CwbPluginDesc proximity_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_CONTACT_MODEL,
  .name = "proximity",
  .version = "0.2.0",
  .summary = "Point and convex-manifold contacts between closed surfaces as Signorini and "
             "Coulomb constraint rows (Saupin 2008 sec. 2.3)",
  .params = proximity_params,
  .n_params = G_N_ELEMENTS (proximity_params),
  .vtable = &proximity_vtable,
};

CWB_DEFINE_PLUGIN (proximity_desc)

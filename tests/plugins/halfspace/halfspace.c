/* A TEST-ONLY contact model: every geometry point against a static half-space
 * { x : n . x >= offset }. It exists so the host, the rigid plugins and the constraint solver
 * can be tested through the whole pipeline before the real contact models (ldi, penalty,
 * eulerian) exist, against closed forms such as Coulomb's inclined plane.
 *
 * Each point closer to the plane than `margin` (or behind it) becomes a point contact: one
 * normal row g = n . p - offset - r (r: the particle radius, 0 for surface vertices) with
 * weight n on the point, and, in the velocity pass, two friction rows along t1, t2. The plane
 * is the static environment (body_b = CWB_NO_BODY); the friction coefficient is the body's
 * material's, as the plane has none.
 *
 * With a positive `stiffness` it makes penalty contacts instead: a force k (-g) n on every
 * point behind the plane, and no rows, so that the solvers' penalty path is tested too.
 * `stabilization_passes` is what its sets ask of the solver (ABI 1.10), so that a test can
 * check that a solver honours what any model asks. Its sets state the margin as their reach
 * (ABI 1.11: every point within it is in the set) unless `state_reach` is 0, and it
 * publishes the detections it has made as the derived value `detections`, so that a test
 * can count them. */
#include <cwb/cwb.h>

typedef struct HalfSpace {
  double normal[3];   /* unit */
  double offset;      /* plane: n . x = offset */
  double margin;      /* contacts are made for gaps below this, so resting contact persists */
  double stiffness;   /* > 0: penalty forces instead of constraint rows */
  uint32_t stabilization_passes;   /* CwbContactSet.stabilization_passes of its sets */
  gboolean state_reach;            /* CwbContactSet.reach = margin */
  double detections;               /* model() calls since creation */
} HalfSpace;

static const CwbParamSpec halfspace_params[] = {
  { "normal", CWB_PARAM_VEC3, "1", "[0, 0, 1]", 1, 0, NULL,
    "Outward normal of the half-space (normalised; must not be zero)" },
  { "offset", CWB_PARAM_DOUBLE, "m", "0", 1, 0, NULL,
    "Position of the boundary plane along the normal: n . x = offset" },
  { "margin", CWB_PARAM_DOUBLE, "m", "0", 0, 1, NULL,
    "Points closer than this to the plane make contacts, so a resting body keeps them" },
  { "stiffness", CWB_PARAM_DOUBLE, "N/m", "0", 0, 1e12, NULL,
    "0: constraint rows; > 0: penalty forces k (-gap) n on the points behind the plane" },
  { "stabilization_passes", CWB_PARAM_INT, "1", "0", 0, 1000, NULL,
    "Post-stabilization passes its sets ask the solver for (0: no need stated)" },
  { "state_reach", CWB_PARAM_INT, "1", "1", 0, 1, NULL,
    "1: its sets state the margin as their reach (every point within it is in the set)" },
};

static gboolean
read_params (HalfSpace *self, const CwbParamSet *params, GError **error)
{
  const CwbParamValue *n = cwb_param_find (params, "normal");
  double normal[3] = { 0, 0, 1 };
  if (n != NULL)
    cwb_v3_copy (normal, n->v3);
  if (cwb_v3_normalize (normal) == 0)
    {
      g_set_error_literal (error, g_quark_from_string ("halfspace"), 0,
                           "contact.normal: expected a non-zero vector, got [0, 0, 0]");
      return FALSE;
    }
  cwb_v3_copy (self->normal, normal);
  self->offset = cwb_param_double (params, "offset", 0);
  self->margin = cwb_param_double (params, "margin", 0);
  self->stiffness = cwb_param_double (params, "stiffness", 0);
  self->stabilization_passes = (uint32_t) cwb_param_int (params, "stabilization_passes", 0);
  self->state_reach = cwb_param_int (params, "state_reach", 1) != 0;
  return TRUE;
}

static void *
halfspace_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                  GError **error)
{
  HalfSpace *self = g_new0 (HalfSpace, 1);
  if (!read_params (self, info->params, error))
    {
      g_free (self);
      return NULL;
    }
  return self;
}

static void
halfspace_destroy (void *self)
{
  g_free (self);
}

static void
halfspace_params_changed (void *data, const CwbParamSet *params)
{
  HalfSpace *self = data;
  HalfSpace edited = *self;
  g_autoptr (GError) error = NULL;
  if (read_params (&edited, params, &error))
    *self = edited;
  else
    g_warning ("%s; the previous values stay", error->message);
}

/* Every geometry kind is supported: surfaces by their vertices, particles by their spheres. */
static gboolean
halfspace_attach (void *self, const CwbContactQuery *query, GError **error)
{
  return TRUE;
}

/* Detection and modelling are one pass over the points; it is done in model() so the
 * detection phase (which the host times separately) only covers the mapping. */
static gboolean
halfspace_detect (void *self, const CwbContactQuery *query, GError **error)
{
  return TRUE;
}

static void
add_row (CwbContactSet *set, CwbRowKind kind, uint32_t frame, uint32_t geometry,
         uint32_t point, const double direction[3], double violation)
{
  CwbConstraintRow row = {
    .kind = kind,
    .frame = frame,
    .first_weight = set->weights->len,
    .n_weights = 1,
    .violation = violation,
  };
  CwbPointWeight w = { .geometry = geometry, .point = point };
  cwb_v3_copy (w.w, direction);
  g_array_append_val (set->weights, w);
  g_array_append_val (set->rows, row);
}

/* A penalty contact: the force k (-gap) n on the point (none while the point is in front of
 * the plane, within the margin), with its frame for the overlays, and its stiffness
 * d f / d p = -k n n^T for implicit integrators. */
static void
add_penalty (CwbContactSet *set, const HalfSpace *self, const CwbGeometry *geom,
             uint32_t geometry, uint32_t point, const double x[3], double gap, double mu)
{
  double magnitude = self->stiffness * MAX (0, -gap);
  CwbContactFrame frame = {
    .mu = mu,
    .body_a = geom->body,
    .body_b = CWB_NO_BODY,
    .gap = gap,
    .force = { magnitude, 0, 0 },
    .state = magnitude > 0 ? CWB_CONTACT_STICK : CWB_CONTACT_OPEN,
  };
  cwb_v3_copy (frame.origin, x);
  cwb_v3_copy (frame.normal, self->normal);
  cwb_v3_tangents (self->normal, frame.t1, frame.t2);
  g_array_append_val (set->frames, frame);
  CwbPointWeight force = { .geometry = geometry, .point = point };
  cwb_v3_scale (force.w, self->normal, magnitude);
  g_array_append_val (set->forces, force);
  CwbPointStiffness k = { geometry, point, geometry, point, { 0 } };
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      k.k[3 * i + j] = -self->stiffness * self->normal[i] * self->normal[j];
  g_array_append_val (set->stiffness, k);
}

static gboolean
halfspace_model (void *data, const CwbContactQuery *query, CwbContactSet *set,
                 CwbInspection *inspection, GError **error)
{
  HalfSpace *self = data;
  double t1[3], t2[3];
  cwb_v3_tangents (self->normal, t1, t2);
  double deepest = 0;
  for (size_t g = 0; g < query->n_geometries; g++)
    {
      const CwbGeometry *geom = &query->geometries[g];
      double mu = query->friction[geom->body];
      gboolean friction = mu > 0 && query->pass == CWB_CONTACT_PASS_VELOCITY;
      for (size_t p = 0; p < geom->n_points; p++)
        {
          const double *x = &geom->positions[3 * p];
          double radius = geom->kind == CWB_GEOMETRY_PARTICLES ? geom->radii[p] : 0;
          double gap = cwb_v3_dot (self->normal, x) - self->offset - radius;
          if (gap >= self->margin)
            continue;
          deepest = MAX (deepest, -gap);
          if (self->stiffness > 0)
            {
              add_penalty (set, self, geom, (uint32_t) g, (uint32_t) p, x, gap, mu);
              continue;
            }
          uint32_t frame_index = set->frames->len;
          CwbContactFrame frame = {
            .mu = mu,
            .body_a = geom->body,
            .body_b = CWB_NO_BODY,
            .first_row = set->rows->len,
            .n_rows = friction ? 3 : 1,
            .gap = gap,
          };
          /* The contact point lies on the plane, below the vertex (or the sphere's centre). */
          cwb_v3_copy (frame.origin, x);
          cwb_v3_axpy (frame.origin, -(gap + radius), self->normal);
          cwb_v3_copy (frame.normal, self->normal);
          cwb_v3_copy (frame.t1, t1);
          cwb_v3_copy (frame.t2, t2);
          g_array_append_val (set->frames, frame);
          add_row (set, CWB_ROW_NORMAL, frame_index, (uint32_t) g, (uint32_t) p, self->normal,
                   gap);
          if (friction)
            {
              add_row (set, CWB_ROW_TANGENT, frame_index, (uint32_t) g, (uint32_t) p, t1, 0);
              add_row (set, CWB_ROW_TANGENT, frame_index, (uint32_t) g, (uint32_t) p, t2, 0);
            }
        }
    }
  set->max_penetration = deepest;
  if (CWB_STRUCT_HAS (set, CwbContactSet, stabilization_passes))
    set->stabilization_passes = self->stabilization_passes;
  if (CWB_STRUCT_HAS (set, CwbContactSet, reach) && self->state_reach)
    set->reach = self->margin;
  self->detections++;
  cwb_inspection_add_derived (inspection, "detections", self->detections);
  return TRUE;
}

/* Rows, or penalty forces with a positive stiffness: what a parameter edit can change. */
static uint32_t
halfspace_outputs (void *data)
{
  const HalfSpace *self = data;
  return self->stiffness > 0 ? CWB_CONTACT_OUTPUT_FORCES : CWB_CONTACT_OUTPUT_ROWS;
}

static const CwbContactModelVTable halfspace_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = halfspace_create,
  .destroy = halfspace_destroy,
  .attach = halfspace_attach,
  .detect = halfspace_detect,
  .model = halfspace_model,
  .params_changed = halfspace_params_changed,
  .outputs = halfspace_outputs,
};

static const CwbPluginDesc halfspace_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_CONTACT_MODEL,
  .name = "halfspace",
  .version = "1.0",
  .summary = "Test-only point contacts of every geometry point against a static half-space",
  .params = halfspace_params,
  .n_params = G_N_ELEMENTS (halfspace_params),
  .vtable = &halfspace_vtable,
};

CWB_DEFINE_PLUGIN (halfspace_desc)

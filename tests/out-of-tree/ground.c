/* The worked example of docs/plugin-guide.md, verbatim below this comment (the test checks
 * that the two stay the same): a contact model built out of tree, against the installed
 * <cwb/cwb.h> only, by tests/out-of-tree/test_out_of_tree.sh. */

#include <cwb/cwb.h>

typedef struct Ground {
  double height;
} Ground;

static const CwbParamSpec ground_params[] = {
  { "height", CWB_PARAM_DOUBLE, "m", "0", 1, 0, NULL, "Height of the ground plane" },
};

static void *
ground_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
               GError **error)
{
  Ground *self = g_new0 (Ground, 1);
  self->height = cwb_param_double (info->params, "height", 0);
  return self;
}

static void ground_destroy (void *self) { g_free (self); }

/* Any geometry with points will do. */
static gboolean
ground_attach (void *self, const CwbContactQuery *query, GError **error)
{
  return TRUE;
}

/* Nothing to prepare: the test is per point. */
static gboolean
ground_detect (void *self, const CwbContactQuery *query, GError **error)
{
  return TRUE;
}

static gboolean
ground_model (void *data, const CwbContactQuery *query, CwbContactSet *set,
              CwbInspection *inspection, GError **error)
{
  Ground *self = data;
  const double n[3] = { 0, 0, 1 };
  set->max_penetration = 0;
  for (size_t g = 0; g < query->n_geometries; g++)
    {
      const CwbGeometry *geom = &query->geometries[g];
      for (size_t p = 0; p < geom->n_points; p++)
        {
          double gap = geom->positions[3 * p + 2] - self->height;
          if (gap >= 0)
            continue;
          CwbContactFrame frame = {
            .mu = query->friction[geom->body],
            .body_a = geom->body, .body_b = CWB_NO_BODY,
            .first_row = set->rows->len, .n_rows = 1, .gap = gap,
          };
          cwb_v3_copy (frame.origin, &geom->positions[3 * p]);
          cwb_v3_copy (frame.normal, n);
          cwb_v3_tangents (n, frame.t1, frame.t2);
          /* One normal row: g = z - height, dg/dp = n on this point. */
          CwbConstraintRow row = {
            .kind = CWB_ROW_NORMAL, .frame = set->frames->len,
            .first_weight = set->weights->len, .n_weights = 1, .violation = gap,
          };
          CwbPointWeight w = { .geometry = (uint32_t) g, .point = (uint32_t) p };
          cwb_v3_copy (w.w, n);
          g_array_append_val (set->weights, w);
          g_array_append_val (set->rows, row);
          g_array_append_val (set->frames, frame);
          set->max_penetration = MAX (set->max_penetration, -gap);
        }
    }
  return TRUE;
}

static const CwbContactModelVTable ground_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = ground_create, .destroy = ground_destroy, .attach = ground_attach,
  .detect = ground_detect, .model = ground_model,
};

static const CwbPluginDesc ground_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR, .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_CONTACT_MODEL,
  .name = "ground", .version = "1.0",
  .summary = "Frictionless point contacts against a horizontal ground plane",
  .params = ground_params, .n_params = G_N_ELEMENTS (ground_params),
  .vtable = &ground_vtable,
};

CWB_DEFINE_PLUGIN (ground_desc)

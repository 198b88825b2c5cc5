/* A TEST-ONLY body model: a fixed body with the rigid body's state layout (nq 7: position and
 * unit quaternion; nv 6), so the rigid mapping embeds it. It exists so the world's editing
 * tests have two body models with the same DOF counts: cwb_world_carry_state must tell bodies
 * apart by model, not by sizes alone. */
#include <cwb/cwb.h>

#define FROZEN_NQ 7
#define FROZEN_NV 6

typedef struct Frozen {
  double position[3];
  double orientation[4];
  /* The shape in its mesh frame, which is the body frame here (the centre of mass is not
   * needed: the body never moves). Its arrays are the host's, valid while the mapping is
   * created from it. */
  CwbSurfaceMesh reference;
} Frozen;

static void *
frozen_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  Frozen *self = g_new0 (Frozen, 1);
  cwb_v3_copy (self->position, info->position);
  memcpy (self->orientation, info->orientation, sizeof self->orientation);
  self->reference = *info->surface;
  return self;
}

static void
frozen_destroy (void *self)
{
  g_free (self);
}

static void
frozen_get_info (void *data, CwbBodyInfo *info)
{
  Frozen *self = data;
  /* Mass 0 stands for "infinite" on a fixed body, as with the rigid model. */
  *info = (CwbBodyInfo){
    .struct_size = sizeof (CwbBodyInfo),
    .nq = FROZEN_NQ,
    .nv = FROZEN_NV,
    .fixed = TRUE,
    .reference_surface = &self->reference,
  };
}

static void
frozen_init_state (void *data, double *q, double *v)
{
  Frozen *self = data;
  cwb_v3_copy (q, self->position);
  memcpy (q + 3, self->orientation, sizeof self->orientation);
  memset (v, 0, FROZEN_NV * sizeof (double));
}

static void
frozen_free_motion (void *self, const CwbFreeMotion *a)
{
  memcpy (a->q_free, a->q, FROZEN_NQ * sizeof (double));
  memset (a->v_free, 0, FROZEN_NV * sizeof (double));
}

static void
frozen_integrate_position (void *self, const double *q, const double *dv, double h,
                           double *q_out)
{
  if (q_out != q)
    memcpy (q_out, q, FROZEN_NQ * sizeof (double));
}

static void
frozen_compliance_apply (void *self, const double *q, double h, CwbCompliance kind,
                         const double *r, double *dq)
{
  memset (dq, 0, FROZEN_NV * sizeof (double));
}

static void
frozen_mass_apply (void *self, const double *q, const double *x, double *y)
{
  memset (y, 0, FROZEN_NV * sizeof (double));
}

static void
frozen_summary (void *self, const double *q, const double *v, CwbBodySummary *out)
{
  *out = (CwbBodySummary){ .struct_size = sizeof (CwbBodySummary) };
  cwb_v3_copy (out->centroid, q);
  memcpy (out->orientation, q + 3, sizeof out->orientation);
}

static const CwbBodyModelVTable frozen_vtable = {
  .struct_size = sizeof (CwbBodyModelVTable),
  .create = frozen_create,
  .destroy = frozen_destroy,
  .get_info = frozen_get_info,
  .init_state = frozen_init_state,
  .free_motion = frozen_free_motion,
  .integrate_position = frozen_integrate_position,
  .compliance_apply = frozen_compliance_apply,
  .mass_apply = frozen_mass_apply,
  .summary = frozen_summary,
};

static const CwbPluginDesc frozen_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_BODY_MODEL,
  .name = "frozen",
  .version = "1.0",
  .summary = "Test-only fixed body with the rigid state layout",
  .vtable = &frozen_vtable,
};

CWB_DEFINE_PLUGIN (frozen_desc)

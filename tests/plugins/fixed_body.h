/* TEST-ONLY: the operations of a fixed body with the rigid body's state layout (nq 7: position
 * and unit quaternion; nv 6), so the rigid mapping embeds it. Shared by the test body models
 * that differ only in how they are made (frozen, slow); each includes this once and adds its
 * own create and description. */
#pragma once

#include <cwb/cwb.h>

#define FIXED_NQ 7
#define FIXED_NV 6

typedef struct FixedBody {
  double position[3];
  double orientation[4];
  /* The shape in its mesh frame, which is the body frame here (the centre of mass is not
   * needed: the body never moves). Its arrays are the host's, valid while the mapping is
   * created from it. */
  CwbSurfaceMesh reference;
} FixedBody;

static void
fixed_init (FixedBody *self, const CwbBodyCreateInfo *info)
{
  cwb_v3_copy (self->position, info->position);
  memcpy (self->orientation, info->orientation, sizeof self->orientation);
  self->reference = *info->surface;
}

static void
fixed_destroy (void *self)
{
  g_free (self);
}

static void
fixed_get_info (void *data, CwbBodyInfo *info)
{
  FixedBody *self = data;
  /* Mass 0 stands for "infinite" on a fixed body, as with the rigid model. */
  *info = (CwbBodyInfo){
    .struct_size = sizeof (CwbBodyInfo),
    .nq = FIXED_NQ,
    .nv = FIXED_NV,
    .fixed = TRUE,
    .reference_surface = &self->reference,
  };
}

static void
fixed_init_state (void *data, double *q, double *v)
{
  FixedBody *self = data;
  cwb_v3_copy (q, self->position);
  memcpy (q + 3, self->orientation, sizeof self->orientation);
  memset (v, 0, FIXED_NV * sizeof (double));
}

static void
fixed_free_motion (void *self, const CwbFreeMotion *a)
{
  memcpy (a->q_free, a->q, FIXED_NQ * sizeof (double));
  memset (a->v_free, 0, FIXED_NV * sizeof (double));
}

static void
fixed_integrate_position (void *self, const double *q, const double *dv, double h,
                          double *q_out)
{
  if (q_out != q)
    memcpy (q_out, q, FIXED_NQ * sizeof (double));
}

static void
fixed_compliance_apply (void *self, const double *q, double h, CwbCompliance kind,
                        const double *r, double *dq)
{
  memset (dq, 0, FIXED_NV * sizeof (double));
}

static void
fixed_mass_apply (void *self, const double *q, const double *x, double *y)
{
  memset (y, 0, FIXED_NV * sizeof (double));
}

static void
fixed_summary (void *self, const double *q, const double *v, CwbBodySummary *out)
{
  *out = (CwbBodySummary){ .struct_size = sizeof (CwbBodySummary) };
  cwb_v3_copy (out->centroid, q);
  memcpy (out->orientation, q + 3, sizeof out->orientation);
}

/* The vtable of a fixed body whose create is `create`. */
#define FIXED_BODY_VTABLE(create_fn)                                                         \
  {                                                                                          \
    .struct_size = sizeof (CwbBodyModelVTable), .create = (create_fn),                      \
    .destroy = fixed_destroy, .get_info = fixed_get_info, .init_state = fixed_init_state,   \
    .free_motion = fixed_free_motion, .integrate_position = fixed_integrate_position,       \
    .compliance_apply = fixed_compliance_apply, .mass_apply = fixed_mass_apply,             \
    .summary = fixed_summary,                                                                \
  }

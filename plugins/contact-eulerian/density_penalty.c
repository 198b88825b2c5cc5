/* Faure 2007 eq. 2 and 3 at one grid point (see the header). */
#include "density_penalty.h"

#include <math.h>

DensityContact
density_contact_kind (const DensitySample *a, const DensitySample *b, const gboolean on_face[2])
{
  double na = cwb_v3_norm (a->gradient), nb = cwb_v3_norm (b->gradient);
  if (!(na > 0 && nb > 0))
    return DENSITY_CONTACT_NONE;
  if (-cwb_v3_dot (a->gradient, b->gradient) >= cos (DENSITY_FACE_ANGLE) * na * nb)
    return DENSITY_CONTACT_AVERAGED;
  if (on_face[0] != on_face[1])
    return on_face[0] ? DENSITY_CONTACT_FACE_A : DENSITY_CONTACT_FACE_B;
  if (on_face[0] && MIN (na, nb) >= DENSITY_CROSSED_SLOPE_SHARE * MAX (na, nb))
    return DENSITY_CONTACT_CROSSED;
  return DENSITY_CONTACT_UNSURE;
}

int
density_crossed_face (const DensitySample *a, const DensitySample *b, const double reference[3])
{
  if (!(cwb_v3_norm (reference) > 0))
    return -1;
  double along_a = cwb_v3_dot (a->gradient, reference) / cwb_v3_norm (a->gradient);
  double along_b = -cwb_v3_dot (b->gradient, reference) / cwb_v3_norm (b->gradient);
  return along_a >= along_b ? 0 : 1;
}

void
density_penalty_force (double kv, const DensitySample *a, const DensitySample *b,
                       double force[3])
{
  double scale = 0.5 * kv * density_overlap (a, b);
  for (int c = 0; c < 3; c++)
    force[c] = scale * (a->gradient[c] - b->gradient[c]);
}

void
density_penalty_stiffness (double kv, const DensitySample *a, const DensitySample *b,
                           double k[9])
{
  double overlap = density_overlap (a, b);
  double g[3];
  for (int c = 0; c < 3; c++)
    g[c] = a->gradient[c] - b->gradient[c];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      k[3 * r + c] = -0.25 * kv
                     * (g[r] * g[c]
                        + (overlap > 0 ? overlap * (a->hessian[3 * r + c] + b->hessian[3 * r + c])
                                       : 0));
}

void
density_penalty_body_stiffness (double kv, const DensitySample *a, const DensitySample *b,
                                int moving, double k[9])
{
  double overlap = density_overlap (a, b);
  const DensitySample *m = moving == 0 ? a : b;
  double curvature = moving == 0 ? overlap : -overlap;
  double g[3];
  for (int c = 0; c < 3; c++)
    g[c] = a->gradient[c] - b->gradient[c];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      k[3 * r + c] = -0.5 * kv
                     * (g[r] * m->gradient[c]
                        + (overlap > 0 ? curvature * m->hessian[3 * r + c] : 0));
}

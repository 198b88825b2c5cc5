/* A node-based deformable body's summary (node_summary.h). */
#include <cwb/vecmath.h>

#include "node_summary.h"
#include "polar_rotation.h"

void
node_summary (const double *q, const double *v, const double *rest, const double com_rest[3],
              const double *node_mass, size_t n, double mass, CwbBodySummary *out)
{
  *out = (CwbBodySummary) { .struct_size = sizeof (CwbBodySummary), .mass = mass };
  double com[3] = { 0, 0, 0 }, momentum[3] = { 0, 0, 0 };
  for (size_t i = 0; i < n; i++)
    {
      cwb_v3_axpy (com, node_mass[i], &q[3 * i]);
      cwb_v3_axpy (momentum, node_mass[i], &v[3 * i]);
      out->kinetic_energy += 0.5 * node_mass[i] * cwb_v3_dot (&v[3 * i], &v[3 * i]);
    }
  cwb_v3_scale (out->centroid, com, 1 / mass);
  cwb_v3_copy (out->linear_momentum, momentum);
  cwb_v3_scale (out->linear_velocity, momentum, 1 / mass);

  /* Angular momentum and inertia about the centre of mass; the best-fit rotation of the
   * nodes onto their rest positions (polar part of sum m (x - c)(X - C)^T). */
  double inertia[9] = { 0 }, fit[9] = { 0 };
  for (size_t i = 0; i < n; i++)
    {
      double d[3], d0[3], l[3];
      cwb_v3_sub (d, &q[3 * i], out->centroid);
      cwb_v3_sub (d0, &rest[3 * i], com_rest);
      cwb_v3_cross (l, d, &v[3 * i]);
      cwb_v3_axpy (out->angular_momentum, node_mass[i], l);
      double d2 = cwb_v3_dot (d, d);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          {
            inertia[3 * a + b] += node_mass[i] * ((a == b ? d2 : 0) - d[a] * d[b]);
            fit[3 * a + b] += node_mass[i] * d[a] * d0[b];
          }
    }
  double rot[9], inverse[9];
  polar_rotation (fit, rot);
  cwb_quat_from_m3 (out->orientation, rot);
  if (cwb_m3_inverse (inverse, inertia) > 0)
    cwb_m3_mul_v3 (out->angular_velocity, inverse, out->angular_momentum);
}

/* Nodes at a body's creation pose and velocities (rigid_placement.h). */
#include "rigid_placement.h"

#include <string.h>

#include <cwb/vecmath.h>

void
rigid_placement_apply (const double *rest, size_t n, const double position[3],
                       const double orientation[4], const double com_rest[3],
                       const double linear_velocity[3], const double angular_velocity[3],
                       double *q, double *v)
{
  double rot[9], com[3];
  cwb_quat_to_m3 (rot, orientation);
  cwb_m3_mul_v3 (com, rot, com_rest);
  cwb_v3_add (com, com, position);
  for (size_t i = 0; i < n; i++)
    {
      double *x = &q[3 * i];
      cwb_m3_mul_v3 (x, rot, &rest[3 * i]);
      cwb_v3_add (x, x, position);
      double arm[3], spin[3];
      cwb_v3_sub (arm, x, com);
      cwb_v3_cross (spin, angular_velocity, arm);
      cwb_v3_add (&v[3 * i], linear_velocity, spin);
    }
}

void
rigid_placement_pose (const CwbBodyCreateInfo *info, double position[3], double orientation[4],
                      double linear_velocity[3], double angular_velocity[3])
{
  cwb_v3_copy (position, info->position);
  memcpy (orientation, info->orientation, 4 * sizeof (double));
  if (orientation[0] == 0 && orientation[1] == 0 && orientation[2] == 0 && orientation[3] == 0)
    cwb_quat_identity (orientation);
  cwb_quat_normalize (orientation);
  cwb_v3_copy (linear_velocity, info->linear_velocity);
  cwb_v3_copy (angular_velocity, info->angular_velocity);
}

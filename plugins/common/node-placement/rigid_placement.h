/* Nodes given in a body's own frame placed at its creation pose, moving with its creation
 * velocities as one rigid motion: shared by the body models whose state is node positions
 * and velocities (fem, sph, grid-fluid), and the creation pose itself (rigid too). */
#pragma once

#include <stddef.h>

#include <cwb/body_model.h>

/* x_i = R r_i + p and v_i = v + w x (x_i - c), with R the orientation (a unit quaternion
 * w, x, y, z), p the position, c = R c_rest + p the centre of mass, for the n nodes at rest
 * (3 n values) into q and v (3 n each). */
void rigid_placement_apply (const double *rest, size_t n, const double position[3],
                            const double orientation[4], const double com_rest[3],
                            const double linear_velocity[3], const double angular_velocity[3],
                            double *q, double *v);

/* The creation pose and velocities of `info` into position, orientation (the identity where
 * the info's is all zeros, normalised otherwise), linear and angular velocity. */
void rigid_placement_pose (const CwbBodyCreateInfo *info, double position[3],
                           double orientation[4], double linear_velocity[3],
                           double angular_velocity[3]);

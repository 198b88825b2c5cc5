/* The penalty of Faure 2007 sec. 4.2 at one grid point where two bodies' densities overlap.
 *
 * With rho_bar = rho_1 + rho_2 - 1 where positive, the energy is E = 1/2 k V rho_bar^2 (V the
 * volume a grid point stands for, k a stiffness in Pa). A displacement d_i of body i changes
 * its density at the fixed point r by -grad rho_i . d_i, so the force on body 1 is
 * -dE/dd_1 = k V rho_bar grad rho_1: along the gradient of its own density, into itself,
 * away from the overlap. (The paper writes eq. 1 and 2 as derivatives with respect to the
 * point r rather than the bodies' displacements, hence its opposite sign.) Averaged so that
 * the two forces are opposite (eq. 2):
 *     F_1 = -F_2 = k V / 2 rho_bar (grad rho_1 - grad rho_2).
 * Its derivative with respect to the bodies' relative displacement d = d_1 - d_2, half the
 * difference of the one-body derivatives (appendix A's average of eq. 7 and 8), is eq. 3
 * with the sign of a restoring stiffness:
 *     dF_1/dd = -k V / 4 (g g^T + rho_bar (H_1 + H_2)),   g = grad rho_1 - grad rho_2,
 * H_i the Hessian of rho_i: symmetric. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* One body's density at the point, with its first and second derivatives. */
typedef struct DensitySample {
  double rho;
  double gradient[3];
  double hessian[9];   /* row-major */
} DensitySample;

/* rho_bar: how far the two densities overlap (0 where they do not). */
static inline double
density_overlap (const DensitySample *a, const DensitySample *b)
{
  double overlap = a->rho + b->rho - 1;
  return overlap > 0 ? overlap : 0;
}

/* Eq. 2: the force on body a (body b takes its opposite); kv = k V. */
void density_penalty_force (double kv, const DensitySample *a, const DensitySample *b,
                            double force[3]);

/* Eq. 3: dF_a / d(d_a - d_b), row-major 3 x 3. */
void density_penalty_stiffness (double kv, const DensitySample *a, const DensitySample *b,
                                double k[9]);

/* The one-body derivatives eq. 3 averages (appendix A's eq. 7 and 8 at a fixed point):
 * dF_a / dd_a = -k V / 2 (g grad rho_a^T + rho_bar H_a) when `moving` is 0, and
 * dF_a / dd_b = -k V / 2 (g grad rho_b^T - rho_bar H_b) when it is 1, g = grad rho_a -
 * grad rho_b. Body b's force is -F_a, so its blocks are these negated. Not symmetric where
 * the gradients are not parallel; eq. 3 is (dF_a/dd_a - dF_a/dd_b) / 2. */
void density_penalty_body_stiffness (double kv, const DensitySample *a, const DensitySample *b,
                                     int moving, double k[9]);

G_END_DECLS

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

/* Two densities' gradients closer than this to opposite are both a point's contact
 * (density_contact_kind). */
#define DENSITY_FACE_ANGLE (G_PI / 12)
/* Where both bodies' closest points are on faces far from opposite, each gradient at least
 * this share of the steeper for the point to lie on both faces (DENSITY_CONTACT_CROSSED). */
#define DENSITY_CROSSED_SLOPE_SHARE 0.1

/* What a grid point's two densities say of the contact there, from each body's closest
 * surface point being on a face or not (`on_face`). Where a box's edge rests on a face, the
 * edge's density, rounded by the distance, points half sideways; the face under it is what
 * the contact's normal is, as feature-based detection has it. Where both closest points are
 * on faces far from opposite (a point beside a box's edge pressed into a face: the box's
 * nearest face there is the one across the edge), the point alone cannot tell which face
 * the contact is on. Both responses follow it: the constraint rows' normals
 * (cell_constraints.c) and the penalty forces' directions (eulerian_model.c). */
typedef enum DensityContact {
  DENSITY_CONTACT_NONE,      /* a gradient vanishes */
  DENSITY_CONTACT_AVERAGED,  /* the two gradients within DENSITY_FACE_ANGLE of opposite */
  DENSITY_CONTACT_FACE_A,    /* a's face under b's edge or vertex, the gradients farther */
  DENSITY_CONTACT_FACE_B,    /* b's face under a's edge or vertex */
  DENSITY_CONTACT_CROSSED,   /* both on faces farther from opposite, both gradients steep */
  DENSITY_CONTACT_UNSURE,    /* farther from opposite, neither on a face (or one flat) */
} DensityContact;

DensityContact density_contact_kind (const DensitySample *a, const DensitySample *b,
                                     const gboolean on_face[2]);

/* Which face a point on two faces (DENSITY_CONTACT_CROSSED) is on: 0 (a's) or 1 (b's),
 * the one whose normal (from b towards a) is nearer `reference` (the pair's normal where
 * its points are sure of it); -1 without a reference (eq. 2's average). */
int density_crossed_face (const DensitySample *a, const DensitySample *b,
                          const double reference[3]);

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

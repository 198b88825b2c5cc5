/* The local Coulomb friction problem of one contact, shared by every contact model and
 * solver that needs it (static inline, like vecmath.h, so plugins need not link anything).
 *
 * Find the tangential force f (2 components in an orthonormal basis of the tangent plane)
 * with |f| <= radius (= mu f_n) such that
 *     w f + c = 0                          (stick, |f| < radius), or
 *     w f + c = -s f / |f|,  s >= 0        (slip, |f| = radius: the force opposes the slip),
 * where c is the tangential slip (displacement or velocity) without friction and w the
 * symmetric positive semi-definite 2x2 response of the slip to the force (row-major). On the
 * boundary this is (w + (s / radius) I) f = -c with |f| = radius, a secular equation in s
 * solved by Newton on 1/|f(s)| - 1/radius (More & Sorensen 1983), which converges
 * monotonically from s = 0. For an isotropic w it reduces to the radial projection of the
 * stick force; for an anisotropic one (a rigid body's corner) it still makes a sliding force
 * exactly oppose the slip, which the radial projection does not. */
#pragma once

#include <math.h>

#include <glib.h>

G_BEGIN_DECLS

/* Newton on the secular equation converges quadratically from the left; 60 iterations are
 * far more than the ~10 it takes from the worst start, and bound the work on bad input. */
#define CWB_COULOMB_DISK_MAX_NEWTON 60
/* Relative accuracy of |f| = radius on the friction disk: a few ulps above double
 * round-off, so the converged force is on the cone to machine precision. */
#define CWB_COULOMB_DISK_RELATIVE_TOLERANCE 1e-14
/* An eigenvalue of the 2x2 tangential block below this fraction of the largest counts as
 * zero (a tangent direction no DOF can move): the stick solution is then taken through the
 * regularised secular equation instead of an inverse. 1e-12 is well above the round-off of
 * forming W (1e-16 relative) and far below any physical anisotropy. */
#define CWB_COULOMB_DISK_SINGULAR_RATIO 1e-12

static inline void
cwb_coulomb_disk_solve (const double w[4], const double c[2], double radius, double f[2])
{
  f[0] = f[1] = 0;
  if (!(radius > 0) || (c[0] == 0 && c[1] == 0))
    return;
  /* w = Q diag(l) Q^T with Q the rotation by theta (robust for any symmetric 2x2). */
  double a = w[0], b = 0.5 * (w[1] + w[2]), d = w[3];
  double theta = 0.5 * atan2 (2 * b, a - d);
  double cs = cos (theta), sn = sin (theta);
  double l[2] = { a * cs * cs + 2 * b * sn * cs + d * sn * sn,
                  a * sn * sn - 2 * b * sn * cs + d * cs * cs };
  double cp[2] = { cs * c[0] + sn * c[1], -sn * c[0] + cs * c[1] };   /* Q^T c */
  double l_max = MAX (l[0], l[1]), l_min = MIN (l[0], l[1]);
  if (!(l_max > 0))
    return;   /* no DOF moves tangentially: no friction force can act */

  /* f(alpha) = -(w + alpha I)^-1 c; alpha = s / radius >= 0. */
  double alpha = 0;
  if (l_min <= CWB_COULOMB_DISK_SINGULAR_RATIO * l_max)
    alpha = MAX (0, -l_min) + CWB_COULOMB_DISK_SINGULAR_RATIO * l_max;
  double fp[2] = { 0, 0 };
  for (int k = 0; k <= CWB_COULOMB_DISK_MAX_NEWTON; k++)
    {
      double n2 = 0, n3 = 0;
      for (int i = 0; i < 2; i++)
        {
          double inv = 1 / (l[i] + alpha);
          fp[i] = -cp[i] * inv;
          n2 += fp[i] * fp[i];
          n3 += fp[i] * fp[i] * inv;
        }
      double norm = sqrt (n2);
      if (alpha == 0 && norm <= radius)
        break;   /* stick: the unconstrained solution lies inside the disk */
      if (norm <= radius * (1 + CWB_COULOMB_DISK_RELATIVE_TOLERANCE))
        break;
      /* psi(alpha) = 1/|f| - 1/radius is concave and increasing: Newton from the left
       * never overshoots. psi' = (sum cp_i^2 / (l_i + alpha)^3) / |f|^3. */
      double psi = 1 / norm - 1 / radius;
      double dpsi = n3 / (n2 * norm);
      alpha -= psi / dpsi;
    }
  f[0] = cs * fp[0] - sn * fp[1];
  f[1] = sn * fp[0] + cs * fp[1];
  double norm = hypot (f[0], f[1]);
  if (norm > radius)
    {
      /* On the boundary: remove the last ulps so |f| <= mu f_n holds exactly. */
      f[0] *= radius / norm;
      f[1] *= radius / norm;
    }
}

G_END_DECLS

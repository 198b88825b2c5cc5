/* The local Coulomb friction problem of one contact, shared by every contact model and
 * solver that needs it (static inline, like vecmath.h, so plugins need not link anything):
 * the two friction sets a solver may enforce, the exact solve on the disk, and the check of a
 * solved contact against Signorini's and Coulomb's laws.
 *
 * Tangential quantities are 2-vectors in the contact frame's (t1, t2) basis: the force f and
 * the slip s (the tangential displacement over the step after the solve).
 *
 * The disk solve. Find f with |f| <= radius (= mu f_n) such that
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

/* The constant part of the disk solve for one 2x2 block w: its eigen decomposition
 * w = Q diag(l) Q^T, Q the rotation by theta, and the regularisation alpha_0 of a singular
 * block. A solver whose w stays the same over many solves (a contact's block during one
 * Gauss-Seidel solve) factors it once and solves with cwb_coulomb_disk_solve_factored. */
typedef struct CwbCoulombDisk {
  double cs, sn;      /* cos theta, sin theta */
  double l[2];        /* the eigenvalues, in Q's column order */
  double alpha0;      /* where Newton starts: 0, or the shift that makes a singular w + alpha I
                       * invertible (CWB_COULOMB_DISK_SINGULAR_RATIO) */
  gboolean moves;     /* FALSE when no DOF moves tangentially (l_max <= 0): no force acts */
} CwbCoulombDisk;

static inline void
cwb_coulomb_disk_factor (const double w[4], CwbCoulombDisk *disk)
{
  /* w = Q diag(l) Q^T with Q the rotation by theta (robust for any symmetric 2x2). */
  double a = w[0], b = 0.5 * (w[1] + w[2]), d = w[3];
  double theta = 0.5 * atan2 (2 * b, a - d);
  double cs = cos (theta), sn = sin (theta);
  disk->cs = cs;
  disk->sn = sn;
  disk->l[0] = a * cs * cs + 2 * b * sn * cs + d * sn * sn;
  disk->l[1] = a * sn * sn - 2 * b * sn * cs + d * cs * cs;
  double l_max = MAX (disk->l[0], disk->l[1]), l_min = MIN (disk->l[0], disk->l[1]);
  disk->moves = l_max > 0;
  disk->alpha0 = 0;
  if (disk->moves && l_min <= CWB_COULOMB_DISK_SINGULAR_RATIO * l_max)
    disk->alpha0 = MAX (0, -l_min) + CWB_COULOMB_DISK_SINGULAR_RATIO * l_max;
}

/* The disk solve (above) with w given by its factored form. */
static inline void
cwb_coulomb_disk_solve_factored (const CwbCoulombDisk *disk, const double c[2], double radius,
                                 double f[2])
{
  f[0] = f[1] = 0;
  if (!(radius > 0) || (c[0] == 0 && c[1] == 0) || !disk->moves)
    return;   /* no friction force can act */
  const double cs = disk->cs, sn = disk->sn;
  const double *l = disk->l;
  double cp[2] = { cs * c[0] + sn * c[1], -sn * c[0] + cs * c[1] };   /* Q^T c */

  /* f(alpha) = -(w + alpha I)^-1 c; alpha = s / radius >= 0. */
  double alpha = disk->alpha0;
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
  double n2 = f[0] * f[0] + f[1] * f[1];
  if (n2 > radius * radius)
    {
      /* On the boundary: remove the last ulps so |f| <= mu f_n holds exactly. */
      double scale = radius / sqrt (n2);
      f[0] *= scale;
      f[1] *= scale;
    }
}

static inline void
cwb_coulomb_disk_solve (const double w[4], const double c[2], double radius, double f[2])
{
  f[0] = f[1] = 0;
  if (!(radius > 0) || (c[0] == 0 && c[1] == 0))
    return;
  CwbCoulombDisk disk;
  cwb_coulomb_disk_factor (w, &disk);
  cwb_coulomb_disk_solve_factored (&disk, c, radius, f);
}

/* ---- the friction sets ---------------------------------------------------------------- */

/* 1 / sqrt 2 (M_SQRT1_2 is not ISO C, and the headers build with plain -std=c17). */
#define CWB_SQRT1_2 (0.5 * G_SQRT2)

/* Which set bounds the tangential force of radius r = mu f_n.
 *
 * CONE: the disk |f| <= r, Coulomb's isotropic cone (Saupin 2008 eq. 2).
 *
 * PYRAMID: the four-sided pyramid of Allard 2010 eq. 9-10. The force is written in the
 * symmetric basis (t1, t2, -t1, -t2) with weights beta >= 0 and bounded by ONE scalar
 * inequality, 0 <= sigma  perp  mu f_n - e.beta >= 0 with e all ones (eq. 9); the smallest
 * beta of a force f has e.beta = |f_1| + |f_2|, so the set is |f_1| + |f_2| <= r: a square
 * with its corners on +-t1 and +-t2 (where it meets the cone) and its faces normal to
 * t1 +- t2 at distance r / sqrt 2 from the axis (along t1 +- t2 it holds 1/sqrt 2 of what
 * the cone holds).
 * In the face coordinates u = P f, P = [[1, 1], [1, -1]] / sqrt 2 (symmetric, P P = I), it
 * is the box |u_1|, |u_2| <= r / sqrt 2: a product of intervals, which is what lets
 * projected Gauss-Seidel solve it row by row. */
typedef enum CwbFrictionLaw {
  CWB_FRICTION_CONE = 0,
  CWB_FRICTION_PYRAMID = 1,
} CwbFrictionLaw;

/* u = P f (and, P being its own inverse, f = P u): the pyramid's face coordinates. */
static inline void
cwb_pyramid_faces (const double f[2], double u[2])
{
  double a = f[0], b = f[1];
  u[0] = (a + b) * CWB_SQRT1_2;
  u[1] = (a - b) * CWB_SQRT1_2;
}

/* The Euclidean norm of a 2-vector as the square root of its squares: within an ulp of
 * hypot and far from overflow for any force or slip a scene holds (|x| < 1e150), at a
 * fraction of hypot's cost where a solver measures every contact's laws each sweep. */
static inline double
cwb_norm2 (const double x[2])
{
  return sqrt (x[0] * x[0] + x[1] * x[1]);
}

/* The set's gauge: f lies in the set of radius r exactly when gauge(f) <= r. */
static inline double
cwb_friction_gauge (CwbFrictionLaw law, const double f[2])
{
  return law == CWB_FRICTION_PYRAMID ? fabs (f[0]) + fabs (f[1]) : cwb_norm2 (f);
}

/* The dual gauge: the most power the set of radius r can take out of a slip s,
 * max over the set of -s . f, is r * dual(s) (the Euclidean norm for the disk; the largest
 * component for the pyramid, whose extreme points are +-r t1, +-r t2). */
static inline double
cwb_friction_dual (CwbFrictionLaw law, const double s[2])
{
  return law == CWB_FRICTION_PYRAMID ? MAX (fabs (s[0]), fabs (s[1])) : cwb_norm2 (s);
}

/* The dissipation gap f . s + r dual(s), >= 0 for any f in the set, and 0 exactly when f
 * takes the most power out of the slip (maximal dissipation): inside the set with s = 0
 * (stick), or on its boundary opposing s (slip). For the cone that is Saupin 2008 eq. 2; for
 * the pyramid it is Allard 2010 eq. 9-10 with the slack sigma = max(|s_1|, |s_2|): summing
 * the complementarity products of eq. 9 and 10 gives beta . T s + sigma mu f_n = f . s +
 * r sigma = 0. (The text's eq. 10 reads "T (q' + dq') - e^T sigma >= 0"; with sigma >= 0 that
 * could hold in all four directions +-t only at zero slip, so the sign is Stewart and
 * Trinkle 1996's T s + e sigma >= 0, the formulation the paper cites.) */
static inline double
cwb_friction_dissipation_gap (CwbFrictionLaw law, double radius, const double f[2],
                              const double s[2])
{
  return f[0] * s[0] + f[1] * s[1] + radius * cwb_friction_dual (law, s);
}

/* ---- checking a solved contact --------------------------------------------------------- */

/* The laws cwb_contact_law_check tests, as bits of its result. */
typedef enum CwbContactLawFlags {
  CWB_CONTACT_LAW_GAP = 1 << 0,              /* Signorini: gap >= -gap_tolerance */
  CWB_CONTACT_LAW_NORMAL_FORCE = 1 << 1,     /* Signorini: f_n >= 0 */
  CWB_CONTACT_LAW_COMPLEMENTARITY = 1 << 2,  /* Signorini: gap f_n = 0 */
  CWB_CONTACT_LAW_FRICTION_SET = 1 << 3,     /* f_t in the cone or pyramid of radius mu f_n */
  CWB_CONTACT_LAW_SLIP = 1 << 4,             /* slip only on the boundary, against the force */
} CwbContactLawFlags;

/* Relative slack on "on the boundary" and "inside the set": a solver puts a force there up
 * to round-off (a rescaling, the face rotation P, multipliers times unit weights), a few
 * ulps; 1e-12 leaves a thousand times that and is far below any friction a user could see. */
#define CWB_CONTACT_LAW_RELATIVE_TOLERANCE 1e-12

/* One contact after a solve against Signorini (Saupin 2008 eq. 1, Allard 2010 eq. 19) and the
 * friction law. `gap` is the normal row's value plus its tolerance (g + eps_V for a volume
 * contact), f_n the normal force, f_t the tangential force, s the slip. A solver's answer is
 * exact only up to its stopping tolerance, so the caller states how far the gap and the slip
 * may lie from the values an exact solve would give (each component of s, and |s|, within
 * slip_tolerance); within those, the function asks only what an exact solution must satisfy:
 *   gap >= -gap_tolerance; f_n >= 0; f_n > 0 only where |gap| <= gap_tolerance;
 *   gauge(f_t) <= mu f_n;
 *   cone: where |s| > slip_tolerance the contact surely slides, and then
 *     |f_t + mu f_n s / |s|| <= mu f_n 2 slip_tolerance / |s|
 *     (the unit vector of s moves by at most 2 |ds| / |s|);
 *   pyramid: in face coordinates, where u(s)_k > slip_tolerance the force sits on the face
 *     against it, u(f)_k = -mu f_n / sqrt 2, and symmetrically for < -slip_tolerance.
 * Returns the CwbContactLawFlags of the laws broken, 0 when all hold. */
static inline unsigned
cwb_contact_law_check (CwbFrictionLaw law, double mu, double gap, double f_n,
                       const double f_t[2], const double s[2], double gap_tolerance,
                       double slip_tolerance)
{
  const double rel = CWB_CONTACT_LAW_RELATIVE_TOLERANCE;
  unsigned broken = 0;
  if (!(gap >= -gap_tolerance))
    broken |= CWB_CONTACT_LAW_GAP;
  if (!(f_n >= 0))
    broken |= CWB_CONTACT_LAW_NORMAL_FORCE;
  if (f_n > 0 && !(fabs (gap) <= gap_tolerance))
    broken |= CWB_CONTACT_LAW_COMPLEMENTARITY;
  double radius = mu * MAX (f_n, 0);
  if (!(cwb_friction_gauge (law, f_t) <= radius * (1 + rel)))
    broken |= CWB_CONTACT_LAW_FRICTION_SET;
  if (law == CWB_FRICTION_PYRAMID)
    {
      double uf[2], us[2];
      cwb_pyramid_faces (f_t, uf);
      cwb_pyramid_faces (s, us);
      double face = radius * CWB_SQRT1_2 * (1 - rel);
      for (int k = 0; k < 2; k++)
        if ((us[k] > slip_tolerance && !(uf[k] <= -face))
            || (us[k] < -slip_tolerance && !(uf[k] >= face)))
          broken |= CWB_CONTACT_LAW_SLIP;
    }
  else
    {
      double norm_s = hypot (s[0], s[1]);
      if (norm_s > slip_tolerance)
        {
          double miss = hypot (f_t[0] + radius * s[0] / norm_s, f_t[1] + radius * s[1] / norm_s);
          if (!(miss <= radius * (2 * slip_tolerance / norm_s + rel)))
            broken |= CWB_CONTACT_LAW_SLIP;
        }
    }
  return broken;
}

G_END_DECLS

/* The SPH smoothing kernel: the cubic spline (Monaghan 1992) written on its support radius H,
 * as in Ihmsen et al. 2014 ("SPH fluids in computer graphics", eq. 4 with h = H / 2):
 *
 *   W(r) = sigma (6 (q^3 - q^2) + 1)   0 <= q <= 1/2
 *        = sigma 2 (1 - q)^3           1/2 < q <= 1       q = |r| / H,  sigma = 8 / (pi H^3)
 *        = 0                           q > 1
 *
 * which integrates to 1 over the ball of radius H. grad W(r) = W'(q) / H r / |r|. */
#pragma once

#include <math.h>

#include <glib.h>

static inline double
sph_kernel_w (double r, double support)
{
  double q = r / support;
  double sigma = 8.0 / (G_PI * support * support * support);
  if (q <= 0.5)
    return sigma * (6.0 * (q * q * q - q * q) + 1.0);
  if (q <= 1.0)
    return sigma * 2.0 * (1.0 - q) * (1.0 - q) * (1.0 - q);
  return 0.0;
}

/* grad W at the offset d (3) of length r > 0, into g. */
static inline void
sph_kernel_gradient (const double d[3], double r, double support, double g[3])
{
  double q = r / support;
  double sigma = 8.0 / (G_PI * support * support * support);
  double dw_dq = 0;
  if (r > 0 && q <= 0.5)
    dw_dq = sigma * (18.0 * q * q - 12.0 * q);
  else if (r > 0 && q <= 1.0)
    dw_dq = -6.0 * sigma * (1.0 - q) * (1.0 - q);
  double s = r > 0 ? dw_dq / (support * r) : 0;
  g[0] = s * d[0];
  g[1] = s * d[1];
  g[2] = s * d[2];
}

/* Akinci et al. 2013 ("Versatile surface tension and adhesion for SPH fluids") eq. 2: the
 * cohesion spline C(r) on the same support H, attracting at r > H / 2 and repelling closer,
 * with its maximum at r = H / 2 (C(H / 2) = H^6 / 64 of its 32 / (pi H^9)) and C(H) = 0. */
static inline double
sph_kernel_cohesion (double r, double support)
{
  double h = support, sigma = 32.0 / (G_PI * pow (h, 9));
  if (r <= 0 || r > h)
    return 0.0;
  double t = (h - r) * (h - r) * (h - r) * r * r * r;
  if (2 * r > h)
    return sigma * t;
  return sigma * (2 * t - h * h * h * h * h * h / 64.0);
}

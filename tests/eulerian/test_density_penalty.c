/* Faure 2007 eq. 2 and 3 (plugins/contact-eulerian/density_penalty.c) on smooth densities
 * given in closed form: the stiffness of eq. 3 against central differences of the force of
 * eq. 2 under the bodies' relative displacement, and the one-body force of eq. 1 against the
 * energy 1/2 k V rho_bar^2 it comes from. */
#include <math.h>

#include "density_penalty.h"

/* A smooth density: a logistic ramp across the sphere of radius R about c, of width w,
 * 1 inside: rho = 1 / (1 + exp ((|r - c| - R) / w)). */
typedef struct Blob {
  double c[3];
  double radius, width;
} Blob;

/* The blob displaced by d, sampled at r: rho (r - d) with its gradient and Hessian. */
static DensitySample
blob_sample (const Blob *b, const double r[3], const double d[3])
{
  double x[3];
  for (int k = 0; k < 3; k++)
    x[k] = r[k] - d[k] - b->c[k];
  double dist = cwb_v3_norm (x);
  double s = 1 / (1 + exp ((dist - b->radius) / b->width));
  /* rho = s(u), u = |x|: rho' = -s (1 - s) / w, rho'' = -(1 - 2 s) rho' / w. */
  double d1 = -s * (1 - s) / b->width;
  double d2 = -(1 - 2 * s) * d1 / b->width;
  DensitySample sample = { .rho = s };
  double n[3];
  cwb_v3_scale (n, x, 1 / dist);
  for (int k = 0; k < 3; k++)
    sample.gradient[k] = d1 * n[k];
  for (int r2 = 0; r2 < 3; r2++)
    for (int c2 = 0; c2 < 3; c2++)
      sample.hessian[3 * r2 + c2] = d2 * n[r2] * n[c2]
                                    + d1 / dist * ((r2 == c2) - n[r2] * n[c2]);
  return sample;
}

static const Blob blob_a = { { 0, 0, 0 }, 0.5, 0.05 };
static const Blob blob_b = { { 0.85, 0.12, -0.07 }, 0.45, 0.04 };
static const double kv = 3.7e3;

/* Points where the two blobs overlap (rho_bar > 0) near their surfaces. */
static const double points[][3] = {
  { 0.47, 0.05, -0.02 }, { 0.49, 0.08, 0.03 }, { 0.45, -0.01, -0.05 }, { 0.51, 0.06, -0.04 },
};

/* dF_a/dd by central differences, d = d_a - d_b taken as d_a = d / 2, d_b = -d / 2: half the
 * difference of the one-body derivatives, which is what eq. 3 is (appendix A's average). */
static void
test_stiffness (void)
{
  double e = 1e-6;
  for (guint p = 0; p < G_N_ELEMENTS (points); p++)
    {
      double zero[3] = { 0, 0, 0 }, k[9];
      DensitySample a = blob_sample (&blob_a, points[p], zero),
                    b = blob_sample (&blob_b, points[p], zero);
      g_assert_cmpfloat (density_overlap (&a, &b), >, 0);
      density_penalty_stiffness (kv, &a, &b, k);
      double scale = 0;
      for (int m = 0; m < 9; m++)
        scale = MAX (scale, fabs (k[m]));
      for (int c = 0; c < 3; c++)
        {
          double fp[3], fm[3], da[3] = { 0, 0, 0 }, db[3] = { 0, 0, 0 };
          da[c] = e / 2;
          db[c] = -e / 2;
          DensitySample ap = blob_sample (&blob_a, points[p], da),
                        bp = blob_sample (&blob_b, points[p], db);
          density_penalty_force (kv, &ap, &bp, fp);
          da[c] = -e / 2;
          db[c] = e / 2;
          DensitySample am = blob_sample (&blob_a, points[p], da),
                        bm = blob_sample (&blob_b, points[p], db);
          density_penalty_force (kv, &am, &bm, fm);
          for (int r = 0; r < 3; r++)
            {
              double fd = (fp[r] - fm[r]) / (2 * e);
              /* Central differences at e = 1e-6 on fields of width 0.04 m: truncation
               * (e / w)^2 ~ 1e-9 relative, round-off 1e-16 / e ~ 1e-10 of |F| / e. */
              g_assert_cmpfloat (fabs (fd - k[3 * r + c]), <=, 1e-6 * scale);
            }
        }
      /* Symmetric, as eq. 3 states. */
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
          g_assert_cmpfloat (fabs (k[3 * r + c] - k[3 * c + r]), <=, 1e-12 * scale);
    }
}

/* The one-body derivatives at a fixed point (what the host needs per body: appendix B's
 * middle term with the grid point fixed while one body moves): dF_a/dd_a and dF_a/dd_b
 * against central differences of eq. 2 under one body's displacement, and eq. 3 as their
 * half difference. */
static void
test_body_stiffness (void)
{
  double e = 1e-6;
  for (guint p = 0; p < G_N_ELEMENTS (points); p++)
    {
      double zero[3] = { 0, 0, 0 }, k[2][9], average[9];
      DensitySample a = blob_sample (&blob_a, points[p], zero),
                    b = blob_sample (&blob_b, points[p], zero);
      for (int moving = 0; moving < 2; moving++)
        density_penalty_body_stiffness (kv, &a, &b, moving, k[moving]);
      density_penalty_stiffness (kv, &a, &b, average);
      double scale = 0, asymmetry = 0;
      for (int m = 0; m < 9; m++)
        scale = MAX (scale, fabs (k[0][m]));
      for (int moving = 0; moving < 2; moving++)
        for (int c = 0; c < 3; c++)
          {
            double fp[3], fm[3], d[3] = { 0, 0, 0 };
            d[c] = e;
            DensitySample ap = moving == 0 ? blob_sample (&blob_a, points[p], d) : a;
            DensitySample bp = moving == 1 ? blob_sample (&blob_b, points[p], d) : b;
            density_penalty_force (kv, &ap, &bp, fp);
            d[c] = -e;
            DensitySample am = moving == 0 ? blob_sample (&blob_a, points[p], d) : a;
            DensitySample bm = moving == 1 ? blob_sample (&blob_b, points[p], d) : b;
            density_penalty_force (kv, &am, &bm, fm);
            for (int r = 0; r < 3; r++)
              {
                /* As in test_stiffness: 1e-6 of the blocks' scale. */
                double fd = (fp[r] - fm[r]) / (2 * e);
                g_assert_cmpfloat (fabs (fd - k[moving][3 * r + c]), <=, 1e-6 * scale);
              }
          }
      for (int m = 0; m < 9; m++)
        {
          g_assert_cmpfloat (fabs (average[m] - 0.5 * (k[0][m] - k[1][m])), <=, 1e-12 * scale);
          asymmetry = MAX (asymmetry, fabs (k[0][m] - k[0][3 * (m % 3) + m / 3]));
        }
      /* The blobs' gradients are not parallel at these points: the one-body block is not
       * symmetric (what eq. 3's average hides), by more than round-off. */
      g_assert_cmpfloat (asymmetry, >, 1e-6 * scale);
    }
}

/* The one-body force of eq. 1 is -dE/dd_1 with E = 1/2 k V rho_bar^2 (the sign that makes it
 * repel): by central differences of E under a displacement of body a alone. And eq. 2's
 * average of the two one-body forces, F_a = (F_1 - F_2) / 2, is what density_penalty_force
 * gives. */
static void
test_force_from_energy (void)
{
  double e = 1e-6;
  for (guint p = 0; p < G_N_ELEMENTS (points); p++)
    {
      double zero[3] = { 0, 0, 0 }, one_a[3], one_b[3], force[3];
      DensitySample a = blob_sample (&blob_a, points[p], zero),
                    b = blob_sample (&blob_b, points[p], zero);
      for (int side = 0; side < 2; side++)
        {
          double *out = side == 0 ? one_a : one_b;
          for (int c = 0; c < 3; c++)
            {
              double d[3] = { 0, 0, 0 }, energy[2];
              for (int s = 0; s < 2; s++)
                {
                  d[c] = s == 0 ? e : -e;
                  DensitySample ma = side == 0 ? blob_sample (&blob_a, points[p], d) : a;
                  DensitySample mb = side == 1 ? blob_sample (&blob_b, points[p], d) : b;
                  double overlap = density_overlap (&ma, &mb);
                  energy[s] = 0.5 * kv * overlap * overlap;
                }
              out[c] = -(energy[0] - energy[1]) / (2 * e);
            }
        }
      density_penalty_force (kv, &a, &b, force);
      double scale = cwb_v3_norm (force);
      g_assert_cmpfloat (scale, >, 0);
      for (int c = 0; c < 3; c++)
        {
          /* As above: central differences of a smooth energy, 1e-6 relative. */
          double overlap = density_overlap (&a, &b);
          g_assert_cmpfloat (fabs (one_a[c] - kv * overlap * a.gradient[c]), <=, 1e-6 * scale);
          g_assert_cmpfloat (fabs (force[c] - 0.5 * (one_a[c] - one_b[c])), <=, 1e-6 * scale);
        }
      /* It pushes body a away from b: against the direction from a's centre to b's. */
      double ab[3];
      cwb_v3_sub (ab, blob_b.c, blob_a.c);
      g_assert_cmpfloat (cwb_v3_dot (force, ab), <, 0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eulerian/penalty/stiffness", test_stiffness);
  g_test_add_func ("/eulerian/penalty/body-derivatives", test_body_stiffness);
  g_test_add_func ("/eulerian/penalty/force-from-energy", test_force_from_energy);
  return g_test_run ();
}

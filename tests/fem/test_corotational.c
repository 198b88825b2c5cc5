/* The corotational tetrahedron (plugins/bodies/fem/corotational.c) against closed forms: the
 * strain energy of a uniform strain, the symmetry of K0 and its null space (translations
 * and infinitesimal rotations), the rotation recovered from a rotated and stretched element,
 * no force under a finite rigid motion, the force of a rotated stretch equal to the rotated
 * linear force, a proper rotation even for an inverted element, and the polar factor of
 * Q S (S symmetric positive definite) equal to Q by either of its two paths. */
#include <math.h>

#include <cwb/vecmath.h>

#include "corotational.h"
#include "polar_rotation.h"

/* A skewed tetrahedron of edges about 0.1 m, and steel-like constants. */
static const double rest[4][3] = {
  { 0.01, -0.02, 0.03 }, { 0.12, 0.0, 0.02 }, { 0.03, 0.09, 0.01 }, { 0.02, 0.01, 0.13 },
};
#define YOUNG 2e11
#define POISSON 0.3

/* Relative accuracy of double sums of products of order-one terms (12 x 12 products,
 * a 3 x 3 solve, an SVD): 1e-15 per operation; 1e-10 leaves margin and still catches any
 * wrong term, which is of relative order one. */
#define RELATIVE_TOLERANCE 1e-10

static CorotationalTet
make_tet (void)
{
  double lambda, mu;
  fem_lame (YOUNG, POISSON, &lambda, &mu);
  CorotationalTet tet;
  g_assert_true (fem_tet_init (&tet, rest, lambda, mu));
  return tet;
}

static void
rotation_matrix (const double axis_angle[3], double q_matrix[9])
{
  double q[4];
  cwb_quat_from_rotvec (q, axis_angle);
  for (int b = 0; b < 3; b++)
    {
      double e[3] = { 0, 0, 0 }, col[3];
      e[b] = 1;
      cwb_quat_rotate (col, q, e);
      for (int a = 0; a < 3; a++)
        q_matrix[3 * a + b] = col[a];
    }
}

static void
apply (const double m[9], const double v[3], double out[3])
{
  for (int a = 0; a < 3; a++)
    out[a] = m[3 * a] * v[0] + m[3 * a + 1] * v[1] + m[3 * a + 2] * v[2];
}

static double
k0_quadratic (const CorotationalTet *tet, const double u[12])
{
  double e = 0;
  for (int i = 0; i < 12; i++)
    for (int j = 0; j < 12; j++)
      e += u[i] * tet->k0[i][j] * u[j];
  return 0.5 * e;
}

/* A uniform symmetric strain G (u = G X) stores V (lambda/2 tr(G)^2 + mu G:G) exactly in a
 * linear tetrahedron; the volume is det(Dm) / 6. */
static void
test_uniform_strain_energy (void)
{
  CorotationalTet tet = make_tet ();
  double e1[3], e2[3], e3[3], n[3];
  cwb_v3_sub (e1, rest[1], rest[0]);
  cwb_v3_sub (e2, rest[2], rest[0]);
  cwb_v3_sub (e3, rest[3], rest[0]);
  cwb_v3_cross (n, e1, e2);
  g_assert_cmpfloat_with_epsilon (tet.volume, cwb_v3_dot (n, e3) / 6,
                                  RELATIVE_TOLERANCE * tet.volume);
  const double g[9] = { 1e-3, 2e-4, -3e-4, 2e-4, -5e-4, 1e-4, -3e-4, 1e-4, 7e-4 };
  double u[12];
  for (int j = 0; j < 4; j++)
    apply (g, rest[j], &u[3 * j]);
  double lambda, mu;
  fem_lame (YOUNG, POISSON, &lambda, &mu);
  double trace = g[0] + g[4] + g[8], gg = 0;
  for (int k = 0; k < 9; k++)
    gg += g[k] * g[k];
  double expected = tet.volume * (0.5 * lambda * trace * trace + mu * gg);
  g_assert_cmpfloat_with_epsilon (k0_quadratic (&tet, u), expected, RELATIVE_TOLERANCE * expected);
}

/* K0 is symmetric and does nothing to translations and infinitesimal rotations. */
static void
test_k0_null_space (void)
{
  CorotationalTet tet = make_tet ();
  double scale = 0;
  for (int i = 0; i < 12; i++)
    for (int j = 0; j < 12; j++)
      scale = fmax (scale, fabs (tet.k0[i][j]));
  for (int i = 0; i < 12; i++)
    for (int j = 0; j < 12; j++)
      g_assert_cmpfloat_with_epsilon (tet.k0[i][j], tet.k0[j][i], RELATIVE_TOLERANCE * scale);
  const double t[3] = { 0.3, -0.2, 0.5 }, w[3] = { 0.2, 0.7, -0.4 };
  double translation[12], rotation[12];
  for (int j = 0; j < 4; j++)
    {
      cwb_v3_copy (&translation[3 * j], t);
      cwb_v3_cross (&rotation[3 * j], w, rest[j]);
    }
  for (int i = 0; i < 12; i++)
    {
      double kt = 0, kr = 0;
      for (int j = 0; j < 12; j++)
        {
          kt += tet.k0[i][j] * translation[j];
          kr += tet.k0[i][j] * rotation[j];
        }
      /* Against the size of K0 times the size of the motion (about 1 and 0.1). */
      g_assert_cmpfloat (fabs (kt), <, RELATIVE_TOLERANCE * scale);
      g_assert_cmpfloat (fabs (kr), <, RELATIVE_TOLERANCE * scale * 0.1);
    }
}

/* x = Q (I + G) X + t: the rotation found is Q (the polar factor of Q (I + G), G symmetric
 * and small, is Q), and the forces are Q times the linear forces of the stretch alone:
 * f_i = -Q sum_j K0_ij (G X_j); with G = 0 (a finite rigid motion) there are none. */
static void
test_rotated_stretch (void)
{
  CorotationalTet tet = make_tet ();
  const double axis_angle[3] = { 0.6, -0.8, 0.5 };   /* about 1.1 rad about a skew axis */
  double q[9];
  rotation_matrix (axis_angle, q);
  const double offset[3] = { 1, 2, -3 };
  const double stretches[2][9] = {
    { 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { 2e-3, 5e-4, 0, 5e-4, -1e-3, 3e-4, 0, 3e-4, 1e-3 },
  };
  for (int s = 0; s < 2; s++)
    {
      const double *g = stretches[s];
      double x[4][3], gx[4][3];
      for (int j = 0; j < 4; j++)
        {
          double stretched[3];
          apply (g, rest[j], gx[j]);
          cwb_v3_add (stretched, rest[j], gx[j]);
          apply (q, stretched, x[j]);
          cwb_v3_add (x[j], x[j], offset);
        }
      double r[9];
      fem_tet_rotation (&tet, x, r);
      for (int k = 0; k < 9; k++)
        g_assert_cmpfloat_with_epsilon (r[k], q[k], RELATIVE_TOLERANCE);
      double f[4][3], linear[12];
      fem_tet_forces (&tet, x, r, f);
      double force_scale = YOUNG * 0.1 * 0.1 * 1e-3;   /* E L^2 times the strain */
      for (int i = 0; i < 4; i++)
        {
          for (int a = 0; a < 3; a++)
            {
              linear[a] = 0;
              for (int j = 0; j < 4; j++)
                for (int b = 0; b < 3; b++)
                  linear[a] -= tet.k0[3 * i + a][3 * j + b] * gx[j][b];
            }
          double expected[3];
          apply (q, linear, expected);
          for (int a = 0; a < 3; a++)
            g_assert_cmpfloat_with_epsilon (f[i][a], expected[a], 1e-8 * force_scale);
          if (s == 0)
            for (int a = 0; a < 3; a++)
              g_assert_cmpfloat (fabs (f[i][a]), <, 1e-8 * force_scale);
        }
    }
}

/* M = Q S with S = V diag(s) V^T symmetric positive definite: its polar factor is Q. Spectra
 * from near the identity (an element's usual gradient) to a condition number of 1e3 (det M /
 * |M|^3 = 1e-4) take the Newton iteration; a singular value of 1e-8 (a flattened element,
 * det M / |M|^3 = 4e-9, below the iteration's 1e-6) takes the SVD. The polar factor's
 * sensitivity to rounding grows with the condition number, so 1e-10 covers 1e3 times double
 * precision with room; a wrong path (a non-converged iteration, a transposed factor) is off
 * by order 1. */
static void
test_polar_factor (void)
{
  const double spectra[][3] = {
    { 1.001, 0.999, 1.0005 }, { 0.5, 1, 2 }, { 1e-2, 1, 1e1 }, { 1e-8, 1, 1 },
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  for (size_t s = 0; s < G_N_ELEMENTS (spectra); s++)
    for (int trial = 0; trial < 20; trial++)
      {
        double q_axis[3], v_axis[3], q[9], v[9], m[9], r[9];
        for (int a = 0; a < 3; a++)
          {
            q_axis[a] = g_rand_double_range (rand, -2, 2);
            v_axis[a] = g_rand_double_range (rand, -2, 2);
          }
        rotation_matrix (q_axis, q);
        rotation_matrix (v_axis, v);
        /* m = q v diag(s) v^T */
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++)
            {
              double sij = 0;
              for (int k = 0; k < 3; k++)
                sij += v[3 * i + k] * spectra[s][k] * v[3 * j + k];
              m[3 * i + j] = sij;
            }
        double qm[9];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++)
            qm[3 * i + j] = q[3 * i] * m[j] + q[3 * i + 1] * m[3 + j] + q[3 * i + 2] * m[6 + j];
        polar_rotation (qm, r);
        for (int k = 0; k < 9; k++)
          g_assert_cmpfloat_with_epsilon (r[k], q[k], RELATIVE_TOLERANCE);
      }
}

/* An element pushed through itself (node 3 mirrored through the opposite face): the polar
 * factor is still a rotation, det R = +1, orthonormal. */
static void
test_inverted_element (void)
{
  CorotationalTet tet = make_tet ();
  double x[4][3];
  memcpy (x, rest, sizeof x);
  x[3][2] = -0.1;
  double r[9];
  fem_tet_rotation (&tet, x, r);
  double det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6])
               + r[2] * (r[3] * r[7] - r[4] * r[6]);
  g_assert_cmpfloat_with_epsilon (det, 1, RELATIVE_TOLERANCE);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      {
        double dot = r[a] * r[b] + r[3 + a] * r[3 + b] + r[6 + a] * r[6 + b];
        g_assert_cmpfloat_with_epsilon (dot, a == b ? 1 : 0, RELATIVE_TOLERANCE);
      }
}

/* What the element overlay shows (fem_tet_strain): x_i = Q S X_i with S = V diag(1 + e) V^T,
 * a rotation Q of angle theta after a stretch along the axes V with principal strains e. As
 * S is symmetric positive definite, R = Q and sym(R^T F) - I = V diag(e) V^T exactly: the
 * six components to RELATIVE_TOLERANCE (the polar factor: round-off only), theta to 1e-7 rad
 * (acos near 0 and pi turns a round-off of 1e-16 in the trace into sqrt(2e-16), about 1.4e-8
 * rad). A transposed rotation, a wrong component order or a missing symmetrisation is off
 * by the strains' own size. */
static void
test_strain_and_rotation (void)
{
  CorotationalTet tet = make_tet ();
  const struct { double e[3]; double angle; } cases[] = {
    { { 0.02, -0.03, 0.005 }, 0.7 },
    { { 0.04, -0.01, 0.0 }, 0.0 },
    { { 0.0, 0.0, 0.0 }, 3.0 },
    { { -0.2, 0.25, 0.1 }, 1.9 },
  };
  const double v_axis[3] = { 0.3, -1.1, 0.6 }, q_direction[3] = { 0.48, 0.6, -0.64 };
  static const int rows[6] = { 0, 1, 2, 1, 0, 0 }, cols[6] = { 0, 1, 2, 2, 2, 1 };
  for (size_t c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      double v[9], q[9], q_rotvec[3], stretch[9], f[9];
      rotation_matrix (v_axis, v);
      cwb_v3_scale (q_rotvec, q_direction, cases[c].angle);
      rotation_matrix (q_rotvec, q);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          {
            stretch[3 * i + j] = 0;
            for (int k = 0; k < 3; k++)
              stretch[3 * i + j] += v[3 * i + k] * (1 + cases[c].e[k]) * v[3 * j + k];
          }
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          f[3 * i + j] = q[3 * i] * stretch[j] + q[3 * i + 1] * stretch[3 + j]
                         + q[3 * i + 2] * stretch[6 + j];
      double x[4][3];
      for (int n = 0; n < 4; n++)
        cwb_m3_mul_v3 (x[n], f, rest[n]);
      double strain[6], angle;
      fem_tet_strain (&tet, x, strain, &angle);
      for (int k = 0; k < 6; k++)
        {
          double expected = stretch[3 * rows[k] + cols[k]] - (k < 3 ? 1 : 0);
          g_assert_cmpfloat_with_epsilon (strain[k], expected, RELATIVE_TOLERANCE);
        }
      g_assert_cmpfloat_with_epsilon (angle, cases[c].angle, 1e-7);
    }
}

/* A degenerate or inside-out rest element is refused. */
static void
test_bad_rest_refused (void)
{
  double lambda, mu;
  fem_lame (YOUNG, POISSON, &lambda, &mu);
  double flat[4][3], flipped[4][3];
  memcpy (flat, rest, sizeof flat);
  memcpy (flipped, rest, sizeof flipped);
  for (int a = 0; a < 3; a++)
    flat[3][a] = (rest[1][a] + rest[2][a]) / 2;
  memcpy (flipped[1], rest[2], sizeof flipped[1]);
  memcpy (flipped[2], rest[1], sizeof flipped[2]);
  CorotationalTet tet;
  g_assert_false (fem_tet_init (&tet, flat, lambda, mu));
  g_assert_false (fem_tet_init (&tet, flipped, lambda, mu));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fem/corotational/uniform-strain-energy", test_uniform_strain_energy);
  g_test_add_func ("/fem/corotational/k0-null-space", test_k0_null_space);
  g_test_add_func ("/fem/corotational/rotated-stretch", test_rotated_stretch);
  g_test_add_func ("/fem/corotational/inverted-element", test_inverted_element);
  g_test_add_func ("/fem/corotational/polar-factor", test_polar_factor);
  g_test_add_func ("/fem/corotational/bad-rest-refused", test_bad_rest_refused);
  g_test_add_func ("/fem/corotational/strain-and-rotation", test_strain_and_rotation);
  return g_test_run ();
}

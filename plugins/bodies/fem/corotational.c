/* The corotational tetrahedron (corotational.h). */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>
#include <lapacke.h>

#include "corotational.h"
#include "polar_rotation.h"

void
fem_lame (double young, double poisson, double *lambda, double *mu)
{
  *lambda = young * poisson / ((1 + poisson) * (1 - 2 * poisson));
  *mu = young / (2 * (1 + poisson));
}

/* Columns x_1 - x_0, x_2 - x_0, x_3 - x_0, row-major. */
static void
edge_matrix (const double x[4][3], double d[9])
{
  for (int row = 0; row < 3; row++)
    for (int col = 0; col < 3; col++)
      d[3 * row + col] = x[col + 1][row] - x[0][row];
}

static double
det3 (const double m[9])
{
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
         + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

gboolean
fem_tet_init (CorotationalTet *tet, const double rest[4][3], double lambda, double mu)
{
  memcpy (tet->rest, rest, sizeof tet->rest);
  double dm[9], inverse[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  edge_matrix (rest, dm);
  tet->volume = det3 (dm) / 6;
  if (!(tet->volume > 0))
    return FALSE;
  lapack_int pivots[3];
  if (LAPACKE_dgesv (LAPACK_ROW_MAJOR, 3, 3, dm, 3, pivots, inverse, 3) != 0)
    return FALSE;
  for (int i = 1; i < 4; i++)
    for (int a = 0; a < 3; a++)
      tet->gradients[i][a] = inverse[3 * (i - 1) + a];
  for (int a = 0; a < 3; a++)
    tet->gradients[0][a] = -(tet->gradients[1][a] + tet->gradients[2][a] + tet->gradients[3][a]);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      {
        const double *gi = tet->gradients[i], *gj = tet->gradients[j];
        double dot = cwb_v3_dot (gi, gj);
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++)
            tet->k0[3 * i + a][3 * j + b] = tet->volume * (lambda * gi[a] * gj[b]
                                                           + mu * gj[a] * gi[b]
                                                           + (a == b ? mu * dot : 0));
      }
  return TRUE;
}

/* F = Ds Dm^-1, with Dm^-1 = [g_1 g_2 g_3] as rows: F_ab = sum_i (x_i - x_0)_a g_i,b. */
static void
deformation_gradient (const CorotationalTet *tet, const double x[4][3], double f[9])
{
  memset (f, 0, 9 * sizeof (double));
  for (int i = 1; i < 4; i++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        f[3 * a + b] += (x[i][a] - x[0][a]) * tet->gradients[i][b];
}

void
fem_tet_rotation (const CorotationalTet *tet, const double x[4][3], double r[9])
{
  double f[9];
  deformation_gradient (tet, x, f);
  polar_rotation (f, r);
}

void
fem_tet_strain (const CorotationalTet *tet, const double x[4][3], double strain[6],
                double *angle)
{
  double f[9], r[9];
  deformation_gradient (tet, x, f);
  polar_rotation (f, r);
  /* e = sym(R^T F) - I, the strain the element's energy measures (corotational.h). */
  double rtf[9];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      rtf[3 * a + b] = r[a] * f[b] + r[3 + a] * f[3 + b] + r[6 + a] * f[6 + b];
  static const int rows[6] = { 0, 1, 2, 1, 0, 0 }, cols[6] = { 0, 1, 2, 2, 2, 1 };
  for (int k = 0; k < 6; k++)
    strain[k] = 0.5 * (rtf[3 * rows[k] + cols[k]] + rtf[3 * cols[k] + rows[k]])
                - (k < 3 ? 1 : 0);
  /* The angle of a rotation matrix: tr R = 1 + 2 cos(angle). */
  *angle = acos (CLAMP (0.5 * (r[0] + r[4] + r[8] - 1), -1.0, 1.0));
}

/* K_e = R K0 R^T, block by block: (R K0 R^T)_ij = R K0_ij R^T (Saupin 2008 eq. 24). */
void
fem_tet_stiffness (const CorotationalTet *tet, const double r[9], double k[12][12])
{
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      {
        double rk[9];
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++)
            rk[3 * a + b] = r[3 * a] * tet->k0[3 * i][3 * j + b]
                            + r[3 * a + 1] * tet->k0[3 * i + 1][3 * j + b]
                            + r[3 * a + 2] * tet->k0[3 * i + 2][3 * j + b];
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++)
            k[3 * i + a][3 * j + b] = rk[3 * a] * r[3 * b] + rk[3 * a + 1] * r[3 * b + 1]
                                      + rk[3 * a + 2] * r[3 * b + 2];
      }
}

/* out_i = R sum_j K0_ij u_j for a rest-frame displacement u (12): the product with
 * R K0 R^T without forming the 12 x 12 matrix. */
static void
rotated_k0_apply (const CorotationalTet *tet, const double r[9], const double u[12],
                  double out[4][3])
{
  for (int i = 0; i < 4; i++)
    {
      double local[3] = { 0, 0, 0 };
      for (int a = 0; a < 3; a++)
        for (int k = 0; k < 12; k++)
          local[a] += tet->k0[3 * i + a][k] * u[k];
      for (int a = 0; a < 3; a++)
        out[i][a] = r[3 * a] * local[0] + r[3 * a + 1] * local[1] + r[3 * a + 2] * local[2];
    }
}

/* u_j = R^T y_j (minus X_j when subtract_rest). */
static void
to_rest_frame (const CorotationalTet *tet, const double r[9], const double y[4][3],
               gboolean subtract_rest, double u[12])
{
  for (int j = 0; j < 4; j++)
    for (int a = 0; a < 3; a++)
      u[3 * j + a] = r[a] * y[j][0] + r[3 + a] * y[j][1] + r[6 + a] * y[j][2]
                     - (subtract_rest ? tet->rest[j][a] : 0);
}

void
fem_tet_forces (const CorotationalTet *tet, const double x[4][3], const double r[9],
                double f[4][3])
{
  /* The displacement in the element's rest frame: u_j = R^T x_j - X_j; f = -R K0 u. */
  double u[12];
  to_rest_frame (tet, r, x, TRUE, u);
  rotated_k0_apply (tet, r, u, f);
  for (int i = 0; i < 4; i++)
    for (int a = 0; a < 3; a++)
      f[i][a] = -f[i][a];
}

void
fem_tet_stiffness_apply (const CorotationalTet *tet, const double r[9], const double dx[4][3],
                         double out[4][3])
{
  double u[12];
  to_rest_frame (tet, r, dx, FALSE, u);
  rotated_k0_apply (tet, r, u, out);
}

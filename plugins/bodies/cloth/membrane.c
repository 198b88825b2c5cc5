/* The corotational membrane triangle (membrane.h). */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "membrane.h"
#include "polar_rotation.h"

gboolean
membrane_init (MembraneTriangle *tri, const double x[3][3], double modulus, double poisson)
{
  memset (tri, 0, sizeof *tri);
  double e1[3], e2[3], d1[3], d2[3], n[3];
  cwb_v3_sub (d1, x[1], x[0]);
  cwb_v3_sub (d2, x[2], x[0]);
  cwb_v3_cross (n, d1, d2);
  double twice_area = cwb_v3_norm (n), length = cwb_v3_norm (d1);
  if (!(twice_area > 0) || !(length > 0))
    return FALSE;
  tri->area = 0.5 * twice_area;
  cwb_v3_scale (n, n, 1 / twice_area);
  cwb_v3_scale (e1, d1, 1 / length);
  cwb_v3_cross (e2, n, e1);
  tri->rest[1][0] = length;
  tri->rest[2][0] = cwb_v3_dot (d2, e1);
  tri->rest[2][1] = cwb_v3_dot (d2, e2);
  /* Dm = [[a, c], [0, d]] (columns X_1 - X_0, X_2 - X_0); its inverse's rows are g_1, g_2. */
  double a = tri->rest[1][0], c = tri->rest[2][0], d = tri->rest[2][1];
  tri->gradients[1][0] = 1 / a;
  tri->gradients[1][1] = -c / (a * d);
  tri->gradients[2][0] = 0;
  tri->gradients[2][1] = 1 / d;
  for (int k = 0; k < 2; k++)
    tri->gradients[0][k] = -(tri->gradients[1][k] + tri->gradients[2][k]);

  /* K0 = A B^T D B with the strains (e_xx, e_yy, gamma_xy) of the 2D displacements. */
  double scale = modulus / (1 - poisson * poisson);
  double law[3][3] = { { scale, scale * poisson, 0 },
                       { scale * poisson, scale, 0 },
                       { 0, 0, scale * (1 - poisson) / 2 } };
  double b[3][6] = { { 0 } };
  for (int i = 0; i < 3; i++)
    {
      double gx = tri->gradients[i][0], gy = tri->gradients[i][1];
      b[0][2 * i] = gx;
      b[1][2 * i + 1] = gy;
      b[2][2 * i] = gy;
      b[2][2 * i + 1] = gx;
    }
  for (int p = 0; p < 6; p++)
    for (int q = 0; q < 6; q++)
      {
        double s = 0;
        for (int r = 0; r < 3; r++)
          for (int t = 0; t < 3; t++)
            s += b[r][p] * law[r][t] * b[t][q];
        tri->k0[p][q] = tri->area * s;
      }
  return TRUE;
}

void
membrane_rotation (const MembraneTriangle *tri, const double x[3][3], double r[6])
{
  double d1[3], d2[3], n[3];
  cwb_v3_sub (d1, x[1], x[0]);
  cwb_v3_sub (d2, x[2], x[0]);
  cwb_v3_cross (n, d1, d2);
  double norm = cwb_v3_norm (n);
  if (norm > 0)
    cwb_v3_scale (n, n, 1 / norm);
  /* F3 = [Ds Dm^-1 | n]: column k of Ds Dm^-1 is sum_i (x_i - x_0) g_i,k. */
  double f[9];
  for (int row = 0; row < 3; row++)
    {
      for (int k = 0; k < 2; k++)
        f[3 * row + k] = d1[row] * tri->gradients[1][k] + d2[row] * tri->gradients[2][k];
      f[3 * row + 2] = n[row];
    }
  double rot[9];
  polar_rotation (f, rot);
  for (int row = 0; row < 3; row++)
    {
      r[2 * row] = rot[3 * row];
      r[2 * row + 1] = rot[3 * row + 1];
    }
}

/* u = R^T x - X (6 values, vertex-major). */
static void
displacements (const MembraneTriangle *tri, const double x[3][3], const double r[6],
               double u[6])
{
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 2; k++)
      u[2 * i + k] = r[k] * x[i][0] + r[2 + k] * x[i][1] + r[4 + k] * x[i][2]
                     - tri->rest[i][k];
}

void
membrane_forces (const MembraneTriangle *tri, const double x[3][3], const double r[6],
                 double f[3][3])
{
  double u[6], f2[6];
  displacements (tri, x, r, u);
  for (int p = 0; p < 6; p++)
    {
      f2[p] = 0;
      for (int q = 0; q < 6; q++)
        f2[p] -= tri->k0[p][q] * u[q];
    }
  for (int i = 0; i < 3; i++)
    for (int row = 0; row < 3; row++)
      f[i][row] = r[2 * row] * f2[2 * i] + r[2 * row + 1] * f2[2 * i + 1];
}

double
membrane_energy (const MembraneTriangle *tri, const double x[3][3], const double r[6])
{
  double u[6], e = 0;
  displacements (tri, x, r, u);
  for (int p = 0; p < 6; p++)
    for (int q = 0; q < 6; q++)
      e += 0.5 * u[p] * tri->k0[p][q] * u[q];
  return e;
}

void
membrane_stiffness (const MembraneTriangle *tri, const double r[6], double k[9][9])
{
  /* Block (i, j) = R K0_ij R^T, K0_ij the 2 x 2 block of vertices i, j. */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        double rk[3][2];
        for (int row = 0; row < 3; row++)
          for (int c = 0; c < 2; c++)
            rk[row][c] = r[2 * row] * tri->k0[2 * i][2 * j + c]
                         + r[2 * row + 1] * tri->k0[2 * i + 1][2 * j + c];
        for (int row = 0; row < 3; row++)
          for (int col = 0; col < 3; col++)
            k[3 * i + row][3 * j + col] = rk[row][0] * r[2 * col] + rk[row][1] * r[2 * col + 1];
      }
}

/* The rotation of a 3 x 3 matrix's polar decomposition (polar_rotation.h). */
#include <math.h>
#include <string.h>

#include <lapacke.h>

#include "polar_rotation.h"

static double
det3 (const double m[9])
{
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
         + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* The scaled Newton iteration for the polar factor (Higham 1986): X <- (g X + X^-T / g) / 2
 * with g = sqrt(|X^-1|_F / |X|_F), X^-T = cof(X) / det X. From a deformation gradient near a
 * rotation it converges quadratically in three or four steps, each some 60 flops, against a
 * LAPACK SVD call per element. It needs det X > 0, away from singular: an element flattened
 * or inverted (det <= POLAR_MIN_DET |X|^3) goes to the SVD, which also picks the rotation
 * nearest a reflection. */
/* det X / |X|_F^3: 3^-1.5 for a rotation, 1e-6 for one direction squashed 2e5 times. */
#define POLAR_MIN_DET 1e-6
#define POLAR_TOLERANCE 1e-14       /* |X_k+1 - X_k|_F: then X_k+1 is exact to round-off */
#define POLAR_MAX_ITERATIONS 20     /* from a condition number of 1e5, scaled Newton needs 9 */

static gboolean
polar_newton (const double m[9], double r[9])
{
  double x[9];
  memcpy (x, m, sizeof x);
  for (int iteration = 0; iteration < POLAR_MAX_ITERATIONS; iteration++)
    {
      double c[9] = {
        x[4] * x[8] - x[5] * x[7], x[5] * x[6] - x[3] * x[8], x[3] * x[7] - x[4] * x[6],
        x[2] * x[7] - x[1] * x[8], x[0] * x[8] - x[2] * x[6], x[1] * x[6] - x[0] * x[7],
        x[1] * x[5] - x[2] * x[4], x[2] * x[3] - x[0] * x[5], x[0] * x[4] - x[1] * x[3],
      };
      double det = x[0] * c[0] + x[1] * c[1] + x[2] * c[2];
      double norm = 0, norm_c = 0;
      for (int k = 0; k < 9; k++)
        {
          norm += x[k] * x[k];
          norm_c += c[k] * c[k];
        }
      norm = sqrt (norm);
      if (!(det > POLAR_MIN_DET * norm * norm * norm))
        return FALSE;
      double g = sqrt (sqrt (norm_c) / det / norm);
      double change = 0;
      for (int k = 0; k < 9; k++)
        {
          double next = 0.5 * (g * x[k] + c[k] / (g * det));
          change += (next - x[k]) * (next - x[k]);
          x[k] = next;
        }
      if (change < POLAR_TOLERANCE * POLAR_TOLERANCE)
        {
          memcpy (r, x, sizeof x);
          return TRUE;
        }
    }
  return FALSE;
}

void
polar_rotation (const double m[9], double r[9])
{
  if (polar_newton (m, r))
    return;
  /* LAPACK's SVD called through the _work interface in column-major order: no workspace
   * query, allocation or transposition per call (this runs for every element every step).
   * The column-major matrix of m is m^T = V S U^T, so the roles of U and V^T swap. */
  double a[9], s[3], u[9], vt[9], work[64];
  memcpy (a, m, sizeof a);
  if (LAPACKE_dgesvd_work (LAPACK_COL_MAJOR, 'A', 'A', 3, 3, a, 3, s, vt, 3, u, 3, work,
                           (lapack_int) G_N_ELEMENTS (work)) != 0)
    {
      /* No decomposition (non-finite input): no rotation; a blow-up is caught by the
       * host's check of the state. */
      const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
      memcpy (r, identity, sizeof identity);
      return;
    }
  /* Now, read row-major: m = u diag(s) vt with u and vt as written by LAPACK's column-major
   * V^T and U of m^T. */
  double uvt[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      uvt[3 * i + j] = u[3 * i] * vt[j] + u[3 * i + 1] * vt[3 + j] + u[3 * i + 2] * vt[6 + j];
  if (det3 (uvt) < 0)
    {
      /* A reflection: flip the direction of the smallest singular value (the last). */
      for (int i = 0; i < 3; i++)
        u[3 * i + 2] = -u[3 * i + 2];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          uvt[3 * i + j] = u[3 * i] * vt[j] + u[3 * i + 1] * vt[3 + j] + u[3 * i + 2] * vt[6 + j];
    }
  memcpy (r, uvt, sizeof uvt);
}

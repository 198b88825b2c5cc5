/* One corotational constant-strain membrane triangle: the cloth's stretching (in-plane
 * linear isotropic elasticity, plane stress, measured in a frame that turns with the
 * triangle, as the FEM body's tetrahedra are; Etzmuss et al. 2003 for cloth).
 *
 *   rest:   X_0..X_2 in the triangle's own 2D frame (e_1 along X_1 - X_0, e_2 in its plane),
 *           shape gradients g_i (the rows of Dm^-1, Dm = [X_1 - X_0, X_2 - X_0], 2 x 2;
 *           g_0 = -(g_1 + g_2)), area A;
 *   K0:     the 6 x 6 rest stiffness A B^T D B, B the constant strain-displacement matrix and
 *           D = Y / (1 - nu^2) [1 nu 0; nu 1 0; 0 0 (1 - nu) / 2] the plane-stress law of
 *           the membrane modulus Y = E t (N/m);
 *   R:      3 x 2, the first two columns of the rotation of the polar decomposition of
 *           F3 = [Ds Dm^-1 | n] (Ds = [x_1 - x_0, x_2 - x_0], n the current unit normal):
 *           the in-plane rotation of F = Ds Dm^-1 lifted to the triangle's plane;
 *   force:  f_i = -R sum_j K0_ij (R^T x_j - X_j) (2D blocks), stiffness K = R K0 R^T
 *           (R held fixed); energy 1/2 u^T K0 u with u_j = R^T x_j - X_j. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct MembraneTriangle {
  double rest[3][2];       /* the rest vertices in the triangle's 2D frame */
  double gradients[3][2];
  double area;
  double k0[6][6];
} MembraneTriangle;

/* The triangle of rest vertices x (3D) with membrane modulus `modulus` (E t, N/m) and
 * Poisson's ratio `poisson`; FALSE when it is degenerate (zero area). */
gboolean membrane_init (MembraneTriangle *tri, const double x[3][3], double modulus,
                        double poisson);

/* R (3 x 2, row-major) at the current vertices x. */
void membrane_rotation (const MembraneTriangle *tri, const double x[3][3], double r[6]);

/* The elastic forces on the three vertices at x with rotation r. */
void membrane_forces (const MembraneTriangle *tri, const double x[3][3], const double r[6],
                      double f[3][3]);

/* The elastic energy at x with rotation r (J). */
double membrane_energy (const MembraneTriangle *tri, const double x[3][3], const double r[6]);

/* K = R K0 R^T (9 x 9, row-major, vertex-major 3 x 3 blocks). */
void membrane_stiffness (const MembraneTriangle *tri, const double r[6], double k[9][9]);

G_END_DECLS

/* One corotational linear tetrahedron (Saupin 2008 sec. 2; Allard 2010 sec. 3.1): linear
 * isotropic elasticity measured in a frame that turns with the element, so that large
 * rotations cause no spurious forces.
 *
 *   rest:   X_0..X_3, shape gradients g_i (the rows of Dm^-1, Dm = [X_1 - X_0, X_2 - X_0,
 *           X_3 - X_0]; g_0 = -(g_1 + g_2 + g_3)), volume V = det(Dm) / 6;
 *   K0:     the 12 x 12 rest stiffness, blocks K0_ij = V (lambda g_i g_j^T + mu g_j g_i^T
 *           + mu (g_i . g_j) I), from the strain energy V (lambda/2 tr(e)^2 + mu e:e);
 *   R:      the rotation of the deformation gradient F = Ds Dm^-1 by polar decomposition
 *           (F = U S V^T, R = U V^T, the smallest singular direction flipped when det F < 0
 *           so that R stays a rotation, even for an inverted element);
 *   force:  f_i = -R sum_j K0_ij (R^T x_j - X_j), and stiffness R K0 R^T (R held fixed). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct CorotationalTet {
  double rest[4][3];
  double gradients[4][3];
  double volume;
  double k0[12][12];
} CorotationalTet;

/* Lame coefficients of Young's modulus E (Pa) and Poisson's ratio nu (< 0.5). */
void fem_lame (double young, double poisson, double *lambda, double *mu);

/* FALSE when the rest tetrahedron is degenerate or negatively oriented. */
gboolean fem_tet_init (CorotationalTet *tet, const double rest[4][3], double lambda, double mu);

/* The element's rotation at current positions x (row-major 3 x 3). */
void fem_tet_rotation (const CorotationalTet *tet, const double x[4][3], double r[9]);

/* What the element overlay shows of the element at positions x: the corotated small strain
 * e = sym(R^T F) - I as e_xx, e_yy, e_zz, e_yz, e_xz, e_xy (the element's rest frame), and
 * the angle of R (rad). */
void fem_tet_strain (const CorotationalTet *tet, const double x[4][3], double strain[6],
                     double *angle);

/* The element's stiffness R K0 R^T at rotation r (12 x 12, node-major). */
void fem_tet_stiffness (const CorotationalTet *tet, const double r[9], double k[12][12]);

/* out = R K0 R^T dx for the four nodes' vectors dx (the stiffness applied without forming it:
 * what the free motion's K v needs every step). */
void fem_tet_stiffness_apply (const CorotationalTet *tet, const double r[9],
                              const double dx[4][3], double out[4][3]);

/* The elastic forces on the four nodes at positions x, with rotation r. */
void fem_tet_forces (const CorotationalTet *tet, const double x[4][3], const double r[9],
                     double f[4][3]);

G_END_DECLS

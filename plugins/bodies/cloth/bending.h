/* The cloth's bending: discrete shells (Grinspun et al. 2003) in the quadratic form that
 * Bergou et al. 2006 ("A quadratic bending model for inextensible surfaces") derive for a
 * surface flat at rest deforming isometrically (cloth stretches little):
 *
 *   E = 1/2 D sum_hinges |sum_i k_i x_i|^2,   k = K / sqrt (A_0 + A_1),
 *   K = (cot a_1 + cot b_1, cot a_0 + cot b_0, -cot a_0 - cot a_1, -cot b_0 - cot b_1)
 *
 * for each hinge: an inner edge x_0 x_1 shared by the triangles (x_0, x_1, x_2) and (x_0,
 * x_1, x_3) of rest areas A_0, A_1, with a_0, a_1 (b_0, b_1) their rest angles at x_0, x_1
 * (Bergou 2006 eq. 7 and sec. 4.2). sum_i K_i x_i is the hinge's discrete mean-curvature
 * vector, zero whenever the four vertices lie in a plane and of length |e| theta for a
 * small dihedral angle theta, so each hinge holds 1/2 D |e|^2 theta^2 / (A_0 + A_1):
 * discrete shells' 3 |e|^2 theta^2 / (A_0 + A_1) (Grinspun 2003) divided by 3, the factor
 * by which that sum exceeds Willmore's integral of (k_1 + k_2)^2 on a regular grid bent
 * about one of its axes (each cell then has one bent hinge, not the three a hinge's third
 * of the area assumes). So E approximates 1/2 D integral (k_1 + k_2)^2 dA with D the
 * plate's bending stiffness E t^3 / (12 (1 - nu^2)) (N m) for a rectangle bent about its
 * sides; bent about a diagonal the same grid holds 1.5 times that (the hinge energy is not
 * isotropic on a regular grid: docs/plugins/cloth.md). The energy is quadratic in the
 * positions: its Hessian D k k^T (x) I_3 is constant, the implicit step's bending stiffness
 * exact. A curved rest shape is taken as flat (Bergou's model; discrete shells' rest angles
 * are not kept). */
#pragma once

#include <stdint.h>

#include <glib.h>

G_BEGIN_DECLS

typedef struct BendingHinge {
  uint32_t vertices[4];   /* the edge's x_0, x_1, then x_2 and x_3 across it */
  double k[4];            /* K / sqrt (A_0 + A_1) */
} BendingHinge;

/* The hinges of the triangles (3 vertex indices each) at the rest positions x (3 per
 * vertex): one per edge shared by two triangles; edges of one triangle (the border) have
 * none. FALSE with a message when an edge has more than two triangles (not a manifold) or
 * a triangle has no area. */
gboolean bending_hinges (const double *x, const uint32_t *triangles, size_t n_triangles,
                         GArray *hinges, GError **error);

/* The hinge's mean-curvature vector sum_i k_i x_i at positions q (3 per vertex). */
void bending_curvature (const BendingHinge *hinge, const double *q, double c[3]);

/* The energy 1/2 D |c|^2 of the hinges at q. */
double bending_energy (const BendingHinge *hinges, size_t n, double stiffness, const double *q);

/* f -= D k_i c at each hinge vertex (the bending forces at q, accumulated into f). */
void bending_add_forces (const BendingHinge *hinges, size_t n, double stiffness, const double *q,
                         double *f);

/* The hinge's 12 x 12 stiffness D k k^T (x) I_3 (row-major, vertex-major 3 x 3 blocks). */
void bending_stiffness (const BendingHinge *hinge, double stiffness, double k[12][12]);

G_END_DECLS

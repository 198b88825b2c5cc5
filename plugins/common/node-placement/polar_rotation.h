/* The rotation of the polar decomposition m = R S of a 3 x 3 matrix: a corotational
 * element's rotation from its deformation gradient (the FEM body's tetrahedra, the cloth's
 * triangles), a node's from the sum of its elements' rotations (Saupin 2008 fig. 1b) and a
 * deformable body's best-fit rotation onto its rest shape. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* r = R (row-major 3 x 3) with m = R S, S symmetric positive semi-definite, det R = +1 (a
 * reflection is turned into the nearest rotation); the identity for a non-finite m. */
void polar_rotation (const double m[9], double r[9]);

G_END_DECLS

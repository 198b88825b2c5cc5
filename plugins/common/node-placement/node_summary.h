/* The summary (body_model.h's CwbBodySummary) of a deformable body whose DOFs are node
 * positions and velocities with a lumped mass each (the FEM body's grid nodes, the cloth's
 * vertices). */
#pragma once

#include <cwb/body_model.h>

G_BEGIN_DECLS

/* The n nodes at q, v (3 n each), of masses node_mass (n) summing to mass, whose rest
 * positions are rest (3 n) with centre of mass com_rest: centroid, linear momentum and
 * velocity, kinetic energy, angular momentum and velocity about the centroid, and as the
 * orientation the best-fit rotation of the nodes onto their rest positions (the polar
 * rotation of sum m (x - c)(X - C)^T). */
void node_summary (const double *q, const double *v, const double *rest,
                   const double com_rest[3], const double *node_mass, size_t n, double mass,
                   CwbBodySummary *out);

G_END_DECLS

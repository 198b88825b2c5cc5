/* The faces of fixed closed surfaces that lie against another fixed surface: a tank built of
 * abutting boxes has, where a wall's end meets the next wall, an end face that bounds no
 * free space: solid matter lies on both sides of it. A contact model that takes a point's
 * normal from its closest face would push a body out through such a face, into the
 * neighbouring wall, which pushes it back: in the seam between the two the body (a fluid's
 * particles) meets no resistance along the wall and sinks into it. Fixed surfaces do not move
 * relative to one another, so which of their triangles are covered is measured once and kept
 * until one of them moves.
 *
 * A triangle is covered when the point a distance `reach` outside its centroid, along its
 * normal, lies inside another fixed closed surface (its generalized winding number, the sum
 * of the solid angles of its triangles over 4 pi, above 1/2: exact for any closed surface,
 * whatever its convexity). `reach` is what the model cannot resolve: a gap narrower than it
 * between two walls is a seam too. A triangle partly covered (a floor's top under the walls
 * standing on it) is judged by its centroid: uncovered where the walls stand on its rim. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef struct CoveredFaces CoveredFaces;

CoveredFaces *covered_faces_new (void);
void covered_faces_free (CoveredFaces *covered);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CoveredFaces, covered_faces_free)

/* Measures which triangles of the query's fixed closed surfaces are covered at `reach`,
 * unless the fixed surfaces' positions, their number and `reach` are those of the last
 * measure. */
void covered_faces_update (CoveredFaces *covered, const CwbContactQuery *query, double reach);

/* Whether triangle t of geometry k is covered (FALSE for a moving geometry's). */
gboolean covered_faces_test (const CoveredFaces *covered, uint32_t k, uint32_t t);

/* Geometry k's flags, 1 per covered triangle; NULL where none is (a moving geometry's). */
const guint8 *covered_faces_flags (const CoveredFaces *covered, uint32_t k);

/* How many triangles are covered, over every geometry. */
size_t covered_faces_count (const CoveredFaces *covered);

/* The generalized winding number of a closed surface about the point p (1 inside, 0
 * outside, for a consistently outward-oriented surface). */
double surface_winding_number (const CwbGeometry *geometry, const double p[3]);

G_END_DECLS

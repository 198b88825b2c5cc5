/* The face a penetrating point came in through. Detection gives each point inside a body the
 * nearest face of its surface (the paper's d_i, "orthogonal projection of the point i onto
 * the surface"); after a fast approach that face can be another than the one crossed: a box's
 * corner landing 1.4 cm deep, 1 cm from the side of the box below, is nearest the side, and a
 * force along that depth pushes it sideways and through. The point's motion over the step
 * tells which face it crossed: it was at p0 = p - h u at the step's start (u its velocity
 * relative to the surface at the contact; the predictor moved it by exactly h u when the
 * bodies translate), outside the face it came through.
 *
 * A candidate is suspect when p0 lies inside its face's plane by more than half the
 * depth: its depth was not made by crossing that face this step. For a suspect the segment
 * p0 -> p is tested against every triangle of the surface, and the last face it crossed
 * (nearest p) gives the contact instead: T_i that triangle, h_ij the crossing's barycentric
 * coordinates, d_i the depth perpendicular to its plane. Costs O(triangles of the surface)
 * per suspect; lasting and resting contacts (closed at the step's start) are never
 * suspect. */
#pragma once

#include "collision_detection.h"

G_BEGIN_DECLS

/* Rewrites candidate c (inside its surface) to the face its point came in through when its
 * own face cannot be it and a crossed face is found; returns whether it did. */
gboolean entry_face_correct (ContactCandidate *c, const CwbGeometry *geometries, double h);

G_END_DECLS

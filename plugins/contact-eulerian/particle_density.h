/* Volume particles in the Eulerian layer (Faure 2007 sec. 5.4, eq. 4-6): each particle of a
 * CWB_GEOMETRY_PARTICLES geometry (centre q_i, radius r_i, mass m_i) stands for a cube of
 * its volume V_i = 4/3 pi r_i^3, side d_i = V_i^(1/3), about its centre, and spreads over
 * the grid points around it as that cube's density with its faces smoothed exactly as a
 * surface's are (density_profile over one step h either side):
 *     rho_i (r) = prod_c phi_i (r_c - q_ic),   phi_i (u) = C (u + d_i / 2) - C (u - d_i / 2),
 * C (v) = 1 - density_profile (v / h), the smooth step's rise from 0 at -h to 1 at +h: the
 * cube's box convolved with the step's smoothing. The body's density is their sum, clamped
 * at 1: rho_j = min (1, sum_i rho_i (r_j)). Three properties follow, which the tests check:
 *   - cubes that tile space sum to 1 exactly, wherever the grid's points fall (the sum
 *     telescopes along each axis), so a body filled by a lattice of whole cells is exactly 1
 *     inside: no ripple and nothing clamped;
 *   - across a face of such a body the density is the surface's own profile, so a particle
 *     body and a surface meet as two surfaces do (their transitions odd about the same
 *     point: rho_a + rho_b = 1 where the faces touch);
 *   - each particle's share spreads its volume: sum_j rho_i (r_j) h^3 = V_i up to the grid's
 *     sampling of a smooth function (eq. 4's m_j = sum_i w_ij m_i with w_ij = rho_i (r_j)
 *     h^3 / V_i).
 * ("The density associated with a volume particle is its volume divided by the volume of the
 * Eulerian cell", distributed over more than one cell where the particle is larger.)
 *
 * The point moves with the particles by eq. 5 and 6: m_j = sum_i w_ij m_i, and
 * dr_j / dq_i = w_ij m_i / m_j. The density's gradient and Hessian are those of the sum of
 * the smoothed cubes, exact (zero where the sum is clamped). */
#pragma once

#include <cwb/cwb.h>

#include "density_grid.h"
#include "density_penalty.h"
#include "grid_point.h"

G_BEGIN_DECLS

/* How far beyond their centres the geometry's particles reach at grid step h along an axis:
 * the largest half-side plus a step. */
double particle_density_reach (const CwbGeometry *g, double step);

/* The side of the geometry's largest particle cube (2 particle_density_reach (g, 0)): the
 * extent a particle geometry has whatever its centres span (a lone particle's span none). */
double particle_density_side (const CwbGeometry *g);

/* What the density of the geometry's particles at grid step h is divided by: twice its
 * largest value at the centre of a particle's face that no neighbour covers, at most 1. A
 * thick body's faces are at 1/2 (the smoothed cubes' edge), so it is 1 there and its
 * density is left as it is. A body thinner than the smoothing is not: a row of particles
 * of the step's size is at phi (0) phi (a) = 0.69 x 1/2 on its sides (phi (0) = P (-1/2) -
 * P (1/2) along a thin axis), its faces sunk inside its density's half, and its overlap
 * with another body (eq. 2) stayed small however deep it sank: it fell through what it
 * lay on. Divided by 0.69, its half is at its faces again, with a thick face's slope there,
 * and it peaks at 0.69 on its axis. */
double particle_density_face_scale (const CwbGeometry *g, double step);

/* The surface of a body of particles on a lattice, read without its axes: *area the missing
 * faces of the cubes with fewer than six neighbours, *flat the largest set of such
 * particles whose outward normals (opposite their neighbours) share a bin of `normal_bin`,
 * a cube's face each. */
void particle_density_surface (const CwbGeometry *g, double normal_bin, double *area,
                               double *flat);

/* Samples the particles of g over the box: those reaching a point `mask` keeps (NULL: all),
 * so that a point the mask leaves may lack some particles' shares; the sum divided by
 * `face_scale` (in (0, 1]: particle_density_face_scale's, or 1 as it is) before the clamp
 * at 1. */
void body_density_sample_particles (BodyDensity *d, const GridBox *box, const CwbGeometry *g,
                                    const GridMask *mask, double face_scale);

/* The density at point (i, j, k) of the box with its exact gradient and Hessian (of the sum
 * of the particles' smoothed cubes, divided by the sampling's face_scale), and the particles the
 * point moves with (eq. 6: the GRID_POINT_TERMS heaviest of w_ij m_i / m_j, scaled to sum
 * to 1). */
void particle_density_sample (const BodyDensity *d, const CwbGeometry *g, int i, int j, int k,
                              DensitySample *sample, GridPoint *m);

G_END_DECLS

/* A closed triangle surface around volume particles (a fluid's), for the contact models that
 * read surfaces only (the LDI's volumes). Each particle i of centre x_i and radius r_i
 * spreads a smooth compact kernel of support R_i = PARTICLE_SURFACE_SUPPORT_RADII r_i; the
 * surface is the zero set of Zhu and Bridson's 2005 field ("Animating sand as a fluid",
 * sec. 3.3, eq. 3 and 4),
 *
 *   phi(x) = |x - xbar(x)| - rbar(x),   xbar = sum_i w_i(x) x_i,   rbar = sum_i w_i(x) r_i,
 *   w_i(x) = k(|x - x_i| / R_i) / sum_j k(|x - x_j| / R_j),   k(q) = (1 - q^2)^3 (q < 1),
 *
 * which is a lone particle's sphere of radius r_i exactly, and a flat face of a lattice of
 * spacing 2 r (touching particles) at r outside its last layer, half a spacing: the lattice's
 * own boundary. The field is sampled on the nodes of a regular grid within reach of a
 * particle (a sparse grid: the work is linear in the particles, whatever their spread) and
 * its zero set extracted by marching tetrahedra over each cube split into six tetrahedra
 * along its main diagonal (Kuhn's split, which neighbouring cubes share face by face): every
 * surface vertex sits on a grid edge, shared by every tetrahedron around that edge, so the
 * surface is closed and manifold without any ambiguity table, and each triangle is oriented
 * from its tetrahedron's inside corners to its outside ones (outward normals).
 *
 * Each vertex v carries normalised kernel weights w_vi over the particles near it (the
 * w_i(p_v) above, summing to 1): the vertex moves as p_v = sum_i w_vi x_i + o_v with its
 * offset o_v held, so its velocity is sum_i w_vi v_i and a force f on it is w_vi f on
 * particle i. That is the mapping's J from surface vertices to particles; a rigid
 * translation of the particles translates the surface (the grid is anchored to the
 * particles' box). */
#pragma once

#include <cwb/geometry.h>

#include "spatial_hash.h"

G_BEGIN_DECLS

/* A particle's kernel support, in its radii: 2, one spacing of touching particles, so that
 * a flat lattice face sees its own layer only and lies half a spacing out (see above). */
#define PARTICLE_SURFACE_SUPPORT_RADII 2.0
/* The grid's cell, in the smallest particle radius: 1, half a spacing; never below a quarter
 * of the largest support, so that a particle touches at most 9^3 nodes. */
#define PARTICLE_SURFACE_CELL_RADII 1.0

/* One entry of a vertex's J: its weight on one particle. */
typedef struct ParticleSurfaceWeight {
  uint32_t particle;
  double w;
} ParticleSurfaceWeight;

typedef struct ParticleSurfaceTable ParticleSurfaceTable;

typedef struct ParticleSurface {
  /* The surface of the last build. */
  GArray *positions;      /* double, 3 per vertex */
  GArray *velocities;     /* double, 3 per vertex: sum_i w_vi v_i */
  GArray *triangles;      /* uint32_t, 3 per triangle, counter-clockwise seen from outside */
  GArray *weight_start;   /* uint32_t per vertex + 1: vertex v's weights are
                           * [weight_start[v], weight_start[v + 1]) */
  GArray *weights;        /* ParticleSurfaceWeight, sorted by particle within a vertex */
  double cell_size;       /* the grid's cell of the last build */
  size_t skipped;         /* particles left out: non-finite, or beyond the grid's 2^20 cells
                           * per axis from the others */
  /* scratch, kept from build to build */
  GArray *nodes;          /* the sparse grid's nodes */
  GArray *node_keys;      /* uint64_t per node */
  ParticleSurfaceTable *node_table, *edge_table, *cell_table;
  GArray *vertex_node;    /* uint32_t per vertex: the inside node of its edge */
  GArray *offsets;        /* double, 3 per vertex: o_v = p_v - sum_i w_vi x_i at the build */
  SpatialHash hash;
} ParticleSurface;

void particle_surface_init (ParticleSurface *surface);
void particle_surface_clear (ParticleSurface *surface);

/* Rebuilds the surface around the particles of `particles` (a CWB_GEOMETRY_PARTICLES
 * geometry: positions, velocities (may be NULL: zero), radii). No particle, no triangle. */
void particle_surface_build (ParticleSurface *surface, const CwbGeometry *particles);

/* Moves the surface of the last build with its particles, through the vertices' weights: p_v
 * = sum_i w_vi x_i + o_v with the offsets o_v of the build, velocities sum_i w_vi v_i; the
 * triangles are kept. What a position correction does to the surface to first order, at a
 * fraction of a build's cost; `particles` must be the geometry of the build (same count). */
void particle_surface_follow (ParticleSurface *surface, const CwbGeometry *particles);

static inline size_t
particle_surface_n_vertices (const ParticleSurface *surface)
{
  return surface->positions->len / 3;
}

static inline size_t
particle_surface_n_triangles (const ParticleSurface *surface)
{
  return surface->triangles->len / 3;
}

G_END_DECLS

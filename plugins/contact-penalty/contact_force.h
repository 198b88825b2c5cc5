/* Contact forces of the penalty model (Spillmann et al. 2007, as summarised by Lazarevych et
 * al. sec. 3.3 and extended in sec. 4.1): one force per collision (point i, triangle T_i)
 * along its penetration depth vector, sized so that the pair would close its penetration in
 * one time step, then the post-correction that conserves momentum.
 *
 * Masses are effective masses: the mass a point shows along the contact normal given its
 * body's response over one step (m = dt^2 / (n . J C J^T n)), measured through the host's
 * point_response. For a lumped-mass deformable node this is its nodal mass m_i, the paper's
 * setting; for a rigid body it accounts for rotation, so a corner is lighter than the body. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* A (geometry, point) pair packed into one sortable key. */
static inline guint64
penalty_point_key (uint32_t geometry, uint32_t point)
{
  return ((guint64) geometry << 32) | point;
}

/* The quantities of one collision (i, T_i) the force needs. Masses are in kg; INFINITY for a
 * point that cannot move (a fixed body).
 *
 * The paper's i is a vertex. A contact of a convex manifold (convex_contact.h: a corner on an
 * edge, a point where an edge crosses a face, a clipped point of a face) joins a point of an
 * edge or a face to the other surface, so i is in general a weighted point
 * x_i = sum_k w_k x_k of 1 to 3 vertices (weights summing to 1); a vertex is n_points = 1,
 * w = (1). A pair force f acts as w_k f on the vertices k of i (the transpose of the weighted
 * point), and -h_ij f on the vertices j of the other side. That side is T_i's three vertices
 * for a point candidate, or the 1 to 3 weighted vertices of a manifold contact's other point
 * (the rest with h = 0 and the first vertex's index). */
typedef struct PenaltyPair {
  uint32_t point_geometry;               /* the geometry of i */
  uint32_t n_points;                     /* 1 (a vertex) to 3 */
  uint32_t points[3];                    /* the vertices making i */
  double weights[3];                     /* w_k, k < n_points */
  uint32_t surface_geometry;             /* the body of T_i */
  uint32_t vertices[3];                  /* T_i = {q, r, s} */
  double bary[3];                        /* h_ij (eq. 1) */
  double depth[3];                       /* d_i(t + dt), out of T_i's surface */
  double m_point;                        /* m_i along the normal, at the weighted point */
  double m_vertex[3];                    /* m_j, j in T_i, along the normal */
} PenaltyPair;

/* i as the lone vertex `point` of `geometry` (the paper's collisions). */
static inline void
penalty_pair_set_vertex (PenaltyPair *pair, uint32_t geometry, uint32_t point)
{
  pair->point_geometry = geometry;
  pair->n_points = 1;
  pair->points[0] = pair->points[1] = pair->points[2] = point;
  pair->weights[0] = 1;
  pair->weights[1] = pair->weights[2] = 0;
}

/* Normalisation factors c (eq. 5) of every point involved, c_i = 1 / (1 + sum_j h_ji): the
 * share of a point's mass a collision can use when the point is also a vertex of other
 * collisions' triangles. */
typedef struct PenaltyNormalisation PenaltyNormalisation;

PenaltyNormalisation *penalty_normalisation_new (void);
void penalty_normalisation_free (PenaltyNormalisation *norm);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PenaltyNormalisation, penalty_normalisation_free)
/* Rebuilds the table from the pairs (O(n log n)). */
void penalty_normalisation_build (PenaltyNormalisation *norm, const PenaltyPair *pairs, size_t n);
/* c of a point; 1 for a point no triangle of the set contains. */
double penalty_normalisation_get (const PenaltyNormalisation *norm, uint32_t geometry,
                                  uint32_t point);

/* F_i = (m_i / dt^2) eps_i d_i (eq. 3) with eps_i = sum_j c_j h_ij m_j /
 * (c_i m_i + sum_j c_j h_ij m_j) (eq. 4), written as F_i = d_i / (dt^2 (1 / m_i + c_i / S))
 * with S = sum_j c_j h_ij m_j, which stays finite when either side cannot move. Zero when
 * neither can. For a weighted point i, c_i = sum_k w_k c_k: the share of each vertex's mass
 * eq. 5 leaves to this collision, averaged with the weights the point takes them by (the
 * same weighting S gives the other side's vertices); c_i of a vertex as it is. */
void penalty_contact_force (const PenaltyPair *pair, const PenaltyNormalisation *norm,
                            double dt, double force[3]);

/* The pair's force f as point forces (eq. 6's pattern): +w_k f on the penetrating point's
 * vertices, -h_ij f on the triangle's vertices with h_ij > 0 (action = reaction). Returns the
 * number written to out (at most PENALTY_PAIR_PATTERN_MAX). */
#define PENALTY_PAIR_PATTERN_MAX 6
size_t penalty_pair_pattern (const PenaltyPair *pair, const double f[3], CwbPointWeight *out);

/* The post-correction (eq. 6, the appendix's a = b = 1/2): each collision's force F_i acts
 * as F_i / 2 on point i (w_k F_i / 2 on its vertices k) and -h_ij F_i / 2 on the vertices j
 * of T_i, so that
 * COR(F_j) = (F_j - sum_i h_ij F_i) / 2 on every point and the forces sum to zero. Appends
 * the contributions of pair k with force forces[3 k ..] to `out` (CwbPointWeight, w = N);
 * several contributions may name one point (the host sums them). */
void penalty_post_correct (const PenaltyPair *pairs, const double *forces, size_t n,
                           GArray *out);

/* Sums the contributions of `items` per (geometry, point), in place, sorted by key. */
void penalty_merge_point_forces (GArray *items);

G_END_DECLS

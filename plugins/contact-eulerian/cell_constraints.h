/* The constraint response of the Eulerian model (Faure 2007 sec. 4.3), for the constraint
 * solver. Where rho_a + rho_b <= 1 is violated at a grid point, moving the two bodies apart
 * along a normal n by s, half each way, changes rho_bar by -(grad rho_a - grad rho_b) . n s / 2:
 * the point is a contact of normal n and gap -rho_bar over that rate, between the point as it
 * moves with a and as it moves with b (grid_point.h). The constraint solver's multiplier is
 * then the paper's pair of opposite displacements with m_a a_a + m_b a_b = 0, taken in the
 * bodies' own compliance, and Coulomb friction acts in the tangent plane.
 *
 * Grid points where the bodies are apart by less than a margin make contacts too, with a
 * positive gap (1 - rho_a - rho_b over the same rate): two bodies resting on each other fall
 * together in a step's free motion, which opens no overlap between them, and without the
 * margin their contact would be missing from every other step's solve.
 *
 * The grid points are grouped into cells of the lattice (`constraint_cell` points a side) and
 * each pair of bodies keeps one contact per cell: the mean of its points' constraints
 * weighted by how far each is into the margin's band (its overlap rho_bar plus the margin
 * times its rate: a point enters and leaves the contact with no weight, so the contact moves
 * continuously), named by the pair and the cell, so that it keeps its identity, and the
 * solver its warm start, while the cell stays in contact. */
#pragma once

#include <cwb/cwb.h>

#include "density_penalty.h"
#include "grid_point.h"

G_BEGIN_DECLS

typedef struct CellConstraints CellConstraints;

CellConstraints *cell_constraints_new (void);
void cell_constraints_free (CellConstraints *constraints);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CellConstraints, cell_constraints_free)

/* A detection's start: no contacts, the grid's step and the cells' size in points. */
void cell_constraints_begin (CellConstraints *constraints, double step, int cell_points);

/* A pair's start: its cells are its own, `cell_points` grid points a side (at most the
 * detection's constraint_cell). A cell's row holds the mean of its points' gaps, which a
 * body whose points share DOFs meets as one; particles that move apart (a fluid's) would
 * meet it by pushing the one that carries the cell most past its neighbours while the
 * others stay in, so a pair with such a geometry takes cells no wider than a particle. */
void cell_constraints_begin_pair (CellConstraints *constraints, int cell_points);

/* One grid point of the pair (a, b) at r, with both densities' samples, whether each
 * body's closest surface point is on a face, its excess rho_a + rho_b - 1 (the overlap
 * rho_bar where positive), the margin (m) within which a point apart makes a contact with a
 * positive gap, and the volume a point stands for. Points whose densities give no depth
 * along the normal, and points apart by the margin or more, are left out. */
void cell_constraints_add (CellConstraints *constraints, uint32_t a, uint32_t b, double mu,
                           const GridPoint moves[2], const double r[3],
                           const DensitySample sample[2], const gboolean on_face[2],
                           double excess, double margin, double volume);

/* A pair's end: its points whose two closest surface points are on faces far from opposite
 * (beside an edge pressed into a face) take the face nearer the pair's normal, and join
 * their cells. */
void cell_constraints_end_pair (CellConstraints *constraints);

/* The detection's contacts into the set: a frame per cell, its normal row and, in the
 * velocity pass where the pair has friction, two tangent rows; the report's volume and
 * depth; the stabilization passes the rows need. */
void cell_constraints_write (const CellConstraints *constraints, const CwbContactQuery *query,
                             CwbContactSet *set);

G_END_DECLS

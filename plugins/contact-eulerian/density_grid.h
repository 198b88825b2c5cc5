/* The Eulerian layer over one box of the regular grid (Faure 2007 sec. 4.1): each body's
 * spatial density rho (the share of space its matter fills: 1 inside, 0 outside, 1/2 on the
 * surface) sampled at the grid's points, its gradient by central differences, and, for each
 * point near a body's surface, the kinematic coefficients dr/dq of sec. 5.2: the point moves
 * with the closest point of the body's surface, whose velocity is the barycentric
 * interpolation of its triangle's vertices.
 *
 * The grid is the lattice of points k h (k integer, h the step) shared by every body, so two
 * bodies sampled over the same box meet at the same points. A closed surface is sampled by
 * scan conversion (sec. 5.2): the crossings of each grid column with the triangles decide
 * inside and outside, and within half a step of the surface the density is the ramp
 * 1/2 - d / h of the signed distance d (negative inside), so that it varies continuously as
 * the body moves and reaches 0 and 1 one step apart: "a contact volume around the surface
 * with the thickness of one step of the density grid". */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* A box of grid points: lattice indices lo .. lo + n - 1 along each axis. */
typedef struct GridBox {
  double step;
  int lo[3];
  int n[3];
} GridBox;

/* The points of the box, x fastest. */
static inline size_t
grid_box_points (const GridBox *box)
{
  return (size_t) box->n[0] * (size_t) box->n[1] * (size_t) box->n[2];
}

static inline size_t
grid_box_index (const GridBox *box, int i, int j, int k)
{
  return ((size_t) k * (size_t) box->n[1] + (size_t) j) * (size_t) box->n[0] + (size_t) i;
}

static inline void
grid_box_point (const GridBox *box, int i, int j, int k, double r[3])
{
  r[0] = (box->lo[0] + i) * box->step;
  r[1] = (box->lo[1] + j) * box->step;
  r[2] = (box->lo[2] + k) * box->step;
}

/* The smallest box holding the points within [min, max] widened by `pad` steps on each
 * side; FALSE when it would hold more than `max_points` points (or none). */
gboolean grid_box_cover (GridBox *box, double step, const double min[3], const double max[3],
                         int pad, size_t max_points);

/* One body sampled over a box. Points farther than 3/2 steps from the surface have a zero
 * gradient (their central differences read no point of the ramp) and no surface point. */
typedef struct BodyDensity {
  GridBox box;
  GArray *rho;        /* double per point */
  GArray *distance;   /* double per point: distance to the surface, up to 3/2 steps (capped) */
  GArray *triangle;   /* uint32_t per point: the closest triangle, G_MAXUINT32 beyond 3/2 steps */
  GArray *bary;       /* double, 3 per point: the closest point's barycentric coordinates */
  GArray *crossings;  /* scratch: double, per column */
} BodyDensity;

BodyDensity *body_density_new (void);
void body_density_free (BodyDensity *density);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BodyDensity, body_density_free)

/* Samples the closed triangle surface (positions: 3 per vertex) over the box. */
void body_density_sample_surface (BodyDensity *density, const GridBox *box,
                                  const double *positions, const uint32_t *triangles,
                                  size_t n_triangles);

/* The central-difference gradient of rho at point (i, j, k) (one-sided on the box's faces). */
void body_density_gradient (const BodyDensity *density, int i, int j, int k, double g[3]);

/* The central-difference Hessian of rho at (i, j, k), row-major 3 x 3 (zero rows and
 * columns along an axis where the point is on the box's face). */
void body_density_hessian (const BodyDensity *density, int i, int j, int k, double hess[9]);

/* The integral of rho over space, sum rho h^3: the body's volume as the grid sees it. */
double body_density_volume (const BodyDensity *density);

G_END_DECLS

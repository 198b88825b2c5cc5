/* The Eulerian layer over one box of the regular grid (Faure 2007 sec. 4.1): each body's
 * spatial density rho (the share of space its matter fills: 1 inside, 0 outside, 1/2 on the
 * surface) sampled at the grid's points, its gradient and Hessian, and, for each point near
 * a body's surface, the closest point of that surface (grid_point.h maps the point to the
 * body from it).
 *
 * The grid is the lattice of points k h (k integer, h the step) shared by every body, so two
 * bodies sampled over the same box meet at the same points. A closed surface is sampled by
 * scan conversion (sec. 5.2): the crossings of each grid column with the triangles decide
 * inside and outside, and within one step of the surface the density is a smooth step of
 * the signed distance d (negative inside): 1/2 on the surface, 1 and 0 one step inside and
 * outside, its slope vanishing at both ends (`density_profile` below). The paper's
 * "contact volume around the surface with the thickness of one step of the density grid",
 * here two steps thick so that the lattice samples the transition at two points or more
 * along any direction, and smooth so that the densities' derivatives, taken of the step
 * itself rather than by the paper's finite differences, are continuous in the bodies'
 * positions (docs/plugins/eulerian.md, "Why a smooth step"). */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* The density across a surface as a function of x = d / h (d the signed distance, negative
 * inside): 1 for x <= -1, 0 for x >= 1, and between them 1 - S ((x + 1) / 2) with
 * S (t) = 3 t^2 - 2 t^3, the cubic step whose slope vanishes at both ends; odd about the
 * surface (rho - 1/2 changes sign with x), so a plane keeps its volume. Its first and second
 * derivatives with respect to x into *slope and *curvature when not NULL. */
static inline double
density_profile (double x, double *slope, double *curvature)
{
  if (slope != NULL)
    *slope = 0;
  if (curvature != NULL)
    *curvature = 0;
  if (x <= -1)
    return 1;
  if (x >= 1)
    return 0;
  double t = 0.5 * (x + 1);
  if (slope != NULL)
    *slope = -3 * t * (1 - t);
  if (curvature != NULL)
    *curvature = -1.5 * (1 - 2 * t);
  return 1 - t * t * (3 - 2 * t);
}

/* The profile's inverse: the signed distance to the surface, in steps, at which it gives
 * the density rho (-1 for rho >= 1, +1 for rho <= 0: beyond the transition the density
 * tells no more). With S (t) = 3 t^2 - 2 t^3 = 1 - rho, t = 1/2 - sin (asin (1 - 2 S) / 3),
 * the trigonometric root of the cubic that lies in [0, 1]. */
double density_distance (double rho);

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

/* Which points of a box to give their densities (grid_hierarchy.h): cells of `cell` points
 * along each axis, n[] of them over the box, active[] per cell (x fastest); NULL, or a NULL
 * `active`: every point. */
typedef struct GridMask {
  int cell;
  int n[3];
  const guint8 *active;
} GridMask;

static inline gboolean
grid_mask_active (const GridMask *mask, int i, int j, int k)
{
  if (mask == NULL || mask->active == NULL)
    return TRUE;
  int ci = i / mask->cell, cj = j / mask->cell, ck = k / mask->cell;
  return mask->active[((size_t) ck * (size_t) mask->n[1] + (size_t) cj) * (size_t) mask->n[0]
                      + (size_t) ci];
}

/* Whether the mask keeps a point of the box's index range first[] .. last[] (inclusive). */
static inline gboolean
grid_mask_any (const GridMask *mask, const int first[3], const int last[3])
{
  if (mask == NULL || mask->active == NULL)
    return TRUE;
  for (int ck = first[2] / mask->cell; ck <= last[2] / mask->cell; ck++)
    for (int cj = first[1] / mask->cell; cj <= last[1] / mask->cell; cj++)
      for (int ci = first[0] / mask->cell; ci <= last[0] / mask->cell; ci++)
        if (mask->active[((size_t) ck * (size_t) mask->n[1] + (size_t) cj)
                             * (size_t) mask->n[0]
                         + (size_t) ci])
          return TRUE;
  return FALSE;
}

/* One body sampled over a box. Points farther than 3/2 steps from the surface have no
 * closest triangle recorded (and, beyond one step, a constant density). */
typedef struct BodyDensity {
  GridBox box;
  GArray *rho;        /* double per point */
  GArray *distance;   /* double per point: distance to the surface, up to 3/2 steps (capped) */
  GArray *triangle;   /* uint32_t per point: the closest triangle, G_MAXUINT32 beyond 3/2 steps */
  GArray *bary;       /* double, 3 per point: the closest point's barycentric coordinates */
  GArray *direction;  /* double, 3 per point: unit, from the closest point to the point (on
                       * the surface, the face's outward normal) */
  GArray *edge;       /* double, 3 per point: unit, along the edge holding the closest point
                       * (zero for a face or a vertex) */
  GArray *on_face;    /* guint8 per point: the closest point is inside its triangle's face */
  GArray *inside;     /* guint8 per point: inside the surface (the scan conversion) */
  GArray *crossings;  /* scratch: the scan conversion's crossings */
  GArray *sorted;     /* scratch: the same, sorted */
  GArray *column_start; /* scratch: guint per column + 1 */
  /* Volume particles (particle_density.h) instead of a surface: */
  gboolean from_particles;
  double reach;           /* the particles' kernel half-width (m) */
  double face_scale;      /* what the sum is divided by before the clamp, in (0, 1]
                           * (particle_density_face_scale) */
  GArray *bucket_start;   /* guint per bucket + 1: the particles near the box, bucketed */
  GArray *bucket_members; /* uint32_t: particle indices, bucket by bucket */
  double bucket_origin[3];
  int bucket_n[3];
} BodyDensity;

BodyDensity *body_density_new (void);
void body_density_free (BodyDensity *density);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BodyDensity, body_density_free)

/* Samples the closed triangle surface (positions: 3 per vertex) over the box. */
void body_density_sample_surface (BodyDensity *density, const GridBox *box,
                                  const double *positions, const uint32_t *triangles,
                                  size_t n_triangles);

/* The same in two halves: the scan conversion over the whole box (inside and outside), then
 * the distances and densities at the points `mask` keeps (NULL: all). A point the mask
 * leaves has no closest triangle and the density of its side, 0 or 1. The triangles
 * `excluded` marks (1 per triangle; NULL: none) count for inside and outside but are never a
 * point's closest: faces that lie against another body's (covered_faces.h), across which
 * the density stays that of the solid both bodies make up. */
void body_density_begin_surface (BodyDensity *density, const GridBox *box,
                                 const double *positions, const uint32_t *triangles,
                                 size_t n_triangles);
void body_density_finish_surface (BodyDensity *density, const double *positions,
                                  const uint32_t *triangles, size_t n_triangles,
                                  const guint8 *excluded, const GridMask *mask);

/* The points of `within` (NULL: every point of the box) where d's density is above 0, as a
 * mask of single points kept in `storage` (guint8): a pair's second body is needed only
 * where the first is present, since a point overlaps only where both are. */
void grid_mask_where_present (GridMask *mask, GArray *storage, const GridMask *within,
                              const BodyDensity *d);

/* Marks (sets to 1) the cells of `cell` points along each axis (n_cells of them, x fastest)
 * holding a point the begun scan conversion puts inside, and perhaps a few more. */
void body_density_mark_inside (const BodyDensity *density, int cell, const int n_cells[3],
                               guint8 *cells);

/* The gradient and Hessian (row-major) of the sampled density, as a function of space, at
 * point (i, j, k): what a move of the body by delta changes the point's value by, to first
 * order -grad rho . delta. Zero beyond one step from the surface. */
void body_density_derivatives (const BodyDensity *d, int i, int j, int k, double g[3],
                               double hess[9]);

/* Whether the point's density is that of a face (its closest point inside a triangle) or of
 * an edge (on a triangle's side, farther than round-off from it), whose motion turns the
 * density's gradient (appendix B's stiffness); `direction` the unit vector from the closest
 * point to the point, `edge` the edge's unit direction (an edge's only). FALSE for a
 * vertex's density (it turns as the vertex carries it) and a particle density. */
gboolean body_density_face_or_edge (const BodyDensity *d, int i, int j, int k,
                                    double direction[3], double edge[3]);

/* The integral of rho over space, sum rho h^3: the body's volume as the grid sees it. */
double body_density_volume (const BodyDensity *density);

/* Adds `area` to the bin of the unit normal n (each component rounded to a multiple of
 * `bin`) in `faces` (g_int64 keys to g_new'd doubles, freed by the table) and returns the
 * bin's sum: the flat faces of a surface, or of a body of particles, by normal. */
double face_bins_add (GHashTable *faces, const double n[3], double bin, double area);

G_END_DECLS

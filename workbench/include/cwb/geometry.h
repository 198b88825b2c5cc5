/* What mappings produce and contact models read: a closed triangle surface or a set of volume
 * particles, with per-point velocities. Mechanics is in double; contact models that use the
 * GPU convert to float themselves. */
#pragma once

#include <cwb/abi.h>

G_BEGIN_DECLS

/* An indexed triangle surface, used both for a body's shape at creation (rest pose, body
 * frame) and for the mapped geometry during the run. Triangles are counter-clockwise seen
 * from outside (outward normals). */
typedef struct CwbSurfaceMesh {
  size_t struct_size;
  const double *vertices;      /* 3 * n_vertices */
  size_t n_vertices;
  const uint32_t *triangles;   /* 3 * n_triangles */
  size_t n_triangles;
  gboolean closed;             /* every edge shared by exactly two triangles */
  gboolean manifold;           /* closed, and consistently oriented */
  const char *source;          /* file name or primitive description, for messages */
} CwbSurfaceMesh;

typedef enum CwbGeometryKind {
  CWB_GEOMETRY_SURFACE = 1,    /* closed triangle surface: LDI, penalty, Eulerian surface */
  CWB_GEOMETRY_PARTICLES = 2,  /* volume particles with radius and mass: Eulerian densities,
                                * SPH fluid, Faure 2007 eq. 4-6 */
} CwbGeometryKind;

/* One mapped geometry of one body. Topology (triangles, radii, masses) is fixed after the
 * mapping's layout call; positions and velocities change every evaluation. Ownership: the
 * host allocates the arrays from the counts the mapping declares. */
typedef struct CwbGeometry {
  size_t struct_size;
  CwbGeometryKind kind;
  uint32_t body;               /* index of the owning body in the world */
  size_t n_points;             /* vertices or particles */
  double *positions;           /* 3 * n_points, world frame */
  double *velocities;          /* 3 * n_points, world frame */
  /* SURFACE */
  const uint32_t *triangles;   /* 3 * n_triangles, points into positions */
  size_t n_triangles;
  gboolean closed;
  /* PARTICLES */
  const double *radii;         /* n_points */
  const double *masses;        /* n_points */
} CwbGeometry;

/* A point of a geometry with a 3-vector coefficient: the building block of constraint
 * Jacobians and of forces on geometries. A row value is sum_k w_k . pdot[vertex_k], and a
 * force f on the row maps to w_k f on vertex_k (then through the mapping's J^T). A contact at
 * an interior point of a triangle is three entries weighted by its barycentric coordinates. */
typedef struct CwbPointWeight {
  uint32_t geometry;
  uint32_t point;
  double w[3];
} CwbPointWeight;

/* The box of a geometry's points at their current positions, into lo and hi (zeros without
 * points). */
static inline void
cwb_geometry_bounds (const CwbGeometry *geometry, double lo[3], double hi[3])
{
  for (int c = 0; c < 3; c++)
    lo[c] = hi[c] = geometry->n_points > 0 && geometry->positions != NULL
                      ? geometry->positions[c] : 0;
  if (geometry->positions == NULL)
    return;
  for (size_t i = 1; i < geometry->n_points; i++)
    for (int c = 0; c < 3; c++)
      {
        double x = geometry->positions[3 * i + c];
        lo[c] = x < lo[c] ? x : lo[c];
        hi[c] = x > hi[c] ? x : hi[c];
      }
}

/* A geometry's size: the largest extent of the box of its points at their current positions
 * (0 without points; not finite if a position is not). What automatic parameters scale with
 * (a contact margin, a solver tolerance without gravity). */
static inline double
cwb_geometry_size (const CwbGeometry *geometry)
{
  if (geometry->n_points == 0 || geometry->positions == NULL)
    return 0;
  double lo[3], hi[3];
  cwb_geometry_bounds (geometry, lo, hi);
  double size = hi[0] - lo[0];
  for (int c = 1; c < 3; c++)
    size = hi[c] - lo[c] > size ? hi[c] - lo[c] : size;
  return size;
}

G_END_DECLS

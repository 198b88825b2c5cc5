/* A primitive surface (workbench/core/primitives.c) with the FEM body's tetrahedral grid
 * around it (plugins/bodies/fem/tet_grid.c), presented as the fem body model presents itself
 * to a mapping: CwbBodyInfo with the grid's rest nodes and tetrahedra, nq = nv = 3 n_nodes,
 * and the surface as its reference surface in the same (mesh) frame. */
#pragma once

#include "mesh.h"
#include "tet_grid.h"

G_BEGIN_DECLS

typedef struct EmbeddedShape {
  CwbMesh *mesh;
  CwbSurfaceMesh surface;   /* view of mesh */
  TetGrid *grid;
  CwbBodyInfo info;         /* views of surface and grid */
} EmbeddedShape;

/* The primitive `desc` (a box, sphere, torus ...; its scale must be set) in a grid of
 * `cells` cells along its longest side, with a margin around it (TET_GRID_FIT_MARGIN), or
 * fitted as `fit` says (the fem body's default is TET_GRID_FIT_BOUNDS). */
EmbeddedShape *embedded_shape_new (const CwbShapeDesc *desc, int cells);
EmbeddedShape *embedded_shape_new_fitted (const CwbShapeDesc *desc, int cells, TetGridFit fit);
void embedded_shape_free (EmbeddedShape *shape);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EmbeddedShape, embedded_shape_free)

/* Descriptions of the primitives the tests embed. */
static inline CwbShapeDesc
embedded_sphere (double radius, int segments)
{
  return (CwbShapeDesc) { .kind = CWB_SHAPE_SPHERE, .radius = radius, .resolution = segments,
                          .scale = 1 };
}

static inline CwbShapeDesc
embedded_torus (double major_radius, double minor_radius, int segments)
{
  return (CwbShapeDesc) { .kind = CWB_SHAPE_TORUS, .major_radius = major_radius,
                          .minor_radius = minor_radius, .resolution = segments, .scale = 1 };
}

static inline CwbShapeDesc
embedded_box (double sx, double sy, double sz)
{
  return (CwbShapeDesc) { .kind = CWB_SHAPE_BOX, .size = { sx, sy, sz }, .resolution = 4,
                          .scale = 1 };
}

static inline const double *
embedded_shape_nodes (const EmbeddedShape *shape)
{
  return (const double *) (const void *) shape->grid->nodes->data;
}

G_END_DECLS

#include "embedded_shape.h"

EmbeddedShape *
embedded_shape_new (const CwbShapeDesc *desc, int cells)
{
  return embedded_shape_new_fitted (desc, cells, TET_GRID_FIT_MARGIN);
}

EmbeddedShape *
embedded_shape_new_fitted (const CwbShapeDesc *desc, int cells, TetGridFit fit)
{
  EmbeddedShape *shape = g_new0 (EmbeddedShape, 1);
  g_autoptr (GError) error = NULL;
  shape->mesh = cwb_mesh_from_shape (desc, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (shape->mesh->closed);
  cwb_mesh_as_surface (shape->mesh, &shape->surface);
  shape->grid = tet_grid_build (&shape->surface, cells, fit, &error);
  g_assert_no_error (error);
  size_t n_nodes = tet_grid_n_nodes (shape->grid);
  shape->info = (CwbBodyInfo) {
    .struct_size = sizeof (CwbBodyInfo),
    .nq = 3 * n_nodes,
    .nv = 3 * n_nodes,
    .reference_surface = &shape->surface,
    .rest_nodes = embedded_shape_nodes (shape),
    .n_nodes = n_nodes,
    .tetrahedra = (const uint32_t *) (const void *) shape->grid->tets->data,
    .n_tetrahedra = tet_grid_n_tets (shape->grid),
  };
  return shape;
}

void
embedded_shape_free (EmbeddedShape *shape)
{
  if (shape == NULL)
    return;
  tet_grid_free (shape->grid);
  cwb_mesh_free (shape->mesh);
  g_free (shape);
}

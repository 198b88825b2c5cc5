/* The inspection arrays plugins append to and the renderer draws. */
#include "world_private.h"

void
cwb_inspection_init (CwbInspection *inspection)
{
  memset (inspection, 0, sizeof *inspection);
  inspection->struct_size = sizeof *inspection;
  inspection->spans = g_array_new (FALSE, TRUE, sizeof (CwbInspectSpan));
  inspection->voxels = g_array_new (FALSE, TRUE, sizeof (CwbInspectVoxel));
  inspection->cells = g_array_new (FALSE, TRUE, sizeof (CwbInspectCell));
  inspection->vectors = g_array_new (FALSE, TRUE, sizeof (CwbInspectVector));
  inspection->derived = g_array_new (FALSE, TRUE, sizeof (CwbDerivedParam));
}

void
cwb_inspection_clear (CwbInspection *inspection)
{
  g_array_set_size (inspection->spans, 0);
  g_array_set_size (inspection->voxels, 0);
  g_array_set_size (inspection->cells, 0);
  g_array_set_size (inspection->vectors, 0);
  g_array_set_size (inspection->derived, 0);
}

void
cwb_inspection_destroy (CwbInspection *inspection)
{
  g_clear_pointer (&inspection->spans, g_array_unref);
  g_clear_pointer (&inspection->voxels, g_array_unref);
  g_clear_pointer (&inspection->cells, g_array_unref);
  g_clear_pointer (&inspection->vectors, g_array_unref);
  g_clear_pointer (&inspection->derived, g_array_unref);
}

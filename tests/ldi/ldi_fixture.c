/* Shapes and runs shared by the LDI tests (ldi_fixture.h). */
#include <string.h>

#include <cwb/vecmath.h>

#include "ldi_fixture.h"

void
test_body_free (TestBody *body)
{
  if (body == NULL)
    return;
  cwb_mesh_free (body->mesh);
  g_free (body);
}

void
test_body_sync (TestBody *body)
{
  body->surface.positions = (const double *) (void *) body->mesh->vertices->data;
  body->surface.n_vertices = cwb_mesh_n_vertices (body->mesh);
  body->surface.triangles = (const uint32_t *) (void *) body->mesh->triangles->data;
  body->surface.n_triangles = cwb_mesh_n_triangles (body->mesh);
}

TestBody *
test_body_new (CwbMesh *mesh, uint32_t geometry, uint32_t body)
{
  TestBody *b = g_new0 (TestBody, 1);
  b->mesh = mesh;
  b->surface.geometry = geometry;
  b->surface.body = body;
  test_body_sync (b);
  return b;
}

double *
test_body_vertex (TestBody *body, size_t k)
{
  return &g_array_index (body->mesh->vertices, double, 3 * k);
}

void
test_body_translate (TestBody *body, const double t[3])
{
  for (size_t k = 0; k < cwb_mesh_n_vertices (body->mesh); k++)
    cwb_v3_add (test_body_vertex (body, k), test_body_vertex (body, k), t);
}

static TestBody *
place (CwbMesh *mesh, const double centre[3], const double q[4], uint32_t body)
{
  g_assert_nonnull (mesh);
  g_assert_true (mesh->closed);
  TestBody *b = test_body_new (mesh, body, body);
  for (size_t k = 0; k < cwb_mesh_n_vertices (mesh); k++)
    {
      double *p = test_body_vertex (b, k);
      if (q != NULL)
        cwb_quat_rotate (p, q, p);
      cwb_v3_add (p, p, centre);
    }
  return b;
}

TestBody *
test_body_sphere (double radius, int resolution, const double centre[3], uint32_t body)
{
  CwbShapeDesc shape = { .kind = CWB_SHAPE_SPHERE, .radius = radius, .resolution = resolution };
  return place (cwb_mesh_from_shape (&shape, NULL, NULL), centre, NULL, body);
}

TestBody *
test_body_torus (double major, double minor, int resolution, const double centre[3],
                 const double q[4], uint32_t body)
{
  CwbShapeDesc shape = { .kind = CWB_SHAPE_TORUS, .major_radius = major, .minor_radius = minor,
                         .resolution = resolution };
  return place (cwb_mesh_from_shape (&shape, NULL, NULL), centre, q, body);
}

TestBody *
test_body_box (const double size[3], const double centre[3], const double q[4], uint32_t body)
{
  CwbShapeDesc shape = { .kind = CWB_SHAPE_BOX, .size = { size[0], size[1], size[2] } };
  return place (cwb_mesh_from_shape (&shape, NULL, NULL), centre, q, body);
}

LdiVolumeResult *
test_volumes_ldi (TestBody *const *bodies, size_t n_bodies, const double box_min[3],
                  const double box_max[3], double h, guint n_threads, double cell_size,
                  gboolean want_spans, Ldi **ldi_out)
{
  g_autofree LdiSurface *surfaces = g_new (LdiSurface, n_bodies);
  for (size_t k = 0; k < n_bodies; k++)
    surfaces[k] = bodies[k]->surface;
  g_autoptr (GError) error = NULL;
  g_autoptr (Ldi) ldi = ldi_new (box_min, box_max, h, &error);
  g_assert_no_error (error);
  g_assert_true (ldi_raster_cpu (ldi, surfaces, n_bodies, n_threads, &error));
  g_assert_no_error (error);
  LdiVolumeParams params = { .cell_size = cell_size, .want_spans = want_spans,
                             .n_threads = n_threads };
  LdiVolumeResult *result = ldi_intersection_volume (ldi, surfaces, n_bodies, &params);
  if (ldi_out != NULL)
    *ldi_out = g_steal_pointer (&ldi);
  return result;
}

LdiVolumeResult *
test_volumes (TestBody *const *bodies, size_t n_bodies, const double box_min[3],
              const double box_max[3], double h, guint n_threads, double cell_size,
              gboolean want_spans)
{
  return test_volumes_ldi (bodies, n_bodies, box_min, box_max, h, n_threads, cell_size,
                           want_spans, NULL);
}

double
test_pair_volume (const LdiVolumeResult *result, uint32_t a, uint32_t b, double axis_volume[3])
{
  const LdiVolume *v = ldi_volume_result_pair (result, a, b);
  if (axis_volume != NULL)
    for (int c = 0; c < 3; c++)
      axis_volume[c] = v != NULL ? v->axis_volume[c] : 0;
  return v != NULL ? v->volume : 0;
}

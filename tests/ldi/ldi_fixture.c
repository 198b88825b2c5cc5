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

CwbMesh *
test_mesh_sphere_off_centre (void)
{
  const double c[3] = { 0.5, 0, 0 };
  TestBody *body = test_body_sphere (1, 16, c, 1);
  CwbMesh *mesh = g_steal_pointer (&body->mesh);
  g_free (body);
  return mesh;
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

/* The backend test_volumes_ldi rasterises with: NULL for the CPU. */
static LdiGl *volumes_gl;
static LdiGradientMode volumes_gradient = LDI_GRADIENT_AXIS;

void
test_set_backend (LdiGl *gl)
{
  volumes_gl = gl;
}

void
test_set_gradient (LdiGradientMode mode)
{
  volumes_gradient = mode;
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
  if (volumes_gl != NULL)
    g_assert_true (ldi_raster_gl (volumes_gl, ldi, surfaces, n_bodies, &error));
  else
    g_assert_true (ldi_raster_cpu (ldi, surfaces, n_bodies, n_threads, &error));
  g_assert_no_error (error);
  LdiVolumeParams params = { .cell_size = cell_size, .want_spans = want_spans,
                             .n_threads = n_threads, .gradient = volumes_gradient };
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

/* ---- Meshes with vertices on pixel centres -------------------------------------------- */

const double TEST_LATTICE_MIN[3] = { -4, -4, -4 }, TEST_LATTICE_MAX[3] = { 4, 4, 4 };

double
test_lattice_centre (int axis, int n)
{
  return TEST_LATTICE_MIN[axis] + (n + 0.5) * TEST_LATTICE_PIXEL;
}

/* A cube of m x m quads per face, lattice step 2 pixels, from pixel centre `first` on every
 * axis. Each vertex inside a face moves along the face's normal by -1, 0 or +1 pixel (seeded),
 * and each quad is split along a random diagonal: the surface stays closed and embedded
 * (each face a height field over its square), every vertex stays on a pixel centre, and its
 * slanted triangles fold over one another in the projections near the cube's edges. */
CwbMesh *
test_mesh_bumpy_cube (int m, int first, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  CwbMesh *mesh = cwb_mesh_new ("bumpy cube");
  g_autoptr (GHashTable) index = g_hash_table_new (g_direct_hash, g_direct_equal);
  /* The surface vertex at lattice point (x, y, z), created when first used. */
#define LATTICE_KEY(l) GINT_TO_POINTER (1 + ((l)[0] * (m + 1) + (l)[1]) * (m + 1) + (l)[2])
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side <= m; side += m)
      {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        g_autofree uint32_t *ids = g_new (uint32_t, (size_t) (m + 1) * (m + 1));
        for (int i = 0; i <= m; i++)
          for (int j = 0; j <= m; j++)
            {
              int l[3];
              l[axis] = side;
              l[u] = i;
              l[v] = j;
              gpointer found = g_hash_table_lookup (index, LATTICE_KEY (l));
              if (found == NULL)
                {
                  int pixel[3];
                  for (int c = 0; c < 3; c++)
                    pixel[c] = first + 2 * l[c];
                  /* Inside a face: exactly one lattice coordinate on the cube's boundary. */
                  int on_boundary = 0;
                  for (int c = 0; c < 3; c++)
                    on_boundary += l[c] == 0 || l[c] == m;
                  if (on_boundary == 1)
                    pixel[axis] += g_rand_int_range (rand, -1, 2);
                  double p[3] = { test_lattice_centre (0, pixel[0]),
                                  test_lattice_centre (1, pixel[1]),
                                  test_lattice_centre (2, pixel[2]) };
                  g_array_append_vals (mesh->vertices, p, 3);
                  found = GUINT_TO_POINTER (cwb_mesh_n_vertices (mesh));
                  g_hash_table_insert (index, LATTICE_KEY (l), found);
                }
              ids[i * (m + 1) + j] = GPOINTER_TO_UINT (found) - 1;
            }
        for (int i = 0; i < m; i++)
          for (int j = 0; j < m; j++)
            {
              /* Counter-clockwise in (u, v) has its normal along +axis: outward on side m. */
              uint32_t q[4] = { ids[i * (m + 1) + j], ids[(i + 1) * (m + 1) + j],
                                ids[(i + 1) * (m + 1) + j + 1], ids[i * (m + 1) + j + 1] };
              if (side == 0)
                {
                  uint32_t t = q[1];
                  q[1] = q[3];
                  q[3] = t;
                }
              int d = g_rand_boolean (rand) ? 0 : 1;   /* diagonal from corner d */
              uint32_t t[6] = { q[d], q[d + 1], q[(d + 2) % 4], q[d], q[(d + 2) % 4], q[(d + 3) % 4] };
              g_array_append_vals (mesh->triangles, t, 6);
            }
      }
#undef LATTICE_KEY
  cwb_mesh_check (mesh);
  return mesh;
}

/* A regular octahedron of half-diagonal m pixels centred on pixel centre (n, n, n): its
 * edges run through pixel centres. */
CwbMesh *
test_mesh_octahedron (int n, int m)
{
  CwbMesh *mesh = cwb_mesh_new ("octahedron");
  for (int axis = 0; axis < 3; axis++)
    for (int s = -1; s <= 1; s += 2)
      {
        int pixel[3] = { n, n, n };
        pixel[axis] += s * m;
        double p[3] = { test_lattice_centre (0, pixel[0]), test_lattice_centre (1, pixel[1]),
                        test_lattice_centre (2, pixel[2]) };
        g_array_append_vals (mesh->vertices, p, 3);
      }
  /* Vertices 0/1: -x/+x, 2/3: -y/+y, 4/5: -z/+z; faces counter-clockwise from outside. */
  for (int sx = 0; sx < 2; sx++)
    for (int sy = 0; sy < 2; sy++)
      for (int sz = 0; sz < 2; sz++)
        {
          uint32_t t[3] = { (uint32_t) sx, 2 + (uint32_t) sy, 4 + (uint32_t) sz };
          /* The octant (+, +, +) is counter-clockwise as (x, y, z); each sign flip mirrors. */
          if ((sx + sy + sz) % 2 == 0)
            {
              uint32_t tmp = t[1];
              t[1] = t[2];
              t[2] = tmp;
            }
          g_array_append_vals (mesh->triangles, t, 3);
        }
  cwb_mesh_check (mesh);
  g_assert_true (mesh->closed);
  g_assert_cmpfloat (cwb_mesh_volume (mesh), >, 0);
  return mesh;
}

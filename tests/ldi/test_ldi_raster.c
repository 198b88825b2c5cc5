/* The CPU rasteriser of the LDI (plugins/contact-ldi/ldi_raster_cpu.c): its fill rule on
 * closed meshes whose vertices sit exactly on pixel centres, so that centres fall on edges
 * and vertices everywhere (a watertight surface gives every ray an even number of fragments,
 * one per crossing); edge-on triangles; the refusal of open, non-manifold and inconsistently
 * oriented surfaces; and determinism across thread counts. */
#include <string.h>

#include <cwb/vecmath.h>

#include "ldi_fixture.h"

/* Every ray meets an even number of fragments, and walking them the inside counter is 0 or 1
 * after each group of fragments at equal depth, ending at 0. (Within a group, where the ray
 * grazes folds through an edge or vertex, backs sort before fronts and the counter may dip
 * below 0: the fill rule gives the centre the crossings of a ray perturbed by an
 * infinitesimal, whose order inside the group the depths cannot tell.) Returns the number of
 * fragments. */
static size_t
check_watertight (const Ldi *ldi)
{
  size_t total = 0;
  for (int axis = 0; axis < 3; axis++)
    {
      const LdiImage *image = &ldi->images[axis];
      for (uint32_t p = 0; p < image->width * image->height; p++)
        {
          uint32_t n;
          const LdiFragment *f = ldi_image_pixel (image, p, &n);
          g_assert_cmpuint (n % 2, ==, 0);
          int count = 0;
          for (uint32_t k = 0; k < n; k++)
            {
              if (k > 0)
                g_assert_cmpfloat (f[k - 1].depth, <=, f[k].depth);
              count += f[k].facing == LDI_FRONT ? 1 : -1;
              if (k + 1 == n || f[k + 1].depth != f[k].depth)
                {
                  g_assert_cmpint (count, >=, 0);
                  g_assert_cmpint (count, <=, 1);
                }
            }
          g_assert_cmpint (count, ==, 0);
          total += n;
        }
    }
  return total;
}

static Ldi *
raster_one (CwbMesh *mesh, guint n_threads)
{
  LdiSurface s = { (const double *) (void *) mesh->vertices->data, cwb_mesh_n_vertices (mesh),
                   (const uint32_t *) (void *) mesh->triangles->data,
                   cwb_mesh_n_triangles (mesh), 0, 0, FALSE };
  g_autoptr (GError) error = NULL;
  Ldi *ldi = ldi_new (TEST_LATTICE_MIN, TEST_LATTICE_MAX, TEST_LATTICE_PIXEL, &error);
  g_assert_no_error (error);
  g_assert_true (ldi_raster_cpu (ldi, &s, 1, n_threads, &error));
  g_assert_no_error (error);
  return ldi;
}

static void
test_watertight_bumpy_cube (void)
{
  const int m = 12, first = 20;
  for (guint32 seed = 1; seed <= 8; seed++)
    {
      g_autoptr (CwbMesh) mesh = test_mesh_bumpy_cube (m, first, seed);
      g_assert_true (mesh->closed);
      g_assert_cmpuint (mesh->inconsistent_edges, ==, 0);
      g_assert_cmpfloat (cwb_mesh_volume (mesh), >, 0);
      g_autoptr (Ldi) ldi = raster_one (mesh, 0);
      g_assert_cmpuint (check_watertight (ldi), >, 0);
      /* Columns more than a pixel inside the cube's sides cross the two opposite faces once
       * each, whatever edges and vertices of their triangulations the centre falls on: exactly
       * two fragments, one front and one back. */
      for (int axis = 0; axis < 3; axis++)
        {
          const LdiImage *image = &ldi->images[axis];
          for (int i = first + 2; i <= first + 2 * m - 2; i++)
            for (int j = first + 2; j <= first + 2 * m - 2; j++)
              {
                uint32_t n;
                const LdiFragment *f = ldi_image_pixel (image, (uint32_t) j * image->width + (uint32_t) i, &n);
                g_assert_cmpuint (n, ==, 2);
                g_assert_cmpuint (f[0].facing, ==, LDI_FRONT);
                g_assert_cmpuint (f[1].facing, ==, LDI_BACK);
              }
        }
    }
}

static void
test_watertight_octahedron (void)
{
  for (int m = 1; m <= 9; m++)
    {
      g_autoptr (CwbMesh) mesh = test_mesh_octahedron (32, m);
      g_autoptr (Ldi) ldi = raster_one (mesh, 0);
      check_watertight (ldi);
      /* Convex: 0 or 2 fragments per ray. Along z the octahedron's projection is the square
       * |x| + |y| <= m pixels (centre offsets), whose centres number 2 m^2 + 2 m + 1 with the
       * boundary: the boundary centres lie on the silhouette where two faces fold, and the
       * fill rule gives them to both faces or to neither; strictly inside there are
       * 2 (m - 1)^2 + 2 (m - 1) + 1. */
      const LdiImage *image = &ldi->images[2];
      size_t covered = 0;
      for (uint32_t p = 0; p < image->width * image->height; p++)
        {
          uint32_t n;
          ldi_image_pixel (image, p, &n);
          g_assert_true (n == 0 || n == 2);
          covered += n == 2;
        }
      size_t inner = 2 * (size_t) (m - 1) * (m - 1) + 2 * (size_t) (m - 1) + 1;
      size_t all = 2 * (size_t) m * m + 2 * (size_t) m + 1;
      g_assert_cmpuint (covered, >=, inner);
      g_assert_cmpuint (covered, <=, all);
    }
}

/* An axis-aligned box: its side faces are edge-on in each image and emit nothing; every
 * fragment comes from a face orthogonal to the image's axis. */
static void
test_edge_on (void)
{
  const double size[3] = { 1, 1.5, 2 }, c[3] = { 0.0625, 0, 0.0625 };
  g_autoptr (TestBody) box = test_body_box (size, c, NULL, 0);
  g_autoptr (Ldi) ldi = raster_one (box->mesh, 1);
  check_watertight (ldi);
  for (int axis = 0; axis < 3; axis++)
    {
      const LdiImage *image = &ldi->images[axis];
      g_assert_cmpuint (image->n_fragments, >, 0);
      for (size_t k = 0; k < image->n_fragments; k++)
        {
          const LdiFragment *f = &image->fragments[k];
          const uint32_t *t = box->surface.triangles + 3 * f->triangle;
          double e1[3], e2[3], n[3];
          cwb_v3_sub (e1, box->surface.positions + 3 * t[1], box->surface.positions + 3 * t[0]);
          cwb_v3_sub (e2, box->surface.positions + 3 * t[2], box->surface.positions + 3 * t[0]);
          cwb_v3_cross (n, e1, e2);
          g_assert_cmpfloat (n[(axis + 1) % 3], ==, 0);
          g_assert_cmpfloat (n[(axis + 2) % 3], ==, 0);
          /* Front where the normal points against the axis. */
          g_assert_cmpuint (f->facing, ==, n[axis] < 0 ? LDI_FRONT : LDI_BACK);
        }
    }
}

/* ---- Refused surfaces ------------------------------------------------------------------ */

static void
expect_refused (CwbMesh *mesh, const char *what)
{
  const double c[3] = { 0, 0, 0 };
  g_autoptr (TestBody) good = test_body_sphere (1, 16, c, 0);
  g_autoptr (TestBody) bad = test_body_new (mesh, 7, 1);
  LdiSurface surfaces[2] = { good->surface, bad->surface };
  g_autoptr (GError) error = NULL;
  g_autoptr (Ldi) ldi = ldi_new (TEST_LATTICE_MIN, TEST_LATTICE_MAX, TEST_LATTICE_PIXEL, &error);
  g_assert_false (ldi_raster_cpu (ldi, surfaces, 2, 0, &error));
  g_assert_error (error, LDI_ERROR, LDI_ERROR_TOPOLOGY);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "surface 1 (geometry 7, body 1)"));
  g_assert_nonnull (strstr (error->message, what));
  for (int axis = 0; axis < 3; axis++)
    g_assert_cmpuint (ldi->images[axis].n_fragments, ==, 0);
}

static void
test_refuse_open (void)
{
  CwbMesh *mesh = test_mesh_sphere_off_centre ();
  g_array_remove_range (mesh->triangles, 3 * 20, 3);   /* a hole of one triangle */
  expect_refused (mesh, "3 boundary edges");
}

static void
test_refuse_nonmanifold (void)
{
  CwbMesh *mesh = test_mesh_sphere_off_centre ();
  uint32_t t[3];
  memcpy (t, &g_array_index (mesh->triangles, uint32_t, 3 * 20), sizeof t);
  g_array_append_vals (mesh->triangles, t, 3);   /* the same triangle twice */
  expect_refused (mesh, "3 non-manifold edges");
}

static void
test_refuse_inconsistent (void)
{
  CwbMesh *mesh = test_mesh_sphere_off_centre ();
  uint32_t *t = &g_array_index (mesh->triangles, uint32_t, 3 * 20);
  uint32_t tmp = t[1];
  t[1] = t[2];
  t[2] = tmp;
  expect_refused (mesh, "3 inconsistently oriented edges");
}

/* ---- Determinism ------------------------------------------------------------------------ */

/* The fragments (hence everything computed from them) are bitwise the same on 1, 2, 3 and 7
 * threads: raster tasks split the triangles in fixed chunks and each pixel's list is sorted
 * by a total order. The volumes and gradients are too: each image accumulates on its own. */
static void
test_determinism (void)
{
  const double ca[3] = { 0, 0, 0 }, cb[3] = { 0.7, 0.2, 0.1 }, cc[3] = { 0.3, -0.4, 0.5 };
  const double w[3] = { 0.4, 0.3, 0.2 };
  double q[4];
  cwb_quat_from_rotvec (q, w);
  g_autoptr (TestBody) a = test_body_sphere (0.8, 64, ca, 0);
  g_autoptr (TestBody) b = test_body_sphere (0.6, 64, cb, 1);
  g_autoptr (TestBody) c = test_body_torus (0.7, 0.25, 64, cc, q, 2);
  TestBody *bodies[3] = { a, b, c };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.5, 1, 1 };
  const guint threads[] = { 1, 2, 3, 7 };
  Ldi *reference_ldi = NULL;
  LdiVolumeResult *reference = NULL;
  for (size_t k = 0; k < G_N_ELEMENTS (threads); k++)
    {
      Ldi *ldi = NULL;
      LdiVolumeResult *r = test_volumes_ldi (bodies, 3, lo, hi, 0.02, threads[k], 0.25, TRUE, &ldi);
      g_assert_cmpuint (r->pairs->len, ==, 3);
      if (reference == NULL)
        {
          reference_ldi = ldi;
          reference = r;
          continue;
        }
      for (int axis = 0; axis < 3; axis++)
        {
          const LdiImage *x = &ldi->images[axis], *y = &reference_ldi->images[axis];
          g_assert_cmpuint (x->n_fragments, ==, y->n_fragments);
          g_assert_cmpmem (x->offsets, (x->width * x->height + 1) * sizeof (uint32_t), y->offsets,
                           (y->width * y->height + 1) * sizeof (uint32_t));
          g_assert_cmpmem (x->fragments, x->n_fragments * sizeof (LdiFragment), y->fragments,
                           y->n_fragments * sizeof (LdiFragment));
        }
      GArray *mine[] = { r->pairs, r->pair_gradients, r->cells, r->cell_gradients, r->spans };
      GArray *ref[] = { reference->pairs, reference->pair_gradients, reference->cells,
                        reference->cell_gradients, reference->spans };
      for (size_t m = 0; m < G_N_ELEMENTS (mine); m++)
        g_assert_cmpmem (mine[m]->data, mine[m]->len * g_array_get_element_size (mine[m]),
                         ref[m]->data, ref[m]->len * g_array_get_element_size (ref[m]));
      ldi_free (ldi);
      ldi_volume_result_free (r);
    }
  ldi_free (reference_ldi);
  ldi_volume_result_free (reference);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/raster/watertight-bumpy-cube", test_watertight_bumpy_cube);
  g_test_add_func ("/ldi/raster/watertight-octahedron", test_watertight_octahedron);
  g_test_add_func ("/ldi/raster/edge-on", test_edge_on);
  g_test_add_func ("/ldi/raster/refuse-open", test_refuse_open);
  g_test_add_func ("/ldi/raster/refuse-nonmanifold", test_refuse_nonmanifold);
  g_test_add_func ("/ldi/raster/refuse-inconsistent", test_refuse_inconsistent);
  g_test_add_func ("/ldi/raster/determinism", test_determinism);
  return g_test_run ();
}

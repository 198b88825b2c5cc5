/* The OpenGL LDI backend (plugins/contact-ldi/ldi_raster_gl.c) against the CPU reference
 * (ldi_raster_cpu.c): the same fragments (counts per image and per pixel, surface, triangle
 * and facing identical; depth and weights equal to round-off, bitwise where the shaders
 * reproduce the CPU's operations) on spheres, rotated boxes, tori, several bodies, an image of
 * many 64 x 64 tiles (llvmpipe's rasteriser tiles, a dropped one would show), the lattice
 * meshes whose vertices lie on pixel centres (the fill rule's ties), with small buffer and tile
 * limits (the split passes); the same volumes and gradients; the same refusals; and the
 * context handling across threads.
 *
 * OpenGL is required: without an OpenGL 4.3 context on EGL's surfaceless platform the tests
 * fail with the reason, unless CWB_TEST_NO_GL is set (a machine known to have no OpenGL),
 * which makes them skip. CI has Mesa's llvmpipe. */
#include <math.h>
#include <string.h>

#include <epoxy/egl.h>

#include <cwb/vecmath.h>

#include "ldi_fixture.h"

/* Depths and weights are computed by the same double operations in the same order on both
 * backends (the shaders are `precise`), so they agree bitwise on IEEE hardware; a driver that
 * rounded differently would still agree to a few ulps: the shader refines the driver's
 * division, which GLSL lets be as coarse as single precision
 * (/ldi/gl/fragments/approximate-division).
 * 1e-12 relative to the scene's unit scale allows that and catches any real difference (a
 * wrong triangle or pixel moves depths by 1e-3 and more). */
#define ROUNDOFF_TOLERANCE 1e-12

static LdiGl *gl;
static GError *gl_error;

/* The backend, or NULL after failing (no OpenGL) or skipping (CWB_TEST_NO_GL). */
static LdiGl *
require_gl (void)
{
  if (gl != NULL)
    return gl;
  if (g_getenv ("CWB_TEST_NO_GL") != NULL)
    {
      g_test_skip_printf ("CWB_TEST_NO_GL is set and OpenGL is unavailable: %s",
                          gl_error->message);
      return NULL;
    }
  g_assert_no_error (gl_error);
  return NULL;
}

/* How far the GL backend's fragments are from the CPU's. */
typedef struct Difference {
  size_t fragments;          /* compared */
  size_t bitwise_different;  /* fragments whose bytes differ */
  double depth, bary;        /* largest absolute differences */
} Difference;

/* The pixel (i, j) of fragment k of an image, from its offsets. */
static void
fragment_pixel (const LdiImage *image, size_t k, uint32_t *i, uint32_t *j)
{
  size_t pixel = 0;
  while (image->offsets[pixel + 1] <= k)
    pixel++;
  *i = (uint32_t) (pixel % image->width);
  *j = (uint32_t) (pixel / image->width);
}

/* Compares every fragment; the depths and weights after each image, against the fragment that
 * differs most, which is described in full first (a driver's rounding shows there). */
static void
compare_ldi (const Ldi *cpu, const Ldi *gpu, Difference *d)
{
  for (int axis = 0; axis < 3; axis++)
    {
      const LdiImage *x = &cpu->images[axis], *y = &gpu->images[axis];
      g_assert_cmpuint (y->width, ==, x->width);
      g_assert_cmpuint (y->height, ==, x->height);
      g_assert_cmpuint (y->n_fragments, ==, x->n_fragments);
      g_assert_true (y->sorted);
      /* Equal offsets: every pixel has the same number of fragments. */
      g_assert_cmpmem (y->offsets, ((size_t) y->width * y->height + 1) * sizeof (uint32_t),
                       x->offsets, ((size_t) x->width * x->height + 1) * sizeof (uint32_t));
      double worst = 0;   /* the largest difference, relative to the tolerance */
      size_t worst_k = 0;
      for (size_t k = 0; k < x->n_fragments; k++)
        {
          const LdiFragment *a = &x->fragments[k], *b = &y->fragments[k];
          g_assert_cmpuint (b->surface, ==, a->surface);
          g_assert_cmpuint (b->triangle, ==, a->triangle);
          g_assert_cmpuint (b->facing, ==, a->facing);
          g_assert_cmpuint (b->pad, ==, 0);
          double depth = fabs (b->depth - a->depth);
          d->depth = MAX (d->depth, depth);
          double scaled = depth / MAX (1, fabs (a->depth));
          for (int i = 0; i < 3; i++)
            {
              double bary = fabs (b->bary[i] - a->bary[i]);
              d->bary = MAX (d->bary, bary);
              scaled = MAX (scaled, bary);
            }
          if (scaled > worst)
            {
              worst = scaled;
              worst_k = k;
            }
          d->bitwise_different += memcmp (a, b, sizeof *a) != 0;
        }
      d->fragments += x->n_fragments;
      if (worst > ROUNDOFF_TOLERANCE)
        {
          const LdiFragment *a = &x->fragments[worst_k], *b = &y->fragments[worst_k];
          uint32_t i, j;
          fragment_pixel (x, worst_k, &i, &j);
          g_test_message ("image %d, pixel (%u, %u), surface %u, triangle %u: depth cpu %.17g "
                          "gl %.17g; weights cpu (%.17g, %.17g, %.17g) gl (%.17g, %.17g, %.17g)",
                          axis, i, j, a->surface, a->triangle, a->depth, b->depth, a->bary[0],
                          a->bary[1], a->bary[2], b->bary[0], b->bary[1], b->bary[2]);
        }
      g_assert_cmpfloat (worst, <=, ROUNDOFF_TOLERANCE);
    }
  g_assert_cmpuint (gpu->n_surfaces, ==, cpu->n_surfaces);
}

static void
report (const char *what, const Difference *d)
{
  g_test_message ("%s: %zu fragments, %zu not bitwise equal; largest differences: depth %.3g, "
                  "weight %.3g", what, d->fragments, d->bitwise_different, d->depth, d->bary);
}

/* Rasterises the surfaces on both backends into LDIs over [lo, hi] with pixels of h,
 * compares them and adds to *d. Returns the GL backend's LDI. */
static Ldi *
compare_surfaces (const LdiSurface *surfaces, size_t n, const double lo[3], const double hi[3],
                  double h, Difference *d)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Ldi) cpu = ldi_new (lo, hi, h, &error);
  g_assert_no_error (error);
  Ldi *gpu = ldi_new (lo, hi, h, &error);
  g_assert_no_error (error);
  g_assert_true (ldi_raster_cpu (cpu, surfaces, n, 0, &error));
  g_assert_no_error (error);
  g_assert_true (ldi_raster_gl (gl, gpu, surfaces, n, &error));
  g_assert_no_error (error);
  compare_ldi (cpu, gpu, d);
  return gpu;
}

static void
compare_bodies (TestBody *const *bodies, size_t n, const double lo[3], const double hi[3],
                double h, Difference *d)
{
  g_autofree LdiSurface *surfaces = g_new (LdiSurface, n);
  for (size_t k = 0; k < n; k++)
    surfaces[k] = bodies[k]->surface;
  ldi_free (compare_surfaces (surfaces, n, lo, hi, h, d));
}

/* ---- Same fragments ------------------------------------------------------------------- */

static void
test_spheres (void)
{
  if (require_gl () == NULL)
    return;
  const double ca[3] = { 0.013, -0.021, 0.007 }, cb[3] = { 0.61, 0.33, -0.17 };
  g_autoptr (TestBody) a = test_body_sphere (0.8, 48, ca, 0);
  g_autoptr (TestBody) b = test_body_sphere (0.45, 17, cb, 1);
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.2, 1, 1 };
  Difference d = { 0 };
  compare_bodies (&a, 1, lo, hi, 0.02, &d);
  TestBody *both[2] = { a, b };
  compare_bodies (both, 2, lo, hi, 0.0137, &d);
  report ("spheres", &d);
  g_assert_cmpuint (d.fragments, >, 10000);
}

static void
test_boxes (void)
{
  if (require_gl () == NULL)
    return;
  const double w1[3] = { 0.4, 0.3, 0.2 }, w2[3] = { -0.9, 0.1, 0.5 };
  double q1[4], q2[4];
  cwb_quat_from_rotvec (q1, w1);
  cwb_quat_from_rotvec (q2, w2);
  const double size[3] = { 1, 0.6, 0.35 }, ca[3] = { 0.1, 0, 0 }, cb[3] = { -0.2, 0.3, 0.1 };
  g_autoptr (TestBody) a = test_body_box (size, ca, q1, 0);
  g_autoptr (TestBody) b = test_body_box (size, cb, q2, 1);
  /* Axis-aligned, faces on pixel boundaries: its side faces are edge-on in every image. */
  const double aligned[3] = { 1, 1.5, 2 }, cc[3] = { 0.0625, 0, 0.0625 };
  g_autoptr (TestBody) c = test_body_box (aligned, cc, NULL, 2);
  const double lo[3] = { -1.25, -1.25, -1.25 }, hi[3] = { 1.25, 1.25, 1.25 };
  Difference d = { 0 };
  TestBody *rotated[2] = { a, b };
  compare_bodies (rotated, 2, lo, hi, 0.01, &d);
  compare_bodies (&c, 1, lo, hi, 0.03125, &d);
  report ("boxes", &d);
  g_assert_cmpuint (d.fragments, >, 10000);
}

static void
test_tori (void)
{
  if (require_gl () == NULL)
    return;
  const double w1[3] = { 1.1, -0.2, 0.3 }, w2[3] = { 0, 1.5707963, 0 };
  double q1[4], q2[4];
  cwb_quat_from_rotvec (q1, w1);
  cwb_quat_from_rotvec (q2, w2);
  const double ca[3] = { 0, 0, 0 }, cb[3] = { 0.7, 0.05, 0 };
  g_autoptr (TestBody) a = test_body_torus (0.7, 0.25, 64, ca, q1, 0);
  g_autoptr (TestBody) b = test_body_torus (0.7, 0.25, 48, cb, q2, 1);
  TestBody *both[2] = { a, b };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.7, 1, 1 };
  Difference d = { 0 };
  compare_bodies (both, 2, lo, hi, 0.01, &d);
  report ("tori", &d);
  g_assert_cmpuint (d.fragments, >, 10000);
}

/* Four bodies of three kinds at once, overlapping: fragments of different surfaces in the
 * same pixels, sorted by the shared total order. */
static void
test_several_bodies (void)
{
  if (require_gl () == NULL)
    return;
  const double w[3] = { 0.4, 0.3, 0.2 };
  double q[4];
  cwb_quat_from_rotvec (q, w);
  const double ca[3] = { 0, 0, 0 }, cb[3] = { 0.7, 0.2, 0.1 }, cc[3] = { 0.3, -0.4, 0.5 };
  const double cd[3] = { -0.3, 0.3, -0.2 }, size[3] = { 0.5, 0.7, 0.9 };
  g_autoptr (TestBody) a = test_body_sphere (0.8, 64, ca, 0);
  g_autoptr (TestBody) b = test_body_sphere (0.6, 64, cb, 1);
  g_autoptr (TestBody) c = test_body_torus (0.7, 0.25, 64, cc, q, 2);
  g_autoptr (TestBody) e = test_body_box (size, cd, q, 3);
  TestBody *bodies[4] = { a, b, c, e };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.5, 1, 1.2 };
  Difference d = { 0 };
  compare_bodies (bodies, 4, lo, hi, 0.02, &d);
  report ("several bodies", &d);
  g_assert_cmpuint (d.fragments, >, 10000);
}

/* A driver whose double division is only as good as single precision (GLSL asks no more;
 * NVIDIA's drivers gave 6e-7 of relative depth error before the shader refined it): the
 * several-bodies scene on a backend whose every division is emulated through float, against
 * the CPU, to the same round-off tolerance. Without the shader's refinement this fails with
 * depths 2e-9 apart. */
static void
test_approximate_division (void)
{
  if (require_gl () == NULL)
    return;
  g_autoptr (GError) error = NULL;
  LdiGl *driver_exact = gl;
  gl = ldi_gl_new_emulating ("#define DRIVER_DIVISION(a, b) double (float (a) / float (b))\n",
                             &error);
  g_assert_no_error (error);
  const double w[3] = { 0.4, 0.3, 0.2 };
  double q[4];
  cwb_quat_from_rotvec (q, w);
  const double ca[3] = { 0, 0, 0 }, cc[3] = { 0.3, -0.4, 0.5 };
  const double cd[3] = { -0.3, 0.3, -0.2 }, size[3] = { 0.5, 0.7, 0.9 };
  g_autoptr (TestBody) a = test_body_sphere (0.8, 64, ca, 0);
  g_autoptr (TestBody) c = test_body_torus (0.7, 0.25, 64, cc, q, 1);
  g_autoptr (TestBody) e = test_body_box (size, cd, q, 2);
  TestBody *bodies[3] = { a, c, e };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.5, 1, 1.2 };
  Difference d = { 0 };
  compare_bodies (bodies, 3, lo, hi, 0.02, &d);
  report ("division through float", &d);
  g_assert_cmpuint (d.fragments, >, 10000);
  ldi_gl_free (gl);
  gl = driver_exact;

  /* Without the refinement, such a driver is refused when the backend opens, with what it
   * measured, rather than giving other contacts than the CPU backend. */
  LdiGl *inexact = ldi_gl_new_emulating ("#define DRIVER_DIVISION(a, b) "
                                         "double (float (a) / float (b))\n"
                                         "#define DIVISION_REFINEMENTS 0\n", &error);
  g_assert_null (inexact);
  g_assert_error (error, LDI_GL_ERROR, LDI_GL_ERROR_INEXACT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "does not compute in exact double precision"));
  g_assert_nonnull (strstr (error->message, "use the cpu backend"));
}

/* Images of 300 x 200, 200 x 100 and 100 x 300 pixels, covered across most of their 64 x 64
 * tiles: a tile whose fragments the driver dropped would change the counts. */
static void
test_large_image (void)
{
  if (require_gl () == NULL)
    return;
  const double w[3] = { 0.05, 0.1, 0.02 };
  double q[4];
  cwb_quat_from_rotvec (q, w);
  const double size[3] = { 2.9, 1.9, 0.6 }, cb[3] = { 1.5, 1, 0.5 };
  const double ct[3] = { 1.5, 1, 0.5 };
  g_autoptr (TestBody) box = test_body_box (size, cb, q, 0);
  g_autoptr (TestBody) torus = test_body_torus (0.9, 0.3, 96, ct, NULL, 1);
  TestBody *bodies[2] = { box, torus };
  const double lo[3] = { 0, 0, 0 }, hi[3] = { 3, 2, 1 };
  Difference d = { 0 };
  g_autofree LdiSurface *surfaces = g_new (LdiSurface, 2);
  for (size_t k = 0; k < 2; k++)
    surfaces[k] = bodies[k]->surface;
  g_autoptr (Ldi) gpu = compare_surfaces (surfaces, 2, lo, hi, 0.01, &d);
  report ("large image", &d);
  const LdiImage *image = &gpu->images[2];
  g_assert_cmpuint (image->width, ==, 300);
  g_assert_cmpuint (image->height, ==, 200);
  /* Tiles of 64 x 64 with fragments: the box covers nearly all of the 5 x 4. */
  guint tiles = 0;
  for (uint32_t ty = 0; ty < image->height; ty += 64)
    for (uint32_t tx = 0; tx < image->width; tx += 64)
      {
        size_t n = 0;
        for (uint32_t j = ty; j < MIN (ty + 64, image->height); j++)
          for (uint32_t i = tx; i < MIN (tx + 64, image->width); i++)
            n += image->offsets[j * image->width + i + 1] - image->offsets[j * image->width + i];
        tiles += n > 0;
      }
  g_test_message ("%u of 20 tiles of the z image hold fragments", tiles);
  g_assert_cmpuint (tiles, >=, 18);
}

/* The lattice meshes of test_ldi_raster.c: vertices on pixel centres, centres on edges and
 * vertices everywhere, folds over edges: the tie rule decides most fragments. */
static void
test_watertight (void)
{
  if (require_gl () == NULL)
    return;
  Difference d = { 0 };
  for (guint32 seed = 1; seed <= 8; seed++)
    {
      g_autoptr (TestBody) cube = test_body_new (test_mesh_bumpy_cube (12, 20, seed), 0, 0);
      compare_bodies (&cube, 1, TEST_LATTICE_MIN, TEST_LATTICE_MAX, TEST_LATTICE_PIXEL, &d);
    }
  for (int m = 1; m <= 9; m++)
    {
      g_autoptr (TestBody) octahedron = test_body_new (test_mesh_octahedron (32, m), 0, 0);
      compare_bodies (&octahedron, 1, TEST_LATTICE_MIN, TEST_LATTICE_MAX, TEST_LATTICE_PIXEL,
                      &d);
    }
  report ("lattice meshes", &d);
  /* The centres sit exactly on the lattice: no rounding anywhere, bitwise equal. */
  g_assert_cmpuint (d.bitwise_different, ==, 0);
}

/* Small buffers and tiles: passes split into batches of triangles (3000 records), images
 * drawn in many tiles (37 and 50 pixels), a buffer grown again after the limit is lifted, and
 * the extreme of one record per pass (tiles of one pixel, one triangle per draw); the
 * fragments stay the same. */
static void
test_limits (void)
{
  if (require_gl () == NULL)
    return;
  const double ca[3] = { 0, 0, 0 }, cb[3] = { 0.7, 0.2, 0.1 };
  g_autoptr (TestBody) a = test_body_sphere (0.8, 32, ca, 0);
  g_autoptr (TestBody) b = test_body_sphere (0.6, 32, cb, 1);
  TestBody *bodies[2] = { a, b };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.5, 1, 1 };
  const struct { size_t fragments; uint32_t tile; } limits[] = {
    { 3000, 37 }, { 3000, 0 }, { 0, 50 }, { 1, 0 },
  };
  Difference d = { 0 };
  for (size_t k = 0; k < G_N_ELEMENTS (limits); k++)
    {
      ldi_gl_set_limits (gl, limits[k].fragments, limits[k].tile);
      compare_bodies (bodies, 2, lo, hi, k == 3 ? 0.25 : 0.02, &d);
    }
  ldi_gl_set_limits (gl, 0, 0);
  report ("small limits", &d);
}

/* An empty surface list fills empty images; a triangle with a non-finite vertex is skipped
 * by both backends (the surface is marked checked: its topology is intact). */
static void
test_empty_and_non_finite (void)
{
  if (require_gl () == NULL)
    return;
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 };
  Difference d = { 0 };
  ldi_free (compare_surfaces (NULL, 0, lo, hi, 0.05, &d));
  g_assert_cmpuint (d.fragments, ==, 0);
  const double c[3] = { 0.01, 0.02, 0.03 };
  g_autoptr (TestBody) a = test_body_sphere (0.8, 24, c, 0);
  test_body_vertex (a, 7)[1] = NAN;
  a->surface.checked = TRUE;
  compare_bodies (&a, 1, lo, hi, 0.02, &d);
  report ("non-finite vertex", &d);
  g_assert_cmpuint (d.fragments, >, 0);
}

/* ---- Same volumes and gradients --------------------------------------------------------- */

static void
compare_volumes (const LdiVolume *a, const LdiVolume *b, guint n, double *largest)
{
  for (guint k = 0; k < n; k++)
    {
      g_assert_cmpuint (b[k].body_a, ==, a[k].body_a);
      g_assert_cmpuint (b[k].body_b, ==, a[k].body_b);
      g_assert_cmpmem (b[k].cell, sizeof b[k].cell, a[k].cell, sizeof a[k].cell);
      g_assert_cmpuint (b[k].first_gradient, ==, a[k].first_gradient);
      g_assert_cmpuint (b[k].n_gradients, ==, a[k].n_gradients);
      double e = fabs (b[k].volume - a[k].volume);
      for (int c = 0; c < 3; c++)
        e = MAX (e, fabs (b[k].axis_volume[c] - a[k].axis_volume[c]));
      g_assert_cmpfloat (e, <=, ROUNDOFF_TOLERANCE * MAX (fabs (a[k].volume), 1e-3));
      *largest = MAX (*largest, e);
    }
}

static void
compare_gradients (const CwbPointWeight *a, const CwbPointWeight *b, guint n, double *largest)
{
  for (guint k = 0; k < n; k++)
    {
      g_assert_cmpuint (b[k].geometry, ==, a[k].geometry);
      g_assert_cmpuint (b[k].point, ==, a[k].point);
      for (int c = 0; c < 3; c++)
        {
          double e = fabs (b[k].w[c] - a[k].w[c]);
          /* Gradient entries are a h^2 b_k sums: 1e-12 of the pixel area's scale. */
          g_assert_cmpfloat (e, <=, ROUNDOFF_TOLERANCE);
          *largest = MAX (*largest, e);
        }
    }
}

static void
test_volumes_and_gradients (void)
{
  if (require_gl () == NULL)
    return;
  const double ca[3] = { 0, 0, 0 }, cb[3] = { 0.7, 0.2, 0.1 }, cc[3] = { 0.3, -0.4, 0.5 };
  const double w[3] = { 0.4, 0.3, 0.2 };
  double q[4];
  cwb_quat_from_rotvec (q, w);
  g_autoptr (TestBody) a = test_body_sphere (0.8, 64, ca, 0);
  g_autoptr (TestBody) b = test_body_sphere (0.6, 64, cb, 1);
  g_autoptr (TestBody) c = test_body_torus (0.7, 0.25, 64, cc, q, 2);
  TestBody *bodies[3] = { a, b, c };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.5, 1, 1 };
  test_set_backend (NULL);
  g_autoptr (LdiVolumeResult) cpu = test_volumes (bodies, 3, lo, hi, 0.02, 0, 0.25, TRUE);
  test_set_backend (gl);
  g_autoptr (LdiVolumeResult) gpu = test_volumes (bodies, 3, lo, hi, 0.02, 0, 0.25, TRUE);
  test_set_backend (NULL);
  g_assert_cmpuint (cpu->pairs->len, ==, 3);
  double volume = 0, gradient = 0;
  GArray *x[] = { cpu->pairs, cpu->pair_gradients, cpu->cells, cpu->cell_gradients, cpu->spans };
  GArray *y[] = { gpu->pairs, gpu->pair_gradients, gpu->cells, gpu->cell_gradients, gpu->spans };
  for (size_t k = 0; k < G_N_ELEMENTS (x); k++)
    g_assert_cmpuint (y[k]->len, ==, x[k]->len);
  compare_volumes ((const LdiVolume *) (void *) x[0]->data,
                   (const LdiVolume *) (void *) y[0]->data, x[0]->len, &volume);
  compare_volumes ((const LdiVolume *) (void *) x[2]->data,
                   (const LdiVolume *) (void *) y[2]->data, x[2]->len, &volume);
  compare_gradients ((const CwbPointWeight *) (void *) x[1]->data,
                     (const CwbPointWeight *) (void *) y[1]->data, x[1]->len, &gradient);
  compare_gradients ((const CwbPointWeight *) (void *) x[3]->data,
                     (const CwbPointWeight *) (void *) y[3]->data, x[3]->len, &gradient);
  gboolean bitwise = TRUE;
  for (size_t k = 0; k < G_N_ELEMENTS (x); k++)
    bitwise = bitwise && memcmp (x[k]->data, y[k]->data,
                                 x[k]->len * g_array_get_element_size (x[k])) == 0;
  g_test_message ("%u pairs, %u cells, %u + %u gradient entries, %u spans; largest "
                  "differences: volume %.3g, gradient %.3g; bitwise equal: %s",
                  x[0]->len, x[2]->len, x[1]->len, x[3]->len, x[4]->len, volume, gradient,
                  bitwise ? "yes" : "no");
}

/* ---- Refusals and the checked flag ------------------------------------------------------ */

/* An open surface is refused like the CPU backend refuses it (the same error), and the LDI,
 * filled before, is left empty. */
static void
test_refuse_open (void)
{
  if (require_gl () == NULL)
    return;
  const double c[3] = { 0, 0, 0 };
  g_autoptr (TestBody) good = test_body_sphere (1, 16, c, 0);
  CwbMesh *mesh = test_mesh_sphere_off_centre ();
  g_array_remove_range (mesh->triangles, 3 * 20, 3);   /* a hole of one triangle */
  g_autoptr (TestBody) bad = test_body_new (mesh, 7, 1);
  LdiSurface surfaces[2] = { good->surface, bad->surface };
  g_autoptr (GError) cpu_error = NULL, error = NULL;
  g_autoptr (Ldi) cpu = ldi_new (TEST_LATTICE_MIN, TEST_LATTICE_MAX, TEST_LATTICE_PIXEL, &error);
  g_autoptr (Ldi) gpu = ldi_new (TEST_LATTICE_MIN, TEST_LATTICE_MAX, TEST_LATTICE_PIXEL, &error);
  g_assert_no_error (error);
  g_assert_true (ldi_raster_gl (gl, gpu, surfaces, 1, &error));
  g_assert_cmpuint (gpu->images[0].n_fragments, >, 0);
  g_assert_false (ldi_raster_cpu (cpu, surfaces, 2, 0, &cpu_error));
  g_assert_false (ldi_raster_gl (gl, gpu, surfaces, 2, &error));
  g_assert_error (error, LDI_ERROR, LDI_ERROR_TOPOLOGY);
  g_assert_error (cpu_error, LDI_ERROR, LDI_ERROR_TOPOLOGY);
  g_test_message ("%s", error->message);
  g_assert_cmpstr (error->message, ==, cpu_error->message);
  g_assert_nonnull (strstr (error->message, "3 boundary edges"));
  for (int axis = 0; axis < 3; axis++)
    g_assert_cmpuint (gpu->images[axis].n_fragments, ==, 0);
  g_assert_cmpuint (gpu->n_surfaces, ==, 0);

  /* Marked checked, the same open surface is rasterised without the check, by both backends
   * alike (the caller vouches for it; here it only leaves some rays odd). */
  surfaces[1].checked = TRUE;
  Difference d = { 0 };
  ldi_free (compare_surfaces (surfaces, 2, TEST_LATTICE_MIN, TEST_LATTICE_MAX,
                              TEST_LATTICE_PIXEL, &d));
  report ("open surface marked checked", &d);
  g_assert_cmpuint (d.fragments, >, 0);
}

/* ---- Threads and contexts --------------------------------------------------------------- */

typedef struct ThreadRun {
  TestBody *const *bodies;
  size_t n;
  Ldi *ldi;
  gboolean released;         /* no OpenGL context current on the thread afterwards */
} ThreadRun;

static gpointer
raster_in_thread (gpointer data)
{
  ThreadRun *run = data;
  LdiSurface surfaces[4];
  for (size_t k = 0; k < run->n; k++)
    surfaces[k] = run->bodies[k]->surface;
  g_autoptr (GError) error = NULL;
  g_assert_true (ldi_raster_gl (gl, run->ldi, surfaces, run->n, &error));
  g_assert_no_error (error);
  eglBindAPI (EGL_OPENGL_API);
  run->released = eglGetCurrentContext () == EGL_NO_CONTEXT;
  return NULL;
}

/* Calls from three threads in turn (the context moves between them) give the CPU's
 * fragments and leave no context current; a context the caller had current is current again
 * after the call. */
static void
test_threads (void)
{
  if (require_gl () == NULL)
    return;
  const double ca[3] = { 0, 0, 0 }, cb[3] = { 0.7, 0.2, 0.1 };
  g_autoptr (TestBody) a = test_body_sphere (0.8, 32, ca, 0);
  g_autoptr (TestBody) b = test_body_sphere (0.6, 32, cb, 1);
  TestBody *bodies[2] = { a, b };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.5, 1, 1 };
  g_autoptr (GError) error = NULL;
  g_autoptr (Ldi) cpu = ldi_new (lo, hi, 0.02, &error);
  LdiSurface surfaces[2] = { a->surface, b->surface };
  g_assert_true (ldi_raster_cpu (cpu, surfaces, 2, 0, &error));
  Difference d = { 0 };
  for (int k = 0; k < 3; k++)
    {
      ThreadRun run = { bodies, 2, ldi_new (lo, hi, 0.02, &error), FALSE };
      GThread *thread = g_thread_new ("ldi-gl-test", raster_in_thread, &run);
      g_thread_join (thread);
      g_assert_true (run.released);
      compare_ldi (cpu, run.ldi, &d);
      ldi_free (run.ldi);
    }

  /* A context of the caller's own on the same display, current before the call. */
  EGLDisplay display = eglGetPlatformDisplayEXT (EGL_PLATFORM_SURFACELESS_MESA,
                                                 EGL_DEFAULT_DISPLAY, NULL);
  g_assert_true (eglInitialize (display, NULL, NULL));
  g_assert_true (eglBindAPI (EGL_OPENGL_API));
  const EGLint attributes[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
  EGLContext mine = eglCreateContext (display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
  g_assert_true (mine != EGL_NO_CONTEXT);
  g_assert_true (eglMakeCurrent (display, EGL_NO_SURFACE, EGL_NO_SURFACE, mine));
  g_autoptr (Ldi) gpu = ldi_new (lo, hi, 0.02, &error);
  g_assert_true (ldi_raster_gl (gl, gpu, surfaces, 2, &error));
  g_assert_no_error (error);
  g_assert_true (eglGetCurrentContext () == mine);
  compare_ldi (cpu, gpu, &d);
  eglMakeCurrent (display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext (display, mine);
  report ("threads", &d);
}

/* ---- Timing ----------------------------------------------------------------------------- */

/* One timed call (after a warm-up call: llvmpipe compiles its shader variants at the first
 * draw) of each backend on the scene of /ldi/gl/fragments/several-bodies at pixels of h,
 * printed as "ldi-raster h=... fragments=... backend=... ms=..." lines for
 * bench/ldi_raster.sh, which runs this REPEATS times and takes medians. Run with -m perf;
 * CWB_BENCH_PIXELS sets the pixel sizes (default "0.01 0.005"). */
static void
test_perf_raster (void)
{
  if (!g_test_perf ())
    {
      g_test_skip ("timing: run with -m perf (bench/ldi_raster.sh)");
      return;
    }
  if (require_gl () == NULL)
    return;
  const double w[3] = { 0.4, 0.3, 0.2 };
  double q[4];
  cwb_quat_from_rotvec (q, w);
  const double ca[3] = { 0, 0, 0 }, cb[3] = { 0.7, 0.2, 0.1 }, cc[3] = { 0.3, -0.4, 0.5 };
  const double cd[3] = { -0.3, 0.3, -0.2 }, size[3] = { 0.5, 0.7, 0.9 };
  g_autoptr (TestBody) a = test_body_sphere (0.8, 64, ca, 0);
  g_autoptr (TestBody) b = test_body_sphere (0.6, 64, cb, 1);
  g_autoptr (TestBody) c = test_body_torus (0.7, 0.25, 64, cc, q, 2);
  g_autoptr (TestBody) e = test_body_box (size, cd, q, 3);
  LdiSurface surfaces[4] = { a->surface, b->surface, c->surface, e->surface };
  const double lo[3] = { -1, -1, -1 }, hi[3] = { 1.5, 1, 1.2 };
  const char *pixels = g_getenv ("CWB_BENCH_PIXELS");
  g_auto (GStrv) sizes = g_strsplit (pixels != NULL ? pixels : "0.01 0.005", " ", -1);
  const char *backends[] = { "cpu-1", "cpu-2", "gl" };
  for (char **h = sizes; *h != NULL; h++)
    {
      if (**h == '\0')
        continue;
      g_autoptr (GError) error = NULL;
      g_autoptr (Ldi) ldi = ldi_new (lo, hi, g_ascii_strtod (*h, NULL), &error);
      g_assert_no_error (error);
      for (size_t k = 0; k < G_N_ELEMENTS (backends); k++)
        {
          double ms = 0;
          for (int run = 0; run < 2; run++)
            {
              gint64 start = g_get_monotonic_time ();
              gboolean ok = k < 2 ? ldi_raster_cpu (ldi, surfaces, 4, (guint) k + 1, &error)
                                  : ldi_raster_gl (gl, ldi, surfaces, 4, &error);
              ms = (double) (g_get_monotonic_time () - start) / 1000;
              g_assert_no_error (error);
              g_assert_true (ok);
            }
          size_t fragments = 0;
          for (int axis = 0; axis < 3; axis++)
            fragments += ldi->images[axis].n_fragments;
          g_test_message ("ldi-raster h=%s fragments=%zu triangles=%zu backend=%s ms=%.3f", *h,
                          fragments, a->surface.n_triangles + b->surface.n_triangles
                                     + c->surface.n_triangles + e->surface.n_triangles,
                          backends[k], ms);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* A driver's report in full: every test runs and says how far it is (a failed comparison
   * still fails the run). */
  if (g_getenv ("CWB_TEST_KEEP_GOING") != NULL)
    g_test_set_nonfatal_assertions ();
  gl = ldi_gl_new (&gl_error);
  if (gl == NULL)
    g_printerr ("# the OpenGL backend is unavailable: %s\n", gl_error->message);
  g_test_add_func ("/ldi/gl/fragments/spheres", test_spheres);
  g_test_add_func ("/ldi/gl/fragments/boxes", test_boxes);
  g_test_add_func ("/ldi/gl/fragments/tori", test_tori);
  g_test_add_func ("/ldi/gl/fragments/several-bodies", test_several_bodies);
  g_test_add_func ("/ldi/gl/fragments/approximate-division", test_approximate_division);
  g_test_add_func ("/ldi/gl/fragments/large-image", test_large_image);
  g_test_add_func ("/ldi/gl/fragments/watertight", test_watertight);
  g_test_add_func ("/ldi/gl/fragments/limits", test_limits);
  g_test_add_func ("/ldi/gl/fragments/empty-and-non-finite", test_empty_and_non_finite);
  g_test_add_func ("/ldi/gl/volume/volumes-and-gradients", test_volumes_and_gradients);
  g_test_add_func ("/ldi/gl/refuse-open", test_refuse_open);
  g_test_add_func ("/ldi/gl/threads", test_threads);
  g_test_add_func ("/ldi/gl/perf/raster", test_perf_raster);
  int status = g_test_run ();
  ldi_gl_free (gl);
  g_clear_error (&gl_error);
  return status;
}

/* The faces of fixed surfaces that lie against another fixed surface
 * (plugins/common/surface-detection/covered_faces.c) and the Eulerian density that leaves
 * them out (density_grid.c): a wall whose end abuts the next wall has its end face covered,
 * nothing else; a moving body's faces and faces farther apart than the reach are not; the
 * winding number that decides it is 1 inside and 0 outside; and the covered wall's density
 * stays 1 up to its covered face, where the seam used to dip it. */
#include <math.h>

#include "covered_faces.h"
#include "density_grid.h"
#include "test_mesh.h"

/* Wall A, x in [0, 1], y in [0, 0.1], z in [0, 1]; wall B, x in [1 + gap, 1.1 + gap], y in
 * [-0.25, 0.35] (wider than A, so that none of its face's triangles has its centroid against
 * A's end), z in [0, 1]. */
static Mesh
wall_a (void)
{
  return box_mesh ((const double[3]) { 0.5, 0.05, 0.5 }, (const double[3]) { 0.5, 0.05, 0.5 },
                   0);
}

static Mesh
wall_b (double gap)
{
  return box_mesh ((const double[3]) { 1.05 + gap, 0.05, 0.5 },
                   (const double[3]) { 0.05, 0.3, 0.5 }, 0);
}

static CwbGeometry
surface_of (const Mesh *m, uint32_t body)
{
  return (CwbGeometry) { .struct_size = sizeof (CwbGeometry), .kind = CWB_GEOMETRY_SURFACE,
                         .body = body, .n_points = m->x->len / 3,
                         .positions = (double *) m->x->data,
                         .triangles = (const uint32_t *) m->tri->data,
                         .n_triangles = m->tri->len / 3, .closed = TRUE };
}

/* The covered triangles of A and B at `reach` with B `gap` away, and whether each is fixed. */
static void
covered_count (double gap, double reach, gboolean a_fixed, gboolean b_fixed, size_t *on_a,
               size_t *on_b)
{
  Mesh a = wall_a (), b = wall_b (gap);
  CwbGeometry g[2] = { surface_of (&a, 0), surface_of (&b, 1) };
  gboolean fixed[2] = { a_fixed, b_fixed };
  double friction[2] = { 0, 0 };
  CwbContactQuery query = { .struct_size = sizeof query, .geometries = g, .n_geometries = 2,
                            .friction = friction, .n_bodies = 2, .body_fixed = fixed };
  g_autoptr (CoveredFaces) covered = covered_faces_new ();
  covered_faces_update (covered, &query, reach);
  *on_a = *on_b = 0;
  for (uint32_t t = 0; t < 12; t++)
    {
      *on_a += covered_faces_test (covered, 0, t);
      *on_b += covered_faces_test (covered, 1, t);
      /* box_mesh's triangles 10 and 11 are its +x face. */
      if (covered_faces_test (covered, 0, t))
        g_assert_true (t == 10 || t == 11);
    }
  g_assert_cmpuint (covered_faces_count (covered), ==, *on_a + *on_b);
  mesh_clear (&a);
  mesh_clear (&b);
}

static void
test_covered (void)
{
  size_t on_a, on_b;
  covered_count (0, 0.01, TRUE, TRUE, &on_a, &on_b);
  g_assert_cmpuint (on_a, ==, 2);       /* A's end face, two triangles */
  g_assert_cmpuint (on_b, ==, 0);       /* B's face is wider than A's end */
  covered_count (0.005, 0.01, TRUE, TRUE, &on_a, &on_b);
  g_assert_cmpuint (on_a, ==, 2);       /* a gap under the reach is a seam too */
  covered_count (0.02, 0.01, TRUE, TRUE, &on_a, &on_b);
  g_assert_cmpuint (on_a, ==, 0);       /* free space between them */
  covered_count (0, 0.01, FALSE, TRUE, &on_a, &on_b);
  g_assert_cmpuint (on_a + on_b, ==, 0);  /* a moving body's faces are its own */
  covered_count (0, 0.01, TRUE, FALSE, &on_a, &on_b);
  g_assert_cmpuint (on_a + on_b, ==, 0);
}

/* The winding number: 1 inside, 0 outside, for a box and a sphere near its surface (the
 * sum of solid angles is exact for a closed surface: round-off alone, 1e-12). */
static void
test_winding (void)
{
  Mesh a = wall_a ();
  CwbGeometry g = surface_of (&a, 0);
  g_assert_cmpfloat_with_epsilon (surface_winding_number (&g, (const double[3]) { 0.5, 0.05,
                                                                                  0.5 }),
                                  1, 1e-12);
  g_assert_cmpfloat_with_epsilon (surface_winding_number (&g, (const double[3]) { 0.99, 0.099,
                                                                                  0.001 }),
                                  1, 1e-12);
  g_assert_cmpfloat_with_epsilon (surface_winding_number (&g, (const double[3]) { 1.001, 0.05,
                                                                                  0.5 }),
                                  0, 1e-12);
  Mesh s = sphere_mesh ((const double[3]) { 0.1, 0.2, 0.3 }, 0.5, 12);
  CwbGeometry gs = surface_of (&s, 0);
  g_assert_cmpfloat_with_epsilon (surface_winding_number (&gs, (const double[3]) { 0.1, 0.2,
                                                                                   0.75 }),
                                  1, 1e-12);
  g_assert_cmpfloat_with_epsilon (surface_winding_number (&gs, (const double[3]) { 0.1, 0.2,
                                                                                   0.81 }),
                                  0, 1e-12);
  mesh_clear (&a);
  mesh_clear (&s);
}

/* A's density near its end face, against B, sampled with and without its covered triangles:
 * inside A within a step of the end face and more than 1.5 steps (the surface's reach) from
 * its other faces, the seam dips the density by the profile (to 1/2 at the face) and tilts
 * its gradient along x, out through the end into B; with the covered face left out the
 * density is 1 and its gradient 0 there, as inside the solid the two walls make up. Beyond
 * the end (inside B, as far from A's other faces) A's density is 0. */
static void
test_seam_density (void)
{
  Mesh a = wall_a (), b = wall_b (0);
  CwbGeometry g[2] = { surface_of (&a, 0), surface_of (&b, 1) };
  gboolean fixed[2] = { TRUE, TRUE };
  double friction[2] = { 0, 0 }, h = 0.012;
  CwbContactQuery query = { .struct_size = sizeof query, .geometries = g, .n_geometries = 2,
                            .friction = friction, .n_bodies = 2, .body_fixed = fixed };
  g_autoptr (CoveredFaces) covered = covered_faces_new ();
  covered_faces_update (covered, &query, h / 2);
  GridBox box;
  const double lo[3] = { 0.9, 0, 0.4 }, hi[3] = { 1.05, 0.1, 0.6 };
  g_assert_true (grid_box_cover (&box, h, lo, hi, 2, 1u << 20));
  g_autoptr (BodyDensity) seam = body_density_new ();
  g_autoptr (BodyDensity) solid = body_density_new ();
  const uint32_t *tri = (const uint32_t *) a.tri->data;
  double *x = (double *) a.x->data;
  body_density_begin_surface (seam, &box, x, tri, 12);
  body_density_finish_surface (seam, x, tri, 12, NULL, NULL);
  body_density_begin_surface (solid, &box, x, tri, 12);
  body_density_finish_surface (solid, x, tri, 12, covered_faces_flags (covered, 0), NULL);
  int checked = 0, dipped = 0;
  for (int k = 0; k < box.n[2]; k++)
    for (int j = 0; j < box.n[1]; j++)
      for (int i = 0; i < box.n[0]; i++)
        {
          double r[3], gs[3], gc[3], hs[9], hc[9];
          grid_box_point (&box, i, j, k, r);
          size_t p = grid_box_index (&box, i, j, k);
          double rho_seam = g_array_index (seam->rho, double, p);
          double rho_solid = g_array_index (solid->rho, double, p);
          gboolean near_end = r[0] > 1 - h, clear = r[1] > 1.5 * h && r[1] < 0.1 - 1.5 * h
                                                    && r[2] > 0.4 && r[2] < 0.6;
          if (!near_end || !clear)
            continue;
          if (r[0] > 1)
            {
              g_assert_cmpfloat (rho_solid, ==, 0);
              continue;
            }
          body_density_derivatives (seam, i, j, k, gs, hs);
          body_density_derivatives (solid, i, j, k, gc, hc);
          checked++;
          dipped += rho_seam < 0.99 && gs[0] < 0;
          g_assert_cmpfloat (rho_solid, ==, 1);
          g_assert_cmpfloat (cwb_v3_norm (gc), ==, 0);
        }
  g_test_message ("%d points inside A within a step of its covered end, %d dipped without "
                  "the cover", checked, dipped);
  g_assert_cmpint (checked, >, 0);
  g_assert_cmpint (dipped, ==, checked);
  mesh_clear (&a);
  mesh_clear (&b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eulerian/covered-faces/covered", test_covered);
  g_test_add_func ("/eulerian/covered-faces/winding", test_winding);
  g_test_add_func ("/eulerian/covered-faces/seam-density", test_seam_density);
  return g_test_run ();
}

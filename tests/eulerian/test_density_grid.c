/* The Eulerian layer's densities (plugins/contact-eulerian/density_grid.c) against closed
 * forms: a sampled body integrates to its volume, its gradient's magnitude to its surface's
 * area (the coarea formula: the integral of |grad rho| over space is the mean area of the
 * level sets of rho, the surface's own for a transition a step either side), the gradient
 * and Hessian are those of the sampled values under a move of the body (finite
 * differences), and the density moves continuously with the body. */
#include <math.h>

#include "density_grid.h"
#include "test_mesh.h"

static void
sample (BodyDensity *d, const Mesh *m, double step)
{
  const double *x = (const double *) m->x->data;
  double lo[3], hi[3];
  for (int c = 0; c < 3; c++)
    lo[c] = hi[c] = x[c];
  for (guint k = 1; k < m->x->len / 3; k++)
    for (int c = 0; c < 3; c++)
      {
        lo[c] = MIN (lo[c], x[3 * k + c]);
        hi[c] = MAX (hi[c], x[3 * k + c]);
      }
  GridBox box;
  g_assert_true (grid_box_cover (&box, step, lo, hi, 2, 1u << 24));
  body_density_sample_surface (d, &box, x, (const uint32_t *) m->tri->data, m->tri->len / 3);
}

/* |sum rho h^3 - V| / V at three steps. The transition is odd about the surface, so a plane
 * loses on the outside what it gains inside: what is left comes from edges and corners
 * (outside a convex edge the distance's level sets are rounded, inside they are mitred, so
 * the outer half of the transition holds more: O(h^2) per unit length of edge) and from the
 * surface's curvature (the band is thicker outside a convex surface than inside: O(h^2 / R)
 * per unit area), so the error falls as h^2. Measured: 0.17 h^2 per metre of edge (the
 * turned box), 0.21 to 0.31 (the tetrahedron's sharper edges), 0.18 to 0.20 h^2 per unit of
 * area / R (the sphere). Bound taken: 0.4 h^2 (edges + area / R), and a fall by at least 3
 * from each halving of h (4 for an exact h^2; the lattice's aliasing makes it irregular:
 * 3.7 to 5.8 measured). */
static void
check_volume (const Mesh *m, double size, double edge_length, double curvature_area,
              const char *name)
{
  double volume, area;
  mesh_measures (m, &volume, &area);
  g_autoptr (BodyDensity) d = body_density_new ();
  double last = INFINITY;
  for (int level = 0; level < 3; level++)
    {
      double h = size / (8 << level);
      sample (d, m, h);
      double error = fabs (body_density_volume (d) - volume) / volume;
      double bound = 0.4 * h * h * (edge_length + curvature_area) / volume;
      g_test_message ("%s, h = %g: volume %.6g against %.6g, relative error %.2e (bound %.2e)",
                      name, h, body_density_volume (d), volume, error, bound);
      g_assert_cmpfloat (error, <=, bound);
      if (level > 0 && last > 1e-9)
        g_assert_cmpfloat (error, <=, last / 3);
      last = error;
    }
}

static void
test_volumes (void)
{
  double c[3] = { 0.0123, -0.0371, 0.0211 }, e[3] = { 0.5, 0.3, 0.2 };
  Mesh box = box_mesh (c, e, 0.3);
  check_volume (&box, 1.0, 4 * (1.0 + 0.6 + 0.4), 0, "turned box");
  mesh_clear (&box);
  Mesh tet = tetrahedron_mesh ();
  check_volume (&tet, 1.0, 3 + 3 * sqrt (2), 0, "tetrahedron");
  mesh_clear (&tet);
  double radius = 0.5;
  Mesh ball = sphere_mesh (c, radius, 24);
  check_volume (&ball, 1.0, 0, 4 * G_PI * radius, "sphere");
  mesh_clear (&ball);
}

/* Coarea: the integral of |grad rho| over space is the integral over t in (0, 1) of the area
 * of the level set rho = t; for a transition across the surface those are the surface's
 * offsets by up to a step, of the surface's area to O(h / R) with the inner and outer
 * offsets' changes cancelling to first order. The derivatives are the transition's own, so
 * the gradient is along the normal (the direction from the closest point) wherever the
 * closest point is on a face. Measured at h = R / 16 and R / 32 on a 48-ring sphere: the
 * magnitude's integral within 0.05 and 0.08 % of the area, its inward radial part 99.98 and
 * 99.97 % of it. Bounds: 0.5 % (the lattice's sampling of a transition two steps thick) and
 * 99.9 % (the facets' edges, where the direction turns from one face's normal to the
 * next). */
static void
check_gradient_area (double h_of_radius)
{
  double c[3] = { 0.011, 0.023, -0.017 }, radius = 0.5, volume, area;
  Mesh ball = sphere_mesh (c, radius, 48);
  mesh_measures (&ball, &volume, &area);
  g_autoptr (BodyDensity) d = body_density_new ();
  double h = radius * h_of_radius;
  sample (d, &ball, h);
  double sum = 0, aligned = 0;
  for (int k = 0; k < d->box.n[2]; k++)
    for (int j = 0; j < d->box.n[1]; j++)
      for (int i = 0; i < d->box.n[0]; i++)
        {
          double g[3], hess[9], r[3], radial[3];
          body_density_derivatives (d, i, j, k, g, hess);
          double norm = cwb_v3_norm (g);
          if (norm == 0)
            continue;
          sum += norm * h * h * h;
          grid_box_point (&d->box, i, j, k, r);
          cwb_v3_sub (radial, c, r);
          aligned += cwb_v3_dot (g, radial) / cwb_v3_norm (radial) * h * h * h;
        }
  g_test_message ("h = R x %g: integral of |grad rho| %.5g, of its inward radial part %.5g, "
                  "area %.5g", h_of_radius, sum, aligned, area);
  g_assert_cmpfloat (fabs (sum - area) / area, <, 0.005);
  /* The gradient points into the body, along the normal. */
  g_assert_cmpfloat (aligned / sum, >, 0.999);
  mesh_clear (&ball);
}

static void
test_gradient_area (void)
{
  check_gradient_area (1.0 / 16);
  check_gradient_area (1.0 / 32);
}

/* The density is a continuous function of the body's position: a move by delta changes no
 * point's density by more than 3/4 delta / h (the transition's steepest slope, at the
 * surface), where scan conversion alone would flip whole points between 0 and 1. */
static void
test_continuity (void)
{
  double c[3] = { 0.0123, -0.0371, 0.0211 }, e[3] = { 0.4, 0.3, 0.25 };
  double h = 0.05, delta = 1e-4;
  g_autoptr (BodyDensity) before = body_density_new ();
  g_autoptr (BodyDensity) after = body_density_new ();
  Mesh m = box_mesh (c, e, 0.7);
  GridBox box;
  double lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 };
  g_assert_true (grid_box_cover (&box, h, lo, hi, 0, 1u << 24));
  const uint32_t *tri = (const uint32_t *) m.tri->data;
  body_density_sample_surface (before, &box, (const double *) m.x->data, tri, m.tri->len / 3);
  double *x = (double *) m.x->data;
  for (guint k = 0; k < m.x->len / 3; k++)
    {
      x[3 * k] += delta * 0.6;
      x[3 * k + 1] += delta * 0.8;
    }
  body_density_sample_surface (after, &box, x, tri, m.tri->len / 3);
  double largest = 0;
  for (size_t p = 0; p < grid_box_points (&box); p++)
    largest = MAX (largest, fabs (g_array_index (after->rho, double, p)
                                  - g_array_index (before->rho, double, p)));
  g_test_message ("largest change %.3g for a move of %.3g (h %.3g)", largest, delta, h);
  /* 1e-12: the round-off of distances of order 1 m. */
  g_assert_cmpfloat (largest, <=, 0.75 * delta / h + 1e-12);
  g_assert_cmpfloat (largest, >, 0);
  mesh_clear (&m);
}

/* The derivatives against central differences of the sampled values under a move of the
 * body by +-e along each axis: a move by delta changes rho at a fixed point by
 * -grad rho . delta and grad rho by -Hess delta. e = 1e-6 h: truncation (e / h)^2 relative,
 * round-off 1e-16 / (e / h) ~ 1e-10 relative, both far below the 1e-5 of the largest value
 * allowed. Points whose closest feature changes within the move (the medial surface of a
 * corner, inside) have no derivative there; none is met at this e on these meshes
 * (checked: every point is compared). */
static void
check_derivatives (Mesh *m, double h)
{
  double e = 1e-6 * h;
  g_autoptr (BodyDensity) d = body_density_new ();
  g_autoptr (BodyDensity) plus = body_density_new ();
  g_autoptr (BodyDensity) minus = body_density_new ();
  sample (d, m, h);
  GridBox box = d->box;
  const uint32_t *tri = (const uint32_t *) m->tri->data;
  double *x = (double *) m->x->data;
  size_t n_points = grid_box_points (&box), compared = 0;
  double largest_g = 0, largest_h = 0, worst_g = 0, worst_h = 0;
  for (int c = 0; c < 3; c++)
    {
      for (guint k = 0; k < m->x->len / 3; k++)
        x[3 * k + c] += e;
      body_density_sample_surface (plus, &box, x, tri, m->tri->len / 3);
      for (guint k = 0; k < m->x->len / 3; k++)
        x[3 * k + c] -= 2 * e;
      body_density_sample_surface (minus, &box, x, tri, m->tri->len / 3);
      for (guint k = 0; k < m->x->len / 3; k++)
        x[3 * k + c] += e;
      for (int kk = 0; kk < box.n[2]; kk++)
        for (int j = 0; j < box.n[1]; j++)
          for (int i = 0; i < box.n[0]; i++)
            {
              size_t p = grid_box_index (&box, i, j, kk);
              double g[3], hess[9], gp[3], hp[9], gm[3], hm[9];
              body_density_derivatives (d, i, j, kk, g, hess);
              body_density_derivatives (plus, i, j, kk, gp, hp);
              body_density_derivatives (minus, i, j, kk, gm, hm);
              double fd = (g_array_index (plus->rho, double, p)
                           - g_array_index (minus->rho, double, p)) / (2 * e);
              largest_g = MAX (largest_g, fabs (g[c]));
              worst_g = MAX (worst_g, fabs (fd + g[c]));
              for (int r = 0; r < 3; r++)
                {
                  double fdh = (gp[r] - gm[r]) / (2 * e);
                  largest_h = MAX (largest_h, fabs (hess[3 * r + c]));
                  worst_h = MAX (worst_h, fabs (fdh + hess[3 * r + c]));
                }
              compared++;
            }
    }
  g_test_message ("h %g: %zu comparisons over %zu points; largest |grad| %.3g, worst "
                  "difference %.3g; largest |Hess| %.3g, worst difference %.3g",
                  h, compared, n_points, largest_g, worst_g, largest_h, worst_h);
  g_assert_cmpfloat (worst_g, <=, 1e-5 * largest_g);
  g_assert_cmpfloat (worst_h, <=, 1e-5 * largest_h);
}

static void
test_derivatives (void)
{
  double c[3] = { 0.0123, -0.0371, 0.0211 }, e[3] = { 0.5, 0.3, 0.2 };
  Mesh box = box_mesh (c, e, 0.3);
  check_derivatives (&box, 0.1);
  mesh_clear (&box);
  Mesh ball = sphere_mesh (c, 0.5, 16);
  check_derivatives (&ball, 0.1);
  mesh_clear (&ball);
}

/* A pair's second body sampled only where the first is present (grid_mask_where_present,
 * as the model samples every pair): at each point where the first body's density is above
 * 0 the second's density, distance, closest triangle and its coordinates are those of the
 * second sampled everywhere, bit for bit, and the mask leaves out points where the second
 * is in its transition (else it would save nothing). A ball half inside a turned box. */
static void
test_second_where_present (void)
{
  double c_box[3] = { 0.0123, -0.0371, 0.0211 }, e[3] = { 0.5, 0.3, 0.2 };
  double c_ball[3] = { 0.31, 0.12, 0.25 };
  Mesh block = box_mesh (c_box, e, 0.3);
  Mesh ball = sphere_mesh (c_ball, 0.25, 16);
  const double *xb = (const double *) block.x->data, *xs = (const double *) ball.x->data;
  const uint32_t *tb = (const uint32_t *) block.tri->data, *ts = (const uint32_t *) ball.tri->data;
  size_t nb = block.tri->len / 3, ns = ball.tri->len / 3;
  double lo[3] = { -0.2, -0.3, -0.2 }, hi[3] = { 0.8, 0.6, 0.7 };
  GridBox box;
  g_assert_true (grid_box_cover (&box, 0.04, lo, hi, 2, 1u << 24));
  g_autoptr (BodyDensity) first = body_density_new ();
  g_autoptr (BodyDensity) whole = body_density_new ();
  g_autoptr (BodyDensity) masked = body_density_new ();
  body_density_sample_surface (first, &box, xs, ts, ns);
  body_density_sample_surface (whole, &box, xb, tb, nb);
  g_autoptr (GArray) storage = g_array_new (FALSE, FALSE, sizeof (guint8));
  GridMask present;
  grid_mask_where_present (&present, storage, NULL, first);
  body_density_begin_surface (masked, &box, xb, tb, nb);
  body_density_finish_surface (masked, xb, tb, nb, NULL, &present);
  size_t compared = 0, left_out = 0;
  for (size_t p = 0; p < grid_box_points (&box); p++)
    {
      double rho_first = g_array_index (first->rho, double, p);
      double rho_whole = g_array_index (whole->rho, double, p);
      g_assert_cmpint (g_array_index (storage, guint8, p), ==, rho_first > 0);
      if (!(rho_first > 0))
        {
          left_out += rho_whole > 0 && rho_whole < 1;
          continue;
        }
      compared++;
      g_assert_cmpfloat (g_array_index (masked->rho, double, p), ==, rho_whole);
      g_assert_cmpfloat (g_array_index (masked->distance, double, p), ==,
                         g_array_index (whole->distance, double, p));
      g_assert_cmpuint (g_array_index (masked->triangle, uint32_t, p), ==,
                        g_array_index (whole->triangle, uint32_t, p));
      g_assert_cmpmem (&g_array_index (masked->bary, double, 3 * p), 3 * sizeof (double),
                       &g_array_index (whole->bary, double, 3 * p), 3 * sizeof (double));
    }
  g_test_message ("%zu points compared, %zu of the box's transition left out", compared,
                  left_out);
  g_assert_cmpuint (compared, >, 100);
  g_assert_cmpuint (left_out, >, 100);
  mesh_clear (&block);
  mesh_clear (&ball);
}

/* A point off a face is a face's, wherever on the face its closest point lies: also on the
 * diagonal that splits a box's face into two triangles (an edge of the mesh, not of the
 * body). Read as an edge's, its density curved about the diagonal (a Hessian term
 * slope / (distance h) across it) and the constraint response took it for an edge under the
 * other body's face, whose normal it then preferred. A box on the lattice (its faces'
 * diagonals through grid points, as in a scene of round numbers), every point outside it
 * within the distances kept (a step and a half): those whose projection is inside a face
 * are on a face, with a Hessian along the face's normal alone (round-off: 1e-9 of the
 * normal term); those beyond an edge are not. */
static void
test_faces_across_diagonals (void)
{
  double c[3] = { 0, 0, 0 }, e[3] = { 0.3, 0.3, 0.3 }, step = 0.05;
  Mesh cube = box_mesh (c, e, 0);
  g_autoptr (BodyDensity) d = body_density_new ();
  sample (d, &cube, step);
  const GridBox *box = &d->box;
  int on_diagonal = 0, faces = 0, edges = 0;
  for (int k = 0; k < box->n[2]; k++)
    for (int j = 0; j < box->n[1]; j++)
      for (int i = 0; i < box->n[0]; i++)
        {
          size_t p = grid_box_index (box, i, j, k);
          double r[3];
          grid_box_point (box, i, j, k, r);
          int outside = 0, axis = 0;
          for (int a = 0; a < 3; a++)
            if (fabs (r[a]) > e[a] + 1e-9)
              {
                outside++;
                axis = a;
              }
          double distance = g_array_index (d->distance, double, p);
          if (outside == 0 || !(distance < 1.5 * step))
            continue;
          gboolean face = g_array_index (d->on_face, guint8, p);
          if (outside > 1)
            {
              g_assert_false (face);
              edges++;
              continue;
            }
          /* Off the box's own edge, the face's boundary, either face is the closest. */
          double u = r[(axis + 1) % 3], v = r[(axis + 2) % 3];
          if (fabs (u) > e[0] - 1e-9 || fabs (v) > e[0] - 1e-9)
            continue;
          g_assert_true (face);
          faces++;
          on_diagonal += fabs (fabs (u) - fabs (v)) < 1e-12;
          double g[3], hess[9];
          body_density_derivatives (d, i, j, k, g, hess);
          double along = fabs (hess[4 * axis]);
          for (int m = 0; m < 9; m++)
            if (m != 4 * axis)
              g_assert_cmpfloat (fabs (hess[m]), <=, 1e-9 * MAX (along, 1));
        }
  g_test_message ("%d points off faces (%d off a diagonal), %d beyond edges", faces,
                  on_diagonal, edges);
  g_assert_cmpint (on_diagonal, >, 20);
  g_assert_cmpint (edges, >, 20);
  mesh_clear (&cube);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eulerian/density/volumes", test_volumes);
  g_test_add_func ("/eulerian/density/gradient-area", test_gradient_area);
  g_test_add_func ("/eulerian/density/continuity", test_continuity);
  g_test_add_func ("/eulerian/density/derivatives", test_derivatives);
  g_test_add_func ("/eulerian/density/second-where-present", test_second_where_present);
  g_test_add_func ("/eulerian/density/faces-across-diagonals", test_faces_across_diagonals);
  return g_test_run ();
}

/* The penalty model's forces (plugins/contact-penalty/contact_force.c): eq. 3-5 against
 * hand-computed values, and the post-correction (eq. 6) against the appendix: the corrected
 * forces always sum to zero, and on a flat, uniformly discretised contact they are the
 * uncorrected ones. */
#include <math.h>

#include "contact_force.h"

/* Sums of a few dozen forces of order 1: round-off, 1e-12. */
#define FORCE_TOLERANCE 1e-12

static PenaltyPair
pair (uint32_t point, uint32_t v0, uint32_t v1, uint32_t v2, double h0, double h1, double h2)
{
  PenaltyPair p = {
    .surface_geometry = 1,
    .vertices = { v0, v1, v2 }, .bary = { h0, h1, h2 },
    .depth = { 0, 0, 0.01 }, .m_point = 2, .m_vertex = { 1, 1, 1 },
  };
  penalty_pair_set_vertex (&p, 0, point);
  return p;
}

/* eq. 3-4 with c = 1 everywhere: F = (m_i / dt^2) eps d, eps = S / (m_i + S), S = sum h m. */
static void
test_force_closed_form (void)
{
  g_autoptr (PenaltyNormalisation) norm = penalty_normalisation_new ();
  PenaltyPair p = pair (0, 0, 1, 2, 0.2, 0.3, 0.5);
  p.m_vertex[2] = 4;
  penalty_normalisation_build (norm, &p, 0);   /* no triangle contains any point: c = 1 */
  const double dt = 0.01;
  double f[3];
  penalty_contact_force (&p, norm, dt, f);
  double s = 0.2 * 1 + 0.3 * 1 + 0.5 * 4;
  double eps = s / (2 + s);
  g_assert_cmpfloat (fabs (f[2] - 2 / (dt * dt) * eps * 0.01), <, FORCE_TOLERANCE * 1e3);
  g_assert_cmpfloat (f[0], ==, 0);

  /* An immovable triangle: eps = 1, the point closes the whole depth alone. */
  p.m_vertex[0] = p.m_vertex[1] = p.m_vertex[2] = INFINITY;
  penalty_contact_force (&p, norm, dt, f);
  g_assert_cmpfloat (fabs (f[2] - 2 / (dt * dt) * 0.01), <, FORCE_TOLERANCE * 1e3);
  /* An immovable point against a movable triangle: the limit S / c_i. */
  p.m_point = INFINITY;
  p.m_vertex[0] = p.m_vertex[1] = p.m_vertex[2] = 3;
  penalty_contact_force (&p, norm, dt, f);
  g_assert_cmpfloat (fabs (f[2] - 3 / (dt * dt) * 0.01), <, FORCE_TOLERANCE * 1e3);
  /* Neither side can move: no force. */
  p.m_vertex[0] = p.m_vertex[1] = p.m_vertex[2] = INFINITY;
  penalty_contact_force (&p, norm, dt, f);
  g_assert_cmpfloat (cwb_v3_norm (f), ==, 0);
}

/* eq. 5: c_i = 1 / (1 + sum_j h_ji) over the triangles that contain point i. */
static void
test_normalisation (void)
{
  PenaltyPair pairs[2] = { pair (0, 7, 8, 9, 0.5, 0.25, 0.25), pair (1, 7, 9, 10, 0.5, 0.1, 0.4) };
  g_autoptr (PenaltyNormalisation) norm = penalty_normalisation_new ();
  penalty_normalisation_build (norm, pairs, 2);
  g_assert_cmpfloat (fabs (penalty_normalisation_get (norm, 1, 7) - 1 / 2.0), <, 1e-15);
  g_assert_cmpfloat (fabs (penalty_normalisation_get (norm, 1, 9) - 1 / 1.35), <, 1e-15);
  g_assert_cmpfloat (fabs (penalty_normalisation_get (norm, 1, 10) - 1 / 1.4), <, 1e-15);
  /* Point 0 of geometry 0 is no triangle vertex; vertex 7 of geometry 0 does not exist. */
  g_assert_cmpfloat (penalty_normalisation_get (norm, 0, 0), ==, 1);
  g_assert_cmpfloat (penalty_normalisation_get (norm, 0, 7), ==, 1);
}

/* A weighted point's c is its vertices' c by its weights (contact_force.h): here the point
 * 0.25 x_7 + 0.75 x_9 of geometry 1, with c_7 = 1 / 2 and c_9 = 1 / 1.35 from two triangles
 * of geometry 1 that a third pair of geometry 0 ... touches; and the force eq. 3-4 with it.
 * A lone vertex with weight 1 is the paper's point. */
static void
test_weighted_point (void)
{
  PenaltyPair pairs[3] = { pair (0, 7, 8, 9, 0.5, 0.25, 0.25),
                           pair (1, 7, 9, 10, 0.5, 0.1, 0.4),
                           pair (0, 0, 1, 2, 0.2, 0.3, 0.5) };
  pairs[0].point_geometry = pairs[1].point_geometry = 0;
  pairs[0].surface_geometry = pairs[1].surface_geometry = 1;
  /* The third pair's point lies on geometry 1's edge (7, 9), against geometry 2. */
  pairs[2].point_geometry = 1;
  pairs[2].n_points = 2;
  pairs[2].points[0] = 7;
  pairs[2].points[1] = 9;
  pairs[2].weights[0] = 0.25;
  pairs[2].weights[1] = 0.75;
  pairs[2].surface_geometry = 2;
  g_autoptr (PenaltyNormalisation) norm = penalty_normalisation_new ();
  penalty_normalisation_build (norm, pairs, 2);
  const double dt = 0.01;
  double f[3];
  penalty_contact_force (&pairs[2], norm, dt, f);
  double c_i = 0.25 / 2.0 + 0.75 / 1.35;
  double s = 0.2 * 1 + 0.3 * 1 + 0.5 * 1;   /* geometry 2's vertices are in no triangle */
  double expected = 0.01 / (dt * dt * (1 / 2.0 + c_i / s));
  g_assert_cmpfloat (fabs (f[2] - expected), <, FORCE_TOLERANCE * 1e3);

  /* The post-correction puts w_k F / 2 on its vertices. */
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  penalty_post_correct (&pairs[2], f, 1, out);
  g_assert_cmpuint (out->len, ==, 5);
  const CwbPointWeight *w = (const CwbPointWeight *) out->data;
  g_assert_cmpuint (w[0].point, ==, 7);
  g_assert_cmpuint (w[1].point, ==, 9);
  g_assert_cmpfloat (fabs (w[0].w[2] - 0.125 * f[2]), <, FORCE_TOLERANCE * 1e3);
  g_assert_cmpfloat (fabs (w[1].w[2] - 0.375 * f[2]), <, FORCE_TOLERANCE * 1e3);
}

/* Corrected forces sum to zero (momentum) for arbitrary configurations: random pairs with
 * random barycentric weights and forces, points shared between pairs, half of them with a
 * weighted point of 2 or 3 vertices on the A side. */
static void
test_post_correction_momentum (void)
{
  GRand *rand = g_rand_new_with_seed (2007);
  for (int trial = 0; trial < 50; trial++)
    {
      size_t n = 1 + g_rand_int_range (rand, 0, 40);
      g_autofree PenaltyPair *pairs = g_new0 (PenaltyPair, n);
      g_autofree double *forces = g_new0 (double, 3 * n);
      for (size_t k = 0; k < n; k++)
        {
          double a = g_rand_double (rand), b = g_rand_double (rand) * (1 - a);
          pairs[k] = pair (g_rand_int_range (rand, 0, 10), g_rand_int_range (rand, 0, 10),
                           g_rand_int_range (rand, 0, 10), g_rand_int_range (rand, 0, 10),
                           a, b, 1 - a - b);
          pairs[k].point_geometry = g_rand_int_range (rand, 0, 3);
          if (k % 2 == 1)
            {
              /* A weighted point of an edge or a face (a manifold contact's). */
              double w = g_rand_double (rand), u = g_rand_double (rand) * (1 - w);
              pairs[k].n_points = 2 + k % 4 / 2;
              pairs[k].points[1] = g_rand_int_range (rand, 0, 10);
              pairs[k].points[2] = g_rand_int_range (rand, 0, 10);
              pairs[k].weights[0] = w;
              pairs[k].weights[1] = pairs[k].n_points == 2 ? 1 - w : u;
              pairs[k].weights[2] = pairs[k].n_points == 2 ? 0 : 1 - w - u;
            }
          pairs[k].surface_geometry = g_rand_int_range (rand, 0, 3);
          for (int i = 0; i < 3; i++)
            forces[3 * k + i] = g_rand_double_range (rand, -5, 5);
        }
      g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
      penalty_post_correct (pairs, forces, n, out);
      penalty_merge_point_forces (out);
      double sum[3] = { 0, 0, 0 };
      for (guint k = 0; k < out->len; k++)
        cwb_v3_add (sum, sum, g_array_index (out, CwbPointWeight, k).w);
      g_assert_cmpfloat (cwb_v3_norm (sum), <, FORCE_TOLERANCE * 10 * n);
    }
  g_rand_free (rand);
}

/* The appendix's flat, uniform contact: two triangulated grids, A offset by (1/3, 1/3) over
 * B, so each point of A lies in a lower triangle of B and each point of B in an upper
 * triangle of A, both with barycentric weights (1/3, 1/3, 1/3); every interior vertex then
 * has sum_i h_ij = 1. With F = +f on A's points and -f on B's, the post-correction leaves
 * every interior point's force unchanged (eq. 22: a = 1/2). */
#define GRID 8

static uint32_t
grid_index (int x, int y)
{
  return (uint32_t) (y * GRID + x);
}

static void
test_post_correction_flat_contact (void)
{
  const double f = 3.5;
  g_autoptr (GArray) pairs = g_array_new (FALSE, TRUE, sizeof (PenaltyPair));
  g_autoptr (GArray) forces = g_array_new (FALSE, FALSE, sizeof (double));
  for (int y = 0; y + 1 < GRID; y++)
    for (int x = 0; x + 1 < GRID; x++)
      {
        /* A's point (x, y) + 1/3 lies in B's lower triangle (x, y), (x+1, y), (x, y+1). */
        PenaltyPair a = pair (grid_index (x, y), grid_index (x, y), grid_index (x + 1, y),
                              grid_index (x, y + 1), 1.0 / 3, 1.0 / 3, 1.0 / 3);
        a.point_geometry = 0;
        a.surface_geometry = 1;
        double up[3] = { 0, 0, f };
        g_array_append_val (pairs, a);
        g_array_append_vals (forces, up, 3);
        /* B's point (x+1, y+1) is at (2/3, 2/3) of A's square (x, y): A's upper triangle
         * (x+1, y), (x+1, y+1), (x, y+1). */
        PenaltyPair b = pair (grid_index (x + 1, y + 1), grid_index (x + 1, y),
                              grid_index (x + 1, y + 1), grid_index (x, y + 1), 1.0 / 3,
                              1.0 / 3, 1.0 / 3);
        b.point_geometry = 1;
        b.surface_geometry = 0;
        double down[3] = { 0, 0, -f };
        g_array_append_val (pairs, b);
        g_array_append_vals (forces, down, 3);
      }
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  penalty_post_correct ((const PenaltyPair *) pairs->data, (const double *) forces->data,
                        pairs->len, out);
  penalty_merge_point_forces (out);
  int checked = 0;
  for (guint k = 0; k < out->len; k++)
    {
      const CwbPointWeight *w = &g_array_index (out, CwbPointWeight, k);
      int x = (int) (w->point % GRID), y = (int) (w->point / GRID);
      /* Interior: every neighbour pair exists (A: x, y < GRID - 1 and > 0; B likewise). */
      if (x < 2 || y < 2 || x > GRID - 3 || y > GRID - 3)
        continue;
      double expected = w->geometry == 0 ? f : -f;
      g_assert_cmpfloat (fabs (w->w[2] - expected), <, FORCE_TOLERANCE);
      g_assert_cmpfloat (fabs (w->w[0]) + fabs (w->w[1]), ==, 0);
      checked++;
    }
  g_assert_cmpint (checked, ==, 2 * (GRID - 4) * (GRID - 4));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/force/closed-form", test_force_closed_form);
  g_test_add_func ("/penalty/force/normalisation", test_normalisation);
  g_test_add_func ("/penalty/force/weighted-point", test_weighted_point);
  g_test_add_func ("/penalty/post-correction/momentum", test_post_correction_momentum);
  g_test_add_func ("/penalty/post-correction/flat-contact", test_post_correction_flat_contact);
  return g_test_run ();
}

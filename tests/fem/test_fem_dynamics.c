/* The FEM body's dynamics and compliance operators: corotation (a freely spinning body does
 * not deform and keeps its linear momentum), the exact compliance against the finite
 * response of the linearised step, the warped compliance equal to the exact one at rest,
 * and the rest compliance's disk cache (reuse, cancellation, a damaged file). */
#include <math.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "fem_fixture.h"

static const double no_gravity[3] = { 0, 0, 0 };

/* A 0.2 m cube of soft rubber-like material spinning about a skew axis at |omega| = 3.7 rad/s
 * while it drifts, no gravity, for 200 steps of 5 ms (3.7 rad turned).
 *  - Linear momentum: the elastic forces of every element sum to zero and K's rows sum to
 *    zero (translations are in its null space), so sum M dv = 0 up to round-off (with CG,
 *    up to the sum of its final residual, 1e-10 of a right side that sums to zero): the
 *    elastic forces (tens of newtons) cancel to ~1e-14 relative and the solve adds its own,
 *    some 1e-13 of |P| per step, so 1e-10 bounds 200 steps with room and still fails on any
 *    real leak (a force not paired, a wrong sign: orders of magnitude more).
 *  - Deformation: what no rigid motion explains stays below 1 mm (0.5 % of the size). A
 *    linear (not corotational) model would be off by the rotation itself, 0.2 m x 3.7 rad;
 *    what remains here is the physical centrifugal stretch (rho omega^2 r^2 / E ~ 1e-4 m)
 *    and backward Euler's chord error ((omega h)^2 r per step, absorbed elastically). */
static void
test_free_rotation (gconstpointer solver)
{
  g_autofree char *yaml = g_strdup_printf (
    "{ name: cube, model: fem, shape: { type: box, size: [0.2, 0.2, 0.2] }, "
    "velocity: { linear: [0.3, 0, 0.1], angular: [1, 2, 3] }, material: { density: 500 }, "
    "model_params: { young_modulus: 1e5, resolution: 4, linear_solver: %s } }",
    (const char *) solver);
  g_autoptr (FemFixture) f = fem_fixture_new (yaml, 0, NULL);
  CwbBodySummary start, end;
  f->vt->summary (f->self, f->q, f->v, &start);
  double p0 = cwb_v3_norm (start.linear_momentum);
  g_assert_cmpfloat (p0, >, 0);
  double worst = 0;
  for (int k = 0; k < 200; k++)
    {
      fem_fixture_step (f, 0.005, no_gravity, NULL);
      worst = fmax (worst, fem_fixture_deformation (f));
    }
  f->vt->summary (f->self, f->q, f->v, &end);
  double dp[3];
  cwb_v3_sub (dp, end.linear_momentum, start.linear_momentum);
  g_test_message ("momentum drift %g of %g; largest deformation %g m", cwb_v3_norm (dp), p0,
                  worst);
  g_assert_cmpfloat (cwb_v3_norm (dp), <, 1e-10 * p0);
  g_assert_cmpfloat (worst, <, 1e-3);
  /* It did turn: the best-fit orientation moved by more than a radian. */
  g_assert_cmpfloat (fabs (end.orientation[0]), <, cos (0.5));
}

/* A clamped beam, bent by a few steps under gravity, at a state with velocities. `extra`:
 * more model parameters ("" or ", name: value"). */
static FemFixture *
bent_beam_with (double dt, const char *cache_dir, const char *extra)
{
  g_autofree char *yaml = g_strdup_printf (
    "{ name: beam, model: fem, shape: { type: box, size: [0.6, 0.1, 0.1] }, "
    "material: { density: 1000 }, model_params: { young_modulus: 2e5, resolution: 12, "
    "rayleigh_mass: 0.5, rayleigh_stiffness: 0.01, fixed_box: true, "
    "fixed_box_min: [-0.3, -1, -1], fixed_box_max: [-0.3, 1, 1]%s } }", extra);
  FemFixture *f = fem_fixture_new (yaml, dt, cache_dir);
  const double g[3] = { 0, 0, -9.81 };
  for (int k = 0; k < 20; k++)
    fem_fixture_step (f, 0.01, g, NULL);
  return f;
}

static FemFixture *
bent_beam (double dt, const char *cache_dir)
{
  return bent_beam_with (dt, cache_dir, "");
}

/* A force on a few nodes of the free end, pseudo-random. */
static double *
end_force (const FemFixture *f, double scale)
{
  double *r = g_new0 (double, f->n);
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  for (size_t i = 0; i < f->info.n_nodes; i++)
    if (f->info.rest_nodes[3 * i] > 0.25)
      for (int a = 0; a < 3; a++)
        r[3 * i + a] = scale * g_rand_double_range (rand, -1, 1);
  return r;
}

static double
max_abs (const double *x, size_t n)
{
  double m = 0;
  for (size_t k = 0; k < n; k++)
    m = fmax (m, fabs (x[k]));
  return m;
}

/* Exact compliance = the response of the linearised step: the free motion from (q, v) with
 * an extra force r moves the nodes by h^2 (M + h D + h^2 K)^-1 r more than without it, which
 * is C r (Saupin 2008 eq. 14, 21). The step is linear in r, so the difference is exact up to
 * round-off: the positions are O(1) m and the difference O(1e-3) m, so 1e-9 relative to the
 * difference is a few hundred ulps of the positions. */
static void
test_exact_compliance (void)
{
  const double h = 0.01;
  g_autoptr (FemFixture) f = bent_beam (0, NULL);
  g_autofree double *r = end_force (f, 0.2);
  g_autofree double *cr = g_new (double, f->n);
  f->vt->compliance_apply (f->self, f->q, h, CWB_COMPLIANCE_EXACT, r, cr);

  g_autofree double *q_a = g_new (double, f->n), *v_a = g_new (double, f->n);
  g_autofree double *q_b = g_new (double, f->n), *v_b = g_new (double, f->n);
  const double g[3] = { 0, 0, -9.81 };
  CwbFreeMotion with = { .struct_size = sizeof with, .h = h, .q = f->q, .v = f->v,
                         .f_ext = r, .q_free = q_a, .v_free = v_a };
  CwbFreeMotion without = with;
  without.f_ext = NULL;
  without.q_free = q_b;
  without.v_free = v_b;
  memcpy (with.gravity, g, sizeof g);
  memcpy (without.gravity, g, sizeof g);
  f->vt->free_motion (f->self, &with);
  f->vt->free_motion (f->self, &without);
  double scale = max_abs (cr, f->n), err = 0;
  g_assert_cmpfloat (scale, >, 1e-5);
  for (size_t k = 0; k < f->n; k++)
    err = fmax (err, fabs ((q_a[k] - q_b[k]) - cr[k]));
  g_test_message ("|C r| = %g m, finite response error %g m", scale, err);
  g_assert_cmpfloat (err, <, 1e-9 * scale);
  /* Fixed nodes: no displacement. */
  for (size_t i = 0; i < f->info.n_nodes; i++)
    if (f->info.rest_nodes[3 * i] < -0.3 + 1e-9)
      g_assert_cmpfloat (cwb_v3_norm (&cr[3 * i]), ==, 0);
}

/* `exact_compliance: dense` (LAPACK's inverse of the whole step matrix) gives the sparse
 * Cholesky's operator: two factorisations of one matrix, equal to round-off. The step
 * matrix M + h D + h^2 K of this beam has a condition number near 1e3, so both are good to
 * some 1e-13 relative; 1e-9 leaves room and still fails on any assembly or layout slip (a
 * transposed block, a missed triangle: errors of order 1). */
static void
test_exact_dense_equals_sparse (void)
{
  const double h = 0.01;
  g_autoptr (FemFixture) sparse = bent_beam (0, NULL);
  g_autoptr (FemFixture) dense = bent_beam_with (0, NULL, ", exact_compliance: dense");
  g_assert_cmpmem (sparse->q, sparse->n * sizeof (double), dense->q, dense->n * sizeof (double));
  g_autofree double *r = end_force (sparse, 0.2);
  g_autofree double *c_sparse = g_new (double, sparse->n);
  g_autofree double *c_dense = g_new (double, dense->n);
  sparse->vt->compliance_apply (sparse->self, sparse->q, h, CWB_COMPLIANCE_EXACT, r, c_sparse);
  dense->vt->compliance_apply (dense->self, dense->q, h, CWB_COMPLIANCE_EXACT, r, c_dense);
  double scale = max_abs (c_sparse, sparse->n), err = 0;
  for (size_t k = 0; k < sparse->n; k++)
    err = fmax (err, fabs (c_dense[k] - c_sparse[k]));
  g_test_message ("|C r| = %g m, dense against sparse %g m", scale, err);
  g_assert_cmpfloat (scale, >, 1e-5);
  g_assert_cmpfloat (err, <, 1e-9 * scale);
  for (size_t i = 0; i < dense->info.n_nodes; i++)
    if (dense->info.rest_nodes[3 * i] < -0.3 + 1e-9)
      g_assert_cmpfloat (cwb_v3_norm (&c_dense[3 * i]), ==, 0);
}

/* At rest (in any pose) every element's rotation is the pose's, so K = R K0 R^T globally and
 * the exact compliance is R C0 R^T: warped and exact agree to the solves' round-off (1e-10
 * relative). Also the warped operator is symmetric: e_j . C e_i = e_i . C e_j. Then, bent,
 * they differ (that is the approximation), but by less than the displacement itself. */
static void
test_warped_equals_exact_at_rest (void)
{
  const double h = 0.01;
  g_autoptr (FemFixture) f = fem_fixture_new (
    "{ name: link, model: fem, shape: { type: torus, major_radius: 0.1, minor_radius: 0.03, "
    "resolution: 16 }, pose: { position: [0.2, -0.1, 0.5], orientation: [0.8, 0.2, -0.4, 0.4] },"
    " material: { density: 1100 }, model_params: { young_modulus: 1e5, resolution: 8 } }",
    h, NULL);
  g_autofree double *r = g_new0 (double, f->n);
  g_autofree double *exact = g_new (double, f->n), *warped = g_new (double, f->n);
  r[0] = 0.3;
  r[4] = -0.2;
  r[3 * (f->info.n_nodes / 2) + 2] = 0.5;
  f->vt->compliance_apply (f->self, f->q, h, CWB_COMPLIANCE_EXACT, r, exact);
  f->vt->compliance_apply (f->self, f->q, h, CWB_COMPLIANCE_WARPED, r, warped);
  double scale = max_abs (exact, f->n), err = 0;
  for (size_t k = 0; k < f->n; k++)
    err = fmax (err, fabs (exact[k] - warped[k]));
  g_test_message ("%zu nodes: |C r| = %g m, warped - exact = %g m", f->info.n_nodes, scale, err);
  g_assert_cmpfloat (scale, >, 0);
  g_assert_cmpfloat (err, <, 1e-10 * scale);

  g_autofree double *ei = g_new0 (double, f->n), *ej = g_new0 (double, f->n);
  g_autofree double *ci = g_new (double, f->n), *cj = g_new (double, f->n);
  size_t i = 5, j = f->n - 7;
  ei[i] = 1;
  ej[j] = 1;
  f->vt->compliance_apply (f->self, f->q, h, CWB_COMPLIANCE_WARPED, ei, ci);
  f->vt->compliance_apply (f->self, f->q, h, CWB_COMPLIANCE_WARPED, ej, cj);
  g_assert_cmpfloat (fabs (ci[j] - cj[i]), <=, 1e-12 * fmax (fabs (ci[i]), fabs (cj[j])));
}

static double
bent_difference (FemFixture *f, double h)
{
  g_autofree double *r = end_force (f, 0.2);
  g_autofree double *exact = g_new (double, f->n), *warped = g_new (double, f->n);
  f->vt->compliance_apply (f->self, f->q, h, CWB_COMPLIANCE_EXACT, r, exact);
  f->vt->compliance_apply (f->self, f->q, h, CWB_COMPLIANCE_WARPED, r, warped);
  double diff = 0, norm = 0;
  for (size_t k = 0; k < f->n; k++)
    {
      diff += (exact[k] - warped[k]) * (exact[k] - warped[k]);
      norm += exact[k] * exact[k];
    }
  return sqrt (diff / norm);
}

/* Bent under gravity, warped and exact differ, by a small relative amount (the beam's
 * rotations are a few degrees). */
static void
test_warped_close_when_bent (void)
{
  g_autoptr (FemFixture) f = bent_beam (0.01, NULL);
  double rel = bent_difference (f, 0.01);
  g_test_message ("bent beam: |C~ r - C r| / |C r| = %g", rel);
  g_assert_cmpfloat (rel, >, 0);
  g_assert_cmpfloat (rel, <, 0.1);
}

static guint
count_files (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static char *
only_file (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name = g_dir_read_name (d);
  g_assert_nonnull (name);
  return g_build_filename (dir, name, NULL);
}

#define CACHED_BODY(young)                                                                   \
  "{ name: ring, model: fem, shape: { type: torus, major_radius: 0.1, minor_radius: 0.03 }, " \
  "model_params: { young_modulus: " young ", resolution: 6 } }"

/* The first load computes C0 (progress from 0 to 1 in several reports) and writes one cache
 * file; the second with the same everything reads it (a single report of 1) and gives the
 * same operator bit for bit; another material is another file. A cancelled load fails with
 * G_IO_ERROR_CANCELLED and writes nothing; a truncated file is recomputed, not trusted. */
static void
test_compliance_cache (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cwb-fem-cache-XXXXXX", NULL);
  const double h = 0.01;
  g_autoptr (FemFixture) first = fem_fixture_new (CACHED_BODY ("1e5"), h, dir);
  g_assert_cmpint (first->progress_reports, >, 2);
  g_assert_cmpfloat (first->last_fraction, ==, 1);
  g_assert_cmpuint (count_files (dir), ==, 1);

  g_autoptr (FemFixture) second = fem_fixture_new (CACHED_BODY ("1e5"), h, dir);
  g_assert_cmpint (second->progress_reports, ==, 1);
  g_autofree double *r = g_new0 (double, first->n);
  g_autofree double *a = g_new (double, first->n), *b = g_new (double, first->n);
  r[3] = 1;
  r[first->n - 1] = -2;
  first->vt->compliance_apply (first->self, first->q, h, CWB_COMPLIANCE_WARPED, r, a);
  second->vt->compliance_apply (second->self, second->q, h, CWB_COMPLIANCE_WARPED, r, b);
  g_assert_cmpmem (a, first->n * sizeof (double), b, first->n * sizeof (double));

  g_autoptr (GError) error = NULL;
  FemFixture *cancelled = fem_fixture_try (CACHED_BODY ("2e5"), h, dir, 3, &error);
  g_assert_null (cancelled);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_nonnull (strstr (error->message, "ring"));
  g_assert_cmpuint (count_files (dir), ==, 1);

  /* Damage the file: the next load recomputes (several reports) and repairs it. */
  g_autofree char *path = only_file (dir);
  g_assert_true (g_file_set_contents (path, "CWB-C0 truncated", -1, NULL));
  g_autoptr (FemFixture) third = fem_fixture_new (CACHED_BODY ("1e5"), h, dir);
  g_assert_cmpint (third->progress_reports, >, 2);
  third->vt->compliance_apply (third->self, third->q, h, CWB_COMPLIANCE_WARPED, r, b);
  g_assert_cmpmem (a, first->n * sizeof (double), b, first->n * sizeof (double));
  g_autoptr (FemFixture) fourth = fem_fixture_new (CACHED_BODY ("1e5"), h, dir);
  g_assert_cmpint (fourth->progress_reports, ==, 1);

  g_autoptr (FemFixture) other = fem_fixture_new (CACHED_BODY ("3e5"), h, dir);
  g_assert_cmpuint (count_files (dir), ==, 2);
  g_clear_pointer (&first, fem_fixture_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *file = g_build_filename (dir, name, NULL);
      g_unlink (file);
    }
  g_rmdir (dir);
}

/* A fixed FEM body neither moves nor yields. */
static void
test_fixed_body (void)
{
  g_autoptr (FemFixture) f = fem_fixture_new (
    "{ name: post, model: fem, fixed: true, shape: { type: box, size: [0.1, 0.1, 0.4] }, "
    "model_params: { resolution: 4 } }", 0.01, NULL);
  g_autofree double *q0 = g_memdup2 (f->q, f->n * sizeof (double));
  const double g[3] = { 0, 0, -9.81 };
  fem_fixture_step (f, 0.01, g, NULL);
  g_assert_cmpmem (q0, f->n * sizeof (double), f->q, f->n * sizeof (double));
  g_autofree double *r = g_new (double, f->n), *dq = g_new (double, f->n);
  for (size_t k = 0; k < f->n; k++)
    r[k] = 1;
  f->vt->compliance_apply (f->self, f->q, 0.01, CWB_COMPLIANCE_WARPED, r, dq);
  g_assert_cmpfloat (max_abs (dq, f->n), ==, 0);
  f->vt->compliance_apply (f->self, f->q, 0.01, CWB_COMPLIANCE_EXACT, r, dq);
  g_assert_cmpfloat (max_abs (dq, f->n), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/fem/dynamics/free-rotation-cg", "cg", test_free_rotation);
  g_test_add_data_func ("/fem/dynamics/free-rotation-cholesky", "cholesky", test_free_rotation);
  g_test_add_func ("/fem/compliance/exact-finite-response", test_exact_compliance);
  g_test_add_func ("/fem/compliance/exact-dense-equals-sparse", test_exact_dense_equals_sparse);
  g_test_add_func ("/fem/compliance/warped-equals-exact-at-rest", test_warped_equals_exact_at_rest);
  g_test_add_func ("/fem/compliance/warped-close-when-bent", test_warped_close_when_bent);
  g_test_add_func ("/fem/compliance/cache", test_compliance_cache);
  g_test_add_func ("/fem/fixed-body", test_fixed_body);
  return g_test_run ();
}

/* The solver's compliance cache (plugins/solvers/constraint/compliance_cache.c) against the
 * operator it caches: a small body's dense C gives the same products as the body's own
 * operator, taken once per configuration; a large body goes through the operator every time. */
#include <math.h>

#include "compliance_cache.h"

/* Two bodies: a 6-DOF one whose C is a fixed symmetric matrix scaled by q[0] (so a new
 * configuration must give new products), and a 20-DOF one (above the dense limit), C = 2 I. */
#define SMALL_NV 6
#define LARGE_NV 20

typedef struct FakeWorld {
  CwbStepContext ctx;
  CwbBodySlot bodies[2];
  int calls[2];
} FakeWorld;

static double
small_entry (size_t i, size_t j)
{
  return 1.0 / (1.0 + (double) i + (double) j) + (i == j ? 2.0 : 0.0);   /* Hilbert + 2 I */
}

static void
fake_compliance (CwbStepContext *ctx, uint32_t body, const double *q, CwbCompliance kind,
                 const double *r, double *dq)
{
  FakeWorld *w = (FakeWorld *) ctx;
  (void) kind;
  w->calls[body]++;
  size_t nv = w->bodies[body].nv;
  for (size_t i = 0; i < nv; i++)
    {
      dq[i] = 0;
      for (size_t j = 0; j < nv; j++)
        dq[i] += (body == 0 ? q[0] * small_entry (i, j) : (i == j ? 2.0 : 0.0)) * r[j];
    }
}

static void
fake_world_init (FakeWorld *w)
{
  memset (w, 0, sizeof *w);
  w->bodies[0] = (CwbBodySlot) { .q_offset = 0, .nq = 1, .v_offset = 0, .nv = SMALL_NV };
  w->bodies[1] = (CwbBodySlot) { .q_offset = 1, .nq = 1, .v_offset = SMALL_NV, .nv = LARGE_NV };
  w->ctx.struct_size = sizeof w->ctx;
  w->ctx.n_bodies = 2;
  w->ctx.bodies = w->bodies;
  w->ctx.nq = 2;
  w->ctx.nv = SMALL_NV + LARGE_NV;
  w->ctx.compliance_apply = fake_compliance;
}

static void
test_dense_matches_operator (void)
{
  FakeWorld w;
  fake_world_init (&w);
  ComplianceCache *cache = compliance_cache_new ();
  double q[2] = { 1.5, 0 };
  compliance_cache_begin (cache, &w.ctx, q, CWB_COMPLIANCE_EXACT);
  GRand *rng = g_rand_new_with_seed (7);
  for (int trial = 0; trial < 50; trial++)
    {
      double r[SMALL_NV], got[SMALL_NV], expected[SMALL_NV];
      for (size_t i = 0; i < SMALL_NV; i++)
        r[i] = g_rand_double_range (rng, -1, 1);
      compliance_cache_apply (cache, 0, r, got);
      int calls = w.calls[0];
      fake_compliance (&w.ctx, 0, q, CWB_COMPLIANCE_EXACT, r, expected);
      w.calls[0] = calls;
      /* The same sums in another order: round-off of a few ulps of values near 5. */
      for (size_t i = 0; i < SMALL_NV; i++)
        g_assert_cmpfloat (fabs (got[i] - expected[i]), <, 1e-13);
    }
  /* Taken once: one operator call per unit vector, for 50 products. */
  g_assert_cmpint (w.calls[0], ==, SMALL_NV);

  /* A new configuration forgets the matrix: C doubles with q[0]. */
  q[0] = 3.0;
  compliance_cache_begin (cache, &w.ctx, q, CWB_COMPLIANCE_EXACT);
  double unit[SMALL_NV] = { 1, 0, 0, 0, 0, 0 }, column[SMALL_NV];
  compliance_cache_apply (cache, 0, unit, column);
  for (size_t i = 0; i < SMALL_NV; i++)
    g_assert_cmpfloat (fabs (column[i] - 3.0 * small_entry (i, 0)), <, 1e-14);
  g_assert_cmpint (w.calls[0], ==, 2 * SMALL_NV);
  g_rand_free (rng);
  compliance_cache_free (cache);
}

static void
test_large_body_goes_through (void)
{
  FakeWorld w;
  fake_world_init (&w);
  ComplianceCache *cache = compliance_cache_new ();
  double q[2] = { 1, 0 };
  compliance_cache_begin (cache, &w.ctx, q, CWB_COMPLIANCE_EXACT);
  double r[LARGE_NV], dq[LARGE_NV];
  for (size_t i = 0; i < LARGE_NV; i++)
    r[i] = (double) i;
  for (int k = 0; k < 3; k++)
    compliance_cache_apply (cache, 1, r, dq);
  g_assert_cmpint (w.calls[1], ==, 3);
  for (size_t i = 0; i < LARGE_NV; i++)
    g_assert_cmpfloat (dq[i], ==, 2.0 * (double) i);
  compliance_cache_free (cache);
}

/* The stiffness C^-1 of a small body: C C^-1 = I (C is Hilbert + 2 I, condition about 2, so
 * the Cholesky inverse is good to a few ulps; 1e-13 leaves room); none for a large body,
 * and none for a C that is not symmetric. */
static void
test_stiffness_inverts (void)
{
  FakeWorld w;
  fake_world_init (&w);
  ComplianceCache *cache = compliance_cache_new ();
  double q[2] = { 1.5, 0 };
  compliance_cache_begin (cache, &w.ctx, q, CWB_COMPLIANCE_EXACT);
  const double *k = compliance_cache_stiffness (cache, 0);
  g_assert_nonnull (k);
  for (size_t i = 0; i < SMALL_NV; i++)
    for (size_t j = 0; j < SMALL_NV; j++)
      {
        double sum = 0;
        for (size_t m = 0; m < SMALL_NV; m++)
          sum += q[0] * small_entry (i, m) * k[j * SMALL_NV + m];
        g_assert_cmpfloat (fabs (sum - (i == j ? 1 : 0)), <, 1e-13);
      }
  /* Taken once per configuration, from the dense C (no further operator calls). */
  g_assert_true (compliance_cache_stiffness (cache, 0) == k);
  g_assert_cmpint (w.calls[0], ==, SMALL_NV);
  g_assert_null (compliance_cache_stiffness (cache, 1));
  compliance_cache_free (cache);
}

static void
skewed_compliance (CwbStepContext *ctx, uint32_t body, const double *q, CwbCompliance kind,
                   const double *r, double *dq)
{
  fake_compliance (ctx, body, q, kind, r, dq);
  dq[0] += 0.5 * r[1];   /* C_01 != C_10 */
}

static void
test_stiffness_needs_symmetry (void)
{
  FakeWorld w;
  fake_world_init (&w);
  w.ctx.compliance_apply = skewed_compliance;
  ComplianceCache *cache = compliance_cache_new ();
  double q[2] = { 1, 0 };
  compliance_cache_begin (cache, &w.ctx, q, CWB_COMPLIANCE_EXACT);
  g_assert_null (compliance_cache_stiffness (cache, 0));
  compliance_cache_free (cache);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/solver/compliance-cache/dense-matches-operator", test_dense_matches_operator);
  g_test_add_func ("/solver/compliance-cache/large-body-goes-through",
                   test_large_body_goes_through);
  g_test_add_func ("/solver/compliance-cache/stiffness-inverts", test_stiffness_inverts);
  g_test_add_func ("/solver/compliance-cache/stiffness-needs-symmetry",
                   test_stiffness_needs_symmetry);
  return g_test_run ();
}

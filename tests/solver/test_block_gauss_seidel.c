/* The constraint solver's MLCP core (plugins/solvers/constraint/block_gauss_seidel.c) on
 * problems whose solutions are known: the local Coulomb disk against its closed form and its
 * optimality conditions, a frictionless LCP against the exact solution found by enumerating
 * active sets, and a sliding and a sticking particle against Coulomb's law. */
#include <math.h>

#include "block_gauss_seidel.h"

/* Newton on the secular equation stops at 1e-14 relative; 1e-12 leaves room for the
 * round-off of forming w f + c. */
#define DISK_TOLERANCE 1e-12
/* The Gauss-Seidel runs below stop at a sweep change of 1e-15 m; with W's condition number
 * under 1e3 the forces are then within 1e-9 relative of the exact ones. */
#define BGS_FORCE_TOLERANCE 1e-9

static void
test_disk_stick (void)
{
  const double w[4] = { 2, 0.5, 0.5, 1 };
  const double c[2] = { 0.1, -0.2 };
  double f[2];
  cwb_coulomb_disk_solve (w, c, 10, f);
  /* Inside the disk: w f + c = 0 exactly (Cramer's rule for the reference). */
  double det = w[0] * w[3] - w[1] * w[2];
  double expected[2] = { -(w[3] * c[0] - w[1] * c[1]) / det, -(-w[2] * c[0] + w[0] * c[1]) / det };
  g_assert_cmpfloat (fabs (f[0] - expected[0]), <, DISK_TOLERANCE);
  g_assert_cmpfloat (fabs (f[1] - expected[1]), <, DISK_TOLERANCE);
}

static void
test_disk_slip_isotropic (void)
{
  /* w = k I: the slip force is -radius c / |c| (the trial direction, radially projected). */
  const double w[4] = { 3, 0, 0, 3 };
  const double c[2] = { 4, -3 };
  double f[2];
  cwb_coulomb_disk_solve (w, c, 0.5, f);
  g_assert_cmpfloat (fabs (f[0] - (-0.5 * 4 / 5)), <, DISK_TOLERANCE);
  g_assert_cmpfloat (fabs (f[1] - (-0.5 * -3 / 5)), <, DISK_TOLERANCE);
}

/* Anisotropic w: radial projection of the trial would be wrong; the exact solution has
 * |f| = radius and the slip w f + c anti-parallel to f (maximum dissipation). */
static void
test_disk_slip_anisotropic (void)
{
  const double w[4] = { 10, 3, 3, 1.5 };
  const double c[2] = { 2, 5 };
  const double radius = 0.3;
  double f[2];
  cwb_coulomb_disk_solve (w, c, radius, f);
  double slip[2] = { w[0] * f[0] + w[1] * f[1] + c[0], w[2] * f[0] + w[3] * f[1] + c[1] };
  double norm_f = hypot (f[0], f[1]), norm_slip = hypot (slip[0], slip[1]);
  g_assert_cmpfloat (fabs (norm_f - radius), <, DISK_TOLERANCE * radius);
  g_assert_cmpfloat (norm_slip, >, 0);
  double cross = (f[0] * slip[1] - f[1] * slip[0]) / (norm_f * norm_slip);
  double cosine = (f[0] * slip[0] + f[1] * slip[1]) / (norm_f * norm_slip);
  g_assert_cmpfloat (fabs (cross), <, DISK_TOLERANCE);
  g_assert_cmpfloat (cosine, <, -1 + DISK_TOLERANCE);
  /* And the radially projected trial is measurably different: the test can tell. */
  double det = w[0] * w[3] - w[1] * w[2];
  double trial[2] = { -(w[3] * c[0] - w[1] * c[1]) / det, -(-w[2] * c[0] + w[0] * c[1]) / det };
  double scale = radius / hypot (trial[0], trial[1]);
  g_assert_cmpfloat (hypot (f[0] - scale * trial[0], f[1] - scale * trial[1]), >, 1e-3);
}

static void
test_disk_zero_radius (void)
{
  const double w[4] = { 1, 0, 0, 1 };
  const double c[2] = { 1, 1 };
  double f[2] = { 7, 7 };
  cwb_coulomb_disk_solve (w, c, 0, f);
  g_assert_cmpfloat (f[0], ==, 0);
  g_assert_cmpfloat (f[1], ==, 0);
}

/* ---- whole problems ------------------------------------------------------------------ */

/* A problem on particles of 3 DOF each with compliance C = c_k I (C = h^2 / m for a particle
 * of mass m): H is written by hand. */
typedef struct Fixture {
  CwbBodySlot bodies[4];
  size_t n_bodies;
  double compliance[4];
  GArray *row_start;   /* size_t */
  GArray *entries;     /* CwbDofEntry */
  GArray *rows;        /* CwbConstraintRow */
  GArray *frames;      /* CwbContactFrame */
  CwbDofRows h;
} Fixture;

static void
fixture_init (Fixture *fx, size_t n_bodies, const double *compliance)
{
  memset (fx, 0, sizeof *fx);
  fx->n_bodies = n_bodies;
  for (size_t b = 0; b < n_bodies; b++)
    {
      fx->bodies[b] = (CwbBodySlot){ .nq = 3, .nv = 3, .q_offset = 3 * b, .v_offset = 3 * b,
                                     .mass = 1 };
      fx->compliance[b] = compliance[b];
    }
  fx->row_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  fx->entries = g_array_new (FALSE, FALSE, sizeof (CwbDofEntry));
  fx->rows = g_array_new (FALSE, TRUE, sizeof (CwbConstraintRow));
  fx->frames = g_array_new (FALSE, TRUE, sizeof (CwbContactFrame));
  size_t zero = 0;
  g_array_append_val (fx->row_start, zero);
}

static void
fixture_clear (Fixture *fx)
{
  g_array_unref (fx->row_start);
  g_array_unref (fx->entries);
  g_array_unref (fx->rows);
  g_array_unref (fx->frames);
}

/* A row with direction d on body a (and -d on body b unless b < 0). */
static void
fixture_row (Fixture *fx, CwbRowKind kind, uint32_t frame, int a, int b, const double d[3])
{
  int bodies[2] = { MIN (a, b < 0 ? a : b), MAX (a, b) };
  for (int k = 0; k < (b < 0 ? 1 : 2); k++)
    {
      int body = b < 0 ? a : bodies[k];
      double sign = body == a ? 1 : -1;
      for (uint32_t dof = 0; dof < 3; dof++)
        if (d[dof] != 0)
          {
            CwbDofEntry e = { .body = (uint32_t) body, .dof = dof, .value = sign * d[dof] };
            g_array_append_val (fx->entries, e);
          }
    }
  size_t end = fx->entries->len;
  g_array_append_val (fx->row_start, end);
  CwbConstraintRow row = { .kind = kind, .frame = frame };
  g_array_append_val (fx->rows, row);
}

static void
particle_compliance (void *data, uint32_t body, const double *r, double *dq)
{
  Fixture *fx = data;
  for (int k = 0; k < 3; k++)
    dq[k] = fx->compliance[body] * r[k];
}

static BgsProblem
fixture_problem (Fixture *fx, const double *delta_free, gboolean friction)
{
  fx->h = (CwbDofRows){ .n_rows = fx->rows->len,
                        .row_start = (const size_t *) fx->row_start->data,
                        .entries = (const CwbDofEntry *) fx->entries->data };
  return (BgsProblem){
    .n_rows = fx->rows->len,
    .rows = (const CwbConstraintRow *) fx->rows->data,
    .n_frames = fx->frames->len,
    .frames = (const CwbContactFrame *) fx->frames->data,
    .h = &fx->h,
    .bodies = fx->bodies,
    .delta_free = delta_free,
    .compliance = particle_compliance,
    .compliance_data = fx,
    .friction = friction,
    .max_iterations = 10000,
    .tolerance = 1e-15,
  };
}

static void
add_normal_frame (Fixture *fx, int a, int b, const double n[3])
{
  CwbContactFrame frame = { .first_row = fx->rows->len, .n_rows = 1, .body_a = (uint32_t) a,
                            .body_b = b < 0 ? CWB_NO_BODY : (uint32_t) b };
  cwb_v3_copy (frame.normal, n);
  fixture_row (fx, CWB_ROW_NORMAL, fx->frames->len, a, b, n);
  g_array_append_val (fx->frames, frame);
}

/* W = H C H^T, dense, from the fixture (the reference the solver never builds). */
static void
dense_w (const Fixture *fx, double *w)
{
  size_t m = fx->rows->len, nv = 3 * fx->n_bodies;
  g_autofree double *hd = g_new0 (double, m * nv);
  const size_t *start = (const size_t *) fx->row_start->data;
  for (size_t i = 0; i < m; i++)
    for (size_t e = start[i]; e < start[i + 1]; e++)
      {
        const CwbDofEntry *en = &g_array_index (fx->entries, CwbDofEntry, e);
        hd[i * nv + 3 * en->body + en->dof] += en->value;
      }
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      {
        double sum = 0;
        for (size_t d = 0; d < nv; d++)
          sum += hd[i * nv + d] * fx->compliance[d / 3] * hd[j * nv + d];
        w[i * m + j] = sum;
      }
}

/* Exact LCP solution by enumeration of the 2^m active sets: f_A = -W_AA^-1 delta_A (Gauss
 * elimination, m <= 6), valid when f_A >= 0 and the inactive rows' delta >= 0. */
static gboolean
lcp_enumerate (const double *w, const double *q, size_t m, double *f)
{
  for (guint mask = 0; mask < (1u << m); mask++)
    {
      double a[36], rhs[6];
      size_t idx[6], k = 0;
      for (size_t i = 0; i < m; i++)
        if (mask & (1u << i))
          idx[k++] = i;
      for (size_t r = 0; r < k; r++)
        {
          for (size_t c = 0; c < k; c++)
            a[r * k + c] = w[idx[r] * m + idx[c]];
          rhs[r] = -q[idx[r]];
        }
      gboolean singular = FALSE;
      for (size_t p = 0; p < k && !singular; p++)
        {
          if (fabs (a[p * k + p]) < 1e-14)
            {
              singular = TRUE;
              break;
            }
          for (size_t r = p + 1; r < k; r++)
            {
              double factor = a[r * k + p] / a[p * k + p];
              for (size_t c = p; c < k; c++)
                a[r * k + c] -= factor * a[p * k + c];
              rhs[r] -= factor * rhs[p];
            }
        }
      if (singular)
        continue;
      double x[6];
      for (size_t r = k; r-- > 0;)
        {
          double sum = rhs[r];
          for (size_t c = r + 1; c < k; c++)
            sum -= a[r * k + c] * x[c];
          x[r] = sum / a[r * k + r];
        }
      gboolean ok = TRUE;
      memset (f, 0, m * sizeof (double));
      for (size_t r = 0; r < k; r++)
        {
          ok = ok && x[r] >= -1e-12;
          f[idx[r]] = x[r];
        }
      for (size_t i = 0; i < m && ok; i++)
        {
          double delta = q[i];
          for (size_t j = 0; j < m; j++)
            delta += w[i * m + j] * f[j];
          ok = delta >= -1e-12;
        }
      if (ok)
        return TRUE;
    }
  return FALSE;
}

/* Three particles in a chain, pressed into each other and into walls by free motion: five
 * coupled frictionless contacts, some active, some separating. */
static void
test_frictionless_lcp (void)
{
  const double compliance[3] = { 1.0, 0.5, 2.0 };
  Fixture fx;
  fixture_init (&fx, 3, compliance);
  const double x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 };
  const double diag[3] = { 0.6, 0.8, 0 };
  add_normal_frame (&fx, 0, -1, x);     /* particle 0 against a wall */
  add_normal_frame (&fx, 1, 0, x);      /* 1 against 0 */
  add_normal_frame (&fx, 2, 1, diag);   /* 2 against 1, oblique */
  add_normal_frame (&fx, 2, -1, y);     /* 2 against the floor */
  add_normal_frame (&fx, 1, -1, y);     /* 1 against the floor */
  const double delta_free[5] = { -0.3, -0.1, 0.05, -0.2, 0.4 };
  BgsProblem problem = fixture_problem (&fx, delta_free, FALSE);

  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double f[5] = { 0 }, dq[9] = { 0 };
  BgsResult result;
  bgs_solve (solver, &problem, f, dq, &result);
  g_assert_cmpfloat (result.residual, <=, problem.tolerance);

  double w[25], exact[5];
  dense_w (&fx, w);
  g_assert_true (lcp_enumerate (w, delta_free, 5, exact));
  for (int i = 0; i < 5; i++)
    g_assert_cmpfloat (fabs (f[i] - exact[i]), <, BGS_FORCE_TOLERANCE * (1 + fabs (exact[i])));
  /* The cases cover both sides of the complementarity. */
  int active = 0;
  for (int i = 0; i < 5; i++)
    active += exact[i] > 0;
  g_assert_cmpint (active, >, 0);
  g_assert_cmpint (active, <, 5);
  /* dq is C H^T f. */
  double expected_dq0 = compliance[0] * (f[0] - f[1] * 1);
  g_assert_cmpfloat (fabs (dq[0] - expected_dq0), <, 1e-12);
  fixture_clear (&fx);
}

/* One particle of compliance c touching the floor with penetration p and tangential free
 * displacement s: f_n = p / c; it sticks (f_t = -s / c) when |s| / c <= mu f_n and slides
 * with f_t = -mu f_n s / |s| otherwise (Coulomb, Saupin 2008 eq. 2). */
static void
check_particle_friction (double mu, const double s[2], gboolean expect_stick)
{
  const double c = 0.25, p = 0.02;
  Fixture fx;
  fixture_init (&fx, 1, &c);
  const double n[3] = { 0, 0, 1 }, t1[3] = { 1, 0, 0 }, t2[3] = { 0, 1, 0 };
  CwbContactFrame frame = { .first_row = 0, .n_rows = 3, .mu = mu, .body_b = CWB_NO_BODY };
  g_array_append_val (fx.frames, frame);
  fixture_row (&fx, CWB_ROW_NORMAL, 0, 0, -1, n);
  fixture_row (&fx, CWB_ROW_TANGENT, 0, 0, -1, t1);
  fixture_row (&fx, CWB_ROW_TANGENT, 0, 0, -1, t2);
  const double delta_free[3] = { -p, s[0], s[1] };
  BgsProblem problem = fixture_problem (&fx, delta_free, TRUE);
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double f[3] = { 0 }, dq[3] = { 0 };
  BgsResult result;
  bgs_solve (solver, &problem, f, dq, &result);

  double fn = p / c;
  g_assert_cmpfloat (fabs (f[0] - fn), <, BGS_FORCE_TOLERANCE * fn);
  double norm_s = hypot (s[0], s[1]);
  gboolean sticks = norm_s / c <= mu * fn;
  g_assert_cmpint (sticks, ==, expect_stick);
  for (int k = 0; k < 2; k++)
    {
      double expected = sticks ? -s[k] / c : -mu * fn * s[k] / norm_s;
      g_assert_cmpfloat (fabs (f[1 + k] - expected), <, BGS_FORCE_TOLERANCE * fn);
    }
  /* Sticking leaves no tangential displacement; sliding keeps some along s. */
  double slip = hypot (dq[0] + s[0], dq[1] + s[1]);
  if (sticks)
    g_assert_cmpfloat (slip, <, 1e-12);
  else
    g_assert_cmpfloat (slip, >, 1e-6);
  fixture_clear (&fx);
}

static void
test_particle_sticks (void)
{
  const double s[2] = { 0.003, -0.004 };   /* |s| / c = 0.02 < 0.5 * 0.08 */
  check_particle_friction (0.5, s, TRUE);
}

static void
test_particle_slides (void)
{
  const double s[2] = { 0.03, -0.04 };     /* |s| / c = 0.2 > 0.5 * 0.08 */
  check_particle_friction (0.5, s, FALSE);
}

/* A contact between two bodies both able to move: the force acts on both with opposite
 * signs (Newton's third law through H), so momentum (sum of dq / c) is unchanged. */
static void
test_pair_conserves_momentum (void)
{
  const double compliance[2] = { 0.5, 2.0 };
  Fixture fx;
  fixture_init (&fx, 2, compliance);
  const double n[3] = { 0, 0, 1 };
  add_normal_frame (&fx, 1, 0, n);
  const double delta_free[1] = { -0.1 };
  BgsProblem problem = fixture_problem (&fx, delta_free, FALSE);
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double f[1] = { 0 }, dq[6] = { 0 };
  BgsResult result;
  bgs_solve (solver, &problem, f, dq, &result);
  /* W = c0 + c1, f = 0.1 / W; the momentum change dq_b / c_b sums to zero. */
  g_assert_cmpfloat (fabs (f[0] - 0.1 / 2.5), <, 1e-12);
  g_assert_cmpfloat (fabs (dq[2] / compliance[0] + dq[5] / compliance[1]), <, 1e-12);
  fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/solver/coulomb-disk/stick", test_disk_stick);
  g_test_add_func ("/solver/coulomb-disk/slip-isotropic", test_disk_slip_isotropic);
  g_test_add_func ("/solver/coulomb-disk/slip-anisotropic", test_disk_slip_anisotropic);
  g_test_add_func ("/solver/coulomb-disk/zero-radius", test_disk_zero_radius);
  g_test_add_func ("/solver/bgs/frictionless-lcp", test_frictionless_lcp);
  g_test_add_func ("/solver/bgs/particle-sticks", test_particle_sticks);
  g_test_add_func ("/solver/bgs/particle-slides", test_particle_slides);
  g_test_add_func ("/solver/bgs/pair-momentum", test_pair_conserves_momentum);
  return g_test_run ();
}

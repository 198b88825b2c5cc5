/* The constraint solver's MLCP core (plugins/solvers/constraint/block_gauss_seidel.c) on
 * problems whose solutions are known: the local Coulomb disk against its closed form and its
 * optimality conditions, a frictionless LCP against the exact solution found by enumerating
 * active sets, a sliding and a sticking particle against Coulomb's law, both friction sets
 * (cone and Allard 2010 eq. 9-10's pyramid) against closed forms where they differ, and every
 * contact of a coupled frictional problem against Signorini's and Coulomb's laws. */
#include <math.h>

#include "bgs_solver.h"

#include <lapacke.h>

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

/* The disk solve as it was before the block's eigen decomposition was factored out of it
 * (kept here as the reference): diagonalise w, then Newton on the secular equation. */
static void
disk_solve_unfactored (const double w[4], const double c[2], double radius, double f[2])
{
  f[0] = f[1] = 0;
  if (!(radius > 0) || (c[0] == 0 && c[1] == 0))
    return;
  double a = w[0], b = 0.5 * (w[1] + w[2]), d = w[3];
  double theta = 0.5 * atan2 (2 * b, a - d);
  double cs = cos (theta), sn = sin (theta);
  double l[2] = { a * cs * cs + 2 * b * sn * cs + d * sn * sn,
                  a * sn * sn - 2 * b * sn * cs + d * cs * cs };
  double cp[2] = { cs * c[0] + sn * c[1], -sn * c[0] + cs * c[1] };
  double l_max = MAX (l[0], l[1]), l_min = MIN (l[0], l[1]);
  if (!(l_max > 0))
    return;
  double alpha = 0;
  if (l_min <= CWB_COULOMB_DISK_SINGULAR_RATIO * l_max)
    alpha = MAX (0, -l_min) + CWB_COULOMB_DISK_SINGULAR_RATIO * l_max;
  double fp[2] = { 0, 0 };
  for (int k = 0; k <= CWB_COULOMB_DISK_MAX_NEWTON; k++)
    {
      double n2 = 0, n3 = 0;
      for (int i = 0; i < 2; i++)
        {
          double inv = 1 / (l[i] + alpha);
          fp[i] = -cp[i] * inv;
          n2 += fp[i] * fp[i];
          n3 += fp[i] * fp[i] * inv;
        }
      double norm = sqrt (n2);
      if (alpha == 0 && norm <= radius)
        break;
      if (norm <= radius * (1 + CWB_COULOMB_DISK_RELATIVE_TOLERANCE))
        break;
      alpha -= (1 / norm - 1 / radius) / (n3 / (n2 * norm));
    }
  f[0] = cs * fp[0] - sn * fp[1];
  f[1] = sn * fp[0] + cs * fp[1];
  double norm = hypot (f[0], f[1]);
  if (norm > radius)
    {
      f[0] *= radius / norm;
      f[1] *= radius / norm;
    }
}

/* The factored disk solve (block decomposed once, cwb_coulomb_disk_factor) against the
 * unfactored one on random blocks: symmetric positive semi-definite w = Q diag(l) Q^T with
 * eigenvalues over 12 decades (down to singular), random slips, radii that make some
 * contacts stick and some slide. The arithmetic is the same but for the last rescaling
 * (sqrt of the squared norm instead of hypot): within 1e-13 of the radius, a few ulps. */
#define DISK_FACTORED_TOLERANCE 1e-13

static void
test_disk_factored (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (16);
  int stick = 0, slip = 0;
  for (int k = 0; k < 20000; k++)
    {
      double theta = g_rand_double_range (rand, -G_PI, G_PI);
      double l0 = pow (10, g_rand_double_range (rand, -6, 0));
      double l1 = k % 10 == 0 ? 0 : l0 * pow (10, g_rand_double_range (rand, -12, 0));
      double cs = cos (theta), sn = sin (theta);
      double w[4] = { l0 * cs * cs + l1 * sn * sn, (l0 - l1) * cs * sn, (l0 - l1) * cs * sn,
                      l0 * sn * sn + l1 * cs * cs };
      double c[2] = { g_rand_double_range (rand, -1, 1), g_rand_double_range (rand, -1, 1) };
      double radius = pow (10, g_rand_double_range (rand, -1, 7));
      double expected[2], f[2], g[2];
      disk_solve_unfactored (w, c, radius, expected);
      cwb_coulomb_disk_solve (w, c, radius, f);
      CwbCoulombDisk disk;
      cwb_coulomb_disk_factor (w, &disk);
      cwb_coulomb_disk_solve_factored (&disk, c, radius, g);
      for (int a = 0; a < 2; a++)
        {
          g_assert_cmpfloat (fabs (f[a] - expected[a]), <=, DISK_FACTORED_TOLERANCE * radius);
          g_assert_cmpfloat (f[a], ==, g[a]);
        }
      if (hypot (expected[0], expected[1]) < radius * (1 - 1e-9))
        stick++;
      else
        slip++;
    }
  g_test_message ("%d stick, %d slip", stick, slip);
  g_assert_cmpint (stick, >, 1000);
  g_assert_cmpint (slip, >, 1000);
}

/* ---- whole problems ------------------------------------------------------------------ */

/* A problem on particles of 3 DOF each with compliance C = c_k I (C = h^2 / m for a particle
 * of mass m): H is written by hand. */
#define FIXTURE_MAX_BODIES 64

typedef struct Fixture {
  CwbBodySlot bodies[FIXTURE_MAX_BODIES];
  size_t n_bodies;
  double compliance[FIXTURE_MAX_BODIES];
  double axis_scale[FIXTURE_MAX_BODIES][3];   /* C = c_k diag(axis_scale): 1 unless a test makes it anisotropic */
  GArray *row_start;   /* size_t */
  GArray *entries;     /* CwbDofEntry */
  GArray *rows;        /* CwbConstraintRow */
  GArray *frames;      /* CwbContactFrame */
  CwbDofRows h;
} Fixture;

static void
fixture_init (Fixture *fx, size_t n_bodies, const double *compliance)
{
  g_assert_cmpuint (n_bodies, <=, FIXTURE_MAX_BODIES);
  memset (fx, 0, sizeof *fx);
  fx->n_bodies = n_bodies;
  for (size_t b = 0; b < n_bodies; b++)
    {
      fx->bodies[b] = (CwbBodySlot){ .nq = 3, .nv = 3, .q_offset = 3 * b, .v_offset = 3 * b,
                                     .mass = 1 };
      fx->compliance[b] = compliance[b];
      for (int k = 0; k < 3; k++)
        fx->axis_scale[b][k] = 1;
    }
  fx->row_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  fx->entries = g_array_new (FALSE, FALSE, sizeof (CwbDofEntry));
  fx->rows = g_array_new (FALSE, TRUE, sizeof (CwbConstraintRow));
  fx->frames = g_array_new (FALSE, TRUE, sizeof (CwbContactFrame));
  size_t zero = 0;
  g_array_append_val (fx->row_start, zero);
}

/* A column of n particles, compliances 1 and 0.2 in turn. */
static void
fixture_init_column (Fixture *fx, size_t n)
{
  double compliance[FIXTURE_MAX_BODIES];
  g_assert_cmpuint (n, <=, FIXTURE_MAX_BODIES);
  for (size_t k = 0; k < n; k++)
    compliance[k] = k % 2 == 0 ? 1.0 : 0.2;
  fixture_init (fx, n, compliance);
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
    dq[k] = fx->compliance[body] * fx->axis_scale[body][k] * r[k];
}

static BgsProblem
fixture_problem_law (Fixture *fx, const double *delta_free, gboolean friction,
                     CwbFrictionLaw law)
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
    .friction_law = law,
    .max_iterations = 10000,
    .tolerance = 1e-15,
  };
}

static BgsProblem
fixture_problem (Fixture *fx, const double *delta_free, gboolean friction)
{
  return fixture_problem_law (fx, delta_free, friction, CWB_FRICTION_CONE);
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
          sum += hd[i * nv + d] * fx->compliance[d / 3] * fx->axis_scale[d / 3][d % 3]
                 * hd[j * nv + d];
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

/* One body of FLUID_PARTICLES particles of diagonal compliance (a fluid's, C = h^2 M^-1 per
 * DOF, here different on every DOF so that a misplaced one shows), and six normal rows each
 * on three of its particles, some adjacent in index and some thousands of DOFs apart (as a
 * density model's rows are, on the particles about a grid point): solved with the
 * diagonal, whose columns the solver keeps as windows over the rows' own DOFs, and with the
 * compliance over the whole body (one column of nv), the forces and displacements agree to
 * round-off and the forces are the exact LCP solution's. */
#define FLUID_PARTICLES 1500

typedef struct FluidBody {
  double diagonal[3 * FLUID_PARTICLES];
} FluidBody;

static void
fluid_compliance (void *data, uint32_t body, const double *r, double *dq)
{
  const FluidBody *fluid = data;
  for (size_t d = 0; d < 3 * FLUID_PARTICLES; d++)
    dq[d] = fluid->diagonal[d] * r[d];
}

static const double *
fluid_diagonal (void *data, uint32_t body)
{
  return ((const FluidBody *) data)->diagonal;
}

static void
test_diagonal_windows (void)
{
  static const uint32_t particles[6][3] = { { 0, 700, 1499 }, { 1, 2, 1200 }, { 5, 6, 7 },
                                            { 3, 9, 800 }, { 700, 701, 1498 },
                                            { 2, 350, 351 } };
  static const double directions[6][3] = { { 0, 0, 1 }, { 0.6, 0, 0.8 }, { 0, 1, 0 },
                                           { 0.48, 0.6, 0.64 }, { 1, 0, 0 },
                                           { 0, 0.6, -0.8 } };
  const double delta_free[6] = { -0.3, -0.1, 0.05, -0.2, 0.4, -0.15 };
  g_autofree FluidBody *fluid = g_new (FluidBody, 1);
  for (size_t d = 0; d < 3 * FLUID_PARTICLES; d++)
    fluid->diagonal[d] = 0.5 + 0.25 * (double) (d % 7);
  g_autoptr (GArray) entries = g_array_new (FALSE, FALSE, sizeof (CwbDofEntry));
  size_t row_start[7] = { 0 };
  CwbConstraintRow rows[6];
  CwbContactFrame frames[6];
  for (uint32_t i = 0; i < 6; i++)
    {
      /* Each particle's entries, signed so that the rows couple (sorted by DOF). */
      for (int k = 0; k < 3; k++)
        for (uint32_t a = 0; a < 3; a++)
          if (directions[i][a] != 0)
            {
              CwbDofEntry e = { .body = 0, .dof = 3 * particles[i][k] + a,
                                .value = (k == 1 ? -0.5 : 1.0) * directions[i][a] };
              g_array_append_val (entries, e);
            }
      row_start[i + 1] = entries->len;
      rows[i] = (CwbConstraintRow) { .kind = CWB_ROW_NORMAL, .frame = i };
      frames[i] = (CwbContactFrame) { .first_row = i, .n_rows = 1, .body_a = 0,
                                      .body_b = CWB_NO_BODY };
      cwb_v3_copy (frames[i].normal, directions[i]);
    }
  CwbDofRows h = { .n_rows = 6, .row_start = row_start,
                   .entries = (const CwbDofEntry *) entries->data };
  CwbBodySlot body = { .nq = 3 * FLUID_PARTICLES, .nv = 3 * FLUID_PARTICLES, .mass = 1 };
  BgsProblem problem = {
    .n_rows = 6, .rows = rows, .n_frames = 6, .frames = frames, .h = &h, .bodies = &body,
    .delta_free = delta_free, .compliance = fluid_compliance, .compliance_data = fluid,
    .max_iterations = 10000, .tolerance = 1e-15,
  };
  double f[2][6] = { { 0 } };
  g_autofree double *dq = g_new0 (double, 2 * 3 * FLUID_PARTICLES);
  for (int path = 0; path < 2; path++)
    {
      problem.compliance_diagonal = path == 0 ? fluid_diagonal : NULL;
      g_autoptr (BgsSolver) solver = bgs_solver_new ();
      BgsResult result;
      bgs_solve (solver, &problem, f[path], dq + path * 3 * FLUID_PARTICLES, &result);
      g_assert_cmpfloat (result.residual, <=, problem.tolerance);
    }
  /* The reference: W = H C H^T from the entries, and the LCP's exact solution. */
  double w[36], exact[6];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++)
      {
        double sum = 0;
        for (size_t a = row_start[i]; a < row_start[i + 1]; a++)
          for (size_t b = row_start[j]; b < row_start[j + 1]; b++)
            {
              const CwbDofEntry *ea = &g_array_index (entries, CwbDofEntry, a);
              const CwbDofEntry *eb = &g_array_index (entries, CwbDofEntry, b);
              if (ea->dof == eb->dof)
                sum += ea->value * fluid->diagonal[ea->dof] * eb->value;
            }
        w[6 * i + j] = sum;
      }
  g_assert_true (lcp_enumerate (w, delta_free, 6, exact));
  int active = 0;
  for (int i = 0; i < 6; i++)
    {
      active += exact[i] > 0;
      for (int path = 0; path < 2; path++)
        g_assert_cmpfloat (fabs (f[path][i] - exact[i]), <,
                           BGS_FORCE_TOLERANCE * (1 + fabs (exact[i])));
      g_assert_cmpfloat (fabs (f[0][i] - f[1][i]), <, 1e-12 * (1 + fabs (exact[i])));
    }
  g_assert_cmpint (active, >, 0);
  g_assert_cmpint (active, <, 6);
  for (size_t d = 0; d < 3 * FLUID_PARTICLES; d++)
    g_assert_cmpfloat (fabs (dq[d] - dq[3 * FLUID_PARTICLES + d]), <, 1e-12);
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

/* ---- the laws after a solve, for both friction sets ---------------------------------- */

/* Absolute round-off of a row value W f + delta_free: entries of W, forces and free
 * displacements of order 1 or below give a few 1e-17; 1e-14 leaves a factor of ~100. */
#define ROW_ROUNDOFF 1e-14

/* A frame with friction: its normal row, then t1 and t2 (rows stay consecutive). */
static void
add_friction_frame (Fixture *fx, int a, int b, double mu, const double n[3],
                    const double t1[3], const double t2[3])
{
  CwbContactFrame frame = { .first_row = fx->rows->len, .n_rows = 3, .mu = mu,
                            .body_a = (uint32_t) a,
                            .body_b = b < 0 ? CWB_NO_BODY : (uint32_t) b };
  uint32_t index = fx->frames->len;
  fixture_row (fx, CWB_ROW_NORMAL, index, a, b, n);
  fixture_row (fx, CWB_ROW_TANGENT, index, a, b, t1);
  fixture_row (fx, CWB_ROW_TANGENT, index, a, b, t2);
  g_array_append_val (fx->frames, frame);
}

/* How far each row's final value may lie from one at which the laws hold exactly. When the
 * last sweep solved a frame, its rows met the laws exactly against the others' forces (the
 * normal's projection; the disk solve, to 1e-14; the pyramid's clamps); every row j solved
 * after that moved row i by W_ij df_j, and the sweep that stopped the solve changed no row by
 * more than |df_j| W_jj <= residual. Summing over all j != i over-counts the rows solved
 * before i. A pyramid frame solves its two face coordinates one after the other, so the
 * first is off by (P W_tt P)_12 du_2, with |du_2| <= (|df_1| + |df_2|) / sqrt 2; that adds
 * |(P W_tt P)_12| residual (1 / W_11 + 1 / W_22) / 2 to each of its tangent rows. */
static void
drift_bounds (const Fixture *fx, const double *w, double residual, CwbFrictionLaw law,
              double *bound)
{
  size_t m = fx->rows->len;
  for (size_t i = 0; i < m; i++)
    {
      bound[i] = ROW_ROUNDOFF;
      for (size_t j = 0; j < m; j++)
        if (j != i && w[j * m + j] > 0)
          bound[i] += fabs (w[i * m + j]) * residual / w[j * m + j];
    }
  if (law != CWB_FRICTION_PYRAMID)
    return;
  for (guint f = 0; f < fx->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (fx->frames, CwbContactFrame, f);
      if (frame->n_rows < 3)
        continue;
      size_t t = frame->first_row + 1;
      double w11 = w[t * m + t], w12 = w[t * m + t + 1], w21 = w[(t + 1) * m + t];
      double w22 = w[(t + 1) * m + t + 1];
      double face_coupling = fabs (0.5 * (w11 - w12 + w21 - w22));
      double extra = face_coupling * residual * (1 / w11 + 1 / w22) / 2;
      bound[t] += extra;
      bound[t + 1] += extra;
    }
}

/* Counts of what the laws allowed, for the coverage asserts. */
typedef struct LawCounts {
  int open, stick, slip;
} LawCounts;

/* Every frame of a solved fixture against Signorini and the friction law
 * (cwb_contact_law_check), with the row values delta = W f + delta_free from the dense W, not
 * from the solver, and the tolerances of drift_bounds. Also checks the solver's own
 * post-solve check (bgs_check) stays within the same bounds. */
static LawCounts
check_laws (const Fixture *fx, const BgsSolver *solver, const BgsProblem *problem,
            const double *f, const double *dq, const BgsResult *result)
{
  size_t m = fx->rows->len;
  g_autofree double *w = g_new (double, m * m);
  g_autofree double *delta = g_new (double, m);
  g_autofree double *bound = g_new (double, m);
  dense_w (fx, w);
  for (size_t i = 0; i < m; i++)
    {
      delta[i] = problem->delta_free[i];
      for (size_t j = 0; j < m; j++)
        delta[i] += w[i * m + j] * f[j];
    }
  g_assert_cmpfloat (result->residual, <=, problem->tolerance);
  drift_bounds (fx, w, result->residual, problem->friction_law, bound);

  LawCounts counts = { 0 };
  double worst_gap = 0, worst_slip = 0;
  for (guint k = 0; k < fx->frames->len; k++)
    {
      const CwbContactFrame *frame = &g_array_index (fx->frames, CwbContactFrame, k);
      size_t n = frame->first_row;
      g_assert_cmpuint (frame->n_rows, ==, 3);
      const double f_t[2] = { f[n + 1], f[n + 2] }, slip[2] = { delta[n + 1], delta[n + 2] };
      double slip_tolerance = hypot (bound[n + 1], bound[n + 2]);
      unsigned broken = cwb_contact_law_check (problem->friction_law, frame->mu, delta[n], f[n],
                                               f_t, slip, bound[n], slip_tolerance);
      g_test_message ("frame %u: gap %.3g f_n %.6g f_t (%.6g, %.6g) slip (%.3g, %.3g), "
                      "tolerances %.2g %.2g: broken 0x%x", k, delta[n], f[n], f_t[0], f_t[1],
                      slip[0], slip[1], bound[n], slip_tolerance, broken);
      g_assert_cmpuint (broken, ==, 0);
      worst_gap = MAX (worst_gap, bound[n]);
      worst_slip = MAX (worst_slip, slip_tolerance);
      if (f[n] <= 0)
        counts.open++;
      else if (cwb_friction_dual (problem->friction_law, slip) > slip_tolerance)
        counts.slip++;
      else
        counts.stick++;
    }

  /* bgs_check measures the same laws from the solver's side: penetration and gap under force
   * within the gap bound; the slip error (dissipation gap / mu f_n) at most 2 x the slip
   * bound (f . ds + r dual(ds) <= 2 r |ds|); no force outside its set beyond round-off. */
  BgsCheck check;
  bgs_check (solver, problem, f, dq, &check);
  g_assert_cmpuint (check.contacts, ==, fx->frames->len);
  g_assert_cmpfloat (check.penetration, <=, worst_gap);
  g_assert_cmpfloat (check.complementarity, <=, worst_gap);
  g_assert_cmpfloat (check.slip_error, <=, 2 * worst_slip);
  g_assert_cmpfloat (check.friction_excess, <=, CWB_CONTACT_LAW_RELATIVE_TOLERANCE);
  return counts;
}

/* One particle (compliance c = 0.25) on the floor, pressed p = 0.02 in (f_n = p / c = 0.08,
 * mu = 0.5: radius r = 0.04) with a free tangential displacement s. The tangential block is
 * W_tt = c I, so the answer is the Euclidean projection of the stick force -s / c onto the
 * set: the disk for the cone, the square |f_1| + |f_2| <= r for the pyramid (Allard 2010
 * eq. 9-10). Along the diagonal the pyramid holds only r / sqrt 2 = 0.0283: s = 0.006 (1, 1)
 * needs |s| / c = 0.0339, which the cone holds (stick, f = -s / c) and the pyramid does not
 * (slip on its face, f = -(r / 2) (1, 1)). Along t1 the two agree (the pyramid's corner is
 * on the cone). For s = 0.01 (3, 1) the pyramid's answer is its corner (-r, 0), with the slip
 * left, s + c f = (0.02, 0.01), not parallel to the force: it pushes against both faces
 * that meet there, componentwise, while the cone's force is -r s / |s|. */
typedef struct LawCase {
  const char *name;
  double s[2];
  double cone[2], pyramid[2];
} LawCase;

static void
solve_particle (CwbFrictionLaw law, const double s[2], double f_out[3])
{
  const double c = 0.25, p = 0.02, mu = 0.5;
  Fixture fx;
  fixture_init (&fx, 1, &c);
  const double n[3] = { 0, 0, 1 }, t1[3] = { 1, 0, 0 }, t2[3] = { 0, 1, 0 };
  add_friction_frame (&fx, 0, -1, mu, n, t1, t2);
  const double delta_free[3] = { -p, s[0], s[1] };
  BgsProblem problem = fixture_problem_law (&fx, delta_free, TRUE, law);
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double dq[3] = { 0 };
  BgsResult result;
  memset (f_out, 0, 3 * sizeof (double));
  bgs_solve (solver, &problem, f_out, dq, &result);
  check_laws (&fx, solver, &problem, f_out, dq, &result);
  fixture_clear (&fx);
}

static void
test_cone_and_pyramid_closed_forms (void)
{
  const double r = 0.04, fn = 0.08, root = sqrt (10);
  const LawCase cases[] = {
    { "diagonal", { 0.006, 0.006 }, { -0.024, -0.024 }, { -r / 2, -r / 2 } },
    { "along t1", { 0.03, 0 }, { -r, 0 }, { -r, 0 } },
    { "corner", { 0.03, 0.01 }, { -r * 3 / root, -r * 1 / root }, { -r, 0 } },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      double cone[3], pyramid[3];
      solve_particle (CWB_FRICTION_CONE, cases[k].s, cone);
      solve_particle (CWB_FRICTION_PYRAMID, cases[k].s, pyramid);
      g_test_message ("%s: cone (%.6g, %.6g), pyramid (%.6g, %.6g)", cases[k].name, cone[1],
                      cone[2], pyramid[1], pyramid[2]);
      for (int a = 0; a < 2; a++)
        {
          g_assert_cmpfloat (fabs (cone[1 + a] - cases[k].cone[a]), <, BGS_FORCE_TOLERANCE * fn);
          g_assert_cmpfloat (fabs (pyramid[1 + a] - cases[k].pyramid[a]), <,
                             BGS_FORCE_TOLERANCE * fn);
        }
      g_assert_cmpfloat (fabs (cone[0] - fn), <, BGS_FORCE_TOLERANCE * fn);
      g_assert_cmpfloat (fabs (pyramid[0] - fn), <, BGS_FORCE_TOLERANCE * fn);
    }

  /* The check tells the laws apart: on the diagonal the cone's sticking force lies outside
   * the pyramid, and the pyramid's sliding force, inside the cone, does not oppose the slip
   * it leaves (0.001, 0.001) the way the cone demands. The forces and slips are exact here;
   * a 1e-9 tolerance only has to stay far below their 1e-3 differences. */
  const double c = 0.25, tolerance = 1e-9;
  const double stick[2] = { -0.024, -0.024 }, no_slip[2] = { 0, 0 };
  g_assert_cmpuint (cwb_contact_law_check (CWB_FRICTION_PYRAMID, 0.5, 0, fn, stick, no_slip,
                                           tolerance, tolerance),
                    &, CWB_CONTACT_LAW_FRICTION_SET);
  const double face[2] = { -r / 2, -r / 2 };
  const double left[2] = { 0.006 + c * face[0], 0.006 + c * face[1] };
  g_assert_cmpuint (cwb_contact_law_check (CWB_FRICTION_CONE, 0.5, 0, fn, face, left,
                                           tolerance, tolerance), ==, CWB_CONTACT_LAW_SLIP);
  g_assert_cmpuint (cwb_contact_law_check (CWB_FRICTION_PYRAMID, 0.5, 0, fn, face, left,
                                           tolerance, tolerance), ==, 0);
}

/* Five frictional contacts between three particles of anisotropic compliance and the floor,
 * coupled through the particles they share: no closed form, but each contact must satisfy
 * the laws of its friction set, and the free displacements are chosen so that each set
 * leaves some contacts open, some sticking and some sliding. */
static void
check_coupled (CwbFrictionLaw law)
{
  const double compliance[3] = { 1.0, 0.5, 2.0 };
  Fixture fx;
  fixture_init (&fx, 3, compliance);
  const double scale[3][3] = { { 1, 0.3, 1 }, { 0.5, 1, 2 }, { 1, 1.5, 0.7 } };
  memcpy (fx.axis_scale, scale, sizeof scale);
  const double x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 }, z[3] = { 0, 0, 1 };
  const double oblique[3] = { 0.6, 0.8, 0 }, across[3] = { -0.8, 0.6, 0 };
  add_friction_frame (&fx, 0, -1, 0.5, z, x, y);          /* 0 on the floor */
  add_friction_frame (&fx, 1, -1, 0.8, z, x, y);          /* 1 on the floor */
  add_friction_frame (&fx, 1, 0, 0.3, x, y, z);           /* 1 against 0 */
  add_friction_frame (&fx, 2, -1, 0.5, z, x, y);          /* 2 above the floor */
  add_friction_frame (&fx, 2, 1, 0.6, oblique, across, z);   /* 2 against 1, oblique */
  const double delta_free[15] = { -0.05, 0.02, -0.01,
                                  -0.08, 0.001, 0.002,
                                  -0.02, 0.03, 0.0,
                                  0.01, 0.05, 0.05,
                                  -0.03, -0.01, 0.02 };
  BgsProblem problem = fixture_problem_law (&fx, delta_free, TRUE, law);
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double f[15] = { 0 }, dq[9] = { 0 };
  BgsResult result;
  bgs_solve (solver, &problem, f, dq, &result);
  g_test_message ("%s: %d sweeps, residual %.3g", law == CWB_FRICTION_PYRAMID ? "pyramid" : "cone",
                  result.iterations, result.residual);
  LawCounts counts = check_laws (&fx, solver, &problem, f, dq, &result);
  g_test_message ("open %d, stick %d, slip %d", counts.open, counts.stick, counts.slip);
  g_assert_cmpint (counts.open, >, 0);
  g_assert_cmpint (counts.stick, >, 0);
  g_assert_cmpint (counts.slip, >, 0);
  fixture_clear (&fx);
}

static void
test_coupled_cone (void)
{
  check_coupled (CWB_FRICTION_CONE);
}

static void
test_coupled_pyramid (void)
{
  check_coupled (CWB_FRICTION_PYRAMID);
}

/* Two groups of particles that share no body, {0, 1} and {2, 3}, each on the floor and
 * against each other with friction: solved as two islands (each swept until its own
 * residual reaches the tolerance) and as one. Each island's problem has one solution that
 * both runs approach within their stopping tolerance, so the forces agree to
 * BGS_FORCE_TOLERANCE (relative, as in the tests above); the islands stop each on its own,
 * so they take no more block solves than the global run. Then a solve started from its own
 * solution (a warm start that is exact) stops after one sweep. */
static void
test_islands_match_global (void)
{
  const double compliance[4] = { 1.0, 0.5, 2.0, 0.1 };
  Fixture fx;
  fixture_init (&fx, 4, compliance);
  const double x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 }, z[3] = { 0, 0, 1 };
  add_friction_frame (&fx, 0, -1, 0.5, z, x, y);
  add_friction_frame (&fx, 2, -1, 0.5, z, x, y);
  add_friction_frame (&fx, 1, 0, 0.6, z, x, y);
  add_friction_frame (&fx, 3, -1, 0.8, z, x, y);
  add_friction_frame (&fx, 3, 2, 0.3, x, y, z);
  const double delta_free[15] = { -0.05, 0.02, -0.01,
                                  -0.08, 0.001, 0.002,
                                  -0.02, 0.03, 0.0,
                                  -0.01, 0.05, 0.05,
                                  -0.03, -0.01, 0.02 };
  const uint32_t frame_island[5] = { 0, 1, 0, 1, 1 };
  BgsProblem global = fixture_problem (&fx, delta_free, TRUE);
  global.tolerance = 1e-14;
  BgsProblem islands = global;
  islands.frame_island = frame_island;
  islands.n_islands = 2;
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double f_global[15] = { 0 }, dq_global[12] = { 0 }, f[15] = { 0 }, dq[12] = { 0 };
  BgsResult r_global, r_islands;
  bgs_solve (solver, &global, f_global, dq_global, &r_global);
  bgs_solve (solver, &islands, f, dq, &r_islands);
  g_test_message ("global: %d sweeps; islands: %d sweeps at most, %.1f per block",
                  r_global.iterations, r_islands.iterations, r_islands.mean_sweeps);
  g_assert_cmpuint (r_global.islands, ==, 1);
  g_assert_cmpuint (r_islands.islands, ==, 2);
  g_assert_cmpuint (r_islands.capped_islands, ==, 0);
  g_assert_cmpfloat (r_islands.mean_sweeps, <=, r_global.mean_sweeps);
  double scale = 0;
  for (int i = 0; i < 15; i++)
    scale = MAX (scale, fabs (f_global[i]));
  g_assert_cmpfloat (scale, >, 0);
  for (int i = 0; i < 15; i++)
    g_assert_cmpfloat (fabs (f[i] - f_global[i]), <=, BGS_FORCE_TOLERANCE * scale);

  /* Started from its solution, the first sweep moves no row beyond the tolerance. */
  double dq_warm[12] = { 0 };
  BgsResult r_warm;
  bgs_solve (solver, &islands, f, dq_warm, &r_warm);
  g_assert_cmpint (r_warm.iterations, ==, 1);
  fixture_clear (&fx);
}

/* The post-solve check tells a wrong answer: the cone's solution of the diagonal case,
 * measured as if the pyramid had been asked for, lies outside the pyramid by
 * 2 x 0.024 - 0.04 = 0.008 N, and misses maximal dissipation by its distance. */
static void
test_check_reports_violations (void)
{
  const double c = 0.25;
  Fixture fx;
  fixture_init (&fx, 1, &c);
  const double n[3] = { 0, 0, 1 }, t1[3] = { 1, 0, 0 }, t2[3] = { 0, 1, 0 };
  add_friction_frame (&fx, 0, -1, 0.5, n, t1, t2);
  const double delta_free[3] = { -0.02, 0.006, 0.006 };
  BgsProblem problem = fixture_problem_law (&fx, delta_free, TRUE, CWB_FRICTION_CONE);
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double f[3] = { 0 }, dq[3] = { 0 };
  BgsResult result;
  bgs_solve (solver, &problem, f, dq, &result);
  BgsCheck check;
  bgs_check (solver, &problem, f, dq, &check);
  g_assert_cmpfloat (check.friction_excess, <=, CWB_CONTACT_LAW_RELATIVE_TOLERANCE);
  problem.friction_law = CWB_FRICTION_PYRAMID;
  bgs_check (solver, &problem, f, dq, &check);
  g_assert_cmpfloat (fabs (check.friction_excess - 0.008), <, BGS_FORCE_TOLERANCE);
  fixture_clear (&fx);
}

/* dq = C H^T f for the fixture's rows, summed here from H's entries. */
static void
fixture_displacement (Fixture *fx, const double *f, double *dq)
{
  memset (dq, 0, 3 * fx->n_bodies * sizeof (double));
  const size_t *start = (const size_t *) fx->row_start->data;
  const CwbDofEntry *entries = (const CwbDofEntry *) fx->entries->data;
  for (size_t i = 0; i < fx->rows->len; i++)
    for (size_t e = start[i]; e < start[i + 1]; e++)
      dq[3 * entries[e].body + entries[e].dof]
        += fx->compliance[entries[e].body] * fx->axis_scale[entries[e].body][entries[e].dof]
           * entries[e].value * f[i];
}

/* ---- the direct start (island_direct.h) ------------------------------------------------ */

/* C^-1 of a fixture particle, column-major: diag (1 / (c_k s_d)). */
static const double *
particle_stiffness (void *data, uint32_t body)
{
  Fixture *fx = data;
  static double stiffness[16][9];
  g_assert_cmpuint (body, <, G_N_ELEMENTS (stiffness));
  memset (stiffness[body], 0, sizeof stiffness[body]);
  for (int k = 0; k < 3; k++)
    stiffness[body][4 * k] = 1 / (fx->compliance[body] * fx->axis_scale[body][k]);
  return stiffness[body];
}

static const double *
no_stiffness (void *data, uint32_t body)
{
  return NULL;
}

/* Two redundant rows on one particle (C = c I, both rows along z, so W = c [[1, 1], [1, 1]],
 * singular): the direct solve changes the warm forces by the least that brings the rows to
 * their targets, (W + eps I) df = -r, df = -r / (2c + eps) on each, keeping the warm start's
 * split between them. Tolerance: the 6x6 Cholesky solve and the division by eps cost
 * about cond (K) = 2c / eps times the rounding unit; 1e-9 relative leaves room above that. */
static void
test_direct_least_change (void)
{
  const double c = 0.5, eps = 1e-4, r = -0.02;
  Fixture fx;
  fixture_init (&fx, 1, &c);
  const double z[3] = { 0, 0, 1 };
  add_normal_frame (&fx, 0, -1, z);
  add_normal_frame (&fx, 0, -1, z);
  BgsProblem problem = fixture_problem (&fx, (const double[2]){ 0, 0 }, FALSE);
  const size_t rows[2] = { 0, 1 };
  const double residual[2] = { r, r }, force[2] = { 3, 1 };
  DirectProblem direct = {
    .n_active = 2, .rows = rows, .residual = residual, .force = force, .epsilon = eps,
    .h = problem.h, .bodies = fx.bodies, .stiffness = particle_stiffness,
    .stiffness_data = &fx,
  };
  g_autoptr (IslandDirect) solver = island_direct_new ();
  double solved[2];
  g_assert_true (island_direct_solve (solver, &direct, solved));
  double df = -r / (2 * c + eps);
  for (int k = 0; k < 2; k++)
    g_assert_cmpfloat (fabs (solved[k] - (force[k] + df)), <, 1e-9 * fabs (df));
  /* The rows reach their targets up to eps |df|: r + W df = -eps df. */
  g_assert_cmpfloat (fabs (r + 2 * c * df + eps * df), <, 1e-9 * fabs (r));
  /* Solved again on the same pattern (one body, no off-diagonal block: the kept matrix and
   * analysis are reused), the same forces. */
  double again[2];
  g_assert_true (island_direct_solve (solver, &direct, again));
  g_assert_cmpmem (again, sizeof again, solved, sizeof solved);
  /* A body without C^-1 (one kept as an operator) refuses the solve, leaving the output. */
  direct.stiffness = no_stiffness;
  double untouched[2] = { 7, 7 };
  g_assert_false (island_direct_solve (solver, &direct, untouched));
  g_assert_cmpfloat (untouched[0], ==, 7);
  g_assert_cmpfloat (untouched[1], ==, 7);
  fixture_clear (&fx);
}

/* A column of four particles on the ground, each contact given twice (redundant frames:
 * 24 rows, the direct start's minimum), sticking under a change of load from one step to
 * the next. From the last step's forces, the sweeps alone and the direct start reach the
 * same motion (unique: every contact sticks, so every row's value is its target), the
 * direct start in fewer sweeps. Tolerance: both stop at 1e-15 m per sweep; the motions
 * agree to BGS_FORCE_TOLERANCE of their size. */
/* The rows' new forces against the dense reference: (W + eps I) df = -r with W = H C H^T
 * from the fixture, solved by LAPACK. */
/* As check_direct_against_dense, with K's pattern made of `pattern` (n_pattern rows, a
 * superset of the active rows; NULL: the active rows) under operator `operator_id`. */
static void
check_direct_with_pattern (IslandDirect *solver, Fixture *fx, const size_t *rows, size_t n,
                           const double *residual, const double *force, double eps,
                           const size_t *pattern, size_t n_pattern, guint64 operator_id)
{
  BgsProblem problem = fixture_problem (fx, (const double[16]){ 0 }, FALSE);
  DirectProblem direct = {
    .n_active = n, .rows = rows, .residual = residual, .force = force, .epsilon = eps,
    .h = problem.h, .bodies = fx->bodies, .stiffness = particle_stiffness,
    .stiffness_data = fx, .operator_id = operator_id, .n_pattern_rows = n_pattern,
    .pattern_rows = pattern,
  };
  double solved[8], moved[3 * FIXTURE_MAX_BODIES] = { 0 };
  direct.displacement = moved;
  g_assert_cmpuint (n, <=, G_N_ELEMENTS (solved));
  g_assert_true (island_direct_solve (solver, &direct, solved));
  /* The displacement it adds is that of its change of force, C H_A^T df_A, to W_ii /
   * epsilon times round-off (island_direct.h: they differ by C rho / epsilon, rho the
   * solve's residual): 1e-10 of the largest move. */
  size_t m_rows = fx->rows->len, nv = 3 * fx->n_bodies;
  g_autofree double *df_all = g_new0 (double, m_rows);
  for (size_t i = 0; i < n; i++)
    df_all[rows[i]] = solved[i] - force[i];
  double expected[3 * FIXTURE_MAX_BODIES], largest = 0;
  fixture_displacement (fx, df_all, expected);
  for (size_t d = 0; d < nv; d++)
    largest = MAX (largest, fabs (expected[d]));
  for (size_t d = 0; d < nv; d++)
    g_assert_cmpfloat (fabs (moved[d] - expected[d]), <=, 1e-10 * largest);
  size_t m = fx->rows->len;
  g_autofree double *w = g_new (double, m * m);
  dense_w (fx, w);
  double a[64], df[8];
  int pivots[8];
  for (size_t i = 0; i < n; i++)
    {
      for (size_t j = 0; j < n; j++)
        a[i * n + j] = w[rows[i] * m + rows[j]] + (i == j ? eps : 0);
      df[i] = -residual[i];
    }
  g_assert_cmpint (LAPACKE_dgesv (LAPACK_ROW_MAJOR, (lapack_int) n, 1, a, (lapack_int) n,
                                  pivots, df, 1), ==, 0);
  for (size_t i = 0; i < n; i++)
    g_assert_cmpfloat (fabs (solved[i] - (force[i] + df[i])), <, 1e-9 * (1 + fabs (df[i])));
}

static void
check_direct_against_dense (IslandDirect *solver, Fixture *fx, const size_t *rows, size_t n,
                            const double *residual, const double *force, double eps)
{
  check_direct_with_pattern (solver, fx, rows, n, residual, force, eps, NULL, 0, 0);
}

/* Four particles of anisotropic compliance, rows along slanted directions between them and
 * to the ground, so that K has full off-diagonal 3x3 blocks above and below the diagonal. */
static void
coupled_fixture_init (Fixture *fx)
{
  const double compliance[4] = { 0.5, 0.2, 1.0, 0.3 };
  fixture_init (fx, 4, compliance);
  const double scale[4][3] = { { 1, 2, 0.5 }, { 0.7, 1, 1.3 }, { 1, 1, 1 }, { 2, 0.4, 1 } };
  memcpy (fx->axis_scale, scale, sizeof scale);
  const int pairs[6][2] = { { 0, -1 }, { 1, 0 }, { 2, 1 }, { 3, 2 }, { 0, 3 }, { 2, -1 } };
  const double directions[6][3] = { { 0.3, 0.2, 1 }, { 1, 0.5, 0.2 }, { 0.2, 1, 0.4 },
                                    { 0.5, 0.5, 1 }, { 1, -1, 0.3 }, { 0, 0.6, 0.8 } };
  for (int k = 0; k < 6; k++)
    {
      double d[3];
      cwb_v3_copy (d, directions[k]);
      cwb_v3_normalize (d);
      add_normal_frame (fx, pairs[k][0], pairs[k][1], d);
    }
}

/* The coupled fixture's six rows: two sets of residuals and the forces they start from. */
static const double coupled_residual[6] = { -0.02, 0.01, -0.005, 0.003, -0.01, 0.002 };
static const double coupled_other_residual[6] = { 0.004, -0.03, 0.01, -0.002, 0.006, -0.01 };
static const double coupled_force[6] = { 3, 1, 0, 2, 0.5, 1 };

/* Four particles of anisotropic compliance, rows along slanted directions between them and
 * to the ground, so that K has full off-diagonal 3x3 blocks above and below the diagonal:
 * the direct solve matches the dense one; solved again with new values on the same rows
 * (the kept matrix and analysis) and on a subset of them (a new pattern). Tolerance: K's
 * condition is about max W_ii / eps = 1e3 here; 1e-9 relative leaves room above the
 * rounding of both solves. */
static void
test_direct_coupled_bodies (void)
{
  Fixture fx;
  coupled_fixture_init (&fx);
  g_autoptr (IslandDirect) solver = island_direct_new ();
  const double eps = 1e-3;
  const size_t all[6] = { 0, 1, 2, 3, 4, 5 };
  check_direct_against_dense (solver, &fx, all, 6, coupled_residual, coupled_force, eps);
  check_direct_against_dense (solver, &fx, all, 6, coupled_other_residual,
                              (const double[6]){ 0, 2, 1, 0.3, 4, 0 }, eps);
  const size_t some[3] = { 1, 3, 4 };
  check_direct_against_dense (solver, &fx, some, 3, (const double[3]){ -0.01, 0.02, 0.005 },
                              (const double[3]){ 1, 1, 1 }, eps);
  fixture_clear (&fx);
}

/* K's pattern made of the island's rows (DirectProblem.pattern_rows) while the active rows
 * change under one operator: the analysis is made once and kept, whatever the order the
 * pattern rows come in, and each solve still matches the dense one (the bodies and pairs
 * with no active row are blocks of zeros and the bodies' own eps C^-1). Another operator
 * numbers the bodies again, by their body numbers: the same bodies and pairs, in whatever
 * order its rows come, keep the pattern and its analysis (a kept operator's island lists its
 * rows in its sweep's order, which changes from step to step); another pattern is analysed
 * anew. The coupled bodies' fixture; tolerance of the dense check as there. */
static void
test_direct_pattern_kept (void)
{
  Fixture fx;
  coupled_fixture_init (&fx);
  g_autoptr (IslandDirect) solver = island_direct_new ();
  const double eps = 1e-3;
  const size_t island[6] = { 0, 1, 2, 3, 4, 5 }, shuffled[6] = { 4, 2, 0, 5, 3, 1 };
  const double *residual = coupled_residual, *force = coupled_force;
  check_direct_with_pattern (solver, &fx, island, 6, residual, force, eps, island, 6, 5);
  g_assert_cmpuint (island_direct_analyses (solver), ==, 1);
  /* Rows 1, 3, 4 couple particles 0-1, 2-3 and 0-3: pair 1-2 and the ground rows are not
   * active, particle 2's rows are one. */
  const size_t some[3] = { 1, 3, 4 }, one[1] = { 2 }, ground[2] = { 0, 5 };
  check_direct_with_pattern (solver, &fx, some, 3, residual, force, eps, shuffled, 6, 5);
  check_direct_with_pattern (solver, &fx, one, 1, residual, force, eps, island, 6, 5);
  check_direct_with_pattern (solver, &fx, ground, 2, residual, force, eps, shuffled, 6, 5);
  g_assert_cmpuint (island_direct_analyses (solver), ==, 1);
  /* Another operator numbers the bodies anew, in the order of their numbers: in the first
   * order of rows or in another (rows 4, 2 and 0 first), the same pattern and analysis. Fewer
   * pattern rows (pair 1-2 gone): another. */
  check_direct_with_pattern (solver, &fx, some, 3, residual, force, eps, island, 6, 6);
  g_assert_cmpuint (island_direct_analyses (solver), ==, 1);
  check_direct_with_pattern (solver, &fx, some, 3, residual, force, eps, shuffled, 6, 7);
  g_assert_cmpuint (island_direct_analyses (solver), ==, 1);
  check_direct_with_pattern (solver, &fx, some, 3, residual, force, eps, some, 3, 7);
  g_assert_cmpuint (island_direct_analyses (solver), ==, 2);
  fixture_clear (&fx);
}

/* A new active set on the factored operator modifies the kept factor (rank-one updates for
 * the rows that join, downdates for those that leave) instead of factoring K again: each
 * solve matches the dense one for its own rows, with the factor's epsilon while the
 * problem's stays within a tenth of it (a settled stack's moves by hundredths of a percent);
 * past that, or once the rows changed since the factorisation outnumber the active rows, K
 * is factored afresh (the count of modifications stays). The coupled bodies' fixture;
 * tolerance of the dense check as there (the updates are backward stable: the factor is
 * exact to the rounding of K). */
static void
test_direct_factor_modified (void)
{
  Fixture fx;
  coupled_fixture_init (&fx);
  g_autoptr (IslandDirect) solver = island_direct_new ();
  const double eps = 1e-3;
  const size_t island[6] = { 0, 1, 2, 3, 4, 5 };
  const double *residual = coupled_residual, *other = coupled_other_residual;
  const double *force = coupled_force;
  check_direct_with_pattern (solver, &fx, island, 6, residual, force, eps, island, 6, 5);
  g_assert_cmpuint (island_direct_modifications (solver), ==, 0);
  /* Row 5 leaves (a downdate), then comes back with row 0 gone (an update and a downdate),
   * then all six with other residuals (an update). */
  const size_t five[5] = { 0, 1, 2, 3, 4 }, last_five[5] = { 1, 2, 3, 4, 5 };
  check_direct_with_pattern (solver, &fx, five, 5, residual, force, eps, island, 6, 5);
  g_assert_cmpuint (island_direct_modifications (solver), ==, 1);
  check_direct_with_pattern (solver, &fx, last_five, 5, other, force, eps, island, 6, 5);
  g_assert_cmpuint (island_direct_modifications (solver), ==, 2);
  /* 1 + 2 rows changed so far; one more (3 of 6) keeps within the turnover. */
  check_direct_with_pattern (solver, &fx, island, 6, other, force, eps, island, 6, 5);
  g_assert_cmpuint (island_direct_modifications (solver), ==, 3);
  /* The same rows in another order: the same K, its factor modified by nothing. */
  const size_t reordered[6] = { 5, 4, 3, 2, 1, 0 };
  check_direct_with_pattern (solver, &fx, reordered, 6, residual, force, eps, island, 6, 5);
  g_assert_cmpuint (island_direct_modifications (solver), ==, 3);
  /* Three rows leave (4 + 3 changed since the factorisation, more than the 3 active rows):
   * factored afresh. */
  const size_t three[3] = { 1, 3, 4 }, two[2] = { 1, 3 };
  check_direct_with_pattern (solver, &fx, three, 3, residual, force, eps, island, 6, 5);
  g_assert_cmpuint (island_direct_modifications (solver), ==, 3);
  /* From it, one row leaves under an epsilon 5 % larger: modified, keeping the factor's
   * epsilon; the forces are those of a fresh solver with the factor's epsilon (to the
   * rounding), not of the problem's. */
  BgsProblem problem = fixture_problem (&fx, (const double[16]){ 0 }, FALSE);
  DirectProblem direct = {
    .n_active = 2, .rows = two, .residual = other, .force = force, .epsilon = 1.05 * eps,
    .h = problem.h, .bodies = fx.bodies, .stiffness = particle_stiffness,
    .stiffness_data = &fx, .operator_id = 5, .n_pattern_rows = 6, .pattern_rows = island,
  };
  double modified[2], fresh[2], own[2];
  g_assert_true (island_direct_solve (solver, &direct, modified));
  g_assert_cmpuint (island_direct_modifications (solver), ==, 4);
  g_autoptr (IslandDirect) reference = island_direct_new ();
  g_autoptr (IslandDirect) reference_own = island_direct_new ();
  g_assert_true (island_direct_solve (reference_own, &direct, own));
  direct.epsilon = eps;
  g_assert_true (island_direct_solve (reference, &direct, fresh));
  for (int k = 0; k < 2; k++)
    {
      double df = fresh[k] - force[k];
      g_assert_cmpfloat (fabs (modified[k] - fresh[k]), <, 1e-9 * (1 + fabs (df)));
      g_assert_cmpfloat (fabs (own[k] - fresh[k]), >, 1e-6 * fabs (df));
    }
  /* The row comes back: modified again (2 rows changed, within the 3 active). */
  check_direct_with_pattern (solver, &fx, three, 3, other, force, eps, island, 6, 5);
  g_assert_cmpuint (island_direct_modifications (solver), ==, 5);
  /* Twice the epsilon, or another operator: factored afresh, never modified. */
  check_direct_with_pattern (solver, &fx, three, 3, other, force, 2 * eps, island, 6, 5);
  check_direct_with_pattern (solver, &fx, two, 2, other, force, 2 * eps, island, 6, 6);
  g_assert_cmpuint (island_direct_modifications (solver), ==, 5);
  fixture_clear (&fx);
}

/* A solve on the operator, active rows and epsilon of the last factored solve reuses its
 * factorisation (DirectProblem.operator_id names the operator: same id, same H and C^-1).
 * Seen by changing the bodies' compliance between two solves under one id: the second
 * gives, bit for bit, what a fresh solver gives with the first compliance (the factor was
 * reused, only the right-hand side is new), while id 0 or another id factors the new K,
 * which the dense solve confirms. Tolerance of the dense check as in
 * test_direct_coupled_bodies. */
static void
test_direct_factor_reused (void)
{
  const double compliance[3] = { 0.5, 0.2, 1.0 };
  Fixture fx;
  fixture_init (&fx, 3, compliance);
  const int pairs[4][2] = { { 0, -1 }, { 1, 0 }, { 2, 1 }, { 2, -1 } };
  const double directions[4][3] = { { 0.3, 0.2, 1 }, { 1, 0.5, 0.2 }, { 0.2, 1, 0.4 },
                                    { 0, 0.6, 0.8 } };
  for (int k = 0; k < 4; k++)
    {
      double d[3];
      cwb_v3_copy (d, directions[k]);
      cwb_v3_normalize (d);
      add_normal_frame (&fx, pairs[k][0], pairs[k][1], d);
    }
  BgsProblem problem = fixture_problem (&fx, (const double[4]){ 0 }, FALSE);
  const size_t rows[4] = { 0, 1, 2, 3 };
  const double first[4] = { -0.02, 0.01, -0.005, 0.003 };
  const double second[4] = { 0.004, -0.03, 0.01, -0.002 };
  const double force[4] = { 3, 1, 0, 2 };
  DirectProblem direct = {
    .n_active = 4, .rows = rows, .residual = first, .force = force, .epsilon = 1e-3,
    .h = problem.h, .bodies = fx.bodies, .stiffness = particle_stiffness,
    .stiffness_data = &fx, .operator_id = 7,
  };
  g_autoptr (IslandDirect) solver = island_direct_new ();
  double solved[4], reused[4], fresh[4];
  g_assert_true (island_direct_solve (solver, &direct, solved));
  /* The second residuals against the first compliance, from a solver with no factor. */
  g_autoptr (IslandDirect) reference = island_direct_new ();
  direct.residual = second;
  g_assert_true (island_direct_solve (reference, &direct, fresh));
  /* The compliance doubles; the same id says the operator is the same: reused. */
  for (int b = 0; b < 3; b++)
    fx.compliance[b] *= 2;
  g_assert_true (island_direct_solve (solver, &direct, reused));
  g_assert_cmpmem (reused, sizeof reused, fresh, sizeof fresh);
  /* Another id, or none: K is factored again, with the new compliance. */
  direct.operator_id = 8;
  g_assert_true (island_direct_solve (solver, &direct, reused));
  g_assert_cmpfloat (fabs (reused[0] - fresh[0]), >, 1e-6);
  check_direct_against_dense (solver, &fx, rows, 4, second, force, 1e-3);
  double again[4];
  direct.operator_id = 8;
  g_assert_true (island_direct_solve (solver, &direct, again));
  g_assert_cmpmem (again, sizeof again, reused, sizeof reused);
  /* Other rows under the same id: a subset changes K (its factor downdated by the row that
   * left, /solver/bgs/direct/factor-modified), which the dense solve confirms. */
  direct.n_active = 3;
  g_assert_true (island_direct_solve (solver, &direct, again));
  check_direct_against_dense (solver, &fx, rows, 3, second, force, 1e-3);
  fixture_clear (&fx);
}

static void
test_direct_start_matches_sweeps (void)
{
  const double compliance[4] = { 1.0, 0.5, 2.0, 0.1 };
  Fixture fx;
  fixture_init (&fx, 4, compliance);
  const double x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 }, z[3] = { 0, 0, 1 };
  for (int copy = 0; copy < 2; copy++)
    for (int k = 0; k < 4; k++)
      add_friction_frame (&fx, k, k - 1, 0.8, z, x, y);
  g_assert_cmpuint (fx.rows->len, ==, BGS_DIRECT_MIN_ROWS);
  /* Free displacements: particle k sinks by d_k and slides by s_k along x; a contact's
   * normal value is the upper minus the lower particle's, its tangent value likewise. */
  const double sink_a[4] = { 0.04, 0.03, 0.05, 0.02 }, slide_a[4] = { 0.001, -0.002, 0.0, 0.001 };
  const double sink_b[4] = { 0.05, 0.02, 0.06, 0.03 }, slide_b[4] = { 0.002, -0.001, 0.001, 0.0 };
  double delta_a[24], delta_b[24];
  for (int copy = 0; copy < 2; copy++)
    for (int k = 0; k < 4; k++)
      {
        int at = 12 * copy + 3 * k;
        double below_a = k > 0 ? sink_a[k - 1] : 0, below_b = k > 0 ? sink_b[k - 1] : 0;
        double under_a = k > 0 ? slide_a[k - 1] : 0, under_b = k > 0 ? slide_b[k - 1] : 0;
        delta_a[at] = below_a - sink_a[k];
        delta_b[at] = below_b - sink_b[k];
        delta_a[at + 1] = slide_a[k] - under_a;
        delta_b[at + 1] = slide_b[k] - under_b;
        delta_a[at + 2] = delta_b[at + 2] = 0;
      }
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  BgsProblem step_a = fixture_problem (&fx, delta_a, TRUE);
  double f_last[24] = { 0 }, dq_last[12] = { 0 };
  BgsResult result;
  bgs_solve (solver, &step_a, f_last, dq_last, &result);
  g_assert_cmpuint (result.capped_islands, ==, 0);

  BgsProblem step_b = fixture_problem (&fx, delta_b, TRUE);
  double f_sweeps[24], f_direct[24], dq_sweeps[12] = { 0 }, dq_direct[12] = { 0 };
  memcpy (f_sweeps, f_last, sizeof f_last);
  memcpy (f_direct, f_last, sizeof f_last);
  BgsResult r_sweeps, r_direct;
  bgs_solve (solver, &step_b, f_sweeps, dq_sweeps, &r_sweeps);
  step_b.stiffness = particle_stiffness;
  step_b.stiffness_data = &fx;
  bgs_solve (solver, &step_b, f_direct, dq_direct, &r_direct);
  g_test_message ("from the last step's forces: %d sweeps alone, %d after the direct start",
                  r_sweeps.iterations, r_direct.iterations);
  g_assert_cmpuint (r_sweeps.capped_islands, ==, 0);
  g_assert_cmpuint (r_direct.capped_islands, ==, 0);
  double scale = 0;
  for (int d = 0; d < 12; d++)
    scale = MAX (scale, fabs (dq_sweeps[d]));
  g_assert_cmpfloat (scale, >, 0);
  for (int d = 0; d < 12; d++)
    g_assert_cmpfloat (fabs (dq_direct[d] - dq_sweeps[d]), <=, BGS_FORCE_TOLERANCE * scale);
  g_assert_cmpint (r_direct.iterations, <, r_sweeps.iterations);

  /* A body with no C^-1 leaves the island to the sweeps: the same sweeps as without. */
  double f_none[24], dq_none[12] = { 0 };
  memcpy (f_none, f_last, sizeof f_last);
  step_b.stiffness = no_stiffness;
  BgsResult r_none;
  bgs_solve (solver, &step_b, f_none, dq_none, &r_none);
  g_assert_cmpint (r_none.iterations, ==, r_sweeps.iterations);
  fixture_clear (&fx);
}

/* The frames of a column of n particles standing on the ground along z, each contact given
 * `copies` times (redundant frames, all of one contact's copies after the other's), friction
 * mu_ground on the ground and mu between particles; tangents along x and y. */
static void
add_column_frames (Fixture *fx, int n, int copies, double mu_ground, double mu)
{
  const double x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 }, z[3] = { 0, 0, 1 };
  for (int copy = 0; copy < copies; copy++)
    for (int k = 0; k < n; k++)
      add_friction_frame (fx, k, k - 1, k == 0 ? mu_ground : mu, z, x, y);
}

/* The cold start: an island with no force on entry (its first step) starts from the direct
 * solve of every touching contact as sticking, corrected by what each solve asks of it. A
 * column of N particles (compliances 1 and 0.2 in turn) falling together 4 cm into the
 * ground while sliding 1 cm along it, each contact given twice (redundant frames): friction
 * 0.8 between the particles, 0.1 on the ground, which cannot hold the slide, so the first
 * guess (every contact sticks) asks the ground for more friction than it has and the
 * correction lets it slide. From zero force the sweeps alone carry the ground's push up the
 * column one contact per sweep; the cold start reaches the same motion (unique: the column
 * rises 4 cm and slides as one body) in a fraction of the sweeps. On the flush pyramids this
 * turned 21 (20 rows) and 7 (10 rows) capped first steps into converged ones
 * (docs/plugins/constraint.md). Tolerance: both solves stop at 1e-9 m of law error; the
 * motions agree to 1e-7 m, what that error can leave over the column's height, with room. */
static void
test_cold_start (void)
{
  enum { N = 12, ROWS = 6 * N };
  Fixture fx;
  fixture_init_column (&fx, N);
  add_column_frames (&fx, N, 2, 0.1, 0.8);
  g_assert_cmpuint (fx.rows->len, ==, ROWS);
  double delta[ROWS] = { 0 };
  for (int copy = 0; copy < 2; copy++)
    {
      delta[3 * N * copy] = -0.04;       /* the column falls 4 cm into the ground ... */
      delta[3 * N * copy + 1] = 0.01;    /* ... and slides 1 cm along it, all together */
    }
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  BgsProblem problem = fixture_problem (&fx, delta, TRUE);
  problem.tolerance = 1e-9;
  double f_sweeps[ROWS] = { 0 }, dq_sweeps[3 * N] = { 0 };
  BgsResult r_sweeps;
  bgs_solve (solver, &problem, f_sweeps, dq_sweeps, &r_sweeps);
  double f_cold[ROWS] = { 0 }, dq_cold[3 * N] = { 0 };
  problem.stiffness = particle_stiffness;
  problem.stiffness_data = &fx;
  BgsResult r_cold;
  bgs_solve (solver, &problem, f_cold, dq_cold, &r_cold);
  g_test_message ("from zero force: %d sweeps alone, %d after the cold start",
                  r_sweeps.iterations, r_cold.iterations);
  g_assert_cmpuint (r_sweeps.capped_islands, ==, 0);
  g_assert_cmpuint (r_cold.capped_islands, ==, 0);
  for (int k = 0; k < N; k++)
    {
      /* As one body: up 4 cm, and along x as the bottom particle goes. */
      g_assert_cmpfloat (fabs (dq_sweeps[3 * k + 2] - 0.04), <=, 1e-7);
      g_assert_cmpfloat (fabs (dq_sweeps[3 * k] - dq_sweeps[0]), <=, 1e-7);
      for (int a = 0; a < 3; a++)
        g_assert_cmpfloat (fabs (dq_cold[3 * k + a] - dq_sweeps[3 * k + a]), <=, 1e-7);
    }
  /* The ground held part of the slide, at its friction's limit: the column slides. */
  g_assert_cmpfloat (dq_sweeps[0], <, 0);
  g_assert_cmpfloat (dq_sweeps[0], >, -0.01);
  g_assert_cmpint (4 * r_cold.iterations, <, r_sweeps.iterations);
  fixture_clear (&fx);
}

/* C^-1 of a fixture particle, counting the calls (the direct solve asks for every body's). */
static int stiffness_calls;

static const double *
counted_stiffness (void *data, uint32_t body)
{
  stiffness_calls++;
  return particle_stiffness (data, body);
}

/* The column of the cold-start test (HELD_N particles pressed 4 cm into the ground, friction
 * 0.8) solved from zero force to 1e-12 m: f gets its forces; returns its problem, whose
 * delta_free is `delta`. */
enum { HELD_N = 12, HELD_ROWS = 3 * HELD_N };

static BgsProblem
solve_held_column (Fixture *fx, BgsSolver *solver, double delta[HELD_ROWS],
                   double f[HELD_ROWS])
{
  fixture_init_column (fx, HELD_N);
  add_column_frames (fx, HELD_N, 1, 0.8, 0.8);
  memset (delta, 0, HELD_ROWS * sizeof (double));
  delta[0] = -0.04;
  BgsProblem problem = fixture_problem (fx, delta, TRUE);
  problem.tolerance = 1e-12;
  double dq[3 * HELD_N] = { 0 };
  memset (f, 0, HELD_ROWS * sizeof (double));
  BgsResult result;
  bgs_solve (solver, &problem, f, dq, &result);
  g_assert_cmpuint (result.capped_islands, ==, 0);
  return problem;
}

/* A warm start that already holds the laws to 1e-6 of the tolerance skips the direct solve
 * (DIRECT_SKIP_SHARE): the column of the cold-start test, solved to 1e-12 m, solved again
 * from its own forces at 1e-5 m asks no body for its C^-1 and stops after one sweep; from
 * those forces a tenth lower it factors and solves as before. */
static void
test_direct_skipped_when_held (void)
{
  enum { N = HELD_N, ROWS = HELD_ROWS };
  Fixture fx;
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double delta[ROWS], f[ROWS];
  BgsProblem problem = solve_held_column (&fx, solver, delta, f);
  BgsResult result;

  problem.tolerance = 1e-5;
  problem.stiffness = counted_stiffness;
  problem.stiffness_data = &fx;
  double f_held[ROWS], dq_held[3 * N] = { 0 };
  memcpy (f_held, f, sizeof f);
  stiffness_calls = 0;
  bgs_solve (solver, &problem, f_held, dq_held, &result);
  g_assert_cmpint (stiffness_calls, ==, 0);
  g_assert_cmpint (result.iterations, ==, 1);

  double f_lower[ROWS], dq_lower[3 * N] = { 0 };
  for (int i = 0; i < ROWS; i++)
    f_lower[i] = 0.9 * f[i];
  stiffness_calls = 0;
  bgs_solve (solver, &problem, f_lower, dq_lower, &result);
  g_assert_cmpint (stiffness_calls, >, 0);
  g_assert_cmpuint (result.capped_islands, ==, 0);
  fixture_clear (&fx);
}

/* A speculative row (BgsProblem.speculative: max (rate, gap), a contact open at the start of
 * the step) is no linear row: a warm island's direct start holds its force as it came and
 * solves the others. The column of the cold-start test solved to 1e-12 m, then started again
 * from 0.9 of its forces (so the direct solve runs) with no sweep after it: the contact
 * flagged keeps its force to the bit, and moves when not flagged. */
static void
test_direct_holds_speculative_rows (void)
{
  enum { N = HELD_N, ROWS = HELD_ROWS, FLAGGED = 5 };
  Fixture fx;
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double delta[ROWS], f[ROWS];
  BgsProblem problem = solve_held_column (&fx, solver, delta, f);
  BgsResult result;
  g_assert_cmpfloat (f[3 * FLAGGED], >, 0);

  problem.tolerance = 1e-9;
  problem.stiffness = particle_stiffness;
  problem.stiffness_data = &fx;
  problem.max_iterations = 0;
  guint8 flags[ROWS] = { 0 };
  flags[3 * FLAGGED] = 1;
  double started[2][ROWS];
  for (int flagged = 0; flagged < 2; flagged++)
    {
      problem.speculative = flagged ? flags : NULL;
      double dq_start[3 * N] = { 0 };
      for (int i = 0; i < ROWS; i++)
        started[flagged][i] = 0.9 * f[i];
      bgs_solve (solver, &problem, started[flagged], dq_start, &result);
    }
  g_assert_cmpfloat (started[1][3 * FLAGGED], ==, 0.9 * f[3 * FLAGGED]);
  g_assert_cmpfloat (fabs (started[0][3 * FLAGGED] - 0.9 * f[3 * FLAGGED]), >,
                     1e-3 * f[3 * FLAGGED]);
  fixture_clear (&fx);
}

/* A warm contact whose normal force is below SLIGHT_SHARE (1e-3) of its island's mean, and
 * whose law holds to the tolerance at that force, is left out of the direct solve with its
 * force held, as one without force is (the sweeps set it); one closing beyond the tolerance
 * stays in. A column of N particles pushed 4 cm up by the ground (the held column's frames),
 * its top particle 1e5 times lighter than the others, so that the top contact carries about
 * 1e-5 of the mean force: solved to 1e-12 m, then started again from 0.9 of its forces (every
 * particle moves by 0.9 of its push, so each contact's value stays within the tolerance) with
 * no sweep after the direct start: the top contact keeps its force to the bit while the
 * others are solved. Started from 0.1 of the top contact's force instead (the light particle
 * then lags 3.2 cm behind, far beyond the tolerance), the solve moves it too. */
static void
test_direct_leaves_slight_contacts (void)
{
  enum { N = HELD_N, ROWS = HELD_ROWS, TOP = N - 1, MIDDLE = N / 2 };
  Fixture fx;
  double compliance[N];
  for (int k = 0; k < N; k++)
    compliance[k] = k == TOP ? 1e5 : 1.0;
  fixture_init (&fx, N, compliance);
  add_column_frames (&fx, N, 1, 0.8, 0.8);
  double delta[ROWS] = { 0 };
  delta[0] = -0.04;
  BgsProblem problem = fixture_problem (&fx, delta, TRUE);
  problem.tolerance = 1e-12;
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double f[ROWS] = { 0 }, dq[3 * N] = { 0 };
  BgsResult result;
  bgs_solve (solver, &problem, f, dq, &result);
  g_assert_cmpuint (result.capped_islands, ==, 0);
  double mean = 0;
  for (int k = 0; k < N; k++)
    mean += f[3 * k] / N;
  g_assert_cmpfloat (f[3 * TOP], >, 0);
  g_assert_cmpfloat (f[3 * TOP], <, 1e-4 * mean);

  problem.tolerance = 1e-9;
  problem.stiffness = particle_stiffness;
  problem.stiffness_data = &fx;
  problem.max_iterations = 0;
  static const double top_share[2] = { 0.9, 0.1 };
  double started[2][ROWS];
  for (int k = 0; k < 2; k++)
    {
      double dq_start[3 * N] = { 0 };
      for (int i = 0; i < ROWS; i++)
        started[k][i] = 0.9 * f[i];
      started[k][3 * TOP] = top_share[k] * f[3 * TOP];
      bgs_solve (solver, &problem, started[k], dq_start, &result);
    }
  g_test_message ("top contact %.6g N (%.3g of the mean): from 0.9 of it, %.9g N after the "
                  "direct start; from 0.1 of it, %.9g N", f[3 * TOP], f[3 * TOP] / mean,
                  started[0][3 * TOP], started[1][3 * TOP]);
  g_assert_cmpfloat (started[0][3 * TOP], ==, 0.9 * f[3 * TOP]);
  g_assert_cmpfloat (fabs (started[0][3 * MIDDLE] - 0.9 * f[3 * MIDDLE]), >,
                     1e-3 * f[3 * MIDDLE]);
  g_assert_cmpfloat (fabs (started[1][3 * TOP] - 0.1 * f[3 * TOP]), >, 0.5 * f[3 * TOP]);
  fixture_clear (&fx);
}

/* Row i's value delta_free_i + H_i dq, summed from the fixture's entries. */
static double
fixture_row_value (const Fixture *fx, const double *delta_free, const double *dq, size_t i)
{
  const size_t *start = (const size_t *) fx->row_start->data;
  const CwbDofEntry *entries = (const CwbDofEntry *) fx->entries->data;
  double value = delta_free[i];
  for (size_t e = start[i]; e < start[i + 1]; e++)
    value += entries[e].value * dq[3 * entries[e].body + entries[e].dof];
  return value;
}

/* The flagged contact's value and force after a direct start (no sweep) of the held column
 * from 0.9 of its forces, with delta_free `delta_free` and the rows `speculative` flagged
 * (NULL: none). */
static double
value_after_direct_start (Fixture *fx, BgsSolver *solver, BgsProblem *problem,
                          const double *f, double *delta_free, const guint8 *speculative,
                          size_t row, double *force)
{
  double started[HELD_ROWS], dq[3 * HELD_N] = { 0 };
  for (int i = 0; i < HELD_ROWS; i++)
    started[i] = 0.9 * f[i];
  problem->delta_free = delta_free;
  problem->speculative = speculative;
  BgsResult result;
  bgs_solve (solver, problem, started, dq, &result);
  *force = started[row];
  return fixture_row_value (fx, delta_free, dq, row);
}

/* A loaded speculative row open beyond its pure rate (BgsProblem.speculative_rate) by at
 * most the tolerance is held at its rate by a warm island's direct start: the contact neither
 * closes nor opens, so its value after the start is that opening; open by more, it keeps its
 * force. The held column's flagged contact, its delta_free its rate plus an opening of 0.5
 * tolerance, then 2 tolerances, started from 0.9 of the column's forces with no sweep after
 * the direct start, against the same start with no row flagged (the row a linear one,
 * closed). The direct solve leaves every row off its target by DIRECT_COMPLIANCE (1e-4) of
 * what its change of force moves it (1e-5 m here, the column pressed 4 cm into the ground),
 * nearly alike in both: held, the value exceeds the closed one's by the opening, to 1e-2 of
 * it (measured 2.7e-3: the two starts' offsets differ by that much, their changes of force
 * differing by about the opening over W_ii); a closed row would be a whole opening off. */
static void
test_direct_holds_loaded_rate (void)
{
  enum { ROWS = HELD_ROWS, FLAGGED = 5 };
  Fixture fx;
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double delta[ROWS], f[ROWS];
  BgsProblem problem = solve_held_column (&fx, solver, delta, f);
  size_t row = 3 * FLAGGED;
  g_assert_cmpfloat (f[row], >, 0);

  problem.tolerance = 1e-9;
  problem.stiffness = particle_stiffness;
  problem.stiffness_data = &fx;
  problem.max_iterations = 0;
  problem.speculative_rate = delta;
  guint8 flags[ROWS] = { 0 };
  flags[row] = 1;
  const double openings[] = { 0.5, 2 };
  for (size_t k = 0; k < G_N_ELEMENTS (openings); k++)
    {
      double opening = openings[k] * problem.tolerance, shifted[ROWS];
      memcpy (shifted, delta, sizeof shifted);
      shifted[row] += opening;
      double closed_force, held_force;
      double closed = value_after_direct_start (&fx, solver, &problem, f, shifted, NULL, row,
                                                &closed_force);
      double held = value_after_direct_start (&fx, solver, &problem, f, shifted, flags, row,
                                              &held_force);
      g_test_message ("opening %.2g m: value %.9g m held, %.9g m closed; force %.9g held, "
                      "%.9g closed, 0.9 f %.9g", opening, held, closed, held_force,
                      closed_force, 0.9 * f[row]);
      if (openings[k] <= 1)
        g_assert_cmpfloat (fabs (held - closed - opening), <, 1e-2 * opening);
      else
        g_assert_cmpfloat (held_force, ==, 0.9 * f[row]);
    }
  fixture_clear (&fx);
}

/* The direct start of the held column from 0.9 of its forces, no sweep after it, with contact
 * `edge`'s tangential force set to `share` of its friction set's size; returns how much the
 * start changed that force, over the set's size (0 exactly where it was held). */
static double
edge_force_after_start (BgsSolver *solver, BgsProblem *problem, const double *f, int edge,
                        double share)
{
  enum { N = HELD_N, ROWS = HELD_ROWS };
  double started[ROWS], dq[3 * N] = { 0 };
  for (int i = 0; i < ROWS; i++)
    started[i] = 0.9 * f[i];
  double radius = 0.8 * started[3 * edge];   /* mu 0.8 (add_column_frames) */
  started[3 * edge + 1] = share * radius;
  BgsResult result;
  bgs_solve (solver, problem, started, dq, &result);
  g_assert_cmpfloat (started[3 * edge], >, 0);
  return (started[3 * edge + 1] - share * radius) / radius;
}

/* A contact whose tangential force is near its friction set's edge (EDGE_SHARE, 0.95 of it,
 * to STICK_SHARE, 0.99) is in doubt between sticking and sliding: on blocks of the structure
 * of the last direct solve (BgsProblem.structure_kept) it keeps the part it had there, so the
 * factor is not modified for it. The held column started from 0.9 of its forces, one contact
 * at 0.995 of its friction set (it slides: its tangential force is held, to the bit), then
 * at 0.97: on the same structure it still slides (held again), while a new structure or a new
 * solver lets it stick (the direct solve moves its tangential force to its row's target). */
static void
test_direct_edge_part_kept (void)
{
  enum { EDGE = 5 };
  Fixture fx;
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  double delta[HELD_ROWS], f[HELD_ROWS];
  BgsProblem problem = solve_held_column (&fx, solver, delta, f);
  problem.tolerance = 1e-9;
  problem.stiffness = particle_stiffness;
  problem.stiffness_data = &fx;
  problem.max_iterations = 0;

  g_assert_cmpfloat (edge_force_after_start (solver, &problem, f, EDGE, 0.995), ==, 0);
  problem.structure_kept = TRUE;
  double kept = edge_force_after_start (solver, &problem, f, EDGE, 0.97);
  problem.structure_kept = FALSE;
  double new_structure = edge_force_after_start (solver, &problem, f, EDGE, 0.97);
  g_autoptr (BgsSolver) fresh = bgs_solver_new ();
  double new_solver = edge_force_after_start (fresh, &problem, f, EDGE, 0.97);
  g_test_message ("change of the tangential force over the friction set's size: %.9g kept, "
                  "%.9g on a new structure, %.9g with a new solver", kept, new_structure,
                  new_solver);
  g_assert_cmpfloat (kept, ==, 0);
  g_assert_cmpfloat (fabs (new_structure), >, 0.1);
  g_assert_cmpfloat (new_solver, ==, new_structure);
  fixture_clear (&fx);
}

/* A kept operator (BgsProblem.operator_kept: the columns and blocks of an earlier problem of
 * the same structure) whose frames' heights no longer rise along its stored order is swept in
 * the order of the new problem's heights, as a freshly built one is: a column of particles
 * whose contacts' heights are reversed between two solves, one sweep each, gives bit for bit
 * the forces of a fresh build, and they differ from those of the old order (one Gauss-Seidel
 * sweep depends on its order). */
static void
test_kept_operator_order (void)
{
  enum { N = 6, ROWS = 3 * N };
  Fixture fx;
  fixture_init_column (&fx, N);
  add_column_frames (&fx, N, 1, 0.8, 0.8);
  CwbContactFrame *frames = (CwbContactFrame *) fx.frames->data;
  for (int k = 0; k < N; k++)
    frames[k].origin[2] = k;
  double delta[ROWS] = { 0 };
  delta[0] = -0.04;
  delta[3 * (N - 1)] = -0.01;
  BgsProblem problem = fixture_problem (&fx, delta, TRUE);
  problem.max_iterations = 1;
  problem.order_direction[2] = -1;   /* the highest contact first, as under gravity */
  g_autoptr (BgsSolver) keeping = bgs_solver_new ();
  double f_old[ROWS] = { 0 }, dq_old[3 * N] = { 0 };
  BgsResult result;
  bgs_solve (keeping, &problem, f_old, dq_old, &result);

  for (int k = 0; k < N; k++)
    frames[k].origin[2] = N - k;
  problem.frames = (const CwbContactFrame *) fx.frames->data;
  problem.operator_kept = TRUE;
  double f_kept[ROWS] = { 0 }, dq_kept[3 * N] = { 0 };
  bgs_solve (keeping, &problem, f_kept, dq_kept, &result);
  problem.operator_kept = FALSE;
  g_autoptr (BgsSolver) building = bgs_solver_new ();
  double f_built[ROWS] = { 0 }, dq_built[3 * N] = { 0 };
  bgs_solve (building, &problem, f_built, dq_built, &result);
  g_assert_cmpmem (f_kept, sizeof f_kept, f_built, sizeof f_built);
  g_assert_true (memcmp (f_built, f_old, sizeof f_old) != 0);
  fixture_clear (&fx);
}

/* A kept operator whose frames stay level walks each layer (frames level within a hundred
 * tolerances) in its stored order from a point and in a direction that change from solve to
 * solve (layered_order): three particles side by side on the ground, pressed into it and
 * against each other, their five contacts at one height, solved from zero force with one
 * sweep on the kept operator at each of 12 turns. Kept in one order, a settled pyramid's
 * layer left the same error behind at every step; the forces of one sweep depend on its
 * order, so the turns give at least two different results; a second solver given the same
 * turns gives the same forces bit for bit (the order is deterministic); swept to the
 * tolerance, every turn ends within it (docs/plugins/constraint.md, "The operator kept from
 * step to step"). */
static void
test_kept_operator_layers (void)
{
  enum { N = 3, FRAMES = N + N - 1, ROWS = 3 * FRAMES, TURNS = 12 };
  const double compliance[N] = { 1.0, 0.5, 0.8 };
  Fixture fx;
  fixture_init (&fx, N, compliance);
  const double x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 }, z[3] = { 0, 0, 1 };
  for (int k = 0; k < N; k++)
    add_friction_frame (&fx, k, -1, 0.5, z, x, y);
  for (int k = 1; k < N; k++)
    add_friction_frame (&fx, k, k - 1, 0.5, x, y, z);
  double delta[ROWS] = { 0 };
  for (int k = 0; k < FRAMES; k++)
    delta[3 * k] = -0.01 * (1 + 0.3 * k);
  BgsProblem problem = fixture_problem (&fx, delta, TRUE);
  problem.order_direction[2] = -1;
  problem.tolerance = 1e-12;
  g_autoptr (BgsSolver) one = bgs_solver_new ();
  g_autoptr (BgsSolver) two = bgs_solver_new ();
  double f[ROWS] = { 0 }, dq[3 * N] = { 0 };
  BgsResult result;
  bgs_solve (one, &problem, f, dq, &result);
  memset (f, 0, sizeof f);
  memset (dq, 0, sizeof dq);
  bgs_solve (two, &problem, f, dq, &result);

  problem.operator_kept = TRUE;
  double swept[TURNS][ROWS];
  int distinct = 1;
  for (int turn = 0; turn < TURNS; turn++)
    {
      problem.max_iterations = 1;
      double f_one[ROWS] = { 0 }, f_two[ROWS] = { 0 }, dq_one[3 * N] = { 0 }, dq_two[3 * N] = { 0 };
      bgs_solve (one, &problem, f_one, dq_one, &result);
      bgs_solve (two, &problem, f_two, dq_two, &result);
      g_assert_cmpmem (f_one, sizeof f_one, f_two, sizeof f_two);
      memcpy (swept[turn], f_one, sizeof f_one);
      gboolean seen = FALSE;
      for (int earlier = 0; earlier < turn && !seen; earlier++)
        seen = memcmp (swept[earlier], f_one, sizeof f_one) == 0;
      distinct += turn > 0 && !seen;
    }
  g_test_message ("%d distinct one-sweep results in %d turns", distinct, TURNS);
  g_assert_cmpint (distinct, >=, 2);
  problem.max_iterations = 10000;
  for (int turn = 0; turn < 4; turn++)
    {
      double f_full[ROWS] = { 0 }, dq_full[3 * N] = { 0 };
      bgs_solve (one, &problem, f_full, dq_full, &result);
      g_assert_cmpuint (result.capped_islands, ==, 0);
      g_assert_cmpfloat (result.residual, <=, problem.tolerance);
    }
  fixture_clear (&fx);
}

/* A solve on a kept operator continues the last one (last_solve.c): its guess is the last
 * forces row by row (bgs_last_forces), its displacement the last one's plus the rows whose
 * force differs, and the rows' values at the guess, where nothing but delta_free changed,
 * the last measure's plus that change, read from no column. A column of 8 particles on
 * tilted frames (normals on two of a particle's three DOFs: rows kept densely, tangents on
 * one: kept as entries) solved over 70 steps whose free motions change a little each step,
 * with a penalty displacement on entry in every third, and the direct start on: every step
 * gives the forces and the displacement of a solver that builds its operator and sums its
 * displacement afresh from the same guess, and the displacement is C H^T f plus the entry's.
 * Tolerance: 1e-12 relative for the two solvers against each other, round-off of sums taken
 * in another order (the carried displacement adds the change to the last sum; 70 steps pass
 * the refresh of every 64). Against C H^T f, 1e-10: the direct start moves dq by its solve's
 * own u, which differs from C H_A^T df_A by C rho / epsilon, rho = K u + H_A^T r its
 * residual (island_direct.h), about the rounding unit times |K| |u|: W_ii / epsilon = 1e4
 * times round-off, 2e-12 here, carried with the displacement up to its refresh. */
static void
test_kept_operator_continues (void)
{
  enum { N = 8, ROWS = 3 * N, NV = 3 * N, STEPS = 70 };
  Fixture fx;
  fixture_init_column (&fx, N);
  const double n[3] = { 0, 0.6, 0.8 }, t1[3] = { 1, 0, 0 }, t2[3] = { 0, 0.8, -0.6 };
  for (int k = 0; k < N; k++)
    add_friction_frame (&fx, k, k - 1, 0.5, n, t1, t2);
  CwbContactFrame *frames = (CwbContactFrame *) fx.frames->data;
  for (int k = 0; k < N; k++)
    frames[k].origin[2] = k;
  g_autoptr (BgsSolver) keeping = bgs_solver_new ();
  g_autoptr (BgsSolver) building = bgs_solver_new ();
  double f[ROWS] = { 0 }, delta[ROWS];
  double worst_f = 0, worst_dq = 0, worst_own = 0;
  for (int step = 0; step < STEPS; step++)
    {
      for (int k = 0; k < N; k++)
        {
          double wobble = 1e-3 * sin (0.7 * step + k);
          delta[3 * k] = -0.01 * (1 + 0.1 * wobble);
          delta[3 * k + 1] = 0.003 * (N - k) / N + 1e-4 * wobble;
          delta[3 * k + 2] = -0.001 * wobble;
        }
      BgsProblem problem = fixture_problem (&fx, delta, TRUE);
      problem.tolerance = 1e-10;
      problem.stiffness = particle_stiffness;
      problem.stiffness_data = &fx;
      problem.order_direction[2] = -1;
      problem.nv = NV;
      problem.operator_kept = step > 0;
      double entry[NV] = { 0 };
      if (step % 3 == 1)
        for (int d = 0; d < NV; d++)
          entry[d] = 1e-4 * cos (step + d);
      double f_kept[ROWS] = { 0 }, dq_kept[NV], f_built[ROWS], dq_built[NV];
      memcpy (dq_kept, entry, sizeof entry);
      memcpy (dq_built, entry, sizeof entry);
      if (step > 0)
        g_assert_true (bgs_last_forces (keeping, ROWS, 1, f_kept));
      g_assert_cmpmem (f_kept, sizeof f_kept, f, sizeof f);
      memcpy (f_built, f, sizeof f);
      BgsResult kept_result, built_result;
      bgs_solve (keeping, &problem, f_kept, dq_kept, &kept_result);
      problem.operator_kept = FALSE;
      bgs_solve (building, &problem, f_built, dq_built, &built_result);
      g_assert_cmpuint (kept_result.capped_islands, ==, 0);
      g_assert_cmpint (kept_result.iterations, ==, built_result.iterations);
      double scale_f = 0, scale_dq = 0, own[NV];
      for (int i = 0; i < ROWS; i++)
        scale_f = MAX (scale_f, fabs (f_built[i]));
      for (int d = 0; d < NV; d++)
        scale_dq = MAX (scale_dq, fabs (dq_built[d]));
      fixture_displacement (&fx, f_kept, own);
      for (int i = 0; i < ROWS; i++)
        worst_f = MAX (worst_f, fabs (f_kept[i] - f_built[i]) / scale_f);
      for (int d = 0; d < NV; d++)
        {
          worst_dq = MAX (worst_dq, fabs (dq_kept[d] - dq_built[d]) / scale_dq);
          worst_own = MAX (worst_own, fabs (dq_kept[d] - entry[d] - own[d]) / scale_dq);
        }
      memcpy (f, f_kept, sizeof f);
    }
  g_test_message ("over %d steps: forces %.3g, displacement %.3g from the built operator's; "
                  "%.3g from C H^T f", STEPS, worst_f, worst_dq, worst_own);
  g_assert_cmpfloat (worst_f, <=, 1e-12);
  g_assert_cmpfloat (worst_dq, <=, 1e-12);
  g_assert_cmpfloat (worst_own, <=, 1e-10);

  /* The values at the next guess, known without the operator: delta_free + H dq, H dq summed
   * here from the entries (to 1e-12 of the free motions, round-off). None when a force
   * differs from the last, or dq on entry. */
  for (int i = 0; i < ROWS; i++)
    delta[i] *= 1.01;
  BgsProblem next = fixture_problem (&fx, delta, TRUE);
  next.nv = NV;
  next.operator_kept = TRUE;
  double guess[ROWS], dq[NV] = { 0 }, own[NV];
  g_assert_true (bgs_last_forces (keeping, ROWS, 1, guess));
  const double *known = last_solve_apply (keeping, &next, guess, dq);
  g_assert_nonnull (known);
  fixture_displacement (&fx, guess, own);
  double worst_value = 0, scale = 0;
  for (int i = 0; i < ROWS; i++)
    {
      double value = fixture_row_value (&fx, delta, own, (size_t) i);
      worst_value = MAX (worst_value, fabs (delta[i] + known[i] - value));
      scale = MAX (scale, fabs (delta[i]));
    }
  g_assert_cmpfloat (worst_value, <=, 1e-12 * scale);
  double moved[NV] = { 0 };
  moved[0] = 1e-6;
  g_assert_null (last_solve_apply (keeping, &next, guess, moved));
  double dq_again[NV] = { 0 };
  guess[3] *= 0.5;
  g_assert_null (last_solve_apply (keeping, &next, guess, dq_again));
  fixture_clear (&fx);
}

/* The stop reads the laws. A column of 16 particles (compliances 1 and 0.2 in turn) on the
 * ground, each contact 1 cm deep and pushed along x under friction 0.3 (the column's lower
 * ones more), from zero force: Gauss-Seidel carries a change of load one contact per sweep,
 * so late sweeps change each row by far less than the error they leave (the error over the
 * change grows with the column's length squared). A solve that reports reaching its
 * tolerance must leave every contact within it of Signorini's and Coulomb's laws, as the
 * post-solve check measures them. Stopped on the sweeps' own change instead, this solve
 * ended after 2387 sweeps with 1.7e-7 m of penetration, 168 times its tolerance (on the
 * pyramids, 30 to 600 times: docs/plugins/constraint.md). Tolerance: 1e-9 m of law error on
 * displacements of 1e-2 m. */
static void
test_stop_reads_laws (void)
{
  enum { N = 16 };
  Fixture fx;
  fixture_init_column (&fx, N);
  const double x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 }, z[3] = { 0, 0, 1 };
  for (int k = 0; k < N; k++)
    add_friction_frame (&fx, k, k - 1, 0.3, z, x, y);
  double delta[3 * N];
  for (int k = 0; k < N; k++)
    {
      /* Each particle sinks by 0.01 m against the one below, and slides along x by more
       * than its friction can hold at the bottom of the column. */
      delta[3 * k] = -0.01;
      delta[3 * k + 1] = 0.002 * (N - k) / N;
      delta[3 * k + 2] = 0;
    }
  g_autoptr (BgsSolver) solver = bgs_solver_new ();
  BgsProblem problem = fixture_problem (&fx, delta, TRUE);
  problem.tolerance = 1e-9;
  double f[3 * N] = { 0 }, dq[3 * N] = { 0 };
  BgsResult result;
  bgs_solve (solver, &problem, f, dq, &result);
  BgsCheck check;
  bgs_check (solver, &problem, f, dq, &check);
  g_test_message ("%d sweeps, residual %.3g m: penetration %.3g m, gap under force %.3g m, "
                  "slip error %.3g m", result.iterations, result.residual, check.penetration,
                  check.complementarity, check.slip_error);
  g_assert_cmpuint (result.capped_islands, ==, 0);
  g_assert_cmpfloat (result.residual, <=, problem.tolerance);
  g_assert_cmpfloat (check.penetration, <=, problem.tolerance);
  g_assert_cmpfloat (check.complementarity, <=, problem.tolerance);
  g_assert_cmpfloat (check.slip_error, <=, problem.tolerance);
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
  g_test_add_func ("/solver/coulomb-disk/factored", test_disk_factored);
  g_test_add_func ("/solver/bgs/frictionless-lcp", test_frictionless_lcp);
  g_test_add_func ("/solver/bgs/diagonal-windows", test_diagonal_windows);
  g_test_add_func ("/solver/bgs/particle-sticks", test_particle_sticks);
  g_test_add_func ("/solver/bgs/particle-slides", test_particle_slides);
  g_test_add_func ("/solver/bgs/pair-momentum", test_pair_conserves_momentum);
  g_test_add_func ("/solver/bgs/laws/cone-and-pyramid", test_cone_and_pyramid_closed_forms);
  g_test_add_func ("/solver/bgs/laws/coupled-cone", test_coupled_cone);
  g_test_add_func ("/solver/bgs/laws/coupled-pyramid", test_coupled_pyramid);
  g_test_add_func ("/solver/bgs/laws/check-reports", test_check_reports_violations);
  g_test_add_func ("/solver/bgs/islands", test_islands_match_global);
  g_test_add_func ("/solver/bgs/stop/reads-laws", test_stop_reads_laws);
  g_test_add_func ("/solver/bgs/direct/least-change", test_direct_least_change);
  g_test_add_func ("/solver/bgs/direct/coupled-bodies", test_direct_coupled_bodies);
  g_test_add_func ("/solver/bgs/direct/pattern-kept", test_direct_pattern_kept);
  g_test_add_func ("/solver/bgs/direct/factor-reused", test_direct_factor_reused);
  g_test_add_func ("/solver/bgs/direct/factor-modified", test_direct_factor_modified);
  g_test_add_func ("/solver/bgs/direct/matches-sweeps", test_direct_start_matches_sweeps);
  g_test_add_func ("/solver/bgs/direct/cold-start", test_cold_start);
  g_test_add_func ("/solver/bgs/direct/skipped-when-held", test_direct_skipped_when_held);
  g_test_add_func ("/solver/bgs/direct/slight-contacts-left", test_direct_leaves_slight_contacts);
  g_test_add_func ("/solver/bgs/direct/holds-speculative-rows",
                   test_direct_holds_speculative_rows);
  g_test_add_func ("/solver/bgs/direct/holds-loaded-rate", test_direct_holds_loaded_rate);
  g_test_add_func ("/solver/bgs/direct/edge-part-kept", test_direct_edge_part_kept);
  g_test_add_func ("/solver/bgs/kept-operator-order", test_kept_operator_order);
  g_test_add_func ("/solver/bgs/kept-operator-continues", test_kept_operator_continues);
  g_test_add_func ("/solver/bgs/kept-operator-layers", test_kept_operator_layers);
  return g_test_run ();
}

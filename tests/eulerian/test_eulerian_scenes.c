/* The `eulerian` contact model through the whole pipeline.
 *
 * The constraint response (sec. 4.3, rows for the `constraint` solver, what `automatic`
 * picks there):
 *   - a ball dropped on the ground and a box landing on an edge come to rest on it, sunk by
 *     less than one grid step (the bound; the paper: "contact errors are easily
 *     smaller than the size of one density voxel");
 *   - Coulomb's inclined plane: a box sticks below atan (mu) and slides above at
 *     g (sin a - mu cos a);
 *   - two bodies colliding in free space keep their total momentum.
 * The penalty response (sec. 4.2, forces, what `automatic` picks under `predictor-corrector`):
 *   - two bodies colliding in free space, rigid-rigid, rigid-FEM and FEM-FEM, conserve their
 *     total linear momentum: at every grid point the two bodies take opposite forces
 *     (eq. 2), and the mappings carry each to its body whole (Q = dr/dq^T f);
 *   - the contact set's forces on the bodies of a scene sum to zero;
 *   - a dropped ball is stopped and thrown back by the forces within one grid step.
 * And `automatic` follows the solver; `constraint` is refused beside a solver of forces. */
#include <math.h>

#include "world_fixture.h"
#include "world_private.h"

#define G 9.81

static double
derived (CwbWorld *world, const char *name)
{
  const CwbInspection *inspection = cwb_world_inspection (world);
  for (guint k = 0; k < inspection->derived->len; k++)
    {
      const CwbDerivedParam *d = &g_array_index (inspection->derived, CwbDerivedParam, k);
      if (strcmp (d->name, name) == 0)
        return d->value;
    }
  g_assert_not_reached ();
  return NAN;
}

static CwbBodySummary
summary (CwbWorld *world, size_t body)
{
  CwbBodySummary s = { .struct_size = sizeof s };
  cwb_world_body_summary (world, body, &s);
  return s;
}

/* A ground slab and one body dropped on it, under `solver`. */
static char *
drop_scene (const char *solver, const char *shape, const char *pose, double mu)
{
  return g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian }\n"
    "solver: { %s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [3, 3, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: %g }\n"
    "  - name: body\n"
    "    shape: %s\n"
    "    pose: %s\n"
    "    material: { density: 1000, friction: %g }\n",
    solver, mu, shape, pose, mu);
}

static void
test_ball_rests (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = drop_scene ("name: constraint",
                                      "{ type: sphere, radius: 0.1, resolution: 24 }",
                                      "{ position: [0.013, -0.021, 0.15] }", 0.5);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  /* 4 s: the fall, and the rolling from facet to facet that the ball's landing on its pole
   * vertex starts (it settles on a facet after about 3 s). */
  fixture_step (world, 800);
  CwbBodySummary s = summary (world, 1), last = s;
  double most = 0, moved = 0;
  for (int k = 0; k < 200; k++)
    {
      fixture_step (world, 1);
      last = summary (world, 1);
      most = MAX (most, last.kinetic_energy);
      double d[3];
      cwb_v3_sub (d, last.centroid, s.centroid);
      moved = MAX (moved, cwb_v3_norm (d));
    }
  double step = derived (world, "cell_size");
  double sunk = 0.1 - last.centroid[2];
  g_test_message ("ball at rest: sunk %.3g m (grid step %.3g m); over the last second kinetic "
                  "energy up to %.3g J, moved %.3g m", sunk, step, most, moved);
  /* Within a step of its surface either way: the rows hold the densities' overlap at zero,
   * which is the surfaces touching (rho_a + rho_b = 1 where they meet); a facet of the
   * 24-segment ball rests 0.86 mm above its lowest vertex. */
  g_assert_cmpfloat (fabs (sunk), <, step);
  /* At rest: the solver's tolerance leaves a jitter of 3e-9 to 2e-8 J (0.1 mm/s for this
   * 4.2 kg ball) that moves it by nothing measurable; bounds 1e-7 J and 1e-5 m. */
  g_assert_cmpfloat (most, <, 1e-7);
  g_assert_cmpfloat (moved, <, 1e-5);
}

/* A 0.5 m box turned 5 degrees about x lands on its lowest edge, falls flat and rests. */
static void
test_box_lands (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = drop_scene ("name: constraint", "{ type: box, size: [0.5, 0.5, 0.5] }",
                                      "{ position: [0.011, 0.007, 0.28], "
                                      "orientation: [0.9990482, 0.0436194, 0, 0] }", 0.5);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 600);   /* 3 s */
  CwbBodySummary s = summary (world, 1);
  double step = derived (world, "cell_size");
  g_test_message ("box at rest: centre %.4g m up (0.25 flat on the ground), turned %.3g rad, "
                  "kinetic energy %.3g J", s.centroid[2],
                  2 * asin (cwb_v3_norm (&s.orientation[1])), s.kinetic_energy);
  g_assert_cmpfloat (fabs (s.centroid[2] - 0.25), <, step);
  /* Flat: turned by less than the 1e-3 rad a step's height across the box allows. */
  g_assert_cmpfloat (2 * asin (hypot (s.orientation[1], s.orientation[2])), <, 1e-3);
  g_assert_cmpfloat (s.kinetic_energy, <, 1e-8);
}

#define MU 0.5
#define BOX 0.2
#define DT 0.005
/* Sticking: a downhill speed below 1e-6 m/s at every step past the landing (the bound of
 * the other models' incline tests). The friction rows hold a sticking contact exactly
 * (Coulomb's disk solve); measured 2e-17 m/s. */
#define STICK_VELOCITY 1e-6
/* Sliding: the closed form within 1 %. The contact normals are the slab's wherever the box's
 * edges meet it (contact_normal), but the grid points under the box's bottom face take the
 * faces' averaged gradients, which the lattice's sampling of the two smooth steps tilts by
 * a little: measured 0.63 % slower than Coulomb's. */
#define SLIDE_RELATIVE_TOLERANCE 0.01

/* The box's largest downhill speed over `steps` steps after `settle`. */
static double
largest_downhill_speed (CwbWorld *world, double angle, int settle, int steps)
{
  fixture_step (world, settle);
  double worst = 0;
  for (int k = 0; k < steps; k++)
    {
      fixture_step (world, 1);
      worst = MAX (worst, fabs (fixture_downhill_velocity (world, 1, angle)));
    }
  return worst;
}

static void
test_incline (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  double stick_angle = atan (0.8 * MU);
  g_autofree char *stick_yaml = fixture_incline_scene (stick_angle, BOX, MU, DT,
                                                       "model: eulerian", "name: constraint");
  g_autoptr (CwbWorld) stick = fixture_world (registry, stick_yaml);
  double worst = largest_downhill_speed (stick, stick_angle, 40, 300);
  g_test_message ("sticking at %.3g rad: largest downhill speed %.3g m/s", stick_angle, worst);
  g_assert_cmpfloat (worst, <, STICK_VELOCITY);

  double slide_angle = atan (1.3 * MU);
  double expected = G * (sin (slide_angle) - MU * cos (slide_angle));
  g_autofree char *slide_yaml = fixture_incline_scene (slide_angle, BOX, MU, DT,
                                                       "model: eulerian", "name: constraint");
  g_autoptr (CwbWorld) slide = fixture_world (registry, slide_yaml);
  double measured = fixture_downhill_acceleration (slide, 1, slide_angle, 20, 200);
  g_test_message ("sliding at %.3g rad: %.6f m/s^2, Coulomb %.6f m/s^2", slide_angle, measured,
                  expected);
  g_assert_cmpfloat (fabs (measured - expected), <, SLIDE_RELATIVE_TOLERANCE * expected);
}

/* The box's tilt against the slope (rad): the angle between its orientation and the
 * slab's, a turn by `angle` about y. */
static double
tilt_on_slope (CwbWorld *world, double angle)
{
  CwbBodySummary s = summary (world, 1);
  double q = fabs (s.orientation[0] * cos (angle / 2) + s.orientation[2] * sin (angle / 2));
  return 2 * acos (MIN (q, 1.0));
}

/* Coulomb's inclined plane under the penalty response (sec. 4.2 with the pair friction),
 * at the automatic stiffness, a 0.2 m box, mu 0.5:
 *   - at atan (0.8 mu) the friction's spring holds it: after it lands (it starts touching,
 *     and slides a few millimetres while its normal force builds up) its downhill speed
 *     rings down; over 3 to 3.5 s below PENALTY_STICK_VELOCITY;
 *   - at atan (1.3 mu) it slides, tilted by less than PENALTY_TILT: the friction acting
 *     below the centre of mass tips the box forward until the pressure under its leading
 *     edge balances it. Before the points under an edge took their face's normal
 *     (penalty_point), eq. 2 there pushed the leading edge uphill and the box tipped over
 *     (94 degrees after 0.5 s). The friction it meets is measured as the effective
 *     coefficient mu' = (g sin a - a_measured) / (g cos a): the acceleration, a small
 *     difference of two forces near the friction angle, would magnify a 1 % error of the
 *     friction six times here;
 *   - with implicit contacts (the predictor-corrector's default beside this model), mu'
 *     within PENALTY_SLIDE_TOLERANCE of mu: the bound is the normal force the implicit step
 *     is estimated to apply (contact_bearing), which the lattice's points entering and
 *     leaving the contact under a sliding body bias by a few percent;
 *   - explicitly the forces act as detected, and there the bottom face's averaged
 *     gradients lean the normal by half the box's tilt theta: the friction acts as
 *     mu' = mu - (1 + mu^2) tan (theta / 2) on the slope's plane (Coulomb on a plane turned
 *     by theta / 2), measured against that within PENALTY_LEAN_TOLERANCE. */
/* A creep of at most 15 micrometres over the half second: measured 2.5e-6 m/s (5.5e-6
 * before the slipping friction's dashpot, pair_friction.c; 5e-5 m/s over 2 to 2.5 s, the
 * landing's ringing still decaying). */
#define PENALTY_STICK_VELOCITY 3e-5
/* On mu': measured 0.5017, 0.3 % above mu (0.506 before the slipping friction's dashpot,
 * the acceleration then 4 % below Coulomb's; 0.509 with the exact stiffness blocks). */
#define PENALTY_SLIDE_TOLERANCE 0.05
/* A cube does not tip below 45 degrees of slope; the penalty's forward tilt measured 2 to 3
 * degrees. */
#define PENALTY_TILT (5 * G_PI / 180)
/* On mu': measured 0.481 against 0.478 (the tilt varies by a few tenths of a degree along
 * the slide, as the lattice passes under the box). */
#define PENALTY_LEAN_TOLERANCE 0.01

static double
penalty_slide (gboolean implicit_contacts, double angle, double *tilt)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = fixture_incline_scene (angle, BOX, MU, DT, "model: eulerian",
                                                 implicit_contacts
                                                   ? "name: predictor-corrector"
                                                   : "name: predictor-corrector, "
                                                     "implicit_contacts: false");
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double acceleration = fixture_downhill_acceleration (world, 1, angle, 40, 200);
  *tilt = tilt_on_slope (world, angle);
  return acceleration;
}

static void
test_penalty_incline (void)
{
  double stick_angle = atan (0.8 * MU);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *stick_yaml = fixture_incline_scene (stick_angle, BOX, MU, DT,
                                                       "model: eulerian",
                                                       "name: predictor-corrector");
  g_autoptr (CwbWorld) stick = fixture_world (registry, stick_yaml);
  double worst = largest_downhill_speed (stick, stick_angle, 600, 100);
  g_test_message ("penalty, sticking at %.3g rad: largest downhill speed over 3 to 3.5 s "
                  "%.3g m/s, tilted %.3g rad", stick_angle, worst,
                  tilt_on_slope (stick, stick_angle));
  g_assert_cmpfloat (worst, <, PENALTY_STICK_VELOCITY);
  g_assert_cmpfloat (tilt_on_slope (stick, stick_angle), <, PENALTY_TILT);

  double angle = atan (1.3 * MU), tilt;
  double expected = G * (sin (angle) - MU * cos (angle));
  double implicit = penalty_slide (TRUE, angle, &tilt);
  double effective = (G * sin (angle) - implicit) / (G * cos (angle));
  g_test_message ("penalty, implicit contacts, sliding at %.3g rad: %.5f m/s^2 (Coulomb "
                  "%.5f m/s^2), mu' %.4f, tilted %.3g rad", angle, implicit, expected,
                  effective, tilt);
  g_assert_cmpfloat (fabs (effective - MU), <, PENALTY_SLIDE_TOLERANCE * MU);
  g_assert_cmpfloat (tilt, <, PENALTY_TILT);

  double explicit = penalty_slide (FALSE, angle, &tilt);
  effective = (G * sin (angle) - explicit) / (G * cos (angle));
  double leaned = MU - (1 + MU * MU) * tan (tilt / 2);
  g_test_message ("penalty, explicit, sliding: %.5f m/s^2, tilted %.3g rad: mu' %.4f, "
                  "the lean's %.4f", explicit, tilt, effective, leaned);
  g_assert_cmpfloat (tilt, <, PENALTY_TILT);
  g_assert_cmpfloat (fabs (effective - leaned), <, PENALTY_LEAN_TOLERANCE);
}

/* What a body's scene lines make of it, for the messages. */
static const char *
body_label (const char *lines)
{
  gboolean fem = strstr (lines, "fem") != NULL, volume = strstr (lines, "volume") != NULL;
  return fem ? (volume ? "fem particles" : "fem") : (volume ? "rigid particles" : "rigid");
}

/* Two bodies thrown at each other off-centre in free space: the total momentum stays what
 * it was at every step, and they come apart. `drift_per_step` is the drift allowed a step
 * as a share of the summed momenta. */
static void
check_momentum_within (const char *solver, const char *model_a, const char *model_b,
                       double drift_per_step)
{
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.002, gravity: [0, 0, 0] }\n"
    "contact: { model: eulerian, response: automatic }\n"
    "solver: { %s }\n"
    "bodies:\n"
    "  - name: a\n"
    "    %s\n"
    "    shape: { type: sphere, radius: 0.1, resolution: 16 }\n"
    "    pose: { position: [-0.15, 0.02, 0] }\n"
    "    velocity: { linear: [1, 0, 0.1] }\n"
    "    material: { density: 1000 }\n"
    "  - name: b\n"
    "    %s\n"
    "    shape: { type: box, size: [0.15, 0.15, 0.15] }\n"
    "    pose: { position: [0.1, -0.02, 0.01], orientation: [0.9659, 0.2588, 0, 0] }\n"
    "    velocity: { linear: [-0.5, 0.05, 0] }\n"
    "    material: { density: 3000 }\n",
    solver, model_a, model_b);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double start[3] = { 0, 0, 0 }, scale = 0;
  for (size_t b = 0; b < 2; b++)
    {
      CwbBodySummary s = summary (world, b);
      cwb_v3_add (start, start, s.linear_momentum);
      scale += cwb_v3_norm (s.linear_momentum);
    }
  double worst = 0;
  gboolean touched = FALSE;
  for (int step = 0; step < 150; step++)
    {
      fixture_step (world, 1);
      touched |= cwb_world_contacts (world)->frames->len > 0;
      double total[3] = { 0, 0, 0 }, drift[3];
      for (size_t b = 0; b < 2; b++)
        cwb_v3_add (total, total, summary (world, b).linear_momentum);
      cwb_v3_sub (drift, total, start);
      worst = MAX (worst, cwb_v3_norm (drift));
    }
  CwbBodySummary sa = summary (world, 0), sb = summary (world, 1);
  g_test_message ("%s, %s against %s: momentum drift %.3g of %.3g kg m/s; speeds along x "
                  "after %.3g and %.3g m/s", solver, body_label (model_a),
                  body_label (model_b), worst, scale, sa.linear_velocity[0],
                  sb.linear_velocity[0]);
  g_assert_true (touched);
  g_assert_cmpfloat (worst, <=, drift_per_step * scale * 150);
  /* They bounced: a moves back (or slower) than b along x. */
  g_assert_cmpfloat (sa.linear_velocity[0], <, sb.linear_velocity[0]);
}

/* Round-off of sums of forces of order 1e3 N over 150 steps. */
static void
check_momentum (const char *solver, const char *model_a, const char *model_b)
{
  check_momentum_within (solver, model_a, model_b, 1e-12);
}

#define FEM "model: fem\n    mapping: barycentric\n    model_params: { young_modulus: 2.0e6, " \
            "poisson_ratio: 0.3, resolution: 4 }"
/* Bodies shown to the model as volume particles (sec. 5.4) through their mappings. */
#define PARTICLES "mapping_params: { sample: volume }"
#define FEM_PARTICLES FEM "\n    mapping_params: { sample: volume }"
#define PENALTY "name: predictor-corrector"
/* The explicit step the tests below were measured with (the predictor-corrector's default
 * beside this model is implicit, ABI 1.19). */
#define EXPLICIT_PENALTY PENALTY ", implicit_contacts: false"
#define CONSTRAINT "name: constraint"

static void
test_momentum_constraint (void)
{
  check_momentum (CONSTRAINT, "", "");
  check_momentum (CONSTRAINT, "", FEM);
}

static void
test_momentum_rigid_rigid (void)
{
  check_momentum (EXPLICIT_PENALTY, "", "");
}

static void
test_momentum_rigid_fem (void)
{
  check_momentum (EXPLICIT_PENALTY, "", FEM);
}

static void
test_momentum_fem_fem (void)
{
  check_momentum (EXPLICIT_PENALTY, FEM, FEM);
}

/* The penalty forces integrated implicitly (at the automatic stiffness): each body's step
 * takes its own blocks, and the predictor-corrector's Gauss-Seidel sweeps couple the two
 * through the stiffness and damping blocks between them (ABI 1.17), so the linearised
 * forces stay equal and opposite. The sweeps stop when no velocity changes by more than
 * 1e-6 of the largest (1 m/s here), which leaves each step's velocities about that close to
 * the coupled solution: allowed, twice 1e-6 of the summed momenta a step (measured: 7e-8
 * and 5e-8 kg m/s of 9.03 over the 150 steps). With one sweep, the bodies' steps as they
 * were before the coupling, the rigid pair drifts by 0.0997 kg m/s (2026-12-01), 37 times
 * the bound. */
static void
test_momentum_implicit (void)
{
  check_momentum_within (PENALTY ", implicit_contacts: true", "", "", 2e-6);
  check_momentum_within (PENALTY ", implicit_contacts: true", "", FEM, 2e-6);
}

/* Volume particles against surfaces and particles, rigid and FEM, under both responses:
 * eq. 4-6 spread each grid point's force over the particles with weights summing to one. */
static void
test_momentum_particles (void)
{
  check_momentum (EXPLICIT_PENALTY, PARTICLES, "");
  check_momentum (EXPLICIT_PENALTY, FEM_PARTICLES, PARTICLES);
  check_momentum (CONSTRAINT, PARTICLES, FEM_PARTICLES);
}

/* A ball and a soft cube shown as volume particles (rigid and barycentric mappings) come to
 * rest on the ground within a grid step of their surfaces. */
static void
test_particles_rest (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry,
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian }\n"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1.5, 1.5, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.6 }\n"
    "  - name: ball\n"
    "    shape: { type: sphere, radius: 0.06, resolution: 24 }\n"
    "    pose: { position: [0.0, 0.0, 0.1] }\n"
    "    material: { density: 700, friction: 0.6 }\n"
    "    " PARTICLES "\n"
    "  - name: soft-cube\n"
    "    " FEM_PARTICLES "\n"
    "    shape: { type: box, size: [0.12, 0.12, 0.12] }\n"
    "    pose: { position: [0.16, 0.2, 0.08] }\n"
    "    material: { density: 500, friction: 0.6 }\n");
  /* 6 s: the fall, and the ball's rolling: its particles' lattice leaves it a little
   * lopsided, and it rolls about 5 mm before it settles (after about 3 s). */
  fixture_step (world, 1200);
  double step = derived (world, "cell_size");
  CwbBodySummary ball = summary (world, 1), cube = summary (world, 2);
  g_test_message ("ball centre %.4g m up (0.06 resting), cube %.4g m up (0.06); kinetic "
                  "energies %.3g and %.3g J; grid step %.3g m", ball.centroid[2],
                  cube.centroid[2], ball.kinetic_energy, cube.kinetic_energy, step);
  g_assert_cmpfloat (fabs (ball.centroid[2] - 0.06), <, step);
  g_assert_cmpfloat (fabs (cube.centroid[2] - 0.06), <, step);
  /* At rest: the solver's tolerance leaves a jitter far below 1e-8 J for these 0.6 and
   * 0.9 kg bodies. */
  g_assert_cmpfloat (ball.kinetic_energy, <, 1e-8);
  g_assert_cmpfloat (cube.kinetic_energy, <, 1e-8);
}

/* Every geometry kind on every other (issue 20's table): a block on the ground and a
 * smaller cube, turned about the vertical, dropped on it, each a rigid or an FEM body shown
 * to the model as its surface or as volume particles: 16 cases through the same code, none
 * naming a pair. Each comes to rest with both bodies within a grid step of where they touch
 * (the block's centre 0.05 m up, the cube's 0.16 m; the FEM bodies' sag under the cube's
 * weight is a few hundredths of a millimetre at E = 2 MPa). */
static void
test_kinds_table (void)
{
  /* FEM blocks with a little stiffness-proportional damping, as the scenes give them: an
   * undamped one struck by the cube keeps ringing (1.3 mJ of vibration for seconds). */
#define FEM_DAMPED "model: fem\n    mapping: barycentric\n    model_params: { young_modulus: " \
                   "2.0e6, poisson_ratio: 0.3, resolution: 4, rayleigh_stiffness: 0.01 }"
  static const char *const kinds[4][2] = {
    { "rigid surface", "" },
    { "fem surface", FEM_DAMPED },
    { "rigid particles", PARTICLES },
    { "fem particles", FEM_DAMPED "\n    " PARTICLES },
  };
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  for (int lower = 0; lower < 4; lower++)
    for (int upper = 0; upper < 4; upper++)
      {
        g_autofree char *yaml = g_strdup_printf (
          "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
          "contact: { model: eulerian }\n"
          "solver: { name: constraint }\n"
          "bodies:\n"
          "  - name: ground\n"
          "    shape: { type: ground, size: [1, 1, 0.2] }\n"
          "    fixed: true\n"
          "    material: { friction: 0.6 }\n"
          "  - name: block\n"
          "    %s\n"
          "    shape: { type: box, size: [0.24, 0.24, 0.1] }\n"
          "    pose: { position: [0.003, -0.002, 0.053] }\n"
          "    material: { density: 700, friction: 0.6 }\n"
          "  - name: cube\n"
          "    %s\n"
          "    shape: { type: box, size: [0.12, 0.12, 0.12] }\n"
          "    pose: { position: [0.011, 0.007, 0.175], orientation: [0.9888, 0, 0, 0.1494] }\n"
          "    material: { density: 500, friction: 0.6 }\n",
          kinds[lower][1], kinds[upper][1]);
        g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
        fixture_step (world, 400);   /* 2 s */
        double step = derived (world, "cell_size");
        CwbBodySummary block = summary (world, 1), cube = summary (world, 2);
        g_test_message ("%s under %s: block %.4g m up (0.05), cube %.4g m up (0.16), kinetic "
                        "energy %.2g J; grid step %.3g m", kinds[upper][0], kinds[lower][0],
                        block.centroid[2], cube.centroid[2],
                        block.kinetic_energy + cube.kinetic_energy, step);
        g_assert_cmpfloat (fabs (block.centroid[2] - 0.05), <, step);
        g_assert_cmpfloat (fabs (cube.centroid[2] - 0.16), <, step);
        /* At rest: far below the 1e-3 J of a 0.1 m/s motion of these 1 to 4 kg bodies. */
        g_assert_cmpfloat (block.kinetic_energy + cube.kinetic_energy, <, 1e-6);
      }
}

/* Generalized contact forces on body `b` with the state q and the velocities v_state (NULL:
 * zero). */
static void
generalized_forces_moving (CwbWorld *world, const double *q_state, const double *v_state,
                           uint32_t b, double *r)
{
  size_t nq, nv;
  double *q = cwb_world_q (world, &nq);
  double *v = cwb_world_v (world, &nv);
  memcpy (q, q_state, nq * sizeof (double));
  if (v_state != NULL)
    memcpy (v, v_state, nv * sizeof (double));
  else
    memset (v, 0, nv * sizeof (double));
  g_autoptr (GError) error = NULL;
  world->ctx.detect (&world->ctx, q, v, CWB_CONTACT_PASS_VELOCITY, &error);
  g_assert_no_error (error);
  g_autofree double *all = g_new0 (double, nv);
  world->ctx.point_forces_to_dofs (&world->ctx, all);
  memcpy (r, all + world->slots[b].v_offset, world->slots[b].nv * sizeof (double));
}

static void
generalized_forces (CwbWorld *world, const double *q_state, uint32_t b, double *r)
{
  generalized_forces_moving (world, q_state, NULL, b, r);
}

/* Appendix B: the stiffness the host hands an implicit solver (contact_stiffness_apply: the
 * model's point blocks through the mapping, J^T K J, and the mapping's own term d(J^T)/dq f)
 * against central differences of the generalized contact forces Q (q) = J^T f of body
 * `body` (frictionless, velocities zero, so that Q depends on the positions alone), along
 * its velocity-space coordinates (a rigid body's translations and rotations, an FEM body's
 * node positions). The grid points stay fixed while the bodies move: the test sees the
 * densities' motion under the points (the one-body derivatives, not eq. 3's average of
 * them), the weights' motion (the points' coordinates in the moving body: the torque of a
 * rigid body's force changes by [F]x dx) and the faces' turn.
 * Differences of 1e-6 m: the forces are smooth but where a point enters the overlap or
 * crosses the cubic step's kinks (measure zero), truncation (1e-6 / h)^2 ~ 1e-8 relative,
 * round-off 1e-16 / 1e-6 of the forces; bound 1e-5 of the stiffness's largest entry. The
 * weights' term has the size of the contact force |F| per metre: the bound must be far
 * under it for the test to see that term, asserted below (10x). */
static void
check_body_stiffness (const char *scene, double press, uint32_t body, int n_columns,
                      size_t n_rows)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, scene);
  size_t nq, n;
  double *q = cwb_world_q (world, &nq);
  const CwbBodySlot *slot = &world->slots[body];
  /* Body 1, a rigid box, pressed down by `press` (m) below its first touch of body 0. */
  const CwbGeometry *g = cwb_world_geometries (world, &n);
  double lowest = INFINITY, below = -INFINITY;
  for (size_t p = 0; p < g[1].n_points; p++)
    lowest = MIN (lowest, g[1].positions[3 * p + 2]);
  for (size_t p = 0; p < g[0].n_points; p++)
    below = MAX (below, g[0].positions[3 * p + 2]);
  q[world->slots[1].q_offset + 2] -= lowest - below + press;
  g_autofree double *q0 = g_memdup2 (q, nq * sizeof (double));
  g_autofree double *plus = g_new (double, slot->nv);
  g_autofree double *minus = g_new (double, slot->nv);
  g_autofree double *r0 = g_new (double, slot->nv);
  g_autofree double *df = g_new (double, slot->nv);
  g_autofree double *dq = g_new (double, slot->nv);
  const double eps = 1e-6;
  double worst = 0, scale = 0, force = 0;
  /* The columns: a rigid body's six, or the FEM coordinates carrying the largest
   * forces (their nodes are those under the contact). */
  generalized_forces (world, q0, body, r0);
  g_autofree int *columns = g_new (int, n_columns);
  for (int c = 0; c < n_columns; c++)
    {
      columns[c] = c;
      if (slot->nq == 7)   /* a rigid body: its six */
        continue;
      double largest = -1;
      for (size_t i = 0; i < slot->nv; i++)
        {
          gboolean taken = FALSE;
          for (int t = 0; t < c; t++)
            taken |= columns[t] == (int) i;
          if (!taken && fabs (r0[i]) > largest)
            {
              largest = fabs (r0[i]);
              columns[c] = (int) i;
            }
        }
    }
  for (int c = 0; c < n_columns; c++)
    {
      int column = columns[c];
      /* q moved by +-eps along v-space coordinate `column` (a rigid body's rotation turns
       * its quaternion), as the body model integrates a velocity. */
      g_autofree double *qp = g_memdup2 (q0, nq * sizeof (double));
      g_autofree double *qm = g_memdup2 (q0, nq * sizeof (double));
      memset (dq, 0, slot->nv * sizeof (double));
      dq[column] = 1;
      world->ctx.integrate_position (&world->ctx, body, q0 + slot->q_offset, dq, eps,
                                     qp + slot->q_offset);
      world->ctx.integrate_position (&world->ctx, body, q0 + slot->q_offset, dq, -eps,
                                     qm + slot->q_offset);
      generalized_forces (world, qp, body, plus);
      generalized_forces (world, qm, body, minus);
      generalized_forces (world, q0, body, r0);   /* last: the stiffness is taken here */
      world->ctx.contact_stiffness_apply (&world->ctx, body, dq, df);
      for (size_t i = 0; i < MIN (n_rows, slot->nv); i++)
        {
          double quotient = (plus[i] - minus[i]) / (2 * eps);
          if (quotient != 0 || df[i] != 0)
            g_test_message ("d/dq_%d of Q_%zu: differences %.9g, stiffness %.9g", column, i,
                            quotient, df[i]);
          worst = MAX (worst, fabs (quotient - df[i]));
          scale = MAX (scale, fabs (df[i]));
        }
    }
  for (size_t i = 0; i + 2 < slot->nv; i += 3)
    force = MAX (force, cwb_v3_norm (r0 + i));
  /* The damping's velocity derivative (contact_damping_apply) against central differences
   * of Q under velocities +-1e-3 m/s along the same columns: the damping force is linear in
   * the velocity (the friction is off), so they agree to round-off, 1e-9 of the largest. */
  size_t nv;
  cwb_world_v (world, &nv);
  g_autofree double *vp = g_new0 (double, nv);
  g_autofree double *vm = g_new0 (double, nv);
  double damping_worst = 0, damping_scale = 0;
  for (int c = 0; c < n_columns; c++)
    {
      const double speed = 1e-3;
      memset (vp, 0, nv * sizeof (double));
      memset (vm, 0, nv * sizeof (double));
      vp[slot->v_offset + columns[c]] = speed;
      vm[slot->v_offset + columns[c]] = -speed;
      generalized_forces_moving (world, q0, vp, body, plus);
      generalized_forces_moving (world, q0, vm, body, minus);
      memset (dq, 0, slot->nv * sizeof (double));
      dq[columns[c]] = 1;
      world->ctx.contact_damping_apply (&world->ctx, body, dq, df);
      for (size_t i = 0; i < slot->nv; i++)
        {
          double quotient = (plus[i] - minus[i]) / (2 * speed);
          if (quotient != 0 || df[i] != 0)
            g_test_message ("d/dv_%d of Q_%zu: differences %.9g, damping %.9g", columns[c], i,
                            quotient, df[i]);
          damping_worst = MAX (damping_worst, fabs (quotient - df[i]));
          damping_scale = MAX (damping_scale, fabs (df[i]));
        }
    }
  g_test_message ("damping: largest difference %.3g of %.3g N s/m", damping_worst,
                  damping_scale);
  g_assert_cmpfloat (damping_scale, >, 0);
  g_assert_cmpfloat (damping_worst, <=, 1e-9 * damping_scale);
  g_test_message ("largest difference %.3g of a stiffness of %.3g N/m; the largest force "
                  "%.3g N", worst, scale, force);
  g_assert_cmpfloat (force, >, 10 * 1e-5 * scale);
  g_assert_cmpfloat (worst, <, 1e-5 * scale);
}

/* The friction's velocity derivative (ABI 1.15's damping blocks) on a box turned about the
 * vertical and pressed 5 mm into the ground with friction 0.5 (its face's contact many grid
 * points), against central differences of Q under velocities +-1e-4 m/s along its six
 * velocity coordinates. The friction remembers its spring's stretch from one detection to
 * the next; a detection with the box lifted clear of the ground in between makes each one
 * start afresh, where the sticking force is -(h k_t + c_t) v_t. It acts on the pair's mean
 * velocity, so its derivative couples every two points (each grid point's own part alone is
 * 7.5e-3 of the largest entry off, in the rotations' columns). The points' shares of the
 * load follow the damping forces, so the force is not exactly linear in the velocity:
 * measured 1.5e-8 of the largest entry at 1e-4 m/s (4.7e-7 while the pair's normal
 * followed them too); bound 1e-6. */
static void
test_body_damping_friction (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry,
    "world: { dt: 0.005, gravity: [0, 0, 0] }\n"
    "contact: { model: eulerian, response: penalty }\n"
    "solver: { name: predictor-corrector, implicit_contacts: false }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [2, 2, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.3, 0.3, 0.3] }\n"
    "    pose: { position: [0.011, -0.007, 0.5], orientation: [0.9961947, 0, 0, "
    "0.0871557] }\n"
    "    material: { density: 500, friction: 0.5 }\n");
  size_t nq, nv, n;
  double *q = cwb_world_q (world, &nq);
  cwb_world_v (world, &nv);
  const CwbBodySlot *slot = &world->slots[1];
  const CwbGeometry *g = cwb_world_geometries (world, &n);
  double lowest = INFINITY;
  for (size_t p = 0; p < g[1].n_points; p++)
    lowest = MIN (lowest, g[1].positions[3 * p + 2]);
  q[slot->q_offset + 2] -= lowest + 0.005;
  g_autofree double *q0 = g_memdup2 (q, nq * sizeof (double));
  g_autofree double *clear = g_memdup2 (q, nq * sizeof (double));
  clear[slot->q_offset + 2] += 1;
  g_autofree double *v = g_new0 (double, nv);
  double plus[6], minus[6], df[6], worst = 0, scale = 0, tangential = 0, spin = 0;
  const double speed = 1e-4;
  for (int axis = 0; axis < 6; axis++)
    {
      double dv[6] = { 0 };
      for (int side = 0; side < 2; side++)
        {
          generalized_forces (world, clear, 1, side == 0 ? plus : minus);
          memset (v, 0, nv * sizeof (double));
          v[slot->v_offset + axis] = side == 0 ? speed : -speed;
          generalized_forces_moving (world, q0, v, 1, side == 0 ? plus : minus);
        }
      dv[axis] = 1;
      world->ctx.contact_damping_apply (&world->ctx, 1, dv, df);
      for (int i = 0; i < 6; i++)
        {
          double quotient = (plus[i] - minus[i]) / (2 * speed);
          g_test_message ("d/dv_%d of Q_%d: differences %.9g, damping %.9g", axis, i,
                          quotient, df[i]);
          worst = MAX (worst, fabs (quotient - df[i]));
          scale = MAX (scale, fabs (df[i]));
        }
      if (axis < 2)
        tangential = MAX (tangential, fabs (df[axis]));
      if (axis == 5)
        spin = fabs (df[5]);
    }
  g_test_message ("largest difference %.3g of %.3g N s/m; about the vertical %.4g N m s, "
                  "%.4g m^2 of the tangential", worst, scale, spin, spin / tangential);
  /* The friction's part is there: along the ground the normal damping alone is far
   * smaller (the normals are near vertical). */
  g_assert_cmpfloat (tangential, >, 0.1 * scale);
  /* And the twist's (pair_friction.h): the tangential dashpot spread over the face's
   * levers, J = sum lambda |d|^2 = a^2 / 6 for a uniform pressure on the square face (the
   * lattice samples it; 10 %, measured 2 %). Without the twist it was 0.087 N m s, 2e-3 of
   * this. */
  g_assert_cmpfloat (fabs (spin / tangential - 0.3 * 0.3 / 6), <, 0.1 * 0.3 * 0.3 / 6);
  g_assert_cmpfloat (worst, <=, 1e-6 * scale);
}

#define TURNED_BOX "    shape: { type: box, size: [0.3, 0.3, 0.3] }\n" \
                   "    pose: { position: [0.011, -0.007, 0.5], orientation: [0.9589, 0.1417, " \
                   "0.1963, 0.1440] }\n" \
                   "    material: { density: 500, friction: 0 }\n"

/* A turned rigid box's corner pressed 3 mm into the ground. */
/* The turned box on the frictionless ground, without gravity; `exact`: exact_stiffness. */
static char *
turned_box_on_ground (gboolean exact)
{
  return g_strdup_printf ("world: { dt: 0.005, gravity: [0, 0, 0] }\n"
                          "contact: { model: eulerian, exact_stiffness: %s }\n"
                          "solver: { name: predictor-corrector, implicit_contacts: false }\n"
                          "bodies:\n"
                          "  - name: ground\n"
                          "    shape: { type: ground, size: [2, 2, 0.2] }\n"
                          "    fixed: true\n"
                          "    material: { friction: 0 }\n"
                          "  - name: box\n" TURNED_BOX,
                          exact ? "true" : "false");
}

static void
test_body_stiffness_rigid (void)
{
  g_autofree char *scene = turned_box_on_ground (TRUE);
  check_body_stiffness (scene, 0.006, 1, 6, 6);
}

/* The stable blocks (`exact_stiffness` false, the default) leave out how the point's weights
 * move and how the face turns (docs/plugins/eulerian.md): neither changes the force a
 * translation of a rigid body puts on it (the weights' moves sum to none, sum grad w = 0; a
 * translation turns no face), and under a translation the points that carry the force move
 * as those that carry the density. So on the turned box pressed into the ground the forces'
 * rows under its translations are exact, to the same 1e-5 of the stiffness as the exact
 * blocks (the torques' rows are not: the log shows them). */
static void
test_stable_stiffness (void)
{
  g_autofree char *scene = turned_box_on_ground (FALSE);
  check_body_stiffness (scene, 0.006, 1, 3, 3);
}

/* A rod one particle thick (1 cm, the step) laid on a box under the penalty response with
 * implicit contacts. Its density as it is peaks at 0.47 across it, its faces' half sunk
 * inside them, so its overlap with the box stayed small however deep it went: in the swap
 * matrix's eulerian-particles it fell through the cube under it and the ground within
 * 0.5 s, here it sank 5.5 mm into the box (2026-12-02). Divided by its face scale
 * (particle_density_face_scale: its half at its particles' faces, as a thick body's) it
 * rests within a third of its thickness of where it touches (the swap matrix's bound on a
 * pass-through), near rest after 1 s. Measured: 0.5 mm into it at 2e-7 J, still creeping
 * (at rest by 2.5 s: 7.8e-12 J, 0.8 mm in; release build); divided by its peak instead, it
 * rested 1.7 mm above it, that density's half lying beyond its faces. */
static void
test_penalty_particle_rod (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry,
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian, response: penalty }\n"
    "solver: { name: predictor-corrector }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1, 1, 0.2] }\n"
    "    fixed: true\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.1] }\n"
    "    pose: { position: [0.003, -0.002, 0.05] }\n"
    "    material: { density: 500 }\n"
    "  - name: rod\n"
    "    shape: { type: box, size: [0.01, 0.15, 0.01] }\n"
    "    pose: { position: [0.011, 0.007, 0.1055] }\n"
    "    material: { density: 700 }\n"
    "    mapping_params: { sample: volume, particle_spacing: 0.01 }\n");
  fixture_step (world, 200);
  CwbBodySummary box = summary (world, 1), rod = summary (world, 2);
  double touching = box.centroid[2] + 0.05 + 0.005;
  g_test_message ("rod at %.4f m, touching the box at %.4f m; kinetic energy %.2g J; grid "
                  "step %.3g m", rod.centroid[2], touching,
                  rod.kinetic_energy + box.kinetic_energy, derived (world, "cell_size"));
  g_assert_cmpfloat (fabs (rod.centroid[2] - touching), <, 0.01 / 3);
  /* Near rest: far below the 5e-5 J of the rod's 10.5 g at 0.1 m/s. */
  g_assert_cmpfloat (rod.kinetic_energy + box.kinetic_energy, <, 1e-6);
}

/* A ball of particles (`eulerian-particles`'s, 6 cm) dropped 0.5 mm onto the ground under
 * the penalty response with implicit contacts: its load is carried on a curved surface's
 * patch (pi rho LOAD_SINK h, rho = 2 V / S, S read off its lattice by
 * particle_density_surface), its stiffness made for a quarter of a step's sink. After 1 s
 * it lies within 0.4 of a step of the ground (the quarter, and the patch's curvature read
 * from a lattice's corners). Measured: 2.35 mm, 0.31 of the 7.5 mm step, at 1.7e5 Pa;
 * sized as a face (volume^(2/3)) it was 5.5 mm, 0.73 of a step, at 2.0e4 Pa and still
 * sinking (2026-12-02). */
static void
test_penalty_particle_ball (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry,
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian, response: penalty }\n"
    "solver: { name: predictor-corrector }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1.5, 1.5, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.6 }\n"
    "  - name: ball\n"
    "    shape: { type: sphere, radius: 0.06, resolution: 24 }\n"
    "    pose: { position: [-0.05, 0.3, 0.0605] }\n"
    "    material: { density: 700, friction: 0.6 }\n"
    "    mapping_params: { sample: volume }\n");
  fixture_step (world, 200);
  CwbBodySummary ball = summary (world, 1);
  double step = derived (world, "cell_size"), depth = 0.06 - ball.centroid[2];
  g_test_message ("ball %.2f mm into the ground (%.2f of the step %.3g m) at %.3g Pa; kinetic "
                  "energy %.2g J", depth * 1e3, depth / step, step, derived (world, "stiffness"),
                  ball.kinetic_energy);
  g_assert_cmpfloat (depth, >, 0);
  g_assert_cmpfloat (depth, <, 0.4 * step);
}

/* Two steel bars (0.2 x 0.04 x 0.024 m, 1.5 kg) crossed at right angles on the ground under
 * the penalty with implicit contacts. The automatic step is half the bars' thickness
 * 2 V / S (13.95 mm; STEP_OF_THICKNESS), here finer than a sixteenth of their length (to
 * 1e-9), and the upper bar's stiffness is made to carry its load sunk a quarter step on
 * the crossing's footprint (0.04 x 0.04, read off the overlap's grid columns), not on its
 * face (0.2 x 0.04): after 1.5 s it rests within half a step of the lower bar, the quarter
 * and the footprint's reading off a grid of 6 to 7 columns across. Measured (2026-12-02):
 * 2.23 mm, 0.32 step; sized on the face, 6.32 mm, 0.91 step; at a sixteenth of the length
 * (12.5 mm) and sized on the face, it fell through the lower bar to the ground: a bar
 * thinner than its density's two-step transition has its gradient turn past its middle. */
static void
test_penalty_crossed_bars (void)
{
  const double length = 0.2, width = 0.04, thick = 0.024;
  g_autofree char *scene = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian, response: penalty }\n"
    "solver: { name: predictor-corrector }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1, 1, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: lower\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [0, 0, %g] }\n"
    "    material: { density: 7800, friction: 0.5 }\n"
    "  - name: upper\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [0.003, 0.002, %g] }\n"
    "    material: { density: 7800, friction: 0.5 }\n",
    length, width, thick, thick / 2 + 0.0005, width, length, thick, 1.5 * thick + 0.001);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, scene);
  fixture_step (world, 300);
  CwbBodySummary lower = summary (world, 1), upper = summary (world, 2);
  double into = thick - (upper.centroid[2] - lower.centroid[2]);
  double volume = length * width * thick;
  double area = 2 * (length * width + length * thick + width * thick);
  double step = derived (world, "cell_size");
  g_test_message ("upper bar %.2f mm into the lower at the step %.4g m (half of 2 V / S: "
                  "%.4g); kinetic energy %.2g J", into * 1e3, step, volume / area,
                  upper.kinetic_energy + lower.kinetic_energy);
  g_assert_cmpfloat_with_epsilon (step, volume / area, 1e-9);
  g_assert_cmpfloat (fabs (into), <, 0.5 * step);
}

/* The depth the penalty response reports (2 rho_bar / |g| at the deepest grid point, how far
 * the bodies would part along g to clear it) for a box held into another by a known
 * overlap p, gravity off, after one step of 1e-7 s: a thick box of particles and a rod of
 * particles one step thick, both with their faces on grid planes (between them the grid's
 * sampling reads less: aliasing, docs/plugins/eulerian.md). The rod reads what the thick
 * box reads to 5 % of p, and both read p to 15 %: the depth is linear in rho_bar while the
 * smooth step's slope falls off its surface (measured: a surface box 1.0, 2.1, 3.2 mm at 1,
 * 2, 3 mm). Divided by its peak instead of its face scale, the rod read 4.0, 5.7, 7.7 mm
 * at 1, 2, 3 mm: its density's half lay beyond its faces. */
static void
test_penalty_thin_depth (void)
{
  const double overlaps[3] = { 0.001, 0.002, 0.003 };
  for (guint k = 0; k < G_N_ELEMENTS (overlaps); k++)
    {
      double p = overlaps[k], depth[2];
      for (int thin = 0; thin < 2; thin++)
        {
          g_autofree char *scene = g_strdup_printf (
            "world: { dt: 1.0e-7, gravity: [0, 0, 0] }\n"
            "contact: { model: eulerian, response: penalty, cell_size: 0.01 }\n"
            "solver: { name: predictor-corrector }\n"
            "bodies:\n"
            "  - name: base\n"
            "    shape: { type: box, size: [0.2, 0.2, 0.1] }\n"
            "    pose: { position: [0, 0, 0.05] }\n"
            "    fixed: true\n"
            "  - name: upper\n"
            "    shape: { type: box, size: [%s] }\n"
            "    pose: { position: [0, 0, %.6f] }\n"
            "    mapping_params: { sample: volume, particle_spacing: 0.01 }\n",
            thin ? "0.01, 0.15, 0.01" : "0.1, 0.1, 0.1", 0.1 + (thin ? 0.005 : 0.05) - p);
          g_autoptr (CwbRegistry) registry = fixture_registry ();
          g_autoptr (CwbWorld) world = fixture_world (registry, scene);
          fixture_step (world, 1);
          depth[thin] = cwb_world_contacts (world)->max_penetration;
        }
      g_test_message ("overlap %.1f mm: the thick box reads %.2f mm, the rod %.2f mm", p * 1e3,
                      depth[0] * 1e3, depth[1] * 1e3);
      g_assert_cmpfloat (fabs (depth[1] - depth[0]), <, 0.05 * p);
      for (int thin = 0; thin < 2; thin++)
        g_assert_cmpfloat (fabs (depth[thin] - p), <, 0.15 * p);
    }
}

/* A heavy rigid block (37.5 kg) dropped 0.3 m onto a light soft ring (1.4 kg, 3e4 Pa),
 * `eulerian-poolrack.yaml` from its start under the penalty response with implicit
 * contacts, through the impact (step 45 on) and 0.1 s past it. With the exact blocks the
 * ring's implicit step had a near singular system there: at `damping` 0.01 the coupling
 * sweeps stopped at their cap of 50 at step 50 and the kinetic energy reached 838 J by
 * step 60; frictionless at 0.0025 the velocities reached 4e4 m/s at step 50 and the run
 * stopped on its blow-up (2026-12-02). With the stable blocks, a slipping friction taken
 * as constant over the step (no velocity derivative, where sticking had h k_t + c_t) and
 * one friction for the whole pair, the ring's friction 0.2 at `damping` 0.02 blew up at
 * step 57 (pair_friction.c, slip_dashpot). Every step's sweeps must converge, and the kinetic
 * energy stay below all the potential energy the two can give: the block's centre falling
 * to 0.1 m and the ring's to the ground, 37.5 kg g 0.3 m + 1.39 kg g 0.041 m = 111 J. */
static void
test_penalty_heavy_on_light (void)
{
  const struct {
    const char *ring, *others, *damping;
  } cases[] = { { "0.5", "0.5", "0.01" }, { "0", "0", "0.0025" }, { "0.2", "0.5", "0.02" } };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *damping = g_strdup_printf ("contact.damping=%s", cases[c].damping);
      g_autofree char *rack = g_strdup_printf ("bodies.rack.friction=%s", cases[c].ring);
      g_autofree char *block = g_strdup_printf ("bodies.block.friction=%s", cases[c].others);
      g_autofree char *ground = g_strdup_printf ("bodies.ground.friction=%s", cases[c].others);
      const char *sets[] = { "contact.response=penalty", "solver.name=predictor-corrector",
                             damping, rack, block, ground, NULL };
      g_autoptr (CwbRegistry) registry = fixture_registry ();
      g_autoptr (CwbWorld) world = fixture_world_from_file (registry,
                                                            "scenes/eulerian-poolrack.yaml",
                                                            sets);
      double most = 0;
      int sweeps = 0, unconverged = 0;
      for (int step = 0; step < 70; step++)
        {
          fixture_step (world, 1);
          const CwbStepStats *stats = cwb_world_last_stats (world);
          unconverged += stats->solver_converged == 0;
          most = MAX (most, stats->kinetic_energy);
          sweeps = MAX (sweeps, stats->solver_iterations);
        }
      g_test_message ("ring's friction %s, damping %s s: kinetic energy up to %.3g J, up to "
                      "%d coupling sweeps a step, %d steps unconverged", cases[c].ring,
                      cases[c].damping, most, sweeps, unconverged);
      /* Known open (docs/validation.md): with the ring's friction 0.2 the kinetic energy
       * spikes at step 64 to 110-120 J, against the bound of 111, and step 66's sweeps may
       * stop at their cap; which side of the bound depends on the CPU's OpenBLAS kernels
       * (an AMD EPYC with 2 threads: 110 J and one unconverged step; 1 thread: 121 J). */
      if (c == 2 && (unconverged > 0 || most >= 111))
        {
          g_test_incomplete ("the ring's friction 0.2 case spikes at step 64 (known open)");
          return;
        }
      g_assert_cmpint (unconverged, ==, 0);
      g_assert_cmpfloat (most, <, 111);
    }
}

/* The turned box pressed into an FEM block (both densities vary at the points: the one-body
 * blocks are not symmetric): the box translated, then the block's nodes moved (every
 * coordinate of an FEM body is a position, its mapping linear). The block is set off the
 * grid's lattice: a grid point exactly on a face (a box at the origin, a step dividing its
 * size) is carried by one face's triangle or another's as a node moves either way, a jump
 * of the nodes' shares of the force (not of its total) that differences cannot follow. */
static void
test_body_stiffness_fem (void)
{
  const char *scene = "world: { dt: 0.005, gravity: [0, 0, 0] }\n"
                      "contact: { model: eulerian, exact_stiffness: true }\n"
                      "solver: { name: predictor-corrector, implicit_contacts: false }\n"
                      "bodies:\n"
                      "  - name: block\n"
                      "    shape: { type: box, size: [0.5, 0.5, 0.2] }\n"
                      "    pose: { position: [0.0137, -0.0071, 0.0093] }\n"
                      "    " FEM "\n"
                      "    material: { density: 500, friction: 0 }\n"
                      "  - name: box\n" TURNED_BOX;
  check_body_stiffness (scene, 0.004, 1, 6, 6);
  check_body_stiffness (scene, 0.004, 0, 12, (size_t) -1);
}

/* The host applies each body's own blocks from their assembly over its DOFs
 * (contact_blocks.h), or walks them block by block through the mapping where the assembly
 * would be too large: both give the same J^T K J dq and J^T B J dv, to round-off of sums of
 * a few hundred products (1e-12 of the largest entry), for the rigid box and the FEM block
 * under it, both moving, with friction (its damping blocks). */
static void
test_assembled_blocks (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry,
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian, response: penalty }\n"
    "solver: { name: predictor-corrector, implicit_contacts: true }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1, 1, 0.2] }\n"
    "    fixed: true\n"
    "  - name: block\n"
    "    shape: { type: box, size: [0.5, 0.5, 0.2] }\n"
    "    pose: { position: [0.0137, -0.0071, 0.097] }\n"
    "    " FEM "\n"
    "    material: { density: 500, friction: 0.5 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.3, 0.3, 0.3] }\n"
    "    pose: { position: [0.011, -0.007, 0.344] }\n"
    "    material: { density: 500, friction: 0.5 }\n");
  fixture_step (world, 3);   /* the friction springs made, so their damping is there */
  const CwbContactSet *set = fixture_detect (world, CWB_CONTACT_PASS_VELOCITY);
  g_assert_cmpuint (set->stiffness->len, >, 0);
  g_assert_cmpuint (set->damping->len, >, 0);
  for (uint32_t body = 1; body <= 2; body++)
    {
      const CwbBodySlot *slot = &world->slots[body];
      g_autofree double *x = g_new (double, slot->nv);
      g_autofree double *assembled = g_new (double, 2 * slot->nv);
      g_autofree double *walked = g_new (double, 2 * slot->nv);
      for (size_t i = 0; i < slot->nv; i++)
        x[i] = sin (1.7 * (double) i + body);   /* any direction */
      cwb_contact_blocks_set_dense_limit (world->contact_blocks, CWB_CONTACT_BLOCKS_DENSE_MAX);
      world->ctx.contact_stiffness_apply (&world->ctx, body, x, assembled);
      world->ctx.contact_damping_apply (&world->ctx, body, x, assembled + slot->nv);
      cwb_contact_blocks_set_dense_limit (world->contact_blocks, 0);
      world->ctx.contact_stiffness_apply (&world->ctx, body, x, walked);
      world->ctx.contact_damping_apply (&world->ctx, body, x, walked + slot->nv);
      for (int which = 0; which < 2; which++)
        {
          double worst = 0, largest = 0;
          for (size_t i = 0; i < slot->nv; i++)
            {
              worst = MAX (worst, fabs (assembled[which * slot->nv + i]
                                        - walked[which * slot->nv + i]));
              largest = MAX (largest, fabs (walked[which * slot->nv + i]));
            }
          g_test_message ("body %u, %s: largest %.3g, assembled against walked %.3g", body,
                          which == 0 ? "stiffness" : "damping", largest, worst);
          g_assert_cmpfloat (largest, >, 0);
          g_assert_cmpfloat (worst, <=, 1e-12 * largest);
        }
    }
  cwb_contact_blocks_set_dense_limit (world->contact_blocks, CWB_CONTACT_BLOCKS_DENSE_MAX);
}

/* The set's point forces on the bodies of a scene are opposite: per grid point, +F on one
 * body's points and -F on the other's, each split by weights that sum to one; with the
 * friction by cells (`friction_cell` 4, the default) as with one friction a pair (0, a frame
 * each: two pairs). */
static void
test_action_reaction (void)
{
  for (int cell = 0; cell <= 4; cell += 4)
    {
      g_autoptr (CwbRegistry) registry = fixture_registry ();
      g_autofree char *yaml = g_strdup_printf (
        "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
        "contact: { model: eulerian, friction_cell: %d }\n"
        "solver: { name: predictor-corrector, implicit_contacts: false }\n"
        "bodies:\n"
        "  - name: ground\n"
        "    shape: { type: ground, size: [2, 2, 0.2] }\n"
        "    fixed: true\n"
        "  - name: box\n"
        "    shape: { type: box, size: [0.3, 0.3, 0.3] }\n"
        "    pose: { position: [0.01, 0.02, 0.13], orientation: [0.9848, 0.1736, 0, 0] }\n"
        "    material: { density: 1000 }\n"
        "  - name: ball\n"
        "    shape: { type: sphere, radius: 0.1, resolution: 16 }\n"
        "    pose: { position: [0.02, 0.0, 0.33] }\n"
        "    material: { density: 1000 }\n", cell);
      g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
      const CwbContactSet *set = fixture_detect (world, CWB_CONTACT_PASS_VELOCITY);
      if (cell == 0)
        g_assert_cmpuint (set->frames->len, ==, 2);
      else
        g_assert_cmpuint (set->frames->len, >, 2);
      g_assert_cmpuint (set->rows->len, ==, 0);
      double total[3][3] = { { 0 } }, largest = 0;
      for (guint k = 0; k < set->forces->len; k++)
        {
          const CwbPointWeight *f = &g_array_index (set->forces, CwbPointWeight, k);
          g_assert_cmpuint (f->geometry, <, 3);
          cwb_v3_add (total[f->geometry], total[f->geometry], f->w);
          largest = MAX (largest, cwb_v3_norm (f->w));
        }
      double sum[3];
      cwb_v3_add (sum, total[0], total[1]);
      cwb_v3_add (sum, sum, total[2]);
      g_test_message ("friction_cell %d, %u frames: forces on ground, box, ball: %.4g, %.4g, "
                      "%.4g N up; sum %.3g N", cell, set->frames->len, total[0][2],
                      total[1][2], total[2][2], cwb_v3_norm (sum));
      /* Round-off of a sum of a few thousand forces of up to `largest`. */
      g_assert_cmpfloat (cwb_v3_norm (sum), <=, 1e-12 * largest * set->forces->len);
      /* The box is pushed up by the ground and down by the ball. */
      g_assert_cmpfloat (total[0][2], <, 0);
      g_assert_cmpfloat (total[2][2], >, 0);
    }
}

/* Under penalty forces a dropped ball is stopped within one grid step of the ground and
 * thrown back up (its speed turns upward), at every step of the first bounces. */
static void
test_penalty_ball_bounces (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = drop_scene (EXPLICIT_PENALTY, "{ type: sphere, radius: 0.1, resolution: 24 }",
                                      "{ position: [0.013, -0.021, 0.15] }", 0.5);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double deepest = 0, rising = 0;
  for (int k = 0; k < 200; k++)
    {
      fixture_step (world, 1);
      CwbBodySummary s = summary (world, 1);
      deepest = MAX (deepest, 0.1 - s.centroid[2]);
      rising = MAX (rising, s.linear_velocity[2]);
    }
  double step = derived (world, "cell_size");
  g_test_message ("penalty: deepest %.3g m (grid step %.3g m), fastest upward %.3g m/s",
                  deepest, step, rising);
  g_assert_cmpfloat (deepest, <, step);
  /* It hits the ground at 1 m/s (0.05 m of fall): thrown back at a tenth of it at least. */
  g_assert_cmpfloat (rising, >, 0.1);
}

/* A box resting on the ground under a penalty forty times stiffer than the automatic one
 * (1e6 Pa; the automatic is 2.5e4 here), with friction: integrated explicitly, the contact
 * springs and dashpots outrun the step and throw the box about; handed to the
 * predictor-corrector's implicit step (implicit_contacts: the exact stiffness, the normal
 * damping and the sticking friction's velocity derivative as k_ext and b_ext), it stays at
 * rest. Measured: 1.3e2 J against 1.6e-25 J of kinetic energy after 2 s. While the pair's
 * friction took its normal from the forces with their damping, the friction's plane turned
 * with the velocity, a dependence its blocks lack, and the box rang on it at 1.3e-4 m/s with
 * a period of two steps (7.7e-8 J); with the plane from eq. 2's forces but the Coulomb bound
 * from the predicted state's, 3.7e-11 J. The bounds, 1 J and 1e-9 J, stand two orders and
 * more from either. */
static double
resting_energy (gboolean implicit_contacts, double *sink)
{
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian, response: penalty, stiffness: 1.0e6 }\n"
    "solver: { name: predictor-corrector, implicit_contacts: %s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [2, 2, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [-0.3, 0, 0.1] }\n"
    "    material: { density: 500, friction: 0.5 }\n",
    implicit_contacts ? "true" : "false");
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 400);
  CwbBodySummary s = summary (world, 1);
  *sink = 0.1 - s.centroid[2];
  double speed = cwb_v3_norm (s.linear_velocity), spin = cwb_v3_norm (s.angular_velocity);
  return 0.5 * 4.0 * speed * speed + 0.5 * (4.0 * 0.2 * 0.2 / 6) * spin * spin;
}

static void
test_penalty_implicit_rest (void)
{
  double sink_explicit, sink_implicit;
  double explicit_energy = resting_energy (FALSE, &sink_explicit);
  double implicit_energy = resting_energy (TRUE, &sink_implicit);
  g_test_message ("kinetic energy after 2 s: explicit %.3g J, implicit %.3g J (sunk %.3g m)",
                  explicit_energy, implicit_energy, sink_implicit);
  g_assert_cmpfloat (explicit_energy, >, 1);
  g_assert_cmpfloat (implicit_energy, <, 1e-9);
  /* At rest on the ground: sunk by less than a millimetre (the grid step is 1.25 cm). */
  g_assert_cmpfloat (fabs (sink_implicit), <, 1e-3);
}

/* An FEM block (0.3 x 0.3 x 0.15 m, 2e6 Pa) resting on the ground with friction 0.5 under
 * the penalty response and the predictor-corrector, whose detection sees the predicted
 * state: the block's bottom nodes spread under its weight in the free motion, and their
 * load-weighted mean has a tangential part of about 1 cm/s (the tetrahedra are not
 * symmetric) that the contact cancels at every step. The pair's friction spring must grow
 * by the material's displacement, not by h times that predicted velocity: grown so, it crept
 * at rest and rang the block on it. Returns the largest kinetic energy over `measured` steps
 * after `settle`. */
static double
fem_friction_energy (const char *stiffness, gboolean implicit_contacts, int settle,
                     int measured)
{
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian, response: penalty, stiffness: %s }\n"
    "solver: { name: predictor-corrector, implicit_contacts: %s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1.5, 1.5, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: block\n"
    "    model: fem\n"
    "    mapping: barycentric\n"
    "    shape: { type: box, size: [0.3, 0.3, 0.15] }\n"
    "    pose: { position: [0, 0, 0.075] }\n"
    "    material: { density: 500, friction: 0.5 }\n"
    "    model_params: { young_modulus: 2.0e6, poisson_ratio: 0.3, resolution: 4 }\n",
    stiffness, implicit_contacts ? "true" : "false");
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, settle);
  double most = 0;
  for (int k = 0; k < measured; k++)
    {
      fixture_step (world, 1);
      most = MAX (most, summary (world, 1).kinetic_energy);
    }
  return most;
}

static void
test_penalty_fem_friction_rest (void)
{
  /* At the automatic stiffness (1.2e4 Pa), explicitly, over 1.5 to 2 s: measured 2.8e-6 J
   * (9e-7 before the pair's friction had its twist, whose spring the explicit step
   * integrates on the block's light nodes); the spring grown by h v_p reached 1.6e-3 J,
   * still rising. */
  double automatic = fem_friction_energy ("0", FALSE, 300, 100);
  /* At 2e5 Pa with implicit contacts, over 0.5 to 0.75 s (the implicit step's conjugate
   * gradients make a step 100 times dearer): measured 6e-13 J (4e-10 J before the
   * friction's plane and bound were taken from the forces the implicit step applies);
   * grown by h v_p, 0.4 to 0.8 J (and from 1e6 Pa the gradients stopped converging). */
  double stiff = fem_friction_energy ("2.0e5", TRUE, 100, 50);
  g_test_message ("FEM block with friction, largest kinetic energy: automatic stiffness "
                  "explicitly %.3g J, 2e5 Pa implicitly %.3g J", automatic, stiff);
  /* The bounds stand an order of magnitude and more above the measures, two and more below
   * the ringing. */
  g_assert_cmpfloat (automatic, <, 1e-5);
  g_assert_cmpfloat (stiff, <, 1e-6);
}

/* A rigid box of 16 kg resting on a light FEM block (3.7 kg) on the ground, under the
 * penalty response at the automatic stiffness. Explicitly the stiffness is bounded by the
 * block's most mobile point (a corner): 1.2e4 Pa, which carries no such load. Where the
 * predictor-corrector integrates the contacts implicitly (ABI 1.18's forces_implicit), the
 * stiffness is sized instead to carry the weight resting on each contact, sunk a quarter of
 * the grid step: k = W / (0.6 A / 4), W the weight of the bodies no lower than the pair's
 * upper body, A the smaller body's volume^(2/3). Returns the box's sink into the block
 * (its bottom below the mean height of the block's top vertices) after 1 s, the largest kinetic
 * energy and spin about the vertical over its last 0.25 s, the derived stiffness (the
 * smallest pair's) and the step. */
typedef struct LoadedBlock {
  double sink, energy, spin, stiffness, step, box_mass, block_mass;
} LoadedBlock;

/* The scene of loaded_block, `solver` the solver's section after its name. */
static char *
loaded_block_scene (const char *solver)
{
  return g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian, response: penalty }\n"
    "solver: { name: predictor-corrector%s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1.5, 1.5, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.6 }\n"
    "  - name: block\n"
    "    model: fem\n"
    "    mapping: barycentric\n"
    "    shape: { type: box, size: [0.24, 0.24, 0.16] }\n"
    "    pose: { position: [0, 0, 0.081] }\n"
    "    material: { density: 400, friction: 0.6 }\n"
    "    model_params: { young_modulus: 2.0e6, poisson_ratio: 0.3, resolution: 4,\n"
    "                    rayleigh_stiffness: 0.01 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0.01, -0.01, 0.262] }\n"
    "    material: { density: 2000, friction: 0.6 }\n",
    solver);
}

static LoadedBlock
loaded_block (const char *implicit_contacts)
{
  g_autofree char *solver = implicit_contacts != NULL
                              ? g_strdup_printf (", implicit_contacts: %s", implicit_contacts)
                              : g_strdup ("");
  g_autofree char *yaml = loaded_block_scene (solver);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  LoadedBlock out = { 0 };
  fixture_step (world, 150);
  for (int k = 0; k < 50; k++)
    {
      fixture_step (world, 1);
      out.energy = MAX (out.energy, summary (world, 1).kinetic_energy
                                      + summary (world, 2).kinetic_energy);
      out.spin = MAX (out.spin, fabs (summary (world, 2).angular_velocity[2]));
    }
  /* The box's bottom against the mean height of the block's top face's vertices. */
  size_t n;
  const CwbGeometry *g = cwb_world_geometries (world, &n);
  double block_lo[3], block_hi[3], top = 0;
  cwb_geometry_bounds (&g[1], block_lo, block_hi);
  int on_top = 0;
  for (size_t p = 0; p < g[1].n_points; p++)
    if (g[1].positions[3 * p + 2] > 0.5 * (block_lo[2] + block_hi[2]) + 0.05)
      {
        top += g[1].positions[3 * p + 2];
        on_top++;
      }
  g_assert_cmpint (on_top, >, 0);
  out.sink = top / on_top - (summary (world, 2).centroid[2] - 0.1);
  out.stiffness = derived (world, "stiffness");
  out.step = derived (world, "cell_size");
  out.block_mass = summary (world, 1).mass;
  out.box_mass = summary (world, 2).mass;
  return out;
}

/* The predictor-corrector's coupling sweeps with Anderson's mixing
 * (`coupling_acceleration`, the default) against the plain Gauss-Seidel sweeps, both
 * allowed 1000 sweeps, on the loaded block (a 16 kg box landing on a light FEM block, the
 * pair's blocks coupling the two implicit steps) over its first 60 steps, each step from
 * the same state: the same fixed point, reached in fewer sweeps (measured 276 against 313;
 * on the mixed stack 9.6 a step against 28.9, docs/plugins/penalty.md). Both stop once a
 * sweep changes no velocity by more than 1e-6 of the largest; that change understates the
 * distance to the fixed point by 1 / (1 - rho) for a contraction rho, so COUPLING_AGREE
 * allows rho up to 0.9 for each (measured 3.9e-8). */
#define COUPLING_AGREE 1e-5
static void
test_coupling_acceleration (void)
{
  g_autofree char *plain_yaml = loaded_block_scene (
    ", implicit_contacts: true, coupling_sweeps: 1000, coupling_acceleration: false");
  g_autofree char *mixed_yaml = loaded_block_scene (
    ", implicit_contacts: true, coupling_sweeps: 1000");
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) plain = fixture_world (registry, plain_yaml);
  g_autoptr (CwbWorld) mixed = fixture_world (registry, mixed_yaml);
  long plain_sweeps = 0, mixed_sweeps = 0;
  double worst = 0;
  for (int step = 0; step < 60; step++)
    {
      fixture_step (plain, 1);
      fixture_step (mixed, 1);
      const CwbStepStats *a = cwb_world_last_stats (plain), *b = cwb_world_last_stats (mixed);
      g_assert_cmpint (a->solver_converged, !=, 0);
      g_assert_cmpint (b->solver_converged, !=, 0);
      plain_sweeps += MAX (a->solver_iterations, 0);
      mixed_sweeps += MAX (b->solver_iterations, 0);
      size_t nv, nq;
      double *va = cwb_world_v (plain, &nv), *vb = cwb_world_v (mixed, &nv);
      double largest = 1e-3, apart = 0;
      for (size_t d = 0; d < nv; d++)
        {
          largest = MAX (largest, fabs (va[d]));
          apart = MAX (apart, fabs (va[d] - vb[d]));
        }
      worst = MAX (worst, apart / largest);
      /* The next step from the same state: each step's difference is the two solves'. */
      memcpy (vb, va, nv * sizeof (double));
      const double *qa = cwb_world_q (plain, &nq);
      memcpy (cwb_world_q (mixed, &nq), qa, nq * sizeof (double));
    }
  g_test_message ("coupling sweeps over 60 steps: %ld plain, %ld mixed; velocities apart by "
                  "up to %.3g of the largest", plain_sweeps, mixed_sweeps, worst);
  g_assert_cmpfloat (worst, <, COUPLING_AGREE);
  g_assert_cmpint (mixed_sweeps, <, plain_sweeps);
}

/* The predictor-corrector's `implicit_contacts: automatic` follows the paired contact
 * model's hint (ABI 1.19): implicit beside `eulerian` (its penalty is sized for an
 * implicit step), explicit beside `penalty` (Spillmann's explicit scheme), told again at
 * every swap; `true` and `false` hold whatever the model. */
static void
test_implicit_follows_model (void)
{
  /* Each edit in turn, and whether the forces are then implicit: "pair" swaps to the named
   * contact model beside a new predictor-corrector at its defaults, "contact" and "solver"
   * set one parameter of the present one. */
  static const struct {
    const char *what, *name, *value;
    gboolean implicit;
  } edits[] = {
    { "pair", "penalty", NULL, FALSE },
    { "pair", "eulerian", NULL, TRUE },
    { "contact", "response", "penalty", TRUE },   /* forces and the hint */
    { "solver", "implicit_contacts", "false", FALSE },
    { "solver", "implicit_contacts", "automatic", TRUE },
    { "pair", "penalty", NULL, FALSE },
    { "solver", "implicit_contacts", "true", TRUE },
  };
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = drop_scene (PENALTY, "{ type: box, size: [0.2, 0.2, 0.2] }",
                                      "{ position: [0, 0, 0.1] }", 0.5);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  g_assert_true (cwb_world_solver_forces_implicit (world));
  for (guint k = 0; k < G_N_ELEMENTS (edits); k++)
    {
      g_autoptr (GError) error = NULL;
      if (strcmp (edits[k].what, "pair") == 0)
        g_assert_true (cwb_world_set_pair (world, edits[k].name, NULL, "predictor-corrector",
                                           NULL, NULL, &error));
      else
        {
          g_autoptr (GPtrArray) params = fixture_params (edits[k].name, edits[k].value, NULL);
          CwbPluginKind kind = strcmp (edits[k].what, "contact") == 0
                                 ? CWB_PLUGIN_CONTACT_MODEL
                                 : CWB_PLUGIN_SOLVER;
          g_assert_true (cwb_world_set_plugin_params (world, kind, params, &error));
        }
      g_assert_no_error (error);
      g_assert_cmpint (cwb_world_solver_forces_implicit (world), ==, edits[k].implicit);
      fixture_step (world, 1);
    }
}

static void
test_penalty_load_stiffness (void)
{
  LoadedBlock explicit = loaded_block ("false"), implicit = loaded_block ("true");
  /* Left unset (`automatic`), the predictor-corrector integrates this model's forces
   * implicitly, as its hint asks (ABI 1.19): the same run as `true`, to the bit. */
  LoadedBlock automatic = loaded_block (NULL);
  g_assert_cmpfloat (automatic.sink, ==, implicit.sink);
  g_assert_cmpfloat (automatic.stiffness, ==, implicit.stiffness);
  g_assert_cmpfloat (automatic.energy, ==, implicit.energy);
  /* The pair box-block carries the box on the block's face or the box's, whichever is
   * smaller: the box's 0.2^2 against the block's (0.24^2 x 0.16)^(2/3) = 0.0440 m^2; the
   * pair block-ground the block and the box on the block's: k = 2.93e4 Pa. */
  double box_area = 0.2 * 0.2, block_area = pow (0.24 * 0.24 * 0.16, 2.0 / 3.0);
  double on_block = explicit.box_mass * G / (0.6 * 0.25 * MIN (box_area, block_area));
  double on_ground = (explicit.box_mass + explicit.block_mass) * G / (0.6 * 0.25 * block_area);
  g_test_message ("automatic stiffness explicitly %.4g Pa, implicitly %.4g Pa (closed form "
                  "%.4g and %.4g Pa); sunk %.3g and %.3g m (step %.3g m); largest kinetic "
                  "energy over 0.75 to 1 s %.3g and %.3g J, spin %.3g and %.3g rad/s",
                  explicit.stiffness, implicit.stiffness, on_block, on_ground, explicit.sink,
                  implicit.sink, implicit.step, explicit.energy, implicit.energy,
                  explicit.spin, implicit.spin);
  /* The smaller of the two pairs' load stiffnesses, to round-off (the volumes are the
   * meshes' own, exact for boxes). */
  g_assert_cmpfloat (fabs (implicit.stiffness - MIN (on_block, on_ground)), <,
                     1e-9 * implicit.stiffness);
  g_assert_cmpfloat (explicit.stiffness, <, implicit.stiffness);
  /* Explicitly the box sinks through the block (deeper than the transition's two steps);
   * implicitly it holds the box sunk about a quarter step (measured 0.30; 0.6 is the spring
   * of a patch spread over its face, and the block's bending shares the load unevenly: half a
   * step bounds it). */
  g_assert_cmpfloat (implicit.sink, <, 0.5 * implicit.step);
  /* The pair's twist holds the box from turning about the vertical on the block (without
   * it, 0.13 to 0.2 rad/s and growing; measured 4e-3 rad/s). What motion is left is the
   * box rocking on the soft contact, damped at the default beta = h by a few percent a
   * period (4e-3 J at 1 s, falling): not asserted. */
  g_assert_cmpfloat (implicit.spin, <, 2e-2);
}

/* A square box spun about the vertical on the ground: Coulomb friction spread over its
 * face resists the spin with the torque mu m g R, R = 0.38259 a the mean distance of a
 * square's points from its centre (a/6 (sqrt 2 + asinh 1)), so it turns down at
 * alpha = mu m g R / (m a^2 / 6) = 6 x 0.38259 mu g / a (56.3 rad/s^2 for a = 0.2 m,
 * mu = 0.5) and stops. A pair friction acting at the contact's centre alone resists no
 * spin (alpha 0): the pair's twist (pair_friction.h) is what turns it down. Returns the
 * deceleration measured over 0.05 to 0.1 s (spinning down from 10 rad/s, slipping
 * throughout) and the largest spin over 0.9 to 1 s. */
static void
spun_box (gboolean implicit_contacts, double *deceleration, double *left)
{
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian, response: penalty }\n"
    "solver: { name: predictor-corrector, implicit_contacts: %s }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [2, 2, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0.013, -0.021, 0.0995] }\n"
    "    velocity: { angular: [0, 0, 10] }\n"
    "    material: { density: 500, friction: 0.5 }\n",
    implicit_contacts ? "true" : "false");
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 10);
  double early = summary (world, 1).angular_velocity[2];
  fixture_step (world, 10);
  double late = summary (world, 1).angular_velocity[2];
  *deceleration = (early - late) / 0.05;
  fixture_step (world, 160);
  *left = 0;
  for (int k = 0; k < 20; k++)
    {
      fixture_step (world, 1);
      *left = MAX (*left, fabs (summary (world, 1).angular_velocity[2]));
    }
}

static void
test_penalty_twist (void)
{
  double coulomb = 6 * 0.38259 * 0.5 * G / 0.2;
  for (int implicit = 0; implicit < 2; implicit++)
    {
      double deceleration, left;
      spun_box (implicit, &deceleration, &left);
      /* Implicitly the slipping friction is a dashpot through Coulomb's force at the
       * predicted spin (pair_friction.c, slip_dashpot), so each step of h = 0.005 s turns
       * omega into omega^2 / (omega + h alpha) rather than omega - h alpha: from 10 rad/s,
       * 0.05 to 0.1 s, a rate 4.5 % under alpha (backward Euler's first-order bias). */
      double expected = coulomb;
      if (implicit)
        {
          double spin = 10, early = 0;
          for (int k = 1; k <= 20; k++)
            {
              spin = spin * spin / (spin + 0.005 * coulomb);
              early = k == 10 ? spin : early;
            }
          expected = (early - spin) / 0.05;
        }
      g_test_message ("%s: spun down at %.4g rad/s^2 (Coulomb over the face: %.4g, through "
                      "the step: %.4g), spin left over 0.9 to 1 s %.3g rad/s",
                      implicit ? "implicit" : "explicit", deceleration, coulomb, expected, left);
      /* 5 %: the lattice's points sample the face's levers (16 a side), the pressure is
       * the penalty's, a little higher at the edges where the transitions meet, and the
       * face's friction acts by cells of 4 points a side (friction_cell), each at its load's
       * centre, which leaves out the levers within a cell (measured 3.3 % and 2.9 % under,
       * 0.9 % and 0.4 % with one friction and twist for the whole face). With implicit
       * contacts the bound is the normal force as the implicit step sees it, not the one at
       * the detection's predicted state (49 N against a weight of 39 N, 1.48 times
       * Coulomb's rate; contact_bearing). */
      g_assert_cmpfloat (fabs (deceleration - expected), <, 0.05 * expected);
      /* Stopped (10 rad/s stops in 0.18 s) and held by the friction's springs, which give
       * back what they held while slipping: the box turns back at up to 0.67 rad/s and rings
       * down by 0.43 a half period (0.1 s), so about 1e-3 rad/s is left by 0.9 s
       * (measured 8.5e-5 and 3.4e-4 rad/s). */
      g_assert_cmpfloat (left, <, 1e-2);
    }
}

/* The inspection's refined cells (both bodies; the root level's others have body_b
 * CWB_NO_BODY). */
static guint
refined_cells (const CwbInspection *in)
{
  guint refined = 0;
  for (guint c = 0; c < in->cells->len; c++)
    refined += g_array_index (in->cells, CwbInspectCell, c).body_b != CWB_NO_BODY;
  return refined;
}

/* Sec. 6's hierarchy refines a root cell only where two bodies meet in it; everywhere else
 * one density is exactly 0 or both are uniform, so the forces, rows and motion are the flat
 * grid's to the bit: the scenes stepped side by side under levels 1 (flat), 2, 3 and 4 keep
 * the same state hash at every step, under the constraint response (the scenes' own) and
 * the penalty one. And the root level prunes: fewer cells refined than the pairs' boxes
 * hold. */
static void
test_hierarchy_flat_equal (void)
{
  static const char *const scenes[] = {
    "scenes/eulerian-mixed-stack.yaml", "scenes/eulerian-primitives.yaml",
    "scenes/eulerian-particles.yaml", "scenes/eulerian-poolrack.yaml",
  };
  static const char *const responses[] = { NULL, "contact.response=penalty" };
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  for (guint s = 0; s < G_N_ELEMENTS (scenes); s++)
    for (guint r = 0; r < G_N_ELEMENTS (responses); r++)
      {
        CwbWorld *worlds[4];
        for (int levels = 1; levels <= 4; levels++)
          {
            g_autofree char *set = g_strdup_printf ("contact.levels=%d", levels);
            const char *sets[] = { set, responses[r],
                                   responses[r] != NULL ? "solver.name=predictor-corrector"
                                                        : NULL,
                                   responses[r] != NULL ? "solver.implicit_contacts=false"
                                                        : NULL,
                                   NULL };
            worlds[levels - 1] = fixture_world_from_file (registry, scenes[s], sets);
          }
        size_t refined = 0, flat = 0;
        for (int step = 0; step < 8; step++)
          {
            for (int w = 0; w < 4; w++)
              fixture_step (worlds[w], 1);
            guint64 hash = cwb_world_state_hash (worlds[0]);
            for (int w = 1; w < 4; w++)
              g_assert_cmpuint (cwb_world_state_hash (worlds[w]), ==, hash);
            refined += refined_cells (cwb_world_inspection (worlds[2]));
            flat += cwb_world_inspection (worlds[0])->cells->len;
          }
        g_test_message ("%s (%s): the same motion at levels 1 to 4; %zu root cells refined "
                        "at levels 3 in 8 steps", scenes[s],
                        responses[r] != NULL ? "penalty" : "its own response", refined);
        g_assert_cmpuint (flat, ==, 0);
        g_assert_cmpuint (refined, >, 0);
        for (int w = 0; w < 4; w++)
          cwb_world_free (worlds[w]);
      }
}

/* Inspection where a 0.3 m box rests 2 mm into the ground: each body's density as density
 * voxels where both bodies are present and it is in its transition (values strictly between
 * 0 and 1, body_b CWB_NO_BODY): the box's within its transition's reach of its faces (1.5
 * steps, and no lower than the ground's band, which reaches 1.5 steps down), the ground's
 * within 1.5 steps of its top face; and the hierarchy's refined cells, every overlapping
 * point (an intersection voxel) inside one of them; the root cells left coarse that one
 * body's transition passes through (body_b CWB_NO_BODY), the ground's crossing its top
 * face's band, the box's its faces' (its sides rise out of the ground's band), none of them
 * a refined cell. */
static void
test_density_voxels (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = drop_scene ("name: constraint", "{ type: box, size: [0.3, 0.3, 0.3] }",
                                      "{ position: [0.013, -0.021, 0.148] }", 0.5);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_detect (world, CWB_CONTACT_PASS_VELOCITY);
  double h = derived (world, "cell_size"), reach = 1.5 * h + 1e-12;
  const CwbInspection *in = cwb_world_inspection (world);
  guint density[2] = { 0, 0 }, overlapping = 0;
  for (guint k = 0; k < in->voxels->len; k++)
    {
      const CwbInspectVoxel *v = &g_array_index (in->voxels, CwbInspectVoxel, k);
      if (v->kind == CWB_VOXEL_INTERSECTION)
        {
          gboolean in_cell = FALSE;
          for (guint c = 0; c < in->cells->len && !in_cell; c++)
            {
              const CwbInspectCell *cell = &g_array_index (in->cells, CwbInspectCell, c);
              if (cell->body_b == CWB_NO_BODY)
                continue;
              in_cell = TRUE;
              for (int a = 0; a < 3; a++)
                in_cell &= v->center[a] >= cell->min[a] && v->center[a] <= cell->max[a];
            }
          g_assert_true (in_cell);
          overlapping++;
          continue;
        }
      g_assert_cmpint (v->kind, ==, CWB_VOXEL_DENSITY);
      g_assert_cmpuint (v->body_b, ==, CWB_NO_BODY);
      g_assert_cmpfloat (v->value, >, 0);
      g_assert_cmpfloat (v->value, <, 1);
      g_assert_cmpuint (v->body_a, <=, 1);
      density[v->body_a]++;
      if (v->body_a == 0)
        g_assert_cmpfloat (fabs (v->center[2]), <=, reach);
      else
        {
          /* Near the box's bottom face (at 0.148 - 0.15 = -2 mm) or its sides. */
          double bottom = 0.148 - 0.15;
          g_assert_cmpfloat (fabs (v->center[2] - bottom), <=, 2 * reach + 0.002);
        }
    }
  guint coarse[2] = { 0, 0 };
  for (guint c = 0; c < in->cells->len; c++)
    {
      const CwbInspectCell *cell = &g_array_index (in->cells, CwbInspectCell, c);
      if (cell->body_b != CWB_NO_BODY)
        continue;
      g_assert_cmpuint (cell->body_a, <=, 1);
      coarse[cell->body_a]++;
      /* The band reaches 1.5 steps past a face: the cell holds part of it. */
      if (cell->body_a == 0)
        {
          g_assert_cmpfloat (cell->min[2], <=, reach);
          g_assert_cmpfloat (cell->max[2], >=, -reach);
        }
      else
        g_assert_cmpfloat (cell->max[2], >, 1.5 * h);   /* above the ground's band */
      for (guint d = 0; d < in->cells->len; d++)
        {
          const CwbInspectCell *fine = &g_array_index (in->cells, CwbInspectCell, d);
          if (fine->body_b != CWB_NO_BODY)
            g_assert_false (memcmp (fine->min, cell->min, sizeof cell->min) == 0
                            && memcmp (fine->max, cell->max, sizeof cell->max) == 0);
        }
    }
  guint refined = refined_cells (in);
  g_test_message ("h %.3g m: %u and %u density voxels (ground, box), %u overlapping points in "
                  "%u refined cells; %u and %u coarse cells", h, density[0], density[1],
                  overlapping, refined, coarse[0], coarse[1]);
  g_assert_cmpuint (density[0], >, 0);
  g_assert_cmpuint (density[1], >, 0);
  g_assert_cmpuint (overlapping, >, 0);
  g_assert_cmpuint (refined, >, 0);
  g_assert_cmpuint (coarse[1], >, 0);
}

/* `automatic` answers with rows beside the constraint solver and with forces beside the
 * predictor-corrector one (CwbContactQuery.solves); `constraint` beside a solver of forces
 * is refused before any step, naming the solvers that can. */
static void
test_automatic_response (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  const char *solvers[] = { CONSTRAINT, PENALTY };
  for (guint k = 0; k < G_N_ELEMENTS (solvers); k++)
    {
      g_autofree char *yaml = drop_scene (solvers[k], "{ type: box, size: [0.3, 0.3, 0.3] }",
                                          "{ position: [0, 0, 0.148] }", 0.5);
      g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
      const CwbContactSet *set = fixture_detect (world, CWB_CONTACT_PASS_VELOCITY);
      g_test_message ("%s: %u rows, %u forces", solvers[k], set->rows->len,
                      set->forces->len);
      gboolean rows = k == 0;
      g_assert_cmpuint (set->rows->len > 0, ==, rows);
      g_assert_cmpuint (set->forces->len > 0, ==, !rows);
    }
  g_autofree char *refused = drop_scene (PENALTY, "{ type: box, size: [0.3, 0.3, 0.3] }",
                                         "{ position: [0, 0, 0.148] }", 0.5);
  char *at = strstr (refused, "model: eulerian");
  g_assert_nonnull (at);
  g_autofree char *yaml = g_strdup_printf ("%.*smodel: eulerian, response: constraint%s",
                                           (int) (at - refused), refused,
                                           at + strlen ("model: eulerian"));
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (yaml, -1, "refused.yaml", NULL);
  g_assert_nonnull (scene);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbWorld) world = cwb_world_new (scene, registry, &error);
  g_assert_null (world);
  g_test_message ("refused: %s", error->message);
  g_assert_nonnull (strstr (error->message, "constraint rows"));
  g_assert_nonnull (strstr (error->message, "solvers that can: constraint"));
}

/* A box 4 mm wider than the gap between two fixed bars (penalty-clamped-box.yaml, sunk
 * 10 um as its rest under the penalty model leaves it), under the constraint response: no
 * rigid contact can part it from both bars, and none may lift it. Every contact's normal is
 * along the bars' faces' normal (x): the points beside the box's top edges, where its
 * nearest face is the top one across the edge, take the bars' faces, which the rest of the
 * contact presses along (cell_constraints_end_pair); averaged with the box's top face they
 * leaned the cells along the edges by up to 45 degrees (1 - |n_x| = 0.30). And the box is
 * not lifted: the constraint solver undoes a position pass that leaves the contacts more
 * violated than the step's end found them (its rows cannot all hold); before, the passes
 * carried the box 0.3 m up and out of the clamp in ten steps. Falling out (no squeeze force
 * holds it, as under ldi and proximity) is allowed. Bounds: 1 - |n_x| under 1e-5 (points
 * outside the box's edges take the direction from the edge, 10 um off level over a step:
 * 9e-7 measured); the box's height never above its start by more than the clamp's overlap,
 * 2 mm, what a pass resolving it could lift it by. */
static void
test_clamp (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  static const char *yaml =
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian }\n"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: left-bar\n"
    "    shape: { type: box, size: [0.1, 0.4, 0.6] }\n"
    "    pose: { position: [-0.148, 0, 0.3] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: right-bar\n"
    "    shape: { type: box, size: [0.1, 0.4, 0.6] }\n"
    "    pose: { position: [0.148, 0, 0.3] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0, 0, 0.39999] }\n"
    "    material: { density: 500, friction: 0.5 }\n";
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  const CwbContactSet *set = fixture_detect (world, CWB_CONTACT_PASS_POSITION);
  double leaning = 0;
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      leaning = MAX (leaning, 1 - fabs (frame->normal[0]));
    }
  double start = summary (world, 2).centroid[2], highest = start, lowest = start;
  for (int k = 0; k < 40; k++)
    {
      fixture_step (world, 1);
      double z = summary (world, 2).centroid[2];
      highest = MAX (highest, z);
      lowest = MIN (lowest, z);
    }
  g_test_message ("%u contacts, their normals off x by up to %.3g (1 - |n_x|); over 40 steps "
                  "the box between %.4f and %.4f m (from %.4f m)", set->frames->len, leaning,
                  lowest, highest, start);
  g_assert_cmpuint (set->frames->len, >, 20);
  g_assert_cmpfloat (leaning, <, 1e-5);
  g_assert_cmpfloat (highest - start, <, 0.002);
}

/* Three rigid rings hanging as a chain from a fixed one (chain-3-links.yaml's rings, 25 mm
 * tubes), under the penalty response at its automatic stiffness with implicit contacts (the
 * predictor-corrector's default beside this model). The links touch at points, where a
 * stiffness sized by the faces' area let them sink through each other (to the depth's
 * ceiling, two steps); sized by a curved contact's patch, pi r LOAD_SINK h for a tube of
 * radius r (contact_area), and by what hangs below each link as well as what rests on it,
 * they hold. The lower pair carries the lowest ring: k = W / (0.6 x 0.25 x pi r 0.25 h),
 * the smallest of the two pairs' (the upper one carries both rings), within 2 % (the
 * mesh's 2 V / S is its polygonal tube's, cos (pi / 32) of r and less); after 1.5 s the
 * chain hangs with its contacts under half a step deep (the sink sized is a quarter), the
 * rings started 5 and 10 mm short of where their tubes touch. */
static void
test_penalty_hanging_chain (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  static const char *yaml =
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: eulerian }\n"
    "solver: { name: predictor-corrector }\n"
    "bodies:\n"
    "  - name: top\n"
    "    shape: { type: torus, major_radius: 0.1, minor_radius: 0.025, resolution: 32 }\n"
    "    pose: { position: [0, 0, 0.5],\n"
    "            orientation: [0.7071067811865476, 0.7071067811865476, 0, 0] }\n"
    "    material: { density: 1100, friction: 0.3 }\n"
    "    fixed: true\n"
    "  - name: middle\n"
    "    shape: { type: torus, major_radius: 0.1, minor_radius: 0.025, resolution: 32 }\n"
    "    pose: { position: [0, 0, 0.355],\n"
    "            orientation: [0.7071067811865476, 0, 0.7071067811865476, 0] }\n"
    "    material: { density: 1100, friction: 0.3 }\n"
    "  - name: bottom\n"
    "    shape: { type: torus, major_radius: 0.1, minor_radius: 0.025, resolution: 32 }\n"
    "    pose: { position: [0, 0, 0.21],\n"
    "            orientation: [0.7071067811865476, 0.7071067811865476, 0, 0] }\n"
    "    material: { density: 1100, friction: 0.3 }\n";
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 300);
  double deepest = 0, lowest = INFINITY;
  for (int k = 0; k < 10; k++)
    {
      fixture_step (world, 1);
      deepest = MAX (deepest, cwb_world_contacts (world)->max_penetration);
      lowest = MIN (lowest, summary (world, 2).centroid[2]);
    }
  double step = derived (world, "cell_size"), stiffness = derived (world, "stiffness");
  double weight = summary (world, 2).mass * G;
  double closed = weight / (0.6 * 0.25 * G_PI * 0.025 * 0.25 * step);
  g_test_message ("hanging: contacts up to %.3g m deep (step %.3g m), the bottom ring's "
                  "centre at %.4f m (0.20 where the tubes touch); stiffness %.4g Pa "
                  "(closed form %.4g Pa)", deepest, step, lowest, stiffness, closed);
  g_assert_cmpfloat (fabs (stiffness - closed), <, 0.02 * closed);
  g_assert_cmpfloat (deepest, <, 0.5 * step);
  /* Two contacts above it, each under half a step. */
  g_assert_cmpfloat (lowest, >, 0.20 - step);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eulerian/constraint/ball-rests", test_ball_rests);
  g_test_add_func ("/eulerian/constraint/box-lands", test_box_lands);
  g_test_add_func ("/eulerian/constraint/incline", test_incline);
  g_test_add_func ("/eulerian/penalty/incline", test_penalty_incline);
  g_test_add_func ("/eulerian/constraint/clamp", test_clamp);
  g_test_add_func ("/eulerian/constraint/momentum", test_momentum_constraint);
  g_test_add_func ("/eulerian/penalty/momentum-rigid-rigid", test_momentum_rigid_rigid);
  g_test_add_func ("/eulerian/penalty/momentum-rigid-fem", test_momentum_rigid_fem);
  g_test_add_func ("/eulerian/penalty/momentum-fem-fem", test_momentum_fem_fem);
  g_test_add_func ("/eulerian/penalty/momentum-implicit", test_momentum_implicit);
  g_test_add_func ("/eulerian/penalty/assembled-blocks", test_assembled_blocks);
  g_test_add_func ("/eulerian/penalty/action-reaction", test_action_reaction);
  g_test_add_func ("/eulerian/penalty/body-stiffness/rigid", test_body_stiffness_rigid);
  g_test_add_func ("/eulerian/penalty/body-stiffness/fem", test_body_stiffness_fem);
  g_test_add_func ("/eulerian/penalty/stable-stiffness", test_stable_stiffness);
  g_test_add_func ("/eulerian/penalty/heavy-on-light", test_penalty_heavy_on_light);
  g_test_add_func ("/eulerian/penalty/particle-rod", test_penalty_particle_rod);
  g_test_add_func ("/eulerian/penalty/thin-depth", test_penalty_thin_depth);
  g_test_add_func ("/eulerian/penalty/particle-ball", test_penalty_particle_ball);
  g_test_add_func ("/eulerian/penalty/crossed-bars", test_penalty_crossed_bars);
  g_test_add_func ("/eulerian/penalty/coupling-acceleration", test_coupling_acceleration);
  g_test_add_func ("/eulerian/penalty/body-damping/friction", test_body_damping_friction);
  g_test_add_func ("/eulerian/penalty/ball-bounces", test_penalty_ball_bounces);
  g_test_add_func ("/eulerian/penalty/implicit-rest", test_penalty_implicit_rest);
  g_test_add_func ("/eulerian/penalty/fem-friction-rest", test_penalty_fem_friction_rest);
  g_test_add_func ("/eulerian/penalty/load-stiffness", test_penalty_load_stiffness);
  g_test_add_func ("/eulerian/penalty/hanging-chain", test_penalty_hanging_chain);
  g_test_add_func ("/eulerian/penalty/implicit-follows-model", test_implicit_follows_model);
  g_test_add_func ("/eulerian/penalty/twist", test_penalty_twist);
  g_test_add_func ("/eulerian/response/automatic", test_automatic_response);
  g_test_add_func ("/eulerian/particles/momentum", test_momentum_particles);
  g_test_add_func ("/eulerian/particles/rest", test_particles_rest);
  g_test_add_func ("/eulerian/hierarchy/flat-equal", test_hierarchy_flat_equal);
  g_test_add_func ("/eulerian/inspection/density-voxels", test_density_voxels);
  g_test_add_func ("/eulerian/kinds/table", test_kinds_table);
  return g_test_run ();
}

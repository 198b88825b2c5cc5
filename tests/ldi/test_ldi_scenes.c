/* The LDI scenes of scenes/ through the whole pipeline:
 *
 *   - ldi-torus-stack: four rigid tori (tube radius r = 0.025 m) stacked on the ground, every
 *     contact a multi-volume intersection, come to rest, each at the height its tubes give,
 *     r + 2 r k for the k-th from the bottom;
 *   - ldi-deep-overlap: a box a quarter deep in the ground and a ball half a radius in the
 *     box are separated by the first step without gaining velocity (Allard 2010 sec. 6),
 *     where holding positions in the velocity pass throws them out;
 *   - ldi-detailed-rigids: two rigid rocker arms of 20 088 triangles each, one dropped across
 *     the other on the ground (Allard 2010 fig. 8), come to rest on a handful of contacts
 *     (the paper: 7 on average, at most 16, for 345 944-triangle armadillos), every step
 *     leaving intersections within the regulated eps_V;
 *   - ldi-grasp: a deformable ball squeezed between two fixed jaws (fig. 2b) is held by
 *     friction with mu = 0.8, and with mu = 0.2 slides out as Coulomb's law says. */
#include <math.h>

#include "world_fixture.h"

#define TUBE 0.025
/* Kinetic energy of a resting stack after 2 s: the tori fell 2 mm (4e-3 J in all), and a
 * settled stack keeps only the solver's residual motion; 1e-5 J is 0.25 % of what the fall
 * brought in. */
#define REST_ENERGY 1e-5
/* Each contact may keep up to the stabilization target of intersection (half the scene's
 * derived pixel of 2.3 mm, 1.15 mm) and the 32-sided tubes stand 0.12 mm inside the true
 * tube on each side (r (1 - cos(pi/32))): a torus may sit up to 1.27 mm lower per contact
 * below it. */
#define SINK_PER_CONTACT 1.27e-3
/* After the deep overlap's first step: the bodies had no velocity, gravity adds g h = 0.049
 * m/s, the velocity rows remove it, and what one volume per pair leaves free is rocking:
 * 1e-4 J is 1e-6 of the 290 J position rows give (and a body of 2 kg at 1e-2 m/s). */
#define OVERLAP_ENERGY 1e-4

#define G 9.81

/* ldi-detailed-rigids: its step, pixel and stabilization target (half a pixel). */
#define ARMS_DT 0.005
#define ARMS_PIXEL 0.003
#define ARMS_TARGET (0.5 * ARMS_PIXEL)
/* 1 s: the upper arm lands after 45 ms, and the pair has settled by 0.5 s. */
#define ARMS_STEPS 200
/* The rest is judged over the last 0.4 s, where contacts still appear and vanish at cell
 * walls and give small kicks. The falls bring 0.31 J (2.65 kg arms dropped 1 cm and 2 mm);
 * 1e-5 J is 3e-5 of it, an arm moving at 2.7 mm/s. */
#define ARMS_REST_WINDOW 80
#define ARMS_REST_ENERGY 1e-5
/* Allard 2010 sec. 6: at most 16 contacts (7 on average) for two armadillos of 345 944
 * triangles, where distance fields make about 200. The count follows the contact patches
 * and the cells they cross, not the meshes' detail. */
#define ARMS_MAX_CONTACTS 16
/* The post-stabilization stops once every contact's mean depth V / A is within the target,
 * and leaves the positions it detected last; 1e-9 m is rounding room only. */
#define ARMS_DEPTH_SLACK 1e-9

/* ldi-grasp: the ball's index, and its friction with the jaws (each material 0.8; the
 * contact takes sqrt (mu_a mu_b)). The override sets the ball's to 0.05: sqrt (0.05 0.8). */
#define GRASP_BALL 2
#define GRASP_PIXEL 0.002
/* After the first step the overlaps are down to the target (half a pixel) up to the position
 * solves' residual: their Gauss-Seidel stops at the scene's 200 sweeps before its 1e-9 m
 * tolerance on these 14 cells coupled through the ball (measured 2e-8 m over); 1e-6 m is a
 * thousandth of the target. */
#define GRASP_DEPTH_SLACK 1e-6
/* And the ball took no velocity from them: the first step is a free fall (the velocity rows
 * see no approach, so no pressure and no friction yet), kinetic energy m (g h)^2 / 2, and
 * the squeeze adds nothing to it: relative 1e-6. */
#define GRASP_FIRST_ENERGY_RELATIVE 1e-6
#define GRASP_MU 0.8
#define GRASP_SLIP_MU 0.2
/* Held for 1 s: the ball sags while the contacts load (shear of the soft ball under the
 * friction, which uses 0.44 of what it could give), then sticks. The bound is one pixel
 * (2 mm), the size below which the LDI does not resolve positions; measured 0.67 mm. */
#define GRASP_HELD_STEPS 200
#define GRASP_HELD_DROP 2e-3
/* Sticking: no slide over the last 0.5 s. 1e-5 m is half a percent of a pixel; a sliding
 * ball, even at a tenth of the friction deficit of the slip case, would fall centimetres. */
#define GRASP_CREEP 1e-5
/* At rest, Newton's law along x makes both jaws' pushes equal, and along z the frictions
 * sum to the weight, up to the momentum left (kinetic energy 2e-12 J) and the solver's
 * residual: relative 1e-4 (measured 1e-6). */
#define GRASP_BALANCE 1e-4
/* The frames' normal forces of the two jaws, summed, are equal only up to the tilt of the
 * cells' normals off the jaws' (x): the gradient along the surfaces' normals (`gradient:
 * normal`) gives each interval the mean of the jaw's and the ball's normals, at most 2.5
 * degrees off either (bounds further apart keep the axis), so a frame's normal force exceeds
 * its push along x by at most 1 - cos 2.5 degrees, 1e-3 (measured 8e-6 apart). */
#define GRASP_NORMAL_TILT (1 - 0.9990482215818578)
/* A single volume per jaw leaves the spin about the jaws' axis free (no torsional friction
 * over the patch): the ball turns 4 degrees in 0.5 s, 14 in 1 s, 21 in 1.5 s. The cells
 * hold it: measured 0.25 degrees, set in the first 0.1 s. */
#define GRASP_SPIN (1.0 * G_PI / 180)
/* Slipping for 0.3 s: every loaded frame is on its cone, so the friction is mu N with N the
 * frames' normal forces, and the fall is g less mu N / m, stepped as the integrator steps.
 * 1 % covers what the estimate leaves out: the normals' z components and friction
 * directions off the vertical as the ball turns (8 degrees); measured 2.6e-3. */
#define GRASP_SLIP_STEPS 60
#define GRASP_COULOMB_RELATIVE 1e-2
/* Then out of the jaws: they reach 0.25 m below the ball's centre; after 0.5 s it must be
 * past them, with no contact left (measured: left at 0.38 s, 0.52 m down after 0.5 s). */
#define GRASP_FALL_STEPS 40
#define GRASP_JAW_BELOW 0.25

static double
total_kinetic_energy (CwbWorld *world)
{
  double total = 0;
  for (size_t b = 0; b < cwb_world_n_bodies (world); b++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, b, &s);
      total += s.kinetic_energy;
    }
  return total;
}

static void
test_torus_stack (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world_from_file (registry, "scenes/ldi-torus-stack.yaml",
                                                        NULL);
  fixture_step (world, 400);
  double energy = total_kinetic_energy (world);
  g_test_message ("kinetic energy after 2 s: %.3g J", energy);
  g_assert_cmpfloat (energy, <, REST_ENERGY);
  for (size_t k = 0; k < 4; k++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, k + 1, &s);
      double expected = TUBE + 2 * TUBE * (double) k;
      g_test_message ("torus %zu: height %.5f m, tubes on tubes %.5f m", k, s.centroid[2],
                      expected);
      /* Not higher than on exact tubes, but for a tilt: a torus resting 1 degree off flat
       * on the one below lifts its centroid by about 0.1 mm (the bottom one measured
       * 0.06 mm high). */
      g_assert_cmpfloat (s.centroid[2], <=, expected + 1e-4);
      g_assert_cmpfloat (s.centroid[2], >=, expected - SINK_PER_CONTACT * (double) (k + 1));
    }
}

static void
test_deep_overlap (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world_from_file (registry, "scenes/ldi-deep-overlap.yaml",
                                                        NULL);
  fixture_step (world, 1);
  double energy = total_kinetic_energy (world);
  const char *sets[] = { "solver.normal_constraint=position", NULL };
  g_autoptr (CwbWorld) thrown = fixture_world_from_file (registry,
                                                         "scenes/ldi-deep-overlap.yaml", sets);
  fixture_step (thrown, 1);
  double thrown_energy = total_kinetic_energy (thrown);
  g_test_message ("kinetic energy after the first step: %.3g J (position rows: %.3g J)",
                  energy, thrown_energy);
  g_assert_cmpfloat (energy, <, OVERLAP_ENERGY);
  g_assert_cmpfloat (thrown_energy, >, 1);
  /* Out of the ground and of each other: the box's bottom above the ground's top less the
   * target layer (half a pixel of 4 mm), the ball above the box likewise (centres, as the
   * box barely turns). */
  CwbBodySummary box, ball;
  cwb_world_body_summary (world, 1, &box);
  cwb_world_body_summary (world, 2, &ball);
  g_test_message ("box centre at %.4f m, ball centre at %.4f m", box.centroid[2],
                  ball.centroid[2]);
  g_assert_cmpfloat (box.centroid[2], >, 0.1 - 0.002 - 0.005);
  g_assert_cmpfloat (ball.centroid[2], >, box.centroid[2] + 0.1 + 0.08 - 0.002 - 0.01);
}

/* The lowest and highest vertex of a body's surface, as last mapped. */
static void
body_heights (CwbWorld *world, size_t body, double *lowest, double *highest)
{
  size_t n;
  const CwbGeometry *geometries = cwb_world_geometries (world, &n);
  *lowest = INFINITY;
  *highest = -INFINITY;
  for (size_t g = 0; g < n; g++)
    if (geometries[g].body == body)
      for (size_t k = 0; k < geometries[g].n_points; k++)
        {
          *lowest = MIN (*lowest, geometries[g].positions[3 * k + 2]);
          *highest = MAX (*highest, geometries[g].positions[3 * k + 2]);
        }
}

static void
test_detailed_rigids (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world_from_file (registry,
                                                        "scenes/ldi-detailed-rigids.yaml", NULL);
  g_assert_cmpfloat (cwb_world_dt (world), ==, ARMS_DT);
  size_t n_geometries;
  const CwbGeometry *geometries = cwb_world_geometries (world, &n_geometries);
  g_assert_cmpuint (geometries[1].n_triangles, ==, 20088);
  g_assert_cmpuint (geometries[2].n_triangles, ==, 20088);
  double contacts_sum = 0, deepest = 0, late_energy = 0;
  size_t contacts_max = 0, left_max = 0;
  gint64 start = g_get_monotonic_time ();
  for (int k = 0; k < ARMS_STEPS; k++)
    {
      fixture_step (world, 1);
      size_t frames = cwb_world_contacts (world)->frames->len, left;
      contacts_sum += (double) frames;
      contacts_max = MAX (contacts_max, frames);
      double depth = fixture_deepest_contact (world, &left);
      left_max = MAX (left_max, left);
      deepest = MAX (deepest, depth);
      if (k >= ARMS_STEPS - ARMS_REST_WINDOW)
        late_energy = MAX (late_energy, total_kinetic_energy (world));
    }
  double lo0, hi0, lo1, hi1;
  body_heights (world, 1, &lo0, &hi0);
  body_heights (world, 2, &lo1, &hi1);
  g_test_message ("contacts per step: mean %.2f, at most %zu (at the end of the steps at most "
                  "%zu); deepest mean depth left by a step %.3g px (target 0.5)",
                  contacts_sum / ARMS_STEPS, contacts_max, left_max, deepest / ARMS_PIXEL);
  g_test_message ("kinetic energy: at most %.3g J over the last 0.4 s, %.3g J at 1 s",
                  late_energy, total_kinetic_energy (world));
  g_test_message ("lower arm from %.5f to %.5f m, upper arm from %.5f to %.5f m (%.1f s)", lo0,
                  hi0, lo1, hi1, (g_get_monotonic_time () - start) / 1e6);

  g_assert_cmpuint (contacts_max, <=, ARMS_MAX_CONTACTS);
  g_assert_cmpfloat (deepest, <=, ARMS_TARGET + ARMS_DEPTH_SLACK);
  g_assert_cmpfloat (late_energy, <, ARMS_REST_ENERGY);
  /* The lower arm stands on the ground: not deeper than twice the target (the deepest point
   * of a wedge-shaped intersection is twice its mean depth), and not higher than a free step
   * sinks it, g h^2 (0.25 mm): the velocity pass, which detects at the free configuration,
   * finds a contact every step only if so; otherwise the arm would be falling. */
  g_assert_cmpfloat (lo0, >=, -2 * ARMS_TARGET);
  g_assert_cmpfloat (lo0, <=, G * ARMS_DT * ARMS_DT);
  /* The upper arm lies across the lower one, 6 cm above the ground: its lowest point no
   * deeper than twice the target below the lower arm's highest. */
  g_assert_cmpfloat (lo1, >=, hi0 - 2 * ARMS_TARGET);
}

/* The force the ball presses jaw `jaw` with (world frame), summed over the jaw's frames,
 * and the sum of their normal forces. */
static void
jaw_force (CwbWorld *world, uint32_t jaw, double force[3], double *normal)
{
  const CwbContactSet *set = cwb_world_contacts (world);
  force[0] = force[1] = force[2] = 0;
  *normal = 0;
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      double on_a[3];
      fixture_frame_force (frame, on_a);
      if (frame->body_a == jaw)
        cwb_v3_add (force, force, on_a);
      else if (frame->body_b == jaw)
        cwb_v3_sub (force, force, on_a);
      else
        continue;
      *normal += frame->force[0];
    }
}

typedef struct GraspRun {
  double drop;                 /* m, of the ball's centre of mass over the run */
  double half_drop;            /* m, over the first half of the run */
  double coulomb_drop;         /* m: the fall with friction mu N, N the frames' normal forces
                                * of each step, stepped as the integrator steps */
  double left[3], right[3];    /* the last step's forces on the jaws, N */
  double normal_left, normal_right;   /* and their normal forces, N */
  double spin;                 /* rad: the angle of the ball's best-fit rotation */
  double mass;                 /* kg */
} GraspRun;

static void
grasp_run (CwbWorld *world, int steps, double mu, gboolean sliding, GraspRun *run)
{
  CwbBodySummary s;
  cwb_world_body_summary (world, GRASP_BALL, &s);
  double z0 = s.centroid[2], h = cwb_world_dt (world), v = s.linear_velocity[2];
  run->mass = s.mass;
  run->coulomb_drop = 0;
  for (int k = 0; k < steps; k++)
    {
      fixture_step (world, 1);
      if (sliding)
        fixture_assert_loaded_frames_slip (world);
      jaw_force (world, 0, run->left, &run->normal_left);
      jaw_force (world, 1, run->right, &run->normal_right);
      v -= h * (G - mu * (run->normal_left + run->normal_right) / run->mass);
      run->coulomb_drop -= h * v;
      cwb_world_body_summary (world, GRASP_BALL, &s);
      if (k == steps / 2 - 1)
        run->half_drop = z0 - s.centroid[2];
    }
  run->drop = z0 - s.centroid[2];
  run->spin = 2 * acos (MIN (1, fabs (s.orientation[0])));
}

static void
test_grasp (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  /* The ball's rest compliance C0 is not needed (the scene's compliance is exact): keep
   * nothing in the user's cache. */
  const char *sets[] = { "bodies.ball.model_params.compliance_cache=false", NULL };
  g_autoptr (CwbWorld) held = fixture_world_from_file (registry, "scenes/ldi-grasp.yaml", sets);
  /* The first step: the 4 mm overlaps, with the ball at rest, go into the ball's
   * compression, not into velocity (Allard 2010 sec. 6). */
  GraspRun first = { 0 }, run = { 0 };
  gint64 start = g_get_monotonic_time ();
  grasp_run (held, 1, GRASP_MU, FALSE, &first);
  size_t frames;
  double deepest = fixture_deepest_contact (held, &frames);
  CwbBodySummary ball;
  cwb_world_body_summary (held, GRASP_BALL, &ball);
  double free_fall = 0.5 * ball.mass * pow (G * cwb_world_dt (held), 2);
  g_test_message ("first step: mean depth left %.8g px (target 0.5) in %zu contacts, kinetic "
                  "energy %.8g J (a free step: %.8g J)", deepest / GRASP_PIXEL, frames,
                  ball.kinetic_energy, free_fall);
  g_assert_cmpfloat (deepest, <=, 0.5 * GRASP_PIXEL + GRASP_DEPTH_SLACK);
  g_assert_cmpfloat (ball.kinetic_energy, <, free_fall * (1 + GRASP_FIRST_ENERGY_RELATIVE));
  grasp_run (held, GRASP_HELD_STEPS - 1, GRASP_MU, FALSE, &run);
  run.drop += first.drop;
  run.half_drop += first.drop;
  double weight = run.mass * G, squeeze = run.normal_left + run.normal_right;
  g_test_message ("held: drop %.3g m after 1 s, %.3g m over the last 0.5 s, turned %.3g "
                  "degrees (%.1f s)", run.drop, run.drop - run.half_drop,
                  run.spin * 180 / G_PI, (g_get_monotonic_time () - start) / 1e6);
  g_test_message ("held: normal forces %.6f and %.6f N (x: %.6f, %.6f), friction %.5f + %.5f "
                  "N against the weight %.5f N; mu N = %.4f N per jaw could hold %.4f N",
                  run.normal_left, run.normal_right, -run.left[0], run.right[0],
                  -run.left[2], -run.right[2], weight, GRASP_MU * run.normal_left,
                  GRASP_MU * squeeze);
  g_assert_cmpfloat (run.drop, <, GRASP_HELD_DROP);
  g_assert_cmpfloat (fabs (run.drop - run.half_drop), <, GRASP_CREEP);
  g_assert_cmpfloat (fabs (run.normal_left - run.normal_right), <, GRASP_NORMAL_TILT * squeeze);
  g_assert_cmpfloat (fabs (run.left[0] + run.right[0]), <, GRASP_BALANCE * squeeze);
  g_assert_cmpfloat (fabs (-run.left[2] - run.right[2] - weight), <, GRASP_BALANCE * weight);
  g_assert_cmpfloat (run.spin, <, GRASP_SPIN);
  /* By design the squeeze holds with mu = 0.8 but not with 0.2. */
  g_assert_cmpfloat (GRASP_MU * squeeze, >, weight);
  g_assert_cmpfloat (GRASP_SLIP_MU * squeeze, <, weight);

  const char *slip_sets[] = { "bodies.ball.model_params.compliance_cache=false",
                              "bodies.ball.friction=0.05", NULL };
  g_autoptr (CwbWorld) slips = fixture_world_from_file (registry, "scenes/ldi-grasp.yaml",
                                                        slip_sets);
  start = g_get_monotonic_time ();
  grasp_run (slips, GRASP_SLIP_STEPS, GRASP_SLIP_MU, TRUE, &run);
  double t = GRASP_SLIP_STEPS * cwb_world_dt (slips);
  g_test_message ("slips: drop %.5f m after %.2g s, Coulomb with the frames' normal forces "
                  "%.5f m (last %.4f and %.4f N), free fall %.4f m", run.drop, t,
                  run.coulomb_drop, run.normal_left, run.normal_right, 0.5 * G * t * t);
  g_assert_cmpfloat (fabs (run.drop - run.coulomb_drop), <,
                     GRASP_COULOMB_RELATIVE * run.coulomb_drop);
  double sliding_drop = run.drop;
  grasp_run (slips, GRASP_FALL_STEPS, 0, FALSE, &run);
  g_test_message ("slips: drop %.4f m after %.2g s, %u contacts left (%.1f s)",
                  sliding_drop + run.drop, cwb_world_time (slips),
                  cwb_world_contacts (slips)->frames->len,
                  (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpuint (cwb_world_contacts (slips)->frames->len, ==, 0);
  g_assert_cmpfloat (sliding_drop + run.drop, >, GRASP_JAW_BELOW);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/scenes/torus-stack", test_torus_stack);
  g_test_add_func ("/ldi/scenes/deep-overlap", test_deep_overlap);
  g_test_add_func ("/ldi/scenes/detailed-rigids", test_detailed_rigids);
  g_test_add_func ("/ldi/scenes/grasp", test_grasp);
  return g_test_run ();
}

/* Allard 2010 Algorithm 1 with the `ldi` model: a velocity MLCP that keeps every contact from
 * deepening (eq. 16-17), then post-stabilization by position MLCPs on re-computed LDIs while
 * the volume exceeds eps_V (eq. 18-19), eps_V regulated so that the mean depth stays half a
 * pixel (sec. 4.3). After every step each contact's mean depth V / A, measured afresh on the
 * final positions by the model itself (one per cell with multi-volume), must be within the
 * target (plus the solver's tolerance):
 *
 *   - a box dropped on the ground (multi-volume: a single volume constrains one direction
 *     of six, and the box rocks on it) comes to rest, its contact forces balance its weight;
 *     every step ends within the target (in fact touching: the velocity pass, detecting at
 *     the free configuration, leaves nothing for the stabilization);
 *   - a box resting a pixel deep (twice the target), with one volume and with cells: without
 *     stabilization the velocity rows keep the pixel (the reference that the check can
 *     fail), with it every step ends within the target;
 *   - a box started deep in the ground (a quarter of its side) is separated by the first
 *     step without gaining velocity (sec. 6's claim for medical scenes), where a solver
 *     holding the contact's position in the velocity pass (Saupin 2008) throws it out. */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define BOX 0.2
#define DT 0.005
#define PIXEL 0.005
#define TARGET (0.5 * PIXEL)   /* the model's default target_depth, half a pixel */

/* The stabilization loop stops once every row is within its tolerance up to the solver's
 * (1e-12 m here) and leaves the positions it detected last: the fresh measure is that
 * detection, bit for bit (same region, same pixels). 1e-9 m is rounding room only. */
#define DEPTH_SLACK 1e-9
/* A box at rest: every velocity component below 1e-6 m/s (rad/s): the velocity rows hold
 * the contact's rate at zero to the solver's residual, 1e-12 m per step of 5 ms. */
#define REST_SPEED 1e-6
/* After the deep overlap's first step: the velocity MLCP stops the step's gravity increment
 * g h = 0.049 m/s along the single volume row; what a mono-volume contact leaves free is the
 * rocking about its centre (5 of the 6 directions are unconstrained to first order), which
 * the off-centre pressure starts at about 2e-4 m/s here. 1e-3 m/s is 1e-4 of the 10 m/s that
 * holding positions in the velocity pass gives the same overlap. */
#define OVERLAP_SPEED 1e-3
/* The contact force against the weight, relative: the velocity MLCP's residual. */
#define FORCE_RELATIVE_TOLERANCE 1e-6

/* The box over the ground, turned 10 degrees about z: its centre's height, the velocity
 * pass's rows (normal_constraint), one volume or cells of 0.05 m, the solver's stabilization
 * passes. */
typedef struct Drop {
  double height;
  const char *normal_constraint;
  gboolean multi_volume;
  int stabilization_iterations;
} Drop;

static char *
ground_scene (const Drop *drop)
{
  char z[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf (
    "world: { dt: %g, gravity: [0, 0, -9.81] }\n"
    "contact: { model: ldi, pixel_size: %g, threads: 1, multi_volume: %s, cell_size: 0.05 }\n"
    "solver: { name: constraint, iterations: 500, tolerance: 1.0e-12, friction: cone,\n"
    "          normal_constraint: %s, stabilization_iterations: %d }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [2, 2, 0.5] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: box\n"
    "    shape: { type: box, size: [%g, %g, %g] }\n"
    "    pose: { position: [0.013, -0.021, %s], orientation: [0.9961946980917455, 0, 0, "
    "0.08715574274765817] }\n"
    "    material: { density: 500, friction: 0.5 }\n",
    DT, PIXEL, drop->multi_volume ? "true" : "false", drop->normal_constraint,
    drop->stabilization_iterations, BOX, BOX, BOX,
    g_ascii_dtostr (z, sizeof z, drop->height));
}

static double
largest_speed (CwbWorld *world)
{
  size_t nv;
  const double *v = cwb_world_v (world, &nv);
  const CwbBodySlot *slot = cwb_world_body_slot (world, 1);
  double worst = 0;
  for (size_t d = 0; d < slot->nv; d++)
    worst = MAX (worst, fabs (v[slot->v_offset + d]));
  return worst;
}

/* Drops the box 5 mm (multi-volume or not) and runs `steps` steps, measuring after each the
 * deepest contact afresh: the largest over all steps, and the smallest once resting. */
static CwbWorld *
run_measured (CwbRegistry *registry, const Drop *drop, int steps, double *deepest,
              double *shallowest)
{
  g_autofree char *yaml = ground_scene (drop);
  CwbWorld *world = fixture_world (registry, yaml);
  *deepest = 0;
  *shallowest = INFINITY;
  for (int k = 0; k < steps; k++)
    {
      fixture_step (world, 1);
      CwbStepStats stats = *cwb_world_last_stats (world);
      double depth = fixture_deepest_contact (world, NULL);
      *deepest = MAX (*deepest, depth);
      /* What the solver reported of its post-stabilization (CwbStepContext.
       * report_stabilization) is this same end-of-step measure. */
      if (drop->stabilization_iterations > 0)
        {
          g_assert_cmpint (stats.stabilization_passes, >=, 0);
          g_assert_cmpint (stats.stabilization_passes, <=, drop->stabilization_iterations);
          g_assert_cmpfloat_with_epsilon (stats.max_penetration, depth, 1e-12);
        }
      if (k >= steps / 2)   /* landed (a 5 mm fall takes 32 ms) and settled */
        *shallowest = MIN (*shallowest, depth);
    }
  return world;
}

static void
test_comes_to_rest (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  double deepest, shallowest;
  Drop drop = { .height = BOX / 2 + 0.005, .normal_constraint = "velocity",
                .multi_volume = TRUE, .stabilization_iterations = 10 };
  g_autoptr (CwbWorld) world = run_measured (registry, &drop, 200, &deepest, &shallowest);
  /* One more step, unmeasured: the world's contact set is then the step's, with forces. */
  fixture_step (world, 1);
  double speed = largest_speed (world);
  g_test_message ("deepest cell at the end of a step: at most %.4g px, at least %.4g px once "
                  "resting; final speed %.3g", deepest / PIXEL, shallowest / PIXEL, speed);
  g_assert_cmpfloat (deepest, <=, TARGET + DEPTH_SLACK);
  /* No lower bound: the solver detects at the free configuration, which gravity sinks by
   * g h^2 each step, so a resting contact is found every step even when the step ends
   * exactly touching (the velocity rows stop the sinking; Allard's loop detects at the
   * step's start instead and needs the half-pixel layer to keep the contact). */
  g_assert_cmpfloat (speed, <, REST_SPEED);

  CwbBodySummary s;
  cwb_world_body_summary (world, 1, &s);
  const CwbContactSet *set = cwb_world_contacts (world);
  g_assert_cmpuint (set->frames->len, >, 1);
  double force[3] = { 0, 0, 0 };
  for (guint f = 0; f < set->frames->len; f++)
    {
      double cell_force[3];
      fixture_frame_force (&g_array_index (set->frames, CwbContactFrame, f), cell_force);
      cwb_v3_add (force, force, cell_force);
    }
  /* The frames' forces are on body a, the ground (body 0): minus the box's support. */
  double weight = s.mass * G;
  g_test_message ("contact force %.6g N against the weight %.6g N", -force[2], weight);
  g_assert_cmpfloat (fabs (-force[2] - weight), <, FORCE_RELATIVE_TOLERANCE * weight);
  g_assert_cmpfloat (hypot (force[0], force[1]), <, FORCE_RELATIVE_TOLERANCE * weight);
}

/* A box resting one pixel deep in the ground, twice the target: the first step's
 * stabilization lifts it to within the target, and every later step ends there too, for
 * SUNK_STEPS steps; the largest mean depth at the end of a step is returned in *deepest, the
 * box's largest distance from resting on the ground (its centre at BOX / 2) in *height_off.
 * FALSE, with *thrown the box's height, when a step threw it off the ground (farther than
 * THROWN_HEIGHT). */
#define SUNK_STEPS 100
#define THROWN_HEIGHT 1.0

static gboolean
run_sunk (CwbRegistry *registry, gboolean multi_volume, int stabilization_iterations,
          double *deepest, double *height_off, double *speed, double *thrown)
{
  Drop drop = { .height = BOX / 2 - PIXEL, .normal_constraint = "velocity",
                .multi_volume = multi_volume,
                .stabilization_iterations = stabilization_iterations };
  g_autofree char *yaml = ground_scene (&drop);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  *deepest = *height_off = 0;
  for (int k = 0; k < SUNK_STEPS; k++)
    {
      fixture_step (world, 1);
      CwbBodySummary s;
      cwb_world_body_summary (world, 1, &s);
      if (fabs (s.centroid[2]) > THROWN_HEIGHT)
        {
          *thrown = s.centroid[2];
          return FALSE;
        }
      *height_off = MAX (*height_off, fabs (s.centroid[2] - BOX / 2));
      *deepest = MAX (*deepest, fixture_deepest_contact (world, NULL));
    }
  *speed = largest_speed (world);
  return TRUE;
}

/* Without stabilization the velocity rows keep the pixel (the reference: the depth check
 * below can fail); with it, every step ends within the target, the box within two pixels of
 * resting on the ground (the overlap removed, plus half a pixel of layer). Whether the box
 * comes to rest on a single row, which leaves it free to rock, is not this test's: its speed
 * is reported only (docs/plugins/ldi.md). */
static void
test_sunk_mono_volume (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  double deepest, height_off, speed, thrown;
  g_assert_true (run_sunk (registry, FALSE, 0, &deepest, &height_off, &speed, &thrown));
  g_test_message ("one volume, no stabilization: mean depth up to %.4g px", deepest / PIXEL);
  g_assert_cmpfloat (deepest, >, 1.5 * TARGET);
  g_assert_true (run_sunk (registry, FALSE, 10, &deepest, &height_off, &speed, &thrown));
  g_test_message ("one volume: mean depth up to %.4g px at the end of a step, centre %.3g px "
                  "off resting, final speed %.3g", deepest / PIXEL, height_off / PIXEL, speed);
  g_assert_cmpfloat (deepest, <=, TARGET + DEPTH_SLACK);
  g_assert_cmpfloat (height_off, <=, 2 * PIXEL);
}

/* The same with cells of 0.05 m (the speed reported only, as for one volume). */
static void
test_sunk_cells (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  double deepest, height_off, speed, thrown;
  g_assert_true (run_sunk (registry, TRUE, 0, &deepest, &height_off, &speed, &thrown));
  g_test_message ("cells, no stabilization: deepest cell up to %.4g px", deepest / PIXEL);
  g_assert_cmpfloat (deepest, >, 1.5 * TARGET);
  /* The box, turned 10 degrees about z, pokes its corners into three cells of the next
   * column by less than a pixel's footprint: no z-image pixel centre falls in those pieces,
   * and in the x and y images both ends of their intervals are the box's faces, so their
   * gradients cancel to round-off. volume_constraint_append refuses such a volume (its
   * normal is a sum cancelling below 1e-3 of its entries); taking the round-off as a
   * normal, with a mean depth of 13 to 34 pixels, had the first stabilization throw the
   * box to 1e15 m. */
  gboolean stayed = run_sunk (registry, TRUE, 10, &deepest, &height_off, &speed, &thrown);
  if (!stayed)
    g_test_message ("cells: the box was thrown to z = %.3g m", thrown);
  g_assert_true (stayed);
  g_test_message ("cells: deepest cell up to %.4g px at the end of a step, centre %.3g px "
                  "off resting, final speed %.3g", deepest / PIXEL, height_off / PIXEL, speed);
  g_assert_cmpfloat (deepest, <=, TARGET + DEPTH_SLACK);
  g_assert_cmpfloat (height_off, <=, 2 * PIXEL);
}

/* A quarter of the box deep in the ground, at rest. */
static void
test_deep_overlap (void)
{
  double height = BOX / 2 - BOX / 4;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  Drop drop = { .height = height, .normal_constraint = "velocity",
                .stabilization_iterations = 10 };
  g_autofree char *yaml = ground_scene (&drop);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  double before = fixture_deepest_contact (world, NULL);
  fixture_step (world, 1);
  CwbStepStats stats = *cwb_world_last_stats (world);
  double after = fixture_deepest_contact (world, NULL), speed = largest_speed (world);
  g_test_message ("Algorithm 1: mean depth %.4g m -> %.4g px in one step, speed %.3g m/s",
                  before, after / PIXEL, speed);
  g_assert_cmpfloat (fabs (before - BOX / 4), <, 0.1 * PIXEL);
  g_assert_cmpfloat (after, <=, TARGET + DEPTH_SLACK);
  g_assert_cmpfloat (speed, <, OVERLAP_SPEED);
  /* The solver's report of its post-stabilization: the passes it took (at most the 10
   * allowed), the violation left beyond the target at the step's end (none: within the
   * solver's 1e-12 m tolerance), and the end-of-step depth the test measured afresh. */
  g_test_message ("post-stabilization: %d passes, %.3g m left beyond the target",
                  stats.stabilization_passes, stats.stabilization_violation);
  g_assert_cmpint (stats.stabilization_passes, >=, 1);
  g_assert_cmpint (stats.stabilization_passes, <=, 10);
  g_assert_cmpfloat (stats.stabilization_violation, <=, 1e-12);
  g_assert_cmpfloat_with_epsilon (stats.max_penetration, after, 1e-12);

  /* Holding positions in the velocity pass undoes the same overlap with velocity: 5 cm in a
   * 5 ms step is 10 m/s. */
  drop.normal_constraint = "position";
  g_autofree char *position_yaml = ground_scene (&drop);
  g_autoptr (CwbWorld) thrown = fixture_world (registry, position_yaml);
  fixture_step (thrown, 1);
  g_test_message ("position rows: speed %.3g m/s after the first step", largest_speed (thrown));
  g_assert_cmpfloat (largest_speed (thrown), >, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/rest/comes-to-rest", test_comes_to_rest);
  g_test_add_func ("/ldi/rest/sunk-mono-volume", test_sunk_mono_volume);
  g_test_add_func ("/ldi/rest/sunk-cells", test_sunk_cells);
  g_test_add_func ("/ldi/rest/deep-overlap", test_deep_overlap);
  return g_test_run ();
}

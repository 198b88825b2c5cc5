/* The swap contract (issue 18): every shipped scene settles under its own contact model and
 * solver, then is swapped to every other (model, solver) pair the host offers and runs on,
 * each from the same settled state, the new pair with its defaults. A swap may release what
 * gravity can over the overlap the new model finds, and no more: the kinetic energy after
 * the swap stays under
 *   2 KE_swap + M |g| d
 * (M the moving mass, d the deepest penetration the new model reports after the swap: the
 * height its bodies may fall into it, or be pushed out by, in reaching its own rest; twice
 * KE_swap for a state not quite at rest). Nothing may blow up (every step succeeds), and no
 * body may pass through another: the deepest penetration stays under a third of the thinnest
 * moving body. The rise of the mechanical energy (kinetic plus gravity's potential) is
 * printed beside. One test per scene; each prints its rows of the matrix
 * (docs/validation.md). rain.yaml is measured by bench/swap_matrix.py only: its 40 FEM cows
 * under ldi take minutes a swap in a debug build. The fluid scenes (fluid-*.yaml) are
 * registered only with CWB_SWAP_FLUIDS set, for their time (40 s for fluid-floating.yaml
 * debugoptimized), each its own test in tests/swap/meson.build; those that never rest are
 * swapped in motion (in_motion below). */
#include <math.h>
#include <string.h>

#include "world_fixture.h"

/* Simulated time before the swap, and steps after it (the transient a swap causes is over in
 * a few steps). */
#define SETTLE_SECONDS 0.5
#define AFTER_STEPS 25
/* Of the thinnest moving body: a penetration deeper than this is a body passing through. */
#define PASS_THROUGH_FRACTION (1.0 / 3.0)
/* Below this a scene counts as at rest again whatever its energy at the swap (J). */
#define RESTING_ENERGY 1e-6

typedef struct Pair {
  const char *model, *solver;
} Pair;

/* Swaps held to less than the whole contract, with why:
 *   - CANNOT_REST: the scene cannot stay at rest under the new model; the bound is put on
 *     the mechanical energy instead (it does not rise by more than 2 KE_swap + M |g| d), the
 *     motion being gravity's;
 *   - REFUSES: the new model cannot read the scene's geometries (volume particles under a
 *     model of surfaces, a cloth's open surface under the models of volumes): the swap is
 *     refused with a message naming what it cannot read,
 *     and the world keeps its pair and runs on;
 * An exception names the new model, under any solver. */
typedef enum Exception { CANNOT_REST, REFUSES } Exception;

static const struct {
  const char *scene, *model;
  Exception kind;
  const char *why;
} exceptions[] = {
  { "penalty-clamped-box.yaml", "ldi", CANNOT_REST,
    "the clamp is the penalty layer's overlap: a rigid contact has no squeeze force" },
  { "penalty-clamped-box.yaml", "proximity", CANNOT_REST,
    "the clamp is the penalty layer's overlap: a rigid contact has no squeeze force" },
  { "penalty-ball-pyramid.yaml", "eulerian", CANNOT_REST,
    "the balls' rest under penalty overlaps them; the constraints part them and the "
    "pyramid settles again, a quarter of a millimetre lower" },
  { "eulerian-particles.yaml", "proximity", REFUSES, "particles" },
  { "eulerian-particles.yaml", "penalty", REFUSES, "particles" },
  { "cloth-drape.yaml", "ldi", REFUSES, "not a closed" },
  { "cloth-drape.yaml", "eulerian", REFUSES, "not closed" },
  { "fluid-cloth.yaml", "ldi", REFUSES, "not a closed" },
  { "fluid-cloth.yaml", "eulerian", REFUSES, "not closed" },
  { "penalty-clamped-box.yaml", "eulerian", CANNOT_REST,
    "the clamp is the penalty layer's overlap: a rigid contact has no squeeze force" },
};

/* Scenes that never come to rest, swapped in motion after `seconds` under their own pair:
 * the mechanical energy cannot serve as a rest bound. What holds instead: every step after
 * the swap succeeds, no body passes through another, no particle leaves through the fixed
 * bodies (fixture_points_escaped against their box), and the mechanical energy rises by no
 * more than it does under the scene's own pair over the same steps from the same state (a
 * fluid's pressure solve is not exactly conservative) plus M |g| d, what gravity may release
 * over the overlap the new model finds. */
static const struct {
  const char *scene;
  double seconds;
  const char *why;
} in_motion[] = {
  { "fluid-dam-break.yaml", 0.15, "the column is collapsing, its front running" },
  { "fluid-inflow.yaml", 0.8, "the water poured until 0.68 s is sloshing in the box" },
  { "fluid-poolrack.yaml", 0.2, "the heavy body is crushing the rack into the grid fluid" },
  { "fluid-mixed.yaml", 0.1, "the bodies are falling into the water" },
  { "fluid-cloth.yaml", 0.15, "the water has landed on the cloth and is spreading" },
};

/* The time `scene` is swapped in motion at and why into *why, or 0 when it settles first. */
static double
motion_swap_time (const char *scene, const char **why)
{
  for (size_t k = 0; k < G_N_ELEMENTS (in_motion); k++)
    if (strcmp (in_motion[k].scene, scene) == 0)
      {
        *why = in_motion[k].why;
        return in_motion[k].seconds;
      }
  return 0;
}

/* The exception for a swap of `scene` into `model`, or NULL. */
static const char *
exception_of (const char *scene, const char *model, Exception *kind)
{
  for (size_t k = 0; k < G_N_ELEMENTS (exceptions); k++)
    if (strcmp (exceptions[k].scene, scene) == 0 && strcmp (exceptions[k].model, model) == 0)
      {
        *kind = exceptions[k].kind;
        return exceptions[k].why;
      }
  return NULL;
}

/* What the host offers: each contact model with each solver that solves its outputs. */
static const Pair default_pairs[] = {
  { "ldi", "constraint" },
  { "proximity", "constraint" },
  { "penalty", "constraint" },
  { "penalty", "predictor-corrector" },
  { "eulerian", "constraint" },
};

/* The pairs swapped into: default_pairs, or those given as --pair MODEL/SOLVER (the
 * eulerian penalty's run, its own test for its time: tests/swap/meson.build). */
static Pair pairs[G_N_ELEMENTS (default_pairs) + 4];
static size_t n_pairs;

/* Kinetic energy and gravity's potential energy of the moving bodies; their mass and the
 * thinnest extent of their geometries (particles' with their diameters) into *mass and
 * *thinnest when not NULL. */
static double
mechanical_energy (CwbWorld *world, const CwbScene *scene, double *kinetic, double *mass,
                   double *thinnest)
{
  double e = 0, ke = 0, m = 0, thin = INFINITY;
  size_t n_geometries;
  const CwbGeometry *geometries = cwb_world_geometries (world, &n_geometries);
  for (size_t i = 0; i < cwb_world_n_bodies (world); i++)
    {
      const CwbBodyDesc *desc = scene->bodies->pdata[i];
      if (desc->fixed)
        continue;
      CwbBodySummary s = { .struct_size = sizeof s };
      cwb_world_body_summary (world, i, &s);
      ke += s.kinetic_energy;
      m += s.mass;
      e += s.kinetic_energy;
      for (int c = 0; c < 3; c++)
        e -= s.mass * scene->gravity[c] * s.centroid[c];
      for (size_t g = 0; g < n_geometries; g++)
        {
          if (geometries[g].body != i || geometries[g].n_points == 0)
            continue;
          double lo[3], hi[3];
          for (int c = 0; c < 3; c++)
            lo[c] = hi[c] = geometries[g].positions[c];
          for (size_t p = 1; p < geometries[g].n_points; p++)
            for (int c = 0; c < 3; c++)
              {
                lo[c] = MIN (lo[c], geometries[g].positions[3 * p + c]);
                hi[c] = MAX (hi[c], geometries[g].positions[3 * p + c]);
              }
          /* Particles are as thick as they are wide: a flat row of them is its diameter
           * thick, not its centres' spread (round-off). */
          double widest = 0;
          for (size_t p = 0; geometries[g].radii != NULL && p < geometries[g].n_points; p++)
            widest = MAX (widest, 2 * geometries[g].radii[p]);
          for (int c = 0; c < 3; c++)
            thin = MIN (thin, hi[c] - lo[c] + widest);
        }
    }
  if (kinetic != NULL)
    *kinetic = ke;
  if (mass != NULL)
    *mass = m;
  if (thinnest != NULL)
    *thinnest = thin;
  return e;
}

/* The box of the fixed bodies' geometries into lo, hi: a particle wholly outside it has gone
 * through them. Without fixed geometry, all of space (nothing can leave it). */
static void
fixed_box (CwbWorld *world, const CwbScene *scene, double lo[3], double hi[3])
{
  for (int c = 0; c < 3; c++)
    {
      lo[c] = -INFINITY;
      hi[c] = INFINITY;
    }
  size_t n_geometries;
  const CwbGeometry *geometries = cwb_world_geometries (world, &n_geometries);
  gboolean any = FALSE;
  for (size_t g = 0; g < n_geometries; g++)
    {
      const CwbBodyDesc *desc = scene->bodies->pdata[geometries[g].body];
      if (!desc->fixed || geometries[g].n_points == 0)
        continue;
      double glo[3], ghi[3];
      cwb_geometry_bounds (&geometries[g], glo, ghi);
      for (int c = 0; c < 3; c++)
        {
          lo[c] = any ? MIN (lo[c], glo[c]) : glo[c];
          hi[c] = any ? MAX (hi[c], ghi[c]) : ghi[c];
        }
      any = TRUE;
    }
}

/* How many particles of the moving bodies lie wholly outside the box [lo, hi] (above it is
 * spray, not a leak). */
static size_t
particles_escaped (CwbWorld *world, const double lo[3], const double hi[3])
{
  size_t n_geometries, count = 0;
  const CwbGeometry *geometries = cwb_world_geometries (world, &n_geometries);
  for (size_t g = 0; g < n_geometries; g++)
    if (geometries[g].kind == CWB_GEOMETRY_PARTICLES)
      for (size_t p = 0; p < geometries[g].n_points; p++)
        count += fixture_points_escaped (&geometries[g].positions[3 * p], 1,
                                         geometries[g].radii[p], lo, hi);
  return count;
}

/* What a run of `steps` steps after a swap did, against the state swapped from (mechanical
 * energy e0, kinetic ke0). */
typedef struct Run {
  double rise, peak_ke, deepest;
  int settled_again;   /* the first step from which the energy stays under 2 KE_swap, or -1 */
  size_t escaped;      /* the most particles out of the fixed bodies' box at once */
} Run;

static Run
run_after (CwbWorld *world, const CwbScene *scene, const char *label, int steps, double e0,
           double ke0, const double box_lo[3], const double box_hi[3])
{
  Run run = { .rise = -INFINITY, .settled_again = -1 };
  g_autoptr (GError) error = NULL;
  for (int step = 0; step < steps; step++)
    {
      if (!cwb_world_step (world, &error))
        g_error ("%s: step %d after the swap failed: %s", label, step + 1, error->message);
      double ke;
      run.rise = MAX (run.rise, mechanical_energy (world, scene, &ke, NULL, NULL) - e0);
      run.peak_ke = MAX (run.peak_ke, ke);
      if (ke > 2 * ke0 + RESTING_ENERGY)
        run.settled_again = -1;
      else if (run.settled_again < 0)
        run.settled_again = step + 1;
      double depth = cwb_world_contacts (world)->max_penetration;
      if (isfinite (depth))
        run.deepest = MAX (run.deepest, depth);
      run.escaped = MAX (run.escaped, particles_escaped (world, box_lo, box_hi));
    }
  return run;
}

static void
test_scene (gconstpointer data)
{
  const char *name = data;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *path = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "scenes", name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load (path, &error);
  g_assert_no_error (error);
  g_autoptr (CwbWorld) world = cwb_world_new (scene, registry, &error);
  g_assert_no_error (error);
  const char *own_solver = scene->solver != NULL ? scene->solver : CWB_SCENE_DEFAULT_SOLVER;
  double dt = cwb_world_dt (world);
  const char *motion_why = NULL;
  double motion_at = motion_swap_time (name, &motion_why);
  gboolean moving = motion_at > 0;
  int settle = (int) lround ((moving ? motion_at : SETTLE_SECONDS) / dt), after = AFTER_STEPS;
  fixture_step (world, settle);

  size_t nq, nv;
  const double *q = cwb_world_q (world, &nq), *v = cwb_world_v (world, &nv);
  g_autofree double *q0 = g_memdup2 (q, nq * sizeof (double));
  g_autofree double *v0 = g_memdup2 (v, nv * sizeof (double));
  double t0 = cwb_world_time (world);
  double ke0, mass, thinnest;
  double e0 = mechanical_energy (world, scene, &ke0, &mass, &thinnest);
  double g = sqrt (scene->gravity[0] * scene->gravity[0] + scene->gravity[1] * scene->gravity[1]
                   + scene->gravity[2] * scene->gravity[2]);
  double box_lo[3], box_hi[3];
  fixed_box (world, scene, box_lo, box_hi);
  g_test_message ("%s %s under %s / %s: kinetic energy %.3g J, moving mass %.4g kg", name,
                  moving ? "in motion" : "settled",
                  scene->contact_model != NULL ? scene->contact_model : "none", own_solver,
                  ke0, mass);
  /* A scene in motion's reference: its own pair over the same steps from the same state. */
  Run own = { .rise = 0 };
  if (moving)
    {
      g_test_message ("%s is swapped in motion at %g s: %s", name, motion_at, motion_why);
      g_autofree char *label = g_strdup_printf ("%s, its own pair", name);
      own = run_after (world, scene, label, after, e0, ke0, box_lo, box_hi);
      g_test_message ("| %s | %s / %s | (own) | %.3g | %.3g | | %.3g | %.3g | escaped %zu |",
                      name, scene->contact_model, own_solver, ke0, own.peak_ke, own.rise,
                      own.deepest, own.escaped);
      g_assert_cmpuint (own.escaped, ==, 0);
    }

  for (size_t k = 0; k < n_pairs; k++)
    {
      if (g_strcmp0 (pairs[k].model, scene->contact_model) == 0
          && strcmp (pairs[k].solver, own_solver) == 0)
        continue;
      /* From the swapped-from state, with the scene's own pair in place, to the new pair with
       * its defaults: a scene written for one model runs under every other. */
      g_assert_true (cwb_world_set_pair (world, scene->contact_model, scene->contact_params,
                                         own_solver, scene->solver_params, NULL, &error));
      g_assert_no_error (error);
      g_assert_true (cwb_world_restore_state (world, q0, nq, v0, nv, t0, (guint64) settle,
                                              NULL, &error));
      Exception kind = CANNOT_REST;
      const char *why = exception_of (name, pairs[k].model, &kind);
      if (why != NULL && kind == REFUSES)
        {
          /* `why` is what the refusal must name. */
          g_assert_false (cwb_world_set_pair (world, pairs[k].model, NULL, pairs[k].solver,
                                              NULL, scene->solver_params, &error));
          g_assert_nonnull (error);
          if (strstr (error->message, why) == NULL)
            g_error ("%s to %s / %s: refused with \"%s\", which does not name \"%s\"", name,
                     pairs[k].model, pairs[k].solver, error->message, why);
          g_test_message ("| %s | %s / %s | %s / %s | refused: %s |", name,
                          scene->contact_model, own_solver, pairs[k].model, pairs[k].solver,
                          error->message);
          g_clear_error (&error);
          g_assert_cmpstr (cwb_world_contact_model_name (world), ==, scene->contact_model);
          g_assert_cmpstr (cwb_world_solver_name (world), ==, own_solver);
          for (int step = 0; step < 5; step++)
            g_assert_true (cwb_world_step (world, NULL));
          continue;
        }
      g_assert_true (cwb_world_set_pair (world, pairs[k].model, NULL, pairs[k].solver, NULL,
                                         NULL, &error));
      g_assert_no_error (error);
      g_autofree char *label = g_strdup_printf ("%s, %s / %s", name, pairs[k].model,
                                                pairs[k].solver);
      Run run = run_after (world, scene, label, after, e0, ke0, box_lo, box_hi);
      double bound = moving ? MAX (own.rise, 0) + mass * g * run.deepest
                            : 2 * ke0 + mass * g * run.deepest;
      g_autofree char *settled_text = run.settled_again > 0
                                        ? g_strdup_printf ("%d", run.settled_again)
                                        : g_strdup ("no");
      g_test_message ("| %s | %s / %s | %s / %s | %.3g | %.3g | %.3g | %.3g | %.3g | %s |", name,
                      scene->contact_model != NULL ? scene->contact_model : "none", own_solver,
                      pairs[k].model, pairs[k].solver, ke0, run.peak_ke, bound, run.rise,
                      run.deepest, moving ? "in motion" : settled_text);
      if (why != NULL)
        g_test_message ("  does not rest under %s (%s): no energy injected instead",
                        pairs[k].model, why);
      if (why != NULL || moving)
        g_assert_cmpfloat (run.rise, <=, bound);
      else
        g_assert_cmpfloat (run.peak_ke, <=, bound);
      g_assert_cmpfloat (run.deepest, <, PASS_THROUGH_FRACTION * thinnest);
      g_assert_cmpuint (run.escaped, ==, 0);
    }
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

int
main (int argc, char **argv)
{
  /* --pair MODEL/SOLVER, repeatable, taken out before the test framework reads the rest. */
  int kept = 1;
  for (int k = 1; k < argc; k++)
    {
      if (strcmp (argv[k], "--pair") == 0 && k + 1 < argc
          && n_pairs < G_N_ELEMENTS (pairs))
        {
          char *slash = strchr (argv[++k], '/');
          g_assert_nonnull (slash);
          *slash = '\0';
          pairs[n_pairs++] = (Pair) { argv[k], slash + 1 };
          continue;
        }
      argv[kept++] = argv[k];
    }
  argc = kept;
  argv[argc] = NULL;
  if (n_pairs == 0)
    for (; n_pairs < G_N_ELEMENTS (default_pairs); n_pairs++)
      pairs[n_pairs] = default_pairs[n_pairs];
  g_test_init (&argc, &argv, NULL);
  /* The whole matrix: every swap runs and prints its row (a failed bound still fails). */
  if (g_getenv ("CWB_TEST_KEEP_GOING") != NULL)
    g_test_set_nonfatal_assertions ();
  g_autofree char *scenes = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "scenes", NULL);
  g_autoptr (GDir) dir = g_dir_open (scenes, 0, NULL);
  g_assert_nonnull (dir);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *f; (f = g_dir_read_name (dir)) != NULL;)
    if (g_str_has_suffix (f, ".yaml") && strcmp (f, "rain.yaml") != 0
        && (!g_str_has_prefix (f, "fluid-") || g_getenv ("CWB_SWAP_FLUIDS")))
      g_ptr_array_add (names, g_strdup (f));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *stem = g_strndup (names->pdata[i], strlen (names->pdata[i]) - 5);
      g_autofree char *test_path = g_strdup_printf ("/swap/%s", stem);
      g_test_add_data_func (test_path, names->pdata[i], test_scene);
    }
  return g_test_run ();
}

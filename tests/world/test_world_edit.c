/* Editing a running world (the GUI's needs): world serials, restoring a captured state,
 * carrying states into a rebuilt world, live parameter edits of the contact model and the
 * solver, and the mouse spring against closed forms. */
#include <math.h>

#include "world_fixture.h"

/* A penalty box: pressed 1 mm into the half-space, at rest, no gravity (the scene of
 * /world/penalty-forces, whose closed form the contact-parameter edit is checked against). */
static const char *penalty_scene =
  "world: { dt: 0.01, gravity: [0, 0, 0] }\n"
  "contact: { model: halfspace, stiffness: 1.0e4 }\n"
  "solver: { name: constraint }\n"
  "bodies:\n"
  "  - name: pressed\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 0.099] }\n";

/* One free box, far from everything, no gravity and no contact model: only the spring acts. */
static const char *free_scene =
  "world: { dt: 0.01, gravity: [0, 0, 0] }\n"
  "solver: { name: constraint }\n"
  "bodies:\n"
  "  - name: box\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 5] }\n";

/* ---- serial -------------------------------------------------------------------------- */

static void
test_serial (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) a = fixture_world (registry, free_scene);
  g_autoptr (CwbWorld) b = fixture_world (registry, free_scene);
  g_assert_cmpuint (cwb_world_serial (a), !=, cwb_world_serial (b));
  /* Stepping does not change a world's identity. */
  guint64 serial = cwb_world_serial (a);
  fixture_step (a, 3);
  g_assert_cmpuint (cwb_world_serial (a), ==, serial);
}

/* ---- restore ------------------------------------------------------------------------- */

/* Reference: the run itself. The half-space keeps no memory from step to step and the
 * constraint solver does not warm-start, so the step from a state depends on that state only:
 * restoring the state of step K and stepping to N must give the bits the first run had at N. */
static void
test_restore_replays (void)
{
  enum { K = 40, N = 100 };
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (world, K);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, >, 0);   /* the box rests */
  size_t nq, nv;
  const double *q = cwb_world_q (world, &nq);
  const double *v = cwb_world_v (world, &nv);
  g_autofree double *q_k = g_memdup2 (q, nq * sizeof (double));
  g_autofree double *v_k = g_memdup2 (v, nv * sizeof (double));
  double time_k = cwb_world_time (world);
  guint64 steps_k = cwb_world_step_count (world);
  guint64 hash_k = cwb_world_state_hash (world);

  fixture_step (world, N - K);
  guint64 hash_n = cwb_world_state_hash (world);
  double time_n = cwb_world_time (world);
  g_assert_cmpuint (hash_n, !=, hash_k);

  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_world_restore_state (world, q_k, nq, v_k, nv, time_k, steps_k, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_world_state_hash (world), ==, hash_k);
  g_assert_cmpfloat (cwb_world_time (world), ==, time_k);
  g_assert_cmpuint (cwb_world_step_count (world), ==, steps_k);
  /* The contacts of the state left behind are gone until the next step detects anew. */
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, ==, 0);
  g_assert_cmpstr (cwb_world_contact_model_name (world), ==, "halfspace");

  /* The geometries show the restored state: the resting box's points as at step K. */
  g_autoptr (CwbWorld) reference = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (reference, K);
  const CwbGeometry *g = cwb_world_geometries (world, NULL);
  const CwbGeometry *g_ref = cwb_world_geometries (reference, NULL);
  for (int b = 0; b < 2; b++)
    g_assert_cmpmem (g[b].positions, 3 * g[b].n_points * sizeof (double), g_ref[b].positions,
                     3 * g_ref[b].n_points * sizeof (double));

  fixture_step (world, N - K);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, >, 0);
  g_assert_cmpuint (cwb_world_state_hash (world), ==, hash_n);
  g_assert_cmpfloat (cwb_world_time (world), ==, time_n);
  g_assert_cmpuint (cwb_world_step_count (world), ==, N);
}

/* A state of other sizes is refused with a GError, and nothing changes: state, time, step
 * count and the contact set. */
static void
test_restore_wrong_sizes (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (world, 10);
  size_t nq, nv;
  cwb_world_q (world, &nq);
  cwb_world_v (world, &nv);
  guint64 hash = cwb_world_state_hash (world);
  double time = cwb_world_time (world);
  guint frames = cwb_world_contacts (world)->frames->len;
  g_assert_cmpuint (frames, >, 0);

  g_autofree double *q = g_new0 (double, nq + 7);
  g_autofree double *v = g_new0 (double, nv + 6);
  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_world_restore_state (world, q, nq + 7, v, nv, 0, 0, NULL, &error));
  g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_EDIT);
  g_clear_error (&error);
  g_assert_false (cwb_world_restore_state (world, q, nq, v, nv - 6, 0, 0, NULL, &error));
  g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_EDIT);

  g_assert_cmpuint (cwb_world_state_hash (world), ==, hash);
  g_assert_cmpfloat (cwb_world_time (world), ==, time);
  g_assert_cmpuint (cwb_world_step_count (world), ==, 10);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, ==, frames);
}

/* ---- carry --------------------------------------------------------------------------- */

/* The running world: four rigid boxes falling freely. */
static const char *carry_from_scene =
  "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
  "bodies:\n"
  "  - name: kept\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 1] }\n"
  "    velocity: { angular: [0, 1, 0] }\n"
  "  - name: edited\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [1, 0, 1] }\n"
  "  - name: remodelled\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [2, 0, 1] }\n"
  "  - name: removed\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [3, 0, 1] }\n";

/* The rebuilt world: `edited` has another density (the edit), `remodelled` another body model
 * with the same DOF counts (the test-only "frozen": nq 7, nv 6, as rigid), `removed` is gone
 * and `added` is new. Bodies are listed in another order, so indices differ. */
static const char *carry_to_scene =
  "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
  "bodies:\n"
  "  - name: added\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [4, 0, 1] }\n"
  "  - name: remodelled\n"
  "    model: frozen\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [2, 0, 1] }\n"
  "  - name: edited\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [1, 0, 1] }\n"
  "    material: { density: 2000 }\n"
  "  - name: kept\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0, 0, 1] }\n"
  "    velocity: { angular: [0, 1, 0] }\n";

static size_t
body_index (const CwbWorld *world, const char *name)
{
  for (size_t i = 0; i < cwb_world_n_bodies (world); i++)
    if (g_str_equal (cwb_world_body_name (world, i), name))
      return i;
  g_assert_not_reached ();
}

/* A body's slices of q and v, copied. */
typedef struct BodyState {
  double q[16], v[16];
  size_t nq, nv;
} BodyState;

static BodyState
body_state (CwbWorld *world, const char *name)
{
  const CwbBodySlot *s = cwb_world_body_slot (world, body_index (world, name));
  BodyState st = { .nq = s->nq, .nv = s->nv };
  g_assert_cmpuint (s->nq, <=, G_N_ELEMENTS (st.q));
  g_assert_cmpuint (s->nv, <=, G_N_ELEMENTS (st.v));
  memcpy (st.q, cwb_world_q (world, NULL) + s->q_offset, s->nq * sizeof (double));
  memcpy (st.v, cwb_world_v (world, NULL) + s->v_offset, s->nv * sizeof (double));
  return st;
}

/* Bit-identical slices. */
static void
assert_same_state (const BodyState *a, const BodyState *b)
{
  g_assert_cmpmem (a->q, a->nq * sizeof (double), b->q, b->nq * sizeof (double));
  g_assert_cmpmem (a->v, a->nv * sizeof (double), b->v, b->nv * sizeof (double));
}

static void
test_carry (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) from = fixture_world (registry, carry_from_scene);
  fixture_step (from, 30);   /* every body has fallen and turned away from its description */
  g_autoptr (CwbWorld) world = fixture_world (registry, carry_to_scene);
  g_assert_cmpstr (cwb_world_body_model_name (world, body_index (world, "remodelled")), ==,
                   "frozen");

  BodyState own_edited = body_state (world, "edited");
  BodyState own_remodelled = body_state (world, "remodelled");
  BodyState own_added = body_state (world, "added");
  BodyState from_kept = body_state (from, "kept");

  const char *const except[] = { "edited", NULL };
  cwb_world_carry_state (world, from, except, NULL);

  BodyState kept = body_state (world, "kept");
  assert_same_state (&kept, &from_kept);
  BodyState edited = body_state (world, "edited");
  assert_same_state (&edited, &own_edited);          /* excepted: starts from its description */
  BodyState remodelled = body_state (world, "remodelled");
  assert_same_state (&remodelled, &own_remodelled);  /* another model: left alone */
  BodyState added = body_state (world, "added");
  assert_same_state (&added, &own_added);            /* not in `from`: left alone */
  g_assert_cmpfloat (cwb_world_time (world), ==, cwb_world_time (from));
  g_assert_cmpuint (cwb_world_step_count (world), ==, 30);

  /* The geometry is mapped at the carried state: the same points as in `from`. */
  const CwbGeometry *g = &cwb_world_geometries (world, NULL)[body_index (world, "kept")];
  const CwbGeometry *g_from = &cwb_world_geometries (from, NULL)[body_index (from, "kept")];
  g_assert_cmpmem (g->positions, 3 * g->n_points * sizeof (double), g_from->positions,
                   3 * g_from->n_points * sizeof (double));

  /* Without the exception, the edited body (same model, same DOFs, another density) carries
   * too. */
  cwb_world_carry_state (world, from, NULL, NULL);
  edited = body_state (world, "edited");
  BodyState from_edited = body_state (from, "edited");
  assert_same_state (&edited, &from_edited);
  remodelled = body_state (world, "remodelled");
  assert_same_state (&remodelled, &own_remodelled);
}

/* A rename carries: `removed` of the old world, renamed `added` (same model, same DOFs),
 * goes on from where it was instead of from its description; `kept` is unaffected, and a
 * name listed as renamed is not also looked up under its new name. */
static void
test_carry_renamed (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) from = fixture_world (registry, carry_from_scene);
  fixture_step (from, 30);
  g_autoptr (CwbWorld) world = fixture_world (registry, carry_to_scene);
  BodyState from_removed = body_state (from, "removed");
  BodyState from_kept = body_state (from, "kept");
  const char *const renamed[] = { "removed", "added", NULL };
  cwb_world_carry_state (world, from, NULL, renamed);
  BodyState added = body_state (world, "added");
  assert_same_state (&added, &from_removed);
  BodyState kept = body_state (world, "kept");
  assert_same_state (&kept, &from_kept);
  /* Two bodies swapping names swap states. */
  g_autoptr (CwbWorld) swapped = fixture_world (registry, carry_from_scene);
  const char *const swap[] = { "kept", "edited", "edited", "kept", NULL };
  cwb_world_carry_state (swapped, from, NULL, swap);
  BodyState from_edited = body_state (from, "edited");
  BodyState now_kept = body_state (swapped, "kept");
  BodyState now_edited = body_state (swapped, "edited");
  assert_same_state (&now_kept, &from_edited);
  assert_same_state (&now_edited, &from_kept);
}

/* ---- live parameter edits ------------------------------------------------------------ */

/* The constraint solver has params_changed: a new iteration cap shows in the next solve's
 * reported iterations. The resting box with friction needs more than one sweep by default
 * (checked), so a cap of 1 is visible. Bad edits (out of range, unknown name) are refused and
 * the cap in force stays. */
static void
test_params_solver (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (world, 5);
  g_assert_cmpint (cwb_world_last_stats (world)->solver_iterations, >, 1);

  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) one = fixture_params ("iterations", "1", NULL);
  g_assert_true (cwb_world_set_plugin_params (world, CWB_PLUGIN_SOLVER, one, &error));
  g_assert_no_error (error);
  fixture_step (world, 1);
  g_assert_cmpint (cwb_world_last_stats (world)->solver_iterations, ==, 1);

  /* Below the minimum 1. */
  g_autoptr (GPtrArray) zero = fixture_params ("iterations", "0", NULL);
  g_assert_false (cwb_world_set_plugin_params (world, CWB_PLUGIN_SOLVER, zero, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_RANGE);
  g_clear_error (&error);
  g_autoptr (GPtrArray) unknown = fixture_params ("no_such_parameter", "3", NULL);
  g_assert_false (cwb_world_set_plugin_params (world, CWB_PLUGIN_SOLVER, unknown, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_UNKNOWN_FIELD);
  g_clear_error (&error);
  fixture_step (world, 1);
  g_assert_cmpint (cwb_world_last_stats (world)->solver_iterations, ==, 1);
  g_assert_cmpstr (cwb_world_solver_name (world), ==, "constraint");
}

/* Penalty forces of the half-space (which has params_changed), against the closed form of
 * /world/penalty-forces: N points pressed d into the plane, at rest, no gravity; after one
 * step of h the box moves up with v = h N k d / m. A refused edit keeps k = 1e4; an accepted
 * one to 2e4 doubles v. */
#define PENALTY_RELATIVE_TOLERANCE 1e-12   /* a sum of N equal forces and one compliance */

static void
check_penalty_step (CwbWorld *world, double k)
{
  const double d = 1e-3, h = 0.01;
  const CwbGeometry *g = cwb_world_geometries (world, NULL);
  size_t behind = 0;
  for (size_t p = 0; p < g[0].n_points; p++)
    behind += g[0].positions[3 * p + 2] < 0;
  g_assert_cmpuint (behind, >=, 4);
  CwbBodySummary before, after;
  cwb_world_body_summary (world, 0, &before);
  fixture_step (world, 1);
  cwb_world_body_summary (world, 0, &after);
  double expected = h * behind * k * d / before.mass;
  g_assert_cmpfloat (fabs (after.linear_velocity[2] - expected), <,
                     PENALTY_RELATIVE_TOLERANCE * expected);
}

static void
test_params_contact (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (CwbWorld) world = fixture_world (registry, penalty_scene);
    g_autoptr (GPtrArray) negative = fixture_params ("stiffness", "-1", NULL);
    g_assert_false (cwb_world_set_plugin_params (world, CWB_PLUGIN_CONTACT_MODEL, negative,
                                                 &error));
    g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_RANGE);
    g_clear_error (&error);
    g_autoptr (GPtrArray) unknown = fixture_params ("stifness", "2e4", NULL);
    g_assert_false (cwb_world_set_plugin_params (world, CWB_PLUGIN_CONTACT_MODEL, unknown,
                                                 &error));
    g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_UNKNOWN_FIELD);
    g_clear_error (&error);
    check_penalty_step (world, 1e4);
  }
  {
    g_autoptr (CwbWorld) world = fixture_world (registry, penalty_scene);
    g_autoptr (GPtrArray) doubled = fixture_params ("stiffness", "2e4", NULL);
    g_assert_true (cwb_world_set_plugin_params (world, CWB_PLUGIN_CONTACT_MODEL, doubled,
                                                &error));
    g_assert_no_error (error);
    check_penalty_step (world, 2e4);
  }
  {
    /* A world without a contact model has no contact parameters to edit. */
    g_autoptr (CwbWorld) world = fixture_world (registry, free_scene);
    g_autoptr (GPtrArray) doubled = fixture_params ("stiffness", "2e4", NULL);
    g_assert_false (cwb_world_set_plugin_params (world, CWB_PLUGIN_CONTACT_MODEL, doubled,
                                                 &error));
    g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_EDIT);
  }
}

/* Contact models and solvers pair by what one returns and the other solves (ABI 1.9): the
 * predictor-corrector solves penalty forces only, so the half-space's constraint rows are
 * refused with it, when the world is built, on a swap of either plugin and on a parameter
 * edit that turns its forces into rows; each time the pair in place stays and runs. */
static void
test_pair_refused (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (GError) error = NULL;
  static const char *rows_under_pc =
    "contact: { model: halfspace }\n"
    "solver: { name: predictor-corrector }\n"
    "bodies:\n  - name: box\n    shape: { type: box, size: [0.2, 0.2, 0.2] }\n";
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (rows_under_pc, -1, "pair.yaml", &error);
  g_assert_no_error (error);
  g_autoptr (CwbWorld) refused = cwb_world_new (scene, registry, &error);
  g_assert_null (refused);
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_REFUSED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "pair.yaml:2:"));
  g_assert_nonnull (strstr (error->message, "the solver 'predictor-corrector' cannot solve the "
                                            "constraint rows that the contact model "
                                            "'halfspace' returns; solvers that can: "));
  g_assert_nonnull (strstr (error->message, "constraint"));
  g_clear_error (&error);

  /* Penalty forces under the constraint solver; the swap to predictor-corrector takes. */
  g_autoptr (CwbWorld) world = fixture_world (registry, penalty_scene);
  g_assert_true (cwb_world_set_solver (world, "predictor-corrector", NULL, &error));
  g_assert_no_error (error);
  /* An edit that makes rows is taken back: the forces stay, with their stiffness. */
  g_autoptr (GPtrArray) rows = fixture_params ("stiffness", "0", NULL);
  g_assert_false (cwb_world_set_plugin_params (world, CWB_PLUGIN_CONTACT_MODEL, rows, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_REFUSED);
  g_clear_error (&error);
  /* A contact model that returns rows is refused on a swap; the half-space stays. */
  g_autoptr (GPtrArray) plain = fixture_params ("margin", "0.001", NULL);
  g_assert_false (cwb_world_set_contact_model (world, "proximity", NULL, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_REFUSED);
  g_clear_error (&error);
  g_assert_cmpstr (cwb_world_contact_model_name (world), ==, "halfspace");
  fixture_step (world, 1);   /* and the pair in place runs */
  /* Back to the constraint solver, rows are solvable again. */
  g_assert_true (cwb_world_set_solver (world, "constraint", NULL, &error));
  g_assert_true (cwb_world_set_plugin_params (world, CWB_PLUGIN_CONTACT_MODEL, plain, &error));
  g_assert_no_error (error);
  /* ...and the predictor-corrector is now the one refused, the constraint solver staying. */
  g_assert_false (cwb_world_set_solver (world, "predictor-corrector", NULL, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_REFUSED);
  g_assert_cmpstr (cwb_world_solver_name (world), ==, "constraint");
}

/* The re-create path: the test-only "faulty" solver has no params_changed, so an edit
 * re-creates it. Its mode decides how the next step fails: "nan" blows up, "error" fails in
 * the solver; a refused edit (a word not among the choices) keeps the mode in force. */
static void
test_params_recreate (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, free_scene);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) nan_mode = fixture_params ("mode", "nan", NULL);
  g_assert_true (cwb_world_set_solver (world, "faulty", nan_mode, &error));
  g_assert_no_error (error);

  g_autoptr (GPtrArray) bad = fixture_params ("mode", "explode", NULL);
  g_assert_false (cwb_world_set_plugin_params (world, CWB_PLUGIN_SOLVER, bad, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_TYPE);
  g_clear_error (&error);
  g_assert_false (cwb_world_step (world, &error));
  g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_BLOW_UP);
  g_clear_error (&error);

  g_autoptr (GPtrArray) error_mode = fixture_params ("mode", "error", NULL);
  g_assert_true (cwb_world_set_plugin_params (world, CWB_PLUGIN_SOLVER, error_mode, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (cwb_world_solver_name (world), ==, "faulty");
  g_assert_false (cwb_world_step (world, &error));
  g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_STEP_FAILED);
}

/* ---- the mouse spring ---------------------------------------------------------------- */

/* The spring enters the body model's implicit step (world_edit.c): with K = -k J^T J, the
 * rigid body's (M + h^2 k J^T J) dv = h J^T f from rest. By the Woodbury identity
 * dv = h M^-1 J^T (I + h^2 k W)^-1 f with W = J M^-1 J^T the grabbed point's mobility, so the
 * step's impulse is h f~, f~ = (I + h^2 k W)^-1 f: the momentum changes by h f~ and the
 * angular momentum about the centre of mass by h (a x f~). For the 8 kg cube at k = 200 N/m
 * and h = 0.01 s, f~ differs from f by about 0.1 %, a thousand times the tolerance below.
 * The rigid body's implicit step is one 6 x 6 LAPACK solve with no damping (e^0 = 1) and no
 * gyroscopic term from rest, so the changes match to round-off; 1e-9 relative leaves ample
 * room above it. */
#define MOMENTUM_RELATIVE_TOLERANCE 1e-9
#define BOX_SIZE 0.2   /* m: free_scene's cube, inertia m s^2 / 6 about every axis */

/* A grab of point 0 of the box (weight 1), target d from it along `direction`. */
static CwbGrab
grab_point0 (CwbWorld *world, double stiffness, double damping, const double direction[3],
             double d)
{
  const CwbGeometry *g = cwb_world_geometries (world, NULL);
  CwbGrab grab = { .body = 0, .points = { 0, 0, 0 }, .weights = { 1, 0, 0 },
                   .stiffness = stiffness, .damping = damping };
  cwb_v3_copy (grab.target, g[0].positions);
  cwb_v3_axpy (grab.target, d, direction);
  return grab;
}

static void
test_grab_impulse (void)
{
  const double k = 200, d = 0.05, h = 0.01;
  const double direction[3] = { 0.6, 0.8, 0 };   /* across the arm: the force turns the box */
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, free_scene);
  CwbGrab grab = grab_point0 (world, k, 0, direction, d);
  cwb_world_set_grab (world, &grab);

  double p[3];
  g_assert_true (cwb_world_grab_point (world, p));
  g_assert_cmpmem (p, sizeof p, cwb_world_geometries (world, NULL)[0].positions, sizeof p);
  CwbBodySummary before, after;
  cwb_world_body_summary (world, 0, &before);
  double arm[3];   /* from the centre of mass to the grabbed point */
  cwb_v3_sub (arm, p, before.centroid);

  /* W = I / m + [a]x^T [a]x / i for the cube's isotropic inertia i; f~ = (I + h^2 k W)^-1 f. */
  const double m = before.mass, inertia = m * BOX_SIZE * BOX_SIZE / 6;
  double skew[9], skew_t[9], w[9], a_mat[9], a_inv[9];
  cwb_m3_skew (skew, arm);
  cwb_m3_transpose (skew_t, skew);
  cwb_m3_mul (w, skew_t, skew);
  for (int i = 0; i < 9; i++)
    a_mat[i] = h * h * k * (w[i] / inertia + (i % 4 == 0 ? 1 / m : 0)) + (i % 4 == 0 ? 1 : 0);
  cwb_m3_inverse (a_inv, a_mat);
  double f[3], f_step[3];
  cwb_v3_scale (f, direction, k * d);
  cwb_m3_mul_v3 (f_step, a_inv, f);
  g_assert_cmpfloat (cwb_v3_norm (f_step), <, (1 - 1e-4) * cwb_v3_norm (f));

  fixture_step (world, 1);
  cwb_world_body_summary (world, 0, &after);
  double impulse = cwb_v3_norm (f_step) * h;
  for (int i = 0; i < 3; i++)
    {
      g_test_message ("linear momentum[%d] %.17g, closed form h f~ = %.17g", i,
                      after.linear_momentum[i], h * f_step[i]);
      g_assert_cmpfloat (fabs (after.linear_momentum[i] - h * f_step[i]), <,
                         MOMENTUM_RELATIVE_TOLERANCE * impulse);
    }
  /* Angular, about the centre of mass: dL = (a x f~) h, through the mapping's J^T. */
  double torque[3];
  cwb_v3_cross (torque, arm, f_step);
  double dl_norm = cwb_v3_norm (torque) * h;
  g_assert_cmpfloat (dl_norm, >, 0);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (fabs (after.angular_momentum[i] - torque[i] * h), <,
                       MOMENTUM_RELATIVE_TOLERANCE * dl_norm);

  /* Released: the next step is force-free. The linear part is then v+ = v + h 0 exactly; the
   * angular momentum is conserved by the drift to round-off. */
  cwb_world_set_grab (world, NULL);
  g_assert_false (cwb_world_grab_point (world, p));
  CwbBodySummary released;
  fixture_step (world, 1);
  cwb_world_body_summary (world, 0, &released);
  g_assert_cmpmem (released.linear_momentum, sizeof released.linear_momentum,
                   after.linear_momentum, sizeof after.linear_momentum);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (fabs (released.angular_momentum[i] - after.angular_momentum[i]), <,
                       MOMENTUM_RELATIVE_TOLERANCE * dl_norm);
}

/* A damped spring brings the body to rest at the target. The target lies on the line from
 * the centre of mass through the grabbed corner, so the force passes through the centre of
 * mass and the motion is a translation along that line: the damped oscillator
 * m x'' = -k x - c x' with omega = sqrt (k / m) = 10 rad/s (h omega = 0.1, well inside
 * symplectic Euler's stability) and critical damping c = 2 sqrt (k m). From 0.1 m away the
 * continuous solution is (1 + omega t) e^(-omega t) 0.1 m, about 1e-11 m after 3 s (300
 * steps); 1e-3 m (1 mm, finer than a pointer drags) is the stated acceptance, leaving room for
 * the discrete decay, which is slower than the continuous one but still exponential. */
#define GRAB_REST_TOLERANCE 1e-3        /* m */
#define GRAB_REST_VELOCITY 1e-3         /* m/s */

static void
test_grab_settles (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, free_scene);
  CwbBodySummary s;
  cwb_world_body_summary (world, 0, &s);
  const double omega = 10, k = s.mass * omega * omega, c = 2 * sqrt (k * s.mass);
  double direction[3];
  cwb_v3_sub (direction, cwb_world_geometries (world, NULL)[0].positions, s.centroid);
  cwb_v3_normalize (direction);
  CwbGrab grab = grab_point0 (world, k, c, direction, 0.1);
  cwb_world_set_grab (world, &grab);

  fixture_step (world, 300);
  double p[3], gap[3];
  g_assert_true (cwb_world_grab_point (world, p));
  cwb_v3_sub (gap, p, grab.target);
  g_test_message ("after 300 steps the grabbed point is %g m from the target", cwb_v3_norm (gap));
  g_assert_cmpfloat (cwb_v3_norm (gap), <, GRAB_REST_TOLERANCE);
  cwb_world_body_summary (world, 0, &s);
  g_assert_cmpfloat (cwb_v3_norm (s.linear_velocity), <, GRAB_REST_VELOCITY);
}

/* No grab, no change: a run after setting and releasing a grab (before any step) has the
 * bits of a run that never grabbed, contact and rotation included. */
static void
test_grab_released_is_inert (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) plain = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (plain, 100);
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  const double x_axis[3] = { 1, 0, 0 };
  CwbGrab grab = grab_point0 (world, 1e3, 10, x_axis, 0.5);
  cwb_world_set_grab (world, &grab);
  cwb_world_set_grab (world, NULL);
  fixture_step (world, 100);
  g_assert_cmpuint (cwb_world_state_hash (world), ==, cwb_world_state_hash (plain));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/world/edit/serial", test_serial);
  g_test_add_func ("/world/edit/restore/replays", test_restore_replays);
  g_test_add_func ("/world/edit/restore/wrong-sizes", test_restore_wrong_sizes);
  g_test_add_func ("/world/edit/carry", test_carry);
  g_test_add_func ("/world/edit/carry-renamed", test_carry_renamed);
  g_test_add_func ("/world/edit/params/solver", test_params_solver);
  g_test_add_func ("/world/edit/params/contact", test_params_contact);
  g_test_add_func ("/world/edit/params/recreate", test_params_recreate);
  g_test_add_func ("/world/edit/pair-refused", test_pair_refused);
  g_test_add_func ("/world/edit/grab/impulse", test_grab_impulse);
  g_test_add_func ("/world/edit/grab/settles", test_grab_settles);
  g_test_add_func ("/world/edit/grab/released-is-inert", test_grab_released_is_inert);
  return g_test_run ();
}

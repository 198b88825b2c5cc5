/* The world and its report: every documented report field, determinism by state hash,
 * blow-up recovery, runtime swapping of the contact model and the solver. */
#include <math.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "report.h"
#include "run.h"
#include "world_fixture.h"

static void
test_report_fields (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  g_autofree char *dir = g_dir_make_tmp ("cwb-report-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "report.json", NULL);
  CwbRunOptions options = { .steps = 50, .scene_path = "test.yaml", .report_path = path };
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_run_headless (&world, &options, &error));
  g_assert_no_error (error);

  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  const char *top[] = { "scene", "contact_model", "solver", "dt", "steps", "wall_ms",
                        "phase_ms", "per_step", "bodies" };
  for (size_t k = 0; k < G_N_ELEMENTS (top); k++)
    g_assert_true (json_object_has_member (root, top[k]));
  g_assert_cmpstr (json_object_get_string_member (root, "contact_model"), ==, "halfspace");
  g_assert_cmpstr (json_object_get_string_member (root, "solver"), ==, "constraint");
  g_assert_cmpint (json_object_get_int_member (root, "steps"), ==, 50);
  g_assert_cmpfloat (json_object_get_double_member (root, "dt"), ==, 0.005);
  g_assert_cmpfloat (json_object_get_double_member (root, "wall_ms"), >=, 0);

  JsonObject *phases = json_object_get_object_member (root, "phase_ms");
  const char *phase[] = { "collision_detection", "contact_modeling", "mechanical_motion",
                          "constraint_solver" };
  for (size_t k = 0; k < G_N_ELEMENTS (phase); k++)
    {
      double v = json_object_get_double_member (phases, phase[k]);
      g_assert_true (isfinite (v));
      g_assert_cmpfloat (v, >=, 0);
    }
  /* Beyond the contract: the compliance time, within the constraint solver's. The two boxes
   * rest with contacts every step, so the solver asks for compliance columns. */
  double compliance = json_object_get_double_member (root, "compliance_ms");
  g_assert_cmpfloat (compliance, >, 0);
  g_assert_cmpfloat (compliance, <=, json_object_get_double_member (phases, "constraint_solver"));

  JsonArray *steps = json_object_get_array_member (root, "per_step");
  g_assert_cmpint (json_array_get_length (steps), ==, 50);
  const char *step_fields[] = { "t", "kinetic_energy", "contacts", "intersection_volume",
                                "max_penetration", "solver_iterations", "solver_residual",
                                "compliance_ms" };
  for (guint s = 0; s < json_array_get_length (steps); s++)
    {
      JsonObject *st = json_array_get_object_element (steps, s);
      for (size_t k = 0; k < G_N_ELEMENTS (step_fields); k++)
        {
          g_assert_true (json_object_has_member (st, step_fields[k]));
          JsonNode *node = json_object_get_member (st, step_fields[k]);
          /* The half-space has no intersection volume: null, never left out. */
          if (g_str_equal (step_fields[k], "intersection_volume"))
            g_assert_true (JSON_NODE_HOLDS_NULL (node));
          else
            g_assert_true (isfinite (json_node_get_double (node)));
        }
      g_assert_cmpfloat (fabs (json_object_get_double_member (st, "t") - 0.005 * (s + 1)), <,
                         1e-12);
    }

  JsonArray *bodies = json_object_get_array_member (root, "bodies");
  g_assert_cmpint (json_array_get_length (bodies), ==, 2);
  for (guint b = 0; b < 2; b++)
    {
      JsonObject *body = json_array_get_object_element (bodies, b);
      g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "rigid");
      struct { const char *name; guint n; } vecs[] = { { "centroid", 3 },
                                                      { "linear_velocity", 3 },
                                                      { "orientation", 4 } };
      for (size_t k = 0; k < G_N_ELEMENTS (vecs); k++)
        {
          JsonArray *a = json_object_get_array_member (body, vecs[k].name);
          g_assert_cmpint (json_array_get_length (a), ==, vecs[k].n);
          for (guint i = 0; i < vecs[k].n; i++)
            g_assert_true (isfinite (json_array_get_double_element (a, i)));
        }
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* The same scene twice gives bit-identical states: any change in any plugin's arithmetic
 * shows up as a different hash. */
static void
test_determinism (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  guint64 hashes[2];
  for (int run = 0; run < 2; run++)
    {
      g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
      fixture_step (world, 300);
      hashes[run] = cwb_world_state_hash (world);
    }
  g_assert_cmpuint (hashes[0], ==, hashes[1]);

  /* And the hash does see a change of one bit of state. */
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (world, 300);
  double *v = cwb_world_v (world, NULL);
  v[0] = nextafter (v[0], INFINITY);
  g_assert_cmpuint (cwb_world_state_hash (world), !=, hashes[0]);
}

/* A numerical blow-up stops the run with the last good state kept, bit for bit; so does a
 * solver that fails its step. The test-only "faulty" solver does either on purpose. */
static void
check_failed_step_keeps_state (const char *mode, int code)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (world, 10);

  g_autoptr (GPtrArray) params = g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_scene_param_free);
  CwbSourceLoc loc = { "test", 0, 0 };
  g_autoptr (GError) error = NULL;
  cwb_scene_params_set (params, "mode", cwb_scene_node_parse (mode, &loc, &error), &loc);
  g_assert_no_error (error);
  g_assert_true (cwb_world_set_solver (world, "faulty", params, &error));
  g_assert_no_error (error);

  size_t nq, nv;
  const double *q = cwb_world_q (world, &nq);
  const double *v = cwb_world_v (world, &nv);
  g_autofree double *q_before = g_memdup2 (q, nq * sizeof (double));
  g_autofree double *v_before = g_memdup2 (v, nv * sizeof (double));
  guint64 steps = cwb_world_step_count (world);
  double time = cwb_world_time (world);

  g_assert_false (cwb_world_step (world, &error));
  g_assert_error (error, CWB_WORLD_ERROR, code);
  g_assert_nonnull (strstr (error->message, "last good state is kept"));
  if (code == CWB_WORLD_ERROR_BLOW_UP)
    g_assert_nonnull (strstr (error->message, "tumbling"));   /* the body with the NaN */
  g_assert_cmpmem (q, nq * sizeof (double), q_before, nq * sizeof (double));
  g_assert_cmpmem (v, nv * sizeof (double), v_before, nv * sizeof (double));
  g_assert_cmpuint (cwb_world_step_count (world), ==, steps);
  g_assert_cmpfloat (cwb_world_time (world), ==, time);
}

static void
test_blow_up_keeps_last_state (void)
{
  check_failed_step_keeps_state ("nan", CWB_WORLD_ERROR_BLOW_UP);
}

/* States that are finite but beyond physical bounds are blow-ups too (issue 17: velocities
 * of 1e300 ran 200 steps to exit 0, dt = 1e6 s ended with 1.9e21 J). A ball falling freely
 * at dt = 1e6 s has v_n = n g h after n steps (semi-implicit Euler, exact for a constant
 * force), so it passes the speed of light at step ceil (c / (g h)) = 31 and not before. */
static void
test_unphysical_states_stop (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (CwbWorld) world = fixture_world (
      registry, "world: { dt: 0.01 }\n"
                "bodies:\n"
                "  - name: bullet\n"
                "    shape: { type: sphere, radius: 0.1 }\n"
                "    velocity: { linear: [1.0e300, 0, 0] }\n");
    g_assert_false (cwb_world_step (world, &error));
    g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_BLOW_UP);
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "'bullet' has a kinetic energy too large"));
    g_assert_cmpuint (cwb_world_step_count (world), ==, 0);
    g_clear_error (&error);
  }
  g_autoptr (CwbWorld) world = fixture_world (
    registry, "world: { dt: 1.0e6, gravity: [0, 0, -9.81] }\n"
              "bodies:\n"
              "  - name: stone\n"
              "    shape: { type: sphere, radius: 0.1 }\n");
  guint64 expected = (guint64) ceil (299792458.0 / (9.81 * 1e6));
  g_assert_cmpuint (expected, ==, 31);
  while (cwb_world_step (world, &error))
    g_assert_cmpuint (cwb_world_step_count (world), <, expected);
  g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_BLOW_UP);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "beyond the speed of light"));
  g_assert_cmpuint (cwb_world_step_count (world), ==, expected - 1);
}

/* A divergence at finite speeds (issue 19: a mouse spring took a FEM snake to 7e11 J in
 * 0.1 s, about 4 times the speed a step, and the run went on): the test solver's "pump"
 * makes every velocity 4 times the free motion's, without gravity. A box of mass m moving at
 * 1 m/s: the guard starts after step 1 (speed 4, kinetic energy 8 m) with the floor m / 2 of
 * a body's (1 m/s)^2 / 2: a budget of 8.5 m; step n has 16^n m / 2, first above 10^4 times
 * the budget at n = 5 (16^5 / 2 = 5.2e5 > 8.5e4; 16^4 / 2 = 3.3e4 is not). The run stops
 * there with the last good state kept; a free flight at the same speed goes on. */
static void
test_energy_growth_stops (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
#define CRATE_SCENE(SOLVER)                                                                  \
  "world: { dt: 0.01, gravity: [0, 0, 0] }\n"                                                \
  "solver: { name: " SOLVER " }\n"                                                           \
  "bodies:\n"                                                                                \
  "  - name: crate\n"                                                                        \
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"                                        \
  "    velocity: { linear: [1, 0, 0] }\n"
  const char *pumped_yaml = CRATE_SCENE ("faulty, mode: pump");
  g_autoptr (CwbWorld) pumped = fixture_world (registry, pumped_yaml);
  g_autoptr (GError) error = NULL;
  while (cwb_world_step (pumped, &error))
    g_assert_cmpuint (cwb_world_step_count (pumped), <, 5);
  g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_BLOW_UP);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'crate'"));
  g_assert_nonnull (strstr (error->message, "times the"));
  g_assert_cmpuint (cwb_world_step_count (pumped), ==, 4);
  const double *v = cwb_world_v (pumped, NULL);
  g_assert_cmpfloat (v[0], ==, 256);   /* the last good state: 4^4 m/s */

  g_autoptr (CwbWorld) flight = fixture_world (registry, CRATE_SCENE ("constraint"));
  fixture_step (flight, 100);
}

/* A plugin's error domain keeps its name after the host closes the plugin's library
 * (CWB_DEFINE_ERROR_QUARK, abi.h): with G_DEFINE_QUARK the name stayed in GLib's quark table
 * as a pointer into the unmapped library, and this lookup read it. */
static void
test_error_domain_outlives_plugin (void)
{
  {
    g_autoptr (CwbRegistry) registry = fixture_registry ();
    g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
    g_autoptr (GPtrArray) params =
      g_ptr_array_new_with_free_func ((GDestroyNotify) cwb_scene_param_free);
    CwbSourceLoc loc = { "test", 0, 0 };
    g_autoptr (GError) error = NULL;
    cwb_scene_params_set (params, "mode", cwb_scene_node_parse ("error", &loc, &error), &loc);
    g_assert_true (cwb_world_set_solver (world, "faulty", params, &error));
    g_assert_false (cwb_world_step (world, &error));
    g_assert_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_STEP_FAILED);
  }
  /* The registry is freed: the faulty plugin's library is closed. */
  GQuark domain = g_quark_try_string ("cwb-faulty-error-quark");
  g_assert_cmpuint (domain, !=, 0);
  g_assert_cmpstr (g_quark_to_string (domain), ==, "cwb-faulty-error-quark");
}

static void
test_failed_step_keeps_last_state (void)
{
  check_failed_step_keeps_state ("error", CWB_WORLD_ERROR_STEP_FAILED);
}

static void
test_swap (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fixture_two_boxes_yaml);
  fixture_step (world, 5);
  guint64 hash = cwb_world_state_hash (world);

  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_world_set_contact_model (world, "no-such-model", NULL, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_UNKNOWN_PLUGIN);
  g_assert_cmpstr (cwb_world_contact_model_name (world), ==, "halfspace");
  g_clear_error (&error);

  /* Swapping leaves the bodies' state untouched and clears the old contacts. */
  g_assert_true (cwb_world_set_contact_model (world, NULL, NULL, &error));
  g_assert_null (cwb_world_contact_model_name (world));
  g_assert_cmpuint (cwb_world_state_hash (world), ==, hash);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, ==, 0);
  g_assert_true (cwb_world_set_contact_model (world, "halfspace", NULL, &error));
  g_assert_true (cwb_world_set_solver (world, "constraint", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_world_state_hash (world), ==, hash);
  fixture_step (world, 5);
  g_assert_cmpuint (cwb_world_contacts (world)->frames->len, >, 0);
}

/* Penalty point forces through the constraint solver: J^T f and the body's compliance
 * (Saupin 2008 eq. 14 with r = J^T f). A box pressed d into the plane, at rest, no gravity:
 * the N points behind the plane each get k d, so after one step of h the box moves up with
 * v = h N k d / m exactly (the forces are evaluated at the free configuration, which at rest
 * and without gravity is the start), and no torque acts (the pattern is symmetric). */
static void
test_penalty_forces (void)
{
  const double k = 1e4, d = 1e-3, h = 0.01;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (
    registry,
    "world: { dt: 0.01, gravity: [0, 0, 0] }\n"
    "contact: { model: halfspace, stiffness: 1.0e4 }\n"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: pressed\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0, 0, 0.099] }\n");
  size_t n_geometries;
  const CwbGeometry *g = cwb_world_geometries (world, &n_geometries);
  size_t behind = 0;
  for (size_t p = 0; p < g[0].n_points; p++)
    behind += g[0].positions[3 * p + 2] < 0;
  g_assert_cmpuint (behind, >=, 4);
  CwbBodySummary before;
  cwb_world_body_summary (world, 0, &before);

  fixture_step (world, 1);
  CwbBodySummary after;
  cwb_world_body_summary (world, 0, &after);
  double expected = h * behind * k * d / before.mass;
  /* One compliance product and a sum of N equal forces: round-off only (1e-12 relative). */
  g_assert_cmpfloat (fabs (after.linear_velocity[2] - expected), <, 1e-12 * expected);
  g_assert_cmpfloat (fabs (after.centroid[2] - (before.centroid[2] + h * expected)), <,
                     1e-12 * h * expected);
  g_assert_cmpfloat (cwb_v3_norm (after.angular_velocity), <, 1e-12 * expected / 0.1);
  const CwbContactSet *set = cwb_world_contacts (world);
  g_assert_cmpuint (set->frames->len, ==, behind);
  g_assert_cmpuint (set->rows->len, ==, 0);
  for (guint f = 0; f < set->frames->len; f++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      g_assert_cmpfloat (fabs (frame->force[0] - k * d), <, 1e-9 * k * d);
    }
}

/* The open rectangle shape (for cloth bodies) as a rigid body: a free one has no mass
 * properties (they need a closed surface) and is refused with the rigid model's message
 * naming the body; a fixed one needs none and builds, and a world with it steps. */
static void
test_rigid_rectangle (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  const char *free_yaml = "contact: { model: proximity }\n"
                          "bodies:\n"
                          "  - name: sheet\n"
                          "    shape: { type: rectangle, size: [1, 0.5], resolution: 8 }\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data (free_yaml, -1, "sheet.yaml", &error);
  g_assert_no_error (error);
  g_autoptr (CwbWorld) refused = cwb_world_new (scene, registry, &error);
  g_assert_null (refused);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "body 'sheet'"));
  g_assert_nonnull (strstr (error->message, "is not closed; a free rigid body needs a closed "
                                            "surface"));
  g_clear_error (&error);

  const char *fixed_yaml = "contact: { model: proximity }\n"
                           "bodies:\n"
                           "  - name: sheet\n"
                           "    shape: { type: rectangle, size: [1, 0.5], resolution: 8 }\n"
                           "    fixed: true\n"
                           "  - name: box\n"
                           "    shape: { type: box, size: [0.1, 0.1, 0.1] }\n"
                           "    pose: { position: [0, 0, 0.06] }\n";
  g_autoptr (CwbWorld) world = fixture_world (registry, fixed_yaml);
  g_assert_cmpuint (cwb_world_n_bodies (world), ==, 2);
  fixture_step (world, 20);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/world/report/fields", test_report_fields);
  g_test_add_func ("/world/determinism", test_determinism);
  g_test_add_func ("/world/failure/blow-up", test_blow_up_keeps_last_state);
  g_test_add_func ("/world/failure/solver-error", test_failed_step_keeps_last_state);
  g_test_add_func ("/world/failure/unphysical", test_unphysical_states_stop);
  g_test_add_func ("/world/failure/energy-growth", test_energy_growth_stops);
  g_test_add_func ("/world/failure/error-domain-outlives-plugin",
                   test_error_domain_outlives_plugin);
  g_test_add_func ("/world/swap", test_swap);
  g_test_add_func ("/world/penalty-forces", test_penalty_forces);
  g_test_add_func ("/world/rigid-rectangle", test_rigid_rectangle);
  return g_test_run ();
}

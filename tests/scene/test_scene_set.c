/* --set KEY=VALUE overrides: every path kind, and the errors. */
#include <string.h>

#include "scene.h"

static const char scene_yaml[] =
  "contact:\n  model: penalty\n  stiffness: 1.0e4\n"
  "solver:\n  name: constraint\n"
  "bodies:\n"
  "  - name: box\n    shape: {type: box, size: [1, 1, 1]}\n"
  "  - name: ball\n    shape: {type: sphere, radius: 0.5}\n";

static CwbScene *
scene_fixture (void)
{
  g_autoptr (GError) error = NULL;
  CwbScene *scene = cwb_scene_load_from_data (scene_yaml, -1, "set.yaml", &error);
  g_assert_no_error (error);
  return scene;
}

static void
apply_ok (CwbScene *scene, const char *key, const char *value)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_scene_apply_set (scene, key, value, &error));
  g_assert_no_error (error);
}

static void
test_set_world (void)
{
  g_autoptr (CwbScene) scene = scene_fixture ();
  apply_ok (scene, "world.dt", "0.005");
  g_assert_cmpfloat (scene->dt, ==, 0.005);
  apply_ok (scene, "world.gravity", "[0, -9.81, 0]");
  g_assert_cmpfloat (scene->gravity[1], ==, -9.81);
  g_assert_cmpfloat (scene->gravity[2], ==, 0);
}

static void
test_set_plugins (void)
{
  g_autoptr (CwbScene) scene = scene_fixture ();
  apply_ok (scene, "contact.model", "ldi");
  g_assert_cmpstr (scene->contact_model, ==, "ldi");
  g_assert_cmpstr (scene->contact_model_loc.file, ==, "--set");
  apply_ok (scene, "contact.stiffness", "2e4");
  CwbSceneParam *k = cwb_scene_params_find (scene->contact_params, "stiffness");
  g_assert_cmpstr (k->value->scalar, ==, "2e4");
  g_assert_cmpstr (k->key_loc.file, ==, "--set");
  g_assert_cmpuint (scene->contact_params->len, ==, 1);   /* replaced, not added */
  apply_ok (scene, "solver.name", "pgs");
  g_assert_cmpstr (scene->solver, ==, "pgs");
  apply_ok (scene, "solver.iterations", "50");
  g_assert_nonnull (cwb_scene_params_find (scene->solver_params, "iterations"));
}

static void
test_set_body_fields (void)
{
  g_autoptr (CwbScene) scene = scene_fixture ();
  CwbBodyDesc *box = cwb_scene_find_body (scene, "box");
  apply_ok (scene, "bodies.box.friction", "0.8");
  g_assert_cmpfloat (box->friction, ==, 0.8);
  apply_ok (scene, "bodies.box.material.density", "500");
  g_assert_cmpfloat (box->density, ==, 500);
  apply_ok (scene, "bodies.box.position", "[1, 2, 3]");
  g_assert_cmpfloat (box->position[2], ==, 3);
  apply_ok (scene, "bodies.box.orientation", "[0, 0, 0, 2]");
  g_assert_cmpfloat (box->orientation[3], ==, 1);
  apply_ok (scene, "bodies.box.linear_velocity", "[0, 0, -1]");
  g_assert_cmpfloat (box->linear_velocity[2], ==, -1);
  apply_ok (scene, "bodies.box.angular_velocity", "[0, 1, 0]");
  g_assert_cmpfloat (box->angular_velocity[1], ==, 1);
  apply_ok (scene, "bodies.box.fixed", "true");
  g_assert_true (box->fixed);
  apply_ok (scene, "bodies.box.model", "fem");
  g_assert_cmpstr (box->model, ==, "fem");
  apply_ok (scene, "bodies.box.mapping", "barycentric");
  g_assert_cmpstr (box->mapping, ==, "barycentric");

  CwbBodyDesc *ball = cwb_scene_find_body (scene, "ball");
  apply_ok (scene, "bodies.ball.shape.radius", "0.25");
  g_assert_cmpfloat (ball->shape.radius, ==, 0.25);
  apply_ok (scene, "bodies.ball.shape.resolution", "8");
  g_assert_cmpint (ball->shape.resolution, ==, 8);
}

static void
test_set_body_params (void)
{
  g_autoptr (CwbScene) scene = scene_fixture ();
  CwbBodyDesc *box = cwb_scene_find_body (scene, "box");
  apply_ok (scene, "bodies.box.young_modulus", "1e5");
  g_assert_nonnull (cwb_scene_params_find (box->model_params, "young_modulus"));
  apply_ok (scene, "bodies.box.mapping_params.offset", "0.1");
  g_assert_nonnull (cwb_scene_params_find (box->mapping_params, "offset"));

  /* What the world does when only the mapping's schema has the name. */
  apply_ok (scene, "bodies.box.skin", "0.01");
  g_assert_true (cwb_scene_params_move (box->model_params, box->mapping_params, "skin"));
  g_assert_null (cwb_scene_params_find (box->model_params, "skin"));
  g_assert_nonnull (cwb_scene_params_find (box->mapping_params, "skin"));
  g_assert_false (cwb_scene_params_move (box->model_params, box->mapping_params, "skin"));
}

typedef struct SetCase {
  const char *path, *key, *value;
  CwbSceneError code;
  const char *prefix;
} SetCase;

static const SetCase set_cases[] = {
  { "unknown-section", "wrld.dt", "0.1", CWB_SCENE_ERROR_UNKNOWN_FIELD, "--set: wrld.dt: " },
  { "unknown-world-field", "world.dtt", "0.1", CWB_SCENE_ERROR_UNKNOWN_FIELD,
    "--set: world.dtt: " },
  { "unknown-body", "bodies.cube.friction", "0.1", CWB_SCENE_ERROR_UNKNOWN_FIELD,
    "--set: bodies.cube: no body named 'cube'" },
  { "no-field", "bodies.box", "0.1", CWB_SCENE_ERROR_UNKNOWN_FIELD, "--set: bodies.box: " },
  { "dotted-unknown", "bodies.box.pose.spin", "1", CWB_SCENE_ERROR_UNKNOWN_FIELD,
    "--set: bodies.box.pose.spin: " },
  { "shape-field-of-other-type", "bodies.box.shape.radius", "1",
    CWB_SCENE_ERROR_UNKNOWN_FIELD, "--set: bodies.box.shape.radius: " },
  { "shape-type-change-incomplete", "bodies.box.shape.type", "sphere",
    CWB_SCENE_ERROR_MISSING, "--set: bodies.box.shape.radius: " },
  { "bad-syntax", "world.gravity", "[0, 0", CWB_SCENE_ERROR_SYNTAX, "--set: world.gravity: " },
  { "wrong-type", "world.dt", "fast", CWB_SCENE_ERROR_TYPE, "--set: world.dt: " },
  { "out-of-range", "world.dt", "-0.1", CWB_SCENE_ERROR_RANGE, "--set: world.dt: " },
  { "negative-friction", "bodies.box.friction", "-1", CWB_SCENE_ERROR_RANGE,
    "--set: bodies.box.friction: " },
  { "vector-length", "bodies.box.position", "[1, 2]", CWB_SCENE_ERROR_TYPE,
    "--set: bodies.box.position: " },
  { "empty-model", "contact.model", "''", CWB_SCENE_ERROR_TYPE, "--set: contact.model: " },
};

static void
test_set_error (gconstpointer data)
{
  const SetCase *c = data;
  g_autoptr (CwbScene) scene = scene_fixture ();
  g_autofree char *before = cwb_scene_to_yaml (scene);
  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_scene_apply_set (scene, c->key, c->value, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, CWB_SCENE_ERROR, (gint) c->code);
  if (!g_str_has_prefix (error->message, c->prefix))
    g_error ("message '%s' does not start with '%s'", error->message, c->prefix);
  /* A rejected override leaves the scene as it was. */
  g_autofree char *after = cwb_scene_to_yaml (scene);
  g_assert_cmpstr (before, ==, after);
}

/* A key that is not UTF-8 is refused (the set fuzzer applied one, and the scene could then
 * not be saved). */
static void
test_set_key_not_utf8 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load_from_data ("world: {dt: 0.01}\n", -1, "s.yaml",
                                                         &error);
  g_assert_false (cwb_scene_apply_set (scene, "solver.etiration\xf3", "20", &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_SYNTAX);
  g_assert_nonnull (strstr (error->message, "not UTF-8"));
}

/* Choosing another contact model or solver keeps the parameters of the one in use under its
 * name (other_models) and brings back those kept for the new one; saved and read back alike. */
static void
test_set_keeps_other_models (void)
{
  g_autoptr (CwbScene) scene = scene_fixture ();
  g_autoptr (GError) error = NULL;
  g_autofree char *note = NULL;
  g_assert_true (cwb_scene_apply_set_noted (scene, "contact.model", "ldi", &note, &error));
  g_assert_cmpstr (note, ==, "the parameters of penalty (stiffness) are kept for it in "
                             "other_models");
  g_assert_cmpuint (scene->contact_params->len, ==, 0);   /* nothing of penalty's for ldi */
  g_assert_cmpuint (scene->contact_kept->len, ==, 1);
  apply_ok (scene, "contact.pixel_size", "0.01");
  g_clear_pointer (&note, g_free);
  g_assert_true (cwb_scene_apply_set_noted (scene, "contact.model", "penalty", &note, &error));
  g_assert_cmpstr (note, ==, "the parameters of ldi (pixel_size) are kept for it in "
                             "other_models; those kept for penalty (stiffness) are back");
  CwbSceneParam *k = cwb_scene_params_find (scene->contact_params, "stiffness");
  g_assert_nonnull (k);
  g_assert_cmpstr (k->value->scalar, ==, "1.0e4");
  g_assert_cmpint (k->key_loc.line, ==, 3);   /* where the file wrote it */
  g_assert_null (cwb_scene_params_find (scene->contact_params, "pixel_size"));
  g_autoptr (GPtrArray) ldi = cwb_scene_kept_params (scene, TRUE, "ldi");
  g_assert_nonnull (ldi);
  g_assert_cmpstr (((CwbSceneParam *) ldi->pdata[0])->name, ==, "pixel_size");
  /* Choosing the model in use moves nothing. */
  g_clear_pointer (&note, g_free);
  g_assert_true (cwb_scene_apply_set_noted (scene, "contact.model", "penalty", &note, &error));
  g_assert_null (note);

  /* The solver alike, from the default a scene names by omission. */
  g_autoptr (CwbScene) unnamed = cwb_scene_load_from_data ("solver: { iterations: 50 }\n", -1,
                                                           "unnamed.yaml", &error);
  g_assert_no_error (error);
  apply_ok (unnamed, "solver.name", "pgs");
  g_assert_cmpuint (unnamed->solver_params->len, ==, 0);
  g_autoptr (GPtrArray) constraint = cwb_scene_kept_params (unnamed, FALSE, "constraint");
  g_assert_nonnull (constraint);
  g_assert_cmpuint (constraint->len, ==, 1);

  /* Saved as the sections' other_models, and read back as the same scene. */
  g_autofree char *text = cwb_scene_to_yaml (scene);
  g_assert_nonnull (strstr (text, "other_models:"));
  g_autoptr (CwbScene) back = cwb_scene_load_from_data (text, -1, "back.yaml", &error);
  g_assert_no_error (error);
  g_assert_true (cwb_scene_equal (scene, back));
  g_autofree char *solver_text = cwb_scene_to_yaml (unnamed);
  g_autoptr (CwbScene) solver_back = cwb_scene_load_from_data (solver_text, -1, "s.yaml",
                                                               &error);
  g_assert_no_error (error);
  g_assert_true (cwb_scene_equal (unnamed, solver_back));
}

/* other_models as a user may mistype it: each refused with file, line and field. */
static void
test_other_models_errors (void)
{
  const struct { const char *yaml, *needle; } cases[] = {
    { "contact:\n  model: ldi\n  other_models: 3\n",
      "bad.yaml:3:17: contact.other_models: expected a mapping" },
    { "contact:\n  model: ldi\n  other_models:\n    penalty: 5\n",
      "bad.yaml:4:14: contact.other_models.penalty: expected a mapping" },
    { "contact:\n  model: ldi\n  other_models:\n    ldi: { pixel_size: 0.01 }\n",
      "bad.yaml:4:5: contact.other_models.ldi: ldi is the plugin in use" },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CwbScene) scene = cwb_scene_load_from_data (cases[k].yaml, -1, "bad.yaml",
                                                             &error);
      g_assert_null (scene);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[k].needle));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scene/set/world", test_set_world);
  g_test_add_func ("/scene/set/key-not-utf8", test_set_key_not_utf8);
  g_test_add_func ("/scene/set/plugins", test_set_plugins);
  g_test_add_func ("/scene/set/keeps-other-models", test_set_keeps_other_models);
  g_test_add_func ("/scene/set/other-models-errors", test_other_models_errors);
  g_test_add_func ("/scene/set/body-fields", test_set_body_fields);
  g_test_add_func ("/scene/set/body-params", test_set_body_params);
  for (size_t i = 0; i < G_N_ELEMENTS (set_cases); i++)
    {
      g_autofree char *path = g_strconcat ("/scene/set/error/", set_cases[i].path, NULL);
      g_test_add_data_func (path, &set_cases[i], test_set_error);
    }
  return g_test_run ();
}

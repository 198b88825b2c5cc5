/* The document (document.h): every edit kind undone and redone to the exact YAML text, chains
 * of edits, failed edits that change nothing, unique body names, unsaved state across save
 * and save as, and autosave with recovery, after a killed process too.
 *
 * Every file the tests write, the document's autosaves included, lies under one temporary
 * folder that main() makes, points XDG_STATE_HOME into, and removes; each test writes its
 * scenes in a folder named by its test path, so its autosaves (named from the scene's path)
 * are its own. A subprocess inherits the environment, and with it the folder. */
#include <math.h>
#include <signal.h>
#include <string.h>

#include <glib/gstdio.h>

#include "document.h"
#include "mesh.h"

/* A small scene with every section, a plugin parameter and two bodies; the comment and the
 * flow layout make its text differ from what the document writes. */
static const char scene_text[] =
  "# A small scene for the document's tests.\n"
  "world: {dt: 0.01, gravity: [0, 0, -9.81]}\n"
  "contact: {model: penalty, stiffness: 1000}\n"
  "solver: {name: constraint}\n"
  "bodies:\n"
  "  - name: box\n"
  "    shape: {type: box, size: [1, 1, 1]}\n"
  "  - name: ball\n"
  "    shape: {type: sphere, radius: 0.5}\n"
  "    pose: {position: [0, 0, 2], orientation: [1, 0, 0, 0]}\n";

/* ---- helpers -------------------------------------------------------------------------- */

/* The environment variable that names this run's folder: set by the first process, found by
 * its subprocesses. */
#define RUN_DIR_ENV "CWB_TEST_DOCUMENT_DIR"

/* A path in this test's own folder (created): RUN_DIR/scenes/TEST/PATH/name. */
static char *
test_file (const char *name)
{
  g_autofree char *dir = g_build_filename (g_getenv (RUN_DIR_ENV), "scenes", g_test_get_path (),
                                           NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  return g_build_filename (dir, name, NULL);
}

static char *
write_scene (const char *name, const char *text)
{
  char *path = test_file (name);
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

static CwbDocument *
open_scene (const char *name, const char *text, char **path_out)
{
  g_autofree char *path = write_scene (name, text);
  g_autoptr (GError) error = NULL;
  CwbDocument *document = cwb_document_open (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (document);
  if (path_out != NULL)
    *path_out = g_steal_pointer (&path);
  return document;
}

static char *
document_text (const CwbDocument *document)
{
  return cwb_scene_to_yaml (cwb_document_scene (document));
}

/* The text the document writes for the scene file at `path`. */
static char *
file_scene_text (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) scene = cwb_scene_load (path, &error);
  g_assert_no_error (error);
  return cwb_scene_to_yaml (scene);
}

static char *
file_contents (const char *path)
{
  char *contents = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  g_assert_no_error (error);
  return contents;
}

/* ---- every edit kind: undo and redo restore the text exactly --------------------------- */

typedef gboolean (*EditFunc) (CwbDocument *document, GError **error);

typedef struct EditCase {
  const char *test_path;
  EditFunc edit;
  const char *label;
} EditCase;

static gboolean
edit_set_param (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "contact.stiffness", "2500", error);
}

static gboolean
edit_set_world (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "world.gravity", "[0, 0, -1.62]", error);
}

static gboolean
edit_set_body (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "bodies.ball.material.friction", "0.8", error);
}

static gboolean
edit_contact_model (CwbDocument *document, GError **error)
{
  return cwb_document_set_contact_model (document, "ldi", NULL, error);
}

static gboolean
edit_contact_none (CwbDocument *document, GError **error)
{
  return cwb_document_set_contact_model (document, NULL, NULL, error);
}

static gboolean
edit_solver (CwbDocument *document, GError **error)
{
  return cwb_document_set_solver (document, "pgs", NULL, error);
}

static gboolean
edit_add (CwbDocument *document, GError **error)
{
  return cwb_document_add_body (document, cwb_scene_body_new (), error) != NULL;
}

static gboolean
edit_remove (CwbDocument *document, GError **error)
{
  return cwb_document_remove_body (document, "box", error);
}

static gboolean
edit_duplicate (CwbDocument *document, GError **error)
{
  static const double offset[3] = { 1, 0, 0 };
  return cwb_document_duplicate_body (document, "ball", offset, error) != NULL;
}

static gboolean
edit_rename (CwbDocument *document, GError **error)
{
  return cwb_document_rename_body (document, "box", "lid", error);
}

static gboolean
edit_pose (CwbDocument *document, GError **error)
{
  static const double position[3] = { 1, 2, 3 };
  static const double orientation[4] = { 0, 0, 0, 1 };
  return cwb_document_set_body_pose (document, "ball", position, orientation, error);
}

static const EditCase edit_cases[] = {
  { "/document/undo/set-param", edit_set_param, "Set contact.stiffness" },
  { "/document/undo/set-world", edit_set_world, "Set world.gravity" },
  { "/document/undo/set-body", edit_set_body, "Set bodies.ball.material.friction" },
  { "/document/undo/contact-model", edit_contact_model, "Set contact model to ldi" },
  { "/document/undo/contact-model-none", edit_contact_none, "Remove contact model" },
  { "/document/undo/solver", edit_solver, "Set solver to pgs" },
  { "/document/undo/add-body", edit_add, "Add box 2" },
  { "/document/undo/remove-body", edit_remove, "Remove box" },
  { "/document/undo/duplicate-body", edit_duplicate, "Duplicate ball" },
  { "/document/undo/rename-body", edit_rename, "Rename box to lid" },
  { "/document/undo/set-body-pose", edit_pose, "Move ball" },
};

static void
test_edit_undo_redo (gconstpointer data)
{
  const EditCase *c = data;
  g_autofree char *path = NULL;
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, &path);
  g_autofree char *before = document_text (document);
  guint64 revision = cwb_document_revision (document);
  g_assert_false (cwb_document_is_dirty (document));
  g_assert_false (cwb_document_can_undo (document));
  g_assert_null (cwb_document_undo_label (document));

  g_autoptr (GError) error = NULL;
  g_assert_true (c->edit (document, &error));
  g_assert_no_error (error);
  g_autofree char *after = document_text (document);
  g_assert_cmpstr (before, !=, after);
  g_assert_true (cwb_document_is_dirty (document));
  g_assert_cmpuint (cwb_document_revision (document), >, revision);
  g_assert_cmpstr (cwb_document_undo_label (document), ==, c->label);
  g_assert_false (cwb_document_can_redo (document));
  /* The scene keeps the document's path, for mesh files relative to it. */
  g_assert_cmpstr (cwb_document_scene (document)->path, ==, path);

  revision = cwb_document_revision (document);
  g_assert_true (cwb_document_undo (document, &error));
  g_assert_no_error (error);
  g_autofree char *undone = document_text (document);
  g_assert_cmpstr (undone, ==, before);
  g_assert_false (cwb_document_is_dirty (document));
  g_assert_false (cwb_document_can_undo (document));
  g_assert_cmpstr (cwb_document_redo_label (document), ==, c->label);
  g_assert_cmpuint (cwb_document_revision (document), >, revision);
  g_assert_cmpstr (cwb_document_scene (document)->path, ==, path);

  g_assert_true (cwb_document_redo (document, &error));
  g_assert_no_error (error);
  g_autofree char *redone = document_text (document);
  g_assert_cmpstr (redone, ==, after);
  g_assert_true (cwb_document_is_dirty (document));
  g_assert_cmpstr (cwb_document_undo_label (document), ==, c->label);
  g_assert_false (cwb_document_can_redo (document));
}

/* Five edits of different kinds undone one by one return to the loaded text, clean; redone,
 * to the text after the fifth. */
static void
test_undo_chain (void)
{
  g_autofree char *path = NULL;
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, &path);
  g_autofree char *loaded = file_scene_text (path);
  EditFunc chain[] = { edit_set_param, edit_rename, edit_add, edit_pose, edit_solver };
  g_autoptr (GError) error = NULL;
  for (size_t i = 0; i < G_N_ELEMENTS (chain); i++)
    {
      g_assert_true (chain[i] (document, &error));
      g_assert_no_error (error);
    }
  g_autofree char *final = document_text (document);
  g_assert_cmpstr (cwb_document_undo_label (document), ==, "Set solver to pgs");

  for (size_t i = 0; i < G_N_ELEMENTS (chain); i++)
    {
      g_assert_true (cwb_document_is_dirty (document));
      g_assert_true (cwb_document_undo (document, &error));
      g_assert_no_error (error);
    }
  g_autofree char *undone = document_text (document);
  g_assert_cmpstr (undone, ==, loaded);
  g_assert_false (cwb_document_is_dirty (document));
  g_assert_false (cwb_document_can_undo (document));
  g_assert_false (cwb_document_undo (document, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_MISSING);
  g_clear_error (&error);

  for (size_t i = 0; i < G_N_ELEMENTS (chain); i++)
    g_assert_true (cwb_document_redo (document, NULL));
  g_autofree char *redone = document_text (document);
  g_assert_cmpstr (redone, ==, final);
  g_assert_false (cwb_document_can_redo (document));
}

static void
test_new_edit_clears_redo (void)
{
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, NULL);
  g_assert_true (edit_set_param (document, NULL));
  g_assert_true (edit_rename (document, NULL));
  g_assert_true (cwb_document_undo (document, NULL));
  g_assert_true (cwb_document_can_redo (document));
  g_assert_cmpstr (cwb_document_redo_label (document), ==, "Rename box to lid");

  g_assert_true (edit_pose (document, NULL));
  g_assert_false (cwb_document_can_redo (document));
  g_assert_null (cwb_document_redo_label (document));
  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_document_redo (document, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_MISSING);
  /* The two edits are still there to undo, the undone one is gone. */
  g_assert_cmpstr (cwb_document_undo_label (document), ==, "Move ball");
  g_assert_true (cwb_document_undo (document, NULL));
  g_assert_cmpstr (cwb_document_undo_label (document), ==, "Set contact.stiffness");
}

/* The undo stack keeps the last 200 steps (UNDO_DEPTH in document.c). */
static void
test_undo_depth_bounded (void)
{
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, NULL);
  const guint edits = 205, depth = 200;
  for (guint i = 1; i <= edits; i++)
    {
      g_autofree char *dt = g_strdup_printf ("%g", 0.001 * i);
      g_assert_true (cwb_document_set (document, "world.dt", dt, NULL));
    }
  guint undone = 0;
  while (cwb_document_undo (document, NULL))
    undone++;
  g_assert_cmpuint (undone, ==, depth);
  /* The oldest steps went: undoing all that is left stops at the fifth edit's state. */
  g_assert_cmpfloat (cwb_document_scene (document)->dt, ==, 0.001 * (edits - depth));
  g_assert_true (cwb_document_is_dirty (document));
}

/* ---- failed edits change nothing ------------------------------------------------------- */

typedef struct FailCase {
  const char *test_path;
  EditFunc edit;
  int code;              /* CwbSceneError, or -1: any code */
  const char *message;   /* a part of the message */
} FailCase;

static gboolean
fail_bad_key (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "world.wind", "3", error);
}

static gboolean
fail_bad_section (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "lighting.sun", "3", error);
}

static gboolean
fail_type (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "world.dt", "fast", error);
}

static gboolean
fail_range (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "world.dt", "-1", error);
}

static gboolean
fail_set_no_body (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "bodies.crate.friction", "0.2", error);
}

static gboolean
fail_shape_field (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "bodies.box.shape.radius", "0.2", error);
}

static gboolean
fail_rename_duplicate (CwbDocument *document, GError **error)
{
  return cwb_document_rename_body (document, "box", "ball", error);
}

static gboolean
fail_rename_dot (CwbDocument *document, GError **error)
{
  return cwb_document_rename_body (document, "box", "box.lid", error);
}

static gboolean
fail_rename_empty (CwbDocument *document, GError **error)
{
  return cwb_document_rename_body (document, "box", "", error);
}

static gboolean
fail_rename_missing (CwbDocument *document, GError **error)
{
  return cwb_document_rename_body (document, "crate", "lid", error);
}

static gboolean
fail_remove_missing (CwbDocument *document, GError **error)
{
  return cwb_document_remove_body (document, "crate", error);
}

static gboolean
fail_duplicate_missing (CwbDocument *document, GError **error)
{
  return cwb_document_duplicate_body (document, "crate", NULL, error) != NULL;
}

static gboolean
fail_pose_zero_quaternion (CwbDocument *document, GError **error)
{
  static const double position[3] = { 5, 5, 5 };
  static const double orientation[4] = { 0, 0, 0, 0 };
  return cwb_document_set_body_pose (document, "ball", position, orientation, error);
}

static gboolean
fail_pose_not_finite (CwbDocument *document, GError **error)
{
  const double position[3] = { 0, INFINITY, 0 };
  static const double orientation[4] = { 1, 0, 0, 0 };
  return cwb_document_set_body_pose (document, "ball", position, orientation, error);
}

static gboolean
fail_add_dot (CwbDocument *document, GError **error)
{
  CwbBodyDesc *body = cwb_scene_body_new ();
  body->name = g_strdup ("a.b");
  return cwb_document_add_body (document, body, error) != NULL;
}

/* A body the scene format rejects: caught when the edited text is loaded again, and the
 * scene, the body already in it, is restored. */
static gboolean
fail_add_bad_density (CwbDocument *document, GError **error)
{
  CwbBodyDesc *body = cwb_scene_body_new ();
  body->density = -1;
  return cwb_document_add_body (document, body, error) != NULL;
}

static gboolean
fail_contact_model_empty (CwbDocument *document, GError **error)
{
  return cwb_document_set_contact_model (document, "", NULL, error);
}

static const FailCase fail_cases[] = {
  { "/document/edit/fails/unknown-key", fail_bad_key, CWB_SCENE_ERROR_UNKNOWN_FIELD,
    "world.wind: unknown field" },
  { "/document/edit/fails/unknown-section", fail_bad_section, CWB_SCENE_ERROR_UNKNOWN_FIELD,
    "lighting.sun: unknown section 'lighting'" },
  { "/document/edit/fails/type", fail_type, CWB_SCENE_ERROR_TYPE,
    "world.dt: expected a finite number, got 'fast'" },
  { "/document/edit/fails/range", fail_range, CWB_SCENE_ERROR_RANGE, "world.dt: -1 is out of range" },
  { "/document/edit/fails/set-no-body", fail_set_no_body, CWB_SCENE_ERROR_UNKNOWN_FIELD,
    "bodies.crate: no body named 'crate'" },
  { "/document/edit/fails/shape-field", fail_shape_field, -1, "bodies.box.shape.radius: unknown field" },
  { "/document/edit/fails/rename-duplicate", fail_rename_duplicate, CWB_SCENE_ERROR_DUPLICATE,
    "bodies.box.name: a body named 'ball' exists already" },
  { "/document/edit/fails/rename-dot", fail_rename_dot, CWB_SCENE_ERROR_RANGE,
    "bodies.box.name: 'box.lid' has a '.'" },
  { "/document/edit/fails/rename-empty", fail_rename_empty, CWB_SCENE_ERROR_TYPE,
    "bodies.box.name: empty, expected a body name" },
  { "/document/edit/fails/rename-missing", fail_rename_missing, CWB_SCENE_ERROR_UNKNOWN_FIELD,
    "bodies.crate: no body named 'crate', expected one of: box, ball" },
  { "/document/edit/fails/remove-missing", fail_remove_missing, CWB_SCENE_ERROR_UNKNOWN_FIELD,
    "bodies.crate: no body named 'crate'" },
  { "/document/edit/fails/duplicate-missing", fail_duplicate_missing,
    CWB_SCENE_ERROR_UNKNOWN_FIELD, "bodies.crate: no body named 'crate'" },
  { "/document/edit/fails/pose-zero-quaternion", fail_pose_zero_quaternion,
    CWB_SCENE_ERROR_RANGE, "bodies.ball.orientation: quaternion of norm 0" },
  { "/document/edit/fails/pose-not-finite", fail_pose_not_finite, CWB_SCENE_ERROR_TYPE,
    "bodies.ball.position[1]: expected a finite number" },
  { "/document/edit/fails/add-dotted-name", fail_add_dot, CWB_SCENE_ERROR_RANGE,
    "bodies[2].name: 'a.b' has a '.'" },
  { "/document/edit/fails/add-bad-density", fail_add_bad_density, CWB_SCENE_ERROR_RANGE,
    "bodies.box 2.material.density: -1 is out of range" },
  { "/document/edit/fails/contact-model-empty", fail_contact_model_empty, CWB_SCENE_ERROR_TYPE,
    "contact.model: empty" },
};

static void
test_failed_edit (gconstpointer data)
{
  const FailCase *c = data;
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, NULL);
  /* One edit first, so that "no undo step" is visible as an unchanged top of the stack. */
  g_assert_true (edit_set_world (document, NULL));
  g_assert_true (cwb_document_undo (document, NULL));
  g_assert_true (cwb_document_can_redo (document));
  g_autofree char *before = document_text (document);
  guint64 revision = cwb_document_revision (document);
  const CwbScene *scene = cwb_document_scene (document);

  g_autoptr (GError) error = NULL;
  g_assert_false (c->edit (document, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (error->domain == CWB_SCENE_ERROR);
  if (c->code >= 0)
    g_assert_cmpint (error->code, ==, c->code);
  g_assert_true (g_str_has_prefix (error->message, c->message));

  g_autofree char *after = document_text (document);
  g_assert_cmpstr (after, ==, before);
  g_assert_true (cwb_document_scene (document) == scene);
  g_assert_cmpuint (cwb_document_revision (document), ==, revision);
  g_assert_false (cwb_document_can_undo (document));
  g_assert_true (cwb_document_can_redo (document));   /* a failed edit is no new edit */
  g_assert_false (cwb_document_is_dirty (document));
}

/* An edit to what is there already records no step (a property editor commits the value it
 * shows when it loses focus); re-choosing the contact model keeps its parameters. */
static void
test_no_change_no_step (void)
{
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, NULL);
  guint64 revision = cwb_document_revision (document);
  g_assert_true (cwb_document_set (document, "contact.stiffness", "1000", NULL));
  g_assert_true (cwb_document_set (document, "world.dt", "0.01", NULL));
  g_assert_true (cwb_document_rename_body (document, "box", "box", NULL));
  g_autofree char *note = NULL;
  g_assert_true (cwb_document_set_contact_model (document, "penalty", &note, NULL));
  g_assert_null (note);   /* nothing moved */
  g_assert_false (cwb_document_can_undo (document));
  g_assert_cmpuint (cwb_document_revision (document), ==, revision);
  const CwbScene *scene = cwb_document_scene (document);
  g_assert_cmpuint (scene->contact_params->len, ==, 1);

  /* Another model starts from its defaults: no parameters; the note says where penalty's
   * went (the window shows it). */
  g_assert_true (cwb_document_set_contact_model (document, "ldi", &note, NULL));
  g_assert_cmpuint (cwb_document_scene (document)->contact_params->len, ==, 0);
  g_assert_cmpstr (note, ==, "Set contact model to ldi: the parameters of penalty (stiffness) "
                             "are kept for it in other_models");
}

/* ---- body names ----------------------------------------------------------------------- */

static void
test_unique_names (void)
{
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, NULL);
  g_autoptr (GError) error = NULL;

  /* No name: from the shape, numbered from 2 past a name in use. */
  g_assert_cmpstr (cwb_document_add_body (document, cwb_scene_body_new (), &error), ==,
                   "box 2");
  g_assert_no_error (error);
  CwbBodyDesc *sphere = cwb_scene_body_new ();
  sphere->shape.kind = CWB_SHAPE_SPHERE;
  sphere->shape.radius = 0.25;
  sphere->shape.resolution = 12;
  g_assert_cmpstr (cwb_document_add_body (document, sphere, &error), ==, "sphere");
  g_assert_cmpstr (cwb_document_undo_label (document), ==, "Add sphere");
  CwbBodyDesc *empty_name = cwb_scene_body_copy (sphere);
  g_free (empty_name->name);
  empty_name->name = g_strdup ("");
  g_assert_cmpstr (cwb_document_add_body (document, empty_name, &error), ==, "sphere 2");
  /* A name in use: from the shape too. A free name is kept. */
  CwbBodyDesc *used = cwb_scene_body_new ();
  used->name = g_strdup ("ball");
  g_assert_cmpstr (cwb_document_add_body (document, used, &error), ==, "box 3");
  CwbBodyDesc *crate = cwb_scene_body_new ();
  crate->name = g_strdup ("crate");
  const char *name = cwb_document_add_body (document, crate, &error);
  g_assert_cmpstr (name, ==, "crate");
  /* The returned name is the scene's. */
  g_assert_true (name == cwb_scene_find_body (cwb_document_scene (document), "crate")->name);
  g_assert_no_error (error);

  /* Copies count on from the original's name, and sit beside it, offset. */
  static const double offset[3] = { 0.5, -1, 0.25 };
  g_assert_cmpstr (cwb_document_duplicate_body (document, "box 2", offset, &error), ==,
                   "box 4");
  g_assert_cmpstr (cwb_document_duplicate_body (document, "ball", offset, &error), ==,
                   "ball 2");
  g_assert_cmpstr (cwb_document_undo_label (document), ==, "Duplicate ball");
  g_assert_cmpstr (cwb_document_duplicate_body (document, "ball", NULL, &error), ==, "ball 3");
  g_assert_no_error (error);
  const CwbScene *scene = cwb_document_scene (document);
  const CwbBodyDesc *ball = scene->bodies->pdata[1];
  const CwbBodyDesc *ball3 = scene->bodies->pdata[2];
  const CwbBodyDesc *ball2 = scene->bodies->pdata[3];
  g_assert_cmpstr (ball->name, ==, "ball");
  g_assert_cmpstr (ball2->name, ==, "ball 2");
  g_assert_cmpstr (ball3->name, ==, "ball 3");
  for (int i = 0; i < 3; i++)
    {
      g_assert_cmpfloat (ball2->position[i], ==, ball->position[i] + offset[i]);
      g_assert_cmpfloat (ball3->position[i], ==, ball->position[i]);
    }
  g_assert_cmpfloat (ball2->shape.radius, ==, ball->shape.radius);

  /* A renamed body's shape messages follow its name, and --set reaches it by it. */
  g_assert_true (cwb_document_rename_body (document, "ball 2", "marble", &error));
  g_assert_no_error (error);
  const CwbBodyDesc *marble = cwb_scene_find_body (cwb_document_scene (document), "marble");
  g_assert_cmpstr (marble->shape.field, ==, "bodies.marble.shape");
  g_assert_true (cwb_document_set (document, "bodies.marble.friction", "0.1", &error));
  g_assert_no_error (error);
  /* Names with spaces work in --set keys. */
  g_assert_true (cwb_document_set (document, "bodies.box 4.friction", "0.1", &error));
  g_assert_no_error (error);
}

/* ---- unsaved state -------------------------------------------------------------------- */

static void
test_dirty_save (void)
{
  g_autofree char *path = NULL;
  g_autoptr (CwbDocument) document = open_scene ("box-pyramid.yaml", scene_text, &path);
  g_autofree char *display = cwb_document_display_name (document);
  g_assert_cmpstr (display, ==, "box-pyramid.yaml");
  g_assert_cmpstr (cwb_document_path (document), ==, path);
  g_assert_false (cwb_document_is_dirty (document));

  g_assert_true (edit_set_param (document, NULL));
  g_assert_true (cwb_document_is_dirty (document));
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_document_save (document, &error));
  g_assert_no_error (error);
  g_assert_false (cwb_document_is_dirty (document));
  g_autofree char *text = document_text (document);
  g_autofree char *on_disk = file_contents (path);
  g_assert_cmpstr (on_disk, ==, text);

  /* Clean means "as saved": undoing past the save makes the document dirty, redoing back to
   * it clean again. */
  g_assert_true (cwb_document_undo (document, NULL));
  g_assert_true (cwb_document_is_dirty (document));
  g_assert_true (cwb_document_redo (document, NULL));
  g_assert_false (cwb_document_is_dirty (document));
}

static void
test_dirty_save_as (void)
{
  g_autoptr (CwbDocument) document = cwb_document_new (cwb_scene_new (), NULL);
  g_assert_null (cwb_document_path (document));
  g_assert_null (cwb_document_scene (document)->path);
  g_autofree char *untitled = cwb_document_display_name (document);
  g_assert_cmpstr (untitled, ==, "Untitled");
  g_assert_false (cwb_document_is_dirty (document));

  g_assert_true (edit_add (document, NULL));
  g_assert_true (cwb_document_is_dirty (document));
  g_autoptr (GError) error = NULL;
  g_assert_false (cwb_document_save (document, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO);
  g_clear_error (&error);

  /* An untitled autosave, which the save as makes pointless. */
  g_assert_true (cwb_document_autosave (document, &error));
  g_assert_no_error (error);
  g_autofree char *untitled_autosave = cwb_document_autosave_path (NULL);
  g_assert_true (g_file_test (untitled_autosave, G_FILE_TEST_IS_REGULAR));

  /* A failed save as changes nothing. */
  g_autofree char *nowhere = test_file ("missing-folder/scene.yaml");
  g_assert_false (cwb_document_save_as (document, nowhere, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO);
  g_clear_error (&error);
  g_assert_null (cwb_document_path (document));
  g_assert_true (cwb_document_is_dirty (document));

  g_autofree char *path = test_file ("new.yaml");
  g_assert_true (cwb_document_save_as (document, path, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (cwb_document_path (document), ==, path);
  g_assert_cmpstr (cwb_document_scene (document)->path, ==, path);
  g_autofree char *display = cwb_document_display_name (document);
  g_assert_cmpstr (display, ==, "new.yaml");
  g_assert_false (cwb_document_is_dirty (document));
  g_assert_false (g_file_test (untitled_autosave, G_FILE_TEST_EXISTS));
  g_autofree char *text = document_text (document);
  g_autofree char *saved = file_scene_text (path);
  g_assert_cmpstr (saved, ==, text);

  /* Later saves go to the new path, and undo after them keeps it. */
  g_assert_true (cwb_document_set (document, "world.dt", "0.002", NULL));
  g_assert_true (cwb_document_save (document, &error));
  g_assert_no_error (error);
  g_autofree char *saved2 = file_scene_text (path);
  g_autofree char *text2 = document_text (document);
  g_assert_cmpstr (saved2, ==, text2);
  g_assert_true (cwb_document_undo (document, NULL));
  g_assert_cmpstr (cwb_document_scene (document)->path, ==, path);
}

/* Save As into another folder (issue 17): relative mesh paths are rewritten to name the same
 * files from the new folder, in the saved file, the document and its undo steps, so the
 * saved scene loads and undoing after the save still finds its meshes; absolute ones stay. */
static void
test_save_as_rebases_meshes (void)
{
  g_autofree char *source = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "tests", "data",
                                              "cube.obj", NULL);
  g_autofree char *cube = file_contents (source);
  g_autofree char *mesh = test_file ("from/meshes/cube.obj");
  g_autofree char *mesh_dir = g_path_get_dirname (mesh);
  g_assert_cmpint (g_mkdir_with_parents (mesh_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (mesh, cube, -1, NULL));
  g_autofree char *scene_text_rel = g_strdup_printf (
    "bodies:\n"
    "  - name: cube\n"
    "    shape: {type: mesh, file: meshes/cube.obj}\n"
    "  - name: fixed-path\n"
    "    shape: {type: mesh, file: %s}\n", source);
  g_autofree char *from = test_file ("from/scene.yaml");
  g_assert_true (g_file_set_contents (from, scene_text_rel, -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbDocument) document = cwb_document_open (from, &error);
  g_assert_no_error (error);
  g_assert_true (cwb_document_set (document, "world.dt", "0.002", &error));

  g_autofree char *to = test_file ("to/deeper/scene.yaml");
  g_autofree char *to_dir = g_path_get_dirname (to);
  g_assert_cmpint (g_mkdir_with_parents (to_dir, 0755), ==, 0);
  g_assert_true (cwb_document_save_as (document, to, &error));
  g_assert_no_error (error);

  /* The saved file loads, and its meshes resolve from its own folder. */
  g_autoptr (CwbScene) saved = cwb_scene_load (to, &error);
  g_assert_no_error (error);
  const CwbBodyDesc *moved = saved->bodies->pdata[0], *kept = saved->bodies->pdata[1];
  g_assert_cmpstr (moved->shape.mesh_file, ==, "../../from/meshes/cube.obj");
  g_assert_cmpstr (kept->shape.mesh_file, ==, source);
  g_autoptr (CwbMesh) loaded = cwb_mesh_from_shape (&moved->shape, to_dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  g_assert_false (cwb_document_is_dirty (document));

  /* Undoing the edit made before the save keeps the rebased path. */
  g_assert_true (cwb_document_undo (document, &error));
  const CwbBodyDesc *undone = cwb_document_scene (document)->bodies->pdata[0];
  g_assert_cmpstr (undone->shape.mesh_file, ==, "../../from/meshes/cube.obj");
}

/* ---- autosave and recovery ------------------------------------------------------------ */

static void
test_autosave_when_changed (void)
{
  g_autofree char *path = NULL;
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, &path);
  g_autofree char *autosave = cwb_document_autosave_path (path);
  g_autoptr (GError) error = NULL;

  /* Clean: nothing to write. */
  g_assert_true (cwb_document_autosave (document, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (autosave, G_FILE_TEST_EXISTS));
  g_assert_null (cwb_document_find_recovery (path));

  g_assert_true (edit_set_param (document, NULL));
  g_assert_true (cwb_document_autosave (document, &error));
  g_assert_no_error (error);
  g_autofree char *text = document_text (document);
  g_autofree char *written = file_contents (autosave);
  g_assert_cmpstr (written, ==, text);

  /* Nothing changed since: the file is not written again (a marker put in its place
   * stays). */
  g_assert_true (g_file_set_contents (autosave, "marker\n", -1, NULL));
  g_assert_true (cwb_document_autosave (document, &error));
  g_autofree char *marker = file_contents (autosave);
  g_assert_cmpstr (marker, ==, "marker\n");

  g_assert_true (edit_rename (document, NULL));
  g_assert_true (cwb_document_autosave (document, &error));
  g_autofree char *text2 = document_text (document);
  g_autofree char *written2 = file_contents (autosave);
  g_assert_cmpstr (written2, ==, text2);

  /* Undone back to the file: the autosave, which holds the undone changes, goes. */
  g_assert_true (cwb_document_undo (document, NULL));
  g_assert_true (cwb_document_undo (document, NULL));
  g_assert_true (cwb_document_autosave (document, &error));
  g_assert_false (g_file_test (autosave, G_FILE_TEST_EXISTS));

  /* Saving removes it too. */
  g_assert_true (cwb_document_redo (document, NULL));
  g_assert_true (cwb_document_autosave (document, &error));
  g_assert_true (g_file_test (autosave, G_FILE_TEST_IS_REGULAR));
  g_autofree char *offered = cwb_document_find_recovery (path);
  g_assert_cmpstr (offered, ==, autosave);
  g_assert_true (cwb_document_save (document, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (autosave, G_FILE_TEST_EXISTS));
  g_assert_null (cwb_document_find_recovery (path));

  /* And so does discarding it. */
  g_assert_true (edit_pose (document, NULL));
  g_assert_true (cwb_document_autosave (document, &error));
  g_assert_true (g_file_test (autosave, G_FILE_TEST_IS_REGULAR));
  cwb_document_discard_autosave (document);
  g_assert_false (g_file_test (autosave, G_FILE_TEST_EXISTS));
  /* ... after which the next autosave writes again. */
  g_assert_true (cwb_document_autosave (document, &error));
  g_assert_true (g_file_test (autosave, G_FILE_TEST_IS_REGULAR));
}

/* An autosave is offered only when it holds something the scene file does not: not when it
 * describes the file's scene in another layout, not when it cannot be read. */
static void
test_find_recovery (void)
{
  g_autofree char *path = write_scene ("scene.yaml", scene_text);
  g_autofree char *autosave = cwb_document_autosave_path (path);
  g_assert_null (cwb_document_find_recovery (path));
  g_autofree char *dir = g_path_get_dirname (autosave);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);

  /* The file's own scene, with comments and another layout. */
  g_assert_true (g_file_set_contents (autosave, scene_text, -1, NULL));
  g_assert_null (cwb_document_find_recovery (path));

  g_autoptr (GError) error = NULL;
  g_autoptr (CwbDocument) document = cwb_document_open (path, &error);
  g_assert_no_error (error);
  g_assert_true (edit_set_param (document, NULL));
  g_autofree char *changed = document_text (document);
  g_assert_true (g_file_set_contents (autosave, changed, -1, NULL));
  g_autofree char *offered = cwb_document_find_recovery (path);
  g_assert_cmpstr (offered, ==, autosave);

  /* A scene file that is gone holds none of the autosave's work. */
  g_autofree char *gone = write_scene ("gone.yaml", scene_text);
  g_autofree char *gone_autosave = cwb_document_autosave_path (gone);
  g_assert_true (g_file_set_contents (gone_autosave, scene_text, -1, NULL));
  g_assert_null (cwb_document_find_recovery (gone));
  g_assert_cmpint (g_remove (gone), ==, 0);
  g_autofree char *offered_gone = cwb_document_find_recovery (gone);
  g_assert_cmpstr (offered_gone, ==, gone_autosave);

  /* Not a scene: nothing to recover. */
  g_assert_true (g_file_set_contents (autosave, "world: [\n", -1, NULL));
  g_assert_null (cwb_document_find_recovery (path));

  /* Untitled: any readable autosave is work the user has nowhere else. */
  g_autofree char *untitled = cwb_document_autosave_path (NULL);
  g_assert_null (cwb_document_find_recovery (NULL));
  g_assert_true (g_file_set_contents (untitled, changed, -1, NULL));
  g_autofree char *offered_untitled = cwb_document_find_recovery (NULL);
  g_assert_cmpstr (offered_untitled, ==, untitled);
  /* The one autosave the tests share. */
  g_assert_cmpint (g_remove (untitled), ==, 0);
}

static void
test_autosave_path (void)
{
  g_autofree char *a = cwb_document_autosave_path ("/scenes/a.yaml");
  g_autofree char *a_again = cwb_document_autosave_path ("/scenes/a.yaml");
  g_autofree char *a_dotted = cwb_document_autosave_path ("/scenes/./x/../a.yaml");
  g_autofree char *b = cwb_document_autosave_path ("/scenes/b.yaml");
  g_autofree char *untitled = cwb_document_autosave_path (NULL);
  g_assert_cmpstr (a, ==, a_again);
  g_assert_cmpstr (a, ==, a_dotted);
  g_assert_cmpstr (a, !=, b);
  g_assert_cmpstr (a, !=, untitled);
  g_assert_cmpstr (b, !=, untitled);

  /* A relative path is the file it names from the current folder. */
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *absolute = g_build_filename (cwd, "rel.yaml", NULL);
  g_autofree char *rel = cwb_document_autosave_path ("rel.yaml");
  g_autofree char *abs = cwb_document_autosave_path (absolute);
  g_assert_cmpstr (rel, ==, abs);

  /* XDG_STATE_HOME/contact-workbench/autosave/SHA256.yaml */
  g_autofree char *dir = g_build_filename (g_get_user_state_dir (), "contact-workbench",
                                           "autosave", NULL);
  g_autofree char *a_dir = g_path_get_dirname (a);
  g_assert_cmpstr (a_dir, ==, dir);
  g_autofree char *base = g_path_get_basename (a);
  g_assert_cmpuint (strlen (base), ==, 64 + strlen (".yaml"));
  g_assert_true (g_str_has_suffix (base, ".yaml"));
  for (size_t i = 0; i < 64; i++)
    g_assert_true (g_ascii_isxdigit (base[i]));
  g_autofree char *expected_hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256,
                                                                  "/scenes/a.yaml", -1);
  g_assert_true (g_str_has_prefix (base, expected_hash));
}

/* The edit the killed process makes, and the parent repeats to know what to expect. */
static gboolean
kill_edit (CwbDocument *document, GError **error)
{
  return cwb_document_set (document, "contact.stiffness", "2500", error)
         && cwb_document_rename_body (document, "box", "lid", error);
}

/* A process edits a scene, autosaves and is killed; the next finds the autosave, whose scene
 * is the edited one, recovers it as one undoable step, and undo gives the file's scene. The
 * child runs this test again (g_test_trap_subprocess) with the parent's environment, and so
 * its state folder, which it prints for the parent to check. */
static void
test_recovery_after_kill (void)
{
  g_autofree char *path = test_file ("killed.yaml");
  if (g_test_subprocess ())
    {
      g_print ("state folder: %s\n", g_get_user_state_dir ());
      g_autoptr (GError) error = NULL;
      CwbDocument *document = cwb_document_open (path, &error);
      g_assert_no_error (error);
      g_assert_true (kill_edit (document, &error));
      g_assert_true (cwb_document_autosave (document, &error));
      g_assert_no_error (error);
      raise (SIGKILL);
      g_assert_not_reached ();
    }

  g_autofree char *written = write_scene ("killed.yaml", scene_text);
  g_assert_null (cwb_document_find_recovery (path));
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  /* Killed, not failed on an assertion; and its state folder was this one. */
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr_unmatched ("*ERROR*");
  g_autofree char *same_folder = g_strdup_printf ("*state folder: %s\n*",
                                                  g_get_user_state_dir ());
  g_test_trap_assert_stdout (same_folder);

  g_autofree char *autosave = cwb_document_find_recovery (path);
  g_assert_nonnull (autosave);
  g_autofree char *expected_autosave = cwb_document_autosave_path (path);
  g_assert_cmpstr (autosave, ==, expected_autosave);

  /* The same edit made here. */
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbDocument) reference = cwb_document_open (path, &error);
  g_assert_no_error (error);
  g_assert_true (kill_edit (reference, &error));
  g_autofree char *expected = document_text (reference);
  g_autoptr (CwbScene) recovered = cwb_scene_load (autosave, &error);
  g_assert_no_error (error);
  g_autofree char *recovered_text = cwb_scene_to_yaml (recovered);
  g_assert_cmpstr (recovered_text, ==, expected);

  g_autoptr (CwbDocument) document = cwb_document_open (path, &error);
  g_assert_no_error (error);
  g_autofree char *file_text = document_text (document);
  g_assert_true (cwb_document_recover (document, autosave, &error));
  g_assert_no_error (error);
  g_autofree char *text = document_text (document);
  g_assert_cmpstr (text, ==, expected);
  g_assert_cmpstr (cwb_document_scene (document)->path, ==, path);
  g_assert_true (cwb_document_is_dirty (document));
  g_assert_cmpstr (cwb_document_undo_label (document), ==, "Recover autosave");
  /* The recovered text is in the autosave already: no rewrite. */
  g_assert_true (g_file_set_contents (autosave, expected, -1, NULL));
  g_assert_true (cwb_document_autosave (document, &error));

  g_assert_true (cwb_document_undo (document, &error));
  g_assert_no_error (error);
  g_autofree char *undone = document_text (document);
  g_assert_cmpstr (undone, ==, file_text);
  g_assert_false (cwb_document_is_dirty (document));
  g_assert_true (cwb_document_redo (document, &error));
  g_autofree char *redone = document_text (document);
  g_assert_cmpstr (redone, ==, expected);

  cwb_document_discard_autosave (document);
  g_assert_false (g_file_test (autosave, G_FILE_TEST_EXISTS));
  g_assert_null (cwb_document_find_recovery (path));
}

/* Mesh files are relative to the scene file's folder: a scene recovered from the autosave
 * folder keeps the document's path, so its meshes load from beside the scene file. */
static void
test_recover_resolves_meshes (void)
{
  g_autofree char *source = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "tests", "data",
                                              "cube.obj", NULL);
  g_autofree char *cube = file_contents (source);
  g_autofree char *cube_copy = test_file ("cube.obj");
  g_assert_true (g_file_set_contents (cube_copy, cube, -1, NULL));
  g_autofree char *path = write_scene ("meshes.yaml",
                                       "bodies:\n"
                                       "  - name: cube\n"
                                       "    shape: {type: mesh, file: cube.obj}\n");
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (CwbDocument) crashed = cwb_document_open (path, &error);
    g_assert_no_error (error);
    static const double position[3] = { 0, 0, 1 };
    static const double orientation[4] = { 1, 0, 0, 0 };
    g_assert_true (cwb_document_set_body_pose (crashed, "cube", position, orientation,
                                               &error));
    g_assert_true (cwb_document_autosave (crashed, &error));
    g_assert_no_error (error);
    /* Freed without discarding its autosave, as a crash would leave it. */
  }

  g_autoptr (CwbDocument) document = cwb_document_open (path, &error);
  g_assert_no_error (error);
  g_autofree char *autosave = cwb_document_find_recovery (path);
  g_assert_nonnull (autosave);
  g_assert_true (cwb_document_recover (document, autosave, &error));
  g_assert_no_error (error);
  const CwbScene *scene = cwb_document_scene (document);
  g_assert_cmpstr (scene->path, ==, path);
  const CwbBodyDesc *body = cwb_scene_find_body (scene, "cube");
  g_assert_cmpfloat (body->position[2], ==, 1);

  /* What the world does (world.c): resolve against scene->path's folder. */
  g_autofree char *scene_dir = g_path_get_dirname (scene->path);
  g_autoptr (CwbMesh) mesh = cwb_mesh_from_shape (&body->shape, scene_dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_mesh_n_triangles (mesh), >, 0);
  /* Against the autosave's folder it would not load. */
  g_autofree char *autosave_dir = g_path_get_dirname (autosave);
  g_autoptr (CwbMesh) wrong = cwb_mesh_from_shape (&body->shape, autosave_dir, &error);
  g_assert_null (wrong);
  g_assert_nonnull (error);
}

/* Recovering an autosave that is not there, or not a scene, fails and changes nothing. */
static void
test_recover_fails (void)
{
  g_autoptr (CwbDocument) document = open_scene ("scene.yaml", scene_text, NULL);
  g_autofree char *before = document_text (document);
  g_autoptr (GError) error = NULL;
  g_autofree char *missing = test_file ("no-such-autosave.yaml");
  g_assert_false (cwb_document_recover (document, missing, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);
  g_autofree char *broken = write_scene ("broken-autosave.yaml", "world: {dt: -1}\n");
  g_assert_false (cwb_document_recover (document, broken, &error));
  g_assert_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_RANGE);
  g_autofree char *after = document_text (document);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (cwb_document_can_undo (document));
}

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
    }
  g_remove (path);
}

int
main (int argc, char **argv)
{
  /* XDG_STATE_HOME is set before anything reads it: GLib caches it at the first
   * g_get_user_state_dir. G_TEST_OPTION_ISOLATE_DIRS would give each test its own folders,
   * but GLib keeps every value it replaces there (g_set_user_dirs), which the sanitizer
   * build's leak check reports as the test's leaks. */
  g_autofree char *run_dir = NULL;
  if (g_getenv (RUN_DIR_ENV) == NULL)
    {
      run_dir = g_dir_make_tmp ("cwb-document-XXXXXX", NULL);
      g_assert_nonnull (run_dir);
      g_setenv (RUN_DIR_ENV, run_dir, TRUE);
    }
  g_autofree char *state = g_build_filename (g_getenv (RUN_DIR_ENV), "state", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);

  g_test_init (&argc, &argv, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS (edit_cases); i++)
    g_test_add_data_func (edit_cases[i].test_path, &edit_cases[i], test_edit_undo_redo);
  g_test_add_func ("/document/undo/chain-of-five", test_undo_chain);
  g_test_add_func ("/document/undo/new-edit-clears-redo", test_new_edit_clears_redo);
  g_test_add_func ("/document/undo/depth-bounded", test_undo_depth_bounded);
  for (size_t i = 0; i < G_N_ELEMENTS (fail_cases); i++)
    g_test_add_data_func (fail_cases[i].test_path, &fail_cases[i], test_failed_edit);
  g_test_add_func ("/document/edit/no-change-no-step", test_no_change_no_step);
  g_test_add_func ("/document/edit/unique-names", test_unique_names);
  g_test_add_func ("/document/dirty/save", test_dirty_save);
  g_test_add_func ("/document/dirty/save-as", test_dirty_save_as);
  g_test_add_func ("/document/autosave/when-changed", test_autosave_when_changed);
  g_test_add_func ("/document/save-as/rebases-meshes", test_save_as_rebases_meshes);
  g_test_add_func ("/document/autosave/find-recovery", test_find_recovery);
  g_test_add_func ("/document/autosave/path", test_autosave_path);
  g_test_add_func ("/document/autosave/recovery-after-kill", test_recovery_after_kill);
  g_test_add_func ("/document/autosave/recover-resolves-meshes", test_recover_resolves_meshes);
  g_test_add_func ("/document/autosave/recover-fails", test_recover_fails);
  int status = g_test_run ();
  if (run_dir != NULL)   /* the first process's; a subprocess leaves it to that one */
    remove_tree (run_dir);
  return status;
}

/* The document (document.h): a scene being edited, with undo and redo stacks of YAML text,
 * the text last saved, and an autosave file.
 *
 * The scene's YAML text is the document's measure of everything: an undo step is the text
 * before the edit, "dirty" is a text comparison with the last save, and an autosave is the
 * text on disk. Edits change the scene in place, so that the values they do not touch keep
 * their file locations for the world's messages; the text after an edit must then load again
 * (undo, redo, save and recovery all go through it), and an edit that fails puts the text
 * before it back. */
#include "document.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "scene_private.h"

/* Undo steps kept. Each holds the whole scene as text: a hand-written scene is a few KiB, so
 * 200 steps stay around a megabyte, and 200 reaches further back than anyone retraces edits
 * one by one. Past it the oldest step goes. */
#define UNDO_DEPTH 200

/* One undo (or redo) step: the scene's text to go back to, and what the step did. */
typedef struct Step {
  char *label;
  char *text;
} Step;

struct CwbDocument {
  CwbScene *scene;
  char *path;            /* NULL: never saved */
  char *text;            /* cwb_scene_to_yaml (scene), kept current by every change */
  char *saved_text;      /* the text last saved or loaded */
  char *autosaved_text;  /* the text this document last wrote to its autosave; NULL: none */
  GQueue undo, redo;     /* Step*, the most recent at the head */
  guint64 revision;
};

static void
step_free (Step *step)
{
  g_free (step->label);
  g_free (step->text);
  g_free (step);
}

static void
steps_clear (GQueue *steps)
{
  Step *step;
  while ((step = g_queue_pop_head (steps)) != NULL)
    step_free (step);
}

/* GQueue's getters take no const queue; its fields are public. */
static const Step *
steps_top (const GQueue *steps)
{
  return steps->head != NULL ? steps->head->data : NULL;
}

/* The document in messages and as the file name of the scene's source locations. */
static const char *
document_name (const CwbDocument *document)
{
  return document->path != NULL ? document->path : "untitled";
}

/* Where values an edit wrote came from: the document itself, without a line. */
static CwbSourceLoc
document_loc (const CwbDocument *document)
{
  return (CwbSourceLoc) { g_intern_string (document_name (document)), 0, 0 };
}

/* "FIELD: what", in CWB_SCENE_ERROR: an edit has no file position to name, only a field. */
static gboolean G_GNUC_PRINTF (4, 5)
edit_error (GError **error, CwbSceneError code, const char *field, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, CWB_SCENE_ERROR, code, "%s: %s", field, what);
  return FALSE;
}

/* Edits have no place in a file, but the scene's own checks start their messages with one
 * ("--set: ", "NAME: " or "NAME:LINE:COL: ", the line of a text no file holds): dropped, so
 * that every edit's message reads "FIELD: what" like edit_error's. */
static void
error_drop_location (GError **error, const char *file)
{
  if (error == NULL || *error == NULL || !g_str_has_prefix ((*error)->message, file))
    return;
  const char *p = (*error)->message + strlen (file);
  if (*p++ != ':')
    return;
  if (*p != ' ')
    {
      for (int part = 0; part < 2; part++)   /* LINE:COL: */
        {
          if (!g_ascii_isdigit (*p))
            return;
          while (g_ascii_isdigit (*p))
            p++;
          if (*p++ != ':')
            return;
        }
      if (*p != ' ')
        return;
    }
  char *message = g_strdup (p + 1);
  g_free ((*error)->message);
  (*error)->message = message;
}

static CwbScene *
document_parse (const CwbDocument *document, const char *text, GError **error)
{
  CwbScene *scene = cwb_scene_load_from_data (text, -1, document_name (document), error);
  if (scene != NULL)
    scene->path = g_strdup (document->path);
  return scene;
}

/* Records a change: the text before it becomes an undo step, `after` (taken) the current
 * text; a new change makes the redo steps meaningless. */
static void
document_push (CwbDocument *document, const char *label, char *after)
{
  Step *step = g_new (Step, 1);
  step->label = g_strdup (label);
  step->text = document->text;
  document->text = after;
  g_queue_push_head (&document->undo, step);
  while (g_queue_get_length (&document->undo) > UNDO_DEPTH)
    step_free (g_queue_pop_tail (&document->undo));
  steps_clear (&document->redo);
  document->revision++;
}

/* Puts the text before a failed edit back. The contents are swapped into the same CwbScene,
 * so that a failed edit leaves even the scene pointer a view holds valid. */
static void
document_restore (CwbDocument *document)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) before = document_parse (document, document->text, &error);
  if (before == NULL)
    {
      /* Only a scene handed to cwb_document_new that its own text cannot describe gets
       * here: every text an edit records was loaded once. */
      g_critical ("%s: cannot restore the scene after a failed edit: %s",
                  document_name (document), error->message);
      return;
    }
  CwbScene swap = *document->scene;
  *document->scene = *before;
  *before = swap;
}

/* Ends an edit made in place on the scene: `ok` FALSE (error set) or a text that does not
 * load puts the text before back; a change becomes one undo step; no change records none
 * (a property editor commits the value it shows when it loses focus). */
static gboolean
edit_finish (CwbDocument *document, gboolean ok, const char *label, GError **error)
{
  g_autofree char *after = cwb_scene_to_yaml (document->scene);
  if (ok)
    {
      g_autoptr (CwbScene) check = cwb_scene_load_from_data (after, -1,
                                                             document_name (document), error);
      ok = check != NULL;
      error_drop_location (error, document_name (document));
    }
  if (!ok)
    {
      if (strcmp (after, document->text) != 0)
        document_restore (document);
      return FALSE;
    }
  if (strcmp (after, document->text) != 0)
    document_push (document, label, g_steal_pointer (&after));
  return TRUE;
}

/* ---- life cycle and state ----------------------------------------------------------- */

CwbDocument *
cwb_document_new (CwbScene *scene, const char *path)
{
  g_return_val_if_fail (scene != NULL, NULL);
  CwbDocument *document = g_new0 (CwbDocument, 1);
  document->scene = scene;
  document->path = g_strdup (path);
  /* The world resolves mesh files against scene->path's folder: it follows the document. */
  g_free (scene->path);
  scene->path = g_strdup (path);
  document->text = cwb_scene_to_yaml (scene);
  document->saved_text = g_strdup (document->text);
  g_queue_init (&document->undo);
  g_queue_init (&document->redo);
  /* From 1, so that a view can hold 0 for "never shown". */
  document->revision = 1;
  return document;
}

CwbDocument *
cwb_document_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  CwbScene *scene = cwb_scene_load (path, error);
  return scene != NULL ? cwb_document_new (scene, path) : NULL;
}

void
cwb_document_free (CwbDocument *document)
{
  if (document == NULL)
    return;
  cwb_scene_free (document->scene);
  g_free (document->path);
  g_free (document->text);
  g_free (document->saved_text);
  g_free (document->autosaved_text);
  steps_clear (&document->undo);
  steps_clear (&document->redo);
  g_free (document);
}

const CwbScene *
cwb_document_scene (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, NULL);
  return document->scene;
}

const char *
cwb_document_path (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, NULL);
  return document->path;
}

char *
cwb_document_display_name (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, NULL);
  return document->path != NULL ? g_filename_display_basename (document->path)
                                : g_strdup ("Untitled");
}

gboolean
cwb_document_is_dirty (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, FALSE);
  return strcmp (document->text, document->saved_text) != 0;
}

guint64
cwb_document_revision (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, 0);
  return document->revision;
}

/* ---- bodies: lookup and names --------------------------------------------------------- */

static CwbBodyDesc *
body_lookup (const CwbScene *scene, const char *name, GError **error)
{
  CwbBodyDesc *body = cwb_scene_find_body (scene, name);
  if (body != NULL)
    return body;
  g_autofree char *field = g_strconcat ("bodies.", name, NULL);
  if (scene->bodies->len == 0)
    {
      edit_error (error, CWB_SCENE_ERROR_UNKNOWN_FIELD, field,
                  "no body named '%s', the scene has no bodies", name);
      return NULL;
    }
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint i = 0; i < scene->bodies->len; i++)
    g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                            ((const CwbBodyDesc *) scene->bodies->pdata[i])->name);
  edit_error (error, CWB_SCENE_ERROR_UNKNOWN_FIELD, field,
              "no body named '%s', expected one of: %s", name, names->str);
  return NULL;
}

/* A name the document gives a body, `field` naming where it goes. The scene format allows
 * any non-empty name, but the property editor reaches a body's fields by the --set key
 * bodies.NAME.FIELD, which a '.' in NAME would split in the wrong place. */
static gboolean
name_check (const char *name, const char *field, GError **error)
{
  if (name[0] == '\0')
    return edit_error (error, CWB_SCENE_ERROR_TYPE, field, "empty, expected a body name");
  if (strchr (name, '.') != NULL)
    return edit_error (error, CWB_SCENE_ERROR_RANGE, field,
                       "'%s' has a '.', expected a name without one (a '.' separates the "
                       "parts of the key bodies.NAME.FIELD)", name);
  return TRUE;
}

/* `base` when no body has it (and first <= 1), else the first free "base N" from N = first
 * (at least 2). */
static char *
unique_name (const CwbScene *scene, const char *base, guint first)
{
  if (first <= 1 && cwb_scene_find_body (scene, base) == NULL)
    return g_strdup (base);
  for (guint n = MAX (first, 2);; n++)
    {
      char *name = g_strdup_printf ("%s %u", base, n);
      if (cwb_scene_find_body (scene, name) == NULL)
        return name;
      g_free (name);
    }
}

/* "box 3" -> "box": copies of a copy count on from the original name rather than grow
 * "box 2 2". */
static char *
name_stem (const char *name)
{
  size_t end = strlen (name);
  while (end > 0 && g_ascii_isdigit (name[end - 1]))
    end--;
  if (end == strlen (name) || end < 2 || name[end - 1] != ' ')
    return g_strdup (name);
  return g_strndup (name, end - 1);
}

/* Takes `name`. Messages about the shape name the body by shape.field: it follows. */
static void
body_set_name (CwbBodyDesc *body, char *name)
{
  g_free (body->name);
  body->name = name;
  g_free (body->shape.field);
  body->shape.field = g_strconcat ("bodies.", name, ".shape", NULL);
}

/* ---- edits ---------------------------------------------------------------------------- */

gboolean
cwb_document_set (CwbDocument *document, const char *key, const char *value, GError **error)
{
  g_return_val_if_fail (document != NULL && key != NULL && value != NULL, FALSE);
  g_autofree char *label = g_strdup_printf ("Set %s", key);
  gboolean ok = cwb_scene_apply_set (document->scene, key, value, error);
  error_drop_location (error, "--set");
  return edit_finish (document, ok, label, error);
}

static gboolean
set_plugin (CwbDocument *document, gboolean contact, const char *name, char **note,
            GError **error)
{
  if (note != NULL)
    *note = NULL;
  CwbScene *scene = document->scene;
  char **target = contact ? &scene->contact_model : &scene->solver;
  if (name != NULL && name[0] == '\0')
    return edit_error (error, CWB_SCENE_ERROR_TYPE, contact ? "contact.model" : "solver.name",
                       "empty, expected a plugin name");
  /* Choosing the plugin already there keeps its parameters: a drop-down re-selecting its
   * own value is no edit. */
  if (g_strcmp0 (name, *target) == 0)
    return TRUE;
  g_autofree char *label = name == NULL ? g_strdup ("Remove contact model")
                           : g_strdup_printf (contact ? "Set contact model to %s"
                                                      : "Set solver to %s", name);
  CwbSourceLoc loc = document_loc (document);
  g_autofree char *moved = cwb_scene_choose_plugin (scene, contact, name, &loc);
  if (moved != NULL && note != NULL)
    *note = g_strdup_printf ("%s: %s", label, moved);
  return edit_finish (document, TRUE, label, error);
}

gboolean
cwb_document_set_contact_model (CwbDocument *document, const char *name, char **note,
                                GError **error)
{
  g_return_val_if_fail (document != NULL, FALSE);
  return set_plugin (document, TRUE, name, note, error);
}

gboolean
cwb_document_set_solver (CwbDocument *document, const char *name, char **note,
                         GError **error)
{
  g_return_val_if_fail (document != NULL && name != NULL, FALSE);
  return set_plugin (document, FALSE, name, note, error);
}

const char *
cwb_document_add_body (CwbDocument *document, CwbBodyDesc *body, GError **error)
{
  g_autoptr (CwbBodyDesc) owned = body;
  g_return_val_if_fail (document != NULL && body != NULL, NULL);
  CwbScene *scene = document->scene;
  g_autofree char *name_field = g_strdup_printf ("bodies[%u].name", scene->bodies->len);
  if (body->name != NULL && body->name[0] != '\0'
      && !name_check (body->name, name_field, error))
    return NULL;
  char *name = body->name != NULL && body->name[0] != '\0'
               && cwb_scene_find_body (scene, body->name) == NULL
               ? g_strdup (body->name)
               : unique_name (scene, cwb_scene_shape_type_name (body->shape.kind), 1);
  body_set_name (body, name);
  if (body->loc.file == NULL)
    body->loc = body->model_loc = body->mapping_loc = body->shape.loc = body->shape.file_loc
      = document_loc (document);
  g_autofree char *label = g_strdup_printf ("Add %s", name);
  g_ptr_array_add (scene->bodies, g_steal_pointer (&owned));
  if (!edit_finish (document, TRUE, label, error))
    return NULL;
  return name;
}

gboolean
cwb_document_remove_body (CwbDocument *document, const char *name, GError **error)
{
  g_return_val_if_fail (document != NULL && name != NULL, FALSE);
  CwbBodyDesc *body = body_lookup (document->scene, name, error);
  if (body == NULL)
    return FALSE;
  /* name may be the body's own string: the label is made before the body goes. */
  g_autofree char *label = g_strdup_printf ("Remove %s", name);
  g_ptr_array_remove (document->scene->bodies, body);
  return edit_finish (document, TRUE, label, error);
}

const char *
cwb_document_duplicate_body (CwbDocument *document, const char *name, const double offset[3],
                             GError **error)
{
  g_return_val_if_fail (document != NULL && name != NULL, NULL);
  CwbScene *scene = document->scene;
  CwbBodyDesc *body = body_lookup (scene, name, error);
  if (body == NULL)
    return NULL;
  if (offset != NULL && !(isfinite (offset[0]) && isfinite (offset[1]) && isfinite (offset[2])))
    {
      g_autofree char *field = g_strconcat ("bodies.", name, ".position", NULL);
      edit_error (error, CWB_SCENE_ERROR_RANGE, field,
                  "offset [%g, %g, %g] is not finite, expected a distance in m", offset[0],
                  offset[1], offset[2]);
      return NULL;
    }
  CwbBodyDesc *copy = cwb_scene_body_copy (body);
  /* The copy is named after the original ("lid" -> "lid 2"), whose name says what it is
   * better than its shape does. */
  g_autofree char *stem = name_stem (body->name);
  body_set_name (copy, unique_name (scene, stem, 2));
  for (int i = 0; i < 3 && offset != NULL; i++)
    copy->position[i] += offset[i];
  g_autofree char *label = g_strdup_printf ("Duplicate %s", body->name);
  /* Beside the original, where a list of bodies shows it. */
  guint index = 0;
  g_ptr_array_find (scene->bodies, body, &index);
  g_ptr_array_insert (scene->bodies, (gint) index + 1, copy);
  if (!edit_finish (document, TRUE, label, error))
    return NULL;
  return copy->name;
}

gboolean
cwb_document_rename_body (CwbDocument *document, const char *name, const char *new_name,
                          GError **error)
{
  g_return_val_if_fail (document != NULL && name != NULL && new_name != NULL, FALSE);
  CwbBodyDesc *body = body_lookup (document->scene, name, error);
  if (body == NULL)
    return FALSE;
  g_autofree char *field = g_strconcat ("bodies.", name, ".name", NULL);
  if (!name_check (new_name, field, error))
    return FALSE;
  if (strcmp (body->name, new_name) == 0)
    return TRUE;
  if (cwb_scene_find_body (document->scene, new_name) != NULL)
    return edit_error (error, CWB_SCENE_ERROR_DUPLICATE, field,
                       "a body named '%s' exists already, expected a unique name", new_name);
  /* name may be the body's own string, which the rename frees. */
  g_autofree char *label = g_strdup_printf ("Rename %s to %s", name, new_name);
  body_set_name (body, g_strdup (new_name));
  return edit_finish (document, TRUE, label, error);
}

/* A --set-style node of numbers, exact to the last bit (g_ascii_dtostr writes 17 digits). */
static CwbSceneNode *
vec_node (const double *v, size_t n, const CwbSourceLoc *loc)
{
  CwbSceneNode *node = cwb_scene_node_new_container (CWB_NODE_SEQUENCE, loc);
  for (size_t i = 0; i < n; i++)
    {
      char text[G_ASCII_DTOSTR_BUF_SIZE];
      g_ptr_array_add (node->items,
                       cwb_scene_node_new_scalar (g_ascii_dtostr (text, sizeof text, v[i]), loc));
    }
  return node;
}

gboolean
cwb_document_set_body_pose (CwbDocument *document, const char *name, const double position[3],
                            const double orientation[4], GError **error)
{
  g_return_val_if_fail (document != NULL && name != NULL, FALSE);
  g_return_val_if_fail (position != NULL && orientation != NULL, FALSE);
  CwbBodyDesc *body = body_lookup (document->scene, name, error);
  if (body == NULL)
    return FALSE;
  /* The scene file's checks (finite numbers, a quaternion that is not zero, normalised when
   * not unit), decoded into a scratch body so that a rejected orientation leaves the
   * position as it was. */
  CwbSourceLoc loc = document_loc (document);
  g_autoptr (CwbBodyDesc) scratch = cwb_scene_body_new ();
  g_autoptr (CwbSceneNode) p = vec_node (position, 3, &loc);
  g_autoptr (CwbSceneNode) q = vec_node (orientation, 4, &loc);
  g_autofree char *p_field = g_strconcat ("bodies.", name, ".position", NULL);
  g_autofree char *q_field = g_strconcat ("bodies.", name, ".orientation", NULL);
  if (!cwb_scene_decode_body_leaf (scratch, "position", p, p_field, error)
      || !cwb_scene_decode_body_leaf (scratch, "orientation", q, q_field, error))
    {
      error_drop_location (error, loc.file);
      return FALSE;
    }
  g_autofree char *label = g_strdup_printf ("Move %s", name);
  memcpy (body->position, scratch->position, sizeof body->position);
  memcpy (body->orientation, scratch->orientation, sizeof body->orientation);
  return edit_finish (document, TRUE, label, error);
}

/* ---- undo and redo -------------------------------------------------------------------- */

gboolean
cwb_document_can_undo (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, FALSE);
  return document->undo.length > 0;
}

gboolean
cwb_document_can_redo (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, FALSE);
  return document->redo.length > 0;
}

const char *
cwb_document_undo_label (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, NULL);
  const Step *step = steps_top (&document->undo);
  return step != NULL ? step->label : NULL;
}

const char *
cwb_document_redo_label (const CwbDocument *document)
{
  g_return_val_if_fail (document != NULL, NULL);
  const Step *step = steps_top (&document->redo);
  return step != NULL ? step->label : NULL;
}

/* Moves one step from `from` to `to`: the scene becomes the step's text, and the step keeps
 * its label and takes the current text, which is what going back the other way restores. */
static gboolean
document_travel (CwbDocument *document, GQueue *from, GQueue *to, const char *what,
                 GError **error)
{
  Step *step = g_queue_peek_head (from);
  if (step == NULL)
    return edit_error (error, CWB_SCENE_ERROR_MISSING, document_name (document),
                       "nothing to %s", what);
  CwbScene *scene = document_parse (document, step->text, error);
  if (scene == NULL)
    return FALSE;
  g_queue_pop_head (from);
  char *current = document->text;
  document->text = step->text;
  step->text = current;
  g_queue_push_head (to, step);
  cwb_scene_free (document->scene);
  document->scene = scene;
  document->revision++;
  return TRUE;
}

gboolean
cwb_document_undo (CwbDocument *document, GError **error)
{
  g_return_val_if_fail (document != NULL, FALSE);
  return document_travel (document, &document->undo, &document->redo, "undo", error);
}

gboolean
cwb_document_redo (CwbDocument *document, GError **error)
{
  g_return_val_if_fail (document != NULL, FALSE);
  return document_travel (document, &document->redo, &document->undo, "redo", error);
}

/* ---- files ---------------------------------------------------------------------------- */

gboolean
cwb_document_save (CwbDocument *document, GError **error)
{
  g_return_val_if_fail (document != NULL, FALSE);
  if (document->path == NULL)
    return edit_error (error, CWB_SCENE_ERROR_IO, "untitled",
                       "no file to save to, expected a path (save as)");
  if (!cwb_scene_save (document->scene, document->path, error))
    return FALSE;
  g_free (document->saved_text);
  document->saved_text = g_strdup (document->text);
  cwb_document_discard_autosave (document);
  return TRUE;
}

/* ---- save as: mesh paths for the new folder --------------------------------------------- */

/* The folder a scene at `path` reads its relative mesh paths from, absolute and without
 * "." or ".." (the working folder for an untitled scene). */
static char *
scene_folder (const char *path)
{
  g_autofree char *cwd = g_get_current_dir ();
  if (path == NULL)
    return g_canonicalize_filename (cwd, NULL);
  g_autofree char *absolute = g_canonicalize_filename (path, cwd);
  return g_path_get_dirname (absolute);
}

/* `target` (absolute, canonical) relative to the folder `from` (the same): the common
 * leading folders dropped, one ".." per folder of `from` left. */
static char *
relative_path (const char *from, const char *target)
{
  g_auto (GStrv) a = g_strsplit (from, G_DIR_SEPARATOR_S, -1);
  g_auto (GStrv) b = g_strsplit (target, G_DIR_SEPARATOR_S, -1);
  guint na = g_strv_length (a), nb = g_strv_length (b), common = 0;
  /* The last part of `target` is the file: it is never a common folder. */
  while (common < na && common + 1 < nb && strcmp (a[common], b[common]) == 0)
    common++;
  GString *out = g_string_new (NULL);
  for (guint k = common; k < na; k++)
    if (a[k][0] != '\0')
      g_string_append (out, ".." G_DIR_SEPARATOR_S);
  for (guint k = common; k < nb; k++)
    {
      g_string_append (out, b[k]);
      if (k + 1 < nb)
        g_string_append_c (out, G_DIR_SEPARATOR);
    }
  return g_string_free (out, FALSE);
}

/* Rewrites the scene's relative mesh paths, read from folder `from`, to name the same files
 * from folder `to`; absolute paths stay. */
static void
rebase_meshes (CwbScene *scene, const char *from, const char *to)
{
  for (guint i = 0; i < scene->bodies->len; i++)
    {
      CwbBodyDesc *body = scene->bodies->pdata[i];
      char **file = &body->shape.mesh_file;
      if (body->shape.kind != CWB_SHAPE_MESH || *file == NULL || g_path_is_absolute (*file))
        continue;
      g_autofree char *absolute = g_canonicalize_filename (*file, from);
      char *rebased = relative_path (to, absolute);
      g_free (*file);
      *file = rebased;
    }
}

/* An undo or redo step's text with its mesh paths rebased; the text itself when it does not
 * parse (it always does: every step's text was made from a scene). */
static void
rebase_step_texts (GQueue *steps, const char *from, const char *to)
{
  for (GList *l = steps->head; l != NULL; l = l->next)
    {
      Step *step = l->data;
      g_autoptr (CwbScene) scene = cwb_scene_load_from_data (step->text, -1, "step", NULL);
      if (scene == NULL)
        continue;
      rebase_meshes (scene, from, to);
      g_free (step->text);
      step->text = cwb_scene_to_yaml (scene);
    }
}

gboolean
cwb_document_save_as (CwbDocument *document, const char *path, GError **error)
{
  g_return_val_if_fail (document != NULL && path != NULL, FALSE);
  /* Relative mesh paths name files from the scene's folder: saved into another folder, they
   * are rewritten to name the same files from there (in the undo steps too, so that undoing
   * after the save finds them). */
  g_autofree char *from = scene_folder (document->path);
  g_autofree char *to = scene_folder (path);
  gboolean moved = strcmp (from, to) != 0;
  g_autoptr (CwbScene) rebased = cwb_scene_copy (document->scene);
  if (moved)
    rebase_meshes (rebased, from, to);
  if (!cwb_scene_save (rebased, path, error))
    return FALSE;
  /* The changes are in the new file now: the autosave under the old path (or the untitled
   * one) holds nothing left to recover. */
  cwb_document_discard_autosave (document);
  g_free (document->path);
  document->path = g_strdup (path);
  if (moved)
    {
      /* In place: the window keeps pointers into the scene. The files named are the same,
       * so this is no edit (no new revision, nothing to rebuild). */
      rebase_meshes (document->scene, from, to);
      g_free (document->text);
      document->text = cwb_scene_to_yaml (document->scene);
      rebase_step_texts (&document->undo, from, to);
      rebase_step_texts (&document->redo, from, to);
    }
  g_free (document->scene->path);
  document->scene->path = g_strdup (path);
  g_free (document->saved_text);
  document->saved_text = g_strdup (document->text);
  /* One an earlier session left for the new path is older than what was just written. */
  cwb_document_discard_autosave (document);
  return TRUE;
}

/* ---- autosave and recovery ------------------------------------------------------------ */

char *
cwb_document_autosave_path (const char *path)
{
  /* A canonical path is absolute, so it never reads "untitled"; relative spellings and
   * "a/../b" of one file give one autosave. */
  g_autofree char *key = path != NULL ? g_canonicalize_filename (path, NULL)
                                      : g_strdup ("untitled");
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  g_autofree char *name = g_strconcat (hash, ".yaml", NULL);
  /* XDG_STATE_HOME: state worth keeping across sessions but no document a user manages. */
  return g_build_filename (g_get_user_state_dir (), "contact-workbench", "autosave", name,
                           NULL);
}

gboolean
cwb_document_autosave (CwbDocument *document, GError **error)
{
  g_return_val_if_fail (document != NULL, FALSE);
  if (!cwb_document_is_dirty (document))
    {
      /* Undone back to the saved text: the autosave written before would offer the undone
       * changes for recovery. */
      if (document->autosaved_text != NULL)
        cwb_document_discard_autosave (document);
      return TRUE;
    }
  if (g_strcmp0 (document->autosaved_text, document->text) == 0)
    return TRUE;
  g_autofree char *file = cwb_document_autosave_path (document->path);
  g_autofree char *dir = g_path_get_dirname (file);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO,
                   "%s: cannot create the autosave folder: %s", dir, g_strerror (saved_errno));
      return FALSE;
    }
  g_autoptr (GError) io_error = NULL;
  /* CONSISTENT: a temporary file renamed over the old one, so that a crash during the write
   * leaves the previous autosave whole. 0600: a scene may be private work. */
  if (!g_file_set_contents_full (file, document->text, -1, G_FILE_SET_CONTENTS_CONSISTENT,
                                 0600, &io_error))
    {
      g_set_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO, "%s: cannot write the autosave: %s",
                   file, io_error->message);
      return FALSE;
    }
  g_free (document->autosaved_text);
  document->autosaved_text = g_strdup (document->text);
  return TRUE;
}

char *
cwb_document_find_recovery (const char *path)
{
  g_autofree char *file = cwb_document_autosave_path (path);
  g_autofree char *data = NULL;
  gsize length = 0;
  if (!g_file_get_contents (file, &data, &length, NULL))
    return NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbScene) autosaved = cwb_scene_load_from_data (data, (gssize) length, file,
                                                             &error);
  if (autosaved == NULL)
    {
      /* Nothing a recovery could restore; left in place for someone to look at. */
      g_debug ("%s: autosave not offered for recovery: %s", file, error->message);
      return NULL;
    }
  if (path == NULL)
    return g_steal_pointer (&file);
  g_autoptr (CwbScene) saved = cwb_scene_load (path, NULL);
  /* A scene file that is gone or broken holds none of the autosave's work. */
  if (saved == NULL)
    return g_steal_pointer (&file);
  /* Compared as the texts the document writes, so that comments and layout in the scene
   * file do not count as changes. */
  g_autofree char *autosaved_text = cwb_scene_to_yaml (autosaved);
  g_autofree char *saved_text = cwb_scene_to_yaml (saved);
  return strcmp (autosaved_text, saved_text) != 0 ? g_steal_pointer (&file) : NULL;
}

gboolean
cwb_document_recover (CwbDocument *document, const char *autosave_path, GError **error)
{
  g_return_val_if_fail (document != NULL && autosave_path != NULL, FALSE);
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr (GError) io_error = NULL;
  if (!g_file_get_contents (autosave_path, &data, &length, &io_error))
    {
      g_set_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO, "%s: cannot read: %s",
                   autosave_path, io_error->message);
      return FALSE;
    }
  CwbScene *scene = cwb_scene_load_from_data (data, (gssize) length, autosave_path, error);
  if (scene == NULL)
    return FALSE;
  /* Mesh files are relative to the scene file's folder, not to the autosave's: the
   * recovered scene belongs to the document's path. */
  scene->path = g_strdup (document->path);
  char *text = cwb_scene_to_yaml (scene);
  if (strcmp (text, document->text) == 0)
    {
      g_free (text);
      cwb_scene_free (scene);
      return TRUE;
    }
  document_push (document, "Recover autosave", text);
  cwb_scene_free (document->scene);
  document->scene = scene;
  /* Recovering this document's own autosave: the file holds the text already. */
  g_autofree char *own = cwb_document_autosave_path (document->path);
  if (strcmp (own, autosave_path) == 0)
    {
      g_free (document->autosaved_text);
      document->autosaved_text = g_strdup (text);
    }
  return TRUE;
}

void
cwb_document_discard_autosave (CwbDocument *document)
{
  g_return_if_fail (document != NULL);
  g_autofree char *file = cwb_document_autosave_path (document->path);
  if (g_remove (file) != 0)
    {
      int saved_errno = errno;
      if (saved_errno != ENOENT)
        g_warning ("%s: cannot remove the autosave: %s", file, g_strerror (saved_errno));
    }
  g_clear_pointer (&document->autosaved_text, g_free);
}

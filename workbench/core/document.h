/* The document: the scene a user edits in the GUI, with its file, its unsaved state, undo and
 * redo, and autosave with recovery. It holds a description (CwbScene), never a running world:
 * the GUI rebuilds or updates the world from it after each edit.
 *
 * Every edit is one undoable step. The undo stack keeps the scene as YAML text before each
 * edit, so undo and redo restore the scene exactly (cwb_scene_to_yaml of the result equals
 * the text before the edit), whatever the edit was. Unsaved state is a comparison with the
 * text last saved or loaded: undoing back to it makes the document clean again. */
#pragma once

#include "scene.h"

G_BEGIN_DECLS

typedef struct CwbDocument CwbDocument;

/* A document over a loaded scene (taken), clean. `path` may be NULL (an unsaved new scene);
 * scene->path becomes `path`, and follows the document's path from then on (the world
 * resolves mesh files against its folder). */
CwbDocument *cwb_document_new (CwbScene *scene, const char *path);
CwbDocument *cwb_document_open (const char *path, GError **error);
void cwb_document_free (CwbDocument *document);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbDocument, cwb_document_free)

/* The scene; valid until the next edit, undo, redo or reload. Read-only: change it only
 * through the edit functions below. */
const CwbScene *cwb_document_scene (const CwbDocument *document);
const char *cwb_document_path (const CwbDocument *document);      /* NULL: never saved */
/* "box-pyramid.yaml", or "Untitled" */
char *cwb_document_display_name (const CwbDocument *document);
gboolean cwb_document_is_dirty (const CwbDocument *document);
/* Increases with every change of the scene (edit, undo, redo), for views to refresh. */
guint64 cwb_document_revision (const CwbDocument *document);

/* ---- edits: each is one undo step; on error nothing changes --------------------------- */
/* An edit that leaves the scene as it was records no step. Errors are CWB_SCENE_ERROR and
 * read "FIELD: what is wrong" ("bodies.box: no body named 'box', expected one of: ..."). */

/* A value by the --set path (world.dt, contact.PARAM, solver.PARAM, bodies.NAME.FIELD, ...):
 * the one way the property editor changes the scene. */
gboolean cwb_document_set (CwbDocument *document, const char *key, const char *value,
                           GError **error);
/* Swaps the contact model (NULL: none) or the solver. The parameters of the plugin going out
 * are kept in the scene for when it comes back (other_models), those kept for the one coming
 * in come back, else it starts at its defaults; where any moved, *note (if not NULL) gets a
 * sentence that says which (free it), else NULL. */
gboolean cwb_document_set_contact_model (CwbDocument *document, const char *name,
                                         char **note, GError **error);
gboolean cwb_document_set_solver (CwbDocument *document, const char *name, char **note,
                                  GError **error);
/* Adds a body (taken); a body without a name, or with one already used, gets a unique one
 * from its shape ("box", "box 2", ...). A name with a '.' is refused: the key
 * bodies.NAME.FIELD could not reach the body. Returns the name it got, owned by the scene. */
const char *cwb_document_add_body (CwbDocument *document, CwbBodyDesc *body, GError **error);
gboolean cwb_document_remove_body (CwbDocument *document, const char *name, GError **error);
/* Copies a body, beside it in the list, under a new unique name after its own ("lid" ->
 * "lid 2", "box 2" -> "box 3"), offset by `offset` (m; NULL: none); returns the new name. */
const char *cwb_document_duplicate_body (CwbDocument *document, const char *name,
                                         const double offset[3], GError **error);
gboolean cwb_document_rename_body (CwbDocument *document, const char *name,
                                   const char *new_name, GError **error);
/* Sets a body's initial pose (position, unit quaternion w, x, y, z). */
gboolean cwb_document_set_body_pose (CwbDocument *document, const char *name,
                                     const double position[3], const double orientation[4],
                                     GError **error);

/* ---- undo and redo ------------------------------------------------------------------- */

gboolean cwb_document_can_undo (const CwbDocument *document);
gboolean cwb_document_can_redo (const CwbDocument *document);
/* What the next undo or redo would revert ("Rename box", "Set contact.stiffness"); NULL
 * when there is none. */
const char *cwb_document_undo_label (const CwbDocument *document);
const char *cwb_document_redo_label (const CwbDocument *document);
gboolean cwb_document_undo (CwbDocument *document, GError **error);
gboolean cwb_document_redo (CwbDocument *document, GError **error);

/* ---- files --------------------------------------------------------------------------- */

/* Saves to the document's path (atomically, through cwb_scene_save); the document becomes
 * clean and its autosave is removed. */
gboolean cwb_document_save (CwbDocument *document, GError **error);
/* Saves to a new path, which becomes the document's path. */
gboolean cwb_document_save_as (CwbDocument *document, const char *path, GError **error);

/* ---- autosave and recovery ----------------------------------------------------------- */

/* Where the autosave of a scene file goes: one file per scene path under the user's state
 * folder (XDG_STATE_HOME/contact-workbench/autosave/), named from a hash of the absolute path
 * so two scenes never share one; `path` NULL stands for unsaved new scenes. */
char *cwb_document_autosave_path (const char *path);
/* Writes the scene to its autosave file (atomically) when it has changes not yet saved or
 * autosaved; does nothing otherwise, except that an autosave this document wrote goes when
 * the document is back to its saved text (undone), so that no undone work is offered. */
gboolean cwb_document_autosave (CwbDocument *document, GError **error);
/* The autosave left for a scene path by a session that did not end cleanly, when it holds
 * changes the file does not (NULL otherwise). */
char *cwb_document_find_recovery (const char *path);
/* Replaces the document's scene by the autosave's, as one undoable edit ("Recover
 * autosave"); the document stays dirty until saved. */
gboolean cwb_document_recover (CwbDocument *document, const char *autosave_path,
                               GError **error);
/* Removes the document's autosave file (after a save, or a clean exit with changes
 * discarded). */
void cwb_document_discard_autosave (CwbDocument *document);

G_END_DECLS

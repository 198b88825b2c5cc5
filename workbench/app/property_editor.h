/* Property editors generated from parameter schemas (CwbParamSpec): a switch for BOOL, a spin
 * button bounded by the schema's range for INT, an entry for DOUBLE (three for VEC3) that
 * holds any magnitude exactly (a stiffness of 1e5 and a tolerance of 1e-9 alike), a drop-down
 * for ENUM and an entry for STRING, each labelled with its name and unit and carrying the
 * schema's help, range and default as its tooltip. Typed text is read by the scene's own
 * parser; refused text is marked (style class "error", the reason as tooltip) and emits
 * nothing. The editor never changes the scene itself: a committed value is emitted as
 * ("KEY", "VALUE") in --set form (KEY is the section's prefix and the parameter's name, VALUE
 * as a scene file writes it), and the window applies it through the document, which
 * validates it and makes it undoable. Fixed scene fields (world.dt, a body's
 * friction ...) are shown the same way, through schemas the window declares for them. */
#pragma once

#include <gtk/gtk.h>

#include <cwb/params.h>

#include "scene.h"

G_BEGIN_DECLS

#define CWB_TYPE_PROPERTY_EDITOR (cwb_property_editor_get_type ())
G_DECLARE_FINAL_TYPE (CwbPropertyEditor, cwb_property_editor, CWB, PROPERTY_EDITOR, GtkWidget)

/* Signal "edited" (const char *key, const char *value): the user committed a value (Enter or
 * focus leaving an entry, a toggle, a drop-down choice, a spin button's change). */
GtkWidget *cwb_property_editor_new (void);

void cwb_property_editor_clear (CwbPropertyEditor *editor);
/* Appends a section titled `title` whose keys are "KEY_PREFIX.NAME" ("contact", "solver",
 * "world", "bodies.box"). `values` holds the scene's current values (CwbSceneParam*, may be
 * NULL); a parameter absent from it shows its schema default. */
void cwb_property_editor_add_section (CwbPropertyEditor *editor, const char *title,
                                      const char *key_prefix, const CwbParamSpec *specs,
                                      size_t n_specs, GPtrArray *values);
/* Shows beside KEY's field, dimmed, the value an automatic parameter resolved to
 * ("auto: 0.01 m", in the field's unit); FALSE when no field edits KEY. The panel's rebuild
 * clears it until the next call. */
gboolean cwb_property_editor_show_derived (CwbPropertyEditor *editor, const char *key,
                                           double value);
/* The text shown beside KEY's field ("" when none), or NULL when no field edits KEY. */
const char *cwb_property_editor_hint (CwbPropertyEditor *editor, const char *key);

/* Gives the keyboard focus back to the field that had it when the panel was last cleared:
 * the same key, or the same parameter at the same place (a body renamed), with an entry's
 * cursor at the end and nothing selected, so that an edit that rebuilds the panel leaves
 * the user typing where they were. TRUE when there was nothing to give back or it was
 * given; FALSE when that field is gone (the caller then puts the focus somewhere harmless
 * rather than leave it where GTK moved it). */
gboolean cwb_property_editor_restore_focus (CwbPropertyEditor *editor);

/* The widget editing KEY (for tests), or NULL. */
GtkWidget *cwb_property_editor_find (CwbPropertyEditor *editor, const char *key);

G_END_DECLS

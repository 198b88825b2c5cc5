/* The main window: the viewport with its overlay toggles, the scene's bodies, the property
 * editors, the contact inspector, the tables of bodies and contacts and the plots around it,
 * the transport (play, pause, step, reset, real time, history scrubber) and the contact-model
 * and solver choosers in the header bar. It owns the document (what is edited, undoable,
 * saved) and the simulation (the world stepped by a worker thread) and keeps them in step:
 * every edit changes the document first, then the world, live.
 *
 * Everything a user can do is a window action ("win.NAME"), so that menus, shortcuts, buttons
 * and tests go through the same code:
 *   play (stateful bool), step, reset, realtime (stateful bool),
 *   open, save, save-as, undo, redo, open-recent (s),
 *   contact-model (s, stateful: the plugin's name, "" for none), solver (s, stateful),
 *   overlay-NAME (stateful bool: grid, contacts, cones, depth, gradients, spans, cells,
 *   voxels, wireframe, aabbs), frame-selected, reset-camera,
 *   add-body (s: box, sphere, cylinder, capsule, torus), add-mesh, delete-body,
 *   duplicate-body, export-csv, history-back, history-forward, cancel-job (stops the long work
 *   the progress bar shows; only enabled then), compare (the Compare dialog), compare-end,
 *   record (stateful bool: Record, recorder.h).
 *
 * Edits, swaps and opening a scene build worlds on a worker thread (window_jobs.c): quick ones
 * end before the call returns, as if done in place; long ones show a progress bar with Cancel
 * above the view and end later, the other editing actions disabled meanwhile. */
#pragma once

#include "application.h"
#include "document.h"
#include "plot_panel.h"
#include "property_editor.h"
#include "simulation.h"
#include "viewport.h"

G_BEGIN_DECLS

#define CWB_APP_TYPE_WINDOW (cwb_app_window_get_type ())
G_DECLARE_FINAL_TYPE (CwbAppWindow, cwb_app_window, CWB_APP, WINDOW, GtkApplicationWindow)

/* Opens a window on a scene file (NULL: an empty new scene), its world built before this
 * returns, however long that takes; on failure shows nothing and returns NULL with the error.
 * `sets` are --set overrides (may be NULL). */
CwbAppWindow *cwb_app_window_new (CwbAppApplication *app, const char *path, char **sets,
                                  GError **error);
/* Opens a scene file in a new window, its world built on a worker thread. A quick build opens
 * the window before this returns. A long one shows its progress, with Cancel, in `from` (with
 * no window yet, in a new window on an empty scene), which gives way to the new window once
 * the world is built; cancelled, `from` stays as it was and says so. FALSE with the error when
 * the scene cannot be read, or its quick build failed; a long build's failure shows in
 * `from`. */
gboolean cwb_app_window_open (CwbAppApplication *app, CwbAppWindow *from, const char *path,
                              char **sets, GError **error);

CwbDocument *cwb_app_window_document (CwbAppWindow *window);
CwbSimulation *cwb_app_window_simulation (CwbAppWindow *window);
CwbAppViewport *cwb_app_window_viewport (CwbAppWindow *window);
CwbPropertyEditor *cwb_app_window_properties (CwbAppWindow *window);
CwbPlotPanel *cwb_app_window_plots (CwbAppWindow *window);
/* Applies a property edit in --set form, as the property editor does: FALSE with the reason
 * when the document or the world refuses it (nothing changed then). */
gboolean cwb_app_window_apply (CwbAppWindow *window, const char *key, const char *value,
                               GError **error);
/* The selected body's name (NULL: none) and selecting one. */
const char *cwb_app_window_selected_body (CwbAppWindow *window);
void cwb_app_window_select_body (CwbAppWindow *window, const char *name);
/* The picked contact: its index in the shown snapshot's frames, -1 for none. */
gssize cwb_app_window_picked_contact (CwbAppWindow *window);
/* The message of the last refusal shown to the user (a plugin refusing the scene, a bad
 * value), or NULL. */
const char *cwb_app_window_last_error (CwbAppWindow *window);
/* Shows a message in the error bar above the view (and on the log), and whether it shows. */
void cwb_app_window_show_error (CwbAppWindow *window, const char *message);
gboolean cwb_app_window_error_shown (CwbAppWindow *window);
/* What the progress bar shows while long work runs ("body 'beam': compliance: 40 %", or what
 * the work is before its first report) and its fraction; NULL when no work is shown. */
const char *cwb_app_window_progress (CwbAppWindow *window, double *fraction);
/* The status line under the view (run state, contacts, kinetic energy, plugins). */
const char *cwb_app_window_status (CwbAppWindow *window);
/* The last notice shown in that bar (a cancel's), or NULL. */
const char *cwb_app_window_notice (CwbAppWindow *window);
/* A/B compare: side B, the document's scene with `changes` ("KEY=VALUE" as --set takes
 * them, NULL-terminated), from A's newest state, in a second view beside A's, stepped in
 * lockstep with it (window_compare.c); a compare already shown ends first. FALSE with the
 * reason when a change is refused or B does not build (nothing changes then). */
gboolean cwb_app_window_compare (CwbAppWindow *window, char *const *changes, GError **error);
void cwb_app_window_end_compare (CwbAppWindow *window);
/* Side B's simulation and view, NULL without a compare. */
CwbSimulation *cwb_app_window_compare_simulation (CwbAppWindow *window);
CwbAppViewport *cwb_app_window_compare_viewport (CwbAppWindow *window);
/* The difference line under the two views ("B against A at step 40 ..."), NULL without a
 * compare. */
const char *cwb_app_window_compare_readout (CwbAppWindow *window);
/* Closes without asking (tests; the autosave is kept when there are unsaved changes). */
void cwb_app_window_close_now (CwbAppWindow *window);

G_END_DECLS

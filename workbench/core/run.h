/* Headless runs: step a world N times, record the report and the residuals, show progress on
 * a terminal. */
#pragma once

#include <stdio.h>

#include "report.h"
#include "world.h"

G_BEGIN_DECLS

/* A change of the scene during the run (--at STEP:KEY=VALUE): applied after `step` steps. */
typedef struct CwbRunChange {
  guint64 step;
  const char *set;            /* "KEY=VALUE", as --set takes it */
} CwbRunChange;

/* Builds a world from the changed scene, for a change that is not the contact model's or the
 * solver's (cwb_run_headless carries the bodies' states into it). */
typedef CwbWorld *(*CwbRunRebuild) (const CwbScene *scene, gpointer user_data, GError **error);

/* The second side of an A/B compare (--compare, compare.h): a world B built from `scene`,
 * A's scene with `changes` applied, stepped in lockstep with A. The run's --at changes go to
 * both sides. */
typedef struct CwbRunCompare {
  CwbWorld **world;           /* may be replaced by a rebuild, as A's */
  CwbScene *scene;
  char *const *changes;       /* "KEY=VALUE", NULL-terminated: what made B */
  const char *report_path;    /* NULL: no report for B */
  const char *residuals_path; /* NULL: no residual CSV for B */
} CwbRunCompare;

typedef struct CwbRunOptions {
  guint64 steps;
  const char *scene_path;     /* for the report */
  const char *report_path;    /* NULL: no report */
  const char *residuals_path; /* NULL: no residual CSV (residual_log.h) */
  gboolean progress;          /* print progress on stderr (only if it is a terminal) */
  /* Changes during the run, in any order (applied by step, then in their order); each goes
   * through `scene`, the world's scene, which must be given with them. contact.* and
   * solver.* changes swap the plugin (the parameters kept for it come back: scene.h) or set
   * its parameters in the running world, as the GUI does; any other rebuilds the world
   * through `rebuild` and carries the bodies' states by name (time and step count too). */
  const CwbRunChange *changes;
  size_t n_changes;
  CwbScene *scene;
  CwbRunRebuild rebuild;
  gpointer rebuild_data;
  /* NULL: a lone run. Else both sides step in lockstep; each report gets the difference
   * after every step both made; a side that fails stops with its last good state while the
   * other runs on; a summary of the two goes to `summary` (NULL: none). */
  const CwbRunCompare *compare;
  FILE *summary;
  /* Called with each side's world (0: A, 1: B) before the first step and after every step
   * it made, e.g. to record a clip (--record); NULL: none. */
  void (*observe) (guint side, CwbWorld *world, gpointer data);
  gpointer observe_data;
} CwbRunOptions;

/* Checks the changes before a run: each "KEY=VALUE" is applied in turn to a copy of `scene`
 * (so a change that only makes sense after an earlier one is checked after it), and none
 * comes after the run's last step. FALSE with a message naming the change. */
gboolean cwb_run_check_changes (const CwbScene *scene, const CwbRunChange *changes,
                                size_t n_changes, guint64 steps, GError **error);

/* Runs the steps, making the changes on the way; *world may be replaced by a rebuild. On a
 * failed step or a refused change it stops, keeps the last good state, still writes the
 * report (with "failure" set) and the residuals of the steps done, and returns FALSE with
 * the error (with a compare: the first side's to fail, its message starting "A: " or
 * "B: "). */
gboolean cwb_run_headless (CwbWorld **world, const CwbRunOptions *options, GError **error);

G_END_DECLS

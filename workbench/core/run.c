/* Headless runs. Progress goes to stderr only when it is a terminal (progress_line.h), so logs
 * and pipes stay clean. */
#include <string.h>

#include "clock.h"
#include "progress_line.h"
#include "residual_log.h"
#include "run.h"

static void
draw_progress (CwbProgressLine *line, const CwbWorld *world, guint64 done, guint64 total,
               gint64 elapsed_ns)
{
  double seconds = elapsed_ns * 1e-9;
  double rate = seconds > 0 ? done / seconds : 0;
  double left = rate > 0 ? (total - done) / rate : 0;
  cwb_progress_line_draw (line, "step %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "  t = %.3f s  "
                          "%.0f steps/s  %.1f s left", done, total, cwb_world_time (world),
                          rate, left);
}

/* ---- changes during the run ------------------------------------------------------------ */

static int
compare_changes (gconstpointer a, gconstpointer b)
{
  const CwbRunChange *x = *(const CwbRunChange *const *) a, *y = *(const CwbRunChange *const *) b;
  if (x->step != y->step)
    return x->step < y->step ? -1 : 1;
  return x < y ? -1 : x > y;   /* the given order among changes at one step */
}

/* The changes in the order they apply (pointers into `changes`). */
static GPtrArray *
changes_in_order (const CwbRunChange *changes, size_t n_changes)
{
  GPtrArray *order = g_ptr_array_sized_new ((guint) n_changes);
  for (size_t c = 0; c < n_changes; c++)
    g_ptr_array_add (order, (gpointer) &changes[c]);
  g_ptr_array_sort (order, compare_changes);
  return order;
}

static gboolean
apply_change (CwbScene *scene, const CwbRunChange *change, gboolean noted, GError **error)
{
  g_autofree char *note = NULL;
  if (!cwb_scene_apply_assignment (scene, change->set, &note, error))
    {
      g_prefix_error (error, "--at %" G_GUINT64_FORMAT ": ", change->step);
      return FALSE;
    }
  if (noted && note != NULL)
    g_message ("--at %" G_GUINT64_FORMAT ":%s: %s", change->step, change->set, note);
  return TRUE;
}

gboolean
cwb_run_check_changes (const CwbScene *scene, const CwbRunChange *changes, size_t n_changes,
                       guint64 steps, GError **error)
{
  g_autoptr (CwbScene) copy = cwb_scene_copy (scene);
  g_autoptr (GPtrArray) order = changes_in_order (changes, n_changes);
  for (guint c = 0; c < order->len; c++)
    {
      const CwbRunChange *change = order->pdata[c];
      if (change->step >= steps)
        {
          g_set_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_RANGE,
                       "--at %" G_GUINT64_FORMAT ":%s: the run ends after %" G_GUINT64_FORMAT
                       " steps, expected a step below that", change->step, change->set, steps);
          return FALSE;
        }
      if (!apply_change (copy, change, FALSE, error))
        return FALSE;
    }
  return TRUE;
}

/* What a batch of changes touched. */
typedef struct Touched {
  gboolean contact_params, solver_params, other;
} Touched;

static void
touch (Touched *t, const char *set)
{
  if (g_str_has_prefix (set, "contact."))
    t->contact_params |= !g_str_has_prefix (set, "contact.model=");
  else if (g_str_has_prefix (set, "solver."))
    t->solver_params |= !g_str_has_prefix (set, "solver.name=");
  else
    t->other = TRUE;
}

/* Puts the scene's contact model and solver, or their parameters, into the running world. */
static gboolean
swap_plugins (CwbWorld *world, CwbScene *scene, const Touched *t, GError **error)
{
  const char *solver = scene->solver != NULL ? scene->solver : CWB_SCENE_DEFAULT_SOLVER;
  gboolean new_model = g_strcmp0 (scene->contact_model,
                                  cwb_world_contact_model_name (world)) != 0;
  gboolean new_solver = strcmp (solver, cwb_world_solver_name (world)) != 0;
  g_autoptr (GPtrArray) old_solver_params
    = cwb_scene_kept_params (scene, FALSE, cwb_world_solver_name (world));
  if (!cwb_world_set_pair (world, scene->contact_model, scene->contact_params, solver,
                           scene->solver_params, old_solver_params, error))
    return FALSE;
  if (!new_model && t->contact_params
      && !cwb_world_set_plugin_params (world, CWB_PLUGIN_CONTACT_MODEL, scene->contact_params,
                                       error))
    return FALSE;
  return new_solver || !t->solver_params
         || cwb_world_set_plugin_params (world, CWB_PLUGIN_SOLVER, scene->solver_params, error);
}

/* Makes the changes due after `done` steps (from order[*next] on) to the scene, then to the
 * world: the plugins swapped or their parameters set in place, or the world rebuilt. */
static gboolean
make_changes (CwbWorld **world, const CwbRunOptions *o, CwbReport *report, GPtrArray *order,
              guint *next, guint64 done, GError **error)
{
  CwbScene *scene = o->scene;
  Touched t = { .contact_params = FALSE };
  guint first = *next;
  for (; *next < order->len && ((const CwbRunChange *) order->pdata[*next])->step == done;
       (*next)++)
    {
      const CwbRunChange *change = order->pdata[*next];
      if (!apply_change (scene, change, TRUE, error))
        return FALSE;
      touch (&t, change->set);
    }
  if (*next == first)
    return TRUE;
  g_autoptr (GError) local = NULL;
  gboolean ok = TRUE;
  if (t.other)
    {
      CwbWorld *rebuilt = o->rebuild (scene, o->rebuild_data, &local);
      ok = rebuilt != NULL;
      if (ok)
        {
          cwb_world_carry_state (rebuilt, *world, NULL, NULL);
          cwb_world_free (*world);
          *world = rebuilt;
        }
    }
  else
    ok = swap_plugins (*world, scene, &t, &local);
  if (!ok)
    {
      g_set_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_EDIT,
                   "--at %" G_GUINT64_FORMAT ": the change was refused, the run stops here "
                   "with the state before it: %s", done, local->message);
      return FALSE;
    }
  for (guint c = first; c < *next; c++)
    cwb_report_add_change (report, done, ((const CwbRunChange *) order->pdata[c])->set);
  return TRUE;
}

gboolean
cwb_run_headless (CwbWorld **world, const CwbRunOptions *options, GError **error)
{
  g_return_val_if_fail (options->n_changes == 0
                        || (options->scene != NULL && options->rebuild != NULL), FALSE);
  g_autoptr (CwbReport) report = cwb_report_new (options->scene_path);
  g_autoptr (CwbResidualLog) residuals = options->residuals_path != NULL
                                           ? cwb_residual_log_new () : NULL;
  g_autoptr (GPtrArray) order = changes_in_order (options->changes, options->n_changes);
  guint next = 0;
  CwbProgressLine line;
  cwb_progress_line_init (&line, stderr, options->progress);
  GError *step_error = NULL;
  gint64 start = cwb_clock_ns ();

  for (guint64 k = 0; k < options->steps; k++)
    {
      if (!make_changes (world, options, report, order, &next, k, &step_error))
        break;
      if (!cwb_world_step (*world, &step_error))
        break;
      cwb_report_add_step (report, *world);
      if (residuals != NULL)
        cwb_residual_log_add_step (residuals, *world);
      if (cwb_progress_line_due (&line, k + 1 == options->steps))
        draw_progress (&line, *world, k + 1, options->steps, cwb_clock_ns () - start);
    }
  /* The last state stays on screen: the run's summary. */
  cwb_progress_line_end (&line);
  double wall_ms = (cwb_clock_ns () - start) * 1e-6;

  /* A failed write is the run's error unless a step already failed (that error wins). */
  if (options->report_path != NULL
      && !cwb_report_write (report, *world, wall_ms,
                            step_error != NULL ? step_error->message : NULL,
                            options->report_path, step_error == NULL ? error : NULL)
      && step_error == NULL)
    return FALSE;
  if (residuals != NULL
      && !cwb_residual_log_write (residuals, options->residuals_path,
                                  step_error == NULL ? error : NULL)
      && step_error == NULL)
    return FALSE;
  if (step_error != NULL)
    {
      g_propagate_error (error, step_error);
      return FALSE;
    }
  return TRUE;
}

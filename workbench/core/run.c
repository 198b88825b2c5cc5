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

/* One side of a run: a world with its scene, report, residuals and the changes still to
 * make. A lone run has one; an A/B compare two. */
typedef struct Leg {
  const char *label;            /* "A: " or "B: " in a compare's messages, "" alone */
  CwbWorld **world;
  CwbScene *scene;
  const char *report_path;
  const char *residuals_path;
  CwbReport *report;
  CwbResidualLog *residuals;
  GPtrArray *order;             /* the changes in the order they apply */
  guint next;                   /* the first not made yet */
  gint64 step_ns;               /* time inside its steps and changes */
  GError *error;                /* what stopped it; NULL while it runs */
} Leg;

static void
leg_clear (Leg *leg)
{
  g_clear_pointer (&leg->report, cwb_report_free);
  g_clear_pointer (&leg->residuals, cwb_residual_log_free);
  g_clear_pointer (&leg->order, g_ptr_array_unref);
  g_clear_error (&leg->error);
}

/* Makes the changes due after `done` steps (from order[next] on) to the leg's scene, then
 * to its world: the plugins swapped or their parameters set in place, or the world
 * rebuilt. */
static gboolean
make_changes (Leg *leg, const CwbRunOptions *o, guint64 done, GError **error)
{
  CwbScene *scene = leg->scene;
  CwbWorld **world = leg->world;
  GPtrArray *order = leg->order;
  guint *next = &leg->next;
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
    cwb_report_add_change (leg->report, done, ((const CwbRunChange *) order->pdata[c])->set);
  return TRUE;
}

/* One step of a leg that still runs, with the changes due before it; on failure the leg
 * keeps its error and stops. */
static void
leg_step (Leg *leg, guint side, const CwbRunOptions *o, guint64 k)
{
  if (leg->error != NULL)
    return;
  gint64 start = cwb_clock_ns ();
  gboolean stepped = make_changes (leg, o, k, &leg->error)
                     && cwb_world_step (*leg->world, &leg->error);
  if (stepped)
    {
      cwb_report_add_step (leg->report, *leg->world);
      if (leg->residuals != NULL)
        cwb_residual_log_add_step (leg->residuals, *leg->world);
    }
  leg->step_ns += cwb_clock_ns () - start;
  /* Outside the step's time: what is done with the state is not the run's cost. */
  if (stepped && o->observe != NULL)
    o->observe (side, *leg->world, o->observe_data);
}

/* Writes the leg's report and residuals; a failed write is its error unless a step already
 * failed (that error wins). */
static void
leg_write (Leg *leg)
{
  double wall_ms = leg->step_ns * 1e-6;
  const char *failure = leg->error != NULL ? leg->error->message : NULL;
  GError **write_error = leg->error == NULL ? &leg->error : NULL;
  if (leg->report_path != NULL)
    cwb_report_write (leg->report, *leg->world, wall_ms, failure, leg->report_path,
                      write_error);
  if (leg->residuals_path != NULL)
    cwb_residual_log_write (leg->residuals, leg->residuals_path,
                            leg->error == NULL ? &leg->error : NULL);
}

static void
leg_init (Leg *leg, const char *label, CwbWorld **world, CwbScene *scene, const char *report,
          const char *residuals, const CwbRunOptions *o)
{
  *leg = (Leg) { .label = label, .world = world, .scene = scene, .report_path = report,
                 .residuals_path = residuals };
  leg->report = cwb_report_new (o->scene_path);
  leg->residuals = residuals != NULL ? cwb_residual_log_new () : NULL;
  leg->order = changes_in_order (o->changes, o->n_changes);
}

/* The compare's summary: where B stands against A after the run. */
static void
print_summary (FILE *out, const Leg legs[2], const CwbCompareMeasure *m, guint64 both)
{
  const char *side[2] = { "A", "B" };
  for (int k = 0; k < 2; k++)
    {
      CwbWorld *world = *legs[k].world;
      const char *model = cwb_world_contact_model_name (world);
      guint64 steps = cwb_world_step_count (world);
      fprintf (out, "%s: contact %s, solver %s: %" G_GUINT64_FORMAT " steps, %.1f steps/s%s%s\n",
               side[k], model != NULL ? model : "none", cwb_world_solver_name (world), steps,
               legs[k].step_ns > 0 ? steps / (legs[k].step_ns * 1e-9) : 0.0,
               legs[k].error != NULL ? ", stopped: " : "",
               legs[k].error != NULL ? legs[k].error->message : "");
    }
  fprintf (out, "B against A after %" G_GUINT64_FORMAT " steps of both: ", both);
  if (m->matched > 0)
    fprintf (out, "bodies %.6g m apart at most (%s), turned %.6g deg at most; ",
             m->max_distance, cwb_world_body_name (*legs[0].world, (size_t) m->farthest),
             m->max_angle * 180 / G_PI);
  else
    fprintf (out, "no moving body in both; ");
  fprintf (out, "kinetic energy %.6g J / %.6g J; contacts %zu / %zu\n", m->kinetic_energy[0],
           m->kinetic_energy[1], m->contacts[0], m->contacts[1]);
}

gboolean
cwb_run_headless (CwbWorld **world, const CwbRunOptions *options, GError **error)
{
  g_return_val_if_fail (options->n_changes == 0
                        || (options->scene != NULL && options->rebuild != NULL), FALSE);
  const CwbRunCompare *compare = options->compare;
  size_t n_legs = compare != NULL ? 2 : 1;
  Leg legs[2];
  leg_init (&legs[0], compare != NULL ? "A: " : "", world, options->scene,
            options->report_path, options->residuals_path, options);
  if (compare != NULL)
    {
      leg_init (&legs[1], "B: ", compare->world, compare->scene, compare->report_path,
                compare->residuals_path, options);
      cwb_report_set_compare (legs[0].report, "a", compare->report_path, compare->changes);
      cwb_report_set_compare (legs[1].report, "b", options->report_path, compare->changes);
    }
  CwbProgressLine line;
  cwb_progress_line_init (&line, stderr, options->progress);
  gint64 start = cwb_clock_ns ();
  /* The difference after the last step both sides made: at first, of the states they start
   * from. */
  CwbCompareMeasure measure = { .farthest = -1 };
  if (compare != NULL)
    cwb_compare_worlds (*legs[0].world, *legs[1].world, &measure);
  guint64 both = 0;
  for (size_t l = 0; options->observe != NULL && l < n_legs; l++)
    options->observe ((guint) l, *legs[l].world, options->observe_data);

  for (guint64 k = 0; k < options->steps; k++)
    {
      gboolean running = FALSE;
      for (size_t l = 0; l < n_legs; l++)
        {
          leg_step (&legs[l], (guint) l, options, k);
          running |= legs[l].error == NULL;
        }
      if (!running)
        break;
      if (compare != NULL && legs[0].error == NULL && legs[1].error == NULL)
        {
          cwb_compare_worlds (*legs[0].world, *legs[1].world, &measure);
          const char *farthest = measure.farthest >= 0
                                   ? cwb_world_body_name (*legs[0].world,
                                                          (size_t) measure.farthest)
                                   : NULL;
          double time = cwb_world_time (*legs[0].world);
          for (size_t l = 0; l < 2; l++)
            cwb_report_add_compare_step (legs[l].report, time, &measure, farthest);
          both = k + 1;
        }
      if (cwb_progress_line_due (&line, k + 1 == options->steps))
        draw_progress (&line, *legs[0].world, k + 1, options->steps, cwb_clock_ns () - start);
    }
  /* The last state stays on screen: the run's summary. */
  cwb_progress_line_end (&line);

  GError *first = NULL;
  for (size_t l = 0; l < n_legs; l++)
    {
      leg_write (&legs[l]);
      if (first == NULL && legs[l].error != NULL)
        {
          first = g_error_copy (legs[l].error);
          g_prefix_error (&first, "%s", legs[l].label);
        }
    }
  if (compare != NULL && options->summary != NULL)
    print_summary (options->summary, legs, &measure, both);
  for (size_t l = 0; l < n_legs; l++)
    leg_clear (&legs[l]);
  if (first != NULL)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}

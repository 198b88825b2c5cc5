/* The run report. phase_ms holds the mean per step of each phase, named as in Allard 2010
 * Table 1; per_step holds one entry per step; a value that does not apply is null. */
#include "report.h"

struct CwbReport {
  char *scene;
  GArray *steps;     /* CwbStepStats */
  GArray *changes;   /* Change, in the order made */
  /* One side of an A/B compare (role NULL: a lone run). */
  char *compare_role;
  char *compare_other;
  char **compare_changes;
  GArray *compare_steps;   /* CompareStep */
};

/* The two sides' difference after one step. */
typedef struct CompareStep {
  double time;
  CwbCompareMeasure measure;
  char *farthest;
} CompareStep;

static void
compare_step_clear (CompareStep *step)
{
  g_free (step->farthest);
}

/* A change made during the run (--at): "KEY=VALUE" after `step` steps. */
typedef struct Change {
  guint64 step;
  char *set;
} Change;

static void
change_clear (Change *change)
{
  g_free (change->set);
}

CwbReport *
cwb_report_new (const char *scene_path)
{
  CwbReport *report = g_new0 (CwbReport, 1);
  report->scene = g_strdup (scene_path != NULL ? scene_path : "");
  report->steps = g_array_new (FALSE, FALSE, sizeof (CwbStepStats));
  report->changes = g_array_new (FALSE, FALSE, sizeof (Change));
  g_array_set_clear_func (report->changes, (GDestroyNotify) change_clear);
  report->compare_steps = g_array_new (FALSE, FALSE, sizeof (CompareStep));
  g_array_set_clear_func (report->compare_steps, (GDestroyNotify) compare_step_clear);
  return report;
}

void
cwb_report_free (CwbReport *report)
{
  if (report == NULL)
    return;
  g_free (report->scene);
  g_array_unref (report->steps);
  g_array_unref (report->changes);
  g_free (report->compare_role);
  g_free (report->compare_other);
  g_strfreev (report->compare_changes);
  g_array_unref (report->compare_steps);
  g_free (report);
}

void
cwb_report_add_change (CwbReport *report, guint64 step, const char *change)
{
  Change made = { .step = step, .set = g_strdup (change) };
  g_array_append_val (report->changes, made);
}

void
cwb_report_set_compare (CwbReport *report, const char *role, const char *other,
                        char *const *changes)
{
  g_free (report->compare_role);
  g_free (report->compare_other);
  g_strfreev (report->compare_changes);
  report->compare_role = g_strdup (role);
  report->compare_other = g_strdup (other);
  report->compare_changes = g_strdupv ((char **) changes);
}

void
cwb_report_add_compare_step (CwbReport *report, double time, const CwbCompareMeasure *measure,
                             const char *farthest)
{
  CompareStep step = { .time = time, .measure = *measure, .farthest = g_strdup (farthest) };
  g_array_append_val (report->compare_steps, step);
}

void
cwb_report_add_step (CwbReport *report, const CwbWorld *world)
{
  g_array_append_val (report->steps, *cwb_world_last_stats (world));
}

/* A number, or null when it does not apply (NAN) or is not finite. */
static void
add_number_or_null (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  if (isfinite (value))
    json_builder_add_double_value (b, value);
  else
    json_builder_add_null_value (b);
}

/* One member "SECTION.NAME" per automatic parameter in `derived` (CwbDerivedParam; NULL:
 * none). */
static void
add_derived (JsonBuilder *b, const char *section, const GArray *derived)
{
  for (guint k = 0; derived != NULL && k < derived->len; k++)
    {
      const CwbDerivedParam *d = &g_array_index (derived, CwbDerivedParam, k);
      g_autofree char *key = g_strdup_printf ("%s.%s", section, d->name);
      add_number_or_null (b, key, d->value);
    }
}

/* A count, or null where it is negative (does not apply to the run). */
static void
add_count_or_null (JsonBuilder *b, const char *name, int value)
{
  json_builder_set_member_name (b, name);
  if (value >= 0)
    json_builder_add_int_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_vector (JsonBuilder *b, const char *name, const double *v, int n)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (int k = 0; k < n; k++)
    json_builder_add_double_value (b, v[k]);
  json_builder_end_array (b);
}

static void
add_string_or_null (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

/* "compare": null for a lone run; for a side of an A/B compare, which side, the other's
 * report, B's changes and the difference after every step both made. */
static void
add_compare (JsonBuilder *b, const CwbReport *report)
{
  json_builder_set_member_name (b, "compare");
  if (report->compare_role == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  add_string_or_null (b, "role", report->compare_role);
  add_string_or_null (b, "other_report", report->compare_other);
  json_builder_set_member_name (b, "changes");
  json_builder_begin_array (b);
  for (char **c = report->compare_changes; c != NULL && *c != NULL; c++)
    json_builder_add_string_value (b, *c);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "per_step");
  json_builder_begin_array (b);
  for (guint s = 0; s < report->compare_steps->len; s++)
    {
      const CompareStep *step = &g_array_index (report->compare_steps, CompareStep, s);
      const CwbCompareMeasure *m = &step->measure;
      json_builder_begin_object (b);
      add_number_or_null (b, "t", step->time);
      json_builder_set_member_name (b, "matched_bodies");
      json_builder_add_int_value (b, (gint64) m->matched);
      add_number_or_null (b, "max_distance", m->matched > 0 ? m->max_distance : NAN);
      add_string_or_null (b, "farthest_body", step->farthest);
      add_number_or_null (b, "max_angle", m->matched > 0 ? m->max_angle : NAN);
      add_vector (b, "kinetic_energy", m->kinetic_energy, 2);
      json_builder_set_member_name (b, "contacts");
      json_builder_begin_array (b);
      json_builder_add_int_value (b, (gint64) m->contacts[0]);
      json_builder_add_int_value (b, (gint64) m->contacts[1]);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

JsonNode *
cwb_report_build (const CwbReport *report, const CwbWorld *world, double wall_ms,
                  const char *failure)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "scene");
  json_builder_add_string_value (b, report->scene);
  json_builder_set_member_name (b, "contact_model");
  if (cwb_world_contact_model_name (world) != NULL)
    json_builder_add_string_value (b, cwb_world_contact_model_name (world));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "solver");
  json_builder_add_string_value (b, cwb_world_solver_name (world));
  add_number_or_null (b, "dt", cwb_world_dt (world));
  json_builder_set_member_name (b, "steps");
  json_builder_add_int_value (b, report->steps->len);
  add_number_or_null (b, "wall_ms", wall_ms);

  json_builder_set_member_name (b, "phase_ms");
  json_builder_begin_object (b);
  for (int p = 0; p < CWB_PHASE_COUNT; p++)
    {
      double sum = 0;
      for (guint s = 0; s < report->steps->len; s++)
        sum += g_array_index (report->steps, CwbStepStats, s).phase_ms[p];
      add_number_or_null (b, cwb_phase_name (p),
                          report->steps->len > 0 ? sum / report->steps->len : NAN);
    }
  json_builder_end_object (b);
  /* Beyond the contract's phases (additive): the mean time per step inside the bodies'
   * compliance operators, within constraint_solver (Saupin 2008 Table 2). */
  double compliance_sum = 0;
  for (guint s = 0; s < report->steps->len; s++)
    compliance_sum += g_array_index (report->steps, CwbStepStats, s).compliance_ms;
  add_number_or_null (b, "compliance_ms",
                      report->steps->len > 0 ? compliance_sum / report->steps->len : NAN);

  /* Beyond the contract (additive): what the contact model's automatic parameters resolved
   * to at its last detection, e.g. { "contact.margin": 0.0039 }, and the solver's in its
   * last step ("solver.tolerance"). */
  json_builder_set_member_name (b, "derived_params");
  json_builder_begin_object (b);
  add_derived (b, "contact", cwb_world_inspection (world)->derived);
  add_derived (b, "solver", cwb_world_solver_derived (world));
  json_builder_end_object (b);

  /* Beyond the contract (additive): the changes made during the run (--at), in order, each
   * after `step` steps. */
  json_builder_set_member_name (b, "changes");
  json_builder_begin_array (b);
  for (guint c = 0; c < report->changes->len; c++)
    {
      const Change *change = &g_array_index (report->changes, Change, c);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "step");
      json_builder_add_int_value (b, (gint64) change->step);
      json_builder_set_member_name (b, "set");
      json_builder_add_string_value (b, change->set);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "per_step");
  json_builder_begin_array (b);
  for (guint s = 0; s < report->steps->len; s++)
    {
      const CwbStepStats *st = &g_array_index (report->steps, CwbStepStats, s);
      json_builder_begin_object (b);
      add_number_or_null (b, "t", st->time);
      add_number_or_null (b, "kinetic_energy", st->kinetic_energy);
      json_builder_set_member_name (b, "contacts");
      json_builder_add_int_value (b, (gint64) st->contacts);
      add_number_or_null (b, "intersection_volume", st->intersection_volume);
      add_number_or_null (b, "max_penetration", st->max_penetration);
      add_count_or_null (b, "solver_iterations", st->solver_iterations);
      add_number_or_null (b, "solver_residual", st->solver_residual);
      json_builder_set_member_name (b, "solver_converged");
      if (st->solver_converged < 0)
        json_builder_add_null_value (b);
      else
        json_builder_add_boolean_value (b, st->solver_converged != 0);
      add_number_or_null (b, "compliance_ms", st->compliance_ms);
      add_count_or_null (b, "stabilization_passes", st->stabilization_passes);
      add_number_or_null (b, "stabilization_violation", st->stabilization_violation);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "bodies");
  json_builder_begin_array (b);
  for (size_t i = 0; i < cwb_world_n_bodies (world); i++)
    {
      CwbBodySummary sum;
      cwb_world_body_summary (world, i, &sum);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, cwb_world_body_name (world, i));
      json_builder_set_member_name (b, "model");
      json_builder_add_string_value (b, cwb_world_body_model_name (world, i));
      add_vector (b, "centroid", sum.centroid, 3);
      add_vector (b, "linear_velocity", sum.linear_velocity, 3);
      add_vector (b, "orientation", sum.orientation, 4);
      /* Beyond the contract (additive): for energy balances, as the swap matrix's. */
      add_number_or_null (b, "mass", sum.mass);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  /* Beyond the contract: the exact-state hash for regression checks, and why a run failed. */
  json_builder_set_member_name (b, "state_hash");
  g_autofree char *hash = g_strdup_printf ("%016" G_GINT64_MODIFIER "x",
                                           cwb_world_state_hash (world));
  json_builder_add_string_value (b, hash);
  add_string_or_null (b, "failure", failure);
  /* Beyond the contract (additive): the A/B compare this run was one side of (--compare). */
  add_compare (b, report);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* json-glib 1.6 writes a double whose shortest form has an exponent and no point as that
 * form with ".0" appended: 1e-8 becomes "1e-08.0", which is not JSON. Drops such a ".0"
 * from the numbers of generated text (never inside a string), in place; returns the new
 * length. */
static gsize
repair_exponent_numbers (char *text, gsize length)
{
  gsize out = 0;
  gboolean in_string = FALSE;
  for (gsize k = 0; k < length; k++)
    {
      char c = text[k];
      if (in_string)
        {
          if (c == '\\' && k + 1 < length)
            {
              text[out++] = c;
              c = text[++k];
            }
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if ((c == 'e' || c == 'E') && out > 0 && g_ascii_isdigit (text[out - 1]))
        {
          /* An exponent: copy its sign and digits, then skip a ".0" right after them. */
          text[out++] = c;
          k++;
          if (k < length && (text[k] == '+' || text[k] == '-'))
            text[out++] = text[k++];
          while (k < length && g_ascii_isdigit (text[k]))
            text[out++] = text[k++];
          if (k + 1 < length && text[k] == '.' && text[k + 1] == '0'
              && (k + 2 >= length || !g_ascii_isdigit (text[k + 2])))
            k += 2;
          k--;
          continue;
        }
      text[out++] = c;
    }
  text[out] = '\0';
  return out;
}

gboolean
cwb_report_write (const CwbReport *report, const CwbWorld *world, double wall_ms,
                  const char *failure, const char *path, GError **error)
{
  g_autoptr (JsonNode) root = cwb_report_build (report, world, wall_ms, failure);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  gsize length = 0;
  g_autofree char *text = json_generator_to_data (gen, &length);
  length = repair_exponent_numbers (text, length);
  return g_file_set_contents_full (path, text, (gssize) length,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0666, error);
}

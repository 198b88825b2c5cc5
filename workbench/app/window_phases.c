/* Phase stepping (issue 19, "what no peer has"): one time step walked through stage by stage
 * as the solver declares them (CwbSolverVTable.stages: Allard 2010 Algorithm 1's free
 * motion, detection, solve, correction, stabilization for `constraint`), the view showing
 * the state each stage leaves and a caption saying what happens in it. The step is computed
 * once, whole, with its stages recorded (cwb_simulation_step_stages), so the stages end in
 * exactly the state a plain step gives; the window only shows them one after another. No
 * code here names a solver. */
#include "window_private.h"

static void
show_phase (CwbAppWindow *self)
{
  CwbSnapshot *stage = self->phases->pdata[self->phase_at];
  cwb_app_viewport_show_stage (self->viewport, stage);
  g_autofree char *text = g_strdup_printf (
    "Phase %u of %u of step %" G_GUINT64_FORMAT ": %s. %s  (',' next phase; '.' or play "
    "leaves)", self->phase_at + 1, self->phases->len, stage->steps, stage->stage_name,
    stage->stage_caption);
  gtk_label_set_text (self->phase_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->phase_label), TRUE);
  self->shown_snapshot_steps = G_MAXUINT64;   /* the inspector and tables show the stage */
  self->last_panel_update_us = 0;
  cwb_app_window_refresh_run (self);
}

void
cwb_app_window_end_phases (CwbAppWindow *self)
{
  if (self->phases == NULL)
    return;
  g_clear_pointer (&self->phases, g_ptr_array_unref);
  cwb_app_viewport_show_stage (self->viewport, NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->phase_label), FALSE);
  self->shown_snapshot_steps = G_MAXUINT64;
}

void
cwb_app_window_step_phase (CwbAppWindow *self)
{
  if (self->phases != NULL)
    {
      if (++self->phase_at < self->phases->len)
        {
          show_phase (self);
          return;
        }
      /* Past the last stage: the step's end, as a plain step leaves it. */
      cwb_app_window_end_phases (self);
      return;
    }
  GAction *play = g_action_map_lookup_action (G_ACTION_MAP (self), "play");
  g_action_change_state (play, g_variant_new_boolean (FALSE));
  cwb_simulation_step_stages (self->simulation);
  cwb_app_window_compare_step (self, 1);   /* B keeps in step (its stages are not shown) */
  /* One step: short, and the stages are needed before anything else is shown. */
  cwb_simulation_wait_idle (self->simulation);
  g_autoptr (GPtrArray) stages = cwb_simulation_take_stages (self->simulation);
  if (stages == NULL)
    return;   /* the step failed: refresh_run shows why */
  if (stages->len == 0)
    {
      g_autoptr (CwbSnapshot) s = cwb_simulation_latest (self->simulation);
      g_autofree char *notice = g_strdup_printf (
        "The solver '%s' declares no phases: one whole step was made", s->solver);
      cwb_app_window_show_notice (self, notice);
      return;
    }
  self->phases = g_steal_pointer (&stages);
  self->phase_at = 0;
  show_phase (self);
}

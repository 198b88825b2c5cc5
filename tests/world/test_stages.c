/* Phase stepping (issue 19): the stages a solver declares (CwbSolverVTable.stages, ABI 1.13)
 * captured mid-step by the host. Stepping with the stages recorded gives the state of the
 * step without, bit for bit, every step; the last stage's state is the step's end; each
 * stage is one the solver declares, in order; the contact set shows as the stage's flags
 * say; and the free motion's state is the closed form of a free fall. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "snapshot.h"
#include "world_fixture.h"

static void
collect (CwbSnapshot *stage, gpointer data)
{
  g_ptr_array_add (data, stage);
}

/* Each solver on a scene with contacts: the stack of three boxes (constraint, with
 * stabilization), and the sliding box on the incline (predictor-corrector, penalty). */
static void
test_stages_replay_the_step (gconstpointer data)
{
  const char *const *sets = data;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  const char *scene = sets[0];
  g_autoptr (CwbWorld) plain = fixture_world_from_file (registry, scene, sets + 1);
  g_autoptr (CwbWorld) staged = fixture_world_from_file (registry, scene, sets + 1);
  size_t n_stages = 0;
  const CwbSolverStage *declared = cwb_world_solver_stages (staged, &n_stages);
  g_assert_nonnull (declared);
  g_assert_cmpuint (n_stages, >=, 3);
  g_autoptr (GPtrArray) stages = g_ptr_array_new_with_free_func (
    (GDestroyNotify) cwb_snapshot_unref);
  cwb_world_set_stage_observer (staged, collect, stages);
  gboolean saw_contacts = FALSE, saw_all = FALSE;
  for (int step = 0; step < 40; step++)
    {
      g_ptr_array_set_size (stages, 0);
      fixture_step (plain, 1);
      fixture_step (staged, 1);
      /* Recording changes nothing: the same state, bit for bit. */
      g_assert_cmphex (cwb_world_state_hash (staged), ==, cwb_world_state_hash (plain));
      g_assert_cmpuint (stages->len, >=, 2);
      g_assert_cmpuint (stages->len, <=, n_stages);
      saw_all |= stages->len == n_stages;
      int last = -1;
      for (guint k = 0; k < stages->len; k++)
        {
          const CwbSnapshot *s = stages->pdata[k];
          g_assert_cmpint (s->stage, >, last);
          last = s->stage;
          g_assert_cmpstr (s->stage_name, ==, declared[s->stage].name);
          g_assert_cmpuint (s->steps, ==, cwb_world_step_count (staged));
          if (!(declared[s->stage].flags & CWB_STAGE_CONTACTS))
            g_assert_cmpuint (s->frames->len, ==, 0);
          else if (!(declared[s->stage].flags & CWB_STAGE_FORCES))
            for (guint f = 0; f < s->frames->len; f++)
              g_assert_cmpfloat (g_array_index (s->frames, CwbContactFrame, f).force[0], ==, 0);
          saw_contacts |= s->frames->len > 0;
        }
      /* The last stage ends the step: its state is the world's after it. */
      const CwbSnapshot *end = stages->pdata[stages->len - 1];
      size_t nq, nv;
      double *q = cwb_world_q (staged, &nq), *v = cwb_world_v (staged, &nv);
      g_assert_cmpuint (end->nq, ==, nq);
      g_assert_cmpmem (end->q, nq * sizeof (double), q, nq * sizeof (double));
      g_assert_cmpmem (end->v, nv * sizeof (double), v, nv * sizeof (double));
      g_autoptr (CwbSnapshot) after = cwb_snapshot_capture (staged, NULL);
      g_assert_cmpint (after->stage, ==, -1);
      g_assert_cmpuint (end->frames->len, ==, after->frames->len);
      for (guint f = 0; f < after->frames->len; f++)
        g_assert_cmpmem (g_array_index (end->frames, CwbContactFrame, f).force,
                         3 * sizeof (double),
                         g_array_index (after->frames, CwbContactFrame, f).force,
                         3 * sizeof (double));
    }
  g_assert_true (saw_contacts);
  g_test_message ("%s: %zu stages declared, all reported in some step: %d", scene, n_stages,
                  saw_all);
}

/* A box falling freely (no contact yet, 1 m up): the first stage, the free motion, leaves
 * v + g h and the position moved by h times that velocity (the body model's backward
 * Euler), to 1e-12 m and m/s (a few roundings of numbers of order 1). */
static void
test_free_motion_stage (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (
    registry, "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
              "solver: { name: constraint }\n"
              "contact: { model: proximity }\n"
              "bodies:\n"
              "  - name: ground\n"
              "    shape: { type: ground, size: [4, 4, 0.5] }\n"
              "    fixed: true\n"
              "  - name: box\n"
              "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
              "    pose: { position: [0, 0, 1] }\n"
              "    velocity: { linear: [0.3, 0, 0.5] }\n");
  g_autoptr (GPtrArray) stages = g_ptr_array_new_with_free_func (
    (GDestroyNotify) cwb_snapshot_unref);
  cwb_world_set_stage_observer (world, collect, stages);
  g_autoptr (CwbSnapshot) before = cwb_snapshot_capture (world, NULL);
  fixture_step (world, 1);
  const CwbSnapshot *free_motion = stages->pdata[0];
  g_assert_cmpint (free_motion->stage, ==, 0);
  g_assert_cmpstr (free_motion->stage_name, ==, "free motion");
  g_assert_nonnull (free_motion->stage_caption);
  const CwbBodySummary *b0 = &before->bodies[1].summary, *b1 = &free_motion->bodies[1].summary;
  double v[3] = { 0.3, 0, 0.5 - 9.81 * 0.01 };
  for (int k = 0; k < 3; k++)
    {
      g_assert_cmpfloat_with_epsilon (b1->linear_velocity[k], v[k], 1e-12);
      g_assert_cmpfloat_with_epsilon (b1->centroid[k], b0->centroid[k] + 0.01 * v[k], 1e-12);
    }
  /* Nothing detected yet at this stage; the box's geometry is where its state is. */
  g_assert_cmpuint (free_motion->frames->len, ==, 0);
  double lo[3], hi[3];
  g_assert_true (cwb_snapshot_body_bounds (&free_motion->bodies[1], lo, hi));
  g_assert_cmpfloat_with_epsilon (0.5 * (lo[2] + hi[2]), b1->centroid[2], 1e-12);
  cwb_world_set_stage_observer (world, NULL, NULL);
  g_ptr_array_set_size (stages, 0);
  fixture_step (world, 1);
  g_assert_cmpuint (stages->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static const char *const stack[] = { "scenes/box-pyramid.yaml", NULL };
  static const char *const incline[] = { "scenes/penalty-incline.yaml", NULL };
  g_test_add_data_func ("/stages/replay/constraint", stack, test_stages_replay_the_step);
  g_test_add_data_func ("/stages/replay/predictor-corrector", incline,
                        test_stages_replay_the_step);
  g_test_add_func ("/stages/free-motion", test_free_motion_stage);
  return g_test_run ();
}

/* A/B compare (compare.h): the angle between orientations against closed forms, the
 * measure from worlds and from their snapshots alike, B's file names. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "compare.h"
#include "snapshot.h"
#include "world_fixture.h"

/* The angle of q_b = q_a * rotation (theta about a unit axis) is theta, whatever q_a and the
 * sign of q_b. Tolerance 1e-15 relative + 1e-15 absolute: the formula's rounding only (no
 * acos, whose derivative is infinite at 1, so theta = 1e-9 keeps its digits; acos would
 * give 0 or 2.1e-8 there). */
static void
test_angle (void)
{
  const double thetas[] = { 0, 1e-9, 1e-4, 0.5, 2.0, G_PI - 1e-6, G_PI };
  double qa[4] = { 0.9, 0.3, 0.2, 0.1 };
  cwb_quat_normalize (qa);
  double axis[3] = { 1, -2, 0.5 };
  cwb_v3_scale (axis, axis, 1 / cwb_v3_norm (axis));
  for (size_t k = 0; k < G_N_ELEMENTS (thetas); k++)
    {
      double w[3], r[4], qb[4];
      cwb_v3_scale (w, axis, thetas[k]);
      cwb_quat_from_rotvec (r, w);
      cwb_quat_mul (qb, qa, r);
      double tolerance = 1e-15 * thetas[k] + 4e-16;
      g_assert_cmpfloat_with_epsilon (cwb_compare_angle (qa, qb), thetas[k], tolerance);
      for (int c = 0; c < 4; c++)
        qb[c] = -qb[c];
      g_assert_cmpfloat_with_epsilon (cwb_compare_angle (qa, qb), thetas[k], tolerance);
    }
}

/* Two worlds of the fixture's scene, B with a third body far from the others: the two
 * matched boxes step alike (0 apart, bit for bit: islands are solved apart), B's extra body
 * is left out of the distances but counts in B's energy; one of B's boxes moved by (0.3,
 * -0.4, 0) and turned by 0.25 rad is 0.5 m and 0.25 rad away (to rounding); the snapshots'
 * measure equals the worlds' exactly. */
static void
test_worlds_and_snapshots (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) a = fixture_world (registry, fixture_two_boxes_yaml);
  g_autofree char *yaml_b = g_strconcat (fixture_two_boxes_yaml,
                                         "  - name: only-in-b\n"
                                         "    shape: { type: sphere, radius: 0.1 }\n"
                                         "    pose: { position: [5, 5, 5] }\n", NULL);
  g_autoptr (CwbWorld) b = fixture_world (registry, yaml_b);
  CwbCompareMeasure m;
  cwb_compare_worlds (a, b, &m);
  g_assert_cmpuint (m.matched, ==, 2);
  g_assert_cmpfloat (m.max_distance, ==, 0);
  g_assert_cmpfloat (m.max_angle, ==, 0);

  fixture_step (a, 10);
  fixture_step (b, 10);
  cwb_compare_worlds (a, b, &m);
  g_assert_cmpuint (m.matched, ==, 2);
  /* The extra sphere is far from both boxes and only falls: A and B's boxes step alike. */
  g_assert_cmpfloat (m.max_distance, ==, 0);
  g_assert_cmpuint (m.contacts[0], ==, cwb_world_last_stats (a)->contacts);
  double energy_a = 0;
  for (size_t i = 0; i < cwb_world_n_bodies (a); i++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (a, i, &s);
      energy_a += s.kinetic_energy;
    }
  g_assert_cmpfloat (m.kinetic_energy[0], ==, energy_a);
  g_assert_cmpfloat (m.kinetic_energy[1], >, energy_a);

  /* Move one of B's boxes by a known offset and turn it by a known angle. */
  size_t nq;
  double *q = cwb_world_q (b, &nq);
  const CwbBodySlot *slot = cwb_world_body_slot (b, 1);
  size_t nv;
  double *v = cwb_world_v (b, &nv);
  g_autofree double *q_moved = g_memdup2 (q, nq * sizeof (double));
  g_autofree double *v_same = g_memdup2 (v, nv * sizeof (double));
  q_moved[slot->q_offset + 0] += 0.3;
  q_moved[slot->q_offset + 1] -= 0.4;
  double *rotation = q_moved + slot->q_offset + 3, turned[4], r[4];
  const double turn[3] = { 0, 0, 0.25 };
  cwb_quat_from_rotvec (r, turn);
  cwb_quat_mul (turned, rotation, r);
  memcpy (rotation, turned, sizeof turned);
  g_autoptr (GError) error = NULL;
  g_assert_true (cwb_world_restore_state (b, q_moved, nq, v_same, nv, cwb_world_time (b),
                                          cwb_world_step_count (b), NULL, &error));
  cwb_compare_worlds (a, b, &m);
  g_assert_cmpint (m.farthest, ==, 1);
  g_assert_cmpfloat_with_epsilon (m.max_distance, 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (m.max_angle, 0.25, 1e-12);

  g_autoptr (CwbSnapshot) sa = cwb_snapshot_capture (a, NULL);
  g_autoptr (CwbSnapshot) sb = cwb_snapshot_capture (b, NULL);
  CwbCompareMeasure ms;
  cwb_compare_snapshots (sa, sb, &ms);
  g_assert_cmpuint (ms.matched, ==, m.matched);
  g_assert_cmpint (ms.farthest, ==, m.farthest);
  g_assert_cmpfloat (ms.max_distance, ==, m.max_distance);
  g_assert_cmpfloat (ms.max_angle, ==, m.max_angle);
  g_assert_cmpfloat (ms.kinetic_energy[1], ==, m.kinetic_energy[1]);
}

static void
test_b_path (void)
{
  const struct { const char *in, *out; } cases[] = {
    { "run.json", "run.b.json" }, { "/tmp/x.y/run.json", "/tmp/x.y/run.b.json" },
    { "out", "out.b" }, { "/tmp/x.y/out", "/tmp/x.y/out.b" }, { ".hidden", ".hidden.b" },
    { "shot.png", "shot.b.png" },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *path = cwb_compare_b_path (cases[k].in);
      g_assert_cmpstr (path, ==, cases[k].out);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compare/angle", test_angle);
  g_test_add_func ("/compare/worlds-and-snapshots", test_worlds_and_snapshots);
  g_test_add_func ("/compare/b-path", test_b_path);
  return g_test_run ();
}

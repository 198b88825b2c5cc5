/* Stacks of 1 m boxes that fall 1 cm onto each other (issue 16): under the penalty model
 * and the predictor-corrector solver at dt 0.01 they must stand, every box within 1 cm of
 * its resting place after 3 s. The resting place is where it started, lowered by the gaps
 * below it closing; the penalty's own sinking (g dt^2 per step, closed again each step) and
 * the softness against the ground (1e-2 of it) are far below the centimetre.
 *
 * - The pyramid of bench/make_pyramid.py 10 --gap 0.01 --offset 0.01 (55 boxes, rows 1 cm
 *   apart and shifted 1 cm along x and y per row, so corners lie on faces, never on edges):
 *   the upper rows land at 1.4 m/s, 1.4 cm per step, deeper than the 1 cm to the side face
 *   below, and each landing pushes the landed row up into the row falling above it.
 * - The flush pyramid (fixture_pyramid_scene (10, 0, 0, ...): boxes face to face, corners on
 *   the edges below) and the 1 cm-gap pyramid without offset (corners land on the edges
 *   below): only the convex manifolds (convex_contact.c: face-face, edge-face) see these
 *   contacts; point detection let them explode or drift 11 cm. The flush pyramid with each
 *   row 1 cm off along x and y too (every box loaded off-centre).
 * - Two equal boxes, the upper one shifted 1 cm along x and y and dropped 1 cm: points find
 *   only two corners, on the diagonal through the upper box's centre, and the upper box
 *   tipped after about 4 s; the face manifold holds the whole overlap square, so it rests.
 *   Reference: statics (a box resting on a face does not move); tolerance 1e-3 m over 10 s,
 *   the gap closing exactly and the penalty sinking g dt^2 = 1 mm at most. */
#include <math.h>

#include "world_fixture.h"

#define DT 0.01
#define STEPS 300              /* 3 s */
#define GAP 0.01               /* m, between rows and between boxes of a row */
#define OFFSET 0.01            /* m, per row along x and y */
#define ROWS 10
#define DRIFT_TOLERANCE 0.01   /* the target */
#define TWO_BOX_STEPS 1000     /* 10 s */
#define TWO_BOX_TOLERANCE 1e-3 /* m: g dt^2 = 1 mm is the penalty's resting sinking */

/* The scene bench/make_pyramid.py writes (there the generator; here the same numbers). */
static char *
pyramid_yaml (int rows)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s,
    "world: { dt: %g, gravity: [0, 0, -9.81] }\n"
    "contact: { model: penalty }\n"
    "solver: { name: predictor-corrector }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [40, 40, 1] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.6 }\n", DT);
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < rows - r; i++)
      {
        double x = (i - (rows - r - 1) / 2.0) * (1 + GAP) + r * OFFSET;
        double y = r * OFFSET, z = 0.5 + r * (1 + GAP) + GAP;
        g_string_append_printf (s,
          "  - name: box-%d-%d\n"
          "    shape: { type: box, size: [1, 1, 1] }\n"
          "    pose: { position: [%.9g, %.9g, %.9g] }\n"
          "    material: { density: 1000, friction: 0.6 }\n", r, i, x, y, z);
      }
  return g_string_free (s, FALSE);
}

/* Steps `steps`; returns the largest distance of a box (bodies 1 ..) from its resting place,
 * its starting centre lowered by (row + 1) gaps. row_of[b] gives each body's row. */
static double
largest_drift (const char *yaml, const int *row_of, int steps)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  size_t n = cwb_world_n_bodies (world);
  g_autofree double *rest = g_new (double, 3 * n);
  for (size_t b = 1; b < n; b++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, b, &s);
      cwb_v3_copy (&rest[3 * b], s.centroid);
      rest[3 * b + 2] -= (row_of[b] + 1) * GAP;
    }
  fixture_step (world, steps);
  double largest = 0;
  for (size_t b = 1; b < n; b++)
    {
      CwbBodySummary s;
      cwb_world_body_summary (world, b, &s);
      double d[3];
      cwb_v3_sub (d, s.centroid, &rest[3 * b]);
      largest = MAX (largest, cwb_v3_norm (d));
    }
  return largest;
}

static void
test_gap_pyramid (void)
{
  g_autofree char *yaml = pyramid_yaml (ROWS);
  int row_of[1 + ROWS * (ROWS + 1) / 2], b = 1;
  for (int r = 0; r < ROWS; r++)
    for (int i = 0; i < ROWS - r; i++)
      row_of[b++] = r;
  double drift = largest_drift (yaml, row_of, STEPS);
  g_test_message ("10-row pyramid, 1 cm gaps and offsets, dt 0.01: largest drift %.3g m after "
                  "3 s", drift);
  g_assert_cmpfloat (drift, <, DRIFT_TOLERANCE);
}

static void
test_offset_two_boxes (void)
{
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: %g, gravity: [0, 0, -9.81] }\n"
    "contact: { model: penalty }\n"
    "solver: { name: predictor-corrector }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [40, 40, 1] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.6 }\n"
    "  - name: lower\n"
    "    shape: { type: box, size: [1, 1, 1] }\n"
    "    pose: { position: [0, 0, %g] }\n"
    "    material: { density: 1000, friction: 0.6 }\n"
    "  - name: upper\n"
    "    shape: { type: box, size: [1, 1, 1] }\n"
    "    pose: { position: [%g, %g, %g] }\n"
    "    material: { density: 1000, friction: 0.6 }\n",
    DT, 0.5 + GAP, OFFSET, OFFSET, 1.5 + 2 * GAP);
  const int row_of[] = { 0, 0, 1 };
  double drift = largest_drift (yaml, row_of, TWO_BOX_STEPS);
  g_test_message ("two equal boxes offset 1 cm diagonally, dropped 1 cm: largest drift %.3g m "
                  "after 10 s", drift);
  g_assert_cmpfloat (drift, <, TWO_BOX_TOLERANCE);
}

/* The pyramids of fixture_pyramid_scene under penalty, 3 s at dt 0.01, mu 0.6. */
static void
run_fixture_pyramid (double gap, double offset)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = fixture_pyramid_scene (ROWS, gap, offset, 0.6, DT, "model: penalty",
                                                 "name: predictor-corrector");
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, STEPS);
  double drift = fixture_pyramid_drift (world, ROWS, gap, offset);
  g_test_message ("10-row pyramid, gap %g, offset %g, dt 0.01: drift %.3g m after 3 s", gap,
                  offset, drift);
  g_assert_cmpfloat (drift, <, DRIFT_TOLERANCE);
}

static void
test_flush_pyramid (void)
{
  run_fixture_pyramid (0, 0);
}

/* Flush, each row 1 cm off along x and y: every box rests off-centre on the two below. */
static void
test_offset_pyramid (void)
{
  run_fixture_pyramid (0, 0.01);
}

static void
test_gap_pyramid_aligned (void)
{
  run_fixture_pyramid (GAP, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/stacks/gap-pyramid", test_gap_pyramid);
  g_test_add_func ("/penalty/stacks/offset-two-boxes", test_offset_two_boxes);
  g_test_add_func ("/penalty/stacks/flush-pyramid", test_flush_pyramid);
  g_test_add_func ("/penalty/stacks/offset-pyramid", test_offset_pyramid);
  g_test_add_func ("/penalty/stacks/gap-pyramid-aligned", test_gap_pyramid_aligned);
  return g_test_run ();
}

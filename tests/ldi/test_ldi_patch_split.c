/* A small flat patch split at the moving body's vertices (plugins/contact-ldi/patch_split.c):
 * the parts' volumes and gradients add up to the whole's, each part holds its vertex's share
 * of the contact area at the whole's mean depth, a tilt deepens the parts on one side and
 * lightens the other, and a patch with one vertex, or more than PATCH_SPLIT_MAX_PARTS, is not
 * split. Synthetic gradients: a 4 cm square box base (body 1, moving) pressed 1 mm into a
 * ground (body 0, fixed), its four corners bounding unequal shares of the patch (a patch
 * off the base's centre), the ground's four far corners the rest of the gradient. Sums of a
 * handful of terms: 1e-15 relative to their size. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "contact_id.h"
#include "patch_split.h"
#include "volume_constraint.h"

#define AREA 0.0016
#define DEPTH 1e-3
#define ROUNDING 1e-15

typedef struct Patch {
  double ground_positions[12], box_positions[3 * 9];
  CwbGeometry geometries[2];
  CwbPointWeight gradients[4 + 9];
  LdiVolume whole;
} Patch;

/* The patch with `n_box` box vertices sharing the area by `shares` (summing to 1). The normal
 * points from b (the box) towards a (the ground): -z; b's entries point along it, a's
 * against (volume_constraint.c). */
static void
patch_init (Patch *p, guint n_box, const double *shares)
{
  const double ground[12] = { -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0 };
  memcpy (p->ground_positions, ground, sizeof ground);
  for (guint k = 0; k < n_box; k++)
    {
      double angle = 2 * G_PI * k / n_box;
      cwb_v3_set (&p->box_positions[3 * k], 0.02 * cos (angle), 0.02 * sin (angle), -DEPTH);
    }
  p->geometries[0] = (CwbGeometry) { .struct_size = sizeof (CwbGeometry),
                                     .kind = CWB_GEOMETRY_SURFACE, .body = 0, .n_points = 4,
                                     .positions = p->ground_positions };
  p->geometries[1] = (CwbGeometry) { .struct_size = sizeof (CwbGeometry),
                                     .kind = CWB_GEOMETRY_SURFACE, .body = 1,
                                     .n_points = n_box, .positions = p->box_positions };
  const double ground_shares[4] = { 0.1, 0.2, 0.3, 0.4 };
  for (guint k = 0; k < 4; k++)
    p->gradients[k] = (CwbPointWeight) { .geometry = 0, .point = k,
                                         .w = { 0, 0, AREA * ground_shares[k] } };
  for (guint k = 0; k < n_box; k++)
    p->gradients[4 + k] = (CwbPointWeight) { .geometry = 1, .point = k,
                                             .w = { 0, 0, -AREA * shares[k] } };
  p->whole = (LdiVolume) { .body_a = 0, .body_b = 1, .volume = AREA * DEPTH,
                           .axis_volume = { AREA * DEPTH, AREA * DEPTH, AREA * DEPTH },
                           .first_gradient = 0, .n_gradients = 4 + n_box };
}

static void
test_parts_add_up (void)
{
  const double shares[4] = { 0.4, 0.3, 0.2, 0.1 };
  Patch p;
  patch_init (&p, 4, shares);
  g_autoptr (GArray) parts = g_array_new (FALSE, FALSE, sizeof (LdiVolume));
  g_autoptr (GArray) gradients = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  uint32_t vertex[PATCH_SPLIT_MAX_PARTS];
  g_assert_cmpuint (patch_split (&p.whole, p.gradients, p.geometries, 1, parts, gradients,
                                 vertex), ==, 4);
  const CwbPointWeight *g = (const CwbPointWeight *) (void *) gradients->data;
  double volume = 0, ground_sum[4] = { 0 };
  for (guint k = 0; k < 4; k++)
    {
      const LdiVolume *part = &g_array_index (parts, LdiVolume, k);
      g_assert_cmpuint (vertex[k], ==, k);
      g_assert_cmpfloat (fabs (part->volume - AREA * DEPTH * shares[k]), <,
                         ROUNDING * AREA * DEPTH);
      volume += part->volume;
      /* The ground's four entries scaled by the share, then the part's own vertex. */
      g_assert_cmpuint (part->n_gradients, ==, 5);
      guint own = 0;
      for (guint e = part->first_gradient; e < part->first_gradient + part->n_gradients; e++)
        if (g[e].geometry == 0)
          ground_sum[g[e].point] += g[e].w[2];
        else
          {
            own++;
            g_assert_cmpuint (g[e].point, ==, k);
            g_assert_cmpfloat (g[e].w[2], ==, -AREA * shares[k]);
          }
      g_assert_cmpuint (own, ==, 1);
      /* Its normal is the whole's, its area its share: the whole's mean depth. */
      double normal[3];
      double area = volume_constraint_normal (part, g, p.geometries, normal);
      g_assert_cmpfloat (fabs (normal[2] + 1), <, ROUNDING);
      g_assert_cmpfloat (fabs (area - AREA * shares[k]), <, ROUNDING * AREA);
      g_assert_cmpfloat (fabs (part->volume / area - DEPTH), <, 1e-12 * DEPTH);
    }
  g_assert_cmpfloat (fabs (volume - AREA * DEPTH), <, ROUNDING * AREA * DEPTH);
  for (guint j = 0; j < 4; j++)
    g_assert_cmpfloat (fabs (ground_sum[j] - p.gradients[j].w[2]), <, ROUNDING * AREA);
  /* A tilt of the box (its vertices raised by 1e-4 of their x): the parts on the -x side
   * deepen, those on the +x side lighten. */
  for (guint k = 0; k < 4; k++)
    {
      const LdiVolume *part = &g_array_index (parts, LdiVolume, k);
      double change = 0;
      for (guint e = part->first_gradient; e < part->first_gradient + part->n_gradients; e++)
        if (g[e].geometry == 1)
          change += g[e].w[2] * 1e-4 * p.box_positions[3 * g[e].point];
      double x = p.box_positions[3 * k];
      if (fabs (x) > 1e-12)
        g_assert_cmpfloat (change * x, <, 0);
    }
}

/* One vertex with area, or more than the most parts: no split; eight, the most: split. The
 * body named as moving is the one whose vertices part (the ground's four, named instead). */
static void
test_not_split (void)
{
  g_autoptr (GArray) parts = g_array_new (FALSE, FALSE, sizeof (LdiVolume));
  g_autoptr (GArray) gradients = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  uint32_t vertex[PATCH_SPLIT_MAX_PARTS];
  Patch p;
  const double one[1] = { 1 };
  patch_init (&p, 1, one);
  g_assert_cmpuint (patch_split (&p.whole, p.gradients, p.geometries, 1, parts, gradients,
                                 vertex), ==, 0);
  double many[9];
  for (int k = 0; k < 9; k++)
    many[k] = 1.0 / 9;
  patch_init (&p, 9, many);
  g_assert_cmpuint (patch_split (&p.whole, p.gradients, p.geometries, 1, parts, gradients,
                                 vertex), ==, 0);
  g_assert_cmpuint (parts->len, ==, 0);
  const double eight[8] = { 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125 };
  patch_init (&p, 8, eight);
  g_assert_cmpuint (patch_split (&p.whole, p.gradients, p.geometries, 1, parts, gradients,
                                 vertex), ==, 8);
  g_assert_cmpuint (patch_split (&p.whole, p.gradients, p.geometries, 0, parts, gradients,
                                 vertex), ==, 4);
}

/* Each part has an identity of its own, which neither the pair's nor a cell's meets. */
static void
test_part_ids (void)
{
  guint64 pair = contact_id (3, 7, NULL);
  const int64_t cell[3] = { 0, 0, 0 };
  guint64 ids[4] = { contact_id_part (3, 7, 0), contact_id_part (3, 7, 1),
                     contact_id_part (3, 8, 0), contact_id (3, 7, cell) };
  for (int i = 0; i < 4; i++)
    {
      g_assert_cmpuint (ids[i], !=, 0);
      g_assert_cmpuint (ids[i], !=, pair);
      for (int j = i + 1; j < 4; j++)
        g_assert_cmpuint (ids[i], !=, ids[j]);
    }
  g_assert_cmpuint (contact_id_part (3, 7, 1), ==, ids[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/patch-split/parts-add-up", test_parts_add_up);
  g_test_add_func ("/ldi/patch-split/not-split", test_not_split);
  g_test_add_func ("/ldi/patch-split/part-ids", test_part_ids);
  return g_test_run ();
}

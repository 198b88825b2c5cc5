/* A small flat patch split at one body's vertices (plugins/contact-ldi/patch_split.c): the
 * parts' volumes and gradients add up to the whole's, each part holds its vertex's share of
 * the contact area at the whole's mean depth, a tilt deepens the parts on one side and
 * lightens the other, each part's gradient is balanced on its own between two moving bodies
 * (its forces and moments sum to zero: momentum is conserved), and a patch is not split where
 * neither side has two to eight vertices near it, or where a moving other body's vertices do
 * not span the tangent plane. Synthetic gradients: a 4 cm square box base (body 1) pressed
 * 1 mm into a ground or a plate (body 0), its four corners bounding unequal shares of the
 * patch. Sums of a handful of terms: 1e-15 relative to their size; the balances involve
 * lever arms of 1 m and the shifted entries: 1e-12. */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "contact_id.h"
#include "patch_split.h"
#include "volume_constraint.h"

#define AREA 0.0016
#define DEPTH 1e-3
#define ROUNDING 1e-15
#define BALANCE 1e-12

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

/* What patch_split wrote: its parts, their gradient entries, the side split and each part's
 * vertex. */
typedef struct Split {
  GArray *parts;       /* LdiVolume */
  GArray *gradients;   /* CwbPointWeight */
  uint32_t body, vertex[PATCH_SPLIT_MAX_PARTS];
} Split;

static void
split_init (Split *s)
{
  s->parts = g_array_new (FALSE, FALSE, sizeof (LdiVolume));
  s->gradients = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
}

static void
split_clear (Split *s)
{
  g_array_unref (s->parts);
  g_array_unref (s->gradients);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Split, split_clear)

/* Splits p's whole volume with `gradients` (p's own where NULL); returns the parts. */
static guint
split_patch (Split *s, const Patch *p, const CwbPointWeight *gradients, const gboolean fixed[2])
{
  return patch_split (&p->whole, gradients != NULL ? gradients : p->gradients, p->geometries,
                      fixed, s->parts, s->gradients, &s->body, s->vertex);
}

static void
test_parts_add_up (void)
{
  const double shares[4] = { 0.4, 0.3, 0.2, 0.1 };
  Patch p;
  patch_init (&p, 4, shares);
  g_auto (Split) split;
  split_init (&split);
  const gboolean ground_fixed[2] = { TRUE, FALSE };
  g_assert_cmpuint (split_patch (&split, &p, NULL, ground_fixed), ==, 4);
  g_assert_cmpuint (split.body, ==, 1);   /* the box's corners, not the ground's far ones */
  const CwbPointWeight *g = (const CwbPointWeight *) (void *) split.gradients->data;
  double volume = 0, ground_sum[4] = { 0 };
  for (guint k = 0; k < 4; k++)
    {
      const LdiVolume *part = &g_array_index (split.parts, LdiVolume, k);
      g_assert_cmpuint (split.vertex[k], ==, k);
      g_assert_cmpfloat (fabs (part->volume - AREA * DEPTH * shares[k]), <,
                         ROUNDING * AREA * DEPTH);
      volume += part->volume;
      /* The ground's four entries (scaled by the share and moved to the vertex), then the
       * part's own vertex. */
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
      const LdiVolume *part = &g_array_index (split.parts, LdiVolume, k);
      double change = 0;
      for (guint e = part->first_gradient; e < part->first_gradient + part->n_gradients; e++)
        if (g[e].geometry == 1)
          change += g[e].w[2] * 1e-4 * p.box_positions[3 * g[e].point];
      double x = p.box_positions[3 * k];
      if (fabs (x) > 1e-12)
        g_assert_cmpfloat (change * x, <, 0);
    }
}

/* A plate (body 0) moving too: its four corners at (+-0.1, +-0.1) weighted bilinearly so that
 * they bound the patch at the box side's centre, which makes the whole gradient balanced
 * (its entries sum to zero, and so do their moments: moving both bodies together changes no
 * volume). Each part is then balanced on its own, its plate entries moved to its vertex. */
static void
test_parts_balanced (void)
{
  const double shares[4] = { 0.4, 0.3, 0.2, 0.1 };
  Patch p;
  patch_init (&p, 4, shares);
  double centre[2] = { 0, 0 };
  for (guint k = 0; k < 4; k++)
    for (int c = 0; c < 2; c++)
      centre[c] += shares[k] * p.box_positions[3 * k + c];
  const double plate[12] = { -0.1, -0.1, 0, 0.1, -0.1, 0, 0.1, 0.1, 0, -0.1, 0.1, 0 };
  memcpy (p.ground_positions, plate, sizeof plate);
  double u = (centre[0] + 0.1) / 0.2, v = (centre[1] + 0.1) / 0.2;
  const double bilinear[4] = { (1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v };
  for (guint k = 0; k < 4; k++)
    p.gradients[k].w[2] = AREA * bilinear[k];
  g_auto (Split) split;
  split_init (&split);
  const gboolean none_fixed[2] = { FALSE, FALSE };
  g_assert_cmpuint (split_patch (&split, &p, NULL, none_fixed), ==, 4);
  const CwbPointWeight *g = (const CwbPointWeight *) (void *) split.gradients->data;
  double sum_whole[4][3] = { { 0 } };
  for (guint k = 0; k < 4; k++)
    {
      const LdiVolume *part = &g_array_index (split.parts, LdiVolume, k);
      double force[3] = { 0, 0, 0 }, moment[3] = { 0, 0, 0 };
      for (guint e = part->first_gradient; e < part->first_gradient + part->n_gradients; e++)
        {
          const double *x = &p.geometries[g[e].geometry].positions[3 * g[e].point];
          double m[3];
          cwb_v3_cross (m, x, g[e].w);
          cwb_v3_add (force, force, g[e].w);
          cwb_v3_add (moment, moment, m);
          if (g[e].geometry == 0)
            cwb_v3_add (sum_whole[g[e].point], sum_whole[g[e].point], g[e].w);
        }
      g_assert_cmpfloat (cwb_v3_norm (force), <, BALANCE * AREA);
      g_assert_cmpfloat (cwb_v3_norm (moment), <, BALANCE * AREA);
    }
  /* The plate's entries over the parts add up to the whole's. */
  for (guint j = 0; j < 4; j++)
    {
      double d[3];
      cwb_v3_sub (d, sum_whole[j], p.gradients[j].w);
      g_assert_cmpfloat (cwb_v3_norm (d), <, BALANCE * AREA);
    }
}

/* No side with two to eight vertices near the patch (one box vertex, nine; the ground's are
 * a metre away): no split; eight: split. A moving other body whose vertices do not span the
 * tangent plane (two of them): no split, while against a fixed one its entries are only
 * scaled. */
static void
test_not_split (void)
{
  g_auto (Split) split;
  split_init (&split);
  const gboolean ground_fixed[2] = { TRUE, FALSE }, none_fixed[2] = { FALSE, FALSE };
  Patch p;
  const double one[1] = { 1 };
  patch_init (&p, 1, one);
  g_assert_cmpuint (split_patch (&split, &p, NULL, ground_fixed), ==, 0);
  double many[9];
  for (int k = 0; k < 9; k++)
    many[k] = 1.0 / 9;
  patch_init (&p, 9, many);
  g_assert_cmpuint (split_patch (&split, &p, NULL, ground_fixed), ==, 0);
  g_assert_cmpuint (split.parts->len, ==, 0);
  const double eight[8] = { 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125 };
  patch_init (&p, 8, eight);
  g_assert_cmpuint (split_patch (&split, &p, NULL, ground_fixed), ==, 8);
  /* The ground's entries on two of its corners only: a line. */
  const double shares[4] = { 0.4, 0.3, 0.2, 0.1 };
  patch_init (&p, 4, shares);
  p.gradients[1] = p.gradients[0];
  p.gradients[1].point = 2;
  p.gradients[0].w[2] = p.gradients[1].w[2] = AREA / 2;
  CwbPointWeight line[6] = { p.gradients[0], p.gradients[1], p.gradients[4], p.gradients[5],
                             p.gradients[6], p.gradients[7] };
  p.whole.n_gradients = 6;
  g_assert_cmpuint (split_patch (&split, &p, line, none_fixed), ==, 0);
  g_assert_cmpuint (split_patch (&split, &p, line, ground_fixed), ==, 4);
}

/* Each part has an identity of its own, which neither the pair's nor a cell's meets. */
static void
test_part_ids (void)
{
  guint64 pair = contact_id (3, 7, NULL);
  const int64_t cell[3] = { 0, 0, 0 };
  guint64 ids[5] = { contact_id_part (3, 7, 7, 0), contact_id_part (3, 7, 7, 1),
                     contact_id_part (3, 7, 3, 0), contact_id_part (3, 8, 8, 0),
                     contact_id (3, 7, cell) };
  for (int i = 0; i < 5; i++)
    {
      g_assert_cmpuint (ids[i], !=, 0);
      g_assert_cmpuint (ids[i], !=, pair);
      for (int j = i + 1; j < 5; j++)
        g_assert_cmpuint (ids[i], !=, ids[j]);
    }
  g_assert_cmpuint (contact_id_part (3, 7, 7, 1), ==, ids[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/patch-split/parts-add-up", test_parts_add_up);
  g_test_add_func ("/ldi/patch-split/parts-balanced", test_parts_balanced);
  g_test_add_func ("/ldi/patch-split/not-split", test_not_split);
  g_test_add_func ("/ldi/patch-split/part-ids", test_part_ids);
  return g_test_run ();
}

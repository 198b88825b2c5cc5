/* A small flat patch split at one body's vertices (patch_split.h).
 *
 * One volume's pressure acts through its patch's centre, and the volume of a flat patch does
 * not change to first order when a body tilts about that centre, so one volume holds no
 * tilt: a ball resting on one of its facets, inside one cell, rocks (docs/plugins/ldi.md). A
 * patch's gradient says how much of it each vertex bounds: A_k = n . dV/dp_k is the area of
 * vertex k's share projected on the tangent plane (Allard 2010 eq. 20), and one body's A_k
 * sum to the contact area A. So the patch is split into one part per vertex k, with area, of
 * the body whose such vertices lie closest together, and within twice sqrt A of their centre
 * (the patch's own facet, not a large face's far corners): part k is a volume of its own,
 *
 *   V_k = V s_k (s_k = A_k / A, its share),   dV_k/dp = its own entry dV/dp_k, and the
 *   other body's entries w_j times s_k, moved to act at p_k: s_k (w_j + alpha_j W),
 *
 * W = sum_j w_j the other body's net entry, alpha_j = beta . (v_j - v_mean) over the other
 * body's entry vertices v_j with beta in the tangent plane such that sum_j alpha_j v_j is
 * p_k - c in that plane (c = sum_k s_k p_k, the split side's centre): sum_j alpha_j = 0, so
 * the part's force on the other body is still s_k W per unit, and its moment is that force
 * at p_k instead of at the patch's centre, which balances the split side's (a rigid other
 * body's motion changes the part's volume as it would at p_k). The shifts sum to zero over
 * the parts (sum_k s_k (p_k - c) = 0), so the parts' volumes and gradients add up to the
 * whole's, and each part's mean depth V_k / A_k is the whole's: at rest they push as the one
 * volume did. A tilt deepens the parts on one side and lightens the others, the restoring
 * torque a pressure spread over the patch gives. Where the other body's entry vertices do not
 * span the tangent plane the shift cannot be made: against a fixed body (which takes no
 * force) its entries are only scaled, between two moving bodies the patch stays whole. */
#include "patch_split.h"

#include <math.h>

#include "volume_constraint.h"

/* A side is split only while its vertices with area lie within this many times the side of
 * the patch's area (sqrt A) of their centre: the patch's own facet, not a large face's far
 * corners, whose parts would put the patch's pressure a body's size away. */
#define LOCAL_SPREAD 2.0
/* A side is split only where its patch is flat: each vertex's gradient within this cosine
 * (5 degrees) of the normal. A curved patch (a torus across a torus) holds a tilt as one
 * volume already, its volume changing to first order when it tilts, and splitting it
 * changed the torus stack's rest for nothing (docs/plugins/ldi.md). */
#define FLAT_COSINE 0.9962
/* The other body's entry vertices span the tangent plane when the determinant of their
 * spread in it is above this share of its trace squared (an aspect ratio of about 1e-3). */
#define SPAN_SHARE 1e-6

/* One body's vertices with area in the whole's entries. */
typedef struct SplitSide {
  uint32_t entry[PATCH_SPLIT_MAX_PARTS];   /* indices into the whole's entries */
  double share[PATCH_SPLIT_MAX_PARTS];
  guint n;
  double centre[3];
  double spread;                           /* the largest distance of a vertex from centre */
} SplitSide;

static const double *
position (const CwbGeometry *geometries, const CwbPointWeight *entry)
{
  return &geometries[entry->geometry].positions[3 * entry->point];
}

/* The vertices of `body` with area; FALSE where fewer than two or more than the most, or
 * where the patch is not flat on that side. */
static gboolean
split_side (const CwbPointWeight *grad, uint32_t n_grad, const CwbGeometry *geometries,
            uint32_t body, const double normal[3], SplitSide *side)
{
  side->n = 0;
  double total = 0;
  for (uint32_t k = 0; k < n_grad; k++)
    {
      if (geometries[grad[k].geometry].body != body)
        continue;
      double area_k = fabs (cwb_v3_dot (normal, grad[k].w));
      if (!(area_k > 0))
        continue;
      if (area_k < FLAT_COSINE * cwb_v3_norm (grad[k].w))
        return FALSE;
      if (side->n == PATCH_SPLIT_MAX_PARTS)
        return FALSE;
      side->entry[side->n] = k;
      side->share[side->n++] = area_k;
      total += area_k;
    }
  if (side->n < 2)
    return FALSE;
  cwb_v3_set (side->centre, 0, 0, 0);
  for (guint p = 0; p < side->n; p++)
    {
      side->share[p] /= total;
      cwb_v3_axpy (side->centre, side->share[p], position (geometries, &grad[side->entry[p]]));
    }
  side->spread = 0;
  for (guint p = 0; p < side->n; p++)
    {
      double d[3];
      cwb_v3_sub (d, position (geometries, &grad[side->entry[p]]), side->centre);
      side->spread = MAX (side->spread, cwb_v3_norm (d));
    }
  return TRUE;
}

/* For the other body's entries (those of grad not on `split_body`): their mean vertex, net
 * entry W and the inverse of their vertices' spread in the tangent plane (t1, t2). FALSE
 * where they do not span it. */
typedef struct OtherSide {
  double mean[3], net[3];
  double t1[3], t2[3];
  double inverse[4];       /* 2 x 2, row-major */
} OtherSide;

static gboolean
other_side (const CwbPointWeight *grad, uint32_t n_grad, const CwbGeometry *geometries,
            uint32_t split_body, const double normal[3], OtherSide *o)
{
  cwb_v3_set (o->mean, 0, 0, 0);
  cwb_v3_set (o->net, 0, 0, 0);
  guint n = 0;
  for (uint32_t k = 0; k < n_grad; k++)
    if (geometries[grad[k].geometry].body != split_body)
      {
        cwb_v3_add (o->mean, o->mean, position (geometries, &grad[k]));
        cwb_v3_add (o->net, o->net, grad[k].w);
        n++;
      }
  if (n == 0)
    return FALSE;
  cwb_v3_scale (o->mean, o->mean, 1.0 / n);
  cwb_v3_tangents (normal, o->t1, o->t2);
  double s[4] = { 0, 0, 0, 0 };
  for (uint32_t k = 0; k < n_grad; k++)
    if (geometries[grad[k].geometry].body != split_body)
      {
        double d[3];
        cwb_v3_sub (d, position (geometries, &grad[k]), o->mean);
        double a = cwb_v3_dot (d, o->t1), b = cwb_v3_dot (d, o->t2);
        s[0] += a * a;
        s[1] += a * b;
        s[3] += b * b;
      }
  s[2] = s[1];
  double det = s[0] * s[3] - s[1] * s[2], trace = s[0] + s[3];
  if (!(det > SPAN_SHARE * trace * trace))
    return FALSE;
  o->inverse[0] = s[3] / det;
  o->inverse[1] = -s[1] / det;
  o->inverse[2] = -s[2] / det;
  o->inverse[3] = s[0] / det;
  return TRUE;
}

guint
patch_split (const LdiVolume *whole, const CwbPointWeight *gradients,
             const CwbGeometry *geometries, const gboolean *body_fixed, GArray *parts,
             GArray *part_gradients, uint32_t *split_body_out, uint32_t *vertex_of_part)
{
  g_array_set_size (parts, 0);
  g_array_set_size (part_gradients, 0);
  double normal[3];
  double area = volume_constraint_normal (whole, gradients, geometries, normal);
  if (!(area > 0))
    return 0;
  const CwbPointWeight *grad = gradients + whole->first_gradient;
  uint32_t n_grad = whole->n_gradients;
  /* The side to split: of those whose vertices with area lie within the patch's reach, the
   * one whose vertices lie closest together. */
  SplitSide sides[2];
  double local = LOCAL_SPREAD * sqrt (area);
  gboolean ok_a = split_side (grad, n_grad, geometries, whole->body_a, normal, &sides[0])
                  && sides[0].spread <= local;
  gboolean ok_b = split_side (grad, n_grad, geometries, whole->body_b, normal, &sides[1])
                  && sides[1].spread <= local;
  if (!ok_a && !ok_b)
    return 0;
  int at = !ok_a || (ok_b && sides[1].spread < sides[0].spread) ? 1 : 0;
  const SplitSide *side = &sides[at];
  uint32_t split_body = at == 0 ? whole->body_a : whole->body_b;
  uint32_t other_body = at == 0 ? whole->body_b : whole->body_a;
  OtherSide other;
  gboolean shifted = other_side (grad, n_grad, geometries, split_body, normal, &other);
  if (!shifted && !(body_fixed != NULL && body_fixed[other_body]))
    return 0;
  for (guint p = 0; p < side->n; p++)
    {
      double share = side->share[p];
      /* beta: the tangent-plane vector with sum_j alpha_j v_j = (p_k - c) in the plane. */
      double beta[3] = { 0, 0, 0 };
      if (shifted)
        {
          double d[3];
          cwb_v3_sub (d, position (geometries, &grad[side->entry[p]]), side->centre);
          double a = cwb_v3_dot (d, other.t1), b = cwb_v3_dot (d, other.t2);
          cwb_v3_axpy (beta, other.inverse[0] * a + other.inverse[1] * b, other.t1);
          cwb_v3_axpy (beta, other.inverse[2] * a + other.inverse[3] * b, other.t2);
        }
      LdiVolume part = *whole;
      part.volume = whole->volume * share;
      for (int c = 0; c < 3; c++)
        part.axis_volume[c] = whole->axis_volume[c] * share;
      part.first_gradient = part_gradients->len;
      /* The entries in the whole's order (sorted by geometry, then point). */
      for (uint32_t k = 0; k < n_grad; k++)
        {
          CwbPointWeight entry = grad[k];
          if (geometries[entry.geometry].body == split_body)
            {
              if (k != side->entry[p])
                continue;
            }
          else
            {
              if (shifted)
                {
                  double d[3];
                  cwb_v3_sub (d, position (geometries, &entry), other.mean);
                  cwb_v3_axpy (entry.w, cwb_v3_dot (beta, d), other.net);
                }
              cwb_v3_scale (entry.w, entry.w, share);
            }
          g_array_append_val (part_gradients, entry);
        }
      part.n_gradients = part_gradients->len - part.first_gradient;
      g_array_append_val (parts, part);
      vertex_of_part[p] = grad[side->entry[p]].point;
    }
  *split_body_out = split_body;
  return side->n;
}

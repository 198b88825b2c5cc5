/* An intersection volume as a contact (Allard 2010 sec. 4).
 *
 * The volume V of bodies a and b with its gradient dV/dp_k on their surface vertices
 * (eq. 13-14) becomes:
 *
 *   normal   n = (sum_{k in b} dV/dp_k - sum_{k in a} dV/dp_k) normalised: the summed
 *            repulsion directions (sec. 4.2). Moving a vertex of a towards b deepens the
 *            intersection, so a's gradients point along -n and b's along +n; n points from b
 *            towards a, as contact.h wants, and taking both sums makes it symmetric.
 *   tangents t1, t2 completing n (Gram-Schmidt against a reference axis, cwb_v3_tangents).
 *   areas    A_k = n . dV/dp_k (eq. 20), the area of vertex k's surface projected on the
 *            tangent plane, signed by the side it bounds; the contact area A is the sum of
 *            the positive ones (sec. 4.3), the surface C- of fig. 4.
 *   centre   sum |A_k| p_k / sum |A_k|, both surfaces' barycentre (sec. 4.2).
 *
 * The rows are Allard's, divided by the positive constant A (taken at detection, not
 * differentiated):
 *
 *   normal   g = -V / A, weights -dV/dp_k / A (eq. 16-19 with g = -V): the mean depth of the
 *            intersection, in metres, so that the solver's tolerances and the stabilization
 *            target mean the same as for point contacts; its multiplier is A rho (rho the
 *            pressure of eq. 16), the force.
 *   tolerance  eps_V / A = the target depth (sec. 4.3: eps_V regulated from the estimated
 *            contact area so that the mean depth stays about half a pixel).
 *   tangents weights -A_k t / A for t = t1, t2 (eq. 21's T; its -t rows are the solver's
 *            negative multipliers): minus the area-weighted relative tangential velocity of
 *            eq. 20, whose multiplier is the friction force. The minus sign makes a's weights
 *            sum to +t (A_k < 0 on a), as a point contact's do, so the host reads the frame's
 *            force on a with the same sign for both kinds.
 *
 * Scaling every row of a contact by the same positive constant changes neither the MLCP's
 * solution (displacements) nor which forces are in the Coulomb set (both scale by A). */
#include <math.h>

#include "volume_constraint.h"

static void
append_row (CwbContactSet *set, CwbRowKind kind, uint32_t frame, const LdiVolume *volume,
            const CwbPointWeight *gradients, const double *coefficient, const double *direction,
            double violation, double tolerance)
{
  CwbConstraintRow row = {
    .kind = kind,
    .frame = frame,
    .first_weight = set->weights->len,
    .violation = violation,
    .tolerance = tolerance,
  };
  for (uint32_t k = 0; k < volume->n_gradients; k++)
    {
      const CwbPointWeight *g = &gradients[volume->first_gradient + k];
      CwbPointWeight w = { .geometry = g->geometry, .point = g->point };
      if (direction == NULL)          /* the normal row: -dV/dp_k / A */
        cwb_v3_scale (w.w, g->w, coefficient[k]);
      else if (coefficient[k] != 0)   /* a tangent row: -A_k t / A */
        cwb_v3_scale (w.w, direction, coefficient[k]);
      else
        continue;
      g_array_append_val (set->weights, w);
    }
  row.n_weights = set->weights->len - row.first_weight;
  g_array_append_val (set->rows, row);
}

gboolean
volume_constraint_append (CwbContactSet *set, const LdiVolume *volume,
                          const CwbPointWeight *gradients, const CwbGeometry *geometries,
                          const VolumeConstraintParams *params)
{
  const CwbPointWeight *grad = gradients + volume->first_gradient;
  uint32_t n = volume->n_gradients;
  double normal[3] = { 0, 0, 0 };
  for (uint32_t k = 0; k < n; k++)
    {
      double side = geometries[grad[k].geometry].body == volume->body_a ? -1 : 1;
      cwb_v3_axpy (normal, side, grad[k].w);
    }
  if (!(cwb_v3_normalize (normal) > 0) || !(volume->volume > 0))
    return FALSE;

  g_autofree double *area_k = g_new (double, MAX (n, 1));
  double area = 0, weight = 0, centre[3] = { 0, 0, 0 };
  for (uint32_t k = 0; k < n; k++)
    {
      area_k[k] = cwb_v3_dot (normal, grad[k].w);   /* eq. 20 */
      area += MAX (area_k[k], 0);
      weight += fabs (area_k[k]);
      const double *p = &geometries[grad[k].geometry].positions[3 * grad[k].point];
      cwb_v3_axpy (centre, fabs (area_k[k]), p);
    }
  if (!(area > 0))
    return FALSE;
  cwb_v3_scale (centre, centre, 1.0 / weight);
  double depth = volume->volume / area;

  uint32_t frame_index = set->frames->len;
  CwbContactFrame frame = {
    .mu = params->mu,
    .body_a = volume->body_a,
    .body_b = volume->body_b,
    .first_row = set->rows->len,
    .n_rows = params->friction ? 3 : 1,
    .gap = -depth,
    .volume = volume->volume,
    .area = area,
  };
  cwb_v3_copy (frame.origin, centre);
  cwb_v3_copy (frame.normal, normal);
  cwb_v3_tangents (frame.normal, frame.t1, frame.t2);
  g_array_append_val (set->frames, frame);

  /* The normal row's coefficient of dV/dp_k is -1/A for every vertex; the tangent rows'
   * coefficients of t are -A_k / A. */
  g_autofree double *coefficient = g_new (double, MAX (n, 1));
  for (uint32_t k = 0; k < n; k++)
    coefficient[k] = -1.0 / area;
  append_row (set, CWB_ROW_NORMAL, frame_index, volume, gradients, coefficient, NULL, -depth,
              params->target_depth);
  if (!params->friction)
    return TRUE;
  for (uint32_t k = 0; k < n; k++)
    coefficient[k] = -area_k[k] / area;
  append_row (set, CWB_ROW_TANGENT, frame_index, volume, gradients, coefficient, frame.t1, 0, 0);
  append_row (set, CWB_ROW_TANGENT, frame_index, volume, gradients, coefficient, frame.t2, 0, 0);
  return TRUE;
}

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
 *            tangent plane, signed by the side it bounds. The contact area A is b's net
 *            projected area n . sum_{k in b} dV/dp_k, half the length of the sum above (the
 *            gradient cancels over both bodies interval by interval). Sec. 4.3 sums the
 *            positive A_k, which is the same when every A_k of b is positive and every one of
 *            a negative (a contact surface C+ over C-, fig. 4); where a body also bounds
 *            intervals with its own faces (a ray crossing it inside the other), their
 *            contributions cancel in its net area but not in a sum of the positive parts.
 *            With the net area the rows below move each body by exactly the frame's force:
 *            the sum of b's normal weights is -n, of its tangent weights -t.
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

/* Fraction of the summed lengths of the gradient entries below which their signed sum is
 * cancellation, not a contact normal (volume_constraint_append): contacts measure near 1,
 * the slivers it refuses 1e-8 and below. */
#define NORMAL_CANCELLATION 1e-3
/* A cell whose normal turns from its pair's by more than this cosine (60 degrees) through
 * less than a pixel's area is the alias of the pair's contact layer seen edge on: a cell
 * that holds a strip of the layer narrower than a pixel (boxes' coplanar side faces a few
 * millimetres past a cell wall) has no pixel centre of the face-on image inside it, while
 * the rays of an image along the layer that run inside it cross the whole strip, bounded by
 * the side faces, whose gradient it gets. A flush box pyramid under ldi measured such cells
 * 0.03 to 1 m deep through 0.004 to 0.5 of a pixel in 0.25 m cells, and came apart pushing on
 * them (/swap/box-pyramid.yaml). A contact the images resolve covers a pixel at least. */
#define ALIAS_TURN_COSINE 0.5
/* The deepest a cell's part of an intersection can be along its normal: the cell's diagonal,
 * sqrt 3 times its edge. A cell whose mean depth V / A exceeds it measured its area through
 * less than the raster resolves: the flush box pyramid swapped from proximity into ldi had a
 * 0.25 m cell holding 0.26 voxels of volume through 4e-5 of a pixel's area, its normal along
 * the pair's, 217 m deep; the deepest cells of the scenes' contacts measure a few pixels
 * (the torus stack's thinnest, 3 pixels through 0.03 of a pixel's area). */
#define CELL_DEPTH_OF_EDGE 1.7320508075688772

/* One row over the volume's gradient entries grad[0 .. n - 1]: with direction NULL the
 * normal row, weights -dV/dp_k / A; otherwise a tangent row along direction, weights
 * -A_k t / A with A_k = n . dV/dp_k (eq. 20-21; vertices with A_k = 0 carry nothing). */
static void
append_row (CwbContactSet *set, CwbRowKind kind, uint32_t frame, const CwbPointWeight *grad,
            uint32_t n, const double normal[3], double area, const double *direction,
            double violation, double tolerance)
{
  CwbConstraintRow row = {
    .kind = kind,
    .frame = frame,
    .first_weight = set->weights->len,
    .violation = violation,
    .tolerance = tolerance,
  };
  for (uint32_t k = 0; k < n; k++)
    {
      CwbPointWeight w = { .geometry = grad[k].geometry, .point = grad[k].point };
      if (direction == NULL)
        cwb_v3_scale (w.w, grad[k].w, -1.0 / area);
      else
        {
          double coefficient = -cwb_v3_dot (normal, grad[k].w) / area;
          if (coefficient == 0)
            continue;
          cwb_v3_scale (w.w, direction, coefficient);
        }
      g_array_append_val (set->weights, w);
    }
  row.n_weights = set->weights->len - row.first_weight;
  g_array_append_val (set->rows, row);
}

double
volume_constraint_normal (const LdiVolume *volume, const CwbPointWeight *gradients,
                          const CwbGeometry *geometries, double normal[3])
{
  const CwbPointWeight *grad = gradients + volume->first_gradient;
  double magnitudes = 0;
  cwb_v3_set (normal, 0, 0, 0);
  for (uint32_t k = 0; k < volume->n_gradients; k++)
    {
      double side = geometries[grad[k].geometry].body == volume->body_a ? -1 : 1;
      cwb_v3_axpy (normal, side, grad[k].w);
      magnitudes += cwb_v3_norm (grad[k].w);
    }
  /* The two surfaces' repulsions add up in the sum, so that its length, twice the contact
   * area, is about the sum of the entries' lengths (equal for a flat patch, above half of it
   * for any cap less than a hemisphere). A sum that cancels to a small fraction of them is
   * no normal: a sliver of a cell whose intervals all run between one body's own faces (a
   * box's corner poking into the next column of cells by less than a pixel, seen only by an
   * image along the ground), whose gradient on that body is round-off. Its row would ask
   * for a depth no motion removes. */
  double twice_area = cwb_v3_normalize (normal);
  return twice_area > NORMAL_CANCELLATION * magnitudes ? twice_area / 2 : 0;
}

gboolean
volume_constraint_append (CwbContactSet *set, const LdiVolume *volume,
                          const CwbPointWeight *gradients, const CwbGeometry *geometries,
                          const VolumeConstraintParams *params)
{
  const CwbPointWeight *grad = gradients + volume->first_gradient;
  uint32_t n = volume->n_gradients;
  double normal[3];
  double area = volume_constraint_normal (volume, gradients, geometries, normal);
  if (!(area > 0) || !(volume->volume > 0))
    return FALSE;
  if (params->pair_normal != NULL && area < params->pixel_area
      && fabs (cwb_v3_dot (normal, params->pair_normal)) < ALIAS_TURN_COSINE)
    return FALSE;
  if (params->cell_size > 0 && volume->volume > CELL_DEPTH_OF_EDGE * params->cell_size * area)
    return FALSE;

  double weight = 0, centre[3] = { 0, 0, 0 };
  for (uint32_t k = 0; k < n; k++)
    {
      double area_k = cwb_v3_dot (normal, grad[k].w);   /* eq. 20 */
      weight += fabs (area_k);
      const double *p = &geometries[grad[k].geometry].positions[3 * grad[k].point];
      cwb_v3_axpy (centre, fabs (area_k), p);
    }
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

  append_row (set, CWB_ROW_NORMAL, frame_index, grad, n, normal, area, NULL, -depth,
              params->target_depth);
  if (!params->friction)
    return TRUE;
  append_row (set, CWB_ROW_TANGENT, frame_index, grad, n, normal, area, frame.t1, 0, 0);
  append_row (set, CWB_ROW_TANGENT, frame_index, grad, n, normal, area, frame.t2, 0, 0);
  return TRUE;
}

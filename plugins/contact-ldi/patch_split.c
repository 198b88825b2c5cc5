/* A small flat patch split at the moving body's vertices (patch_split.h).
 *
 * One volume's pressure acts through its patch's centre, and the volume of a flat patch does
 * not change to first order when a body tilts about that centre, so one volume holds no
 * tilt: a ball resting on one of its facets, inside one cell, rocks (docs/plugins/ldi.md). A
 * patch's gradient says how much of it each vertex bounds: A_k = n . dV/dp_k is the area of
 * vertex k's share projected on the tangent plane (Allard 2010 eq. 20), and the moving
 * body's A_k sum to the contact area A. So the patch is split into one part per vertex k of
 * the moving body with area, each a volume of its own:
 *
 *   V_k = V A_k / A,   dV_k/dp = its own entry dV/dp_k, and the fixed body's entries times
 *   A_k / A.
 *
 * The parts' volumes and gradients sum to the whole's, and each part's mean depth V_k / A_k
 * is the whole's V / A: at rest they push as the one volume did, together. A tilt deepens
 * the parts on one side by dV/dp_k . dp_k and lightens the others, the restoring torque a
 * pressure spread over the patch gives. Only against a fixed body: the other body's entries
 * lie on its own vertices, far from the patch for a large face, and scaled by a share they
 * would take each part's force through the patch's centre on that side while the moving side
 * takes it at the vertex; the pair's torques would not balance. A fixed body takes no force.
 */
#include "patch_split.h"

#include <math.h>

#include "volume_constraint.h"

guint
patch_split (const LdiVolume *whole, const CwbPointWeight *gradients,
             const CwbGeometry *geometries, uint32_t moving_body, GArray *parts,
             GArray *part_gradients, uint32_t *vertex_of_part)
{
  g_array_set_size (parts, 0);
  g_array_set_size (part_gradients, 0);
  double normal[3];
  double area = volume_constraint_normal (whole, gradients, geometries, normal);
  if (!(area > 0))
    return 0;
  const CwbPointWeight *grad = gradients + whole->first_gradient;
  /* The moving body's vertices with area, and their areas. */
  uint32_t moving[PATCH_SPLIT_MAX_PARTS];
  double share[PATCH_SPLIT_MAX_PARTS];
  guint n_parts = 0;
  double moving_area = 0;
  for (uint32_t k = 0; k < whole->n_gradients; k++)
    {
      if (geometries[grad[k].geometry].body != moving_body)
        continue;
      double area_k = fabs (cwb_v3_dot (normal, grad[k].w));
      if (!(area_k > 0))
        continue;
      if (n_parts == PATCH_SPLIT_MAX_PARTS)
        return 0;
      moving[n_parts] = k;
      share[n_parts++] = area_k;
      moving_area += area_k;
    }
  if (n_parts < 2)
    return 0;
  for (guint p = 0; p < n_parts; p++)
    {
      share[p] /= moving_area;
      LdiVolume part = *whole;
      part.volume = whole->volume * share[p];
      for (int c = 0; c < 3; c++)
        part.axis_volume[c] = whole->axis_volume[c] * share[p];
      part.first_gradient = part_gradients->len;
      /* The entries in the whole's order (sorted by geometry, then point). */
      for (uint32_t k = 0; k < whole->n_gradients; k++)
        {
          CwbPointWeight entry = grad[k];
          if (geometries[entry.geometry].body == moving_body)
            {
              if (k != moving[p])
                continue;
            }
          else
            cwb_v3_scale (entry.w, entry.w, share[p]);
          g_array_append_val (part_gradients, entry);
        }
      part.n_gradients = part_gradients->len - part.first_gradient;
      g_array_append_val (parts, part);
      vertex_of_part[p] = grad[moving[p]].point;
    }
  return n_parts;
}

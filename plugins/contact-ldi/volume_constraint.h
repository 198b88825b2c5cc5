/* One intersection volume (a body pair's, or one multi-volume cell's) as a contact: its frame
 * and its constraint rows (Allard 2010 sec. 4.1-4.3), appended to a contact set. */
#pragma once

#include <cwb/cwb.h>

#include "intersection_volume.h"

G_BEGIN_DECLS

typedef struct VolumeConstraintParams {
  double target_depth;     /* mean intersection depth post-stabilization keeps, m (sec. 4.3) */
  gboolean friction;       /* add the two tangent rows of eq. 21 (velocity pass, mu > 0) */
  double mu;               /* Coulomb coefficient of the pair */
  /* For a cell: its pair's contact normal (NULL for a pair's whole volume) and the area of
   * a pixel of the LDI that measured it; a cell whose normal turns away from the pair's
   * through less than a pixel's area is an alias, not a contact (volume_constraint.c). */
  const double *pair_normal;
  double pixel_area;
  /* For a cell: its edge, m (0 for a pair's whole volume); a cell whose mean depth V / A
   * exceeds its own diagonal is not a contact measured in it (volume_constraint.c). */
  double cell_size;
} VolumeConstraintParams;

/* The contact normal of `volume` (the unit signed sum of its gradient entries, body_a's
 * taken negative) and its area A, m^2, half the sum's length (Allard 2010 eq. 20); 0, with
 * normal undefined, where the sum cancels to round-off. */
double volume_constraint_normal (const LdiVolume *volume, const CwbPointWeight *gradients,
                                 const CwbGeometry *geometries, double normal[3]);

/* Appends the frame of `volume` and its rows to `set`: the normal row, then, with friction,
 * the tangent rows along t1 and t2. `gradients` are the volume's dV/dp_k entries (geometry,
 * point, w = dV/dp_k; LdiVolumeResult), `geometries` the world's, to tell the two bodies'
 * vertices apart. Returns FALSE, appending nothing, when the volume has no usable normal or
 * area (a volume of a few fragments whose gradients cancel), or is a cell aliasing its
 * pair's contact layer (params->pair_normal). */
gboolean volume_constraint_append (CwbContactSet *set, const LdiVolume *volume,
                                   const CwbPointWeight *gradients,
                                   const CwbGeometry *geometries,
                                   const VolumeConstraintParams *params);

G_END_DECLS

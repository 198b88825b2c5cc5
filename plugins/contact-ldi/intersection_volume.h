/* Intersection volumes of the bodies in an LDI and their gradients with respect to the
 * surface vertices (Allard 2010 eq. 11-14), per pair of bodies and, for the multi-volume
 * model (sec. 5, eq. 22-24), per pair and grid cell. */
#pragma once

#include "ldi.h"

G_BEGIN_DECLS

/* How an interval's bounding fragments make the gradient (see intersection_volume.c).
 *   AXIS:   Allard 2010 eq. 12-14: image c gives the c components only, a b_k e_c per
 *           fragment; the exact derivative of each image's volume along its own axis.
 *   NORMAL: every image gives all three components, a b_k u u_c per fragment, u the unit
 *           mean normal of the interval's two bounding surfaces, so u u_c summed over the
 *           three images is u (sum of u_c^2 = 1): each face is measured mostly by the image
 *           that sees it face on, and a contact patch seen edge on by one image (a few pixel
 *           rows) no longer makes that component jump by a row's worth. Only where the
 *           bounds are nearly parallel (within 5 degrees); others keep e_c. */
typedef enum LdiGradientMode {
  LDI_GRADIENT_AXIS = 0,
  LDI_GRADIENT_NORMAL = 1,
} LdiGradientMode;

typedef struct LdiVolumeParams {
  double cell_size;        /* > 0: also split the volumes into cubic cells of this side, on a
                            * grid starting at the LDI's box_min (sec. 5); 0: pairs only */
  gboolean want_spans;     /* collect every intersection interval as a CwbInspectSpan */
  guint n_threads;         /* 0: one per processor; the result does not depend on it */
  LdiGradientMode gradient;
} LdiVolumeParams;

/* The intersection volume of one pair of bodies, or of one pair in one cell. */
typedef struct LdiVolume {
  uint32_t body_a, body_b; /* body_a <= body_b; equal for a self-intersection (where the body's
                            * inside counter is >= 2) */
  int32_t cell[3];         /* the cell (ix, iy, iz): [box_min + ix s, box_min + (ix + 1) s) ...;
                            * 0, 0, 0 for a pair's whole volume */
  double volume;           /* mean of the three axes' volumes (sec. 3.2: accumulated three
                            * times and corrected by 1/3); with LDI_GRADIENT_NORMAL their mean
                            * weighted by each image's share of the gradient (the volume that
                            * gradient is the derivative of, intersection_volume.c) */
  double axis_volume[3];   /* eq. 11 with the x, y and z images */
  uint32_t first_gradient, n_gradients;   /* the entries of dV/dp in the result's gradient
                            * array (pair_gradients or cell_gradients) */
} LdiVolume;

/* Everything the intersection pass produces. Gradient entries are CwbPointWeight
 * (geometry = LdiSurface.geometry, point = vertex, w = dV/dp_k, eq. 13-14), one per vertex
 * with a non-zero gradient, sorted by (geometry, point) within each volume. With
 * LDI_GRADIENT_AXIS component c of dV/dp_k comes from the image along axis c alone (eq. 12);
 * with LDI_GRADIENT_NORMAL from all three. */
typedef struct LdiVolumeResult {
  GArray *pairs;           /* LdiVolume, sorted by (body_a, body_b) */
  GArray *pair_gradients;  /* CwbPointWeight */
  GArray *cells;           /* LdiVolume, sorted by (body_a, body_b, cell); empty without
                            * cell_size */
  GArray *cell_gradients;  /* CwbPointWeight */
  GArray *spans;           /* CwbInspectSpan, image x then y then z, pixel by pixel, in depth
                            * order; NULL without want_spans */
} LdiVolumeResult;

/* Walks the sorted fragments of the three images of `ldi`, filled from `surfaces` (the same
 * array, in the same order). */
LdiVolumeResult *ldi_intersection_volume (const Ldi *ldi, const LdiSurface *surfaces,
                                          size_t n_surfaces, const LdiVolumeParams *params);
void ldi_volume_result_free (LdiVolumeResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LdiVolumeResult, ldi_volume_result_free)

/* The volume of the pair (a, b) in either order, or NULL when they do not intersect. */
const LdiVolume *ldi_volume_result_pair (const LdiVolumeResult *result, uint32_t body_a,
                                         uint32_t body_b);

/* The box of a multi-volume cell. */
void ldi_cell_bounds (const Ldi *ldi, double cell_size, const int32_t cell[3], double min[3],
                      double max[3]);

G_END_DECLS

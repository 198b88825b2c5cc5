/* A small flat patch, kept as one volume, split into parts at the moving body's vertices so
 * that it holds a tilt (see patch_split.c). */
#pragma once

#include <cwb/cwb.h>

#include "intersection_volume.h"

G_BEGIN_DECLS

/* The most parts a patch is split into: a patch whose moving side has more vertices with
 * area stays one volume. */
#define PATCH_SPLIT_MAX_PARTS 8

/* Splits `whole` (its gradient entries in `gradients`, Allard 2010 eq. 13-14) between the
 * vertices of `moving_body`, the other body being fixed: part k gets that body's vertex
 * vertex_of_part[k] (its point index) with its entry, the fixed body's entries scaled by the
 * vertex's share of the contact area, and that share of the volume. Writes the parts to
 * `parts` (LdiVolume, first_gradient into `part_gradients`, both arrays emptied first) and
 * returns how many; 0 where it does not split (fewer than two vertices with area, more
 * than PATCH_SPLIT_MAX_PARTS, or no contact normal). */
guint patch_split (const LdiVolume *whole, const CwbPointWeight *gradients,
                   const CwbGeometry *geometries, uint32_t moving_body, GArray *parts,
                   GArray *part_gradients, uint32_t *vertex_of_part);

G_END_DECLS

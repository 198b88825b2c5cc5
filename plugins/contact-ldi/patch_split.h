/* A small flat patch, kept as one volume, split into parts at one body's vertices so that it
 * holds a tilt (see patch_split.c). */
#pragma once

#include <cwb/cwb.h>

#include "intersection_volume.h"

G_BEGIN_DECLS

/* The most parts a patch is split into: a patch whose sides both have more vertices with
 * area stays one volume (a fine mesh has cells of its own to spread over). */
#define PATCH_SPLIT_MAX_PARTS 8

/* Splits `whole` (its gradient entries in `gradients`, Allard 2010 eq. 13-14) between the
 * vertices with area of one of its bodies (the one whose such vertices lie closest together,
 * within reach of the patch): part k gets that body's (*split_body) vertex vertex_of_part[k]
 * (its point index) with its entry, that vertex's share of the contact area and of the volume, and the
 * other body's entries scaled by the share and moved to act at the vertex (patch_split.c).
 * Writes the parts to `parts` (LdiVolume, first_gradient into `part_gradients`, both arrays
 * emptied first) and returns how many; 0 where it does not split: no side with two to
 * PATCH_SPLIT_MAX_PARTS vertices with area within reach, no contact normal, or the other
 * body's vertices not spanning the tangent plane while it moves (`body_fixed` per body, may
 * be NULL). */
guint patch_split (const LdiVolume *whole, const CwbPointWeight *gradients,
                   const CwbGeometry *geometries, const gboolean *body_fixed, GArray *parts,
                   GArray *part_gradients, uint32_t *split_body, uint32_t *vertex_of_part);

G_END_DECLS

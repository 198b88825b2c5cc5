/* Where LDIs are needed (Allard 2010 sec. 3.2: "the LDI is computed over the region where
 * the bounding boxes overlap"): the pairs of bodies whose bounding boxes overlap, each a
 * region of its own with the overlap box and the two bodies' surface geometries. An
 * intersection of a and b lies inside both boxes, hence inside their overlap: one LDI over
 * that box (ldi_model.c adds a margin and snaps it to the pixel grid), rasterising the two
 * surfaces only, holds all of it.
 *
 * One region per pair rather than one per group of touching overlaps: in a stack or a pile
 * every overlap touches the next one, a group's union box spans the whole pile, and its LDI
 * rasterises every body's whole surface at full resolution (docs/plugins/ldi.md, "Many
 * bodies"). */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef struct ContactRegion {
  uint32_t body_a, body_b;                 /* body_a < body_b */
  double overlap_min[3], overlap_max[3];   /* the overlap of the two bodies' bounding boxes */
  uint32_t first_geometry, n_geometries;   /* into ContactRegions.geometries */
} ContactRegion;

typedef struct ContactRegions {
  GArray *regions;      /* ContactRegion, sorted by (body_a, body_b) */
  GArray *geometries;   /* uint32_t geometry indices, each region's consecutive, in increasing
                         * order (a's and b's interleaved as the world lists them) */
  /* scratch */
  GArray *body_boxes;   /* double[6] per body: min, max; min > max for a body with no surface */
  GArray *order;        /* uint32_t bodies by increasing box min x (sweep and prune) */
  GArray *body_geometries;   /* uint32_t: geometries grouped by body (CSR) */
  GArray *body_first;        /* uint32_t per body + 1: into body_geometries */
} ContactRegions;

void contact_regions_init (ContactRegions *regions);
void contact_regions_clear (ContactRegions *regions);

/* Finds the regions of the surface geometries' current positions. Pairs of two fixed bodies
 * (body_fixed may be NULL: none is fixed) are left out: nothing can act on them. */
void contact_regions_find (ContactRegions *regions, const CwbGeometry *geometries,
                           size_t n_geometries, size_t n_bodies, const gboolean *body_fixed);

G_END_DECLS

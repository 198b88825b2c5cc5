/* Where LDIs are needed (Allard 2010 sec. 3.2: "the LDI is computed over the region where
 * the bounding boxes overlap"): the pairs of bodies whose bounding boxes overlap, grouped into
 * regions, each the smallest box holding a group of overlaps that touch one another, with the
 * surface geometries of the group's bodies. One LDI per region then holds every intersection
 * of those bodies: an intersection of a and b lies inside both boxes, hence inside their
 * overlap, hence inside its region. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef struct ContactRegion {
  double box_min[3], box_max[3];
  uint32_t first_geometry, n_geometries;   /* into ContactRegions.geometries */
  uint32_t n_pairs;                        /* overlapping body pairs it holds */
} ContactRegion;

typedef struct ContactRegions {
  GArray *regions;      /* ContactRegion */
  GArray *geometries;   /* uint32_t geometry indices, each region's consecutive, in increasing order */
  /* scratch */
  GArray *body_boxes;   /* double[6] per body: min, max; min > max for a body with no surface */
  GArray *pairs;        /* the overlapping pairs with their boxes */
} ContactRegions;

void contact_regions_init (ContactRegions *regions);
void contact_regions_clear (ContactRegions *regions);

/* Finds the regions of the surface geometries' current positions. Pairs of two fixed bodies
 * (body_fixed may be NULL: none is fixed) are left out: nothing can act on them. Each region's
 * box_min is rounded down to a multiple of `snap` on every axis, so that pixel grids (and
 * multi-volume cells) of different regions and steps line up on one world grid. */
void contact_regions_find (ContactRegions *regions, const CwbGeometry *geometries,
                           size_t n_geometries, size_t n_bodies, const gboolean *body_fixed,
                           double snap);

/* The region that owns the overlap of bodies a and b (in either order), or G_MAXUINT32 when
 * their boxes do not overlap (or both are fixed). */
uint32_t contact_regions_owner (const ContactRegions *regions, uint32_t body_a, uint32_t body_b);

G_END_DECLS

/* One body pair's LDI, kept from one detection to the next (ldi_model.c): the box it covers
 * (the pair's bounding-box overlap plus a margin, on the pixel or cell grid), the triangles of
 * the two surfaces that can matter inside it, the rasterised LDI and the volumes measured on
 * it. A post-stabilization pass (Allard 2010 Algorithm 1, line 8) moves only some bodies:
 * the pairs of bodies that did not move keep their LDI and their volumes, bit for bit what
 * they would measure again. */
#pragma once

#include "contact_regions.h"
#include "intersection_volume.h"

G_BEGIN_DECLS

typedef struct PairLdi {
  uint32_t body_a, body_b;
  double pixel_size;          /* h of this pair's LDI */
  double grid;                /* box_min lies on multiples of it: h, or the cell size */
  double box_min[3], box_max[3];
  Ldi *ldi;                   /* NULL until rasterised; once a detection succeeds, every
                               * pair's LDI holds the positions it detected at */
  Ldi *spare;                 /* an LDI of an earlier box, kept for its arrays: the next
                               * rasterisation lays it out anew (ldi_reset) */
  GArray *surfaces;           /* LdiSurface: the pair's geometries with their kept triangles */
  GArray *triangles;          /* uint32_t: the kept triangles' vertex triples, surface after
                               * surface (the LdiSurfaces point into it) */
  guint threads;              /* for rasterising and walking this LDI (0: one per processor) */
  LdiVolumeResult *result;    /* the volumes of the current LDI, NULL until measured */
} PairLdi;

void pair_ldi_init (PairLdi *pair, uint32_t body_a, uint32_t body_b);
/* Frees what the pair holds (not the struct: pairs live in arrays). */
void pair_ldi_clear (PairLdi *pair);

/* Places the pair's box for the overlap [overlap_min, overlap_max] at pixel size h on a grid
 * of side `grid`: the overlap widened by PAIR_LDI_MARGIN_PIXELS, box_min rounded down to the
 * grid. The box depends on the overlap alone, never on the detections before, so that what
 * the model measures is a function of the positions (a run resumed from the host's history
 * goes on bitwise as it went). A new box drops the LDI and its volumes; the LDI is kept as
 * the spare, whose arrays the next rasterisation reuses. */
void pair_ldi_place (PairLdi *pair, const double overlap_min[3], const double overlap_max[3],
                     double h, double grid);

/* Rebuilds the pair's surfaces from `geometries` (the n indices in `geometry_list`, in
 * increasing order), keeping only the triangles that can cross a ray of the LDI at or below
 * its box (see pair_ldi.c); the rest cannot bound an intersection of the pair inside it. */
void pair_ldi_cull (PairLdi *pair, const CwbGeometry *geometries, const uint32_t *geometry_list,
                    uint32_t n);

/* The triangles kept by the last pair_ldi_cull. */
size_t pair_ldi_triangles (const PairLdi *pair);

G_END_DECLS

/* A closed surface filled with points on a cubic lattice, one at the centre of each lattice
 * cell at least a given share inside the surface: the particles of a fluid body (sph,
 * grid-fluid). The cells are volume_particles_sample's (centred on the surface's bounding
 * box), so a box whose sides are whole multiples of the spacing is filled exactly. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

#define LATTICE_FILL_ERROR (g_quark_from_static_string ("lattice-fill"))

typedef struct LatticeFill {
  double spacing;
  double corner[3];    /* the lattice's lowest corner: cell k's centre on an axis is
                        * corner + (k + 1/2) spacing */
  double *points;      /* 3 * n: the filled cells' centres, in the surface's frame */
  size_t n;
} LatticeFill;

/* Fills the closed surface at `spacing` (> 0), keeping the cells at least `inside_share`
 * (0 to 1) inside it. FALSE, with a message naming the body and the parameter `param` that
 * set the spacing, when no cell is kept or the lattice is too fine. */
gboolean lattice_fill (const CwbSurfaceMesh *surface, double spacing, double inside_share,
                       const char *body_name, const char *param, LatticeFill *out,
                       GError **error);

void lattice_fill_clear (LatticeFill *fill);

/* The surface's largest bounding-box extent, from which a body derives its automatic
 * spacing. */
double lattice_fill_extent (const CwbSurfaceMesh *surface);

G_END_DECLS

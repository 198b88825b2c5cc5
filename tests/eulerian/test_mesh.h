/* Closed, outward-oriented triangle meshes the Eulerian tests build: boxes, a tetrahedron,
 * UV spheres, and their volumes and areas by the divergence theorem. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef struct Mesh {
  GArray *x;      /* double, 3 per vertex */
  GArray *tri;    /* uint32_t, 3 per triangle */
} Mesh;

Mesh mesh_new (void);
void mesh_clear (Mesh *m);
uint32_t add_vertex (Mesh *m, double x, double y, double z);
void add_triangle (Mesh *m, uint32_t a, uint32_t b, uint32_t c);
/* A box of half-sizes e, turned by `angle` about the axis (1, 1, 1) / sqrt 3, centred at c. */
Mesh box_mesh (const double c[3], const double e[3], double angle);
/* The unit right-angled tetrahedron, moved off the lattice. */
Mesh tetrahedron_mesh (void);
/* A UV sphere of `rings` latitude bands and 2 rings longitude segments. */
Mesh sphere_mesh (const double c[3], double radius, int rings);
/* The mesh's volume (divergence theorem) and area. */
void mesh_measures (const Mesh *m, double *volume, double *area);

G_END_DECLS

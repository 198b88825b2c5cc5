/* Test meshes for the rigid tests: an 8-vertex box and an icosphere, closed and outward
 * oriented. One file so that it can be swapped for workbench/core/primitives.c later. */
#pragma once

#include <cwb/geometry.h>

G_BEGIN_DECLS

typedef struct TestShape {
  double *vertices;
  uint32_t *triangles;
  char *source;
  CwbSurfaceMesh surface;   /* view of the arrays above */
} TestShape;

/* Box of full extents sx, sy, sz centred on the origin (8 vertices, 12 triangles). */
TestShape *test_shape_box (double sx, double sy, double sz);
/* Icosahedron of circumradius `radius` subdivided `subdivisions` times, vertices projected
 * onto the sphere: 20 * 4^s triangles. */
TestShape *test_shape_icosphere (double radius, int subdivisions);
/* Moves every vertex: p <- R p + t (R row-major 3x3). */
void test_shape_transform (TestShape *shape, const double rot[9], const double t[3]);
/* Removes the last triangle, leaving the surface open (closed = FALSE). */
void test_shape_open (TestShape *shape);
void test_shape_free (TestShape *shape);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestShape, test_shape_free)

G_END_DECLS

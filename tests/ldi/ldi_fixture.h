/* Shapes and runs shared by the LDI tests: the project's primitives (workbench/core/
 * primitives.c) placed in the world, hand-built meshes with vertices on pixel centres, and a
 * one-call LDI + intersection volume. */
#pragma once

#include <cwb/cwb.h>

#include "intersection_volume.h"
#include "ldi_raster_cpu.h"
#include "ldi_raster_gl.h"
#include "mesh.h"

G_BEGIN_DECLS

/* A closed mesh placed in the world and its LDI view. */
typedef struct TestBody {
  CwbMesh *mesh;               /* world-frame vertices */
  LdiSurface surface;          /* borrowed view of mesh */
} TestBody;

void test_body_free (TestBody *body);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestBody, test_body_free)

/* Takes the mesh; the surface views it with the given geometry and body indices. */
TestBody *test_body_new (CwbMesh *mesh, uint32_t geometry, uint32_t body);
/* Primitives, rotated by the unit quaternion q (w, x, y, z; NULL: none), then moved to centre. */
TestBody *test_body_sphere (double radius, int resolution, const double centre[3],
                            uint32_t body);
TestBody *test_body_torus (double major, double minor, int resolution, const double centre[3],
                           const double q[4], uint32_t body);
TestBody *test_body_box (const double size[3], const double centre[3], const double q[4],
                         uint32_t body);
/* The mesh of a unit sphere of resolution 16 centred at (0.5, 0, 0), the surface the
 * refusal tests damage (a hole, a flipped or a doubled triangle). */
CwbMesh *test_mesh_sphere_off_centre (void);
/* Refreshes the surface view after the mesh's arrays changed. */
void test_body_sync (TestBody *body);
void test_body_translate (TestBody *body, const double t[3]);
double *test_body_vertex (TestBody *body, size_t k);

/* The backend of test_volumes and test_volumes_ldi from now on: gl, or the CPU (n_threads
 * threads) with NULL, the default. */
void test_set_backend (LdiGl *gl);
/* The gradient test_volumes measures from now on: LDI_GRADIENT_AXIS (eq. 12-14, the
 * default) or LDI_GRADIENT_NORMAL. */
void test_set_gradient (LdiGradientMode mode);
/* The LDI over [box_min, box_max] with pixels of h of the bodies' surfaces, and its volumes. */
LdiVolumeResult *test_volumes (TestBody *const *bodies, size_t n_bodies, const double box_min[3],
                               const double box_max[3], double h, guint n_threads,
                               double cell_size, gboolean want_spans);
/* The same, keeping the LDI (*ldi_out, owned by the caller). */
LdiVolumeResult *test_volumes_ldi (TestBody *const *bodies, size_t n_bodies,
                                   const double box_min[3], const double box_max[3], double h,
                                   guint n_threads, double cell_size, gboolean want_spans,
                                   Ldi **ldi_out);
/* Volume of the pair (a, b), 0 when they do not intersect; per axis into axis_volume if not
 * NULL. */
double test_pair_volume (const LdiVolumeResult *result, uint32_t a, uint32_t b,
                         double axis_volume[3]);

/* A dyadic lattice: pixels of TEST_LATTICE_PIXEL over [TEST_LATTICE_MIN, TEST_LATTICE_MAX],
 * whose pixel centres, and the vertices placed on them, are exact. */
#define TEST_LATTICE_PIXEL 0.125
extern const double TEST_LATTICE_MIN[3], TEST_LATTICE_MAX[3];
/* Coordinate of pixel centre n along an axis of the lattice. */
double test_lattice_centre (int axis, int n);
/* Closed meshes with every vertex on a lattice pixel centre (ldi_fixture.c says how). */
CwbMesh *test_mesh_bumpy_cube (int m, int first, guint32 seed);
CwbMesh *test_mesh_octahedron (int n, int m);

G_END_DECLS

/* Triangle meshes: import (OBJ, PLY, STL through Assimp), welding, topology checks, and the
 * primitive shapes of scenes. */
#pragma once

#include <cwb/geometry.h>

#include "scene.h"

G_BEGIN_DECLS

#define CWB_MESH_ERROR (cwb_mesh_error_quark ())
GQuark cwb_mesh_error_quark (void);

typedef enum CwbMeshError {
  CWB_MESH_ERROR_IO,        /* missing or unreadable file */
  CWB_MESH_ERROR_FORMAT,    /* the importer could not read it */
  CWB_MESH_ERROR_EMPTY,     /* no triangles */
} CwbMeshError;

typedef struct CwbMesh {
  GArray *vertices;         /* double, 3 per vertex */
  GArray *triangles;        /* uint32_t, 3 per triangle, counter-clockwise from outside */
  char *source;             /* file name or primitive description */
  /* Topology, filled by cwb_mesh_check (and by every constructor below). */
  size_t boundary_edges;    /* edges used by one triangle */
  size_t nonmanifold_edges; /* edges used by more than two triangles */
  size_t inconsistent_edges;/* edges whose two triangles disagree on orientation */
  gboolean closed;          /* boundary_edges == 0 && nonmanifold_edges == 0 */
} CwbMesh;

CwbMesh *cwb_mesh_new (const char *source);
void cwb_mesh_free (CwbMesh *mesh);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbMesh, cwb_mesh_free)

static inline size_t cwb_mesh_n_vertices (const CwbMesh *m) { return m->vertices->len / 3; }
static inline size_t cwb_mesh_n_triangles (const CwbMesh *m) { return m->triangles->len / 3; }

/* Weld distance as a fraction of the bounding-box diagonal. Assimp stores coordinates as
 * float, whose rounding is 6e-8 of a coordinate, so copies of one vertex written through
 * different paths differ by about that much relative to the model's size; real features are
 * far larger (a mesh would need about a million edges along its diagonal to have edges of
 * 1e-6 of it). 1e-6 sits between the two with an order of magnitude on either side. */
#define CWB_MESH_WELD_TOLERANCE 1e-6

/* Imports a mesh file, triangulates it, welds coincident vertices (relative tolerance
 * CWB_MESH_WELD_TOLERANCE of the bounding-box diagonal) and checks its topology. Triangles from every mesh of the file are merged (with their node
 * transforms). A closed, consistently oriented mesh with a negative volume (inside out) is
 * flipped so that its normals point outward. */
CwbMesh *cwb_mesh_load (const char *path, double scale, GError **error);

/* How a long import reports: `report` gets what is being done and the fraction of the file
 * read (0 to 1) a few times a second, and returns FALSE to cancel. */
typedef struct CwbMeshProgress {
  gboolean (*report) (const char *what, double fraction, void *data);
  void *data;
} CwbMeshProgress;

/* cwb_mesh_load with progress: the import runs on a thread of its own while the caller's
 * thread reports; a cancel returns at once with G_IO_ERROR_CANCELLED (the importer, which
 * cannot be interrupted, finishes on its thread and its result is dropped). NULL progress:
 * cwb_mesh_load. */
CwbMesh *cwb_mesh_load_with_progress (const char *path, double scale,
                                      const CwbMeshProgress *progress, GError **error);

/* Merges vertices closer than tolerance (absolute), drops triangles that lost a vertex to
 * the merge (two equal indices) and vertices no triangle uses. Zero-area triangles with
 * three distinct vertices stay: removing them would open the surface. */
void cwb_mesh_weld (CwbMesh *mesh, double tolerance);
/* Counts boundary, non-manifold and inconsistently oriented edges; sets closed. */
void cwb_mesh_check (CwbMesh *mesh);
/* One-line description of the topology problems ("open: 223 boundary edges"), or NULL
 * when the mesh is closed and consistently oriented. */
char *cwb_mesh_describe_problems (const CwbMesh *mesh);

/* Enclosed volume by the divergence theorem (meaningful for closed meshes). */
double cwb_mesh_volume (const CwbMesh *mesh);
void cwb_mesh_bounds (const CwbMesh *mesh, double min[3], double max[3]);

/* The triangles cwb_mesh_from_shape makes for a primitive shape (box, ground, sphere,
 * cylinder, capsule, torus, rectangle), counted without making them; 0 for a mesh file. */
guint64 cwb_primitive_triangle_count (const CwbShapeDesc *shape);

/* A rectangle's grid: `resolution` cells along its longer side and round(resolution *
 * shorter / longer), at least 1, along the other; nx along x, ny along y. */
void cwb_primitive_rectangle_cells (const CwbShapeDesc *shape, int *nx, int *ny);

/* The primitive of a shape description, tessellated: closed and outward oriented, except
 * the rectangle, an open grid of (nx + 1)(ny + 1) welded vertices and 2 nx ny triangles
 * counter-clockwise seen from +z. */
CwbMesh *cwb_mesh_from_shape (const CwbShapeDesc *shape, const char *scene_dir,
                              GError **error);
/* The same, a mesh file's import reporting through `progress` (may be NULL). */
CwbMesh *cwb_mesh_from_shape_with_progress (const CwbShapeDesc *shape, const char *scene_dir,
                                            const CwbMeshProgress *progress, GError **error);

/* Borrowed view for the plugin ABI (valid while mesh lives and is not modified). */
void cwb_mesh_as_surface (const CwbMesh *mesh, CwbSurfaceMesh *surface);

G_END_DECLS

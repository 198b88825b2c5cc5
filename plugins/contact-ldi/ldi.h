/* Layered depth images (LDI) of closed triangle surfaces, the collision data of Allard 2010
 * sec. 3.2: one image per axis x, y, z, each a pixel grid over the plane orthogonal to the
 * axis, every pixel holding the list of surface crossings (fragments) of the ray through its
 * centre, sorted by depth along the axis.
 *
 * This header is backend-neutral: a backend (ldi_raster_cpu.c, later an OpenGL one) produces
 * fragments tagged with their pixel, and the shared steps below store them flat (offset and
 * count per pixel) and sort them. Everything downstream (intersection_volume.c) reads only
 * this structure. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

#define LDI_ERROR (ldi_error_quark ())
GQuark ldi_error_quark (void);

typedef enum LdiError {
  LDI_ERROR_INPUT,          /* a bad region, pixel size or index */
  LDI_ERROR_TOPOLOGY,       /* a surface that is not closed, manifold and consistently oriented */
  LDI_ERROR_TOO_LARGE,      /* more pixels than LDI_MAX_PIXELS in one image */
} LdiError;

/* Largest image, width * height: 2^26 pixels (offsets of 256 MiB), far beyond any useful
 * contact resolution; it catches a pixel size given in the wrong unit before the allocation
 * does. */
#define LDI_MAX_PIXELS (1u << 26)

/* One closed surface to rasterise: counter-clockwise triangles seen from outside
 * (geometry.h), positions in the world frame. */
typedef struct LdiSurface {
  const double *positions;     /* 3 * n_vertices */
  size_t n_vertices;
  const uint32_t *triangles;   /* 3 * n_triangles */
  size_t n_triangles;
  uint32_t geometry;           /* the caller's geometry index, reported with gradients */
  uint32_t body;               /* the owning body: inside/outside is counted per body */
  gboolean checked;            /* the caller has passed these triangles through
                                * ldi_surface_check already (the topology of a mapped geometry
                                * never changes): backends skip the check */
} LdiSurface;

/* Geometry g of `geometries` as an LDI surface: all its triangles, not yet checked. */
static inline LdiSurface
ldi_surface_of_geometry (const CwbGeometry *geometries, uint32_t g)
{
  const CwbGeometry *geometry = &geometries[g];
  return (LdiSurface) {
    .positions = geometry->positions,
    .n_vertices = geometry->n_points,
    .triangles = geometry->triangles,
    .n_triangles = geometry->n_triangles,
    .geometry = g,
    .body = geometry->body,
  };
}

/* Front: the ray along +axis enters the volume there (the triangle's normal . axis < 0). */
typedef enum LdiFacing {
  LDI_BACK = 0,
  LDI_FRONT = 1,
} LdiFacing;

/* One crossing of a pixel's ray with a triangle. Depth and barycentric weights in double:
 * the CPU backend computes them in double anyway, and the gradient (eq. 12) is a sum of many
 * small weighted terms whose float rounding (6e-8) would show in finite-difference checks. */
typedef struct LdiFragment {
  double depth;                /* coordinate along the image's axis, world */
  double bary[3];              /* weights of the triangle's vertices 0, 1, 2 at the pixel
                                * centre: depth = sum bary[i] * p_i[axis] (Allard 2010: the
                                * scalar dz/dp_k^z of eq. 12) */
  uint32_t surface;            /* index into the surfaces the LDI was built from */
  uint32_t triangle;           /* index into that surface's triangles */
  uint32_t facing;             /* LdiFacing */
  uint32_t pad;
} LdiFragment;

/* What a backend emits: a fragment and the pixel (j * width + i) it belongs to. */
typedef struct LdiPixelFragment {
  uint32_t pixel;
  uint32_t pad;
  LdiFragment fragment;
} LdiPixelFragment;

/* The image along one axis. Pixel (i, j) covers [box_min[u] + i h, box_min[u] + (i + 1) h)
 * x [box_min[v] + j h, ...) in the plane of the in-plane axes u = (axis + 1) % 3 and
 * v = (axis + 2) % 3, so that (u, v, axis) is right-handed; its ray runs through its centre.
 * Depth is not clipped: every crossing of the ray is stored, inside the region box or not. */
typedef struct LdiImage {
  uint32_t axis, u, v;
  uint32_t width, height;      /* pixels along u, v */
  uint32_t *offsets;           /* width * height + 1: pixel p holds fragments
                                * [offsets[p], offsets[p + 1]) */
  LdiFragment *fragments;
  size_t n_fragments;
  size_t capacity;             /* fragments allocated, kept from fill to fill */
  gboolean sorted;             /* each pixel's list sorted by ldi_image_sort */
} LdiImage;

typedef struct Ldi {
  double box_min[3], box_max[3];   /* the region the pixel grids cover */
  double pixel_size;               /* h; a pixel's area is h^2 (a of eq. 11) */
  LdiImage images[3];              /* along x, y, z */
  size_t n_surfaces;               /* of the last fill; fragments' surface indices are below */
  GPtrArray *scratch;              /* a backend's fragment lists (GArray), kept for the next
                                    * fill of this LDI; NULL until used */
} Ldi;

/* An empty LDI over the box [box_min, box_max] (non-empty on every axis) with square pixels
 * of side pixel_size > 0; NULL with LDI_ERROR_INPUT or LDI_ERROR_TOO_LARGE otherwise. */
Ldi *ldi_new (const double box_min[3], const double box_max[3], double pixel_size,
              GError **error);
/* Lays an existing LDI out over a new box and pixel size, as ldi_new would (same checks and
 * errors; ldi unchanged on error), keeping its fragment arrays and lists for the next fill. */
gboolean ldi_reset (Ldi *ldi, const double box_min[3], const double box_max[3],
                    double pixel_size, GError **error);
void ldi_free (Ldi *ldi);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Ldi, ldi_free)

/* World position of the centre of pixel `pixel` of image `axis`, with `depth` along the axis. */
void ldi_pixel_point (const Ldi *ldi, uint32_t axis, uint32_t pixel, double depth, double p[3]);

/* The fragments of one pixel (count into *n). */
static inline const LdiFragment *
ldi_image_pixel (const LdiImage *image, uint32_t pixel, uint32_t *n)
{
  *n = image->offsets[pixel + 1] - image->offsets[pixel];
  return image->fragments + image->offsets[pixel];
}

/* The step both backends share. Replaces the image's fragments by the given lists (arrays of
 * LdiPixelFragment, e.g. one per worker), stored flat by pixel in a counting sort; then sorts
 * each pixel's fragments by depth with ldi_image_sort, on n_threads threads (0: one per
 * processor). The order is total (depth, then back before front, then surface, then
 * triangle), so the result does not depend on the order of the lists or of the fragments
 * in them, nor on the number of threads. */
void ldi_image_fill (LdiImage *image, GArray *const *lists, size_t n_lists, guint n_threads);
void ldi_image_sort (LdiImage *image, guint n_threads);

/* Refuses (FALSE, LDI_ERROR_TOPOLOGY) a surface that does not bound a volume: some undirected
 * edge not used exactly twice, by two triangles that traverse it in opposite directions; or
 * (LDI_ERROR_INPUT) a vertex index out of range. The message names the surface (its index
 * in the list and its geometry) and counts the boundary, non-manifold and inconsistently
 * oriented edges. Only such surfaces give a ray an even number of crossings, which the
 * inside/outside counting of intersection_volume.c relies on. */
gboolean ldi_surface_check (const LdiSurface *surface, size_t index, GError **error);

/* The step every backend starts with: checks each surface not marked `checked`
 * (ldi_surface_check); on a refusal empties the LDI (ldi_clear) and returns FALSE with the
 * check's error. */
gboolean ldi_check_surfaces (Ldi *ldi, const LdiSurface *surfaces, size_t n_surfaces,
                             GError **error);
/* Empties the three images (a backend that fails leaves no partial LDI behind). */
void ldi_clear (Ldi *ldi);

/* Runs func (item, data) for item = 0 .. n_items - 1 on up to n_threads threads (0: one per
 * processor, 1: in the caller), returning when all are done. */
void ldi_parallel_for (guint n_items, guint n_threads, void (*func) (guint item, gpointer data),
                       gpointer data);

G_END_DECLS

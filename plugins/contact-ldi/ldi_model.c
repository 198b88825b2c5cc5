/* The volume contact model `ldi` (Allard, Faure, Courtecuisse, Falipou, Duriez, Kry 2010):
 * contacts as intersection volumes measured on layered depth images, handed to the
 * constraint solver as one constraint per intersecting body pair (mono-volume, sec. 4) or
 * per pair and grid cell (multi-volume, sec. 5).
 *
 *   detect: the bodies' bounding-box overlaps grouped into regions (contact_regions.c), an
 *           LDI over each region with pixels of side pixel_size, the surfaces of the
 *           region's bodies rasterised into it along x, y and z (ldi_raster_cpu.c, or
 *           ldi_raster_gl.c with the same fragments): Allard's "collision detection"
 *           (Table 1);
 *   model:  the intersection volumes and their gradients from the sorted fragments (eq.
 *           11-14, 22-24; intersection_volume.c), each volume turned into a contact frame
 *           and rows (volume_constraint.c): Allard's "contact modeling".
 *
 * Post-stabilization (Algorithm 1, lines 4-9) is the solver's loop over position passes:
 * every row carries the regulated tolerance (eps_V / A = target_depth pixels), so the solver
 * corrects positions while some volume exceeds it. The model keeps no memory between steps.
 *
 * Surfaces must be closed, manifold and consistently oriented: attach refuses others, naming
 * the body, since the inside counting along a ray needs it (ldi_topology.c). */
#include <cwb/cwb.h>

#include "contact_regions.h"
#include "intersection_volume.h"
#include "ldi_raster_cpu.h"
#include "ldi_raster_gl.h"
#include "volume_constraint.h"

/* Volumes below this fraction of a voxel (pixel_size^3) are round-off, not geometry: a cell
 * wall and a face that coincide up to an ulp cut slivers of 1e-20 m^3 off an interval. */
#define ROUND_OFF_VOXELS 1e-6

typedef struct LdiModelParams {
  gboolean gl;            /* backend: gl, else cpu */
  double pixel_size;      /* m */
  gboolean multi_volume;
  double cell_size;       /* m */
  double target_depth;    /* pixels */
  guint threads;
  gboolean inspect_spans;
  LdiGradientMode gradient;
} LdiModelParams;

typedef struct LdiModel {
  LdiModelParams params;
  ContactRegions regions;
  GPtrArray *ldis;        /* Ldi per region of the last detection */
  GArray *ldi_threads;    /* guint per region: the threads its LDI is rasterised and walked on */
  GArray *surfaces;       /* LdiSurface per entry of regions.geometries */
  LdiGl *gl;              /* the OpenGL backend's context, opened on first use */
} LdiModel;

static const CwbParamSpec ldi_params[] = {
  { "backend", CWB_PARAM_ENUM, "", "cpu", 1, 0, "cpu|gl",
    "Where the LDIs are rasterised: cpu, the multithreaded reference rasteriser, or gl, "
    "OpenGL 4.3 on the plugin's own headless EGL context (the same fragments; faster on a "
    "GPU, slower on a software OpenGL such as llvmpipe)" },
  { "pixel_size", CWB_PARAM_DOUBLE, "m", "0.004", 1e-6, 10, NULL,
    "Side of an LDI pixel: the resolution of the intersection volumes, whatever the "
    "meshes' resolution (Allard 2010 sec. 3.2)" },
  { "multi_volume", CWB_PARAM_BOOL, "", "false", 0, 1, NULL,
    "Split each intersection volume into the cells of a grid, one contact per cell "
    "(Allard 2010 sec. 5): pressure and friction vary across the contact" },
  { "cell_size", CWB_PARAM_DOUBLE, "m", "0.05", 1e-6, 100, NULL,
    "Side of a multi-volume grid cell (used with multi_volume)" },
  { "target_depth", CWB_PARAM_DOUBLE, "px", "0.5", 0, 100, NULL,
    "Mean intersection depth the post-stabilization keeps, in pixels: eps_V = A * "
    "target_depth * pixel_size for a contact of area A (Allard 2010 sec. 4.3)" },
  { "threads", CWB_PARAM_INT, "1", "0", 0, 256, NULL,
    "Threads rasterising and walking the LDIs; 0: one per processor for regions of 10 000 "
    "triangles or more, one below (starting threads costs more than it saves there)" },
  { "inspect_spans", CWB_PARAM_BOOL, "", "true", 0, 1, NULL,
    "Export every interval of every intersection volume for display (fig. 1)" },
  { "gradient", CWB_PARAM_ENUM, "", "normal", 1, 0, "normal|axis",
    "How the volume gradient is measured: axis, each component from the image along it "
    "(Allard 2010 eq. 12-14), or normal, every image giving the whole vector along the "
    "surfaces' normals, weighted to the image that sees them face on (exact directions for "
    "flat contacts tilted against the axes; see docs/plugins/ldi.md)" },
};

static void
read_params (LdiModel *self, const CwbParamSet *params)
{
  LdiModelParams *p = &self->params;
  p->gl = g_strcmp0 (cwb_param_string (params, "backend", "cpu"), "gl") == 0;
  p->pixel_size = cwb_param_double (params, "pixel_size", 0.004);
  p->multi_volume = cwb_param_bool (params, "multi_volume", FALSE);
  p->cell_size = cwb_param_double (params, "cell_size", 0.05);
  p->target_depth = cwb_param_double (params, "target_depth", 0.5);
  p->threads = (guint) cwb_param_int (params, "threads", 0);
  p->inspect_spans = cwb_param_bool (params, "inspect_spans", TRUE);
  p->gradient = g_strcmp0 (cwb_param_string (params, "gradient", "normal"), "axis") == 0
                  ? LDI_GRADIENT_AXIS : LDI_GRADIENT_NORMAL;
}

static void *
ldi_model_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                  GError **error)
{
  LdiModel *self = g_new0 (LdiModel, 1);
  read_params (self, info->params);
  /* Open the OpenGL context now, so that a machine without it refuses the model at load
   * (the previous model stays) rather than at the first step. */
  if (self->params.gl && (self->gl = ldi_gl_new (error)) == NULL)
    {
      g_free (self);
      return NULL;
    }
  contact_regions_init (&self->regions);
  self->ldis = g_ptr_array_new_with_free_func ((GDestroyNotify) ldi_free);
  self->ldi_threads = g_array_new (FALSE, FALSE, sizeof (guint));
  self->surfaces = g_array_new (FALSE, FALSE, sizeof (LdiSurface));
  return self;
}

static void
ldi_model_destroy (void *data)
{
  LdiModel *self = data;
  contact_regions_clear (&self->regions);
  g_ptr_array_unref (self->ldis);
  g_array_unref (self->ldi_threads);
  g_array_unref (self->surfaces);
  g_clear_pointer (&self->gl, ldi_gl_free);
  g_free (self);
}

static void
ldi_model_params_changed (void *self, const CwbParamSet *params)
{
  read_params (self, params);
}

/* With `threads: 0`, regions of fewer triangles than this are rasterised and walked on the
 * calling thread: each parallel loop starts its own threads, which on a small LDI costs more
 * than it saves (bench/ldi_table1.sh, two cores: the grasp's 972 triangles per region took
 * 4.1 + 1.6 ms a step on two threads, 2.7 + 0.9 on one; the snake's 6 732, 3.8 against 3.7;
 * bench/ldi_raster.sh's 16 140, two threads 0.66 of one). */
#define PARALLEL_MIN_TRIANGLES 10000

/* The threads for a region: the parameter, or with 0 (one per processor) one thread for a
 * small region. */
static guint
region_threads (const LdiModel *self, const ContactRegion *region)
{
  if (self->params.threads != 0)
    return self->params.threads;
  const LdiSurface *surfaces = &g_array_index (self->surfaces, LdiSurface,
                                               region->first_geometry);
  size_t triangles = 0;
  for (uint32_t g = 0; g < region->n_geometries; g++)
    triangles += surfaces[g].n_triangles;
  return triangles < PARALLEL_MIN_TRIANGLES ? 1 : 0;
}

static LdiSurface
surface_of (const CwbGeometry *geometries, uint32_t g)
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

/* Every geometry must be a closed, consistently oriented surface. */
static gboolean
ldi_model_attach (void *data, const CwbContactQuery *query, GError **error)
{
  for (size_t g = 0; g < query->n_geometries; g++)
    {
      const CwbGeometry *geometry = &query->geometries[g];
      if (geometry->kind != CWB_GEOMETRY_SURFACE)
        {
          g_set_error (error, LDI_ERROR, LDI_ERROR_TOPOLOGY,
                       "body %u: the ldi model measures intersection volumes of closed "
                       "surfaces; this body's geometry is particles", geometry->body);
          return FALSE;
        }
      LdiSurface surface = surface_of (query->geometries, (uint32_t) g);
      GError *local = NULL;
      if (!ldi_surface_check (&surface, g, &local))
        {
          g_propagate_prefixed_error (error, local, "body %u: ", geometry->body);
          return FALSE;
        }
    }
  return TRUE;
}

static const gboolean *
fixed_bodies (const CwbContactQuery *query)
{
  return CWB_STRUCT_HAS (query, CwbContactQuery, body_fixed) ? query->body_fixed : NULL;
}

/* The size of the last detection's LDIs, in the terms of Allard 2010 Table 1 (its "LDI
 * pixels" and "layers"), for G_MESSAGES_DEBUG=ldi: bench/ldi_table1.sh reads it. Only built
 * when the message would be shown. */
static void
log_ldi_size (const LdiModel *self)
{
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    return;
  uint32_t width = 0, height = 0, layers = 0;
  size_t fragments = 0, triangles = 0;
  for (guint i = 0; i < self->surfaces->len; i++)
    triangles += g_array_index (self->surfaces, LdiSurface, i).n_triangles;
  for (guint r = 0; r < self->ldis->len; r++)
    {
      const Ldi *ldi = g_ptr_array_index (self->ldis, r);
      for (int axis = 0; axis < 3; axis++)
        {
          const LdiImage *image = &ldi->images[axis];
          if ((uint64_t) image->width * image->height > (uint64_t) width * height)
            {
              width = image->width;
              height = image->height;
            }
          fragments += image->n_fragments;
          for (uint32_t p = 0; p < image->width * image->height; p++)
            layers = MAX (layers, image->offsets[p + 1] - image->offsets[p]);
        }
    }
  g_debug ("ldi size: %u regions, %zu triangles, largest image %u x %u pixels, %u layers, "
           "%zu fragments", self->ldis->len, triangles, width, height, layers, fragments);
}

static gboolean
ldi_model_detect (void *data, const CwbContactQuery *query, GError **error)
{
  LdiModel *self = data;
  const LdiModelParams *p = &self->params;
  double snap = p->multi_volume ? p->cell_size : p->pixel_size;
  contact_regions_find (&self->regions, query->geometries, query->n_geometries,
                        query->n_bodies, fixed_bodies (query), snap);
  g_ptr_array_set_size (self->ldis, 0);
  g_array_set_size (self->ldi_threads, 0);
  g_array_set_size (self->surfaces, self->regions.geometries->len);
  for (guint i = 0; i < self->regions.geometries->len; i++)
    {
      LdiSurface *surface = &g_array_index (self->surfaces, LdiSurface, i);
      *surface = surface_of (query->geometries,
                             g_array_index (self->regions.geometries, uint32_t, i));
      surface->checked = TRUE;   /* at attach; a mapped geometry's triangles never change */
    }
  for (guint r = 0; r < self->regions.regions->len; r++)
    {
      const ContactRegion *region = &g_array_index (self->regions.regions, ContactRegion, r);
      Ldi *ldi = ldi_new (region->box_min, region->box_max, p->pixel_size, error);
      if (ldi == NULL)
        return FALSE;
      g_ptr_array_add (self->ldis, ldi);
      guint threads = region_threads (self, region);
      g_array_append_val (self->ldi_threads, threads);
      const LdiSurface *surfaces = &g_array_index (self->surfaces, LdiSurface,
                                                   region->first_geometry);
      if (p->gl && self->gl == NULL && (self->gl = ldi_gl_new (error)) == NULL)
        return FALSE;   /* switched to gl by a parameter edit on a machine without it */
      gboolean ok = p->gl ? ldi_raster_gl (self->gl, ldi, surfaces, region->n_geometries, error)
                          : ldi_raster_cpu (ldi, surfaces, region->n_geometries, threads, error);
      if (!ok)
        return FALSE;
    }
  log_ldi_size (self);
  return TRUE;
}

/* Shows a constrained volume: its gradient at every vertex and, for a cell, the cell. */
static void
inspect_volume (CwbInspection *inspection, const Ldi *ldi, const LdiModelParams *p,
                const LdiVolume *volume, const CwbPointWeight *gradients,
                const CwbGeometry *geometries, uint32_t frame)
{
  for (uint32_t k = 0; k < volume->n_gradients; k++)
    {
      const CwbPointWeight *g = &gradients[volume->first_gradient + k];
      CwbInspectVector vector = { .kind = CWB_VECTOR_VOLUME_GRADIENT,
                                  .geometry = g->geometry, .point = g->point };
      cwb_v3_copy (vector.origin, &geometries[g->geometry].positions[3 * g->point]);
      cwb_v3_copy (vector.vector, g->w);
      g_array_append_val (inspection->vectors, vector);
    }
  if (!p->multi_volume)
    return;
  CwbInspectCell cell = { .body_a = volume->body_a, .body_b = volume->body_b,
                          .volume = volume->volume, .frame = frame };
  ldi_cell_bounds (ldi, p->cell_size, volume->cell, cell.min, cell.max);
  g_array_append_val (inspection->cells, cell);
}

static gboolean
ldi_model_model (void *data, const CwbContactQuery *query, CwbContactSet *set,
                 CwbInspection *inspection, GError **error)
{
  LdiModel *self = data;
  const LdiModelParams *p = &self->params;
  double total_volume = 0, deepest = 0;
  for (guint r = 0; r < self->ldis->len; r++)
    {
      const Ldi *ldi = g_ptr_array_index (self->ldis, r);
      const ContactRegion *region = &g_array_index (self->regions.regions, ContactRegion, r);
      const LdiSurface *surfaces = &g_array_index (self->surfaces, LdiSurface,
                                                   region->first_geometry);
      LdiVolumeParams volume_params = {
        .cell_size = p->multi_volume ? p->cell_size : 0,
        .want_spans = p->inspect_spans,
        .n_threads = g_array_index (self->ldi_threads, guint, r),
        .gradient = p->gradient,
      };
      g_autoptr (LdiVolumeResult) result = ldi_intersection_volume (ldi, surfaces,
                                                                    region->n_geometries,
                                                                    &volume_params);
      const GArray *volumes = p->multi_volume ? result->cells : result->pairs;
      const CwbPointWeight *gradients = (const CwbPointWeight *) (p->multi_volume
                                                                  ? result->cell_gradients
                                                                  : result->pair_gradients)->data;
      for (guint v = 0; v < volumes->len; v++)
        {
          const LdiVolume *volume = &g_array_index (volumes, LdiVolume, v);
          /* Self-intersections are not constrained; a pair seen by another region's LDI is
           * that region's; round-off slivers are dropped. */
          if (volume->body_a == volume->body_b
              || contact_regions_owner (&self->regions, volume->body_a, volume->body_b) != r
              || volume->volume < ROUND_OFF_VOXELS * p->pixel_size * p->pixel_size * p->pixel_size)
            continue;
          double mu = cwb_friction_combine (query->friction[volume->body_a],
                                            query->friction[volume->body_b]);
          VolumeConstraintParams constraint = {
            .target_depth = p->target_depth * p->pixel_size,
            .friction = mu > 0 && query->pass == CWB_CONTACT_PASS_VELOCITY,
            .mu = mu,
          };
          uint32_t frame = set->frames->len;
          if (!volume_constraint_append (set, volume, gradients, query->geometries,
                                         &constraint))
            continue;
          total_volume += volume->volume;
          deepest = MAX (deepest, -g_array_index (set->frames, CwbContactFrame, frame).gap);
          inspect_volume (inspection, ldi, p, volume, gradients, query->geometries, frame);
        }
      if (result->spans == NULL)
        continue;
      for (guint s = 0; s < result->spans->len; s++)
        {
          const CwbInspectSpan *span = &g_array_index (result->spans, CwbInspectSpan, s);
          if (span->body_a != span->body_b
              && contact_regions_owner (&self->regions, span->body_a, span->body_b) == r)
            g_array_append_val (inspection->spans, *span);
        }
    }
  set->intersection_volume = total_volume;
  set->max_penetration = deepest;   /* the deepest contact's mean depth V / A */
  return TRUE;
}

static const CwbContactModelVTable ldi_model_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = ldi_model_create,
  .destroy = ldi_model_destroy,
  .attach = ldi_model_attach,
  .detect = ldi_model_detect,
  .model = ldi_model_model,
  .params_changed = ldi_model_params_changed,
};

static const CwbPluginDesc ldi_model_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_CONTACT_MODEL,
  .name = "ldi",
  .version = "0.1.0",
  .summary = "Volume contact constraints on layered depth images, mono- or multi-volume, "
             "with friction (Allard et al. 2010)",
  .params = ldi_params,
  .n_params = G_N_ELEMENTS (ldi_params),
  .vtable = &ldi_model_vtable,
};

CWB_DEFINE_PLUGIN (ldi_model_desc)

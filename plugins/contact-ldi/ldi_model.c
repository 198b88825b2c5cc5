/* The volume contact model `ldi` (Allard, Faure, Courtecuisse, Falipou, Duriez, Kry 2010):
 * contacts as intersection volumes measured on layered depth images, handed to the
 * constraint solver as one constraint per intersecting body pair (mono-volume, sec. 4) or
 * per pair and grid cell (multi-volume, sec. 5).
 *
 *   detect: the body pairs whose bounding boxes overlap (contact_regions.c), an LDI per pair
 *           over the overlap plus a margin, the triangles of the pair's two surfaces that
 *           can matter there rasterised into it along x, y and z (pair_ldi.c,
 *           ldi_raster_cpu.c, or ldi_raster_gl.c with the same fragments): Allard's
 *           "collision detection" (Table 1);
 *   model:  the intersection volumes and their gradients from the sorted fragments (eq.
 *           11-14, 22-24; intersection_volume.c), each volume turned into a contact frame
 *           and rows (volume_constraint.c), with an identity (contact_id.c): Allard's
 *           "contact modeling".
 *
 * Post-stabilization (Algorithm 1, lines 4-9) is the solver's loop over position passes:
 * every row carries the regulated tolerance (eps_V / A = target_depth pixels), so the solver
 * corrects positions while some volume exceeds it. Between detections the model keeps each
 * pair's LDI: a pair whose two bodies have not moved since the last detection keeps its
 * LDI and volumes, bit for bit what it would measure again; the others are rasterised anew.
 * The pairs' LDIs are independent, and are rasterised and walked in parallel.
 *
 * Surfaces must be closed, manifold and consistently oriented: attach refuses others, naming
 * the body, since the inside counting along a ray needs it (ldi_topology.c). Volume particles
 * (a fluid's) are seen through the closed surface reconstructed around them at every
 * detection, and the rows' entries on its vertices mapped back onto the particles
 * (fluid_surfaces.h; docs/plugins/ldi.md, "Fluids"). */
#include <math.h>
#include <string.h>

#include <cwb/cwb.h>

#include "contact_id.h"
#include "contact_regions.h"
#include "fluid_surfaces.h"
#include "intersection_volume.h"
#include "ldi_raster_cpu.h"
#include "ldi_raster_gl.h"
#include "pair_ldi.h"
#include "patch_split.h"
#include "volume_constraint.h"

/* Volumes below this fraction of a voxel (pixel_size^3) are round-off, not geometry: a cell
 * wall and a face that coincide up to an ulp cut slivers of 1e-20 m^3 off an interval. */
#define ROUND_OFF_VOXELS 1e-6
/* The automatic multi-volume cell, in pixels of its pair: 4 cells across the smaller body at
 * the automatic 32 pixels per body, so a box face gets up to 16 contacts and a torus on a
 * torus one per patch (docs/plugins/ldi.md: the torus stack at 4, 8 and 16 pixels). A whole
 * number of pixels keeps the cell walls on pixel boundaries. */
#define CELL_PIXELS 8
/* The post-stabilization passes a step may take (CwbContactSet.stabilization_passes): a
 * Newton step on a volume closes a cap's depth by half (Allard 2010 sec. 4.4 iterates), so
 * ten bring any overlap the step makes within the target depth; the passes stop as soon as
 * the rows hold. The deep-overlap scene, separated in 3 steps with one pass each, is
 * separated in its first step with 3. */
#define STABILIZATION_PASSES 10
/* Pixels across a cell of a fluid's reconstructed surface at least (pair_pixel_size): 2,
 * its vertices' spacing resolved twice; finer pixels only rasterise its small triangles
 * into more fragments (docs/plugins/ldi.md, "Fluids": the water at rest in a box took
 * 158 ms a step on the walls' 1.5 mm pixels). */
#define FLUID_CELL_PIXELS 2.0

typedef struct LdiModelParams {
  gboolean gl;            /* backend: gl, else cpu */
  double pixel_size;      /* m; 0: from each pair's bodies (pixels_per_body) */
  double pixels_per_body;
  gboolean multi_volume;
  double cell_size;       /* m; 0: CELL_PIXELS of each pair's pixels */
  double target_depth;    /* pixels */
  guint threads;
  gboolean inspect_spans;
  LdiGradientMode gradient;
} LdiModelParams;

typedef struct LdiModel {
  LdiModelParams params;
  ContactRegions regions;
  GArray *pairs;          /* PairLdi per region of the last detection, in the regions' order */
  GArray *spare;          /* PairLdi: the pairs of the detection before, while matching */
  GArray *body_scale;     /* double per body: its size 6 V / A at attach */
  GArray *last_positions; /* double: every surface's positions at the last detection */
  GArray *moved;          /* gboolean per body: moved since the last detection */
  LdiGl *gl;              /* the OpenGL backend's context, opened on first use */
  GArray *split_parts;     /* LdiVolume: scratch of patch_split */
  GArray *split_gradients; /* CwbPointWeight: their entries */
  FluidSurfaces fluids;    /* particles geometries as reconstructed surfaces */
} LdiModel;

static const CwbParamSpec ldi_params[] = {
  { "backend", CWB_PARAM_ENUM, "", "cpu", 1, 0, "cpu|gl",
    "Where the LDIs are rasterised: cpu, the multithreaded reference rasteriser, or gl, "
    "OpenGL 4.3 on the plugin's own headless EGL context (the same fragments; faster on a "
    "GPU, slower on a software OpenGL such as llvmpipe)" },
  { "pixel_size", CWB_PARAM_DOUBLE, "m", "0", 0, 10, NULL,
    "Side of an LDI pixel: the resolution of the intersection volumes, whatever the "
    "meshes' resolution (Allard 2010 sec. 3.2); 0: for each pair, the smaller body's "
    "size over pixels_per_body" },
  { "pixels_per_body", CWB_PARAM_DOUBLE, "1", "32", 1, 4096, NULL,
    "With pixel_size 0: pixels across the smaller body of a pair, whose size is 6 V / A "
    "(a cube's side, a ball's diameter, three times a plate's thickness), to two "
    "significant digits" },
  { "multi_volume", CWB_PARAM_BOOL, "", "true", 0, 1, NULL,
    "Split each intersection volume into the cells of a grid, one contact per cell "
    "(Allard 2010 sec. 5): pressure and friction vary across the contact, so a body resting "
    "on two patches (a torus on a torus) or sliding partly stands as it should; false: one "
    "volume per pair (sec. 4, the mono-volume model)" },
  { "cell_size", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,
    "Side of a multi-volume grid cell (used with multi_volume); 0: for each pair, "
    G_STRINGIFY (CELL_PIXELS) " of its pixels (the report shows the smallest)" },
  { "target_depth", CWB_PARAM_DOUBLE, "px", "0.5", 0, 100, NULL,
    "Mean intersection depth the post-stabilization keeps, in pixels: eps_V = A * "
    "target_depth * pixel_size for a contact of area A (Allard 2010 sec. 4.3)" },
  { "threads", CWB_PARAM_INT, "1", "0", 0, 256, NULL,
    "Threads rasterising and walking the LDIs (0: one per processor): the pairs' LDIs are "
    "shared among them, one thread each, but an LDI of 10 000 triangles or more gets all" },
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
  p->pixel_size = cwb_param_double (params, "pixel_size", 0);
  p->pixels_per_body = cwb_param_double (params, "pixels_per_body", 32);
  p->multi_volume = cwb_param_bool (params, "multi_volume", TRUE);
  p->cell_size = cwb_param_double (params, "cell_size", 0);
  p->target_depth = cwb_param_double (params, "target_depth", 0.5);
  p->threads = (guint) cwb_param_int (params, "threads", 0);
  p->inspect_spans = cwb_param_bool (params, "inspect_spans", TRUE);
  p->gradient = g_strcmp0 (cwb_param_string (params, "gradient", "normal"), "axis") == 0
                  ? LDI_GRADIENT_AXIS : LDI_GRADIENT_NORMAL;
}

static void
pairs_clear (GArray *pairs)
{
  for (guint i = 0; i < pairs->len; i++)
    pair_ldi_clear (&g_array_index (pairs, PairLdi, i));
  g_array_set_size (pairs, 0);
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
  self->pairs = g_array_new (FALSE, FALSE, sizeof (PairLdi));
  self->spare = g_array_new (FALSE, FALSE, sizeof (PairLdi));
  self->body_scale = g_array_new (FALSE, FALSE, sizeof (double));
  self->last_positions = g_array_new (FALSE, FALSE, sizeof (double));
  self->moved = g_array_new (FALSE, FALSE, sizeof (gboolean));
  self->split_parts = g_array_new (FALSE, FALSE, sizeof (LdiVolume));
  self->split_gradients = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  fluid_surfaces_init (&self->fluids);
  return self;
}

static void
ldi_model_destroy (void *data)
{
  LdiModel *self = data;
  contact_regions_clear (&self->regions);
  pairs_clear (self->pairs);
  g_array_unref (self->pairs);
  g_array_unref (self->spare);
  g_array_unref (self->body_scale);
  g_array_unref (self->last_positions);
  g_array_unref (self->moved);
  g_array_unref (self->split_parts);
  g_array_unref (self->split_gradients);
  fluid_surfaces_clear (&self->fluids);
  g_clear_pointer (&self->gl, ldi_gl_free);
  g_free (self);
}

/* New parameters may change every measure: nothing of the last detection is reused. */
static void
ldi_model_params_changed (void *data, const CwbParamSet *params)
{
  LdiModel *self = data;
  read_params (self, params);
  pairs_clear (self->pairs);
  g_array_set_size (self->last_positions, 0);
}

/* With `threads: 0`, an LDI of fewer triangles than this is rasterised and walked on one
 * thread, the pairs' LDIs shared among the processors: each parallel loop starts its own
 * threads, which on a small LDI costs more than it saves (bench/ldi_table1.sh, two cores:
 * the grasp's 972 triangles per region took 4.1 + 1.6 ms a step on two threads, 2.7 + 0.9
 * on one; the snake's 6 732, 3.8 against 3.7; bench/ldi_raster.sh's 16 140, two threads 0.66
 * of one). Larger LDIs get every thread, one after another. */
#define PARALLEL_MIN_TRIANGLES 10000

/* Each body's scale for the automatic pixel size: 6 V / A of its closed surfaces (volume by
 * the divergence theorem, area), which is the side of a cube, the diameter of a ball and
 * three times the thickness of a thin plate, and which a rigid motion does not change
 * (unlike a bounding box, which grows as a box turns): a run resumed at another pose gets
 * the same pixels. Measured when the model is attached (a deformable body: in the shape it
 * has then); INFINITY for a body with no volume. */
static void
measure_body_scales (LdiModel *self, const CwbContactQuery *query)
{
  g_autofree double *volume = g_new0 (double, MAX (query->n_bodies, 1));
  g_autofree double *area = g_new0 (double, MAX (query->n_bodies, 1));
  for (size_t g = 0; g < query->n_geometries; g++)
    {
      const CwbGeometry *geometry = &query->geometries[g];
      if (geometry->kind != CWB_GEOMETRY_SURFACE || geometry->body >= query->n_bodies)
        continue;
      for (size_t t = 0; t < geometry->n_triangles; t++)
        {
          const double *p0 = &geometry->positions[3 * (size_t) geometry->triangles[3 * t]];
          const double *p1 = &geometry->positions[3 * (size_t) geometry->triangles[3 * t + 1]];
          const double *p2 = &geometry->positions[3 * (size_t) geometry->triangles[3 * t + 2]];
          double e1[3], e2[3], n[3], c[3];
          cwb_v3_sub (e1, p1, p0);
          cwb_v3_sub (e2, p2, p0);
          cwb_v3_cross (n, e1, e2);
          cwb_v3_cross (c, p1, p2);
          volume[geometry->body] += cwb_v3_dot (p0, c) / 6;
          area[geometry->body] += cwb_v3_norm (n) / 2;
        }
    }
  g_array_set_size (self->body_scale, query->n_bodies);
  for (size_t b = 0; b < query->n_bodies; b++)
    {
      double scale = 6 * volume[b] / area[b];
      g_array_index (self->body_scale, double, b) = scale > 0 && isfinite (scale) ? scale
                                                                                 : INFINITY;
    }
}

/* x to two significant digits: the automatic pixel size does not depend on the round-off of
 * the volumes and areas it comes from (0.03125 becomes 0.031). */
static double
two_digits (double x)
{
  double unit = pow (10, floor (log10 (x)) - 1);
  return round (x / unit) * unit;
}

/* The larger reconstruction cell of the fluids among bodies a and b, 0 without one. */
static double
fluid_pair_cell (const LdiModel *self, uint32_t a, uint32_t b)
{
  return fmax (fluid_surfaces_body_cell (&self->fluids, a),
               fluid_surfaces_body_cell (&self->fluids, b));
}

/* The pixel size of the pair (a, b): the parameter, or the smaller body's scale over
 * pixels_per_body (a body with no volume takes the other's; two such, 1 m), but no finer
 * than FLUID_CELL_PIXELS pixels a cell of a fluid's reconstructed surface, which holds no
 * detail below its cell. */
static double
pair_pixel_size (const LdiModel *self, uint32_t a, uint32_t b)
{
  const LdiModelParams *p = &self->params;
  if (p->pixel_size > 0)
    return p->pixel_size;
  double scale = fmin (g_array_index (self->body_scale, double, a),
                       g_array_index (self->body_scale, double, b));
  double h = two_digits ((isfinite (scale) ? scale : 1.0) / p->pixels_per_body);
  double cell = fluid_pair_cell (self, a, b);
  return cell > 0 ? fmax (h, two_digits (cell / FLUID_CELL_PIXELS)) : h;
}

/* The multi-volume cell of a pair of pixel size h: CELL_PIXELS pixels, or the parameter rounded
 * to a whole number of pixels (at least one); for a pair with a fluid, left automatic, the cell
 * of the fluid's reconstructed surface (fluid_cell > 0) in whole pixels: a cell's volume then
 * follows the few particles under it, where a cell of 8 pixels summed the surface's dips
 * between many and stirred water at rest more (docs/plugins/ldi.md, "Fluids"). A wall inside a
 * pixel is cut exactly along the rays that cross it but by pixel centres in the two images
 * whose rays run along it, so the three images measure a cell's volume differently and its
 * gradient does not follow its volume: the flush 10-row pyramid of 1 m boxes (pixels of
 * 0.031 m) came apart at every hand-set side from 0.1 to 0.3 m that is not a whole number of pixels
 * (5e5 J after 1 s at 0.2479 m) and stood at every one that is (0.124, 0.186, 0.248, 0.31 m). */
static double
pair_cell_size (const LdiModelParams *p, double h, double fluid_cell)
{
  if (!(p->cell_size > 0) && fluid_cell > 0)
    return MAX (1.0, round (fluid_cell / h)) * h;
  if (!(p->cell_size > 0))
    return CELL_PIXELS * h;
  return MAX (1.0, round (p->cell_size / h)) * h;
}

/* Every geometry must be a closed, consistently oriented surface, or particles (whose
 * reconstructed surface is closed and oriented by construction, and empty without
 * particles). */
static gboolean
ldi_model_attach (void *data, const CwbContactQuery *raw_query, GError **error)
{
  LdiModel *self = data;
  for (size_t g = 0; g < raw_query->n_geometries; g++)
    {
      const CwbGeometry *geometry = &raw_query->geometries[g];
      if (geometry->kind != CWB_GEOMETRY_SURFACE && geometry->kind != CWB_GEOMETRY_PARTICLES)
        {
          g_set_error (error, LDI_ERROR, LDI_ERROR_TOPOLOGY,
                       "body %u: the ldi model measures intersection volumes of closed "
                       "surfaces or of particles' surfaces; this body's geometry is of kind "
                       "%d", geometry->body, (int) geometry->kind);
          return FALSE;
        }
      if (geometry->kind == CWB_GEOMETRY_PARTICLES && geometry->n_points > 0
          && geometry->radii == NULL)
        {
          g_set_error (error, LDI_ERROR, LDI_ERROR_INPUT,
                       "body %u: its particles have no radii, from which the ldi model "
                       "builds their surface", geometry->body);
          return FALSE;
        }
    }
  const CwbContactQuery *query = fluid_surfaces_query (&self->fluids, raw_query,
                                                       FLUID_SURFACES_BUILD);
  for (size_t g = 0; g < query->n_geometries; g++)
    {
      const CwbGeometry *geometry = &query->geometries[g];
      if (fluid_surfaces_is_fluid (&self->fluids, g))
        continue;
      LdiSurface surface = ldi_surface_of_geometry (query->geometries, (uint32_t) g);
      GError *local = NULL;
      if (!ldi_surface_check (&surface, g, &local))
        {
          g_propagate_prefixed_error (error, local, "body %u: ", geometry->body);
          return FALSE;
        }
    }
  measure_body_scales (self, query);
  pairs_clear (self->pairs);
  g_array_set_size (self->last_positions, 0);
  return TRUE;
}

static const gboolean *
fixed_bodies (const CwbContactQuery *query)
{
  return CWB_STRUCT_HAS (query, CwbContactQuery, body_fixed) ? query->body_fixed : NULL;
}

/* Which bodies moved since the last detection (all of them at the first, or when the
 * geometries changed shape), bitwise; keeps the current positions for the next. */
static void
find_moved_bodies (LdiModel *self, const CwbContactQuery *query)
{
  g_array_set_size (self->moved, query->n_bodies);
  gboolean *moved = (gboolean *) self->moved->data;
  size_t total = 0;
  for (size_t g = 0; g < query->n_geometries; g++)
    if (query->geometries[g].kind == CWB_GEOMETRY_SURFACE
        && !fluid_surfaces_is_fluid (&self->fluids, g))
      total += 3 * query->geometries[g].n_points;
  gboolean first = self->last_positions->len != total;
  for (size_t b = 0; b < query->n_bodies; b++)
    moved[b] = first;
  g_array_set_size (self->last_positions, total);
  double *last = (double *) self->last_positions->data;
  for (size_t g = 0; g < query->n_geometries; g++)
    {
      const CwbGeometry *geometry = &query->geometries[g];
      if (geometry->kind != CWB_GEOMETRY_SURFACE)
        continue;
      /* A fluid's surface is built anew at each detection, its vertices changing in number:
       * its body counts as moved, and its positions are not kept. */
      if (fluid_surfaces_is_fluid (&self->fluids, g))
        {
          if (geometry->body < query->n_bodies)
            moved[geometry->body] = TRUE;
          continue;
        }
      size_t n = 3 * geometry->n_points * sizeof (double);
      if (geometry->body < query->n_bodies && !first
          && memcmp (last, geometry->positions, n) != 0)
        moved[geometry->body] = TRUE;
      memcpy (last, geometry->positions, n);
      last += 3 * geometry->n_points;
    }
}

/* The pairs of the last detection, matched to this one's regions: a pair that was there
 * keeps its LDI and arrays (both lists are sorted by (body_a, body_b)), a new one starts
 * empty, and the pairs that no longer overlap are freed. */
static void
match_pairs (LdiModel *self)
{
  GArray *old = self->pairs;
  self->pairs = self->spare;
  self->spare = old;
  g_array_set_size (self->pairs, 0);
  guint o = 0;
  for (guint r = 0; r < self->regions.regions->len; r++)
    {
      const ContactRegion *region = &g_array_index (self->regions.regions, ContactRegion, r);
      while (o < old->len
             && (g_array_index (old, PairLdi, o).body_a < region->body_a
                 || (g_array_index (old, PairLdi, o).body_a == region->body_a
                     && g_array_index (old, PairLdi, o).body_b < region->body_b)))
        pair_ldi_clear (&g_array_index (old, PairLdi, o++));
      PairLdi pair;
      if (o < old->len && g_array_index (old, PairLdi, o).body_a == region->body_a
          && g_array_index (old, PairLdi, o).body_b == region->body_b)
        pair = g_array_index (old, PairLdi, o++);
      else
        pair_ldi_init (&pair, region->body_a, region->body_b);
      g_array_append_val (self->pairs, pair);
    }
  for (; o < old->len; o++)
    pair_ldi_clear (&g_array_index (old, PairLdi, o));
  g_array_set_size (old, 0);
}

/* Work over the pairs that need it: the small ones shared among the threads, each on one,
 * and the large ones one after another, each on all of them (PARALLEL_MIN_TRIANGLES). The
 * pairs' results do not depend on how they were shared. */
typedef struct PairJob {
  LdiModel *self;
  gboolean (*run) (struct PairJob *job, PairLdi *pair, GError **error);
  GArray *pending;        /* guint: indices into self->pairs of the pairs to work on */
  GArray *shared;         /* guint: indices into pending, the pairs run one per thread */
  GError **errors;        /* one per entry of pending */
} PairJob;

/* The k-th pending pair. */
static PairLdi *
job_pair (const PairJob *job, guint k)
{
  return &g_array_index (job->self->pairs, PairLdi, g_array_index (job->pending, guint, k));
}

static void
pair_job_item (guint item, gpointer data)
{
  PairJob *job = data;
  guint k = g_array_index (job->shared, guint, item);
  job->run (job, job_pair (job, k), &job->errors[k]);
}

static gboolean
pair_job_run (PairJob *job, GError **error)
{
  const LdiModelParams *p = &job->self->params;
  guint n = job->pending->len;
  job->errors = g_new0 (GError *, MAX (n, 1));
  job->shared = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint k = 0; k < n; k++)
    if (job_pair (job, k)->threads == 1)
      g_array_append_val (job->shared, k);
  /* The OpenGL context takes one call at a time. */
  ldi_parallel_for (job->shared->len, p->gl ? 1 : p->threads, pair_job_item, job);
  for (guint k = 0; k < n; k++)
    {
      PairLdi *pair = job_pair (job, k);
      if (pair->threads != 1)
        job->run (job, pair, &job->errors[k]);
    }
  gboolean ok = TRUE;
  for (guint k = 0; k < n; k++)
    if (job->errors[k] != NULL)
      {
        if (ok)
          g_propagate_error (error, job->errors[k]);
        else
          g_error_free (job->errors[k]);
        ok = FALSE;
      }
  g_clear_pointer (&job->errors, g_free);
  g_clear_pointer (&job->shared, g_array_unref);
  return ok;
}

static gboolean
raster_pair (PairJob *job, PairLdi *pair, GError **error)
{
  LdiModel *self = job->self;
  if (pair->ldi == NULL && pair->spare != NULL)
    {
      if (!ldi_reset (pair->spare, pair->box_min, pair->box_max, pair->pixel_size, error))
        return FALSE;
      pair->ldi = g_steal_pointer (&pair->spare);
    }
  if (pair->ldi == NULL
      && (pair->ldi = ldi_new (pair->box_min, pair->box_max, pair->pixel_size, error)) == NULL)
    return FALSE;
  const LdiSurface *surfaces = (const LdiSurface *) (void *) pair->surfaces->data;
  gboolean ok = self->params.gl
                  ? ldi_raster_gl (self->gl, pair->ldi, surfaces, pair->surfaces->len, error)
                  : ldi_raster_cpu (pair->ldi, surfaces, pair->surfaces->len, pair->threads,
                                    error);
  return ok;
}

/* The size of the last detection's LDIs, in the terms of Allard 2010 Table 1 (its "LDI
 * pixels" and "layers"), and what was rasterised anew, for G_MESSAGES_DEBUG=ldi:
 * bench/ldi_table1.sh reads it. Only built when the message would be shown. */
static void
log_ldi_size (const LdiModel *self, guint rasterised)
{
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    return;
  uint32_t width = 0, height = 0, layers = 0;
  size_t fragments = 0, triangles = 0;
  for (guint r = 0; r < self->pairs->len; r++)
    {
      const PairLdi *pair = &g_array_index (self->pairs, PairLdi, r);
      triangles += pair_ldi_triangles (pair);
      for (int axis = 0; axis < 3 && pair->ldi != NULL; axis++)
        {
          const LdiImage *image = &pair->ldi->images[axis];
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
           "%zu fragments, %u regions rasterised", self->pairs->len, triangles, width, height,
           layers, fragments, rasterised);
}

static gboolean
ldi_model_detect (void *data, const CwbContactQuery *raw_query, GError **error)
{
  LdiModel *self = data;
  const LdiModelParams *p = &self->params;
  if (p->gl && self->gl == NULL && (self->gl = ldi_gl_new (error)) == NULL)
    return FALSE;   /* switched to gl by a parameter edit on a machine without it */
  /* A fluid's surface: built at the step's detection, moved with its particles through the
   * vertices' weights at the post-stabilization's re-detections (the motion its rows
   * describe, so that a correction's effect is measured on the surface it was made for). */
  const CwbContactQuery *query
    = fluid_surfaces_query (&self->fluids, raw_query,
                            raw_query->pass == CWB_CONTACT_PASS_POSITION ? FLUID_SURFACES_FOLLOW
                                                                         : FLUID_SURFACES_BUILD);
  if (self->body_scale->len != query->n_bodies)
    measure_body_scales (self, query);
  contact_regions_find (&self->regions, query->geometries, query->n_geometries,
                        query->n_bodies, fixed_bodies (query));
  find_moved_bodies (self, query);
  match_pairs (self);

  const gboolean *moved = (const gboolean *) self->moved->data;
  PairJob job = { .self = self, .run = raster_pair,
                  .pending = g_array_new (FALSE, FALSE, sizeof (guint)) };
  for (guint r = 0; r < self->pairs->len; r++)
    {
      const ContactRegion *region = &g_array_index (self->regions.regions, ContactRegion, r);
      PairLdi *pair = &g_array_index (self->pairs, PairLdi, r);
      double h = pair_pixel_size (self, pair->body_a, pair->body_b);
      double grid = p->multi_volume ? pair_cell_size (p, h, fluid_pair_cell (self, pair->body_a, pair->body_b))
                                    : h;
      pair_ldi_place (pair, region->overlap_min, region->overlap_max, h, grid);
      const uint32_t *geometries = &g_array_index (self->regions.geometries, uint32_t,
                                                   region->first_geometry);
      if (pair->ldi != NULL && !moved[pair->body_a] && !moved[pair->body_b]
          && pair->surfaces->len == region->n_geometries)
        {
          /* Unchanged: the same fragments and volumes; only the arrays may have moved. */
          for (uint32_t i = 0; i < region->n_geometries; i++)
            g_array_index (pair->surfaces, LdiSurface, i).positions
              = query->geometries[geometries[i]].positions;
          continue;
        }
      g_clear_pointer (&pair->result, ldi_volume_result_free);
      pair_ldi_cull (pair, query->geometries, geometries, region->n_geometries);
      pair->threads = pair_ldi_triangles (pair) < PARALLEL_MIN_TRIANGLES ? 1 : p->threads;
      g_array_append_val (job.pending, r);
    }
  gboolean ok = pair_job_run (&job, error);
  guint rasterised = job.pending->len;
  g_array_unref (job.pending);
  if (!ok)
    {
      pairs_clear (self->pairs);   /* no partial detection survives */
      return FALSE;
    }
  log_ldi_size (self, rasterised);
  return TRUE;
}

static gboolean
measure_pair (PairJob *job, PairLdi *pair, GError **error)
{
  const LdiModelParams *p = &job->self->params;
  LdiVolumeParams volume_params = {
    .cell_size = p->multi_volume ? pair->grid : 0,
    .want_spans = p->inspect_spans,
    .n_threads = pair->threads,
    .gradient = p->gradient,
  };
  pair->result = ldi_intersection_volume (pair->ldi,
                                          (const LdiSurface *) (void *) pair->surfaces->data,
                                          pair->surfaces->len, &volume_params);
  return TRUE;
}

/* Shows a constrained volume: its gradient at every vertex and, for a cell (cell_size > 0),
 * the cell. */
static void
inspect_volume (CwbInspection *inspection, const Ldi *ldi, double cell_size,
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
  if (cell_size <= 0)
    return;
  CwbInspectCell cell = { .body_a = volume->body_a, .body_b = volume->body_b,
                          .volume = volume->volume, .frame = frame };
  ldi_cell_bounds (ldi, cell_size, volume->cell, cell.min, cell.max);
  g_array_append_val (inspection->cells, cell);
}

/* The identity of a pair's volume (contact_id.h): with cells (cell_size > 0), the cell's
 * coordinates on the pair's grid, its index in the LDI plus the LDI's origin, a multiple of
 * the cell size. */
static guint64
volume_id (double cell_size, const Ldi *ldi, const LdiVolume *volume)
{
  if (cell_size <= 0)
    return contact_id (volume->body_a, volume->body_b, NULL);
  int64_t cell[3];
  for (int k = 0; k < 3; k++)
    cell[k] = volume->cell[k] + (int64_t) llround (ldi->box_min[k] / cell_size);
  return contact_id (volume->body_a, volume->body_b, cell);
}

typedef struct ModelTotals {
  double volume;    /* the constrained volumes' sum, m^3 */
  double deepest;   /* the deepest constrained mean depth V / A, m */
} ModelTotals;

/* Whether a volume is constrained: not a self-intersection, not a round-off sliver. */
static gboolean
volume_counts (const LdiVolume *volume, double h)
{
  return volume->body_a != volume->body_b && volume->volume >= ROUND_OFF_VOXELS * h * h * h;
}

/* Appends one volume's contact (a pair's whole volume with cell_size 0, else a cell) to the
 * set, with its identity and its inspection. */
static void
append_volume (LdiModel *self, const CwbContactQuery *query, CwbContactSet *set,
               CwbInspection *inspection, const PairLdi *pair, double cell_size,
               const LdiVolume *volume, const CwbPointWeight *gradients,
               const double *pair_normal, guint64 id, ModelTotals *totals)
{
  const LdiModelParams *p = &self->params;
  double h = pair->pixel_size;
  if (!volume_counts (volume, h))
    return;
  double mu = cwb_friction_combine (query->friction[volume->body_a],
                                    query->friction[volume->body_b]);
  VolumeConstraintParams constraint = {
    .target_depth = p->target_depth * h,
    .friction = mu > 0 && query->pass == CWB_CONTACT_PASS_VELOCITY,
    .mu = mu,
    .pair_normal = pair_normal,
    .pixel_area = h * h,
    .cell_size = pair_normal != NULL ? cell_size : 0,
  };
  uint32_t frame = set->frames->len;
  if (!volume_constraint_append (set, volume, gradients, query->geometries, &constraint))
    return;
  cwb_contact_set_add_id (set, id);
  totals->volume += volume->volume;
  totals->deepest = MAX (totals->deepest, -g_array_index (set->frames, CwbContactFrame, frame).gap);
  inspect_volume (inspection, pair->ldi, cell_size, volume, gradients, query->geometries, frame);
}

/* Whether the cells [first, end) of one body pair's intersection should stay apart: they
 * reach beyond a block of 2 x 2 x 2 cells (patches apart, a torus on a torus), or their
 * whole patch (`whole`, its area measured only when the cells do not spread) covers more than
 * a cell's face. A smaller patch that a wall or a corner happens to cut has no pressure
 * distribution for cells to resolve (Allard 2010 sec. 5 splits a patch so that its parts can
 * stick, slide or open apart) and its pieces' rows would be near copies of each other on the
 * same few pixels: a ball resting across a cell corner, on four one-pixel cells, took the
 * solve to its cap and rolled off (docs/plugins/ldi.md). */
static gboolean
cells_apart (const GArray *cells, guint first, guint end, double h, double cell_size,
             const LdiVolume *whole, const CwbPointWeight *whole_gradients,
             const CwbGeometry *geometries)
{
  int32_t low[3] = { INT32_MAX, INT32_MAX, INT32_MAX };
  int32_t high[3] = { INT32_MIN, INT32_MIN, INT32_MIN };
  for (guint v = first; v < end; v++)
    {
      const LdiVolume *cell = &g_array_index (cells, LdiVolume, v);
      if (!volume_counts (cell, h))
        continue;
      for (int k = 0; k < 3; k++)
        {
          low[k] = MIN (low[k], cell->cell[k]);
          high[k] = MAX (high[k], cell->cell[k]);
        }
    }
  for (int k = 0; k < 3; k++)
    if (high[k] >= low[k] && (int64_t) high[k] - low[k] > 1)
      return TRUE;
  double normal[3];
  return volume_constraint_normal (whole, whole_gradients, geometries, normal)
         > cell_size * cell_size;
}

/* The pair's whole volume for bodies (a, b), NULL when it has none. */
static const LdiVolume *
pair_volume (const LdiVolumeResult *result, uint32_t a, uint32_t b)
{
  for (guint v = 0; v < result->pairs->len; v++)
    {
      const LdiVolume *volume = &g_array_index (result->pairs, LdiVolume, v);
      if (volume->body_a == a && volume->body_b == b)
        return volume;
    }
  return NULL;
}

/* A pair's whole volume kept as one contact (cells_apart), split at one body's vertices so
 * that it holds a tilt (patch_split.h); as one volume where it does not split. A part's
 * identity names its vertex: on a fluid's surface, rebuilt at every detection, a vertex
 * index means another place at the next one, so a fluid's split parts are, in effect, new
 * contacts each step (unique within the set still; a warm start may take a neighbouring
 * part's multiplier, which only changes where the solve starts). Cells and whole pairs keep
 * their identities, which name no vertex. */
static void
append_whole (LdiModel *self, const CwbContactQuery *query, CwbContactSet *set,
              CwbInspection *inspection, const PairLdi *pair, const LdiVolume *whole,
              const CwbPointWeight *gradients, ModelTotals *totals)
{
  const gboolean *fixed = fixed_bodies (query);
  uint32_t split_body, vertex_of_part[PATCH_SPLIT_MAX_PARTS];
  guint n_parts = patch_split (whole, gradients, query->geometries, fixed, self->split_parts,
                               self->split_gradients, &split_body, vertex_of_part);
  if (n_parts == 0)
    {
      append_volume (self, query, set, inspection, pair, 0, whole, gradients, NULL,
                     volume_id (0, pair->ldi, whole), totals);
      return;
    }
  for (guint k = 0; k < n_parts; k++)
    append_volume (self, query, set, inspection, pair, 0,
                   &g_array_index (self->split_parts, LdiVolume, k),
                   (const CwbPointWeight *) (void *) self->split_gradients->data, NULL,
                   contact_id_part (whole->body_a, whole->body_b, split_body,
                                    vertex_of_part[k]),
                   totals);
}

/* A multi-volume pair's contacts, body pair by body pair: its cells where they stay apart
 * (cells_apart), else its whole volume as one contact. */
static void
append_cells (LdiModel *self, const CwbContactQuery *query, CwbContactSet *set,
              CwbInspection *inspection, const PairLdi *pair, ModelTotals *totals)
{
  const LdiVolumeResult *result = pair->result;
  const GArray *cells = result->cells;
  const CwbPointWeight *cell_gradients
    = (const CwbPointWeight *) (void *) result->cell_gradients->data;
  const CwbPointWeight *whole_gradients
    = (const CwbPointWeight *) (void *) result->pair_gradients->data;
  guint first = 0;
  while (first < cells->len)
    {
      const LdiVolume *head = &g_array_index (cells, LdiVolume, first);
      guint end = first + 1;
      while (end < cells->len && g_array_index (cells, LdiVolume, end).body_a == head->body_a
             && g_array_index (cells, LdiVolume, end).body_b == head->body_b)
        end++;
      const LdiVolume *whole = pair_volume (result, head->body_a, head->body_b);
      if (whole != NULL
          && !cells_apart (cells, first, end, pair->pixel_size, pair->grid, whole,
                           whole_gradients, query->geometries))
        append_whole (self, query, set, inspection, pair, whole, whole_gradients, totals);
      else
        {
          double pair_normal[3];
          gboolean oriented = whole != NULL
                              && volume_constraint_normal (whole, whole_gradients,
                                                           query->geometries, pair_normal) > 0;
          for (guint v = first; v < end; v++)
            {
              const LdiVolume *cell = &g_array_index (cells, LdiVolume, v);
              append_volume (self, query, set, inspection, pair, pair->grid, cell,
                             cell_gradients, oriented ? pair_normal : NULL,
                             volume_id (pair->grid, pair->ldi, cell), totals);
            }
        }
      first = end;
    }
}

static gboolean
ldi_model_model (void *data, const CwbContactQuery *raw_query, CwbContactSet *set,
                 CwbInspection *inspection, GError **error)
{
  LdiModel *self = data;
  const LdiModelParams *p = &self->params;
  /* The surfaces of the detection just made, the other geometries as this query has them. */
  const CwbContactQuery *query = fluid_surfaces_query (&self->fluids, raw_query,
                                                       FLUID_SURFACES_KEEP);
  PairJob job = { .self = self, .run = measure_pair,
                  .pending = g_array_new (FALSE, FALSE, sizeof (guint)) };
  for (guint r = 0; r < self->pairs->len; r++)
    if (g_array_index (self->pairs, PairLdi, r).result == NULL)
      g_array_append_val (job.pending, r);
  gboolean ok = pair_job_run (&job, error);
  g_array_unref (job.pending);
  if (!ok)
    return FALSE;

  ModelTotals totals = { 0, 0 };
  double finest_pixel = INFINITY, finest_cell = INFINITY;
  for (guint r = 0; r < self->pairs->len; r++)
    {
      const PairLdi *pair = &g_array_index (self->pairs, PairLdi, r);
      const LdiVolumeResult *result = pair->result;
      finest_pixel = MIN (finest_pixel, pair->pixel_size);
      if (!p->multi_volume)
        for (guint v = 0; v < result->pairs->len; v++)
          {
            const LdiVolume *volume = &g_array_index (result->pairs, LdiVolume, v);
            append_volume (self, query, set, inspection, pair, 0, volume,
                           (const CwbPointWeight *) (void *) result->pair_gradients->data,
                           NULL, volume_id (0, pair->ldi, volume), &totals);
          }
      else
        {
          finest_cell = MIN (finest_cell, pair->grid);
          append_cells (self, query, set, inspection, pair, &totals);
        }
      if (result->spans == NULL)
        continue;
      for (guint s = 0; s < result->spans->len; s++)
        {
          const CwbInspectSpan *span = &g_array_index (result->spans, CwbInspectSpan, s);
          if (span->body_a != span->body_b)
            g_array_append_val (inspection->spans, *span);
        }
    }
  /* Entries on a fluid's surface vertices onto its particles: J^T of the vertices' weights. */
  fluid_surfaces_map_set (&self->fluids, set, inspection);
  set->intersection_volume = totals.volume;
  set->max_penetration = totals.deepest;   /* the deepest contact's mean depth V / A */
  if (CWB_STRUCT_HAS (set, CwbContactSet, stabilization_passes))
    set->stabilization_passes = STABILIZATION_PASSES;
  if (p->pixel_size <= 0 && isfinite (finest_pixel))
    cwb_inspection_add_derived (inspection, "pixel_size", finest_pixel);
  /* The cell used: derived when automatic, and a hand-set side rounded to whole pixels. */
  if (p->multi_volume && isfinite (finest_cell) && finest_cell != p->cell_size)
    cwb_inspection_add_derived (inspection, "cell_size", finest_cell);
  return TRUE;
}

/* Volume constraint rows, for the constraint solver (Allard 2010 sec. 4). */
static uint32_t
ldi_model_outputs (void *self)
{
  (void) self;
  return CWB_CONTACT_OUTPUT_ROWS;
}

static const CwbContactModelVTable ldi_model_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = ldi_model_create,
  .destroy = ldi_model_destroy,
  .attach = ldi_model_attach,
  .detect = ldi_model_detect,
  .model = ldi_model_model,
  .params_changed = ldi_model_params_changed,
  .outputs = ldi_model_outputs,
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

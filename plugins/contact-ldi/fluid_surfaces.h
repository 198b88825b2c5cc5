/* Volume particles (a fluid's, CWB_GEOMETRY_PARTICLES) shown to the LDI as the closed surface
 * reconstructed around them (plugins/common/particle-surface): the query's geometries with
 * each particles geometry replaced, at the same index and body, by its surface, so that the
 * LDI pipeline runs unchanged on them; and the contact set's entries on those surfaces'
 * vertices mapped back onto the particles through the vertices' weights (the J from vertices
 * to particles: particle i takes sum_v w_vi entry_v). */
#pragma once

#include <cwb/cwb.h>

#include "particle_surface.h"

G_BEGIN_DECLS

typedef struct FluidSurfaces {
  GArray *geometries;       /* CwbGeometry: the query's, particles replaced by surfaces */
  GPtrArray *surfaces;      /* ParticleSurface * per geometry, NULL for a surface geometry */
  CwbContactQuery query;    /* the query over `geometries` */
  gboolean any;             /* some geometry is particles */
  GArray *built_points;     /* size_t per geometry: its particles at its surface's build */
  /* scratch of fluid_surfaces_map_set */
  GArray *weights;          /* CwbPointWeight */
  GArray *slot;             /* uint32_t per (geometry, particle): its entry in the row */
  GArray *slot_first;       /* uint32_t per geometry: its first slot */
} FluidSurfaces;

void fluid_surfaces_init (FluidSurfaces *fluids);
void fluid_surfaces_clear (FluidSurfaces *fluids);

/* How fluid_surfaces_query brings the surfaces to the particles' current positions. */
typedef enum FluidSurfacesUpdate {
  FLUID_SURFACES_BUILD,     /* built anew (a step's detection) */
  FLUID_SURFACES_FOLLOW,    /* the last build's surfaces moved with their particles through
                             * the vertices' weights (a post-stabilization re-detection:
                             * the motion the rows' J describes; built anew where the
                             * particles changed in number) */
  FLUID_SURFACES_KEEP,      /* as they are (the modelling that follows a detection) */
} FluidSurfacesUpdate;

/* The query with every particles geometry replaced by its surface, brought to the
 * particles as `update` says (built where there is none yet), over this query's other
 * geometries. The query itself when no geometry is particles. */
const CwbContactQuery *fluid_surfaces_query (FluidSurfaces *fluids, const CwbContactQuery *query,
                                             FluidSurfacesUpdate update);

/* Whether geometry g is a reconstructed surface (of the last fluid_surfaces_query). */
static inline gboolean
fluid_surfaces_is_fluid (const FluidSurfaces *fluids, size_t g)
{
  return fluids->any && g < fluids->surfaces->len && fluids->surfaces->pdata[g] != NULL;
}

/* The grid cell of body b's reconstructed surface (of the last fluid_surfaces_query), 0 for
 * a body with none. */
double fluid_surfaces_body_cell (const FluidSurfaces *fluids, uint32_t body);

/* Maps every row weight of `set` and every inspection vector on a reconstructed surface's
 * vertex onto the particles (weights merged per particle within a row; a vector goes to the
 * vertex's heaviest particle, keeping its origin). Frames, violations and volumes are
 * unchanged. */
void fluid_surfaces_map_set (FluidSurfaces *fluids, CwbContactSet *set,
                             CwbInspection *inspection);

G_END_DECLS

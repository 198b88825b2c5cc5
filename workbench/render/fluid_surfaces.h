/* Particle bodies drawn as the surface of the volume their particles fill (a fluid's free
 * surface) instead of one octahedron per particle: CwbOverlayOptions.particle_style
 * CWB_PARTICLES_SURFACE. The surface is plugins/common/particle-surface's (Zhu and Bridson
 * 2005's field around the particles, extracted by marching tetrahedra: closed, outward), the
 * reconstruction the ldi contact model meets fluids with, drawn with a wider kernel
 * (fluid_surfaces.c).
 * Each vertex carries normalised kernel weights over the particles near it; a colour by
 * particle field (density error, pressure, speed) is the weighted mean of those particles'
 * values, so the surface shows the field the particles under it carry. Normals are the
 * field's gradient direction at each vertex: water reads as one smooth body.
 *
 * A surface is rebuilt only when its particles moved (or their count changed): a paused
 * viewport redraws without rebuilding. Kept apart from GL, as the overlays are, so that tests
 * can check the triangles and colours. */
#pragma once

#include "overlays.h"

G_BEGIN_DECLS

typedef struct CwbFluidSurfaces CwbFluidSurfaces;

CwbFluidSurfaces *cwb_render_fluid_surfaces_new (void);
void cwb_render_fluid_surfaces_free (CwbFluidSurfaces *surfaces);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbFluidSurfaces, cwb_render_fluid_surfaces_free)

/* One drawn surface of a particle body, borrowed until the next update. */
typedef struct CwbFluidSurfaceMesh {
  size_t n_vertices, n_triangles;
  const double *positions;   /* 3 per vertex, world frame */
  const double *normals;     /* 3 per vertex, unit, outward */
  const uint32_t *triangles; /* 3 per triangle, counter-clockwise seen from outside */
  const float *colors;       /* RGB per vertex when the elements overlay colours the body's
                              * particles (body_rgba's where no particle under a vertex has a
                              * value); NULL: body_rgba throughout */
  guint64 builds;            /* how many times this body's surface was built (tests: a
                              * redraw of the same state does not rebuild) */
} CwbFluidSurfaceMesh;

/* The surface of particle body `body` of the snapshot (kind CWB_GEOMETRY_PARTICLES with
 * radii), rebuilt when its particles moved since the last call for that body, with colours
 * per `options` (the elements overlay on and the body colourable: particle_fields.h) at
 * `scale`, body_rgba (the body's own colour) where none applies. FALSE for any other body. */
gboolean cwb_render_fluid_surface (CwbFluidSurfaces *surfaces, const CwbSnapshot *snapshot,
                                   size_t body, const CwbOverlayOptions *options, double scale,
                                   const float body_rgba[4], CwbFluidSurfaceMesh *mesh);

G_END_DECLS

/* The element overlay's colouring of particles: a body whose model reports node values (ABI
 * 1.22 inspect_nodes, CwbSnapshotBody's node_*) and is drawn as particles, one per node, has
 * each particle drawn in the colour of its density error, pressure or speed
 * (CwbOverlayOptions.particle_field) instead of the body's own. Kept apart from GL, as the
 * overlay geometry is, so that tests can check values, scales and colours. */
#pragma once

#include "overlays.h"

G_BEGIN_DECLS

/* TRUE when `body`'s particles can be coloured: a particles geometry with a node value per
 * point. */
gboolean cwb_render_particles_colorable (const CwbSnapshotBody *body);

/* The value of `field` at particle k of `body` (colourable): NAN where the model has none. */
double cwb_render_particle_value (CwbParticleField field, const CwbSnapshotBody *body, size_t k);

/* The scale the particles are coloured with: options->particle_scale, or, when it is 0
 * (automatic), the largest value of the field over the snapshot's colourable bodies (for the
 * density error, the largest compression: a free surface's particles, with neighbours
 * missing, are rarefied by tens of per cent and would take the scale from the compression
 * the solver bounds), at least 0.1 % of density, 1 Pa or 1 mm/s, so that a fluid at rest
 * shows pale, not its round-off at full colour. */
double cwb_render_particle_scale (const CwbSnapshot *snapshot, const CwbOverlayOptions *options);

/* The colour of `value` at `scale` (RGBA, opaque): the density error from blue (-scale,
 * rarefied) through white (0) to red (+scale, compressed); the pressure from white (0) to
 * red; the speed from white (0) to blue. */
void cwb_render_particle_color (CwbParticleField field, double value, double scale,
                                float rgba[4]);

/* Particle k's colour into rgb (rgba[3], the body's opacity, kept): unchanged where the value
 * is not known. */
void cwb_render_particle_tint (CwbParticleField field, const CwbSnapshotBody *body, size_t k,
                               double scale, float rgba[4]);

/* How many particles the options colour in the snapshot (the element overlay on, visible
 * colourable bodies). */
size_t cwb_render_particles_colored (const CwbSnapshot *snapshot,
                                     const CwbOverlayOptions *options);

G_END_DECLS

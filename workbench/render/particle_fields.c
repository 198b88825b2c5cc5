/* Particles coloured by their node values (particle_fields.h). */
#include "particle_fields.h"

#include <math.h>

/* The automatic scale's floors, below which a colour would show round-off: 0.1 % of density
 * (the sph model's default density_tolerance, so a fluid meeting it reads pale), 1 Pa (the
 * hydrostatic pressure of a tenth of a millimetre of water) and 1 mm/s. */
#define MIN_AUTO_DENSITY_ERROR 1e-3
#define MIN_AUTO_PRESSURE 1.0
#define MIN_AUTO_SPEED 1e-3

const char *const cwb_render_particle_field_names[CWB_RENDER_PARTICLE_FIELD_COUNT] = {
  "density", "pressure", "speed",
};

gboolean
cwb_render_particles_colorable (const CwbSnapshotBody *body)
{
  return body->kind == CWB_GEOMETRY_PARTICLES && body->n_node_values > 0
         && body->n_node_values == body->n_points;
}

double
cwb_render_particle_value (CwbParticleField field, const CwbSnapshotBody *body, size_t k)
{
  switch (field)
    {
    case CWB_PARTICLE_PRESSURE: return body->node_pressure[k];
    case CWB_PARTICLE_SPEED: return body->node_speed[k];
    case CWB_PARTICLE_DENSITY:
    default: return body->node_density_error[k];
    }
}

double
cwb_render_particle_scale (const CwbSnapshot *snapshot, const CwbOverlayOptions *options)
{
  if (options->particle_scale > 0)
    return options->particle_scale;
  CwbParticleField field = options->particle_field;
  double largest = field == CWB_PARTICLE_PRESSURE ? MIN_AUTO_PRESSURE
                   : field == CWB_PARTICLE_SPEED  ? MIN_AUTO_SPEED
                                                  : MIN_AUTO_DENSITY_ERROR;
  for (size_t i = 0; i < snapshot->n_bodies; i++)
    {
      const CwbSnapshotBody *b = &snapshot->bodies[i];
      if (!cwb_render_particles_colorable (b))
        continue;
      for (size_t k = 0; k < b->n_points; k++)
        {
          double value = cwb_render_particle_value (field, b, k);
          if (isfinite (value))
            largest = MAX (largest, value);
        }
    }
  return largest;
}

void
cwb_render_particle_color (CwbParticleField field, double value, double scale, float rgba[4])
{
  /* The element overlay's ramps: the volumetric strain's diverging blue-white-red for the
   * density error, the equivalent strain's white to red for the pressure, and the volumetric
   * one's blue half for the speed. */
  switch (field)
    {
    case CWB_PARTICLE_PRESSURE:
      cwb_render_element_color (CWB_ELEMENT_STRAIN, MAX (value, 0), scale, rgba);
      break;
    case CWB_PARTICLE_SPEED:
      cwb_render_element_color (CWB_ELEMENT_VOLUME, -MAX (value, 0), scale, rgba);
      break;
    case CWB_PARTICLE_DENSITY:
    default:
      cwb_render_element_color (CWB_ELEMENT_VOLUME, value, scale, rgba);
      break;
    }
}

void
cwb_render_particle_tint (CwbParticleField field, const CwbSnapshotBody *body, size_t k,
                          double scale, float rgba[4])
{
  double value = cwb_render_particle_value (field, body, k);
  if (!isfinite (value))
    return;
  float color[4];
  cwb_render_particle_color (field, value, scale, color);
  rgba[0] = color[0];
  rgba[1] = color[1];
  rgba[2] = color[2];
}

size_t
cwb_render_particles_colored (const CwbSnapshot *snapshot, const CwbOverlayOptions *options)
{
  size_t n = 0;
  for (size_t i = 0; options->elements && i < snapshot->n_bodies; i++)
    {
      const CwbSnapshotBody *b = &snapshot->bodies[i];
      if (cwb_render_particles_colorable (b) && cwb_render_body_opacity (options, b->name) > 0)
        n += b->n_points;
    }
  return n;
}

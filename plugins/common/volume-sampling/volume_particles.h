/* A closed surface's volume as particles (Faure 2007 sec. 5.4, the volume layer): the points
 * of a regular lattice that lie inside the surface, each standing for one lattice cell of
 * volume s^3 (s the spacing), as a sphere of that volume, radius s (3 / 4 pi)^(1/3), and an
 * equal share of the body's mass.
 *
 * The lattice is centred on the surface's bounding box, so a box whose sides are multiples
 * of s is filled exactly (its volume is n s^3). Inside and outside by scan conversion: each
 * lattice column along z crosses the surface an even number of times, and the points
 * between the first and second crossing, the third and fourth, ... are inside. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

#define VOLUME_PARTICLES_ERROR (g_quark_from_static_string ("volume-particles"))

/* A mapping's particle sampling, declared by each mapping that offers it. */
#define VOLUME_PARTICLES_PARAMS                                                               \
  { "sample", CWB_PARAM_ENUM, "", "surface", 0, 0, "surface|volume",                         \
    "What the body shows the contact models: `surface`, its triangle surface; `volume`, "    \
    "particles filling it on a lattice (Faure 2007 sec. 5.4), for models that read volume "  \
    "particles (eulerian)" },                                                                \
  { "particle_spacing", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,                           \
    "The lattice spacing of the volume's particles. 0: automatic, 1/10 of the body's "      \
    "largest extent" }

/* The automatic spacing's share of the surface's largest extent. */
#define VOLUME_PARTICLES_SPACING_OF_SIZE (1.0 / 10)
/* At most this many particles per body: a spacing far too small for its body is refused. */
#define VOLUME_PARTICLES_MAX (1u << 20)

/* The particles of a sampled volume: positions in the surface's frame. */
typedef struct VolumeParticles {
  double spacing;
  double radius;       /* of the sphere of volume spacing^3 */
  double *positions;   /* 3 * n */
  size_t n;
} VolumeParticles;

/* Samples the inside of the closed surface at `spacing` (0: automatic, see above). FALSE,
 * with a message naming the body, when the spacing leaves no point inside or too many. */
gboolean volume_particles_sample (const CwbSurfaceMesh *surface, double spacing,
                                  const char *body_name, VolumeParticles *out,
                                  GError **error);

void volume_particles_clear (VolumeParticles *particles);

/* The mapping's choice: TRUE when its parameters ask for a volume of particles. */
static inline gboolean
volume_particles_wanted (const CwbParamSet *params)
{
  return params != NULL && cwb_param_int (params, "sample", 0) == 1;
}

G_END_DECLS

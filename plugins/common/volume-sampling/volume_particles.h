/* A closed surface's volume as particles (Faure 2007 sec. 5.4, the volume layer, "sampling
 * particles attached to the body, with a volume assigned to each of them"): one particle per
 * cell of a regular lattice of spacing s that the surface's inside meets, standing for the
 * part of the cell inside: its volume that part's (s^3 for a cell wholly inside), its centre
 * that part's centroid, its mass the body's share by volume. Cells cut by the surface so get
 * lighter particles nearer the inside, and the particles hold the body's volume and shape to
 * the precision of the measure rather than of the lattice.
 *
 * The part of a cell inside is measured on a finer lattice, VOLUME_PARTICLES_SUBSAMPLES
 * points a side per cell, by scan conversion: each column of that lattice along z crosses
 * the surface an even number of times, and its points between the first and second
 * crossing, the third and fourth, ... are inside. The lattice is centred on the surface's
 * bounding box, so a box whose sides are multiples of s is cut into whole cells. */
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
    "The lattice spacing of the volume's particles. 0: automatic, 1/16 of the body's "      \
    "largest extent" }

/* The automatic spacing's share of the surface's largest extent: the Eulerian model's
 * automatic grid step for the body (16 points across). */
#define VOLUME_PARTICLES_SPACING_OF_SIZE (1.0 / 16)
/* At most this many particles per body: a spacing far too small for its body is refused. */
#define VOLUME_PARTICLES_MAX (1u << 20)

/* Sub-samples per cell and axis measuring the part of a cell inside: a cell cut by a plane
 * is measured to 1 / (2 x 4) of its volume at worst, and a body's total far better (the
 * errors of neighbouring cells cancel). */
#define VOLUME_PARTICLES_SUBSAMPLES 4

/* The particles of a sampled volume, in the surface's frame. */
typedef struct VolumeParticles {
  double spacing;
  double *positions;   /* 3 * n: the centroids of the cells' inner parts */
  double *volumes;     /* n: those parts' volumes */
  double volume;       /* their sum */
  size_t n;
} VolumeParticles;

/* The radius of the sphere of volume v: a particle's radius in its geometry. */
static inline double
volume_particles_radius (double v)
{
  return cbrt (3 * v / (4 * G_PI));
}

/* Samples the inside of the closed surface at `spacing` (0: automatic, see above). FALSE,
 * with a message naming the body, when the spacing leaves no point inside or too many. */
gboolean volume_particles_sample (const CwbSurfaceMesh *surface, double spacing,
                                  const char *body_name, VolumeParticles *out,
                                  GError **error);

void volume_particles_clear (VolumeParticles *particles);

/* The geometry's radii (spheres of the particles' volumes) and masses (the body's `mass`
 * shared by volume), n each, newly allocated. */
void volume_particles_layout (const VolumeParticles *particles, double mass, double **radii,
                              double **masses);

/* The mapping's choice: TRUE when its parameters ask for a volume of particles. */
static inline gboolean
volume_particles_wanted (const CwbParamSet *params)
{
  return params != NULL && cwb_param_int (params, "sample", 0) == 1;
}

G_END_DECLS

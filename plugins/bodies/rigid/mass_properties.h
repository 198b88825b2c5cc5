/* Mass properties of a closed triangle surface with uniform density: volume, centre of mass
 * and inertia tensor about it, by exact polyhedral integration (mass_properties.c). */
#pragma once

#include <cwb/geometry.h>

G_BEGIN_DECLS

#define RIGID_ERROR (rigid_error_quark ())
GQuark rigid_error_quark (void);

typedef enum RigidError {
  RIGID_ERROR_OPEN_SURFACE,  /* the surface has boundary or non-manifold edges */
  RIGID_ERROR_VOLUME,        /* enclosed volume not positive (empty or inside-out surface) */
  RIGID_ERROR_DENSITY,       /* density not positive */
} RigidError;

typedef struct RigidMassProperties {
  double volume;        /* m^3 */
  double mass;          /* kg */
  double com[3];        /* centre of mass, mesh frame */
  double inertia[9];    /* about the centre of mass, mesh axes, row-major, kg m^2 */
} RigidMassProperties;

/* Fills *out for `surface` (mesh frame) at `density`. Refuses an open surface, a
 * non-positive volume or density with a RIGID_ERROR naming `body_name` and the surface's
 * source. */
gboolean rigid_mass_properties_compute (const CwbSurfaceMesh *surface, double density,
                                        const char *body_name, RigidMassProperties *out,
                                        GError **error);

G_END_DECLS

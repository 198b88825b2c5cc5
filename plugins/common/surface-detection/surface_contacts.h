/* The detection the surface contact models (proximity, penalty) share: pairs of convex
 * polytopes by their clipped manifolds (convex_contact.h), every other pair by points inside
 * surfaces (collision_detection.h), in one call, so that no pair is detected twice. */
#pragma once

#include "collision_detection.h"
#include "convex_contact.h"

G_BEGIN_DECLS

typedef struct SurfaceContacts SurfaceContacts;
SurfaceContacts *surface_contacts_new (void);
void surface_contacts_free (SurfaceContacts *contacts);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SurfaceContacts, surface_contacts_free)

/* Fills `manifold` (ManifoldContact) with the manifolds of the pairs of polytopes within
 * params->margin, and `candidates` (ContactCandidate) with the point candidates of every
 * other pair (params->skip_pairs_among is the detector's own; the caller's is ignored). */
void surface_contacts_run (SurfaceContacts *contacts, const CwbGeometry *geometries,
                           size_t n_geometries, const DetectionParams *params,
                           GArray *manifold, GArray *candidates);

G_END_DECLS

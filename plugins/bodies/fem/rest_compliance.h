/* The rest compliance C0 of Saupin 2008 sec. 3.1 and its warping (eq. 23):
 *
 *   C0 = (M (1/h^2 + alpha/h) + K0 (1 + beta/h))^-1 = h^2 A0^-1,
 *   A0 = M (1 + h alpha) + K0 (h^2 + h beta),
 *
 * the displacement answering a force over one step of length h at rest (the paper's
 * (M0/h^2 (1 + a) + K0 (1 + b))^-1 with a = h alpha, b = beta / h for Rayleigh damping
 * D = alpha M + beta K). It is dense (every node answers a force at any node) and
 * precomputed once: A0 is factorised by CHOLMOD and solved for the identity's columns a
 * chunk at a time, reporting progress and stopping when the user cancels. Fixed nodes'
 * rows and columns are zero.
 *
 * The result is cached on disk, named by a digest of everything it depends on (rest nodes,
 * tetrahedra, node masses, fixed nodes, material, damping, h), and later loads map the file
 * read-only: bodies sharing a mesh and material (a rain of identical bodies) share one copy
 * in memory through the page cache.
 *
 * Warped application (sec. 3.2): dq = R C0 R^T r with R block diagonal of node rotations.
 * r is sparse (the few nodes a contact touches), so only its nonzero blocks' columns of C0
 * are read: O(3n) per touched node, independent of the mesh's element count. */
#pragma once

#include <cwb/cwb.h>

#include "block_matrix.h"

G_BEGIN_DECLS

typedef struct RestCompliance RestCompliance;

typedef struct RestComplianceSource {
  const BlockMatrix *a0;        /* A0 assembled, fixed nodes projected out */
  const gboolean *fixed;        /* per node */
  double h;
  GBytes *key;                  /* what C0 depends on, digested for the cache file name */
  const CwbHostServices *host;  /* progress, cancellation, cache folder */
  const char *what;             /* the progress text, e.g. "body 'link': compliance C0" */
  gboolean use_cache;
} RestComplianceSource;

/* Loads C0 from the cache or computes it (and stores it). Fails with G_IO_ERROR_CANCELLED
 * when the user cancels through the host's progress, or when A0 is not positive definite. */
RestCompliance *rest_compliance_new (const RestComplianceSource *source, GError **error);
void rest_compliance_free (RestCompliance *c0);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RestCompliance, rest_compliance_free)

double rest_compliance_h (const RestCompliance *c0);
/* Whether this C0 came from the cache file rather than being computed. */
gboolean rest_compliance_from_cache (const RestCompliance *c0);
/* Entry (i, j) of C0 (tests). */
double rest_compliance_entry (const RestCompliance *c0, size_t i, size_t j);

/* dq = R C0 R^T r (3n each); node_rotations: 9 per node, row-major; NULL for R = I. */
void rest_compliance_apply (const RestCompliance *c0, const double *node_rotations,
                            const double *r, double *dq);

G_END_DECLS

/* The compliance C of the bodies at one configuration, as the solver reads it: r -> C r per
 * body (Saupin 2008 eq. 14). A body with few DOFs (a rigid body's 6) gets its C as a dense
 * matrix, taken once per cache lifetime by applying the body model's operator to the unit
 * vectors; every later product is a small matrix-vector product instead of a call through
 * the host (a solve applies C once per row and body: thousands of calls a step on a
 * pyramid). Larger bodies (FEM) are applied through the host each time. The operator is
 * linear at a fixed configuration, so both give C r up to rounding. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

/* Bodies with at most this many DOFs are kept dense (nv^2 doubles each). */
#define COMPLIANCE_CACHE_MAX_DOFS 12

typedef struct ComplianceCache ComplianceCache;

ComplianceCache *compliance_cache_new (void);
void compliance_cache_free (ComplianceCache *cache);

/* Starts a lifetime: C at the flat configuration q (ctx->nq values) for `kind`; forgets the
 * matrices of the last one. q must stay valid and unchanged until the next begin. */
void compliance_cache_begin (ComplianceCache *cache, CwbStepContext *ctx, const double *q,
                             CwbCompliance kind);

/* dq = C_body r (the body's nv values each). */
void compliance_cache_apply (ComplianceCache *cache, uint32_t body, const double *r, double *dq);

G_END_DECLS

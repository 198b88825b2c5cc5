/* The compliance C of the bodies at one configuration, as the solver reads it: r -> C r per
 * body (Saupin 2008 eq. 14). A body with few DOFs (a rigid body's 6) gets its C as a dense
 * matrix, taken once per cache lifetime by applying the body model's operator to the unit
 * vectors; every later product is a small matrix-vector product instead of a call through
 * the host (a solve applies C once per row and body: thousands of calls a step on a
 * pyramid), over the matrix's nonzero entries only (a rigid body's 12 of 36). Larger bodies
 * are applied through the host each time (FEM), or, when their model declares C diagonal
 * (a fluid), by their diagonal. The operator is linear at a fixed configuration, so each
 * way gives C r up to rounding. */
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

/* The diagonal of C_body (nv values) when its body model declares C diagonal (a fluid's
 * particles, CwbBodyModelVTable.compliance_diagonal), taken on first use; NULL otherwise
 * (and for bodies kept dense). Valid until the next begin. */
const double *compliance_cache_diagonal (ComplianceCache *cache, uint32_t body);

/* dq = C_body r (the body's nv values each). */
void compliance_cache_apply (ComplianceCache *cache, uint32_t body, const double *r, double *dq);

/* C_body^-1 as a dense nv x nv matrix (column-major), taken on first use by a Cholesky
 * factorisation of the dense C; NULL for a body kept as an operator (more than
 * COMPLIANCE_CACHE_MAX_DOFS DOFs), a fixed body, or a C that is not symmetric positive
 * definite. Valid until the next begin. */
const double *compliance_cache_stiffness (ComplianceCache *cache, uint32_t body);

G_END_DECLS

/* The mobility of the penalty model's contact pairs over one step: Saupin 2008 eq. 19's
 * W = H C H^T written in the pattern the model's forces take. A pair force g at contact k
 * acts +w_kl g on the vertices l of its point i_k (+g on a lone vertex) and -h_kl g on the
 * vertices l of its triangle T_k (the post-correction's pattern, eq. 6, and the friction's,
 * sec. 4.1); the block W_jk (3 x 3, m/N) is the displacement of contact j's point relative
 * to its triangle location, sum_l w_jl dp_l - sum_l h_jl dp_l, that a unit pair force along
 * each axis at k causes. Contacts that share no movable geometry do not move each other
 * (zero blocks, not stored), so a fixed ground does not tie all its contacts together.
 *
 * Built once per model() call from the host's point_response (3 calls per contact, each
 * measured at the contacts it can move), so that the model's sweeps over its contacts (the
 * normal solve, the friction sweeps) cost 9 multiply-adds per coupled pair instead of a
 * point_response call each. W is linear in the forces, so every product equals the
 * point_response of the same forces up to round-off. */
#pragma once

#include <cwb/cwb.h>

#include "contact_force.h"

G_BEGIN_DECLS

typedef struct PairMobility PairMobility;

PairMobility *pair_mobility_new (void);
void pair_mobility_free (PairMobility *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PairMobility, pair_mobility_free)

/* W of the n pairs at the query's configuration. movable[g] (n_geometries entries): whether
 * geometry g can move; a pair couples with the others only through its movable sides. */
void pair_mobility_build (PairMobility *w, const CwbContactQuery *query,
                          const PenaltyPair *pairs, size_t n, const gboolean *movable);

/* W_kk, row-major (the pair's own mobility), times pair_mobility_own_scale. */
const double *pair_mobility_diagonal (const PairMobility *w, size_t k);

/* What the stored W_kk was scaled by: 1 while coupled; past the budget, the contacts k shares
 * its movable bodies with, itself included (as if each moved it as much as it does). */
double pair_mobility_own_scale (const PairMobility *w, size_t k);

/* acc[3 j .. 3 j + 2] += W_jk f for every contact j that k can move (k included). */
void pair_mobility_spread (const PairMobility *w, size_t k, const double f[3], double *acc);

/* out[3 j ..] = sum_k W_jk f[3 k ..] over all contacts (out is overwritten), with the same
 * query and pairs as the last build. From the stored blocks while coupled; past the budget,
 * where only the (scaled) diagonal is stored, from one point_response call with every
 * contact's force at every contact's points: the true coupled product all the same. */
void pair_mobility_apply (PairMobility *w, const CwbContactQuery *query,
                          const PenaltyPair *pairs, const double *f, double *out);

/* Stored blocks (coupled ordered pairs, the diagonal included), for statistics. */
size_t pair_mobility_n_blocks (const PairMobility *w);

/* FALSE when the last build stored the diagonal only: the contacts would have coupled in more
 * blocks than the memory budget (pair_mobility.c): each keeps its own block, scaled, and
 * products with W are made without it. */
gboolean pair_mobility_coupled (const PairMobility *w);

/* What one stored block takes: its 9 doubles and its row's index. */
#define PAIR_MOBILITY_BLOCK_BYTES 76

/* The memory budget in blocks (none until set); 0: W is never stored. */
void pair_mobility_set_max_blocks (PairMobility *w, size_t max_blocks);

G_END_DECLS

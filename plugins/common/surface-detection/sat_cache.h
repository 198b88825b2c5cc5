/* The separating-axis test's decision for a pair of polytopes, kept from one detection to the
 * next while the polytopes have not moved enough to change it (temporal coherence).
 *
 * The test's outcome for a pair (convex_contact.c) is a chain of comparisons: each face
 * query's best face against its runner-up, each query against the margin, the edge axis
 * against the best face (with its preference), one polytope's face against the other's.
 * Every value compared is a separation along an axis. A face's moves by no more than the
 * polytopes' vertices do plus what its normal turns times the pair's extent: with delta the
 * largest motion of a polytope's vertices since the decision was taken and L the polytope's
 * least half-thickness (its smallest distance from centroid to face, or half its shortest
 * edge), its faces turn by at most delta / L. The best edge axis's separation is bounded by
 * the pair's separation over all axes, which the test finds among its axes (it is complete)
 * and which moves by no more than delta_a + delta_b. The decision is kept while every
 * comparison's slack at the time it was taken exceeds what its two sides can have moved
 * since. A kept decision alone gives the same contacts, bit for bit, as the full test would:
 * the clipping, the points and the gaps are computed from it afresh, unless the pair's
 * manifold itself is kept (manifold_cache.h), which is within a bounded motion of them.
 *
 * Motion is measured against a snapshot of each polytope's vertices, renewed when the
 * polytope moved by more than a small part of its size (a moving body's at every detection)
 * or changed its structure; a decision is kept only within one snapshot. Pairs are looked up
 * in the order the detector collides them (by geometry indices), so the lookup is a walk
 * along the last detection's decisions. */
#pragma once

#include <cwb/cwb.h>

#include "convex_polytope.h"

G_BEGIN_DECLS

typedef enum {
  SAT_SEPARATED,   /* no contact within the margin */
  SAT_FACE_A,      /* a face of the pair's first polytope is the reference */
  SAT_FACE_B,      /* one of the second's */
} SatOutcome;

/* One decision and the slacks it was taken with (metres; see sat_cache.c). */
typedef struct SatDecision {
  SatOutcome outcome;
  uint32_t face;            /* the reference face, for SAT_FACE_A and SAT_FACE_B */
  double face_a_slack;      /* how far A's face separations were from changing it */
  double face_b_slack;      /* B's */
  double choice_slack;      /* how far A's best face was from B's as the reference */
  double edge_margin_slack; /* how far the best edge axis was from the margin */
  double edge_slack;        /* how far it was from replacing the best face */
} SatDecision;

typedef struct SatCache {
  gboolean enabled;
  GArray *snapshots;    /* PolytopeSnapshot per geometry */
  GArray *last, *next;  /* PairDecision: the last detection's, sorted by pair; this one's */
  guint cursor;         /* into last: the lookup's walk */
  guint kept;           /* decisions kept in this detection */
  uint64_t epoch;       /* the last snapshot taken */
} SatCache;

void sat_cache_init (SatCache *cache);
void sat_cache_clear (SatCache *cache);

/* Starts a detection over n_geometries geometries. */
void sat_cache_begin (SatCache *cache, size_t n_geometries);

/* Measures polytope g's motion since its snapshot (after every convex_polytope_update),
 * taking a new snapshot when it moved too far or its structure was rebuilt, and forgetting
 * it while the geometry is not a convex polytope. */
void sat_cache_track (SatCache *cache, uint32_t g, const ConvexPolytope *p,
                      const CwbGeometry *geometry);

/* The decision kept for pair (a, b), a < b, when it still holds at `margin`; pairs are
 * asked in increasing order within a detection. */
gboolean sat_cache_lookup (SatCache *cache, uint32_t a, uint32_t b, const ConvexPolytope *pa,
                           const ConvexPolytope *pb, double margin, SatDecision *decision);

/* Keeps the full test's decision for pair (a, b) at `margin`, for the next detection. */
void sat_cache_store (SatCache *cache, uint32_t a, uint32_t b, double margin,
                      const SatDecision *decision);

/* Ends the detection: its decisions become the ones looked up by the next. */
void sat_cache_end (SatCache *cache);

G_END_DECLS

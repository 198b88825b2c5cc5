/* Collision detection shared by the contact models that work with points inside closed
 * surfaces (penalty, proximity): the collision pairs (point i, triangle T_i) of Lazarevych et
 * al. section 3.3, with the barycentric coordinates h_ij of the contact location on T_i and the
 * penetration depth vector d_i, found by optimised spatial hashing (Teschner et al. 2003)
 * adapted to closed triangle surfaces.
 *
 * What it finds: a point i of a surface geometry A is in contact with a closed surface B
 * (B != A) when it lies inside B and its distance to B's surface is at most max_depth. The
 * contact location is the closest point of B's surface to i (the paper's "orthogonal
 * projection of the point i onto the surface of the triangle T_i"), T_i the triangle holding
 * it, d_i = contact location - point (pointing out of B, |d_i| = penetration depth), then
 * made consistent across each (A, B) contact region (see collision_detection.c).
 * With a margin > 0 (constraint models, which keep resting contacts from step to step), a
 * point OUTSIDE B (or on its surface) within `margin` of it is found too, from the same exact
 * nearest-feature search: its d_i = contact location - point points into B, its gap is
 * +|d_i| and its normal (p - contact location) / |d_i|, or the closest feature's
 * pseudo-normal when the point lies on the surface.
 *
 * Exact: for a closed, consistently oriented (manifold) surface B and a point within
 * max_depth of it, the inside test and the closest point are exact up to rounding (signed
 * distance with angle-weighted pseudo-normals, Baerentzen & Aanaes 2005).
 * Failure cases (by design of a penetration-depth contact model, documented here once):
 *  - a point deeper than max_depth inside B is not found at all (it is neither near B's
 *    surface nor otherwise known to be inside);
 *  - a point pushed past the middle of a part of B thinner than 2 max_depth is found
 *    relative to the far side, whose face is now the nearest: it is pushed through;
 *  - detection is by points (the paper's collisions (i, T_i)): edges crossing faces with no
 *    vertex inside are not found, and a vertex lying exactly on B's surface (distance 0, e.g.
 *    the corners of two equal boxes stacked exactly aligned, which sit on each other's
 *    vertical edges) is not inside. The models that use this detector hand pairs of convex
 *    polytopes to convex_contact.h instead (surface_contacts.h), whose face and edge
 *    manifolds see those contacts;
 *  - surfaces flagged closed that are not (holes, non-manifold edges) get approximate
 *    inside tests near the defects;
 *  - an open surface (closed == FALSE: a cloth, a fixed rectangle) has no inside: it is a
 *    sheet, met from the side a point came from (collision_detection.c,
 *    add_sheet_candidates), within a half-thickness of 5 % of its mean edge; a point
 *    carried through a sheet by more than the pair's band in one step (max_depth plus the
 *    pair's motion, for a sheet whether or not one of the two is fixed) is not found, and an
 *    edge cutting through a sheet's triangle with no vertex through it (a box's edges pressed
 *    into a cloth) is not found either;
 *  - the consistency pass rewrites only depth vectors that disagree with a dominant direction
 *    (see collision_detection.c); genuinely multi-directional contacts are left as found. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef struct ContactCandidate {
  uint32_t point_geometry;    /* geometry (= index in the geometries array) of the penetrating point i */
  uint32_t point;             /* its point index */
  uint32_t surface_geometry;  /* the closed surface it penetrates */
  uint32_t triangle;          /* T_i: triangle index in that surface */
  double bary[3];             /* h_ij: barycentric coordinates of the contact location on T_i */
  double depth[3];            /* d_i: from the point to the contact location, pointing out of the
                               * surface for a point inside it (|d_i| = penetration depth), into it
                               * for a point outside within the margin; for a particle, the
                               * sphere's penetration along the outward normal */
  double gap;                 /* signed distance of the point to the surface along d_i: -|d_i|
                               * inside, +|d_i| outside (0 on the surface) */
  double normal[3];           /* unit, out of the surface at the contact: d_i / |d_i| inside,
                               * -d_i / |d_i| outside, the closest feature's pseudo-normal on it */
} ContactCandidate;

/* The identity of a candidate's contact frame (CwbContactSet.contact_ids): (point geometry,
 * point, surface geometry), not its triangle, so a point sliding across the triangles of a
 * surface stays one contact for a solver's warm start (the detector gives at most one
 * candidate per (point, surface), so it is unique in a set). Packed exactly while both
 * geometry indices fit in 16 bits, mixed beyond that (a clash only costs two contacts their
 * warm start); never 0, since a point never touches its own geometry. Manifold identities
 * (convex_contact.c) are hashes, as unlikely to meet these as each other. */
static inline guint64
contact_candidate_id (const ContactCandidate *c)
{
  guint64 pg = c->point_geometry, sg = c->surface_geometry;
  if (pg <= 0xffff && sg <= 0xffff)
    return (pg << 48) | (sg << 32) | c->point;
  return ((pg * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) ^ (sg << 32) ^ c->point) | 1;
}

/* Whether the detector reads the geometry's points: a triangle surface's vertices, or
 * particles with their radii (spheres whose centres the contacts join to surfaces). */
static inline gboolean
detection_geometry_has_points (const CwbGeometry *geometry)
{
  return geometry->kind == CWB_GEOMETRY_SURFACE
         || (geometry->kind == CWB_GEOMETRY_PARTICLES
             && (geometry->radii != NULL || geometry->n_points == 0));
}

typedef struct CollisionDetector CollisionDetector;
CollisionDetector *collision_detector_new (void);
void collision_detector_free (CollisionDetector *detector);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CollisionDetector, collision_detector_free)

/* The box of a geometry's point velocities (m/s); zero for a fixed body's. */
typedef struct DetectionVelocities {
  double lo[3], hi[3];
  gboolean fixed;   /* the geometry's body never moves */
} DetectionVelocities;

typedef struct DetectionParams {
  /* Hash cell edge (m). <= 0: automatic, the median edge length of all surface geometries'
   * triangles (Teschner 2003 section 5: cells of about the mean edge length are fastest; the
   * median ignores outliers such as the ground's 20 m edges), recomputed every run. */
  double cell_size;
  /* Deepest penetration searched (m), > 0: points deeper than this inside a surface are not
   * found (they are neither near the surface nor otherwise known to be inside). */
  double max_depth;
  /* Outside reach (m), >= 0: points outside a surface, or on it, within this distance are
   * candidates too (gap >= 0). 0: points inside only (the penalty model). The consistency
   * pass only ever rewrites inside candidates. */
  double margin;
  /* FALSE (default): run the consistency pass on the depth vectors (collision_detection.c);
   * TRUE: return the raw closest-feature depths (tests, inspection). */
  gboolean raw_depths;
  /* NULL, or per geometry: pairs of two flagged geometries are left out (another detector,
   * convex_contact.h, handles them). */
  const gboolean *skip_pairs_among;
  /* NULL, or per geometry: the box of its points' velocities (detection_motion). A pair of
   * a moving and a fixed geometry searches max_depth + d deep, d = motion_time |v| at most
   * over the moving one's box: how far the step can have taken its points in. A fast point
   * is found however deep one step took it through the face it crossed (entered_this_step
   * in collision_detection.c), while bodies at rest keep the narrow band. Only against a
   * fixed body (the floor a dropped body must not fall through): between two moving FEM
   * bodies the wider band let the rain's 40 piled cows find points of each other deeper than
   * their thin parts' middles, and even with the entry check they ran 3 times slower, 4.8
   * cm deep. The margin outside is not widened either: speculative contacts a step ahead
   * of every falling body tripled the contacts of 12 falling cows (proximity, 432 -> 1632 a
   * step, 1.5 times the run's time) and caught nothing the deeper search does not. */
  const DetectionVelocities *motion;
  double motion_time;   /* s: MOTION_STEPS h */
} DetectionParams;

/* Fills `candidates` (cleared first; GArray of ContactCandidate) with one candidate per
 * (point, closed surface of ANOTHER geometry) where the point lies inside that surface within
 * max_depth, or outside it within margin, in a deterministic order (sorted by point_geometry,
 * point, surface_geometry).
 * Geometries: the CwbGeometry array of geometry.h: SURFACE, and PARTICLES with radii, whose
 * spheres penetrate closed surfaces (gap measured from the sphere, add_particle_candidates
 * in collision_detection.c) but are never penetrated: two particle geometries do not meet;
 * open surfaces (closed == FALSE) are sheets, which points and particles meet from either
 * side (add_sheet_candidates), and whose points penetrate others). No self-collision. Points with a non-finite coordinate are ignored. Allocates
 * nothing once the sizes have settled (except growing `candidates` itself). */
void collision_detector_run (CollisionDetector *detector, const CwbGeometry *geometries,
                             size_t n_geometries, const DetectionParams *params,
                             GArray *candidates);

/* Statistics of the last run for the report/inspection/benchmarks. */
typedef struct DetectionStats {
  double cell_size;              /* the cell edge used (m) */
  size_t table_size;             /* hash buckets */
  size_t points_hashed;          /* points put into the table */
  size_t pairs_tested;           /* (point geometry, closed surface) pairs whose boxes overlap */
  size_t cells_visited;          /* triangle-cell queries (hash lookups) */
  size_t hash_collisions;        /* bucket entries rejected because their cell differs from the queried one */
  size_t direct_scans;           /* triangle queries answered by scanning the geometry's points
                                  * instead, because the box held more cells than the geometry has points */
  size_t point_triangle_tests;   /* exact point-triangle tests (point inside a triangle's query box) */
  size_t edge_vertex_contacts;   /* inside candidates whose closest feature is an edge or a
                                  * vertex (inside decided by a pseudo-normal) */
  size_t outside_contacts;       /* candidates outside their surface, within the margin */
  size_t sheet_pairs;            /* pairs whose surface is open (a sheet, met from its sides) */
  size_t consistency_fixes;      /* candidates rewritten by the consistency pass */
  size_t growths;                /* internal buffer (re)allocations: 0 in steady state */
} DetectionStats;

const DetectionStats *collision_detector_get_stats (const CollisionDetector *detector);

/* For tests: forces the hash table to `table_size` buckets (any size >= 1, even 1: every
 * cell collides); 0 restores the automatic prime. */
void collision_detector_set_table_size (CollisionDetector *detector, size_t table_size);

/* The detection parameters a contact model using this detector declares, the same names,
 * units, defaults, ranges and help in every such model: entries of its CwbParamSpec array,
 * read back with detection_params_read. */
#define DETECTION_PARAM_SPECS                                                               \
  { "max_depth", CWB_PARAM_DOUBLE, "m", "0", 0, 10, NULL,                                  \
    "Deepest penetration searched beyond what the pair moved over the step: points deeper "  \
    "inside a body are not found; 0: automatic, 2 % of the moving bodies' median size or "   \
    "1.5 times the last step's deepest penetration, at most 10 % of that size" },           \
  { "cell_size", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,                                  \
    "Spatial hash cell edge; 0 chooses it from the meshes' edge lengths" }

/* What a model keeps between its detections for the depth they search (detection_resolve). */
typedef struct DetectionDepth {
  double param;     /* the max_depth parameter: 0 automatic */
  double deepest;   /* the deepest penetration its last detection found (m); 0 after attach */
  GArray *motion;   /* DetectionVelocities per geometry (detection_motion) */
} DetectionDepth;

void detection_depth_init (DetectionDepth *depth);
void detection_depth_clear (DetectionDepth *depth);

/* Sets depth->param (max_depth, 0: automatic) and params->cell_size from a parameter set
 * declared with DETECTION_PARAM_SPECS; leaves the other fields. */
void detection_params_read (DetectionParams *params, DetectionDepth *depth,
                            const CwbParamSet *set);

/* The automatic max_depth: the larger of MAX_DEPTH_OF_SIZE times the moving surfaces' median
 * size (2 cm for 1 m boxes, the value every shipped scene was tuned with) and
 * MAX_DEPTH_OF_DEEPEST times `deepest`, the deepest penetration the model found in its last
 * detection, so that a resting overlap deeper than the floor (a load, a swap from a model
 * with a thicker layer) stays found; at most MAX_DEPTH_CEILING_OF_SIZE times the median
 * size. Without that ceiling the band fed on itself where bodies sank into each other (each
 * detection finding points 1.5 times deeper than the last): 40 FEM cows swapped to penalty
 * mid-fall grew their contacts until the run took 24 GB and was killed. What a step's
 * motion adds comes per pair, from detection_motion. */
#define MAX_DEPTH_OF_SIZE 0.02
#define MAX_DEPTH_OF_DEEPEST 1.5
#define MAX_DEPTH_CEILING_OF_SIZE 0.1
double detection_automatic_max_depth (const CwbContactQuery *query, double deepest);

/* Per geometry of the query, into motion[n_geometries]: the box of its points' velocities
 * (zero for a fixed body's, and for non-finite ones) and whether it is fixed. A point
 * approaching a fixed surface at v went v h into it since the last detection
 * (DetectionParams.motion_time = MOTION_STEPS h; the velocity is the one the step ended
 * with, the fastest of the step under gravity). Without it a FEM ball dropped 5 m (10 m/s at
 * dt 0.005, 5 cm a step) passed the fixed 2 cm band and sank into the ground under penalty
 * and proximity. */
#define MOTION_STEPS 1.0
void detection_motion (const CwbContactQuery *query, DetectionVelocities *motion);

/* What a model's detection uses this step: params->max_depth from depth->param (> 0 as
 * given, else detection_automatic_max_depth with depth->deepest), params->motion into
 * depth->motion and params->motion_time. */
void detection_resolve (DetectionParams *params, DetectionDepth *depth,
                        const CwbContactQuery *query);

/* Publishes the max_depth the last detection used, where it was automatic. */
void detection_depth_publish (const DetectionDepth *depth, const DetectionParams *params,
                              CwbInspection *inspection);

/* The margin of a model whose margin parameter is automatic: the larger of
 *   MARGIN_STEPS_OF_FALL |g| h^2, a few steps' worth of the distance gravity adds between
 *     two bodies in one step (g h^2, the sinking of a resting contact's free motion), and
 *   MARGIN_OF_SIZE times the median size (largest box extent) of the moving surfaces, for
 *     scenes whose g h^2 is tiny against their bodies (small steps, large bodies).
 * Any margin above the solve's residual holds stacks of bodies that fall together; a wider
 * one only adds contacts (on the 40 Spot cows of scenes/rain.yaml, 1 % of their size, 2.1 mm,
 * gave 2.6 times the contacts of no margin; 0.2 % gives 4 g h^2 = 0.98 mm).
 * Gravity from the query (ABI 1.6; taken as 0 from an older host), moving bodies from
 * body_fixed (ABI 1.4; every body otherwise). */
#define MARGIN_STEPS_OF_FALL 4.0
#define MARGIN_OF_SIZE 0.002
double detection_automatic_margin (const CwbContactQuery *query);

/* For a model's attach: refuses (FALSE, with a message naming the body and `model`, which is
 * also the error domain) geometries the detector cannot see (anything but surfaces and
 * particles with radii), and particles of two bodies, which it would let pass through each
 * other. */
gboolean detection_check_geometries (const CwbGeometry *geometries, size_t n_geometries,
                                     const char *model, GError **error);

G_END_DECLS

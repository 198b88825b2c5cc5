/* The separating-axis decision kept from one detection to the next (see the header). */
#include "sat_cache.h"

#include <math.h>

/* A polytope's snapshot is taken again once a vertex moved from it by this part of the
 * polytope's radius: a resting stack's boxes move by 1e-9 of their size a step and keep one
 * for hundreds of steps, while the slacks of their decisions are 1e-4 of it (the face
 * preference, convex_contact.c); a moving body takes one at every detection. */
#define SNAPSHOT_MOTION 1e-6
/* The margin of the bound on how far a face's normal turns: at most delta / L for a rigid
 * motion (across any axis some point of the polytope lies L from the centroid, and the
 * farthest such is a vertex), about as much for a deformation of its vertices; twice that
 * covers a face's plane fitted to vertices moved apart. */
#define TURN_FACTOR 2.0

typedef struct PolytopeSnapshot {
  uint64_t epoch;           /* 0: none */
  size_t n;                 /* vertices */
  double *x;                /* their positions, 3 n */
  double thickness;         /* L: least of centroid-to-face distances and half edges */
  double motion;            /* the largest vertex motion since, at this detection */
} PolytopeSnapshot;

typedef struct PairDecision {
  uint32_t a, b;
  uint64_t epoch_a, epoch_b;
  double motion_a, motion_b;   /* each polytope's motion from its snapshot when decided */
  double margin;
  SatDecision decision;
} PairDecision;

void
sat_cache_init (SatCache *cache)
{
  memset (cache, 0, sizeof *cache);
  cache->enabled = TRUE;
  cache->snapshots = g_array_new (FALSE, TRUE, sizeof (PolytopeSnapshot));
  cache->last = g_array_new (FALSE, FALSE, sizeof (PairDecision));
  cache->next = g_array_new (FALSE, FALSE, sizeof (PairDecision));
}

/* Drops the snapshots of geometries from `from` on. */
static void
drop_snapshots (SatCache *cache, guint from)
{
  for (guint k = from; k < cache->snapshots->len; k++)
    g_free (g_array_index (cache->snapshots, PolytopeSnapshot, k).x);
}

void
sat_cache_clear (SatCache *cache)
{
  if (cache->snapshots != NULL)
    drop_snapshots (cache, 0);
  g_clear_pointer (&cache->snapshots, g_array_unref);
  g_clear_pointer (&cache->last, g_array_unref);
  g_clear_pointer (&cache->next, g_array_unref);
}

void
sat_cache_begin (SatCache *cache, size_t n_geometries)
{
  /* Geometries beyond the last count start without a snapshot (the array clears them). */
  drop_snapshots (cache, (guint) n_geometries);
  g_array_set_size (cache->snapshots, (guint) n_geometries);
  g_array_set_size (cache->next, 0);
  cache->cursor = 0;
  cache->kept = 0;
}

static const double *
position (const CwbGeometry *g, uint32_t v)
{
  return &g->positions[3 * v];
}

/* L of the header: the polytope's least half-thickness. */
static double
thickness (const ConvexPolytope *p, const CwbGeometry *g)
{
  double least = INFINITY;
  for (uint32_t f = 0; f < p->n_faces; f++)
    least = fmin (least, p->faces[f].offset - cwb_v3_dot (p->faces[f].normal, p->centroid));
  for (uint32_t e = 0; e < p->n_edges; e++)
    {
      double d[3];
      cwb_v3_sub (d, position (g, p->edges[e].v[1]), position (g, p->edges[e].v[0]));
      least = fmin (least, 0.5 * cwb_v3_norm (d));
    }
  return least;
}

static void
take_snapshot (SatCache *cache, PolytopeSnapshot *s, const ConvexPolytope *p,
               const CwbGeometry *g)
{
  if (s->n != p->n_vertices)
    {
      s->n = p->n_vertices;
      s->x = g_renew (double, s->x, 3 * s->n);
    }
  convex_polytope_positions (p, g, s->x);
  s->epoch = ++cache->epoch;
  s->thickness = thickness (p, g);
  s->motion = 0;
}

void
sat_cache_track (SatCache *cache, uint32_t g, const ConvexPolytope *p,
                 const CwbGeometry *geometry)
{
  PolytopeSnapshot *s = &g_array_index (cache->snapshots, PolytopeSnapshot, g);
  /* A polytope that is not one now takes a new snapshot when it is again (its structure may
   * have been rebuilt meanwhile, unseen). */
  if (!cache->enabled || !p->convex)
    {
      s->epoch = 0;
      return;
    }
  /* A rebuilt structure numbers its faces anew: the decisions naming the old ones go with
   * the old snapshot. */
  if (s->epoch != 0 && !p->rebuilt && s->n == p->n_vertices)
    {
      s->motion = convex_polytope_motion (p, geometry, s->x);
      if (s->motion <= SNAPSHOT_MOTION * p->radius && s->thickness > 2 * s->motion)
        return;
    }
  take_snapshot (cache, s, p, geometry);
}

/* Whether the decision still holds after the polytopes moved by motion_a and motion_b. */
static gboolean
still_holds (const SatDecision *d, const ConvexPolytope *pa, const ConvexPolytope *pb,
             double motion_a, double motion_b, double thickness_a, double thickness_b)
{
  double span[3];
  cwb_v3_sub (span, pa->centroid, pb->centroid);
  double extent = cwb_v3_norm (span) + pa->radius + pb->radius;
  double turn_a = TURN_FACTOR * motion_a / thickness_a;
  double turn_b = TURN_FACTOR * motion_b / thickness_b;
  double moved = motion_a + motion_b;
  double moved_a = moved + turn_a * extent, moved_b = moved + turn_b * extent;
  if (d->outcome == SAT_SEPARATED)
    return d->face_a_slack > moved_a || d->face_b_slack > moved_b;
  /* The best edge axis's separation is at most the pair's separation over every axis,
   * which the test found (the largest of its three queries) and which moves by at most
   * `moved`; edge_slack and edge_margin_slack were measured from that largest value. */
  double moved_edge = moved;
  /* The preferences scale with the smaller radius, which moves by twice the motion. */
  double scale_moved = 2 * moved;
  return d->face_a_slack > moved_a && d->face_b_slack > moved_b
         && d->choice_slack > moved_a + moved_b + scale_moved
         && d->edge_margin_slack > moved_edge
         && d->edge_slack > fmax (moved_a, moved_b) + moved_edge + scale_moved;
}

gboolean
sat_cache_lookup (SatCache *cache, uint32_t a, uint32_t b, const ConvexPolytope *pa,
                  const ConvexPolytope *pb, double margin, SatDecision *decision)
{
  if (!cache->enabled)
    return FALSE;
  const PairDecision *last = (const PairDecision *) cache->last->data;
  while (cache->cursor < cache->last->len
         && (last[cache->cursor].a < a || (last[cache->cursor].a == a && last[cache->cursor].b < b)))
    cache->cursor++;
  if (cache->cursor == cache->last->len || last[cache->cursor].a != a
      || last[cache->cursor].b != b)
    return FALSE;
  const PairDecision *kept = &last[cache->cursor];
  const PolytopeSnapshot *sa = &g_array_index (cache->snapshots, PolytopeSnapshot, a);
  const PolytopeSnapshot *sb = &g_array_index (cache->snapshots, PolytopeSnapshot, b);
  if (kept->margin != margin || kept->epoch_a != sa->epoch || kept->epoch_b != sb->epoch
      || sa->epoch == 0 || sb->epoch == 0
      || !still_holds (&kept->decision, pa, pb, sa->motion + kept->motion_a,
                       sb->motion + kept->motion_b, sa->thickness, sb->thickness))
    return FALSE;
  *decision = kept->decision;
  cache->kept++;
  /* Kept for the next detection as it was taken. */
  g_array_append_val (cache->next, *kept);
  return TRUE;
}

void
sat_cache_store (SatCache *cache, uint32_t a, uint32_t b, double margin,
                 const SatDecision *decision)
{
  const PolytopeSnapshot *sa = &g_array_index (cache->snapshots, PolytopeSnapshot, a);
  const PolytopeSnapshot *sb = &g_array_index (cache->snapshots, PolytopeSnapshot, b);
  if (!cache->enabled || sa->epoch == 0 || sb->epoch == 0)
    return;
  PairDecision kept = {
    .a = a, .b = b,
    .epoch_a = sa->epoch, .epoch_b = sb->epoch,
    .motion_a = sa->motion, .motion_b = sb->motion,
    .margin = margin,
    .decision = *decision,
  };
  g_array_append_val (cache->next, kept);
}

void
sat_cache_end (SatCache *cache)
{
  GArray *swap = cache->last;
  cache->last = cache->next;
  cache->next = swap;
  g_array_set_size (cache->next, 0);
}

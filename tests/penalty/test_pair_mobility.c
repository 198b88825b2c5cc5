/* The penalty model's pair mobility W (plugins/contact-penalty/pair_mobility.c), built from
 * the host's point_response, against point_response itself: W f for any pair forces f
 * equals one batched point_response of all their pair patterns measured at every contact,
 * and each column spread equals the per-contact query of that contact's pattern alone.
 * Pairs on a fixed body do not couple through it. W is linear, so both agree to round-off:
 * 1e-12 of the largest displacement (sums of a few dozen products of order-1 numbers). */
#include <math.h>

#include "pair_mobility.h"
#include "world_fixture.h"
#include "world_private.h"

#define RESPONSE_TOLERANCE 1e-12

/* Two turned boxes on a fixed one, and a third box apart. */
static const char *scene_yaml =
  "world: { dt: 0.01, gravity: [0, 0, -9.81] }\n"
  "bodies:\n"
  "  - name: base\n"
  "    shape: { type: box, size: [2, 2, 0.5] }\n"
  "    pose: { position: [0, 0, -0.25] }\n"
  "    fixed: true\n"
  "  - name: a\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [0, 0, 0.2], orientation: [0.9589, 0.1417, 0.1963, 0.1440] }\n"
  "    material: { density: 500 }\n"
  "  - name: b\n"
  "    shape: { type: box, size: [0.4, 0.6, 0.4] }\n"
  "    pose: { position: [0.1, 0.2, 0.6], orientation: [0.8, 0.6, 0, 0] }\n"
  "    material: { density: 700 }\n"
  "  - name: c\n"
  "    shape: { type: box, size: [0.4, 0.4, 0.4] }\n"
  "    pose: { position: [3, 0, 0.2] }\n"
  "    material: { density: 500 }\n";

/* Hand-made pairs (point of one geometry, triangle of another), some on the fixed base; the
 * last two with a weighted point (of an edge, of a face) on the A side, as a manifold
 * contact makes. */
static void
make_pairs (const CwbGeometry *g, PenaltyPair *pairs, size_t *n)
{
  const struct { uint32_t pg, p, sg, t; double bary[3]; uint32_t more[2]; double w[3]; } spec[] = {
    { 1, 0, 0, 2, { 0.2, 0.3, 0.5 }, { 0 }, { 0 } },   /* a on the base */
    { 1, 3, 0, 3, { 0.6, 0.4, 0 }, { 0 }, { 0 } },     /* a on the base, on an edge */
    { 2, 1, 1, 4, { 0.1, 0.1, 0.8 }, { 0 }, { 0 } },   /* b on a */
    { 1, 6, 2, 7, { 1.0 / 3, 1.0 / 3, 1.0 / 3 }, { 0 }, { 0 } },   /* a on b */
    { 3, 2, 0, 1, { 0.5, 0.25, 0.25 }, { 0 }, { 0 } }, /* c on the base: coupled with nothing */
    { 2, 5, 1, 9, { 0, 1, 0 }, { 0 }, { 0 } },         /* b on a vertex of a */
    { 2, 1, 1, 2, { 0.3, 0.3, 0.4 }, { 3 }, { 0.35, 0.65 } },          /* b's edge on a */
    { 1, 0, 2, 5, { 0.5, 0.5, 0 }, { 2, 6 }, { 0.2, 0.3, 0.5 } },      /* a's face on b */
  };
  *n = G_N_ELEMENTS (spec);
  for (size_t k = 0; k < *n; k++)
    {
      pairs[k] = (PenaltyPair){ .surface_geometry = spec[k].sg };
      penalty_pair_set_vertex (&pairs[k], spec[k].pg, spec[k].p);
      if (spec[k].w[0] > 0)
        {
          pairs[k].n_points = spec[k].w[2] > 0 ? 3 : 2;
          pairs[k].points[1] = spec[k].more[0];
          pairs[k].points[2] = spec[k].w[2] > 0 ? spec[k].more[1] : spec[k].p;
          memcpy (pairs[k].weights, spec[k].w, sizeof pairs[k].weights);
        }
      memcpy (pairs[k].bary, spec[k].bary, sizeof pairs[k].bary);
      for (int v = 0; v < 3; v++)
        pairs[k].vertices[v] = g[spec[k].sg].triangles[3 * spec[k].t + v];
    }
}

/* The pattern of pair force f at pair p (+w_k f on i's vertices, -h_j f on T's) and p's 6
 * points (i's three, unused ones with weight 0, then T's). */
static void
pattern (const PenaltyPair *p, const double f[3], CwbPointWeight forces[6], CwbPointWeight at[6])
{
  for (int k = 0; k < 3; k++)
    {
      forces[k] = at[k] = (CwbPointWeight){ .geometry = p->point_geometry,
                                            .point = p->points[k] };
      cwb_v3_scale (forces[k].w, f, k < (int) p->n_points ? p->weights[k] : 0);
      memset (at[k].w, 0, sizeof at[k].w);
    }
  for (int v = 0; v < 3; v++)
    {
      forces[3 + v] = at[3 + v] = (CwbPointWeight){ .geometry = p->surface_geometry,
                                                    .point = p->vertices[v] };
      cwb_v3_scale (forces[3 + v].w, f, -p->bary[v]);
      memset (at[3 + v].w, 0, sizeof at[3 + v].w);
    }
}

/* rel[3 k] from the displacements of every pair's 6 points. */
static void
relative (const PenaltyPair *pairs, size_t n, const double *dp, double *rel)
{
  for (size_t k = 0; k < n; k++)
    {
      memset (&rel[3 * k], 0, 3 * sizeof (double));
      for (uint32_t l = 0; l < pairs[k].n_points; l++)
        cwb_v3_axpy (&rel[3 * k], pairs[k].weights[l], &dp[18 * k + 3 * l]);
      for (int v = 0; v < 3; v++)
        cwb_v3_axpy (&rel[3 * k], -pairs[k].bary[v], &dp[18 * k + 9 + 3 * v]);
    }
}

/* The scene's world, its velocity-pass query and the hand-made pairs; the base (geometry 0)
 * cannot move. */
typedef struct Pairs {
  CwbRegistry *registry;
  CwbWorld *world;
  CwbContactQuery query;
  PenaltyPair pairs[8];
  size_t n;
} Pairs;

static const gboolean movable[] = { FALSE, TRUE, TRUE, TRUE };

static void
pairs_init (Pairs *s)
{
  s->registry = fixture_registry ();
  s->world = fixture_world (s->registry, scene_yaml);
  size_t n_geometries;
  make_pairs (cwb_world_geometries (s->world, &n_geometries), s->pairs, &s->n);
  s->query = cwb_world_contact_query (s->world, CWB_CONTACT_PASS_VELOCITY);
}

static void
pairs_clear (Pairs *s)
{
  g_clear_pointer (&s->world, cwb_world_free);
  g_clear_pointer (&s->registry, cwb_registry_free);
}

/* `got` equals `expected` (not all zero) to RESPONSE_TOLERANCE of its largest entry, which
 * is returned. */
static double
assert_same_response (const double *got, const double *expected, size_t n)
{
  double largest = 0;
  for (size_t i = 0; i < n; i++)
    largest = MAX (largest, fabs (expected[i]));
  g_assert_cmpfloat (largest, >, 0);
  for (size_t i = 0; i < n; i++)
    g_assert_cmpfloat (fabs (got[i] - expected[i]), <, RESPONSE_TOLERANCE * largest);
  return largest;
}

static void
test_matches_point_response (void)
{
  Pairs s;
  pairs_init (&s);
  CwbContactQuery query = s.query;
  const PenaltyPair *pairs = s.pairs;
  size_t n = s.n;
  g_autoptr (PairMobility) w = pair_mobility_new ();
  pair_mobility_build (w, &query, pairs, n, movable);

  /* Pair forces of order 1e3 N in every direction. */
  double f[3 * 8], wf[3 * 8];
  for (size_t i = 0; i < 3 * n; i++)
    f[i] = 1000 * sin (1.7 * (double) i + 0.3);
  pair_mobility_apply (w, &query, pairs, f, wf);

  /* The batched query: all patterns at once, measured at every pair. */
  CwbPointWeight forces[6 * 8], at[6 * 8];
  for (size_t k = 0; k < n; k++)
    pattern (&pairs[k], &f[3 * k], &forces[6 * k], &at[6 * k]);
  double dp[18 * 8], batched[3 * 8];
  query.point_response (query.host_data, forces, 6 * n, at, 6 * n, dp);
  relative (pairs, n, dp, batched);
  double largest = assert_same_response (wf, batched, 3 * n);

  /* Per contact: column k spread equals the query of contact k's pattern alone. */
  for (size_t k = 0; k < n; k++)
    {
      double spread[3 * 8] = { 0 }, alone[3 * 8];
      pair_mobility_spread (w, k, &f[3 * k], spread);
      CwbPointWeight one[6], ignored[6];
      pattern (&pairs[k], &f[3 * k], one, ignored);
      query.point_response (query.host_data, one, 6, at, 6 * n, dp);
      relative (pairs, n, dp, alone);
      for (size_t i = 0; i < 3 * n; i++)
        g_assert_cmpfloat (fabs (spread[i] - alone[i]), <, RESPONSE_TOLERANCE * largest);
    }
  /* c's pair (index 4) touches only the fixed base and c: nothing else moves it. */
  double spread[3 * 8] = { 0 };
  pair_mobility_spread (w, 4, &f[12], spread);
  for (size_t k = 0; k < n; k++)
    if (k != 4)
      g_assert_cmpfloat (cwb_v3_norm (&spread[3 * k]), ==, 0);
  g_assert_cmpuint (pair_mobility_n_blocks (w), <, n * n);
  pairs_clear (&s);
}

/* Over its memory budget W keeps each contact's own block only (the coupled W of 40 FEM cows
 * asked for 34 GB): with a budget below what the pairs couple in, every column spreads to
 * its own contact alone, with the coupled W's own block times the contacts it shares its
 * movable bodies with (itself included), to round-off; its product with all the forces is
 * still the coupled one, made without W. */
static void
test_over_budget (void)
{
  Pairs s;
  pairs_init (&s);
  const PenaltyPair *pairs = s.pairs;
  size_t n = s.n;
  g_autoptr (PairMobility) coupled = pair_mobility_new ();
  pair_mobility_build (coupled, &s.query, pairs, n, movable);
  g_assert_true (pair_mobility_coupled (coupled));
  g_autoptr (PairMobility) alone = pair_mobility_new ();
  pair_mobility_set_max_blocks (alone, n);
  pair_mobility_build (alone, &s.query, pairs, n, movable);
  g_assert_false (pair_mobility_coupled (alone));
  g_assert_cmpuint (pair_mobility_n_blocks (alone), ==, n);
  for (size_t k = 0; k < n; k++)
    {
      const double *own = pair_mobility_diagonal (alone, k);
      const double *full = pair_mobility_diagonal (coupled, k);
      double shared = 1;
      for (size_t j = 0; j < n; j++)
        for (int side = 0; side < 2; side++)
          {
            uint32_t gk = side == 0 ? pairs[k].point_geometry : pairs[k].surface_geometry;
            if (movable[gk] && (pairs[j].point_geometry == gk || pairs[j].surface_geometry == gk))
              shared++;
          }
      double largest = 0;
      for (int e = 0; e < 9; e++)
        largest = MAX (largest, fabs (shared * full[e]));
      for (int e = 0; e < 9; e++)
        g_assert_cmpfloat (fabs (own[e] - shared * full[e]), <=, RESPONSE_TOLERANCE * largest);
      double f[3] = { 1, 2, 3 }, spread[3 * 8] = { 0 };
      pair_mobility_spread (alone, k, f, spread);
      for (size_t j = 0; j < n; j++)
        if (j != k)
          g_assert_cmpfloat (cwb_v3_norm (&spread[3 * j]), ==, 0);
    }
  double f[3 * 8], from_blocks[3 * 8], without[3 * 8];
  for (size_t i = 0; i < 3 * n; i++)
    f[i] = 1000 * cos (0.9 * (double) i + 0.2);
  pair_mobility_apply (coupled, &s.query, pairs, f, from_blocks);
  pair_mobility_apply (alone, &s.query, pairs, f, without);
  assert_same_response (without, from_blocks, 3 * n);
  pairs_clear (&s);
}

/* A fluid's particles (ABI 1.21's points_apart): a block of 27 particles on a fixed base and
 * against a movable box. Contacts on the fluid move each other only when they share a
 * particle, so W lists those alone, and its products still equal the host's point_response
 * of all the patterns at once: a contact model that asked every particle contact about every
 * other built W in O(m^2) point responses (78 ms a step for the 636 contacts of water at
 * rest in a box; 2.1 ms with this). */
static const char *fluid_yaml =
  "world: { dt: 0.002, gravity: [0, 0, -9.81] }\n"
  "bodies:\n"
  "  - { name: base, shape: { type: box, size: [1, 1, 0.1] }, pose: { position: [0, 0, -0.05] },\n"
  "      fixed: true }\n"
  "  - name: water\n"
  "    model: sph\n"
  "    mapping: particles\n"
  "    shape: { type: box, size: [0.03, 0.03, 0.03] }\n"
  "    pose: { position: [0, 0, 0.015] }\n"
  "    material: { density: 1000 }\n"
  "    model_params: { particle_spacing: 0.01 }\n"
  "  - { name: box, shape: { type: box, size: [0.1, 0.1, 0.1] },\n"
  "      pose: { position: [0.065, 0, 0.05] }, material: { density: 500 } }\n";

/* point_response that counts the points it measures, then asks the world. */
typedef struct CountingHost {
  CwbContactQuery inner;
  size_t points_measured;
} CountingHost;

static void
counting_point_response (void *host_data, const CwbPointWeight *forces, size_t n_forces,
                         const CwbPointWeight *at, size_t n_at, double *displacements)
{
  CountingHost *host = host_data;
  host->points_measured += n_at;
  host->inner.point_response (host->inner.host_data, forces, n_forces, at, n_at,
                              displacements);
}

static void
test_fluid_points_apart (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fluid_yaml);
  CwbContactQuery query = cwb_world_contact_query (world, CWB_CONTACT_PASS_VELOCITY);
  g_assert_nonnull (query.points_apart);
  g_assert_false (query.points_apart[0]);
  g_assert_true (query.points_apart[1]);    /* diagonal compliance, a particle's own DOFs */
  g_assert_false (query.points_apart[2]);   /* a rigid body's points all move together */
  const CwbGeometry *g = query.geometries;
  /* Particle (point, geometry 1) against a triangle of the base (0) or the box (2). */
  const struct { uint32_t particle, surface, triangle; } spec[] = {
    { 0, 0, 0 }, { 0, 0, 1 },   /* one particle on two triangles of the base: coupled */
    { 5, 0, 2 },                /* another particle on the base: alone */
    { 7, 2, 0 }, { 9, 2, 3 },   /* two particles against the box: coupled through it */
  };
  enum { N = G_N_ELEMENTS (spec) };
  PenaltyPair pairs[N];
  for (size_t k = 0; k < N; k++)
    {
      pairs[k] = (PenaltyPair){ .surface_geometry = spec[k].surface,
                                .bary = { 0.2, 0.3, 0.5 } };
      penalty_pair_set_vertex (&pairs[k], 1, spec[k].particle);
      for (int v = 0; v < 3; v++)
        pairs[k].vertices[v] = g[spec[k].surface].triangles[3 * spec[k].triangle + v];
    }
  const gboolean fluid_movable[] = { FALSE, TRUE, TRUE };
  g_autoptr (PairMobility) w = pair_mobility_new ();
  CountingHost host = { .inner = query };
  CwbContactQuery counted = query;
  counted.host_data = &host;
  counted.point_response = counting_point_response;
  pair_mobility_build (w, &counted, pairs, N, fluid_movable);
  /* Own blocks, plus 0 <-> 1 through their particle and 3 <-> 4 through the box; each
   * column measured at its rows alone (a pair's 4 points, 3 axes), none in vain. */
  g_assert_cmpuint (pair_mobility_n_blocks (w), ==, N + 4);
  g_assert_cmpuint (host.points_measured, ==, 3 * 4 * (N + 4));

  double f[3 * N], wf[3 * N];
  for (size_t i = 0; i < 3 * N; i++)
    f[i] = 10 * sin (1.3 * (double) i + 0.4);
  pair_mobility_apply (w, &query, pairs, f, wf);
  CwbPointWeight forces[6 * N], at[6 * N];
  for (size_t k = 0; k < N; k++)
    pattern (&pairs[k], &f[3 * k], &forces[6 * k], &at[6 * k]);
  double dp[18 * N], batched[3 * N];
  query.point_response (query.host_data, forces, 6 * N, at, 6 * N, dp);
  relative (pairs, N, dp, batched);
  assert_same_response (wf, batched, 3 * N);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/pair-mobility/matches-point-response", test_matches_point_response);
  g_test_add_func ("/penalty/pair-mobility/over-budget", test_over_budget);
  g_test_add_func ("/penalty/pair-mobility/fluid-points-apart", test_fluid_points_apart);
  return g_test_run ();
}

/* Saupin 2008 Table 1: the warped compliance against the exact one on the 3-link chain
 * (scenes/chain-3-links.yaml, vertical start, and chain-3-links-horizontal.yaml), run side
 * by side. The measure is the paper's: the relative difference of the deformable link's
 * deformation between the two runs, at the moment of its largest deformation and at the end.
 *
 * Deformation: the link's nodes seen from the rigid motion that best fits them (Kabsch),
 * d_i = R^T (x_i - c) - (X_i - C), so that the two runs are compared on their shapes, not on
 * where the link has swung to. The error is |d_warped - d_exact| / |d_exact| (2-norms over
 * all nodes). The paper reports 1.5 % and 1.7 % (horizontal; largest deformation, final
 * shape) and 4.4 % and 3.1 % (vertical).
 *
 * Two runs per chain:
 * - swinging (the scene as written, 1.2 s): the largest deformation, bounded by the paper's
 *   largest figure, 4.4 %. Its end state is reported, not checked: the chain still swings
 *   and the two runs' trajectories have drifted apart (contact sets and friction states
 *   differ from the first impact on), so the end states compare two moments of the motion,
 *   not two approximations of one shape.
 * - settled (the same with air damping on the link and the free ring, 3 s): both runs come
 *   to rest, and the final shapes compare one equilibrium computed twice. Bounded by the
 *   paper's largest final-shape figure, 3.1 %; the kinetic energy at the end shows that the
 *   chain rests (below 1e-5 J, against about 0.5 J during the fall). */
#include <math.h>

#include "fem_fixture.h"
#include "world_fixture.h"

typedef struct ChainCase {
  const char *scene;
  gboolean settle;
} ChainCase;

#define SWING_STEPS 240   /* 1.2 s at h = 5 ms: the fall, the impact, the first oscillations */
#define SETTLE_STEPS 600  /* 3 s: with the damping below the chain rests by 2.5 s */
#define SETTLED_ENERGY 1e-5   /* J: at rest (the fall carries about 0.5 J) */
/* Air damping for the settled runs: 4 /s takes the swing's energy down by e^-8 a second. */
#define SETTLE_SETS "bodies.link.rayleigh_mass=4", "bodies.free-ring.linear_damping=4", \
                    "bodies.free-ring.angular_damping=4"

/* d_i for the n nodes x against the rest X (both 3n), written to d. */
static void
deformation (const double *x, const double *rest, size_t n, double *d)
{
  double r[9], c[3], c0[3];
  fem_fixture_best_fit (x, rest, n, r, c, c0);
  for (size_t i = 0; i < n; i++)
    {
      double e[3];
      cwb_v3_sub (e, &x[3 * i], c);
      for (int a = 0; a < 3; a++)
        d[3 * i + a] = r[a] * e[0] + r[3 + a] * e[1] + r[6 + a] * e[2] - (rest[3 * i + a] - c0[a]);
    }
}

static double
norm (const double *x, size_t n)
{
  double s = 0;
  for (size_t k = 0; k < n; k++)
    s += x[k] * x[k];
  return sqrt (s);
}

static void
test_chain (gconstpointer data)
{
  const ChainCase *chain = data;
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  const char *exact_swing[] = { "solver.compliance=exact", NULL };
  const char *warped_swing[] = { "solver.compliance=warped", NULL };
  const char *exact_settle[] = { "solver.compliance=exact", SETTLE_SETS, NULL };
  const char *warped_settle[] = { "solver.compliance=warped", SETTLE_SETS, NULL };
  int steps = chain->settle ? SETTLE_STEPS : SWING_STEPS;
  g_autoptr (CwbWorld) exact = fixture_world_from_file (
    registry, chain->scene, chain->settle ? exact_settle : exact_swing);
  g_autoptr (CwbWorld) warped = fixture_world_from_file (
    registry, chain->scene, chain->settle ? warped_settle : warped_swing);
  size_t body = 1;
  g_assert_cmpstr (cwb_world_body_name (exact, body), ==, "link");
  const CwbBodySlot *slot = cwb_world_body_slot (exact, body);
  size_t n = slot->nq / 3, nq;
  g_autofree double *rest = g_memdup2 (cwb_world_q (exact, &nq) + slot->q_offset,
                                       slot->nq * sizeof (double));
  g_autofree double *de = g_new (double, slot->nq), *dw = g_new (double, slot->nq);
  g_autofree double *diff = g_new (double, slot->nq);
  double largest = 0, error_at_largest = 0, error_final = 0;
  double compliance_exact = 0, compliance_warped = 0;
  size_t contacts = 0;
  for (int k = 0; k < steps; k++)
    {
      fixture_step (exact, 1);
      fixture_step (warped, 1);
      compliance_exact += cwb_world_last_stats (exact)->compliance_ms;
      compliance_warped += cwb_world_last_stats (warped)->compliance_ms;
      contacts = MAX (contacts, cwb_world_last_stats (exact)->contacts);
      deformation (cwb_world_q (exact, &nq) + slot->q_offset, rest, n, de);
      deformation (cwb_world_q (warped, &nq) + slot->q_offset, rest, n, dw);
      for (size_t i = 0; i < slot->nq; i++)
        diff[i] = dw[i] - de[i];
      double size = norm (de, slot->nq), error = norm (diff, slot->nq) / size;
      if (size > largest)
        {
          largest = size;
          error_at_largest = error;
        }
      error_final = error;
    }
  double energy = MAX (cwb_world_last_stats (exact)->kinetic_energy,
                       cwb_world_last_stats (warped)->kinetic_energy);
  g_test_message ("%s (%s): up to %zu contacts; largest deformation %.3g m (node 2-norm), "
                  "warped error there %.2f %%, at the end %.2f %% (kinetic energy %.2g J); "
                  "compliance %.3f ms/step exact, %.3f warped", chain->scene,
                  chain->settle ? "settled" : "swinging", contacts, largest,
                  100 * error_at_largest, 100 * error_final, energy, compliance_exact / steps,
                  compliance_warped / steps);
  g_assert_cmpuint (contacts, >, 0);
  g_assert_cmpfloat (largest, >, 0);
  g_assert_cmpfloat (error_at_largest, <, 0.044);
  if (chain->settle)
    {
      g_assert_cmpfloat (energy, <, SETTLED_ENERGY);
      g_assert_cmpfloat (error_final, <, 0.031);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static const ChainCase cases[] = {
    { "scenes/chain-3-links.yaml", FALSE },
    { "scenes/chain-3-links-horizontal.yaml", FALSE },
    { "scenes/chain-3-links.yaml", TRUE },
    { "scenes/chain-3-links-horizontal.yaml", TRUE },
  };
  g_test_add_data_func ("/fem/chain/vertical", &cases[0], test_chain);
  g_test_add_data_func ("/fem/chain/horizontal", &cases[1], test_chain);
  g_test_add_data_func ("/fem/chain/vertical-settled", &cases[2], test_chain);
  g_test_add_data_func ("/fem/chain/horizontal-settled", &cases[3], test_chain);
  return g_test_run ();
}

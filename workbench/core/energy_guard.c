/* The energy guard (energy_guard.h). */
#include <math.h>
#include <string.h>

#include <cwb/vecmath.h>

#include "energy_guard.h"

/* The floor's speed scale (m/s): a body at rest may reach 100 times it before the guard
 * speaks, on top of what gravity gives. */
#define FLOOR_SPEED 1.0

void
cwb_energy_guard_init (CwbEnergyGuard *guard)
{
  memset (guard, 0, sizeof *guard);
  guard->centroids = g_array_new (FALSE, TRUE, sizeof (double));
}

void
cwb_energy_guard_clear (CwbEnergyGuard *guard)
{
  g_clear_pointer (&guard->centroids, g_array_unref);
}

static double
floor_energy (const CwbBodySummary *summaries, const double *sizes, const gboolean *fixed,
              size_t n, const double gravity[3])
{
  double g = cwb_v3_norm (gravity), energy = 0;
  for (size_t i = 0; i < n; i++)
    if (!fixed[i] && summaries[i].mass > 0 && isfinite (summaries[i].mass))
      energy += summaries[i].mass
                * (g * (isfinite (sizes[i]) ? sizes[i] : 0) + 0.5 * FLOOR_SPEED * FLOOR_SPEED);
  return energy;
}

static void
keep_centroids (CwbEnergyGuard *guard, const CwbBodySummary *summaries, size_t n)
{
  g_array_set_size (guard->centroids, (guint) (3 * n));
  for (size_t i = 0; i < n; i++)
    cwb_v3_copy (&g_array_index (guard->centroids, double, 3 * i), summaries[i].centroid);
}

gboolean
cwb_energy_guard_starting (const CwbEnergyGuard *guard, guint64 edits, size_t n)
{
  return !guard->started || guard->edits != edits || guard->centroids->len != 3 * n;
}

gboolean
cwb_energy_guard_check (CwbEnergyGuard *guard, const CwbBodySummary *summaries,
                        const double *sizes, const gboolean *fixed, size_t n,
                        const double gravity[3], double spring_energy, guint64 edits,
                        int *body, char **why)
{
  double kinetic = 0, largest = -1;
  for (size_t i = 0; i < n; i++)
    {
      kinetic += summaries[i].kinetic_energy;
      if (summaries[i].kinetic_energy > largest)
        {
          largest = summaries[i].kinetic_energy;
          *body = (int) i;
        }
    }
  if (cwb_energy_guard_starting (guard, edits, n))
    {
      /* A new start: what the bodies have now, and the floor. */
      guard->started = TRUE;
      guard->edits = edits;
      guard->budget = kinetic + floor_energy (summaries, sizes, fixed, n, gravity);
      keep_centroids (guard, summaries, n);
      return TRUE;
    }
  /* Gravity's work on each moving body over the step, and the spring's energy. */
  double work = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (fixed[i] || !(summaries[i].mass > 0))
        continue;
      double drop[3];
      cwb_v3_sub (drop, summaries[i].centroid, &g_array_index (guard->centroids, double, 3 * i));
      work += summaries[i].mass * cwb_v3_dot (gravity, drop);
    }
  guard->budget += MAX (work, 0) + MAX (spring_energy, 0);
  keep_centroids (guard, summaries, n);
  if (kinetic <= CWB_ENERGY_GUARD_GROWTH * guard->budget)
    return TRUE;
  *why = g_strdup_printf ("a kinetic energy of %.3g J in all (%.3g J this body), more than "
                          "%g times the %.3g J that the start, gravity and the mouse spring "
                          "can have given", kinetic, largest, CWB_ENERGY_GUARD_GROWTH,
                          guard->budget);
  return FALSE;
}

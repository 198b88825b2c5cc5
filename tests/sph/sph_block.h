/* The SPH tests' block of fluid: n^3 particles on the cubic lattice of pitch s, its corner
 * at the origin (newly allocated, 3 n^3 doubles). */
#pragma once

#include <cwb/vecmath.h>

static inline double *
sph_block (int n, double s)
{
  double *x = g_new (double, 3 * n * n * n);
  size_t i = 0;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++)
      for (int c = 0; c < n; c++, i++)
        cwb_v3_set (&x[3 * i], a * s, b * s, c * s);
  return x;
}

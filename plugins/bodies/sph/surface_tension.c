/* Akinci et al. 2013's surface tension (see surface_tension.h). */
#include "surface_tension.h"

#include <cwb/vecmath.h>

#include "sph_kernel.h"

void
sph_surface_tension_add (const NeighbourGrid *grid, const double *x, const double *rho,
                         const double *gradients, size_t n, double mass,
                         double rest_density, double support, double gamma,
                         double *normals, double *a)
{
  /* Eq. 3 with equal masses m_j = m. */
  for (size_t i = 0; i < n; i++)
    {
      double *normal = &normals[3 * i];
      normal[0] = normal[1] = normal[2] = 0;
      for (uint32_t k = grid->start[i]; k < grid->start[i + 1]; k++)
        cwb_v3_axpy (normal, support * mass / rho[grid->neighbours[k]], &gradients[3 * k]);
    }
  /* Eq. 5 over m_i: K_ij (-gamma m C(r) x_ij / r - gamma (n_i - n_j)). */
  for (size_t i = 0; i < n; i++)
    for (uint32_t k = grid->start[i]; k < grid->start[i + 1]; k++)
      {
        uint32_t j = grid->neighbours[k];
        double d[3], dn[3];
        cwb_v3_sub (d, &x[3 * i], &x[3 * j]);
        double r = cwb_v3_norm (d);
        double correction = 2 * rest_density / (rho[i] + rho[j]);
        cwb_v3_sub (dn, &normals[3 * i], &normals[3 * j]);
        if (r > 0)
          cwb_v3_axpy (&a[3 * i],
                       -correction * gamma * mass * sph_kernel_cohesion (r, support) / r, d);
        cwb_v3_axpy (&a[3 * i], -correction * gamma, dn);
      }
}

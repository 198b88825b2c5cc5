/* Exact mass properties of a closed, outward-oriented triangle surface.
 *
 * Method (divergence theorem, as in Mirtich 1996 "Fast and accurate computation of
 * polyhedral mass properties"): any integral over the enclosed region Omega equals the sum,
 * over the surface triangles (a, b, c), of the same integral over the tetrahedron (p0, a, b,
 * c) with its SIGNED volume. Seen from p0, a triangle facing away adds its cone and one facing
 * towards p0 removes it, so the parts outside Omega cancel exactly for a closed surface.
 *
 * With the triangle's vertices taken relative to p0 (so the apex is the origin), the
 * tetrahedron T = (0, a, b, c) is the image of the unit tetrahedron under x = A u with
 * A = [a b c] and det A = a . (b x c) = 6 V_T. The unit tetrahedron's moments are
 *   int 1 = 1/6,   int u_i = 1/24,   int u_i^2 = 1/60,   int u_i u_j = 1/120 (i != j),
 * which gives
 *   V_T                    = det A / 6                                              (1)
 *   int_T x dV             = V_T (a + b + c) / 4                                    (2)
 *   int_T x x^T dV         = V_T / 20 (a a^T + b b^T + c c^T + s s^T),  s = a+b+c   (3)
 * (Tonon 2004, "Explicit exact formulas for the 3-D tetrahedron inertia tensor", gives the
 * same covariance). Summing (1)-(3) over triangles yields V, the first moment and the second
 * moment C = int_Omega x x^T about p0. With density rho, m = rho V, c = first / V, and the
 * inertia about the centre of mass is
 *   I = rho (tr(C_c) I3 - C_c),   C_c = C - V (c c^T)  (parallel-axis shift of C).      (4)
 *
 * p0 is the mean of the vertices rather than the mesh origin: a mesh modelled far from its
 * own origin would otherwise lose digits in the cancellation of (4). */
#include "mass_properties.h"

#include <cwb/vecmath.h>

CWB_DEFINE_ERROR_QUARK (cwb-rigid-error-quark, rigid_error)

gboolean
rigid_mass_properties_compute (const CwbSurfaceMesh *surface, double density,
                               const char *body_name, RigidMassProperties *out, GError **error)
{
  const char *source = surface->source != NULL ? surface->source : "(unnamed surface)";

  if (!surface->closed)
    {
      g_set_error (error, RIGID_ERROR, RIGID_ERROR_OPEN_SURFACE,
                   "body '%s': surface '%s' is not closed; a free rigid body needs a closed "
                   "surface for its mass properties (close the mesh or make the body fixed)",
                   body_name, source);
      return FALSE;
    }
  if (!(density > 0))
    {
      g_set_error (error, RIGID_ERROR, RIGID_ERROR_DENSITY,
                   "body '%s': density %g kg/m^3 must be positive for a free rigid body",
                   body_name, density);
      return FALSE;
    }

  double p0[3] = { 0, 0, 0 };
  for (size_t k = 0; k < surface->n_vertices; k++)
    cwb_v3_add (p0, p0, &surface->vertices[3 * k]);
  if (surface->n_vertices > 0)
    cwb_v3_scale (p0, p0, 1.0 / (double) surface->n_vertices);

  double volume = 0, first[3] = { 0, 0, 0 }, second[9] = { 0 };
  for (size_t t = 0; t < surface->n_triangles; t++)
    {
      const uint32_t *tri = &surface->triangles[3 * t];
      double v[3][3], s[3] = { 0, 0, 0 }, bxc[3];
      for (int k = 0; k < 3; k++)
        {
          cwb_v3_sub (v[k], &surface->vertices[3 * tri[k]], p0);
          cwb_v3_add (s, s, v[k]);
        }
      cwb_v3_cross (bxc, v[1], v[2]);
      double vt = cwb_v3_dot (v[0], bxc) / 6.0;           /* (1) */
      volume += vt;
      cwb_v3_axpy (first, vt / 4.0, s);                   /* (2) */
      for (int i = 0; i < 3; i++)                         /* (3) */
        for (int j = 0; j < 3; j++)
          second[3 * i + j] += vt / 20.0
                               * (v[0][i] * v[0][j] + v[1][i] * v[1][j] + v[2][i] * v[2][j]
                                  + s[i] * s[j]);
    }

  if (!(volume > 0))
    {
      g_set_error (error, RIGID_ERROR, RIGID_ERROR_VOLUME,
                   "body '%s': surface '%s' encloses volume %g m^3; it must be positive "
                   "(triangles counter-clockwise seen from outside)",
                   body_name, source, volume);
      return FALSE;
    }

  double c[3];   /* centre of mass relative to p0 */
  cwb_v3_scale (c, first, 1.0 / volume);
  double cc[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      cc[3 * i + j] = second[3 * i + j] - volume * c[i] * c[j];   /* (4) */
  double trace = cc[0] + cc[4] + cc[8];

  out->volume = volume;
  out->mass = density * volume;
  cwb_v3_add (out->com, c, p0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      out->inertia[3 * i + j] = density * ((i == j ? trace : 0.0) - cc[3 * i + j]);
  /* Exact symmetry: the two halves come from the same sums but keep them bit-identical. */
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      out->inertia[3 * j + i] = out->inertia[3 * i + j];
  return TRUE;
}

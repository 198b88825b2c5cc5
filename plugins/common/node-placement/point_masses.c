/* Equal point masses (see point_masses.h). */
#include "point_masses.h"

#include <string.h>

#include <cwb/vecmath.h>

#include "rigid_placement.h"

void
point_masses_properties (const double *points, size_t n, double m, double com[3],
                         double inertia[9])
{
  double sum[3] = { 0, 0, 0 };
  for (size_t i = 0; i < n; i++)
    cwb_v3_add (sum, sum, &points[3 * i]);
  cwb_v3_scale (com, sum, n > 0 ? 1.0 / n : 0);
  memset (inertia, 0, 9 * sizeof (double));
  for (size_t i = 0; i < n; i++)
    {
      double r[3];
      cwb_v3_sub (r, &points[3 * i], com);
      double r2 = cwb_v3_dot (r, r);
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          inertia[3 * a + b] += m * ((a == b) * r2 - r[a] * r[b]);
    }
}

void
point_masses_summary (const double *q, const double *v, size_t n, double m, gboolean fixed,
                      CwbBodySummary *out)
{
  *out = (CwbBodySummary) { .struct_size = sizeof (CwbBodySummary), .mass = m * n };
  cwb_quat_identity (out->orientation);
  if (n == 0)
    return;
  for (size_t i = 0; i < n; i++)
    {
      cwb_v3_axpy (out->centroid, 1.0 / n, &q[3 * i]);
      cwb_v3_axpy (out->linear_momentum, m, &v[3 * i]);
      out->kinetic_energy += 0.5 * m * cwb_v3_dot (&v[3 * i], &v[3 * i]);
    }
  cwb_v3_scale (out->linear_velocity, out->linear_momentum, 1.0 / out->mass);
  for (size_t i = 0; i < n; i++)
    {
      double arm[3], l[3];
      cwb_v3_sub (arm, &q[3 * i], out->centroid);
      cwb_v3_cross (l, arm, &v[3 * i]);
      cwb_v3_axpy (out->angular_momentum, m, l);
    }
  if (fixed)
    {
      memset (out->linear_momentum, 0, sizeof out->linear_momentum);
      memset (out->angular_momentum, 0, sizeof out->angular_momentum);
      out->kinetic_energy = 0;
    }
}

void
point_masses_integrate_position (void *self, const double *q, const double *dv, double h,
                                 double *q_out)
{
  const PointMasses *pm = self;
  for (size_t c = 0; c < 3 * pm->n; c++)
    q_out[c] = q[c] + (pm->fixed ? 0 : h * dv[c]);
}

void
point_masses_compliance_apply (void *self, const double *q, double h, CwbCompliance kind,
                               const double *r, double *dq)
{
  const PointMasses *pm = self;
  double scale = pm->fixed ? 0 : h * h / pm->m;
  for (size_t c = 0; c < 3 * pm->n; c++)
    dq[c] = scale * r[c];
}

gboolean
point_masses_compliance_diagonal (void *self, const double *q, double h, CwbCompliance kind,
                                  double *diagonal)
{
  const PointMasses *pm = self;
  double scale = pm->fixed ? 0 : h * h / pm->m;
  for (size_t c = 0; c < 3 * pm->n; c++)
    diagonal[c] = scale;
  return TRUE;
}

void
point_masses_mass_apply (void *self, const double *q, const double *x, double *y)
{
  const PointMasses *pm = self;
  double m = pm->fixed ? 0 : pm->m;
  for (size_t c = 0; c < 3 * pm->n; c++)
    y[c] = m * x[c];
}

void
point_masses_body_summary (void *self, const double *q, const double *v, CwbBodySummary *out)
{
  const PointMasses *pm = self;
  point_masses_summary (q, v, pm->n, pm->m, pm->fixed, out);
}

void
surface_copy_init (SurfaceCopy *copy, const CwbSurfaceMesh *surface)
{
  copy->vertices = g_memdup2 (surface->vertices, 3 * surface->n_vertices * sizeof (double));
  copy->triangles = g_memdup2 (surface->triangles, 3 * surface->n_triangles * sizeof (uint32_t));
  copy->source = g_strdup (surface->source);
  copy->mesh = *surface;
  copy->mesh.struct_size = sizeof (CwbSurfaceMesh);
  copy->mesh.vertices = copy->vertices;
  copy->mesh.triangles = copy->triangles;
  copy->mesh.source = copy->source;
}

void
surface_copy_clear (SurfaceCopy *copy)
{
  g_free (copy->vertices);
  g_free (copy->triangles);
  g_free (copy->source);
  memset (copy, 0, sizeof *copy);
}

void
point_masses_clear (PointMasses *points)
{
  g_free (points->name);
  g_free (points->rest);
  g_free (points->radii);
  g_free (points->masses);
  surface_copy_clear (&points->reference);
}

void
point_masses_get_info (void *self, CwbBodyInfo *info)
{
  const PointMasses *points = self;
  *info = (CwbBodyInfo) {
    .struct_size = sizeof (CwbBodyInfo),
    .nq = 3 * points->n,
    .nv = 3 * points->n,
    .mass = points->fixed ? 0 : points->mass,
    .fixed = points->fixed,
    .reference_surface = &points->reference.mesh,
    .rest_nodes = points->rest,
    .n_nodes = points->n,
    .node_radii = points->radii,
    .node_masses = points->masses,
  };
  cwb_v3_copy (info->center_of_mass, points->com_mesh);
  memcpy (info->inertia, points->inertia, sizeof info->inertia);
}

void
point_masses_place (const PointMasses *points, size_t n, double *q, double *v)
{
  rigid_placement_apply (points->rest, n, points->position, points->orientation,
                         points->com_mesh, points->linear_velocity, points->angular_velocity,
                         q, v);
  if (points->fixed)
    memset (v, 0, 3 * points->n * sizeof (double));
}

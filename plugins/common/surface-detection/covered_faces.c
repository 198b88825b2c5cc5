/* The faces of fixed surfaces covered by another fixed surface (see the header). */
#include "covered_faces.h"

#include <math.h>
#include <string.h>

#include "surface_topology.h"

struct CoveredFaces {
  GPtrArray *flags;       /* GByteArray per geometry (NULL: moving, or not a closed surface):
                           * 1 per covered triangle */
  GArray *positions;      /* double: every fixed closed surface's positions, last measured */
  double reach;
  size_t count;
};

static void
flags_free (gpointer flags)
{
  if (flags != NULL)
    g_byte_array_unref (flags);
}

CoveredFaces *
covered_faces_new (void)
{
  CoveredFaces *c = g_new0 (CoveredFaces, 1);
  c->flags = g_ptr_array_new_with_free_func (flags_free);
  c->positions = g_array_new (FALSE, FALSE, sizeof (double));
  c->reach = -1;
  return c;
}

void
covered_faces_free (CoveredFaces *c)
{
  if (c == NULL)
    return;
  g_ptr_array_unref (c->flags);
  g_array_unref (c->positions);
  g_free (c);
}

static gboolean
fixed_surface (const CwbContactQuery *query, const CwbGeometry *g)
{
  return g->kind == CWB_GEOMETRY_SURFACE && g->closed && g->n_triangles > 0
         && g->positions != NULL && cwb_contact_query_geometry_fixed (query, g);
}

/* The solid angle the triangle (a, b, c), taken relative to the point, subtends at the
 * point (Van Oosterom and Strackee 1983), signed by its orientation. */
static double
solid_angle (const double a[3], const double b[3], const double c[3])
{
  double la = cwb_v3_norm (a), lb = cwb_v3_norm (b), lc = cwb_v3_norm (c), bc[3];
  cwb_v3_cross (bc, b, c);
  double numerator = cwb_v3_dot (a, bc);
  double denominator = la * lb * lc + cwb_v3_dot (a, b) * lc + cwb_v3_dot (a, c) * lb
                       + cwb_v3_dot (b, c) * la;
  return 2 * atan2 (numerator, denominator);
}

double
surface_winding_number (const CwbGeometry *g, const double p[3])
{
  double sum = 0;
  for (size_t t = 0; t < g->n_triangles; t++)
    {
      double v[3][3];
      for (int k = 0; k < 3; k++)
        cwb_v3_sub (v[k], &g->positions[3 * g->triangles[3 * t + k]], p);
      sum += solid_angle (v[0], v[1], v[2]);
    }
  return sum / (4 * G_PI);
}

/* Whether the fixed closed surfaces' positions and `reach` are those last measured (and
 * keeps them otherwise). The flags say which geometries were fixed surfaces then: with the
 * same geometries, the same layout of positions. */
static gboolean
unchanged (CoveredFaces *c, const CwbContactQuery *query, double reach)
{
  gboolean same = reach == c->reach && c->flags->len == query->n_geometries;
  size_t at = 0;
  for (size_t k = 0; same && k < query->n_geometries; k++)
    {
      const CwbGeometry *g = &query->geometries[k];
      gboolean fixed = fixed_surface (query, g);
      same = fixed == (c->flags->pdata[k] != NULL);
      if (!same || !fixed)
        continue;
      size_t n = 3 * g->n_points;
      same = at + n <= c->positions->len
             && memcmp (&g_array_index (c->positions, double, at), g->positions,
                        n * sizeof (double)) == 0;
      at += n;
    }
  same = same && at == c->positions->len;
  if (same)
    return TRUE;
  g_array_set_size (c->positions, 0);
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      const CwbGeometry *g = &query->geometries[k];
      if (fixed_surface (query, g))
        g_array_append_vals (c->positions, g->positions, 3 * (guint) g->n_points);
    }
  c->reach = reach;
  return FALSE;
}

void
covered_faces_update (CoveredFaces *c, const CwbContactQuery *query, double reach)
{
  if (unchanged (c, query, reach))
    return;
  g_ptr_array_set_size (c->flags, 0);
  c->count = 0;
  size_t n = query->n_geometries;
  g_autofree double *lo = g_new (double, 3 * n), *hi = g_new (double, 3 * n);
  for (size_t k = 0; k < n; k++)
    cwb_geometry_bounds (&query->geometries[k], &lo[3 * k], &hi[3 * k]);
  for (size_t k = 0; k < n; k++)
    {
      const CwbGeometry *g = &query->geometries[k];
      g_ptr_array_add (c->flags, NULL);
      if (!fixed_surface (query, g))
        continue;
      GByteArray *flags = g_byte_array_sized_new ((guint) g->n_triangles);
      g_byte_array_set_size (flags, (guint) g->n_triangles);
      memset (flags->data, 0, g->n_triangles);
      c->flags->pdata[k] = flags;
      for (size_t t = 0; t < g->n_triangles; t++)
        {
          double normal[3], p[3] = { 0, 0, 0 };
          if (!(surface_triangle_normal (g, t, normal) > 0))
            continue;
          for (int v = 0; v < 3; v++)
            cwb_v3_axpy (p, 1.0 / 3, &g->positions[3 * g->triangles[3 * t + v]]);
          cwb_v3_axpy (p, reach, normal);
          for (size_t other = 0; other < n && !flags->data[t]; other++)
            {
              const CwbGeometry *o = &query->geometries[other];
              if (other == k || o->body == g->body || !fixed_surface (query, o))
                continue;
              gboolean within = TRUE;
              for (int a = 0; a < 3; a++)
                within = within && p[a] >= lo[3 * other + a] && p[a] <= hi[3 * other + a];
              if (within && surface_winding_number (o, p) > 0.5)
                {
                  flags->data[t] = 1;
                  c->count++;
                }
            }
        }
    }
}


gboolean
covered_faces_test (const CoveredFaces *c, uint32_t k, uint32_t t)
{
  if (k >= c->flags->len)
    return FALSE;
  const GByteArray *flags = c->flags->pdata[k];
  return flags != NULL && t < flags->len && flags->data[t];
}

const guint8 *
covered_faces_flags (const CoveredFaces *c, uint32_t k)
{
  const GByteArray *flags = k < c->flags->len ? c->flags->pdata[k] : NULL;
  return flags != NULL ? flags->data : NULL;
}

size_t
covered_faces_count (const CoveredFaces *c)
{
  return c->count;
}

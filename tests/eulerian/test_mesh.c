/* Test meshes (see the header). */
#include "test_mesh.h"

#include <math.h>

Mesh
mesh_new (void)
{
  return (Mesh) { g_array_new (FALSE, FALSE, sizeof (double)),
                  g_array_new (FALSE, FALSE, sizeof (uint32_t)) };
}

void
mesh_clear (Mesh *m)
{
  g_array_unref (m->x);
  g_array_unref (m->tri);
}

uint32_t
add_vertex (Mesh *m, double x, double y, double z)
{
  double v[3] = { x, y, z };
  g_array_append_vals (m->x, v, 3);
  return m->x->len / 3 - 1;
}

void
add_triangle (Mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
  uint32_t t[3] = { a, b, c };
  g_array_append_vals (m->tri, t, 3);
}

/* A box of half-sizes e, turned by `angle` about the axis (1, 1, 1) / sqrt 3, centred at c. */
Mesh
box_mesh (const double c[3], const double e[3], double angle)
{
  Mesh m = mesh_new ();
  double rotvec[3] = { angle / sqrt (3), angle / sqrt (3), angle / sqrt (3) }, q[4], rot[9];
  cwb_quat_from_rotvec (q, rotvec);
  cwb_quat_to_m3 (rot, q);
  for (int k = 0; k < 8; k++)
    {
      double local[3] = { (k & 1 ? 1 : -1) * e[0], (k & 2 ? 1 : -1) * e[1],
                          (k & 4 ? 1 : -1) * e[2] },
             world[3];
      cwb_m3_mul_v3 (world, rot, local);
      add_vertex (&m, c[0] + world[0], c[1] + world[1], c[2] + world[2]);
    }
  /* Faces as quads (counter-clockwise seen from outside), two triangles each. */
  static const uint32_t quads[6][4] = { { 0, 2, 3, 1 }, { 4, 5, 7, 6 }, { 0, 1, 5, 4 },
                                        { 2, 6, 7, 3 }, { 0, 4, 6, 2 }, { 1, 3, 7, 5 } };
  for (int f = 0; f < 6; f++)
    {
      add_triangle (&m, quads[f][0], quads[f][1], quads[f][2]);
      add_triangle (&m, quads[f][0], quads[f][2], quads[f][3]);
    }
  return m;
}

Mesh
tetrahedron_mesh (void)
{
  Mesh m = mesh_new ();
  add_vertex (&m, 0.013, 0.021, 0.017);
  add_vertex (&m, 1.013, 0.021, 0.017);
  add_vertex (&m, 0.013, 1.021, 0.017);
  add_vertex (&m, 0.013, 0.021, 1.017);
  add_triangle (&m, 0, 2, 1);
  add_triangle (&m, 0, 1, 3);
  add_triangle (&m, 0, 3, 2);
  add_triangle (&m, 1, 2, 3);
  return m;
}

/* A UV sphere of `rings` latitude bands and 2 rings longitude segments. */
Mesh
sphere_mesh (const double c[3], double radius, int rings)
{
  Mesh m = mesh_new ();
  int segments = 2 * rings;
  uint32_t south = add_vertex (&m, c[0], c[1], c[2] - radius);
  for (int r = 1; r < rings; r++)
    {
      double theta = G_PI * r / rings - G_PI / 2;
      for (int s = 0; s < segments; s++)
        {
          double phi = 2 * G_PI * s / segments;
          add_vertex (&m, c[0] + radius * cos (theta) * cos (phi),
                      c[1] + radius * cos (theta) * sin (phi), c[2] + radius * sin (theta));
        }
    }
  uint32_t north = add_vertex (&m, c[0], c[1], c[2] + radius);
  for (int s = 0; s < segments; s++)
    {
      uint32_t s1 = (uint32_t) ((s + 1) % segments);
      add_triangle (&m, south, 1 + s1, 1 + (uint32_t) s);
      for (int r = 1; r + 1 < rings; r++)
        {
          uint32_t a = 1 + (uint32_t) ((r - 1) * segments + s),
                   b = 1 + (uint32_t) ((r - 1) * segments) + s1, c2 = a + (uint32_t) segments,
                   d = b + (uint32_t) segments;
          add_triangle (&m, a, b, d);
          add_triangle (&m, a, d, c2);
        }
      uint32_t top = 1 + (uint32_t) ((rings - 2) * segments);
      add_triangle (&m, top + (uint32_t) s, top + s1, north);
    }
  return m;
}

/* The mesh's volume (divergence theorem) and area. */
void
mesh_measures (const Mesh *m, double *volume, double *area)
{
  const double *x = (const double *) m->x->data;
  const uint32_t *t = (const uint32_t *) m->tri->data;
  *volume = *area = 0;
  for (guint k = 0; k < m->tri->len / 3; k++)
    {
      const double *a = &x[3 * t[3 * k]], *b = &x[3 * t[3 * k + 1]], *c = &x[3 * t[3 * k + 2]];
      double ab[3], ac[3], n[3];
      cwb_v3_sub (ab, b, a);
      cwb_v3_sub (ac, c, a);
      cwb_v3_cross (n, ab, ac);
      *volume += cwb_v3_dot (a, n) / 6;
      *area += cwb_v3_norm (n) / 2;
    }
}


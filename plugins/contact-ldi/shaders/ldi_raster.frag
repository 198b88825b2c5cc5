/* The LDI's GPU rasteriser, fragment stage (ldi_raster_gl.c): decides whether the pixel
 * centre c is covered by the triangle with the CPU rasteriser's exact rule (the top comment
 * of ldi_raster_cpu.c: c + w strictly inside the projection for w = (eps, -eps^2), edge
 * functions from each edge's lexicographically smaller end point), computes its depth and
 * barycentric weights at c in double with the CPU's operations in the CPU's order, and
 * appends the fragment to the per-pixel lists' buffer (Allard 2010 sec. 3.2: one image per
 * axis, every crossing of the pixel's ray kept).
 *
 * Every double is `precise`: no contraction into fused multiply-adds and no reassociation,
 * so each product and sum is rounded as in the CPU code (compiled with -ffp-contract=off) and
 * the two triangles of an edge see bitwise opposite edge functions. Divisions go through
 * divide(): GLSL asks no more of a double division than single precision, and NVIDIA's
 * drivers give about that (2^-21 relative, where the CPU's is correctly rounded). */
#version 430 core

layout (std430, binding = 0) readonly buffer Positions { double positions[]; };
layout (std430, binding = 1) readonly buffer Triangles { uint triangles[]; };

/* LdiPixelFragment (ldi.h) byte for byte: std430 aligns the doubles on 8 bytes and packs the
 * array bary[3] with a stride of 8, so the record is 56 bytes like the C struct. */
struct Fragment {
  uint pixel;
  uint pad0;
  double depth;
  double bary[3];
  uint surface;
  uint triangle;
  uint facing;
  uint pad1;
};
layout (std430, binding = 2) writeonly buffer Fragments { Fragment fragments[]; };
layout (binding = 0, offset = 0) uniform atomic_uint fragment_count;

uniform uvec3 axes;            /* u, v and the image's axis */
uniform dvec2 origin;          /* box_min[u], box_min[v] */
uniform double pixel_size;     /* h */
uniform uvec2 image_size;
uniform uvec4 tile;            /* first pixel (i, j) and size of the drawn tile */
uniform uint capacity;         /* records the buffer holds; the counter counts on past it */

flat in uint triangle_id;

/* LdiFacing */
const uint LDI_BACK = 0u;
const uint LDI_FRONT = 1u;

bool
lexicographic_less (dvec2 p, dvec2 q)
{
  return p.x < q.x || (p.x == q.x && p.y < q.y);
}

/* E(c) of the directed edge p -> q, from its lexicographically smaller end point so that
 * q -> p gets exactly -E (ldi_raster_cpu.c, edge_function). */
double
edge_function (dvec2 p, dvec2 q, dvec2 c)
{
  bool forward = lexicographic_less (p, q);
  dvec2 a = forward ? p : q, b = forward ? q : p;
  precise double e = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
  return forward ? e : -e;
}

/* x = hi + lo exactly, hi holding the upper 26 bits (Veltkamp's split). */
dvec2
split (double x)
{
  precise double scaled = 134217729.0LF * x;   /* 2^27 + 1 */
  precise double hi = scaled - (scaled - x);
  precise double lo = x - hi;
  return dvec2 (hi, lo);
}

/* a - q b to within a rounding of the remainder, for q within a few ulps of a / b: q b = p +
 * err exactly (Dekker's product, from plain products and sums) and a - p is exact (Sterbenz:
 * p is within a factor 2 of a). No fma: GLSL does not promise that fma rounds once, and
 * llvmpipe's does not. */
double
remainder_of (double a, double b, double q)
{
  dvec2 qs = split (q), bs = split (b);
  precise double p = q * b;
  precise double err = ((qs.x * bs.x - p) + qs.x * bs.y + qs.y * bs.x) + qs.y * bs.y;
  precise double r = (a - p) - err;
  return r;
}

/* The driver's division; tests define it to emulate an approximate one (ldi_gl_new_emulating). */
#ifndef DRIVER_DIVISION
#define DRIVER_DIVISION(a, b) ((a) / (b))
#endif
#ifndef DIVISION_REFINEMENTS
#define DIVISION_REFINEMENTS 2
#endif

/* a / b as the CPU rounds it, in all but the rarest cases: the driver's quotient refined by
 * two Newton steps on the remainder. Where the driver divides correctly the correction is
 * under half an ulp and the quotient stays as it was, bitwise. */
double
divide (double a, double b)
{
  precise double q = DRIVER_DIVISION (a, b);
  for (int k = 0; k < DIVISION_REFINEMENTS; k++)
    q = q + DRIVER_DIVISION (remainder_of (a, b, q), b);
  return q;
}

/* The side of c + w: +1, -1, or 0 for a degenerate edge (ldi_raster_cpu.c, edge_side). */
int
edge_side (double e, dvec2 p, dvec2 q)
{
  if (e != 0.0LF)
    return e > 0.0LF ? 1 : -1;
  if (q.y != p.y)
    return q.y < p.y ? 1 : -1;
  if (q.x != p.x)
    return q.x < p.x ? 1 : -1;
  return 0;
}

void
main ()
{
  uint i = tile.x + uint (gl_FragCoord.x), j = tile.y + uint (gl_FragCoord.y);
  precise dvec2 c = dvec2 (origin.x + (double (i) + 0.5LF) * pixel_size,
                           origin.y + (double (j) + 0.5LF) * pixel_size);
  uint t = triangle_id;
  dvec2 a[3];
  double z[3];
  for (int k = 0; k < 3; k++)
    {
      uint vertex = triangles[5u * t + uint (k)];
      a[k] = dvec2 (positions[3u * vertex + axes.x], positions[3u * vertex + axes.y]);
      z[k] = positions[3u * vertex + axes.z];
    }
  /* e[k]: the edge opposite vertex k, from vertex k + 1 to vertex k + 2: twice the signed
   * area of (c, p_k+1, p_k+2), the unnormalised barycentric weight of vertex k. */
  double e[3];
  int side[3];
  for (int k = 0; k < 3; k++)
    {
      dvec2 from = a[(k + 1) % 3], to = a[(k + 2) % 3];
      e[k] = edge_function (from, to, c);
      side[k] = edge_side (e[k], from, to);
    }
  if (side[0] == 0 || side[0] != side[1] || side[0] != side[2])
    return;

  precise double depth;
  precise double bary[3];
  int on_edge = e[0] == 0.0LF ? 0 : e[1] == 0.0LF ? 1 : e[2] == 0.0LF ? 2 : -1;
  if (on_edge >= 0)
    {
      /* On edge k: interpolated along the edge alone from its lexicographically smaller end
       * point, so the two triangles of a fold get bitwise equal depths (edge_interpolate). */
      int k = on_edge, i0 = (k + 1) % 3, i1 = (k + 2) % 3;
      bool forward = lexicographic_less (a[i0], a[i1]);
      int lo = forward ? i0 : i1, hi = forward ? i1 : i0;
      precise dvec2 d = dvec2 (a[hi].x - a[lo].x, a[hi].y - a[lo].y);
      precise double t_edge = divide ((c.x - a[lo].x) * d.x + (c.y - a[lo].y) * d.y,
                                      d.x * d.x + d.y * d.y);
      /* GLib's CLAMP, not GLSL's clamp: the same result for a -0 too. */
      t_edge = t_edge > 1.0LF ? 1.0LF : (t_edge < 0.0LF ? 0.0LF : t_edge);
      bary[k] = 0.0LF;
      bary[lo] = 1.0LF - t_edge;
      bary[hi] = t_edge;
      depth = (1.0LF - t_edge) * z[lo] + t_edge * z[hi];
    }
  else
    {
      precise double sum = e[0] + e[1] + e[2];
      for (int k = 0; k < 3; k++)
        bary[k] = divide (e[k], sum);
      depth = bary[0] * z[0] + bary[1] * z[1] + bary[2] * z[2];
    }

  uint slot = atomicCounterIncrement (fragment_count);
  if (slot >= capacity)
    return;   /* counted: the caller grows the buffer and draws again */
  fragments[slot] = Fragment (j * image_size.x + i, 0u, depth, bary, triangles[5u * t + 3u],
                              triangles[5u * t + 4u],
                              side[0] > 0 ? LDI_BACK : LDI_FRONT, 0u);
}

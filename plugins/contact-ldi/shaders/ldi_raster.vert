/* The LDI's GPU rasteriser, vertex stage (ldi_raster_gl.c): six vertices per triangle draw
 * the rectangle of the pixels whose centres its projection onto the image plane (u, v) may
 * cover, the range the CPU rasteriser scans (ldi_raster_cpu.c, pixel_range). GL's own
 * coverage of this rectangle is then trivially exact (its sides lie on pixel boundaries, half
 * a pixel from every centre); the fragment stage decides each centre with the CPU's rule. */
#version 430 core

layout (std430, binding = 0) readonly buffer Positions { double positions[]; };
/* Per triangle: the three global vertex indices, the surface and the triangle's index in it. */
layout (std430, binding = 1) readonly buffer Triangles { uint triangles[]; };

uniform uvec3 axes;            /* u, v and the image's axis */
uniform dvec2 origin;          /* box_min[u], box_min[v] */
uniform double pixel_size;     /* h */
uniform uvec2 image_size;      /* width, height in pixels */
uniform uvec4 tile;            /* first pixel (i, j) and size (w, h) of the drawn tile */
uniform uint first_triangle;   /* of this draw's batch */

flat out uint triangle_id;

/* The CPU's pixel_range, operation for operation: first and last pixel whose centre
 * origin + (i + 0.5) h may lie in [lo, hi], widened by one, clamped to [0, n). */
bool
pixel_range (double lo, double hi, double o, double h, uint n, out uint first, out uint last)
{
  precise double a = floor ((lo - o) / h - 0.5LF) - 1.0LF;
  precise double b = ceil ((hi - o) / h - 0.5LF) + 1.0LF;
  if (b < 0.0LF || a > double (n) - 1.0LF)
    return false;
  first = uint (max (a, 0.0LF));
  last = uint (min (b, double (n) - 1.0LF));
  return true;
}

void
main ()
{
  uint t = first_triangle + uint (gl_VertexID) / 6u;
  uint corner = uint (gl_VertexID) % 6u;
  triangle_id = t;
  dvec2 a[3];
  for (int k = 0; k < 3; k++)
    {
      uint vertex = triangles[5u * t + uint (k)];
      a[k] = dvec2 (positions[3u * vertex + axes.x], positions[3u * vertex + axes.y]);
    }
  uint i0, i1, j0, j1;
  bool any = pixel_range (min (a[0].x, min (a[1].x, a[2].x)), max (a[0].x, max (a[1].x, a[2].x)),
                          origin.x, pixel_size, image_size.x, i0, i1)
             && pixel_range (min (a[0].y, min (a[1].y, a[2].y)),
                             max (a[0].y, max (a[1].y, a[2].y)), origin.y, pixel_size,
                             image_size.y, j0, j1);
  /* Clip the range to the tile; an empty one collapses the rectangle outside the clip
   * volume, where it draws nothing. */
  if (any)
    {
      i0 = max (i0, tile.x);
      j0 = max (j0, tile.y);
      i1 = min (i1, tile.x + tile.z - 1u);
      j1 = min (j1, tile.y + tile.w - 1u);
      any = i0 <= i1 && j0 <= j1;
    }
  if (!any)
    {
      gl_Position = vec4 (-2.0, -2.0, 0.0, 1.0);
      return;
    }
  /* Corners (0, 0), (1, 0), (0, 1), (1, 0), (1, 1), (0, 1): two triangles. */
  const uint cx[6] = uint[6] (0u, 1u, 0u, 1u, 1u, 0u);
  const uint cy[6] = uint[6] (0u, 0u, 1u, 0u, 1u, 1u);
  /* Window coordinates relative to the tile: the pixel boundaries i0 and i1 + 1. */
  float x = float ((cx[corner] == 0u ? i0 : i1 + 1u) - tile.x);
  float y = float ((cy[corner] == 0u ? j0 : j1 + 1u) - tile.y);
  gl_Position = vec4 (2.0 * x / float (tile.z) - 1.0, 2.0 * y / float (tile.w) - 1.0, 0.0, 1.0);
}

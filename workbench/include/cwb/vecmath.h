/* Small vector, matrix and quaternion maths, static inline so plugins share it without
 * linking the host. Vectors are double[3], matrices double[9] row-major, quaternions
 * double[4] as (w, x, y, z). Dense systems beyond 3x3 go through LAPACK, never here. */
#pragma once

#include <math.h>
#include <string.h>

static inline void cwb_v3_set (double r[3], double x, double y, double z) { r[0] = x; r[1] = y; r[2] = z; }
static inline void cwb_v3_copy (double r[3], const double a[3]) { memcpy (r, a, 3 * sizeof (double)); }
static inline void cwb_v3_add (double r[3], const double a[3], const double b[3]) { for (int i = 0; i < 3; i++) r[i] = a[i] + b[i]; }
static inline void cwb_v3_sub (double r[3], const double a[3], const double b[3]) { for (int i = 0; i < 3; i++) r[i] = a[i] - b[i]; }
static inline void cwb_v3_scale (double r[3], const double a[3], double s) { for (int i = 0; i < 3; i++) r[i] = a[i] * s; }
/* r += s a */
static inline void cwb_v3_axpy (double r[3], double s, const double a[3]) { for (int i = 0; i < 3; i++) r[i] += s * a[i]; }
static inline double cwb_v3_dot (const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double cwb_v3_norm (const double a[3]) { return sqrt (cwb_v3_dot (a, a)); }

static inline void
cwb_v3_cross (double r[3], const double a[3], const double b[3])
{
  double t[3] = { a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0] };
  cwb_v3_copy (r, t);
}

/* Normalises in place; returns the former length (0 leaves a unchanged). */
static inline double
cwb_v3_normalize (double a[3])
{
  double n = cwb_v3_norm (a);
  if (n > 0)
    cwb_v3_scale (a, a, 1.0 / n);
  return n;
}

/* a's part in the plane normal to the unit vector n (a less its projection on n), in place. */
static inline void
cwb_v3_reject (double a[3], const double n[3])
{
  cwb_v3_axpy (a, -cwb_v3_dot (a, n), n);
}

/* Two unit tangents completing the unit normal n to a right-handed frame (n, t1, t2),
 * continuous except where n crosses the switch between reference axes. */
static inline void
cwb_v3_tangents (const double n[3], double t1[3], double t2[3])
{
  double ref[3] = { 1, 0, 0 };
  if (fabs (n[0]) > 0.57735)   /* > 1/sqrt(3): x is too close to n, use y */
    cwb_v3_set (ref, 0, 1, 0);
  cwb_v3_cross (t1, n, ref);
  cwb_v3_normalize (t1);
  cwb_v3_cross (t2, n, t1);
}

/* 3x3 matrices, row-major. */
static inline void cwb_m3_identity (double m[9]) { memset (m, 0, 9 * sizeof (double)); m[0] = m[4] = m[8] = 1; }

static inline void
cwb_m3_mul_v3 (double r[3], const double m[9], const double a[3])
{
  double t[3];
  for (int i = 0; i < 3; i++)
    t[i] = m[3 * i] * a[0] + m[3 * i + 1] * a[1] + m[3 * i + 2] * a[2];
  cwb_v3_copy (r, t);
}

/* r = m^T a */
static inline void
cwb_m3t_mul_v3 (double r[3], const double m[9], const double a[3])
{
  double t[3];
  for (int i = 0; i < 3; i++)
    t[i] = m[i] * a[0] + m[3 + i] * a[1] + m[6 + i] * a[2];
  cwb_v3_copy (r, t);
}

static inline void
cwb_m3_mul (double r[9], const double a[9], const double b[9])
{
  double t[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
  memcpy (r, t, sizeof t);
}

static inline void
cwb_m3_transpose (double r[9], const double a[9])
{
  double t[9] = { a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8] };
  memcpy (r, t, sizeof t);
}

/* r = [a]x, the cross-product matrix: [a]x b = a x b. */
static inline void
cwb_m3_skew (double r[9], const double a[3])
{
  r[0] = 0;     r[1] = -a[2]; r[2] = a[1];
  r[3] = a[2];  r[4] = 0;     r[5] = -a[0];
  r[6] = -a[1]; r[7] = a[0];  r[8] = 0;
}

/* Inverse of a 3x3 matrix by its adjugate; returns the determinant (0: r left unchanged).
 * Used for inertia tensors only, which are small, symmetric positive definite. */
static inline double
cwb_m3_inverse (double r[9], const double a[9])
{
  double c[9] = {
    a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
    a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
    a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3],
  };
  double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
  if (det == 0)
    return 0;
  for (int i = 0; i < 9; i++)
    r[i] = c[i] / det;
  return det;
}

/* Quaternions (w, x, y, z). */
static inline void cwb_quat_identity (double q[4]) { q[0] = 1; q[1] = q[2] = q[3] = 0; }

static inline void
cwb_quat_mul (double r[4], const double a[4], const double b[4])
{
  double t[4] = {
    a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
  };
  memcpy (r, t, sizeof t);
}

static inline void
cwb_quat_normalize (double q[4])
{
  double n = sqrt (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0)
    for (int i = 0; i < 4; i++)
      q[i] /= n;
}

/* Unit quaternion of a rotation vector w (axis * angle): the exponential map, with the
 * Taylor series near zero so small rotations keep full precision. */
static inline void
cwb_quat_from_rotvec (double q[4], const double w[3])
{
  double angle = cwb_v3_norm (w);
  double half = 0.5 * angle;
  double s = angle < 1e-8 ? 0.5 - angle * angle / 48.0 : sin (half) / angle;
  q[0] = cos (half);
  q[1] = s * w[0];
  q[2] = s * w[1];
  q[3] = s * w[2];
}

static inline void
cwb_quat_to_m3 (double m[9], const double q[4])
{
  double w = q[0], x = q[1], y = q[2], z = q[3];
  m[0] = 1 - 2 * (y * y + z * z); m[1] = 2 * (x * y - w * z);     m[2] = 2 * (x * z + w * y);
  m[3] = 2 * (x * y + w * z);     m[4] = 1 - 2 * (x * x + z * z); m[5] = 2 * (y * z - w * x);
  m[6] = 2 * (x * z - w * y);     m[7] = 2 * (y * z + w * x);     m[8] = 1 - 2 * (x * x + y * y);
}

/* The rotations about x, y, z in degrees (x first, then y, then z: q = q_z q_y q_x), as the
 * scene editor shows a body's orientation; and back. */
static inline void
cwb_quat_from_euler_deg (double q[4], const double degrees[3])
{
  double about[3][4];
  for (int k = 0; k < 3; k++)
    {
      double rotvec[3] = { 0, 0, 0 };
      rotvec[k] = degrees[k] * 3.14159265358979323846 / 180;
      cwb_quat_from_rotvec (about[k], rotvec);
    }
  double zy[4];
  cwb_quat_mul (zy, about[2], about[1]);
  cwb_quat_mul (q, zy, about[0]);
}

static inline void
cwb_quat_to_euler_deg (double degrees[3], const double q[4])
{
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double sin_y = 2 * (w * y - z * x);
  sin_y = sin_y < -1 ? -1 : sin_y > 1 ? 1 : sin_y;
  degrees[0] = atan2 (2 * (w * x + y * z), 1 - 2 * (x * x + y * y)) * 180 / 3.14159265358979323846;
  degrees[1] = asin (sin_y) * 180 / 3.14159265358979323846;
  degrees[2] = atan2 (2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) * 180 / 3.14159265358979323846;
}

/* The unit quaternion (w >= 0) of a rotation matrix, by Shepperd's method: the largest of
 * the four squared components is taken from the trace, the others from off-diagonal sums,
 * so no division is by a small number. */
static inline void
cwb_quat_from_m3 (double q[4], const double m[9])
{
  double t = m[0] + m[4] + m[8];
  if (t >= m[0] && t >= m[4] && t >= m[8])
    {
      double s = 2 * sqrt (1 + t);
      q[0] = 0.25 * s; q[1] = (m[7] - m[5]) / s; q[2] = (m[2] - m[6]) / s; q[3] = (m[3] - m[1]) / s;
    }
  else if (m[0] >= m[4] && m[0] >= m[8])
    {
      double s = 2 * sqrt (1 + m[0] - m[4] - m[8]);
      q[0] = (m[7] - m[5]) / s; q[1] = 0.25 * s; q[2] = (m[1] + m[3]) / s; q[3] = (m[2] + m[6]) / s;
    }
  else if (m[4] >= m[8])
    {
      double s = 2 * sqrt (1 + m[4] - m[0] - m[8]);
      q[0] = (m[2] - m[6]) / s; q[1] = (m[1] + m[3]) / s; q[2] = 0.25 * s; q[3] = (m[5] + m[7]) / s;
    }
  else
    {
      double s = 2 * sqrt (1 + m[8] - m[0] - m[4]);
      q[0] = (m[3] - m[1]) / s; q[1] = (m[2] + m[6]) / s; q[2] = (m[5] + m[7]) / s; q[3] = 0.25 * s;
    }
  if (q[0] < 0)
    for (int i = 0; i < 4; i++)
      q[i] = -q[i];
  cwb_quat_normalize (q);
}

static inline void
cwb_quat_rotate (double r[3], const double q[4], const double a[3])
{
  double m[9];
  cwb_quat_to_m3 (m, q);
  cwb_m3_mul_v3 (r, m, a);
}

/* r = R I R^T: a body-frame tensor I expressed in the world frame by rotation R. */
static inline void
cwb_m3_rotate_tensor (double r[9], const double rot[9], const double tensor[9])
{
  double rt[9], tmp[9];
  cwb_m3_transpose (rt, rot);
  cwb_m3_mul (tmp, rot, tensor);
  cwb_m3_mul (r, tmp, rt);
}

/* Triangles. The feature of a triangle (a, b, c) = vertices 0, 1, 2 that holds a closest
 * point: the face, edge k (from vertex k to vertex k + 1 mod 3) or vertex k. */
enum {
  CWB_TRIANGLE_FACE = 0,
  CWB_TRIANGLE_EDGE = 1,    /* + k */
  CWB_TRIANGLE_VERTEX = 4,  /* + k */
};

/* num / den, or 0 when den is not positive: the ratios of cwb_triangle_closest_point, whose
 * denominators are positive squared lengths except through rounding on the tiniest
 * triangles. */
static inline double
cwb_ratio_or_zero (double num, double den)
{
  return den > 0 ? num / den : 0;
}

/* Closest point of triangle (a, b, c) to p by Voronoi regions (Ericson 2005, Real-Time
 * Collision Detection 5.1.5, ClosestPtPointTriangle): returns the feature holding it and its
 * barycentric coordinates (>= 0, summing to 1). Rounding can misplace a point that lies on
 * the border of two regions, where both features' pseudo-normal tests agree unless p is
 * within rounding of the surface. */
static inline int
cwb_triangle_closest_point (const double p[3], const double a[3], const double b[3],
                            const double c[3], double bary[3])
{
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  cwb_v3_sub (ab, b, a);
  cwb_v3_sub (ac, c, a);
  cwb_v3_sub (ap, p, a);
  double d1 = cwb_v3_dot (ab, ap), d2 = cwb_v3_dot (ac, ap);
  if (d1 <= 0 && d2 <= 0)
    {
      cwb_v3_set (bary, 1, 0, 0);
      return CWB_TRIANGLE_VERTEX + 0;
    }
  cwb_v3_sub (bp, p, b);
  double d3 = cwb_v3_dot (ab, bp), d4 = cwb_v3_dot (ac, bp);
  if (d3 >= 0 && d4 <= d3)
    {
      cwb_v3_set (bary, 0, 1, 0);
      return CWB_TRIANGLE_VERTEX + 1;
    }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0)
    {
      double v = cwb_ratio_or_zero (d1, d1 - d3);
      cwb_v3_set (bary, 1 - v, v, 0);
      return CWB_TRIANGLE_EDGE + 0;
    }
  cwb_v3_sub (cp, p, c);
  double d5 = cwb_v3_dot (ab, cp), d6 = cwb_v3_dot (ac, cp);
  if (d6 >= 0 && d5 <= d6)
    {
      cwb_v3_set (bary, 0, 0, 1);
      return CWB_TRIANGLE_VERTEX + 2;
    }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0)
    {
      double w = cwb_ratio_or_zero (d2, d2 - d6);
      cwb_v3_set (bary, 1 - w, 0, w);
      return CWB_TRIANGLE_EDGE + 2;
    }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    {
      double w = cwb_ratio_or_zero (d4 - d3, (d4 - d3) + (d5 - d6));
      cwb_v3_set (bary, 0, 1 - w, w);
      return CWB_TRIANGLE_EDGE + 1;
    }
  double v = cwb_ratio_or_zero (vb, va + vb + vc), w = cwb_ratio_or_zero (vc, va + vb + vc);
  cwb_v3_set (bary, 1 - v - w, v, w);
  return CWB_TRIANGLE_FACE;
}

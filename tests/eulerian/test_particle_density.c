/* Volume particles (Faure 2007 sec. 5.4): the lattice sampling of a closed surface's inside
 * (plugins/common/volume-sampling) and the particles' densities and kinematic coefficients
 * in the Eulerian grid (plugins/contact-eulerian/particle_density.c, eq. 4-6), against
 * closed forms: exact counts and volumes for a box on the lattice, the mesh's volume for a
 * sphere and a turned box within the measure's error, the particles' volumes conserved by
 * the spreading (eq. 4), a lattice's density exactly 1 inside and the surface's own across
 * its faces, the surface's area from the density's gradient (coarea), and eq. 6's weights. */
#include <math.h>

#include "particle_density.h"
#include "test_mesh.h"
#include "volume_particles.h"

static CwbSurfaceMesh
surface_of (const Mesh *m)
{
  return (CwbSurfaceMesh) {
    .struct_size = sizeof (CwbSurfaceMesh),
    .vertices = (const double *) m->x->data,
    .n_vertices = m->x->len / 3,
    .triangles = (const uint32_t *) m->tri->data,
    .n_triangles = m->tri->len / 3,
    .closed = TRUE,
    .manifold = TRUE,
    .source = "test",
  };
}

/* A 1 x 0.6 x 0.4 m box at a spacing of 0.1 m: the lattice fills it exactly, 10 x 6 x 4
 * particles, each a cell of the box, their volumes summing to the box's. */
static void
test_sample_box (void)
{
  const double c[3] = { 0.3, -0.2, 0.1 }, e[3] = { 0.5, 0.3, 0.2 };
  Mesh m = box_mesh (c, e, 0);
  CwbSurfaceMesh surface = surface_of (&m);
  VolumeParticles p;
  g_autoptr (GError) error = NULL;
  g_assert_true (volume_particles_sample (&surface, 0.1, "box", &p, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (p.n, ==, 240);
  g_assert_cmpfloat (fabs (p.volume - 0.24), <, 1e-12);
  for (size_t k = 0; k < p.n; k++)
    g_assert_cmpfloat (fabs (p.volumes[k] - 1e-3), <, 1e-15);
  for (size_t k = 0; k < p.n; k++)
    for (int a = 0; a < 3; a++)
      /* Cell centres: half a spacing in from the faces at least. */
      g_assert_cmpfloat (fabs (p.positions[3 * k + a] - c[a]), <=, e[a] - 0.05 + 1e-12);
  volume_particles_clear (&p);
  mesh_clear (&m);
}

/* A sphere and a turned box: the particles' volume against the mesh's. The part of each
 * cell inside is measured by its VOLUME_PARTICLES_SUBSAMPLES^3 samples, so the error is that
 * of a lattice of spacing u = s / 4: the surface's area times the mean share of a fine cell
 * it counts wrongly, an oscillating fraction of u: measured up to 0.2 % of A s (0.8 % of
 * A u); bound 5 % of A u, and under 0.1 % of the volume at the finest spacing. */
static void
check_sampled_volume (const Mesh *m, const char *what)
{
  double volume, area;
  mesh_measures (m, &volume, &area);
  CwbSurfaceMesh surface = surface_of (m);
  for (int level = 0; level < 3; level++)
    {
      double spacing = 0.08 / (1 << level);
      VolumeParticles p;
      g_assert_true (volume_particles_sample (&surface, spacing, what, &p, NULL));
      double sampled = p.volume, sum = 0;
      for (size_t k = 0; k < p.n; k++)
        sum += p.volumes[k];
      g_assert_cmpfloat (fabs (sum - sampled), <, 1e-12 * sampled);
      double error = fabs (sampled - volume);
      g_test_message ("%s at %.3g m: %zu particles, volume %.5g against %.5g: %.3g of A s", what,
                      spacing, p.n, sampled, volume, error / (area * spacing));
      g_assert_cmpfloat (error, <, 0.05 * area * spacing / VOLUME_PARTICLES_SUBSAMPLES);
      if (level == 2)
        g_assert_cmpfloat (error, <, 1e-3 * volume);
      volume_particles_clear (&p);
    }
}

static void
test_sample_volumes (void)
{
  const double c[3] = { 0.011, -0.023, 0.007 }, e[3] = { 0.5, 0.35, 0.25 };
  Mesh sphere = sphere_mesh (c, 0.5, 64);
  check_sampled_volume (&sphere, "sphere");
  mesh_clear (&sphere);
  Mesh box = box_mesh (c, e, 0.4);
  check_sampled_volume (&box, "turned box");
  mesh_clear (&box);
}

/* Spacings that leave no point inside, or an open surface: refused with the body's name. */
static void
test_sample_refusals (void)
{
  /* A plate 1 mm thick: the samples of a 0.3 m lattice, 7.5 cm apart, miss it. */
  const double c[3] = { 0, 0, 0 }, e[3] = { 0.5, 0.0005, 0.5 };
  Mesh m = box_mesh (c, e, 0);
  CwbSurfaceMesh surface = surface_of (&m);
  VolumeParticles p;
  g_autoptr (GError) error = NULL;
  g_assert_false (volume_particles_sample (&surface, 0.3, "plate", &p, &error));
  g_assert_nonnull (strstr (error->message, "plate"));
  g_assert_nonnull (strstr (error->message, "lower it"));
  g_clear_error (&error);
  surface.closed = FALSE;
  g_assert_false (volume_particles_sample (&surface, 0.01, "plate", &p, &error));
  g_assert_nonnull (strstr (error->message, "closed surface"));
  mesh_clear (&m);
}

/* Particles as a geometry. */
typedef struct Particles {
  GArray *x, *v, *radius, *mass;
} Particles;

static Particles
particles_new (void)
{
  return (Particles) { g_array_new (FALSE, FALSE, sizeof (double)),
                       g_array_new (FALSE, FALSE, sizeof (double)),
                       g_array_new (FALSE, FALSE, sizeof (double)),
                       g_array_new (FALSE, FALSE, sizeof (double)) };
}

static void
particles_clear (Particles *p)
{
  g_array_unref (p->x);
  g_array_unref (p->v);
  g_array_unref (p->radius);
  g_array_unref (p->mass);
}

static void
particles_add (Particles *p, const double x[3], double radius, double mass)
{
  const double zero[3] = { 0, 0, 0 };
  g_array_append_vals (p->x, x, 3);
  g_array_append_vals (p->v, zero, 3);
  g_array_append_val (p->radius, radius);
  g_array_append_val (p->mass, mass);
}

static CwbGeometry
geometry_of (const Particles *p)
{
  return (CwbGeometry) {
    .struct_size = sizeof (CwbGeometry),
    .kind = CWB_GEOMETRY_PARTICLES,
    .n_points = p->radius->len,
    .positions = (double *) p->x->data,
    .velocities = (double *) p->v->data,
    .radii = (const double *) p->radius->data,
    .masses = (const double *) p->mass->data,
  };
}

/* Samples the particles over the box of their centres widened by their reach (and a step). */
static void
sample (BodyDensity *d, const CwbGeometry *g, double step)
{
  double lo[3], hi[3], reach = particle_density_reach (g, step);
  cwb_geometry_bounds (g, lo, hi);
  for (int c = 0; c < 3; c++)
    {
      lo[c] -= reach;
      hi[c] += reach;
    }
  GridBox box;
  g_assert_true (grid_box_cover (&box, step, lo, hi, 2, 1u << 24));
  body_density_sample_particles (d, &box, g, NULL, 1);
}

/* The grid's sampling of a smoothed face: a plane's step sampled at spacing h integrates to
 * its volume only up to aliasing, whose first harmonic (Poisson summation; the cubic step's
 * slope is a parabola over [-h, h], its Fourier coefficient at 1/h is 3 / (4 pi^2)) is
 * 3 / (8 pi^3) h = 0.0121 h of volume per unit of area, and the slope sampled for the
 * coarea 3 / (4 pi^2) = 7.6 % of the area. Bounds: 0.015 h per unit of area for volumes,
 * 8 % of the area for areas, plus the edges' share. */
#define FACE_VOLUME_ALIASING 0.015
#define FACE_AREA_ALIASING 0.08

/* Eq. 4: each particle spreads its volume, sum_j rho_i (r_j) h^3 = V_i, up to the grid's
 * sampling of its smoothed cube (the aliasing above over its six faces, 6 d^2): measured
 * 1.3 %, 1 % and 0.27 % for particles of 0.6, 1.37 and 2.5 steps. Particles far apart, so
 * that nothing is clamped. */
static void
test_volume_conserved (void)
{
  const double step = 0.01;
  const double sizes[3] = { 0.6 * step, 1.37 * step, 2.5 * step };
  for (int s = 0; s < 3; s++)
    {
      Particles p = particles_new ();
      double radius = sizes[s] / cbrt (4.0 / 3.0 * G_PI), total = 0;
      double apart = 3 * (sizes[s] + 2 * step);
      GRand *rand = g_rand_new_with_seed (7);
      for (int k = 0; k < 60; k++)
        {
          double x[3] = { (k % 4) * apart + g_rand_double (rand) * step,
                          (k / 4 % 5) * apart + g_rand_double (rand) * step,
                          (k / 20) * apart + g_rand_double (rand) * step };
          particles_add (&p, x, radius, 1);
          total += pow (sizes[s], 3);
        }
      g_rand_free (rand);
      CwbGeometry g = geometry_of (&p);
      g_autoptr (BodyDensity) d = body_density_new ();
      sample (d, &g, step);
      double integral = body_density_volume (d);
      g_test_message ("particles of %.3g steps: density volume %.9g, particles %.9g (%.2g)",
                      sizes[s] / step, integral, total, fabs (integral - total) / total);
      double faces = 60 * 6 * sizes[s] * sizes[s];
      g_assert_cmpfloat (fabs (integral - total), <, FACE_VOLUME_ALIASING * step * faces);
      particles_clear (&p);
    }
}

/* A cube of particles on a lattice of spacing `spacing`, offset from the grid's. */
static Particles
particle_cube (double side, double spacing, const double offset[3])
{
  Particles p = particles_new ();
  int n = (int) lround (side / spacing);
  double radius = spacing / cbrt (4.0 / 3.0 * G_PI);
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        {
          double x[3] = { offset[0] + (i + 0.5) * spacing, offset[1] + (j + 0.5) * spacing,
                          offset[2] + (k + 0.5) * spacing };
          particles_add (&p, x, radius, 2.0);
        }
  return p;
}

/* particle_density_face_scale, in closed form: each particle adds the product over the axes
 * of phi (u) = P ((u - a) / h) - P ((u + a) / h), its cube of half-side a smoothed by the
 * step. With a = h / 2 (particles of the step's size):
 *   - a filled cube: its faces at phi (a) = P (0) - P (1) = 1/2, so 1;
 *   - a plate one particle thick: its broad faces at phi (a) x 1 (the plate's other axes
 *     telescope to 1), 1/2 again, so 1;
 *   - a row one particle thick: its sides at phi (a) phi (0) = phi (0) / 2, so
 *     phi (0) = P (-1/2) - P (1/2) = 0.6875 (its faces' half sunk 0.14 of a step inside
 *     them without it; its axis, where it peaks, reaches phi (0)^2 = 0.4727).
 * To round-off: the face centres are where each closed form holds exactly. */
static void
test_face_scale (void)
{
  const double step = 0.01, offset[3] = { 0.0031, -0.0047, 0.0013 };
  double radius = step / cbrt (4.0 / 3.0 * G_PI);
  Particles cube = particle_cube (0.1, step, offset);
  CwbGeometry g = geometry_of (&cube);
  g_assert_cmpfloat_with_epsilon (particle_density_face_scale (&g, step), 1, 1e-12);
  particles_clear (&cube);
  Particles plate = particles_new (), row = particles_new ();
  for (int j = 0; j < 30; j++)
    {
      double x[3] = { offset[0], offset[1] + j * step, offset[2] };
      particles_add (&row, x, radius, 0.7);
      for (int i = 0; i < 30; i++)
        {
          double y[3] = { offset[0] + i * step, offset[1] + j * step, offset[2] };
          particles_add (&plate, y, radius, 0.7);
        }
    }
  g = geometry_of (&plate);
  g_assert_cmpfloat_with_epsilon (particle_density_face_scale (&g, step), 1, 1e-12);
  g = geometry_of (&row);
  double across = density_profile (-0.5, NULL, NULL) - density_profile (0.5, NULL, NULL);
  double scale = particle_density_face_scale (&g, step);
  g_test_message ("a row one particle thick: face scale %.4f (phi (0) = %.4f)", scale, across);
  g_assert_cmpfloat_with_epsilon (scale, across, 1e-12);
  g_assert_cmpfloat_with_epsilon (across, 0.6875, 1e-12);
  particles_clear (&plate);
  particles_clear (&row);
}

/* particle_density_surface on a cube of n^3 particles of side s, turned about an oblique
 * axis (the reading takes no axes from the grid): its particles with fewer than six
 * neighbours miss 6 n^2 faces, area 6 (n s)^2; its largest flat face is a face's
 * (n - 2)^2 particles whose only missing neighbour is outward (an edge's particles miss
 * two, their normals diagonal, another bin). To round-off. */
static void
test_surface (void)
{
  const double step = 0.01, offset[3] = { 0.0031, -0.0047, 0.0013 };
  const int n = 8;
  Particles cube = particle_cube (n * step, step, offset);
  double axis[3] = { 1, 2, 3 }, turn[4];
  cwb_v3_scale (axis, axis, 0.4 / cwb_v3_norm (axis));
  cwb_quat_from_rotvec (turn, axis);
  for (guint p = 0; p < cube.x->len / 3; p++)
    {
      double *x = &g_array_index (cube.x, double, 3 * p), y[3];
      cwb_quat_rotate (y, turn, x);
      cwb_v3_copy (x, y);
    }
  CwbGeometry g = geometry_of (&cube);
  double area, flat;
  particle_density_surface (&g, 0.05, &area, &flat);
  g_test_message ("a turned cube of %d^3 particles: area %.6g (6 (n s)^2 = %.6g), flat %.6g "
                  "((n - 2)^2 s^2 = %.6g)", n, area, 6 * pow (n * step, 2), flat,
                  pow ((n - 2) * step, 2));
  g_assert_cmpfloat_with_epsilon (area, 6 * pow (n * step, 2), 1e-12);
  g_assert_cmpfloat_with_epsilon (flat, pow ((n - 2) * step, 2), 1e-12);
  particles_clear (&cube);
}

/* A filled cube of particles at lattice spacings of 0.6 to 2.3 steps, off the grid:
 *   - inside, the smoothed cubes sum to 1 exactly (telescoping): to round-off;
 *   - across its faces the density is the surface's own: the same cube sampled from its
 *     mesh (density_grid.c) gives the same values at every point farther than two steps
 *     from its edges (at the edges the surface's rounded distance and the cubes' product
 *     differ), to round-off;
 *   - its volume: the faces' aliasing above (measured 0.0117 h per unit of area at 1.5 h,
 *     against the first harmonic's 0.0121), and at the edges the rounding of the level sets
 *     (0.4 h^2 per unit of edge, as for surfaces, test_density_grid.c);
 *   - its area from |grad rho| (coarea, the exact gradient): the faces' aliasing above, and
 *     about the edges and corners the level sets shrunk inside and rounded outside, a share
 *     of order h / edge: measured 0.24 % to 4.7 %; bound 8 % + h / edge. */
static void
test_filled_cube (void)
{
  const double step = 0.01, offset[3] = { 0.0031, -0.0047, 0.0013 };
  const double ratios[4] = { 0.6, 1, 1.5, 2.3 };
  for (int s = 0; s < 4; s++)
    {
      double spacing = ratios[s] * step;
      double edge = spacing * lround (0.2 / spacing);
      Particles p = particle_cube (edge, spacing, offset);
      CwbGeometry g = geometry_of (&p);
      g_autoptr (BodyDensity) d = body_density_new ();
      sample (d, &g, step);
      double centre[3], half[3] = { edge / 2, edge / 2, edge / 2 };
      for (int c = 0; c < 3; c++)
        centre[c] = offset[c] + edge / 2;
      Mesh m = box_mesh (centre, half, 0);
      g_autoptr (BodyDensity) surface = body_density_new ();
      body_density_sample_surface (surface, &d->box, (const double *) m.x->data,
                                   (const uint32_t *) m.tri->data, m.tri->len / 3);
      double area = 0, worst_inside = 0, worst_face = 0;
      for (int k = 0; k < d->box.n[2]; k++)
        for (int j = 0; j < d->box.n[1]; j++)
          for (int i = 0; i < d->box.n[0]; i++)
            {
              DensitySample at;
              GridPoint moves;
              particle_density_sample (d, &g, i, j, k, &at, &moves);
              area += cwb_v3_norm (at.gradient) * step * step * step;
              double r[3], from_edge = INFINITY, out = -INFINITY;
              grid_box_point (&d->box, i, j, k, r);
              /* Distance beyond each face pair, and the second largest of them: how far
               * the point is from the nearest edge's influence. */
              double beyond[3];
              for (int c = 0; c < 3; c++)
                {
                  beyond[c] = fabs (r[c] - centre[c]) - edge / 2;
                  out = MAX (out, beyond[c]);
                }
              for (int c = 0; c < 3; c++)
                if (beyond[c] < out)
                  from_edge = MIN (from_edge, -beyond[c]);
              size_t index = grid_box_index (&d->box, i, j, k);
              double rho = g_array_index (d->rho, double, index);
              if (out < -step)
                worst_inside = MAX (worst_inside, fabs (rho - 1));
              else if (from_edge > 2 * step)
                worst_face = MAX (worst_face,
                                  fabs (rho - g_array_index (surface->rho, double, index)));
            }
      double volume = body_density_volume (d);
      double expected_volume = pow (edge, 3), expected_area = 6 * edge * edge;
      double volume_error = fabs (volume - expected_volume) / expected_volume;
      double area_error = fabs (area - expected_area) / expected_area;
      g_test_message ("spacing %.3g h: inside within %.2g of 1, faces within %.2g of the "
                      "surface's; volume %.6g (%.2g), area %.5g (%.5g, %.2g)", ratios[s],
                      worst_inside, worst_face, volume, volume_error, area, expected_area,
                      area_error);
      g_assert_cmpfloat (worst_inside, <, 1e-12);
      g_assert_cmpfloat (worst_face, <, 1e-12);
      g_assert_cmpfloat (fabs (volume - expected_volume), <,
                         FACE_VOLUME_ALIASING * step * expected_area
                           + 0.4 * step * step * 12 * edge);
      g_assert_cmpfloat (area_error, <, FACE_AREA_ALIASING + step / edge);
      mesh_clear (&m);
      particles_clear (&p);
    }
}

/* Eq. 6 carries a grid point as the particles around it carry their mass: its weights sum
 * to 1, so a translation moves it exactly; a rotation moves it as the weighted centre of
 * those particles, which lies within the reach of their cubes, half a spacing and a step
 * along each axis: |w| sqrt 3 (d / 2 + h) off the rigid motion at most (measured 0.76 of
 * that). The sample's value is the sampled array's. */
static void
test_grid_point (void)
{
  const double step = 0.01, spacing = 0.015, offset[3] = { 0.0031, -0.0047, 0.0013 };
  const double v[3] = { 0.3, -0.2, 0.5 }, w[3] = { 1.1, -0.7, 2.3 }, o[3] = { 0.05, 0.1, -0.02 };
  Particles p = particle_cube (0.105, spacing, offset);
  for (guint k = 0; k < p.radius->len; k++)
    {
      double *x = &g_array_index (p.x, double, 3 * k), *u = &g_array_index (p.v, double, 3 * k);
      double arm[3], turn[3];
      cwb_v3_sub (arm, x, o);
      cwb_v3_cross (turn, w, arm);
      cwb_v3_add (u, v, turn);
    }
  CwbGeometry g = geometry_of (&p);
  g_autoptr (BodyDensity) d = body_density_new ();
  sample (d, &g, step);
  double worst_sum = 0, worst_rotation = 0, worst_value = 0;
  double bound = cwb_v3_norm (w) * sqrt (3) * (spacing / 2 + step);
  for (int k = 0; k < d->box.n[2]; k++)
    for (int j = 0; j < d->box.n[1]; j++)
      for (int i = 0; i < d->box.n[0]; i++)
        {
          double rho = g_array_index (d->rho, double, grid_box_index (&d->box, i, j, k));
          if (!(rho > 0))
            continue;
          DensitySample at;
          GridPoint m;
          particle_density_sample (d, &g, i, j, k, &at, &m);
          worst_value = MAX (worst_value, fabs (at.rho - rho));
          double sum = 0, r[3], velocity[3], arm[3], expected[3], diff[3];
          for (int t = 0; t < GRID_POINT_TERMS; t++)
            sum += m.weight[t];
          worst_sum = MAX (worst_sum, fabs (sum - 1));
          grid_box_point (&d->box, i, j, k, r);
          grid_point_velocity (&g, &m, velocity);
          cwb_v3_sub (arm, r, o);
          cwb_v3_cross (expected, w, arm);
          cwb_v3_add (expected, expected, v);
          cwb_v3_sub (diff, velocity, expected);
          worst_rotation = MAX (worst_rotation, cwb_v3_norm (diff));
        }
  g_test_message ("weights sum to 1 within %.3g; turning %.3g m/s off (bound %.3g); value "
                  "%.3g off the array", worst_sum, worst_rotation, bound, worst_value);
  g_assert_cmpfloat (worst_sum, <, 1e-14);
  g_assert_cmpfloat (worst_rotation, <, bound);
  g_assert_cmpfloat (worst_value, <, 1e-14);
  particles_clear (&p);
}

/* The gradient and Hessian are those of the density as the body moves: moving every
 * particle by +-eps along an axis changes the value at a fixed point by -grad rho . e eps
 * and the gradient by -H e eps, against central differences (eps = 1e-6 h: truncation
 * O(eps^2) of the step's third derivative, ~1e-12 of the values; round-off 1e-16 / eps of
 * them, ~1e-8 of the scale of the gradient (1 / h) and Hessian (1 / h^2): bound 1e-6 of
 * that scale). Particles of 1.5 steps in a small block, turned, so that every kind of point
 * (faces, edges, corners, between particles) is met. */
static void
test_derivatives (void)
{
  const double step = 0.01, eps = 1e-6 * step;
  Particles p = particles_new ();
  double radius = 1.5 * step / cbrt (4.0 / 3.0 * G_PI);
  for (int k = 0; k < 27; k++)
    {
      double x[3] = { 0.0013 + (k % 3) * 0.015 + 0.002 * (k % 2),
                      -0.0021 + (k / 3 % 3) * 0.015, 0.0007 + (k / 9) * 0.0155 };
      particles_add (&p, x, radius, 1);
    }
  CwbGeometry g = geometry_of (&p);
  g_autoptr (BodyDensity) d = body_density_new ();
  sample (d, &g, step);
  GridBox box = d->box;
  double worst_gradient = 0, worst_hessian = 0;
  for (int axis = 0; axis < 3; axis++)
    {
      g_autoptr (BodyDensity) plus = body_density_new ();
      g_autoptr (BodyDensity) minus = body_density_new ();
      for (int sign = -1; sign <= 1; sign += 2)
        {
          for (guint n = 0; n < p.radius->len; n++)
            g_array_index (p.x, double, 3 * n + axis) += sign * eps;
          body_density_sample_particles (sign > 0 ? plus : minus, &box, &g, NULL, 1);
          for (guint n = 0; n < p.radius->len; n++)
            g_array_index (p.x, double, 3 * n + axis) -= sign * eps;
        }
      for (int k = 0; k < box.n[2]; k++)
        for (int j = 0; j < box.n[1]; j++)
          for (int i = 0; i < box.n[0]; i++)
            {
              DensitySample at, ap, am;
              GridPoint unused;
              particle_density_sample (d, &g, i, j, k, &at, &unused);
              if (at.rho >= 1)
                continue;
              for (guint n = 0; n < p.radius->len; n++)
                g_array_index (p.x, double, 3 * n + axis) += eps;
              particle_density_sample (plus, &g, i, j, k, &ap, &unused);
              for (guint n = 0; n < p.radius->len; n++)
                g_array_index (p.x, double, 3 * n + axis) -= 2 * eps;
              particle_density_sample (minus, &g, i, j, k, &am, &unused);
              for (guint n = 0; n < p.radius->len; n++)
                g_array_index (p.x, double, 3 * n + axis) += eps;
              if (ap.rho >= 1 || am.rho >= 1)
                continue;
              double fd = (ap.rho - am.rho) / (2 * eps);
              worst_gradient = MAX (worst_gradient, fabs (fd + at.gradient[axis]) * step);
              for (int y = 0; y < 3; y++)
                {
                  double fd_h = (ap.gradient[y] - am.gradient[y]) / (2 * eps);
                  worst_hessian = MAX (worst_hessian,
                                       fabs (fd_h + at.hessian[3 * y + axis]) * step * step);
                }
            }
    }
  g_test_message ("gradient %.3g, Hessian %.3g off the differences (of 1 / h, 1 / h^2)",
                  worst_gradient, worst_hessian);
  g_assert_cmpfloat (worst_gradient, <, 1e-6);
  g_assert_cmpfloat (worst_hessian, <, 1e-6);
  particles_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eulerian/particles/sample-box", test_sample_box);
  g_test_add_func ("/eulerian/particles/sample-volumes", test_sample_volumes);
  g_test_add_func ("/eulerian/particles/sample-refusals", test_sample_refusals);
  g_test_add_func ("/eulerian/particles/volume-conserved", test_volume_conserved);
  g_test_add_func ("/eulerian/particles/filled-cube", test_filled_cube);
  g_test_add_func ("/eulerian/particles/face-scale", test_face_scale);
  g_test_add_func ("/eulerian/particles/surface", test_surface);
  g_test_add_func ("/eulerian/particles/grid-point", test_grid_point);
  g_test_add_func ("/eulerian/particles/derivatives", test_derivatives);
  return g_test_run ();
}

/* Volume particles (Faure 2007 sec. 5.4): the lattice sampling of a closed surface's inside
 * (plugins/common/volume-sampling) and the particles' densities and kinematic coefficients
 * in the Eulerian grid (plugins/contact-eulerian/particle_density.c, eq. 4-6), against
 * closed forms: exact counts and volumes for a box on the lattice, the mesh's volume for a
 * sphere and a turned box within the lattice's error, the particles' volumes conserved by
 * the spreading (eq. 4), the surface's area from the density's gradient (coarea), and a
 * rigid motion carried exactly by eq. 6. */
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
  double volume = 4.0 / 3.0 * G_PI * pow (p.radius, 3) * (double) p.n;
  g_assert_cmpfloat (fabs (volume - 0.24), <, 1e-12);
  for (size_t k = 0; k < p.n; k++)
    for (int a = 0; a < 3; a++)
      /* Cell centres: half a spacing in from the faces at least. */
      g_assert_cmpfloat (fabs (p.positions[3 * k + a] - c[a]), <=, e[a] - 0.05 + 1e-12);
  volume_particles_clear (&p);
  mesh_clear (&m);
}

/* A sphere and a turned box: the particles' volume n s^3 against the mesh's. A lattice point
 * is counted by whether it lies inside, so the error is the surface's area times the mean
 * share of a cell it cuts wrongly, of the order of the lattice's half spacing times an
 * oscillating factor: measured 0.06 % to 2.2 % of A s, bound 5 % of A s (A the area), and
 * under 1 % of the volume at the finest spacing. */
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
      double sampled = (double) p.n * spacing * spacing * spacing;
      double error = fabs (sampled - volume);
      g_test_message ("%s at %.3g m: %zu particles, volume %.5g against %.5g: %.3g of A s", what,
                      spacing, p.n, sampled, volume, error / (area * spacing));
      g_assert_cmpfloat (error, <, 0.05 * area * spacing);
      if (level == 2)
        g_assert_cmpfloat (error, <, 0.01 * volume);
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
  const double c[3] = { 0, 0, 0 }, e[3] = { 0.5, 0.02, 0.5 };
  Mesh m = box_mesh (c, e, 0.3);
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
  body_density_sample_particles (d, &box, g);
}

/* Eq. 4: each particle spreads all of its volume, so where no point is clamped the density
 * integrates to the particles' total volume, to round-off; for particles smaller than a cell
 * (the barycentric coordinates of their cell) and larger (a tent over several cells). */
static void
test_volume_conserved (void)
{
  const double step = 0.01;
  /* Particle sizes (cube root of the volume) of 0.6 and 2.5 steps, 3 sizes apart. */
  const double sizes[2] = { 0.6 * step, 2.5 * step };
  for (int s = 0; s < 2; s++)
    {
      Particles p = particles_new ();
      double radius = sizes[s] / cbrt (4.0 / 3.0 * G_PI), total = 0;
      GRand *rand = g_rand_new_with_seed (7);
      for (int k = 0; k < 60; k++)
        {
          double x[3] = { (k % 4) * 3 * sizes[s] + g_rand_double (rand) * step,
                          (k / 4 % 5) * 3 * MAX (sizes[s], 2 * step)
                            + g_rand_double (rand) * step,
                          (k / 20) * 3 * MAX (sizes[s], 2 * step) + g_rand_double (rand) * step };
          particles_add (&p, x, radius, 1);
          total += pow (sizes[s], 3);
        }
      g_rand_free (rand);
      CwbGeometry g = geometry_of (&p);
      g_autoptr (BodyDensity) d = body_density_new ();
      sample (d, &g, step);
      double integral = body_density_volume (d);
      g_test_message ("particles of %.2g steps: density volume %.15g, particles %.15g",
                      sizes[s] / step, integral, total);
      /* A few hundred additions of terms up to 1e-6 m^3. */
      g_assert_cmpfloat (fabs (integral - total), <, 1e-12 * total);
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

/* A filled cube of particles: the density integrates to its volume, and |grad rho| to its
 * area (coarea: the density falls from 1 to 0 across the surface). On a lattice of spacing
 * h the tents sum to 1 exactly and nothing is clamped: the volume to round-off. On a coarser
 * lattice (spacing d, tents of half-width d) a particle's tent sampled by the grid sums to
 * its N_i only on average over its offsets (the first harmonic of the sum's ripple is
 * (h / (pi d))^2 of it per axis: 4.5 % at d = 1.5 h), the density ripples by about that much
 * inside and the clamp at 1 trims the crests; bound: that amplitude (6.5 %, 4.5 % and 1.9 %
 * at 1.25, 1.5 and 2.3 h; measured 2.6 %, 2.1 % and 0.7 %). The area: the transition is a
 * tent's width 2 d across, and about the cube's edges and corners its level sets are
 * shrunk inside and rounded outside, a share of the area of the order of d / edge; bound
 * d / edge (5 % to 11.5 %; measured 0.2 % to 5.2 %). */
static void
test_filled_cube (void)
{
  const double step = 0.01, offset[3] = { 0.0031, -0.0047, 0.0013 };
  const double ratios[4] = { 1, 1.25, 1.5, 2.3 };
  for (int s = 0; s < 4; s++)
    {
      double spacing = ratios[s] * step;
      double edge = spacing * lround (0.2 / spacing);
      Particles p = particle_cube (edge, spacing, offset);
      CwbGeometry g = geometry_of (&p);
      g_autoptr (BodyDensity) d = body_density_new ();
      sample (d, &g, step);
      double volume = body_density_volume (d), area = 0;
      for (int k = 0; k < d->box.n[2]; k++)
        for (int j = 0; j < d->box.n[1]; j++)
          for (int i = 0; i < d->box.n[0]; i++)
            {
              double grad[3], hess[9];
              particle_density_derivatives (d, i, j, k, grad, hess);
              area += cwb_v3_norm (grad) * step * step * step;
            }
      double expected_volume = pow (edge, 3), expected_area = 6 * edge * edge;
      double volume_error = fabs (volume - expected_volume) / expected_volume;
      double area_error = fabs (area - expected_area) / expected_area;
      g_test_message ("spacing %.3g h: volume %.6g (%.6g, %.2g), area %.5g (%.5g, %.2g)",
                      ratios[s], volume, expected_volume, volume_error, area,
                      expected_area, area_error);
      double ripple = pow (1 / (G_PI * ratios[s]), 2);
      g_assert_cmpfloat (volume_error, <, ratios[s] == 1 ? 1e-12 : ripple);
      g_assert_cmpfloat (area_error, <, spacing / edge);
      particles_clear (&p);
    }
}

/* Eq. 6 carries a grid point as its particles carry it: every point the particles reach
 * moves with a translation exactly (its weights sum to 1), and a point with all of its
 * neighbours inside a lattice of spacing h also turns exactly with a rotation (the tents
 * reproduce linear functions, so the weighted centre of its particles is the point itself):
 * v + w x (r - o) to round-off. */
static void
test_rigid_motion (void)
{
  const double step = 0.01, offset[3] = { 0.0031, -0.0047, 0.0013 };
  const double v[3] = { 0.3, -0.2, 0.5 }, w[3] = { 1.1, -0.7, 2.3 }, o[3] = { 0.05, 0.1, -0.02 };
  Particles p = particle_cube (0.1, step, offset);
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
  double worst_translation = 0, worst_rotation = 0;
  int interior = 0;
  for (int k = 0; k < d->box.n[2]; k++)
    for (int j = 0; j < d->box.n[1]; j++)
      for (int i = 0; i < d->box.n[0]; i++)
        {
          double rho = g_array_index (d->rho, double, grid_box_index (&d->box, i, j, k));
          if (!(rho > 0))
            continue;
          GridPoint m;
          particle_grid_point_map (d, &g, i, j, k, &m);
          double sum = 0, r[3], velocity[3], arm[3], expected[3], diff[3];
          for (int t = 0; t < GRID_POINT_TERMS; t++)
            sum += m.weight[t];
          worst_translation = MAX (worst_translation, fabs (sum - 1));
          if (rho < 1 - 1e-12)
            continue;
          /* All eight neighbours of the point come from particles: a full lattice cell. */
          grid_box_point (&d->box, i, j, k, r);
          gboolean deep = TRUE;
          for (int a = 0; a < 3; a++)
            deep &= r[a] > offset[a] + 0.5 * step + step && r[a] < offset[a] + 0.1 - 1.5 * step;
          if (!deep)
            continue;
          interior++;
          grid_point_velocity (&g, &m, velocity);
          cwb_v3_sub (arm, r, o);
          cwb_v3_cross (expected, w, arm);
          cwb_v3_add (expected, expected, v);
          cwb_v3_sub (diff, velocity, expected);
          worst_rotation = MAX (worst_rotation, cwb_v3_norm (diff));
        }
  g_test_message ("weights sum to 1 within %.3g; %d interior points turn within %.3g m/s",
                  worst_translation, interior, worst_rotation);
  g_assert_cmpint (interior, >, 100);
  g_assert_cmpfloat (worst_translation, <, 1e-14);
  g_assert_cmpfloat (worst_rotation, <, 1e-13);
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
  g_test_add_func ("/eulerian/particles/rigid-motion", test_rigid_motion);
  return g_test_run ();
}

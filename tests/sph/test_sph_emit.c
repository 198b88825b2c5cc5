/* The SPH fluid's sources of particles (plugins/bodies/sph): a mesh's volume filled on the
 * lattice, and the inflow (inflow.h) emitting through a nozzle, against closed forms: its mass
 * rate, its particles' speed at the nozzle and the jet's free fall; and, with no inflow and
 * no surface tension, a world's state bit for bit what it was before either existed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include <cwb/vecmath.h>

#include "world_fixture.h"

/* ---- filling a mesh ------------------------------------------------------------------ */

/* The volume a closed triangle surface bounds (the divergence theorem: the sum over its
 * triangles of a . (b x c) / 6), read from an OBJ file's v and f lines (f: triangles or
 * polygons fanned from their first vertex, indices optionally with /texture/normal). */
static double
obj_volume (const char *path, double scale)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (double));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  double volume = 0;
  for (char **line = lines; *line != NULL; line++)
    {
      if (g_str_has_prefix (*line, "v "))
        {
          double p[3];
          g_assert_cmpint (sscanf (*line + 2, "%lf %lf %lf", &p[0], &p[1], &p[2]), ==, 3);
          for (int c = 0; c < 3; c++)
            p[c] *= scale;
          g_array_append_vals (v, p, 3);
        }
      else if (g_str_has_prefix (*line, "f "))
        {
          g_auto (GStrv) words = g_strsplit_set (*line + 2, " \t\r", -1);
          long index[64];
          int count = 0;
          for (char **w = words; *w != NULL && count < 64; w++)
            if (**w != '\0')
              index[count++] = strtol (*w, NULL, 10) - 1;
          const double *a = &g_array_index (v, double, 3 * index[0]);
          for (int k = 1; k + 1 < count; k++)
            {
              double bc[3];
              cwb_v3_cross (bc, &g_array_index (v, double, 3 * index[k]),
                            &g_array_index (v, double, 3 * index[k + 1]));
              volume += cwb_v3_dot (a, bc) / 6;
            }
        }
    }
  return volume;
}

/* An icosphere of radius r (the icosahedron's faces split four times, 5120 triangles, the
 * vertices pushed onto the sphere) as an OBJ file at `path`. */
static void
write_icosphere (const char *path, double r)
{
  const double t = (1 + sqrt (5)) / 2;
  double base[12][3] = { { -1, t, 0 }, { 1, t, 0 }, { -1, -t, 0 }, { 1, -t, 0 },
                         { 0, -1, t }, { 0, 1, t }, { 0, -1, -t }, { 0, 1, -t },
                         { t, 0, -1 }, { t, 0, 1 }, { -t, 0, -1 }, { -t, 0, 1 } };
  static const int faces[20][3] = { { 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 },
                                    { 0, 10, 11 }, { 1, 5, 9 }, { 5, 11, 4 }, { 11, 10, 2 },
                                    { 10, 7, 6 }, { 7, 1, 8 }, { 3, 9, 4 }, { 3, 4, 2 },
                                    { 3, 2, 6 }, { 3, 6, 8 }, { 3, 8, 9 }, { 4, 9, 5 },
                                    { 2, 4, 11 }, { 6, 2, 10 }, { 8, 6, 7 }, { 9, 8, 1 } };
  g_autoptr (GArray) tri = g_array_new (FALSE, FALSE, sizeof (double));
  for (int f = 0; f < 20; f++)
    for (int k = 0; k < 3; k++)
      {
        double p[3];
        cwb_v3_copy (p, base[faces[f][k]]);
        cwb_v3_normalize (p);
        g_array_append_vals (tri, p, 3);
      }
  for (int level = 0; level < 4; level++)
    {
      g_autoptr (GArray) next = g_array_new (FALSE, FALSE, sizeof (double));
      for (guint f = 0; f < tri->len / 9; f++)
        {
          const double *a = &g_array_index (tri, double, 9 * f);
          double m[3][3];
          for (int k = 0; k < 3; k++)
            {
              cwb_v3_add (m[k], &a[3 * k], &a[3 * ((k + 1) % 3)]);
              cwb_v3_normalize (m[k]);
            }
          const double *out[4][3] = { { &a[0], m[0], m[2] }, { m[0], &a[3], m[1] },
                                      { m[2], m[1], &a[6] }, { m[0], m[1], m[2] } };
          for (int q = 0; q < 4; q++)
            for (int k = 0; k < 3; k++)
              g_array_append_vals (next, out[q][k], 3);
        }
      g_array_set_size (tri, 0);
      g_array_append_vals (tri, next->data, next->len);
    }
  g_autoptr (GString) obj = g_string_new (NULL);
  for (guint k = 0; k < tri->len / 3; k++)
    {
      const double *p = &g_array_index (tri, double, 3 * k);
      g_string_append_printf (obj, "v %.17g %.17g %.17g\n", r * p[0], r * p[1], r * p[2]);
    }
  for (guint f = 0; f < tri->len / 9; f++)
    g_string_append_printf (obj, "f %u %u %u\n", 3 * f + 1, 3 * f + 2, 3 * f + 3);
  g_assert_true (g_file_set_contents (path, obj->str, -1, NULL));
}

/* The particles a fluid of `spacing` fills the mesh at `path` (scaled) with. */
static size_t
fill_count (const char *path, double scale, double spacing)
{
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.001, gravity: [0, 0, 0] }\n"
    "contact: { model: proximity }\n"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: water\n"
    "    model: sph\n"
    "    mapping: particles\n"
    "    shape: { type: mesh, file: \"%s\", scale: %g }\n"
    "    material: { density: 1000, friction: 0 }\n"
    "    model_params: { particle_spacing: %g }\n", path, scale, spacing);
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  CwbBodySummary summary;
  cwb_world_body_summary (world, 0, &summary);
  size_t n = cwb_world_body_slot (world, 0)->nq / 3;
  g_assert_cmpfloat_with_epsilon (summary.mass, 1000 * n * pow (spacing, 3),
                                  1e-12 * summary.mass);
  return n;
}

/* A mesh's volume filled on the lattice: a lattice cell gets a particle when half of it is
 * inside, so a cell the surface cuts counts 0 or 1 for an inside share between, an error
 * within +-1/2 s^3 with no preferred sign on a curved surface. The errors of the N_cut cells
 * add as a random walk, sigma = s^3 sqrt (N_cut / 12), N_cut about 1.5 A / s^2 for a surface
 * of area A (a plane of random tilt cuts |n_x| + |n_y| + |n_z| cells per s^2, 1.5 on
 * average). The bound is 4 sigma. An icosphere of radius 5 cm (10 spacings: N_cut about
 * 1900, sigma 0.3 % of its volume) against its own volume and the sphere's 4/3 pi r^3 (the
 * 5120 flat faces hold 0.2 % less); the Spot cow of data/meshes (mesh file, area from its
 * bounding size) against its polyhedron's volume. */
static void
test_fill_mesh (void)
{
  const double s = 0.005, r = 0.05;
  g_autofree char *dir = g_dir_make_tmp ("sph-fill-XXXXXX", NULL);
  g_autofree char *sphere = g_build_filename (dir, "sphere.obj", NULL);
  write_icosphere (sphere, r);
  double polyhedron = obj_volume (sphere, 1), ball = 4.0 / 3 * G_PI * r * r * r;
  size_t n = fill_count (sphere, 1, s);
  double filled = n * s * s * s, sigma = s * s * s * sqrt (1.5 * 4 * G_PI * r * r / (s * s) / 12);
  g_test_message ("icosphere: %zu particles, %.4e m^3 against its %.4e (%+.2f %%) and the "
                  "sphere's %.4e (%+.2f %%); 4 sigma %.2f %%", n, filled, polyhedron,
                  100 * (filled / polyhedron - 1), ball, 100 * (filled / ball - 1),
                  400 * sigma / polyhedron);
  g_assert_cmpfloat (fabs (filled - polyhedron), <, 4 * sigma);
  g_assert_cmpfloat (fabs (filled - ball), <, 4 * sigma + (ball - polyhedron));
  g_unlink (sphere);
  g_rmdir (dir);

  g_autofree char *spot = g_build_filename (g_getenv ("CWB_SOURCE_DIR"), "data", "meshes",
                                            "spot.obj", NULL);
  const double scale = 0.12;
  double volume = obj_volume (spot, scale);
  n = fill_count (spot, scale, s);
  filled = n * s * s * s;
  /* Spot's area is under that of its bounding box 0.12 m a side: 6 (0.12)^2 bounds it. */
  sigma = s * s * s * sqrt (1.5 * 6 * scale * scale / (s * s) / 12);
  g_test_message ("spot: %zu particles, %.4e m^3 against its %.4e (%+.2f %%); 4 sigma %.2f %%",
                  n, filled, volume, 100 * (filled / volume - 1), 400 * sigma / volume);
  g_assert_cmpfloat (fabs (filled - volume), <, 4 * sigma);
}

/* ---- the inflow ---------------------------------------------------------------------- */

/* A jet alone: water of 5 mm particles leaving a disc nozzle 1.5 cm in radius at the origin
 * straight down at 0.5 m/s, gravity on, the fluid starting empty; %s: more model_params. */
#define JET_YAML                                                                            \
  "world: { dt: 0.001, gravity: [0, 0, -9.81] }\n"                                          \
  "contact: { model: proximity }\n"                                                         \
  "solver: { name: constraint }\n"                                                          \
  "bodies:\n"                                                                               \
  "  - name: water\n"                                                                       \
  "    model: sph\n"                                                                        \
  "    mapping: particles\n"                                                                \
  "    shape: { type: box, size: [0.01, 0.01, 0.01] }\n"                                    \
  "    material: { density: 1000, friction: 0 }\n"                                          \
  "    model_params: { particle_spacing: 0.005, fill: false, inflow_speed: 0.5,\n"          \
  "                    inflow_radius: 0.015, %s }\n"

static const double jet_s = 0.005, jet_u = 0.5, jet_g = 9.81, jet_h = 0.001;
/* Gauss's circle count: the lattice points (i, j) with i^2 + j^2 <= 3^2, the disc of radius
 * 3 spacings: 29 (pi 3^2 = 28.3). */
enum { JET_LAYER = 29 };

static CwbWorld *
jet_world (CwbRegistry *registry, const char *params)
{
  g_autofree char *yaml = g_strdup_printf (JET_YAML, params);
  return fixture_world (registry, yaml);
}

/* The inflow's particles (the fluid's, none filling the shape) and their count. */
static void
jet_state (CwbWorld *world, const double **x, const double **v, size_t *n)
{
  size_t nq, nv;
  *x = cwb_world_q (world, &nq);
  *v = cwb_world_v (world, &nv);
  *n = nq / 3;
}

/* The emitted mass is the rate times the time: a layer of 29 particles leaves every s / u
 * (10 ms), the first s / 2 behind the nozzle's plane, so by t the nozzle has let out
 * floor (u t / s + 1/2) layers (those whose centre has crossed the plane, below z = 0), and
 * the mass differs from rho (29 s^2) u t by half a layer's mass at most (a layer is out
 * whole or not at all). 40 layers' reserve (max_particles 1160), then the inflow stops:
 * after 0.4 s the mass out stays at the reserve's. */
static void
test_inflow_mass_rate (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = jet_world (registry, "max_particles: 1160");
  const double *x, *v;
  size_t n;
  jet_state (world, &x, &v, &n);
  g_assert_cmpuint (n, ==, 40 * JET_LAYER);
  double m = 1000 * pow (jet_s, 3), layer = JET_LAYER * m;
  double rate = 1000 * JET_LAYER * jet_s * jet_s * jet_u;
  g_assert_cmpfloat_with_epsilon (rate, 0.3625, 1e-12);
  double worst = 0;
  for (int step = 1; step <= 500; step++)
    {
      fixture_step (world, 1);
      jet_state (world, &x, &v, &n);
      double t = cwb_world_time (world), out = 0;
      for (size_t i = 0; i < n; i++)
        out += x[3 * i + 2] <= 0 ? m : 0;
      double expected = MIN (rate * t, 40 * layer);
      worst = MAX (worst, fabs (out - expected));
      if (fabs (out - expected) > 0.5 * layer + 1e-12)
        g_test_message ("t %.3f: %.6f kg out, rate x t %.6f kg", t, out, expected);
      g_assert_cmpfloat (fabs (out - expected), <=, 0.5 * layer + 1e-12);
    }
  g_test_message ("emitted mass within %.3g kg of rate x time (half a layer: %.3g kg)", worst,
                  0.5 * layer);
}

/* The particles leave the nozzle at its speed along its direction: a particle in the nozzle
 * moves at (0, 0, -u) exactly, and one that has crossed the plane within the last step (0 to
 * u h below it) still does, bit for bit (it was driven through that step); every other
 * particle out of the nozzle moves faster, gravity having had it for a step at least. */
static void
test_inflow_exit_speed (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = jet_world (registry, "max_particles: 1160");
  size_t fresh = 0;
  for (int step = 1; step <= 100; step++)
    {
      fixture_step (world, 1);
      const double *x, *v;
      size_t n;
      jet_state (world, &x, &v, &n);
      for (size_t i = 0; i < n; i++)
        {
          double z = x[3 * i + 2];
          if (z > 0 || z < -jet_u * jet_h)
            continue;
          fresh++;
          g_assert_cmpfloat (v[3 * i], ==, 0);
          g_assert_cmpfloat (v[3 * i + 1], ==, 0);
          g_assert_cmpfloat (v[3 * i + 2], ==, -jet_u);
        }
    }
  /* A layer crosses every 10 steps: 10 layers by 0.1 s, each seen once just out. */
  g_assert_cmpuint (fresh, ==, 10 * JET_LAYER);
}

/* The jet falls freely for its first centimetres: layer k crosses the plane at
 * t_k = (k + 1/2) s / u, and then, the jet thinning as it speeds up (no neighbour closer
 * than its lattice: density under rho_0, no pressure), z = -(u tau + g tau^2 / 2),
 * v_z = -(u + g tau), tau = t - t_k, the particle staying where it crossed the plane across
 * it. The time stepping departs from this by the step the particle stays driven after
 * crossing (under h: g h in speed) and symplectic Euler's g h tau / 2 in position, so the
 * bounds are g h in speed and g h (tau + h) in position (0.4 mm after 3 cm); across, the
 * viscosity of a jet whose layers move apart (nu 1e-6 m^2/s) moves nothing by 1 um. */
static void
test_inflow_ballistic (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = jet_world (registry, "max_particles: 1160");
  size_t n, checked = 0;
  double worst_z = 0, worst_v = 0;
  for (int step = 1; step <= 120; step++)
    {
      fixture_step (world, 1);
      const double *x, *v;
      jet_state (world, &x, &v, &n);
      double t = cwb_world_time (world);
      for (size_t i = 0; i < n; i++)
        {
          double t_k = ((double) (i / JET_LAYER) + 0.5) * jet_s / jet_u, tau = t - t_k;
          double z = -(jet_u * tau + 0.5 * jet_g * tau * tau);
          if (tau <= 0 || z < -0.03)
            continue;
          checked++;
          double dz = fabs (x[3 * i + 2] - z), dv = fabs (v[3 * i + 2] + jet_u + jet_g * tau);
          worst_z = MAX (worst_z, dz);
          worst_v = MAX (worst_v, dv);
          g_assert_cmpfloat (dz, <=, jet_g * jet_h * (tau + jet_h));
          g_assert_cmpfloat (dv, <=, jet_g * jet_h);
          /* Across: where the nozzle's lattice put it (on 5 mm points of the x, y plane). */
          for (int c = 0; c < 2; c++)
            g_assert_cmpfloat (fabs (x[3 * i + c] - jet_s * round (x[3 * i + c] / jet_s)), <,
                               1e-6);
        }
    }
  g_test_message ("%zu particle states checked: z within %.2e m, v_z within %.2e m/s", checked,
                  worst_z, worst_v);
  g_assert_cmpuint (checked, >, 1000);
}

/* A rectangular nozzle of 2 x 1 cm: round (w / s) by round (h / s) = 4 x 2 particles a layer,
 * the width along world x (the jet runs along -z), centred on the nozzle's centre. */
static void
test_inflow_rectangle (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = jet_world (
    registry, "max_particles: 80, inflow_shape: rectangle, inflow_width: 0.02, "
              "inflow_height: 0.01, inflow_position: [0.1, 0.2, 0.3]");
  const double *x, *v;
  size_t n;
  jet_state (world, &x, &v, &n);
  g_assert_cmpuint (n, ==, 80);
  double lo[3] = { G_MAXDOUBLE, G_MAXDOUBLE, 0 }, hi[3] = { -G_MAXDOUBLE, -G_MAXDOUBLE, 0 };
  for (size_t i = 0; i < 8; i++)   /* the first layer, driven half a spacing up */
    {
      g_assert_cmpfloat_with_epsilon (x[3 * i + 2], 0.3 + jet_s / 2, 1e-12);
      for (int c = 0; c < 2; c++)
        {
          lo[c] = MIN (lo[c], x[3 * i + c]);
          hi[c] = MAX (hi[c], x[3 * i + c]);
        }
    }
  g_assert_cmpfloat_with_epsilon (lo[0], 0.1 - 1.5 * jet_s, 1e-12);
  g_assert_cmpfloat_with_epsilon (hi[0], 0.1 + 1.5 * jet_s, 1e-12);
  g_assert_cmpfloat_with_epsilon (lo[1], 0.2 - 0.5 * jet_s, 1e-12);
  g_assert_cmpfloat_with_epsilon (hi[1], 0.2 + 0.5 * jet_s, 1e-12);
  /* The rest of the reserve waits at rest, all at one point behind the nozzle. */
  for (size_t i = 8; i < n; i++)
    {
      g_assert_cmpfloat (cwb_v3_norm (&v[3 * i]), ==, 0);
      g_assert_cmpfloat (x[3 * i + 2], >, 0.3 + jet_s);
    }
}

/* A fluid with neither an inflow nor surface tension steps as it did before they existed:
 * the state hashes after 40 steps of a block of water sliding onto a floor, under proximity
 * and penalty, are those this scene gave before (recorded with the commit that added the
 * inflow, re-recorded with the one that under-relaxed the pressure update, which changes the
 * step by design; IEEE double arithmetic without contraction into fused multiply-adds, which x86-64's
 * SSE2 code generation never does). */
static void
test_unchanged (gconstpointer data)
{
  const char *model = data;
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.002, gravity: [0, 0, -9.81] }\n"
    "contact: { model: %s }\n"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: floor\n"
    "    shape: { type: box, size: [0.3, 0.3, 0.02] }\n"
    "    pose: { position: [0, 0, -0.06] }\n"
    "    fixed: true\n"
    "  - name: water\n"
    "    model: sph\n"
    "    mapping: particles\n"
    "    shape: { type: box, size: [0.06, 0.06, 0.06] }\n"
    "    velocity: { linear: [0.3, 0, 0] }\n"
    "    material: { density: 1000, friction: 0 }\n"
    "    model_params: { particle_spacing: 0.01 }\n", model);
#if !defined(__x86_64__)
  g_test_skip ("the recorded hashes are x86-64's");
  return;
#endif
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 40);
  guint64 expected = strcmp (model, "proximity") == 0 ? G_GUINT64_CONSTANT (0x9824d7be338e9f04)
                                                      : G_GUINT64_CONSTANT (0xb1252b1b28b89bb5);
  g_assert_cmphex (cwb_world_state_hash (world), ==, expected);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sph/fill/mesh", test_fill_mesh);
  g_test_add_func ("/sph/inflow/mass-rate", test_inflow_mass_rate);
  g_test_add_func ("/sph/inflow/exit-speed", test_inflow_exit_speed);
  g_test_add_func ("/sph/inflow/ballistic", test_inflow_ballistic);
  g_test_add_func ("/sph/inflow/rectangle", test_inflow_rectangle);
  g_test_add_data_func ("/sph/inflow/off-unchanged/proximity", "proximity", test_unchanged);
  g_test_add_data_func ("/sph/inflow/off-unchanged/penalty", "penalty", test_unchanged);
  return g_test_run ();
}

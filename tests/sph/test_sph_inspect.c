/* The SPH fluid's node inspection (ABI 1.22 inspect_nodes), through its vtable as the host
 * calls it: a block at rest on its lattice has the rest density inside (the lattice's own
 * density is rho_0 by construction, pcisph.h), is rarefied at its faces and carries no
 * pressure; each particle's speed is |v|; a compressed block's step leaves pressures that
 * are positive where it pushed back and never negative. */
#include <math.h>

#include <cwb/vecmath.h>

#include "../rigid/test_plugin.h"

/* A block of 10 x 10 x 10 particles of 1 cm. */
#define SPACING 0.01
#define SIDE 0.1
/* Interior: two spacings (the kernel's support) from every face, so that each neighbourhood
 * is the full lattice's: |x| < SIDE / 2 - 2 SPACING about the block's centre. */
#define INTERIOR (SIDE / 2 - 2 * SPACING)
/* Inside, the density is the lattice's sum again: only the coordinates' round-off differs
 * (1e-18 m on 1e-2 m offsets), far inside the 2 % the view's colours would resolve. */
#define REST_TOLERANCE 1e-9
/* A face particle misses the neighbours beyond the face: at least a tenth of its density. */
#define FACE_RAREFACTION -0.1

typedef struct Fluid {
  const CwbBodyModelVTable *vt;
  void *body;
  size_t n;
  double *q, *v, *density_error, *pressure, *speed;
} Fluid;

static void
fluid_open (Fluid *f)
{
  const CwbPluginDesc *desc = test_plugin_load ("CWB_SPH_BODY_PLUGIN", CWB_PLUGIN_BODY_MODEL,
                                                "sph");
  f->vt = desc->vtable;
  g_assert_true (CWB_STRUCT_HAS (f->vt, CwbBodyModelVTable, inspect_nodes));
  g_assert_nonnull (f->vt->inspect_nodes);
  TestParams params;
  test_params_init (&params, desc);
  test_params_set_double (&params, "particle_spacing", SPACING);
  g_autoptr (TestShape) box = test_shape_box (SIDE, SIDE, SIDE);
  CwbBodyCreateInfo info = test_body_info ("water", box, 1000, FALSE, &params);
  g_autoptr (GError) error = NULL;
  f->body = f->vt->create (&info, test_host (), &error);
  g_assert_no_error (error);
  CwbBodyInfo body = { .struct_size = sizeof body };
  f->vt->get_info (f->body, &body);
  f->n = body.n_nodes;
  g_assert_cmpuint (f->n, ==, 1000);
  f->q = g_new (double, 3 * f->n);
  f->v = g_new (double, 3 * f->n);
  f->density_error = g_new (double, f->n);
  f->pressure = g_new (double, f->n);
  f->speed = g_new (double, f->n);
  f->vt->init_state (f->body, f->q, f->v);
}

static void
fluid_close (Fluid *f)
{
  f->vt->destroy (f->body);
  g_free (f->q);
  g_free (f->v);
  g_free (f->density_error);
  g_free (f->pressure);
  g_free (f->speed);
}

/* inspect_nodes at q, v as the host calls it: arrays filled with NAN first, so that a field
 * left unwritten shows. */
static void
fluid_inspect (Fluid *f, const double *q, const double *v)
{
  for (size_t i = 0; i < f->n; i++)
    f->density_error[i] = f->pressure[i] = f->speed[i] = NAN;
  CwbNodeInspection out = { .struct_size = sizeof out, .density_error = f->density_error,
                            .pressure = f->pressure, .speed = f->speed };
  f->vt->inspect_nodes (f->body, q, v, &out);
}

static gboolean
interior (const double *x)
{
  return fabs (x[0]) < INTERIOR && fabs (x[1]) < INTERIOR && fabs (x[2]) < INTERIOR;
}

/* At rest on the lattice, with random velocities: density error 0 inside, negative at the
 * faces, none positive; pressure 0 before any step; speed |v_i| (closed form). */
static void
test_rest_lattice (void)
{
  Fluid f;
  fluid_open (&f);
  g_autoptr (GRand) rand = g_rand_new_with_seed (21);
  for (size_t c = 0; c < 3 * f.n; c++)
    f.v[c] = g_rand_double_range (rand, -2, 2);
  fluid_inspect (&f, f.q, f.v);
  size_t inside = 0;
  double most_rarefied = 0;
  for (size_t i = 0; i < f.n; i++)
    {
      const double *x = &f.q[3 * i];
      g_assert_true (isfinite (f.density_error[i]));
      g_assert_cmpfloat (f.density_error[i], <=, REST_TOLERANCE);
      if (interior (x))
        {
          g_assert_cmpfloat (fabs (f.density_error[i]), <, REST_TOLERANCE);
          inside++;
        }
      most_rarefied = MIN (most_rarefied, f.density_error[i]);
      g_assert_cmpfloat (f.pressure[i], ==, 0);
      double speed = cwb_v3_norm (&f.v[3 * i]);
      g_assert_cmpfloat_with_epsilon (f.speed[i], speed, 1e-15 * speed);
    }
  g_assert_cmpuint (inside, ==, 6 * 6 * 6);
  g_assert_cmpfloat (most_rarefied, <, FACE_RAREFACTION);

  /* What an inspection costs (once per state the window shows): reported, not bounded. */
  g_autoptr (GTimer) timer = g_timer_new ();
  for (int k = 0; k < 10; k++)
    fluid_inspect (&f, f.q, f.v);
  g_test_message ("inspect_nodes: %.2f us per particle",
                  1e6 * g_timer_elapsed (timer, NULL) / (10.0 * (double) f.n));
  fluid_close (&f);
}

/* The block squeezed 3 % about its centre (about 10 % above the rest density inside), then
 * one step without gravity: PCISPH's pressures are positive inside, where they push the
 * particles apart, and none is negative (eq. 8 clamps them at 0: a free surface). The
 * densities then are the state's: the squeeze relaxed, the inside's error below its 10 %. */
static void
test_compressed_step (void)
{
  Fluid f;
  fluid_open (&f);
  for (size_t c = 0; c < 3 * f.n; c++)
    {
      f.q[c] *= 0.97;
      f.v[c] = 0;
    }
  fluid_inspect (&f, f.q, f.v);
  double squeezed = 0;
  for (size_t i = 0; i < f.n; i++)
    if (interior (&f.q[3 * i]))
      squeezed = MAX (squeezed, f.density_error[i]);
  g_test_message ("squeezed: density error %.4f inside", squeezed);
  g_assert_cmpfloat (squeezed, >, 0.05);

  g_autofree double *q1 = g_new (double, 3 * f.n);
  g_autofree double *v1 = g_new (double, 3 * f.n);
  CwbFreeMotion fm = { .struct_size = sizeof fm, .h = 1e-3, .q = f.q, .v = f.v,
                       .q_free = q1, .v_free = v1 };
  f.vt->free_motion (f.body, &fm);
  fluid_inspect (&f, q1, v1);
  double highest = 0, relaxed = 0;
  size_t pressed = 0;
  for (size_t i = 0; i < f.n; i++)
    {
      g_assert_true (isfinite (f.pressure[i]));
      g_assert_cmpfloat (f.pressure[i], >=, 0);
      highest = MAX (highest, f.pressure[i]);
      if (interior (&q1[3 * i]))
        {
          pressed += f.pressure[i] > 0;
          relaxed = MAX (relaxed, f.density_error[i]);
        }
      double speed = cwb_v3_norm (&v1[3 * i]);
      g_assert_cmpfloat_with_epsilon (f.speed[i], speed, 1e-15 * MAX (speed, 1e-300));
    }
  g_test_message ("after a step: highest pressure %.4g Pa, density error inside %.4f",
                  highest, relaxed);
  g_assert_cmpfloat (highest, >, 0);
  g_assert_cmpuint (pressed, ==, 6 * 6 * 6);
  g_assert_cmpfloat (relaxed, <, squeezed);
  fluid_close (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sph/inspect/rest-lattice", test_rest_lattice);
  g_test_add_func ("/sph/inspect/compressed-step", test_compressed_step);
  return g_test_run ();
}

/* The penalty model's friction law and its time-coherent scaling
 * (plugins/contact-penalty/static_friction.c, Lazarevych sec. 4.2): eq. 13 against its
 * closed form, and the fixed-point (eq. 17) and secant (eq. 19) iterations on a contact whose
 * end-of-step velocity depends linearly on the scaling, u(lambda) = a - b lambda (the
 * solution lambda* = a / b is what the iterations must find, one step per time step). */
#include <math.h>

#include "static_friction.h"

static void
test_gamma (void)
{
  /* Sliding at 0.2 m/s; f_max alone would leave -0.3 m/s: 40 % of it stops the contact. */
  g_assert_cmpfloat (fabs (friction_gamma (0.2, -0.3) - 0.4), <, 1e-15);
  /* f_max cannot stop it within the step: dynamic friction, the whole f_max. */
  g_assert_cmpfloat (friction_gamma (0.2, 0.05), ==, 1);
  /* Exactly stopped. */
  g_assert_cmpfloat (friction_gamma (0.2, 0), ==, 1);
}

/* Steps the iteration on u(lambda) = a - b lambda; returns the number of steps until
 * |u| < tolerance, or -1. */
static int
iterate (FrictionIteration iteration, double alpha, double a, double b, double tolerance,
         FrictionState *state)
{
  for (int k = 0; k < 1000; k++)
    {
      double u = a - b * state->lambda;
      if (fabs (u) < tolerance)
        return k;
      friction_update (state, u, iteration, alpha, 10);
    }
  return -1;
}

static void
test_fixed_point_converges (void)
{
  /* The paper's alpha = -0.1 with b = 5 (a contraction factor 1 - 0.5 per step): from
   * lambda = 1 to the solution 1.2 within a few tens of steps, as the paper reports
   * ("8 - 16 time steps" from 1e-3 to 1e-9 m/s). */
  FrictionState state = { .lambda = 1 };
  int steps = iterate (FRICTION_FIXED_POINT, -0.1, 6, 5, 1e-9, &state);
  g_test_message ("fixed point: %d steps", steps);
  g_assert_cmpint (steps, >, 0);
  g_assert_cmpint (steps, <, 40);
  g_assert_cmpfloat (fabs (state.lambda - 1.2), <, 1e-9);
  /* The wrong sign diverges: the test can tell a sign error. */
  FrictionState wrong = { .lambda = 1 };
  g_assert_cmpint (iterate (FRICTION_FIXED_POINT, 0.1, 6, 5, 1e-9, &wrong), ==, -1);
}

static void
test_secant_converges (void)
{
  /* On a linear u the secant step is exact once it has two iterates. */
  FrictionState state = { .lambda = 1 };
  int steps = iterate (FRICTION_SECANT, -0.1, 6, 5, 1e-12, &state);
  g_assert_cmpint (steps, ==, 2);
  g_assert_cmpfloat (fabs (state.lambda - 1.2), <, 1e-12);
}

static void
test_clamped_to_cone (void)
{
  /* A solution outside [0, lambda_max] stops at the bound: the force stays in the cone. */
  FrictionState state = { .lambda = 1 };
  for (int k = 0; k < 200; k++)
    friction_update (&state, 1.0, FRICTION_FIXED_POINT, -0.1, 1.5);
  g_assert_cmpfloat (state.lambda, ==, 1.5);
  for (int k = 0; k < 200; k++)
    friction_update (&state, -1.0, FRICTION_FIXED_POINT, -0.1, 1.5);
  g_assert_cmpfloat (state.lambda, ==, 0);
}

/* The memory keeps a contact's state while it lasts and forgets it when it breaks. */
static void
test_memory (void)
{
  g_autoptr (FrictionMemory) memory = friction_memory_new ();
  friction_memory_begin_step (memory);
  friction_memory_lookup (memory, 5, 1)->lambda = 0.7;
  friction_memory_lookup (memory, 3, 2)->lambda = 0.4;
  friction_memory_lookup (memory, 5, 0);
  friction_memory_end_step (memory);
  g_assert_cmpuint (friction_memory_size (memory), ==, 3);

  friction_memory_begin_step (memory);
  g_assert_cmpfloat (friction_memory_lookup (memory, 5, 1)->lambda, ==, 0.7);
  g_assert_cmpfloat (friction_memory_lookup (memory, 3, 2)->lambda, ==, 0.4);
  friction_memory_end_step (memory);
  g_assert_cmpuint (friction_memory_size (memory), ==, 2);   /* (5, 0) broke */

  friction_memory_begin_step (memory);
  g_assert_cmpfloat (friction_memory_lookup (memory, 5, 0)->lambda, ==, 1);   /* afresh */
  friction_memory_end_step (memory);
  g_assert_cmpuint (friction_memory_size (memory), ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/penalty/friction/gamma", test_gamma);
  g_test_add_func ("/penalty/friction/fixed-point", test_fixed_point_converges);
  g_test_add_func ("/penalty/friction/secant", test_secant_converges);
  g_test_add_func ("/penalty/friction/clamped", test_clamped_to_cone);
  g_test_add_func ("/penalty/friction/memory", test_memory);
  return g_test_run ();
}

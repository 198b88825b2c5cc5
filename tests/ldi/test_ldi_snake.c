/* Allard 2010 fig. 7: the snake pulled sideways by one end (scenes/ldi-snake.yaml: a 1 m
 * deformable tube of 6 400 triangles on 1 440 FEM tetrahedra, on the ground, mu = 0.5),
 * pulled at its head by a spring whose end moves sideways at a constant speed, as the
 * paper's user does with the mouse.
 *
 * One intersection volume has one pressure and one friction force for the whole contact,
 * which resist the contact's mean sliding but not a turn about its normal: the snake spins
 * about the middle of its body, its tail swinging the other way. With cells each 10 cm of
 * the body has its own friction: the tail's cells stick while the head's slide, and the
 * snake bends (the paper: "mono-volume spins around the contact center located
 * approximately in the middle of its body, while it gently evolves to a nice stable bent
 * shape using the multi-volume model"). */
#include <math.h>

#include "world_fixture.h"

#define PULL_SPEED 0.2       /* m/s, sideways (+y) */
#define PULL_TIME 1.0        /* s */
#define SPRING 400.0         /* N/m: pulls the head with up to a few times the snake's
                              * friction (0.5 * 1.9 kg * g = 9 N) */
#define SPRING_DAMPING 4.0   /* N s/m */

/* What tells the two apart, from kinematics rather than tuned numbers. A turn about the
 * middle moves the tail by minus the head's sideways displacement and keeps the body
 * straight; a bend about a sticking tail moves the tail little and puts the middle off the
 * tail-head chord. Measured (head 0.19 m sideways in both): one volume, tail -0.17 m, middle
 * 5 mm off the chord; cells, tail -0.016 m, middle 61 mm off. */
#define HEAD_MOVED 0.15          /* m: the spring (0.2 m of travel) did pull the head */
#define SPIN_TAIL_RATIO -0.5     /* one volume: the tail goes the other way, at least half as far */
#define STRAIGHT_SAGITTA 0.02    /* m, one volume: 2 % of the length */
#define STICK_TAIL_RATIO 0.25    /* cells: the tail moves at most a quarter of the head */
#define BENT_SAGITTA 0.04        /* m, cells */

typedef struct SnakeShape {
  double head[3], tail[3], middle[3];   /* the tips and the vertex nearest the middle */
} SnakeShape;

/* Indices of the snake's tips (largest and smallest x) and of its vertex nearest the middle
 * of its top (x = 0, largest z), in the rest pose. */
static void
find_vertices (CwbWorld *world, uint32_t *head, uint32_t *tail, uint32_t *middle)
{
  size_t n;
  const CwbGeometry *g = &cwb_world_geometries (world, &n)[1];
  *head = *tail = *middle = 0;
  for (uint32_t k = 0; k < g->n_points; k++)
    {
      const double *p = &g->positions[3 * k], *m = &g->positions[3 * *middle];
      if (p[0] > g->positions[3 * *head])
        *head = k;
      if (p[0] < g->positions[3 * *tail])
        *tail = k;
      if (fabs (p[0]) + fabs (p[1]) < fabs (m[0]) + fabs (m[1]) - 1e-12)
        *middle = k;
    }
}

static void
read_shape (CwbWorld *world, const uint32_t v[3], SnakeShape *s)
{
  size_t n;
  const CwbGeometry *g = &cwb_world_geometries (world, &n)[1];
  cwb_v3_copy (s->head, &g->positions[3 * v[0]]);
  cwb_v3_copy (s->tail, &g->positions[3 * v[1]]);
  cwb_v3_copy (s->middle, &g->positions[3 * v[2]]);
}

/* Pulls the snake's head and returns its shape before and after. */
static void
pull (gboolean multi_volume, SnakeShape *before, SnakeShape *after)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  const char *sets[] = { multi_volume ? "contact.multi_volume=true"
                                      : "contact.multi_volume=false", NULL };
  g_autoptr (CwbWorld) world = fixture_world_from_file (registry, "scenes/ldi-snake.yaml", sets);
  fixture_step (world, 10);   /* settle on the ground */
  uint32_t v[3];
  find_vertices (world, &v[0], &v[1], &v[2]);
  read_shape (world, v, before);
  CwbGrab grab = { .body = 1, .points = { v[0], v[0], v[0] }, .weights = { 1, 0, 0 },
                   .stiffness = SPRING, .damping = SPRING_DAMPING };
  double dt = cwb_world_dt (world);
  int steps = (int) lround (PULL_TIME / dt);
  for (int k = 1; k <= steps; k++)
    {
      cwb_v3_copy (grab.target, before->head);
      grab.target[1] += PULL_SPEED * k * dt;
      cwb_world_set_grab (world, &grab);
      fixture_step (world, 1);
    }
  read_shape (world, v, after);
}

/* Angle of the line tail -> head about z, and the middle's distance from that line (the
 * sagitta of the bend), in the ground's plane. */
static void
measure (const SnakeShape *s, double *angle, double *sagitta)
{
  double chord[2] = { s->head[0] - s->tail[0], s->head[1] - s->tail[1] };
  double to_middle[2] = { s->middle[0] - s->tail[0], s->middle[1] - s->tail[1] };
  double length = hypot (chord[0], chord[1]);
  *angle = atan2 (chord[1], chord[0]);
  *sagitta = fabs (chord[0] * to_middle[1] - chord[1] * to_middle[0]) / length;
}

static void
test_snake (void)
{
  SnakeShape before[2], after[2];
  double angle[2], sagitta[2], tail[2], head[2];
  for (int multi = 0; multi < 2; multi++)
    {
      pull (multi, &before[multi], &after[multi]);
      double angle0, sagitta0;
      measure (&before[multi], &angle0, &sagitta0);
      measure (&after[multi], &angle[multi], &sagitta[multi]);
      angle[multi] -= angle0;
      tail[multi] = after[multi].tail[1] - before[multi].tail[1];
      head[multi] = after[multi].head[1] - before[multi].head[1];
      g_test_message ("%s: head moved %.4f m sideways, tail %.4f m; turned %.2f degrees; "
                      "middle %.4f m off the chord", multi ? "multi-volume" : "mono-volume",
                      head[multi], tail[multi], angle[multi] * 180 / G_PI, sagitta[multi]);
      g_assert_cmpfloat (head[multi], >, HEAD_MOVED);
    }
  /* One volume: spins about its middle, straight. */
  g_assert_cmpfloat (tail[0], <, SPIN_TAIL_RATIO * head[0]);
  g_assert_cmpfloat (sagitta[0], <, STRAIGHT_SAGITTA);
  /* Cells: the tail sticks, the body bends. */
  g_assert_cmpfloat (fabs (tail[1]), <, STICK_TAIL_RATIO * head[1]);
  g_assert_cmpfloat (sagitta[1], >, BENT_SAGITTA);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/scenes/snake", test_snake);
  return g_test_run ();
}

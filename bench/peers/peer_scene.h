/* The peers' box scene (bench/peers/scene_to_boxes.py writes it) and their report, shared by
 * bullet_scene.cpp and mujoco_scene.c so that both read the same file the same way and print
 * the same JSON. Header-only: the peers are built by bench/peers/run.sh with one compiler call
 * each, outside the project's meson build. Compiles as C and as C++. */
#ifndef PEER_SCENE_H
#define PEER_SCENE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct
{
  char name[64];
  int ground;         /* a ground slab: MuJoCo makes it a plane through its top face */
  int fixed;
  double size[3];     /* full extents, m */
  double centre[3];   /* m */
  double q[4];        /* orientation, w x y z */
  double v[3], w[3];  /* linear and angular velocity, world frame */
  double density;     /* kg/m^3 */
  double mu;          /* the body's own Coulomb coefficient */
} PeerBox;

typedef struct
{
  double dt;
  double gravity[3];
  int n;
  PeerBox *boxes;
} PeerScene;

static inline double
peer_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Reads PATH into SCENE; 0 on success, -1 with a message naming the file and line. */
static inline int
peer_scene_load (const char *path, PeerScene *scene)
{
  FILE *f = fopen (path, "r");
  char line[1024];
  int lineno = 0, cap = 0;

  memset (scene, 0, sizeof *scene);
  if (!f)
    {
      fprintf (stderr, "%s: cannot open\n", path);
      return -1;
    }
  while (fgets (line, sizeof line, f))
    {
      char key[16];
      lineno++;
      if (sscanf (line, "%15s", key) != 1 || key[0] == '#')
        continue;
      if (strcmp (key, "dt") == 0 && sscanf (line, "dt %lf", &scene->dt) == 1)
        continue;
      if (strcmp (key, "gravity") == 0
          && sscanf (line, "gravity %lf %lf %lf", &scene->gravity[0], &scene->gravity[1],
                     &scene->gravity[2]) == 3)
        continue;
      if (strcmp (key, "box") == 0 || strcmp (key, "ground") == 0)
        {
          PeerBox b;
          b.ground = key[0] == 'g';
          if (scene->n == cap)
            {
              cap = cap ? 2 * cap : 64;
              scene->boxes = (PeerBox *) realloc (scene->boxes, (size_t) cap * sizeof (PeerBox));
            }
          if (sscanf (line,
                      "%*s %63s %d %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf"
                      " %lf %lf",
                      b.name, &b.fixed, &b.size[0], &b.size[1], &b.size[2], &b.centre[0],
                      &b.centre[1], &b.centre[2], &b.q[0], &b.q[1], &b.q[2], &b.q[3], &b.v[0],
                      &b.v[1], &b.v[2], &b.w[0], &b.w[1], &b.w[2], &b.density, &b.mu) == 20)
            {
              scene->boxes[scene->n++] = b;
              continue;
            }
        }
      fprintf (stderr, "%s:%d: not a dt, gravity, box or ground line\n", path, lineno);
      fclose (f);
      return -1;
    }
  fclose (f);
  if (scene->dt <= 0 || scene->n == 0)
    {
      fprintf (stderr, "%s: no dt or no boxes\n", path);
      return -1;
    }
  return 0;
}

static inline void
peer_print_number (FILE *out, double x)
{
  if (isfinite (x))
    fprintf (out, "%.9g", x);
  else
    fputs ("null", out); /* an exploded run: JSON has no nan */
}

static inline void
peer_print_vec (FILE *out, const double *v, int n)
{
  fputc ('[', out);
  for (int i = 0; i < n; i++)
    {
      if (i)
        fputs (", ", out);
      peer_print_number (out, v[i]);
    }
  fputc (']', out);
}

/* One JSON object on one line, shaped as contact-workbench's report where they share a field:
 * wall_ms is the stepping only (the sum of the step calls), setup_ms the scene's construction;
 * contacts_mean, contacts_max and contacts_end count the engine's contact points;
 * kinetic_energy_max is the largest total kinetic energy after a step (J); bodies
 * hold the moving bodies' final centre (centroid), linear velocity and orientation (w x y z).
 * SETTINGS is a JSON object's text. */
static inline void
peer_print_report (FILE *out, const char *engine, const char *settings, const PeerScene *scene,
                   int steps, double step_s, double setup_s, double kinetic_energy_max,
                   double contacts_mean,
                   int contacts_max, int contacts_end, const double (*centre)[3],
                   const double (*velocity)[3], const double (*orientation)[4])
{
  fprintf (out, "{\"engine\": \"%s\", \"settings\": %s, \"dt\": ", engine, settings);
  peer_print_number (out, scene->dt);
  fprintf (out, ", \"steps\": %d, \"wall_ms\": ", steps);
  peer_print_number (out, 1e3 * step_s);
  fputs (", \"setup_ms\": ", out);
  peer_print_number (out, 1e3 * setup_s);
  fputs (", \"kinetic_energy_max\": ", out);
  peer_print_number (out, kinetic_energy_max);
  fputs (", \"contacts_mean\": ", out);
  peer_print_number (out, contacts_mean);
  fprintf (out, ", \"contacts_max\": %d, \"contacts_end\": %d, \"bodies\": [", contacts_max,
           contacts_end);
  for (int i = 0, first = 1; i < scene->n; i++)
    {
      if (scene->boxes[i].fixed)
        continue;
      fprintf (out, "%s{\"name\": \"%s\", \"centroid\": ", first ? "" : ", ", scene->boxes[i].name);
      peer_print_vec (out, centre[i], 3);
      fputs (", \"linear_velocity\": ", out);
      peer_print_vec (out, velocity[i], 3);
      fputs (", \"orientation\": ", out);
      peer_print_vec (out, orientation[i], 4);
      fputc ('}', out);
      first = 0;
    }
  fputs ("]}\n", out);
}

#endif /* PEER_SCENE_H */

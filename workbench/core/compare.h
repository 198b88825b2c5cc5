/* A/B compare: one scene run twice, A as given and B with some of its values changed (a
 * contact model, a solver, parameters), stepped in lockstep; what differs between the two
 * after a step. Bodies are matched by name, so B may add or drop bodies: those are left out
 * of the distances. The headless run (run.h, --compare) and the window measure alike. */
#pragma once

#include "snapshot.h"
#include "world.h"

G_BEGIN_DECLS

typedef struct CwbCompareMeasure {
  size_t matched;              /* moving bodies found in both, by name */
  double max_distance;         /* m: the largest distance between a matched body's centres
                                * of mass in A and in B (0 when none is matched) */
  int farthest;                /* A's index of the body with it; -1 when none is matched */
  double max_angle;            /* rad: the largest angle between a matched body's
                                * orientations, from 0 to pi */
  double kinetic_energy[2];    /* J: the bodies' total in A and in B */
  size_t contacts[2];          /* contact frames at A's and B's last detection */
} CwbCompareMeasure;

/* The angle of the rotation taking unit quaternion a to b, from 0 to pi (q and -q are one
 * rotation); exact to rounding near 0, where acos of their product is not. */
double cwb_compare_angle (const double a[4], const double b[4]);

/* A and B's difference now. */
void cwb_compare_worlds (const CwbWorld *a, const CwbWorld *b, CwbCompareMeasure *out);
void cwb_compare_snapshots (const CwbSnapshot *a, const CwbSnapshot *b, CwbCompareMeasure *out);

/* Where a file of B's goes beside A's: ".b" before the extension of `path`'s last
 * component ("run.json" -> "run.b.json", "out" -> "out.b"). */
char *cwb_compare_b_path (const char *path);

G_END_DECLS

/* The fluid's inflow: particles emitted over time through a nozzle, a disc or a rectangle in
 * the plane through `centre` normal to the unit `direction`, at the speed u along it (the
 * emitters of SPlisHSPlasH, Bender et al.'s SPH library: a circle or a rectangle, a velocity,
 * an end time; the particle source of SOFA's SPH plugin).
 *
 * The nozzle's particles are a square lattice of the fluid's spacing s across the opening
 * (a layer); the layers leave one behind the other, s apart, so that the jet is the fluid's
 * own cubic lattice, at its rest density, moving at u. A layer leaves every s / u seconds:
 * the mass rate is rho (layer particles s^2) u, rho A u for the lattice's opening A.
 *
 * The world sizes a body's state once (nq = nv = 3 n at creation), so the inflow's particles
 * are the body's from the start, a reserve after the particles filling the shape, and their
 * part in the step is read from the state alone (no counter kept in the body, so a restored
 * or edited state emits as it should):
 *   parked  at rest at the park point, s behind the queue: nobody's neighbour, moved by
 *           nothing (zero compliance, no force), waiting;
 *   driven  at the velocity u direction exactly and behind the nozzle's plane: the queue in
 *           the nozzle, moving on at u whatever acts on it, a moving wall to the fluid ahead;
 *   free    any other: fluid.
 * Each free motion moves the next parked layers into the queue, s behind its last, until the
 * queue reaches one spacing further back than the step's travel u h; a driven particle that
 * has crossed the plane is free from the next step on. The first layer starts s / 2 behind
 * the plane, so layer k crosses it at t_k = (k + 1/2) s / u and by time t the inflow has
 * emitted round (t u / s) layers: the mass rate times t to half a layer's mass. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef enum SphNozzle { SPH_NOZZLE_DISC = 0, SPH_NOZZLE_RECTANGLE = 1 } SphNozzle;

/* What the scene asks for. */
typedef struct SphInflowSpec {
  double speed;            /* u, m/s; 0: no inflow */
  double centre[3];        /* the nozzle's centre, world */
  double direction[3];     /* the jet's direction, world (any length > 0) */
  SphNozzle shape;
  double radius;           /* disc */
  double width, height;    /* rectangle: width along the world x axis projected on the
                            * nozzle's plane (y for a jet along x), height across both */
  double duration;         /* s; 0: until the reserve is out */
  size_t reserve;          /* particles available for the inflow */
} SphInflowSpec;

typedef struct SphInflow {
  double centre[3], direction[3], across[2][3];
  double speed, spacing;
  double park[3];
  size_t first;            /* the body's index of the first reserve particle */
  size_t layer_size;       /* particles per layer */
  size_t n_layers;         /* layers the inflow emits */
  double *pattern;         /* 2 per layer particle: its offsets along across[0], across[1] */
} SphInflow;

/* The nozzle's layer and the layers the reserve and the duration allow, for a fluid of
 * spacing s whose reserve starts at particle `first`; dt (the world's step, 0 when unknown)
 * places the park point behind the queue. FALSE with a message naming the body when the
 * nozzle holds no particle or the reserve not one layer. */
gboolean sph_inflow_init (SphInflow *inflow, const SphInflowSpec *spec, double spacing,
                          size_t first, double dt, const char *body_name, GError **error);
void sph_inflow_clear (SphInflow *inflow);

/* The particles the inflow uses: layer_size n_layers, from `first` on. */
static inline size_t
sph_inflow_particles (const SphInflow *inflow)
{
  return inflow->layer_size * inflow->n_layers;
}

/* The start: the first layer driven s / 2 behind the plane, the others parked. x, v are the
 * body's whole state (3 n). */
void sph_inflow_start (const SphInflow *inflow, double *x, double *v);

/* Each particle's SPH_MODE_* (pcisph.h) in the state x, v: the fill's free, the reserve's as
 * the header says. */
void sph_inflow_modes (const SphInflow *inflow, const double *x, const double *v, size_t n,
                       uint8_t *modes);

/* After a step of length h from x whose particles had `modes`: moves the next parked layers
 * into the queue in the step's result x_out, v_out. */
void sph_inflow_emit (const SphInflow *inflow, const double *x, const uint8_t *modes, double h,
                      double *x_out, double *v_out);

G_END_DECLS

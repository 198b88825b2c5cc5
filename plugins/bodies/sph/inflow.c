/* The fluid's inflow (see inflow.h). */
#include "inflow.h"

#include <math.h>
#include <string.h>

#include <cwb/abi.h>
#include <cwb/vecmath.h>

#include "pcisph.h"

#define SPH_INFLOW_ERROR (sph_inflow_error_quark ())
static GQuark sph_inflow_error_quark (void);
CWB_DEFINE_ERROR_QUARK (cwb-sph-inflow-error-quark, sph_inflow_error)
enum { SPH_INFLOW_ERROR_NOZZLE };

/* The park point's distance behind the queue's end, in spacings: clear of the queue's last
 * layer, which reaches one spacing behind a step's travel. */
#define SPH_INFLOW_PARK_SPACINGS 3

/* The nozzle's frame: across[0] the world x axis in the nozzle's plane (y when the jet runs
 * within 45 degrees of x), across[1] = direction x across[0]. */
static void
nozzle_frame (SphInflow *inflow)
{
  double ref[3] = { 1, 0, 0 };
  if (fabs (inflow->direction[0]) > M_SQRT1_2)
    cwb_v3_set (ref, 0, 1, 0);
  cwb_v3_copy (inflow->across[0], ref);
  cwb_v3_reject (inflow->across[0], inflow->direction);
  cwb_v3_normalize (inflow->across[0]);
  cwb_v3_cross (inflow->across[1], inflow->direction, inflow->across[0]);
}

/* The layer: the lattice points (i s, j s) of the opening, a disc's those within its radius
 * (each standing for the cell of side s around it, so the layer's area approaches pi R^2),
 * a rectangle's round (width / s) by round (height / s) points centred on it. */
static void
nozzle_pattern (SphInflow *inflow, const SphInflowSpec *spec)
{
  double s = inflow->spacing;
  GArray *points = g_array_new (FALSE, FALSE, sizeof (double));
  if (spec->shape == SPH_NOZZLE_DISC)
    {
      int reach = (int) floor (spec->radius / s);
      double r2 = (spec->radius / s) * (spec->radius / s);
      for (int i = -reach; i <= reach; i++)
        for (int j = -reach; j <= reach; j++)
          if (i * i + j * j <= r2)
            {
              double p[2] = { i * s, j * s };
              g_array_append_vals (points, p, 2);
            }
    }
  else
    {
      long wide = lround (spec->width / s), high = lround (spec->height / s);
      for (long i = 0; i < wide; i++)
        for (long j = 0; j < high; j++)
          {
            double p[2] = { (i - 0.5 * (wide - 1)) * s, (j - 0.5 * (high - 1)) * s };
            g_array_append_vals (points, p, 2);
          }
    }
  inflow->layer_size = points->len / 2;
  inflow->pattern = (double *) (void *) g_array_free (points, FALSE);
}

gboolean
sph_inflow_init (SphInflow *inflow, const SphInflowSpec *spec, double spacing, size_t first,
                 double dt, const char *body_name, GError **error)
{
  memset (inflow, 0, sizeof *inflow);
  inflow->speed = spec->speed;
  inflow->spacing = spacing;
  inflow->first = first;
  cwb_v3_copy (inflow->centre, spec->centre);
  cwb_v3_copy (inflow->direction, spec->direction);
  if (!(cwb_v3_normalize (inflow->direction) > 0))
    {
      g_set_error (error, SPH_INFLOW_ERROR, SPH_INFLOW_ERROR_NOZZLE,
                   "body '%s': inflow_direction must not be zero", body_name);
      return FALSE;
    }
  nozzle_frame (inflow);
  nozzle_pattern (inflow, spec);
  if (inflow->layer_size == 0)
    {
      g_set_error (error, SPH_INFLOW_ERROR, SPH_INFLOW_ERROR_NOZZLE,
                   "body '%s': the inflow's nozzle holds no particle at particle_spacing %g m; "
                   "widen it (inflow_radius, inflow_width, inflow_height)", body_name, spacing);
      return FALSE;
    }
  size_t layers = spec->reserve / inflow->layer_size;
  if (spec->duration > 0)
    layers = MIN (layers, (size_t) lround (spec->duration * spec->speed / spacing));
  if (layers == 0)
    {
      g_set_error (error, SPH_INFLOW_ERROR, SPH_INFLOW_ERROR_NOZZLE,
                   "body '%s': the inflow has %zu particles to emit, less than its nozzle's "
                   "layer of %zu (or inflow_duration is shorter than one layer's s / u); "
                   "raise max_particles", body_name, spec->reserve, inflow->layer_size);
      return FALSE;
    }
  inflow->n_layers = layers;
  cwb_v3_copy (inflow->park, inflow->centre);
  cwb_v3_axpy (inflow->park, -(SPH_INFLOW_PARK_SPACINGS * spacing + spec->speed * dt),
               inflow->direction);
  return TRUE;
}

void
sph_inflow_clear (SphInflow *inflow)
{
  g_free (inflow->pattern);
  memset (inflow, 0, sizeof *inflow);
}

/* Particle k of a layer at `axial` along the direction from the nozzle's centre. */
static void
layer_point (const SphInflow *inflow, size_t k, double axial, double x[3])
{
  cwb_v3_copy (x, inflow->centre);
  cwb_v3_axpy (x, axial, inflow->direction);
  cwb_v3_axpy (x, inflow->pattern[2 * k], inflow->across[0]);
  cwb_v3_axpy (x, inflow->pattern[2 * k + 1], inflow->across[1]);
}

/* Writes layer L driven at `axial`. */
static void
layer_drive (const SphInflow *inflow, size_t layer, double axial, double *x, double *v)
{
  for (size_t k = 0; k < inflow->layer_size; k++)
    {
      size_t i = inflow->first + layer * inflow->layer_size + k;
      layer_point (inflow, k, axial, &x[3 * i]);
      cwb_v3_scale (&v[3 * i], inflow->direction, inflow->speed);
    }
}

void
sph_inflow_start (const SphInflow *inflow, double *x, double *v)
{
  size_t end = inflow->first + sph_inflow_particles (inflow);
  for (size_t i = inflow->first; i < end; i++)
    {
      cwb_v3_copy (&x[3 * i], inflow->park);
      cwb_v3_set (&v[3 * i], 0, 0, 0);
    }
  layer_drive (inflow, 0, -0.5 * inflow->spacing, x, v);
}

void
sph_inflow_modes (const SphInflow *inflow, const double *x, const double *v, size_t n,
                  uint8_t *modes)
{
  double drive[3];
  cwb_v3_scale (drive, inflow->direction, inflow->speed);
  for (size_t i = 0; i < n; i++)
    {
      const double *xi = &x[3 * i], *vi = &v[3 * i];
      modes[i] = SPH_MODE_FREE;
      if (i < inflow->first)
        continue;
      if (xi[0] == inflow->park[0] && xi[1] == inflow->park[1] && xi[2] == inflow->park[2]
          && vi[0] == 0 && vi[1] == 0 && vi[2] == 0)
        modes[i] = SPH_MODE_PARKED;
      else if (vi[0] == drive[0] && vi[1] == drive[1] && vi[2] == drive[2])
        {
          double d[3];
          cwb_v3_sub (d, xi, inflow->centre);
          if (cwb_v3_dot (d, inflow->direction) < 0)
            modes[i] = SPH_MODE_DRIVEN;
        }
    }
}

void
sph_inflow_emit (const SphInflow *inflow, const double *x, const uint8_t *modes, double h,
                 double *x_out, double *v_out)
{
  /* The queue's last layer at the step's start, and the first layer still parked (the
   * layers leave in order, so the parked ones are the last). */
  size_t end = inflow->first + sph_inflow_particles (inflow);
  double back = G_MAXDOUBLE;
  for (size_t i = inflow->first; i < end; i++)
    if (modes[i] == SPH_MODE_DRIVEN)
      {
        double d[3];
        cwb_v3_sub (d, &x[3 * i], inflow->centre);
        back = MIN (back, cwb_v3_dot (d, inflow->direction));
      }
  size_t layer = 0;
  while (layer < inflow->n_layers
         && modes[inflow->first + layer * inflow->layer_size] != SPH_MODE_PARKED)
    layer++;
  if (back == G_MAXDOUBLE)
    back = 0.5 * inflow->spacing;   /* no queue: the next layer starts s / 2 behind */
  double travel = inflow->speed * h;
  for (; layer < inflow->n_layers && back > -travel - inflow->spacing; layer++)
    {
      back -= inflow->spacing;
      layer_drive (inflow, layer, back + travel, x_out, v_out);
    }
}

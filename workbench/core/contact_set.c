/* The contact set's life cycle, and the results the host derives from a solved set: the force
 * of each contact frame in its own (normal, t1, t2) coordinates and its stick / slip / open
 * state. Deriving them here, once, lets every constraint solver and every contact model show
 * the same overlays without each computing them. */
#include "world_private.h"

/* A tangential force within this relative distance of the friction set's boundary (the cone's
 * or the pyramid's, coulomb.h) counts as on it: projected Gauss-Seidel puts a sliding
 * contact's force on the boundary up to round-off, and 1e-6 sits far above double round-off
 * yet far below any friction force a user would call "inside". */
#define CWB_SLIP_RELATIVE_TOLERANCE 1e-6

void
cwb_contact_set_init (CwbContactSet *set)
{
  memset (set, 0, sizeof *set);
  set->struct_size = sizeof *set;
  set->frames = g_array_new (FALSE, TRUE, sizeof (CwbContactFrame));
  set->rows = g_array_new (FALSE, TRUE, sizeof (CwbConstraintRow));
  set->weights = g_array_new (FALSE, TRUE, sizeof (CwbPointWeight));
  set->forces = g_array_new (FALSE, TRUE, sizeof (CwbPointWeight));
  set->stiffness = g_array_new (FALSE, TRUE, sizeof (CwbPointStiffness));
  set->contact_ids = g_array_new (FALSE, TRUE, sizeof (guint64));
  set->damping = g_array_new (FALSE, TRUE, sizeof (CwbPointStiffness));
  set->intersection_volume = NAN;
  set->max_penetration = NAN;
  set->friction_law = CWB_FRICTION_CONE;
  set->stabilization_passes = 0;
  set->reach = 0;
}

void
cwb_contact_set_clear (CwbContactSet *set)
{
  g_array_set_size (set->frames, 0);
  g_array_set_size (set->rows, 0);
  g_array_set_size (set->weights, 0);
  g_array_set_size (set->forces, 0);
  g_array_set_size (set->stiffness, 0);
  g_array_set_size (set->contact_ids, 0);
  g_array_set_size (set->damping, 0);
  set->intersection_volume = NAN;
  set->max_penetration = NAN;
  set->friction_law = CWB_FRICTION_CONE;
  set->stabilization_passes = 0;
  set->reach = 0;
}

void
cwb_contact_set_destroy (CwbContactSet *set)
{
  g_clear_pointer (&set->frames, g_array_unref);
  g_clear_pointer (&set->rows, g_array_unref);
  g_clear_pointer (&set->weights, g_array_unref);
  g_clear_pointer (&set->forces, g_array_unref);
  g_clear_pointer (&set->stiffness, g_array_unref);
  g_clear_pointer (&set->contact_ids, g_array_unref);
  g_clear_pointer (&set->damping, g_array_unref);
}

/* |sum of a row's weights on the points of body `body`|: the factor that turns the row's
 * multiplier into a force on that body. A point contact's weights sum to the unit normal
 * (factor 1, the multiplier is the force); a volume contact's to the contact area A, so the
 * multiplier, a pressure, times A is the force (Allard 2010 sec. 4.1, rho = lambda / A). */
static double
row_force_factor (const CwbContactSet *set, const CwbConstraintRow *row,
                  const CwbGeometry *geometries, uint32_t body)
{
  double sum[3] = { 0, 0, 0 };
  for (uint32_t k = 0; k < row->n_weights; k++)
    {
      const CwbPointWeight *w = &g_array_index (set->weights, CwbPointWeight, row->first_weight + k);
      if (geometries[w->geometry].body == body)
        cwb_v3_add (sum, sum, w->w);
    }
  return cwb_v3_norm (sum);
}

void
cwb_contact_results_fill (CwbContactSet *set, const CwbGeometry *geometries)
{
  for (guint f = 0; f < set->frames->len; f++)
    {
      CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, f);
      if (frame->n_rows == 0)
        continue;   /* a penalty contact: the model filled its force and state */
      memset (frame->force, 0, sizeof frame->force);
      for (uint32_t k = 0; k < frame->n_rows && k < 3; k++)
        {
          const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow,
                                                        frame->first_row + k);
          frame->force[k] = row->lambda * row_force_factor (set, row, geometries, frame->body_a);
        }
      double f_n = frame->force[0];
      double f_t = cwb_friction_gauge (set->friction_law, &frame->force[1]);
      if (f_n <= 0)
        frame->state = CWB_CONTACT_OPEN;
      else if (frame->n_rows >= 3 && f_t >= frame->mu * f_n * (1 - CWB_SLIP_RELATIVE_TOLERANCE))
        frame->state = CWB_CONTACT_SLIP;
      else
        frame->state = CWB_CONTACT_STICK;
    }
}

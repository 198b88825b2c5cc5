/* Contact forces and their post-correction (see contact_force.h). */
#include "contact_force.h"

typedef struct KeyValue {
  guint64 key;
  double value;
} KeyValue;

struct PenaltyNormalisation {
  GArray *entries;   /* KeyValue, sorted by key, value = c */
};

PenaltyNormalisation *
penalty_normalisation_new (void)
{
  PenaltyNormalisation *norm = g_new0 (PenaltyNormalisation, 1);
  norm->entries = g_array_new (FALSE, FALSE, sizeof (KeyValue));
  return norm;
}

void
penalty_normalisation_free (PenaltyNormalisation *norm)
{
  if (norm == NULL)
    return;
  g_array_unref (norm->entries);
  g_free (norm);
}

static int
compare_keys (gconstpointer a, gconstpointer b)
{
  guint64 x = ((const KeyValue *) a)->key, y = ((const KeyValue *) b)->key;
  return (x > y) - (x < y);
}

void
penalty_normalisation_build (PenaltyNormalisation *norm, const PenaltyPair *pairs, size_t n)
{
  GArray *e = norm->entries;
  g_array_set_size (e, 0);
  /* sum_j h_ji: point i's barycentric weight in every triangle that contains it. */
  for (size_t k = 0; k < n; k++)
    for (int v = 0; v < 3; v++)
      {
        KeyValue kv = { penalty_point_key (pairs[k].surface_geometry, pairs[k].vertices[v]),
                        pairs[k].bary[v] };
        g_array_append_val (e, kv);
      }
  g_array_sort (e, compare_keys);
  guint out = 0;
  for (guint k = 0; k < e->len;)
    {
      KeyValue run = g_array_index (e, KeyValue, k);
      for (k++; k < e->len && g_array_index (e, KeyValue, k).key == run.key; k++)
        run.value += g_array_index (e, KeyValue, k).value;
      run.value = 1 / (1 + run.value);   /* eq. 5 */
      g_array_index (e, KeyValue, out++) = run;
    }
  g_array_set_size (e, out);
}

double
penalty_normalisation_get (const PenaltyNormalisation *norm, uint32_t geometry, uint32_t point)
{
  if (norm->entries->len == 0)
    return 1;
  KeyValue probe = { penalty_point_key (geometry, point), 0 };
  const KeyValue *found = bsearch (&probe, norm->entries->data, norm->entries->len,
                                   sizeof (KeyValue), compare_keys);
  return found != NULL ? found->value : 1;
}

void
penalty_contact_force (const PenaltyPair *pair, const PenaltyNormalisation *norm, double dt,
                       double force[3])
{
  memset (force, 0, 3 * sizeof (double));
  /* c_i of the weighted point: its vertices' c by its weights (contact_force.h). */
  double c_i = 0;
  for (uint32_t k = 0; k < pair->n_points; k++)
    c_i += pair->weights[k] * penalty_normalisation_get (norm, pair->point_geometry,
                                                         pair->points[k]);
  /* S = sum_j c_j h_ij m_j: infinite as soon as a vertex that carries weight is immovable. */
  double s = 0;
  for (int v = 0; v < 3; v++)
    if (pair->bary[v] > 0)
      s += penalty_normalisation_get (norm, pair->surface_geometry, pair->vertices[v])
           * pair->bary[v] * pair->m_vertex[v];
  double inv_m_i = isinf (pair->m_point) ? 0 : 1 / pair->m_point;
  double c_over_s = isinf (s) ? 0 : (s > 0 ? c_i / s : INFINITY);
  double denominator = dt * dt * (inv_m_i + c_over_s);
  if (!(denominator > 0) || isinf (denominator))
    return;   /* neither side can move, or the triangle side carries no mass */
  cwb_v3_scale (force, pair->depth, 1 / denominator);
}

size_t
penalty_pair_pattern (const PenaltyPair *p, const double f[3], CwbPointWeight *out)
{
  size_t n = 0;
  for (uint32_t l = 0; l < p->n_points; l++)
    {
      out[n] = (CwbPointWeight){ .geometry = p->point_geometry, .point = p->points[l] };
      cwb_v3_scale (out[n++].w, f, p->weights[l]);
    }
  for (int v = 0; v < 3; v++)
    {
      if (p->bary[v] == 0)
        continue;
      out[n] = (CwbPointWeight){ .geometry = p->surface_geometry, .point = p->vertices[v] };
      cwb_v3_scale (out[n++].w, f, -p->bary[v]);
    }
  return n;
}

void
penalty_post_correct (const PenaltyPair *pairs, const double *forces, size_t n, GArray *out)
{
  for (size_t k = 0; k < n; k++)
    {
      /* Half the force on each side (halving is exact). */
      double half[3];
      cwb_v3_scale (half, &forces[3 * k], 0.5);
      CwbPointWeight pattern[PENALTY_PAIR_PATTERN_MAX];
      g_array_append_vals (out, pattern,
                           (guint) penalty_pair_pattern (&pairs[k], half, pattern));
    }
}

static int
compare_point_weights (gconstpointer a, gconstpointer b)
{
  const CwbPointWeight *x = a, *y = b;
  guint64 kx = penalty_point_key (x->geometry, x->point);
  guint64 ky = penalty_point_key (y->geometry, y->point);
  return (kx > ky) - (kx < ky);
}

void
penalty_merge_point_forces (GArray *items)
{
  g_array_sort (items, compare_point_weights);
  guint out = 0;
  for (guint k = 0; k < items->len;)
    {
      CwbPointWeight run = g_array_index (items, CwbPointWeight, k);
      for (k++; k < items->len
                && compare_point_weights (&g_array_index (items, CwbPointWeight, k), &run) == 0;
           k++)
        cwb_v3_add (run.w, run.w, g_array_index (items, CwbPointWeight, k).w);
      g_array_index (items, CwbPointWeight, out++) = run;
    }
  g_array_set_size (items, out);
}

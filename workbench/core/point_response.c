/* CwbContactQuery.point_response: how the bodies answer point forces over one step,
 * dp = J C J^T f per body (Saupin 2008 eq. 14 mapped back to the geometry), at the
 * configuration the geometries were last mapped at. Force-based contact models use it to size
 * their forces (the effective m_i / dt^2 of Spillmann 2007 for any body model).
 *
 * Forces and query points are sorted by geometry, so a call costs O(n log n) in its forces
 * and points, plus one compliance product per body touched, whatever the world's size. */
#include "world_private.h"

/* One item with its position in the caller's array, for sorting by geometry. */
typedef struct Indexed {
  CwbPointWeight item;
  size_t index;
} Indexed;

static int
compare_indexed (gconstpointer a, gconstpointer b)
{
  const Indexed *x = a, *y = b;
  if (x->item.geometry != y->item.geometry)
    return x->item.geometry < y->item.geometry ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* items sorted by geometry (stable) into `sorted` (Indexed): O(n log n), independent of the
 * number of geometries, so that the many small calls a contact model makes stay cheap in a
 * world of thousands of bodies. */
static void
sort_by_geometry (const CwbPointWeight *items, size_t n, GArray *sorted)
{
  g_array_set_size (sorted, n);
  for (size_t k = 0; k < n; k++)
    g_array_index (sorted, Indexed, k) = (Indexed){ items[k], k };
  g_array_sort (sorted, compare_indexed);
}

static gboolean
has_apply_j_points (const CwbMappingVTable *vt)
{
  return CWB_STRUCT_HAS (vt, CwbMappingVTable, apply_j_points) && vt->apply_j_points != NULL;
}

void
cwb_mapping_j_point (const CwbMappingVTable *vt, void *mapping, const double *q,
                     const double *dq, uint32_t point, double dp[3], GArray *scratch)
{
  if (has_apply_j_points (vt))
    {
      vt->apply_j_points (mapping, q, dq, &point, 1, dp);
      return;
    }
  CwbGeometryLayout layout = { .struct_size = sizeof layout };
  vt->get_layout (mapping, &layout);
  g_array_set_size (scratch, 3 * layout.n_points);
  vt->apply_j (mapping, q, dq, (double *) scratch->data);
  memcpy (dp, &g_array_index (scratch, double, 3 * point), 3 * sizeof (double));
}

void
cwb_world_point_response (void *host_data, const CwbPointWeight *forces, size_t n_forces,
                          const CwbPointWeight *at, size_t n_at, double *displacements)
{
  CwbWorld *world = host_data;
  CwbResponseScratch *s = &world->response;
  size_t n_geometries = world->bodies->len;
  if (n_at == 0)
    return;
  memset (displacements, 0, 3 * n_at * sizeof (double));
  for (size_t k = 0; k < n_forces; k++)
    g_return_if_fail (forces[k].geometry < n_geometries);
  for (size_t k = 0; k < n_at; k++)
    g_return_if_fail (at[k].geometry < n_geometries);

  sort_by_geometry (forces, n_forces, s->forces);
  sort_by_geometry (at, n_at, s->at);
  const Indexed *f = (const Indexed *) s->forces->data;
  const Indexed *a = (const Indexed *) s->at->data;
  size_t fi = 0, ai = 0;
  while (fi < n_forces && ai < n_at)
    {
      uint32_t g = f[fi].item.geometry;
      if (a[ai].item.geometry < g)
        {
          ai++;
          continue;
        }
      size_t f_end = fi;
      while (f_end < n_forces && f[f_end].item.geometry == g)
        f_end++;
      size_t a_begin = ai;
      while (ai < n_at && a[ai].item.geometry == g)
        ai++;
      size_t nf = f_end - fi, na = ai - a_begin;
      size_t f_begin = fi;
      fi = f_end;
      uint32_t body = world->geometries[g].body;
      if (na == 0 || world->slots[body].fixed)
        continue;
      CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, body);
      const double *q = world->q_detect + b->slot.q_offset;
      size_t nv = b->slot.nv;
      g_array_set_size (s->r, 2 * nv);
      double *r = (double *) s->r->data, *dq = r + nv;
      memset (r, 0, nv * sizeof (double));
      g_array_set_size (s->weights, nf);
      for (size_t k = 0; k < nf; k++)
        g_array_index (s->weights, CwbPointWeight, k) = f[f_begin + k].item;
      b->mapping->apply_jt (b->mapping_self, q, (const CwbPointWeight *) s->weights->data, nf,
                            r);
      b->model->compliance_apply (b->model_self, q, world->h, CWB_COMPLIANCE_EXACT, r, dq);

      g_array_set_size (s->dp, 3 * MAX (na, world->geometries[g].n_points));
      double *dp = (double *) s->dp->data;
      g_array_set_size (s->point_ids, na);
      uint32_t *ids = (uint32_t *) s->point_ids->data;
      for (size_t k = 0; k < na; k++)
        ids[k] = a[a_begin + k].item.point;
      if (has_apply_j_points (b->mapping))
        b->mapping->apply_j_points (b->mapping_self, q, dq, ids, na, dp);
      else
        {
          /* An ABI 1.0 mapping: J at every point, then pick (O(points) per body). */
          b->mapping->apply_j (b->mapping_self, q, dq, dp);
          for (size_t k = 0; k < na; k++)
            memmove (&dp[3 * k], &dp[3 * ids[k]], 3 * sizeof (double));
        }
      for (size_t k = 0; k < na; k++)
        {
          size_t original = a[a_begin + k].index;
          cwb_v3_add (&displacements[3 * original], &displacements[3 * original], &dp[3 * k]);
        }
    }
}

void
cwb_response_scratch_init (CwbResponseScratch *s)
{
  s->forces = g_array_new (FALSE, FALSE, sizeof (Indexed));
  s->at = g_array_new (FALSE, FALSE, sizeof (Indexed));
  s->weights = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  s->point_ids = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  s->r = g_array_new (FALSE, FALSE, sizeof (double));
  s->dp = g_array_new (FALSE, FALSE, sizeof (double));
}

void
cwb_response_scratch_destroy (CwbResponseScratch *s)
{
  GArray **arrays[] = { &s->forces, &s->at, &s->weights, &s->point_ids, &s->r, &s->dp };
  for (size_t k = 0; k < G_N_ELEMENTS (arrays); k++)
    g_clear_pointer (arrays[k], g_array_unref);
}

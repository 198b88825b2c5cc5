/* CwbContactQuery.point_response: how the bodies answer point forces over one step,
 * dp = J C J^T f per body (Saupin 2008 eq. 14 mapped back to the geometry), at the
 * configuration the geometries were last mapped at. Force-based contact models use it to size
 * their forces (the effective m_i / dt^2 of Spillmann 2007 for any body model).
 *
 * Forces and query points are bucketed by geometry with a counting sort, so a call costs
 * O(forces + points + geometries) plus one compliance product per body touched. */
#include "world_private.h"

/* Orders items[0..n) by geometry into sorted (stable), with start[g]..start[g+1) the run of
 * geometry g; index[k] is the position in items of sorted[k]. */
static void
bucket_by_geometry (const CwbPointWeight *items, size_t n, size_t n_geometries, GArray *start,
                    GArray *sorted, GArray *index)
{
  g_array_set_size (start, n_geometries + 1);
  g_array_set_size (sorted, n);
  g_array_set_size (index, n);
  size_t *s = (size_t *) start->data;
  memset (s, 0, (n_geometries + 1) * sizeof (size_t));
  for (size_t k = 0; k < n; k++)
    s[items[k].geometry + 1]++;
  for (size_t g = 0; g < n_geometries; g++)
    s[g + 1] += s[g];
  for (size_t k = 0; k < n; k++)
    {
      size_t slot = s[items[k].geometry]++;
      g_array_index (sorted, CwbPointWeight, slot) = items[k];
      g_array_index (index, size_t, slot) = k;
    }
  /* The scatter advanced each start to its end: shift back. */
  for (size_t g = n_geometries; g > 0; g--)
    s[g] = s[g - 1];
  s[0] = 0;
}

static gboolean
has_apply_j_points (const CwbMappingVTable *vt)
{
  return vt->struct_size >= G_STRUCT_OFFSET (CwbMappingVTable, apply_j_points) + sizeof (void *)
         && vt->apply_j_points != NULL;
}

void
cwb_world_point_response (void *host_data, const CwbPointWeight *forces, size_t n_forces,
                          const CwbPointWeight *at, size_t n_at, double *displacements)
{
  CwbWorld *world = host_data;
  CwbResponseScratch *s = &world->response;
  size_t n_geometries = world->bodies->len;
  memset (displacements, 0, 3 * n_at * sizeof (double));
  for (size_t k = 0; k < n_forces; k++)
    g_return_if_fail (forces[k].geometry < n_geometries);
  for (size_t k = 0; k < n_at; k++)
    g_return_if_fail (at[k].geometry < n_geometries);

  bucket_by_geometry (forces, n_forces, n_geometries, s->force_start, s->forces, s->force_index);
  bucket_by_geometry (at, n_at, n_geometries, s->at_start, s->at, s->at_index);
  const size_t *fs = (const size_t *) s->force_start->data;
  const size_t *as = (const size_t *) s->at_start->data;

  for (size_t g = 0; g < n_geometries; g++)
    {
      size_t nf = fs[g + 1] - fs[g], na = as[g + 1] - as[g];
      uint32_t body = world->geometries[g].body;
      if (nf == 0 || na == 0 || world->slots[body].fixed)
        continue;
      CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, body);
      const double *q = world->q_detect + b->slot.q_offset;
      size_t nv = b->slot.nv;
      g_array_set_size (s->r, 2 * nv);
      double *r = (double *) s->r->data, *dq = r + nv;
      memset (r, 0, nv * sizeof (double));
      b->mapping->apply_jt (b->mapping_self, q,
                            &g_array_index (s->forces, CwbPointWeight, fs[g]), nf, r);
      b->model->compliance_apply (b->model_self, q, world->h, CWB_COMPLIANCE_EXACT, r, dq);

      g_array_set_size (s->dp, 3 * MAX (na, world->geometries[g].n_points));
      double *dp = (double *) s->dp->data;
      const CwbPointWeight *points = &g_array_index (s->at, CwbPointWeight, as[g]);
      if (has_apply_j_points (b->mapping))
        {
          g_array_set_size (s->point_ids, na);
          uint32_t *ids = (uint32_t *) s->point_ids->data;
          for (size_t k = 0; k < na; k++)
            ids[k] = points[k].point;
          b->mapping->apply_j_points (b->mapping_self, q, dq, ids, na, dp);
        }
      else
        {
          /* An ABI 1.0 mapping: J at every point, then pick (O(points) per body). */
          b->mapping->apply_j (b->mapping_self, q, dq, dp);
          for (size_t k = 0; k < na; k++)
            memmove (&dp[3 * k], &dp[3 * points[k].point], 3 * sizeof (double));
        }
      for (size_t k = 0; k < na; k++)
        {
          size_t original = g_array_index (s->at_index, size_t, as[g] + k);
          cwb_v3_add (&displacements[3 * original], &displacements[3 * original], &dp[3 * k]);
        }
    }
}

void
cwb_response_scratch_init (CwbResponseScratch *s)
{
  s->force_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->forces = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  s->force_index = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->at_start = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->at = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  s->at_index = g_array_new (FALSE, FALSE, sizeof (size_t));
  s->point_ids = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  s->r = g_array_new (FALSE, FALSE, sizeof (double));
  s->dp = g_array_new (FALSE, FALSE, sizeof (double));
}

void
cwb_response_scratch_destroy (CwbResponseScratch *s)
{
  GArray **arrays[] = { &s->force_start, &s->forces, &s->force_index, &s->at_start, &s->at,
                        &s->at_index, &s->point_ids, &s->r, &s->dp };
  for (size_t k = 0; k < G_N_ELEMENTS (arrays); k++)
    g_clear_pointer (arrays[k], g_array_unref);
}

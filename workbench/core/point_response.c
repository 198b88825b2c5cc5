/* CwbContactQuery.point_response: how the bodies answer point forces over one step,
 * dp = J C J^T f per body (Saupin 2008 eq. 14 mapped back to the geometry), at the
 * configuration the geometries were last mapped at. Force-based contact models use it to size
 * their forces (the effective m_i / dt^2 of Spillmann 2007 for any body model).
 *
 * Nothing is sorted or copied: the items are read in runs of one geometry, in the caller's
 * order. Each run of forces is one J^T call accumulated into its body's generalized force
 * (J^T accumulates, so a body whose forces come in several runs gets their sum); each body
 * with a force and a query point gets one compliance product; each run of query points is
 * one J call written straight into the caller's displacements. A call costs O(n) in its
 * forces and points plus one compliance product per body touched, whatever the world's size;
 * items grouped by geometry (as contact models list them) make the fewest calls. */
#include "clock.h"
#include "world_private.h"

/* Where a geometry stands in the current call: touched in this call when its stamp is the
 * call's; offset of its r and dq (nv each) in the scratch `dofs`. */
typedef struct Touched {
  guint64 force_stamp;   /* carries a force in this call; r at offset */
  guint64 query_stamp;   /* has a query point in this call */
  guint64 full_stamp;    /* ABI 1.0 mapping: J dq at all points is in `full` at full_offset */
  size_t offset, full_offset;
  const double *diagonal;   /* with a force: its diagonal compliance (sparse), or NULL */
} Touched;

/* The largest point_dofs list read (a barycentric point's 12, with room). */
#define POINT_DOFS_MAX 32

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

/* Room for `n` elements in a scratch array that only ever grows (shrinking a GArray costs a
 * call per call; its length is its capacity here, the used part is tracked beside it). */
static void *
reserve (GArray *a, size_t n)
{
  if (a->len < n)
    g_array_set_size (a, n);
  return a->data;
}

/* The end of the run of items sharing items[begin]'s geometry. */
static size_t
run_end (const CwbPointWeight *items, size_t n, size_t begin)
{
  size_t end = begin + 1;
  while (end < n && items[end].geometry == items[begin].geometry)
    end++;
  return end;
}

/* Body `body`'s diagonal compliance at q_detect for the step's h (compliance_diagonal, ABI
 * 1.20), cached until either changes; NULL unless the body has one and its mapping lists
 * its points' DOFs (point_dofs). Such a body answers a force at its own DOFs alone, so a
 * call touches only the DOFs of its forces and query points, not the body's nv: a fluid's
 * thousands of particles each cost what one does. */
static const double *
sparse_diagonal (CwbWorld *world, uint32_t body)
{
  CwbResponseScratch *s = &world->response;
  CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, body);
  if (!CWB_STRUCT_HAS (b->model, CwbBodyModelVTable, compliance_diagonal)
      || b->model->compliance_diagonal == NULL
      || !CWB_STRUCT_HAS (b->mapping, CwbMappingVTable, point_dofs)
      || b->mapping->point_dofs == NULL)
    return NULL;
  if (s->diagonal->len < world->nv)
    g_array_set_size (s->diagonal, (guint) world->nv);
  if (s->diagonal_serial->len < world->bodies->len)
    g_array_set_size (s->diagonal_serial, world->bodies->len);
  guint64 *serials = (guint64 *) (void *) s->diagonal_serial->data;
  if (s->diagonal_h != world->h)
    {
      memset (serials, 0, s->diagonal_serial->len * sizeof (guint64));
      s->diagonal_h = world->h;
    }
  double *diagonal = &g_array_index (s->diagonal, double, b->slot.v_offset);
  if (serials[body] == world->q_detect_serial + 1)
    return diagonal;
  gint64 t0 = cwb_clock_ns ();
  gboolean known = b->model->compliance_diagonal (b->model_self,
                                                  world->q_detect + b->slot.q_offset, world->h,
                                                  CWB_COMPLIANCE_EXACT, diagonal);
  world->compliance_ns += cwb_clock_ns () - t0;
  if (!known)
    return NULL;
  serials[body] = world->q_detect_serial + 1;
  return diagonal;
}

/* For a sparse body: clears r and dq (at `offset` in s->dofs) at the DOFs `point` moves, the
 * first time this call reaches each; adds them to s->forced (with the geometry) when
 * `forced`. */
static void
touch_point_dofs (CwbWorld *world, uint32_t g, const CwbWorldBody *b, size_t offset,
                  uint32_t point, gboolean forced)
{
  CwbResponseScratch *s = &world->response;
  uint32_t dofs[POINT_DOFS_MAX];
  size_t n = b->mapping->point_dofs (b->mapping_self, point, dofs, POINT_DOFS_MAX);
  g_return_if_fail (n <= POINT_DOFS_MAX);
  guint64 *stamp = (guint64 *) (void *) s->dof_stamp->data + b->slot.v_offset;
  double *r = &g_array_index (s->dofs, double, offset), *dq = r + b->slot.nv;
  for (size_t k = 0; k < n; k++)
    {
      uint32_t d = dofs[k];
      if (stamp[d] == s->stamp)
        continue;
      stamp[d] = s->stamp;
      r[d] = dq[d] = 0;
      if (forced)
        {
          uint32_t pair[2] = { g, d };
          g_array_append_vals (s->forced, pair, 2);
        }
    }
}

/* Pass 1: J^T f of every run of forces on a movable body that has query points, accumulated
 * per body. Lists the bodies touched in s->touched_list. A sparse body clears only the DOFs
 * its forces and query points move. */
static void
gather_forces (CwbWorld *world, const CwbPointWeight *forces, size_t n_forces)
{
  CwbResponseScratch *s = &world->response;
  Touched *touched = (Touched *) s->touched->data;
  for (size_t begin = 0, end; begin < n_forces; begin = end)
    {
      end = run_end (forces, n_forces, begin);
      uint32_t g = forces[begin].geometry;
      Touched *t = &touched[g];
      uint32_t body = world->geometries[g].body;
      if (t->query_stamp != s->stamp || world->slots[body].fixed)
        continue;   /* nothing measured on it, or it does not move */
      CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, body);
      if (t->force_stamp != s->stamp)
        {
          t->force_stamp = s->stamp;
          t->offset = s->dofs_used;
          s->dofs_used += 2 * b->slot.nv;
          double *dofs = reserve (s->dofs, s->dofs_used);
          t->diagonal = sparse_diagonal (world, body);
          if (t->diagonal == NULL)
            memset (&dofs[t->offset], 0, b->slot.nv * sizeof (double));
          uint32_t *list = reserve (s->touched_list, s->n_touched + 1);
          list[s->n_touched++] = g;
        }
      if (t->diagonal != NULL)
        for (size_t k = begin; k < end; k++)
          touch_point_dofs (world, g, b, t->offset, forces[k].point, TRUE);
      double *r = &g_array_index (s->dofs, double, t->offset);
      b->mapping->apply_jt (b->mapping_self, world->q_detect + b->slot.q_offset,
                            &forces[begin], end - begin, r);
    }
}

/* Pass 2: dq = C r for every body touched (its r and dq follow each other in s->dofs); a
 * sparse body's at its forced DOFs alone. */
static void
apply_compliance (CwbWorld *world)
{
  CwbResponseScratch *s = &world->response;
  const Touched *touched = (const Touched *) s->touched->data;
  const uint32_t *forced = (const uint32_t *) (void *) s->forced->data;
  for (guint k = 0; k + 1 < s->forced->len; k += 2)
    {
      const Touched *t = &touched[forced[k]];
      uint32_t d = forced[k + 1];
      double *r = &g_array_index (s->dofs, double, t->offset);
      size_t nv = g_array_index (world->bodies, CwbWorldBody,
                                 world->geometries[forced[k]].body).slot.nv;
      r[nv + d] = t->diagonal[d] * r[d];
    }
  for (size_t k = 0; k < s->n_touched; k++)
    {
      uint32_t g = g_array_index (s->touched_list, uint32_t, k);
      if (touched[g].diagonal != NULL)
        continue;
      uint32_t body = world->geometries[g].body;
      CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, body);
      double *r = &g_array_index (s->dofs, double, touched[g].offset);
      b->model->compliance_apply (b->model_self, world->q_detect + b->slot.q_offset, world->h,
                                  CWB_COMPLIANCE_EXACT, r, r + b->slot.nv);
    }
}

/* Pass 3: J dq at every run of query points on a body touched, written in place. */
static void
measure_points (CwbWorld *world, const CwbPointWeight *at, size_t n_at, double *displacements)
{
  CwbResponseScratch *s = &world->response;
  Touched *touched = (Touched *) s->touched->data;
  for (size_t begin = 0, end; begin < n_at; begin = end)
    {
      end = run_end (at, n_at, begin);
      uint32_t g = at[begin].geometry;
      Touched *t = &touched[g];
      if (t->force_stamp != s->stamp)
        continue;   /* no force on it: it stays (zeroed by the caller) */
      uint32_t body = world->geometries[g].body;
      CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, body);
      const double *q = world->q_detect + b->slot.q_offset;
      if (t->diagonal != NULL)   /* dq is 0 at the DOFs no force reached: clear them */
        for (size_t k = begin; k < end; k++)
          touch_point_dofs (world, g, b, t->offset, at[k].point, FALSE);
      const double *dq = &g_array_index (s->dofs, double, t->offset + b->slot.nv);
      size_t n = end - begin;
      if (has_apply_j_points (b->mapping))
        {
          uint32_t *ids = reserve (s->point_ids, n);
          for (size_t k = 0; k < n; k++)
            ids[k] = at[begin + k].point;
          b->mapping->apply_j_points (b->mapping_self, q, dq, ids, n, &displacements[3 * begin]);
          continue;
        }
      /* An ABI 1.0 mapping: J at every point once per call and body, then pick
       * (O(points) per body). */
      if (t->full_stamp != s->stamp)
        {
          t->full_stamp = s->stamp;
          t->full_offset = s->full_used;
          s->full_used += 3 * world->geometries[g].n_points;
          double *full = reserve (s->full, s->full_used);
          b->mapping->apply_j (b->mapping_self, q, dq, &full[t->full_offset]);
        }
      const double *all = &g_array_index (s->full, double, t->full_offset);
      for (size_t k = 0; k < n; k++)
        cwb_v3_copy (&displacements[3 * (begin + k)], &all[3 * at[begin + k].point]);
    }
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
  if (n_forces == 0)
    return;

  /* A new call: every geometry's stamps are stale at once. The table grows with the world
   * (new entries zeroed, i.e. stale: stamps start at 1). */
  if (s->touched->len < n_geometries)
    g_array_set_size (s->touched, n_geometries);
  s->stamp++;
  s->n_touched = 0;
  s->dofs_used = 0;
  s->full_used = 0;
  g_array_set_size (s->forced, 0);
  if (s->dof_stamp->len < world->nv)
    g_array_set_size (s->dof_stamp, (guint) world->nv);
  Touched *touched = (Touched *) s->touched->data;
  for (size_t k = 0; k < n_at; k++)
    touched[at[k].geometry].query_stamp = s->stamp;

  gather_forces (world, forces, n_forces);
  apply_compliance (world);
  measure_points (world, at, n_at, displacements);
}

void
cwb_response_scratch_init (CwbResponseScratch *s)
{
  s->touched = g_array_new (FALSE, TRUE, sizeof (Touched));
  s->touched_list = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  s->point_ids = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  s->dofs = g_array_new (FALSE, FALSE, sizeof (double));
  s->full = g_array_new (FALSE, FALSE, sizeof (double));
  s->diagonal = g_array_new (FALSE, FALSE, sizeof (double));
  s->diagonal_serial = g_array_new (FALSE, TRUE, sizeof (guint64));
  s->dof_stamp = g_array_new (FALSE, TRUE, sizeof (guint64));
  s->forced = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  s->diagonal_h = NAN;
  s->stamp = 0;
  s->n_touched = s->dofs_used = s->full_used = 0;
}

void
cwb_response_scratch_destroy (CwbResponseScratch *s)
{
  GArray **arrays[] = { &s->touched, &s->touched_list, &s->point_ids, &s->dofs, &s->full,
                        &s->diagonal, &s->diagonal_serial, &s->dof_stamp, &s->forced };
  for (size_t k = 0; k < G_N_ELEMENTS (arrays); k++)
    g_clear_pointer (arrays[k], g_array_unref);
}

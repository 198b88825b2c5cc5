/* The world as a solver sees it (CwbStepContext): body-model operators by body index,
 * detection through the mappings and the contact model, and Saupin 2008's H (eq. 16-18): the
 * constraint rows chained from geometry points into each body's DOFs with the mappings' J^T.
 * Phases are timed here, so every solver reports the four columns of Allard 2010 Table 1. */
#include "clock.h"
#include "snapshot.h"
#include "world_private.h"

static CwbWorld *
world_of (CwbStepContext *ctx)
{
  return ctx->host_data;
}

static CwbWorldBody *
body_at (CwbWorld *world, uint32_t body)
{
  g_return_val_if_fail (body < world->bodies->len, NULL);
  return &g_array_index (world->bodies, CwbWorldBody, body);
}

static void
ctx_free_motion_damped (CwbStepContext *ctx, uint32_t body, const double *q, const double *v,
                        const double *f_ext, const CwbLinearOperator *k_ext,
                        const CwbLinearOperator *b_ext, double *q_free, double *v_free)
{
  CwbWorld *world = world_of (ctx);
  CwbWorldBody *b = body_at (world, body);
  CwbFreeMotion args = {
    .struct_size = sizeof args,
    .h = world->h,
    .q = q, .v = v,
    .f_ext = f_ext,
    .k_ext = k_ext,
    .b_ext = b_ext,
    .q_free = q_free, .v_free = v_free,
  };
  cwb_world_grab_free_motion (world, body, &args);   /* the mouse spring, if any */
  cwb_v3_copy (args.gravity, world->gravity);
  gint64 t0 = cwb_clock_ns ();
  b->model->free_motion (b->model_self, &args);
  world->phase_ns[CWB_PHASE_MECHANICAL_MOTION] += cwb_clock_ns () - t0;
}

static void
ctx_free_motion (CwbStepContext *ctx, uint32_t body, const double *q, const double *v,
                 const double *f_ext, const CwbLinearOperator *k_ext, double *q_free,
                 double *v_free)
{
  ctx_free_motion_damped (ctx, body, q, v, f_ext, k_ext, NULL, q_free, v_free);
}

static void
ctx_integrate_position (CwbStepContext *ctx, uint32_t body, const double *q, const double *dv,
                        double h, double *q_out)
{
  CwbWorldBody *b = body_at (world_of (ctx), body);
  b->model->integrate_position (b->model_self, q, dv, h, q_out);
}

static void
ctx_compliance_apply (CwbStepContext *ctx, uint32_t body, const double *q, CwbCompliance kind,
                      const double *r, double *dq)
{
  CwbWorld *world = world_of (ctx);
  CwbWorldBody *b = body_at (world, body);
  gint64 t0 = cwb_clock_ns ();
  b->model->compliance_apply (b->model_self, q, world->h, kind, r, dq);
  world->compliance_ns += cwb_clock_ns () - t0;
}

static gboolean
ctx_compliance_diagonal (CwbStepContext *ctx, uint32_t body, const double *q,
                         CwbCompliance kind, double *diagonal)
{
  CwbWorld *world = world_of (ctx);
  CwbWorldBody *b = body_at (world, body);
  if (!CWB_STRUCT_HAS (b->model, CwbBodyModelVTable, compliance_diagonal)
      || b->model->compliance_diagonal == NULL)
    return FALSE;
  gint64 t0 = cwb_clock_ns ();
  gboolean diagonal_known = b->model->compliance_diagonal (b->model_self, q, world->h, kind,
                                                           diagonal);
  world->compliance_ns += cwb_clock_ns () - t0;
  return diagonal_known;
}

void
cwb_world_map_geometries (CwbWorld *world, const double *q, const double *v)
{
  for (guint i = 0; i < world->bodies->len; i++)
    {
      CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, i);
      CwbGeometry *g = &world->geometries[i];
      b->mapping->apply (b->mapping_self, q + b->slot.q_offset, v + b->slot.v_offset,
                         g->positions, g->velocities);
    }
}

CwbContactQuery
cwb_world_contact_query (CwbWorld *world, CwbContactPass pass)
{
  return (CwbContactQuery){
    .struct_size = sizeof (CwbContactQuery),
    .geometries = world->geometries,
    .n_geometries = world->bodies->len,
    .friction = world->friction,
    .n_bodies = world->bodies->len,
    .h = world->h,
    .time = world->time,
    .pass = pass,
    .host_data = world,
    .point_response = cwb_world_point_response,
    .body_fixed = world->body_fixed,
    .gravity = { world->gravity[0], world->gravity[1], world->gravity[2] },
    .solves = cwb_world_solver_solves (world),
    .forces_implicit = cwb_world_solver_forces_implicit (world),
    .body_mass = world->body_mass,
    .points_apart = world->points_apart,
  };
}

static CwbContactSet *
ctx_detect (CwbStepContext *ctx, const double *q, const double *v, CwbContactPass pass,
            GError **error)
{
  CwbWorld *world = world_of (ctx);
  /* Mapping the bodies prepares the geometry detection reads, so it is counted there. */
  gint64 t0 = cwb_clock_ns ();
  cwb_world_map_geometries (world, q, v);
  memcpy (world->q_detect, q, world->nq * sizeof (double));
  world->q_detect_serial++;
  cwb_contact_set_clear (&world->contacts);
  cwb_inspection_clear (&world->inspection);
  world->dof_rows_valid = FALSE;
  cwb_contact_blocks_invalidate (world->contact_blocks);
  world->contacts_fresh = TRUE;

  if (world->contact.desc != NULL)
    {
      const CwbContactModelVTable *vt = world->contact.desc->vtable;
      CwbContactQuery query = cwb_world_contact_query (world, pass);
      if (!vt->detect (world->contact.self, &query, error))
        return NULL;
      gint64 t1 = cwb_clock_ns ();
      world->phase_ns[CWB_PHASE_COLLISION_DETECTION] += t1 - t0;
      if (!vt->model (world->contact.self, &query, &world->contacts, &world->inspection, error))
        return NULL;
      world->phase_ns[CWB_PHASE_CONTACT_MODELING] += cwb_clock_ns () - t1;
    }
  else
    world->phase_ns[CWB_PHASE_COLLISION_DETECTION] += cwb_clock_ns () - t0;
  return &world->contacts;
}

/* Applies J^T of body `body`'s mapping to the gathered point weights, adding into r (nv). */
static void
mapping_jt (CwbWorld *world, uint32_t body, const CwbPointWeight *weights, size_t n, double *r)
{
  CwbWorldBody *b = body_at (world, body);
  b->mapping->apply_jt (b->mapping_self, world->q_detect + b->slot.q_offset, weights, n, r);
}

/* Gathers the weights of `items[first, first + n)` that lie on geometry g into scratch. */
static void
gather_geometry (CwbWorld *world, const CwbPointWeight *items, size_t n, uint32_t g)
{
  g_array_set_size (world->scratch_weights, (guint) n);
  CwbPointWeight *out = (CwbPointWeight *) (void *) world->scratch_weights->data;
  size_t kept = 0;
  for (size_t k = 0; k < n; k++)
    if (items[k].geometry == g)
      out[kept++] = items[k];
  g_array_set_size (world->scratch_weights, (guint) kept);
}

/* The distinct geometries a row's weights touch, ascending, into `out` (room for `cap`);
 * returns how many there are, or cap + 1 when there are more than cap. Point and volume
 * rows touch one or two geometries. */
static size_t
row_geometries (const CwbPointWeight *items, size_t n, uint32_t *out, size_t cap)
{
  size_t count = 0;
  for (size_t k = 0; k < n; k++)
    {
      uint32_t g = items[k].geometry;
      size_t at = 0;
      while (at < count && out[at] < g)
        at++;
      if (at < count && out[at] == g)
        continue;
      if (count == cap)
        return cap + 1;
      memmove (&out[at + 1], &out[at], (count - at) * sizeof (uint32_t));
      out[at] = g;
      count++;
    }
  return count;
}

/* The most DOFs a row's points on one body may touch for H to be read at them alone: the
 * points of a contact's row on a deformable body (a triangle's three in four nodes each). */
#define SPARSE_ROW_DOFS 96

static int
compare_dofs (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

/* The DOFs J^T of the weights moves, ascending and distinct, into dofs (SPARSE_ROW_DOFS),
 * when the body's mapping lists them (point_dofs, ABI 1.20) and they are that few; -1
 * otherwise (H is then read over all nv). */
static ptrdiff_t
touched_dofs (const CwbWorldBody *b, const CwbPointWeight *weights, size_t n, uint32_t *dofs)
{
  const CwbMappingVTable *vt = b->mapping;
  if (!CWB_STRUCT_HAS (vt, CwbMappingVTable, point_dofs) || vt->point_dofs == NULL)
    return -1;
  size_t count = 0;
  for (size_t k = 0; k < n; k++)
    {
      size_t more = vt->point_dofs (b->mapping_self, weights[k].point, dofs + count,
                                    SPARSE_ROW_DOFS - count);
      if (more > SPARSE_ROW_DOFS - count)
        return -1;
      count += more;
    }
  qsort (dofs, count, sizeof *dofs, compare_dofs);
  size_t distinct = 0;
  for (size_t k = 0; k < count; k++)
    if (distinct == 0 || dofs[distinct - 1] != dofs[k])
      dofs[distinct++] = dofs[k];
  return (ptrdiff_t) distinct;
}

/* H_i = J_V^T w_i per body (Saupin 2008 eq. 17: r = H^T f): one row at a time, one body at a
 * time in ascending order (one geometry per body, in body order), through the mapping's J^T
 * into an nv scratch, keeping the nonzeros, which are then sorted by body and DOF as they
 * come. Where the mapping lists the DOFs a point moves, only those are cleared and read, so a
 * row costs what it touches, not the body's nv. Fixed bodies are left out: they never move,
 * so they add nothing to W nor to the corrective motion. */
static void
build_dof_rows (CwbWorld *world)
{
  const CwbContactSet *set = &world->contacts;
  g_array_set_size (world->dof_row_start, set->rows->len + 1);
  size_t *row_start = (size_t *) (void *) world->dof_row_start->data;
  g_array_set_size (world->dof_entries, 0);
  row_start[0] = 0;
  enum { FEW_GEOMETRIES = 8 };

  for (guint i = 0; i < set->rows->len; i++)
    {
      const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, i);
      const CwbPointWeight *items =
        &g_array_index (set->weights, CwbPointWeight, row->first_weight);
      uint32_t geometries[FEW_GEOMETRIES];
      size_t n_geometries = row_geometries (items, row->n_weights, geometries, FEW_GEOMETRIES);
      /* A row over more geometries than that: every geometry, in order, is asked. */
      gboolean many = n_geometries > FEW_GEOMETRIES;
      if (many)
        n_geometries = world->bodies->len;
      for (size_t j = 0; j < n_geometries; j++)
        {
          uint32_t g = many ? (uint32_t) j : geometries[j];
          uint32_t body = world->geometries[g].body;
          if (world->slots[body].fixed)
            continue;
          gather_geometry (world, items, row->n_weights, g);
          const CwbPointWeight *weights = (const CwbPointWeight *) world->scratch_weights->data;
          size_t n_weights = world->scratch_weights->len;
          if (n_weights == 0)
            continue;
          size_t nv = world->slots[body].nv;
          g_array_set_size (world->scratch_r, nv);
          double *r = (double *) world->scratch_r->data;
          uint32_t dofs[SPARSE_ROW_DOFS];
          ptrdiff_t n_dofs = touched_dofs (body_at (world, body), weights, n_weights, dofs);
          if (n_dofs < 0)
            memset (r, 0, nv * sizeof (double));
          for (ptrdiff_t d = 0; d < n_dofs; d++)
            r[dofs[d]] = 0;
          mapping_jt (world, body, weights, n_weights, r);
          size_t most = n_dofs < 0 ? nv : (size_t) n_dofs;
          guint end = world->dof_entries->len;
          g_array_set_size (world->dof_entries, end + (guint) most);
          CwbDofEntry *entries = &g_array_index (world->dof_entries, CwbDofEntry, end);
          size_t kept = 0;
          for (size_t k = 0; k < most; k++)
            {
              uint32_t d = n_dofs < 0 ? (uint32_t) k : dofs[k];
              if (r[d] != 0)
                entries[kept++] = (CwbDofEntry) { .body = body, .dof = d, .value = r[d] };
            }
          g_array_set_size (world->dof_entries, end + (guint) kept);
        }
      row_start[i + 1] = world->dof_entries->len;
    }
  world->dof_rows.n_rows = set->rows->len;
  world->dof_rows.row_start = row_start;
  world->dof_rows.entries = (const CwbDofEntry *) world->dof_entries->data;
  world->dof_rows_valid = TRUE;
}

static const CwbDofRows *
ctx_dof_rows (CwbStepContext *ctx)
{
  CwbWorld *world = world_of (ctx);
  if (!world->dof_rows_valid)
    build_dof_rows (world);
  return &world->dof_rows;
}

static void
ctx_point_forces_to_dofs (CwbStepContext *ctx, double *r)
{
  CwbWorld *world = world_of (ctx);
  const GArray *forces = world->contacts.forces;
  const CwbPointWeight *items = (const CwbPointWeight *) forces->data;
  for (guint g = 0; g < world->bodies->len; g++)
    {
      uint32_t body = world->geometries[g].body;
      if (world->slots[body].fixed)
        continue;
      gather_geometry (world, items, forces->len, g);
      if (world->scratch_weights->len > 0)
        mapping_jt (world, body, (const CwbPointWeight *) world->scratch_weights->data,
                    world->scratch_weights->len, r + world->slots[body].v_offset);
    }
}

static const CwbGeometry *
ctx_geometries (CwbStepContext *ctx, size_t *n)
{
  CwbWorld *world = world_of (ctx);
  if (n != NULL)
    *n = world->bodies->len;
  return world->geometries;
}

static void
ctx_report_solve (CwbStepContext *ctx, int iterations, double residual,
                  const double *residual_history, size_t n_history)
{
  CwbWorld *world = world_of (ctx);
  world->stats.solver_iterations = iterations;
  world->stats.solver_residual = residual;
  g_array_set_size (world->residual_history, 0);
  if (residual_history != NULL)
    g_array_append_vals (world->residual_history, residual_history, (guint) n_history);
}

/* A solve converged when its residual reached the tolerance; one that used every sweep of
 * its cap without reaching it did not. */
static void
ctx_report_solve_limits (CwbStepContext *ctx, int max_iterations, double tolerance)
{
  CwbWorld *world = world_of (ctx);
  CwbStepStats *st = &world->stats;
  if (st->solver_iterations < 0)
    return;
  st->solver_converged = st->solver_residual <= tolerance || st->solver_iterations < max_iterations;
}

static void
ctx_report_derived (CwbStepContext *ctx, const char *name, double value)
{
  CwbWorld *world = world_of (ctx);
  GArray *derived = world->solver_derived;
  for (guint k = 0; k < derived->len; k++)
    {
      CwbDerivedParam *d = &g_array_index (derived, CwbDerivedParam, k);
      if (strncmp (d->name, name, sizeof d->name) == 0)
        {
          d->value = value;
          return;
        }
    }
  CwbDerivedParam d = { .value = value };
  g_strlcpy (d.name, name, sizeof d.name);
  g_array_append_val (derived, d);
}

/* Whether the host's mouse spring pulls `body` in this step (cwb_world_grab_begin_step ran
 * before the solver's step). */
static gboolean
ctx_body_driven (CwbStepContext *ctx, uint32_t body)
{
  CwbWorld *world = world_of (ctx);
  return world->grab_in_step && world->grab.body == body;
}

static void
ctx_map_geometries (CwbStepContext *ctx, const double *q, const double *v)
{
  cwb_world_map_geometries (world_of (ctx), q, v);
}

static void
ctx_report_stabilization (CwbStepContext *ctx, int passes, double violation,
                          double intersection_volume, double max_penetration)
{
  CwbWorld *world = world_of (ctx);
  world->stats.stabilization_passes = passes;
  world->stats.stabilization_violation = violation;
  world->stats.intersection_volume = intersection_volume;
  world->stats.max_penetration = max_penetration;
}

/* Gathers into scratch_weights the point forces K J x of array `which`'s blocks (the
 * stiffness or the damping) whose first point lies on `body`: those whose second point lies
 * on `body` too (x its nv) or, `between`, on another body (x the system's nv). */
static void
gather_blocks (CwbWorld *world, int which, uint32_t body, const double *x, gboolean between)
{
  const GArray *blocks = which == CWB_BLOCKS_STIFFNESS ? world->contacts.stiffness
                                                       : world->contacts.damping;
  guint first, last;
  const guint *order = cwb_contact_blocks_of (world->contact_blocks, &world->contacts,
                                              world->bodies->len, which, body, &first, &last);
  for (guint e = first; e < last; e++)
    {
      const CwbPointStiffness *block = &g_array_index (blocks, CwbPointStiffness, order[e]);
      uint32_t other = block->geometry_b;   /* one geometry per body, in body order */
      if (between ? other == body || other >= world->bodies->len : other != body)
        continue;
      CwbWorldBody *c = body_at (world, other);
      double dp[3];
      cwb_mapping_j_point (c->mapping, c->mapping_self, world->q_detect + c->slot.q_offset,
                           between ? x + c->slot.v_offset : x, block->point_b, dp,
                           world->scratch_r);
      CwbPointWeight f = { .geometry = body, .point = block->point_a };
      cwb_m3_mul_v3 (f.w, block->k, dp);
      g_array_append_val (world->scratch_weights, f);
    }
}

/* df = J^T K J dq for one body and one array of point blocks (`which`: the stiffness or
 * the damping), from their assembly over the body's DOFs (contact_blocks.h) or, where that
 * would be too large, block by block: J dq at the blocks' second points, K on it, J^T back
 * from their first points. */
static void
apply_point_blocks (CwbStepContext *ctx, int which, uint32_t body, const double *dq, double *df)
{
  CwbWorld *world = world_of (ctx);
  CwbWorldBody *b = body_at (world, body);
  memset (df, 0, b->slot.nv * sizeof (double));
  const double *q = world->q_detect + b->slot.q_offset;
  uint32_t g = body;   /* one geometry per body, in body order */
  const CwbAssembledBlocks *m =
    cwb_contact_blocks_assembled (world->contact_blocks, &world->contacts, world->bodies->len,
                                  which, g, b->mapping, b->mapping_self, q, b->slot.nv);
  if (m != NULL)
    {
      for (size_t i = 0; i < m->n; i++)
        {
          double sum = 0;
          const double *row = &m->matrix[i * m->n];
          for (size_t j = 0; j < m->n; j++)
            sum += row[j] * dq[m->dofs[j]];
          df[m->dofs[i]] += sum;
        }
      return;
    }
  g_array_set_size (world->scratch_weights, 0);
  gather_blocks (world, which, body, dq, FALSE);
  if (world->scratch_weights->len > 0)
    b->mapping->apply_jt (b->mapping_self, q,
                          (const CwbPointWeight *) world->scratch_weights->data,
                          world->scratch_weights->len, df);
}

/* J^T K J dq from the set's blocks, and Faure 2007 appendix B's last term, the mapping's
 * d(J^T)/dq f under the set's point forces on the body (its geometric stiffness: a rigid
 * body's torque turning with it), where the mapping has one. */
static void
ctx_contact_stiffness_apply (CwbStepContext *ctx, uint32_t body, const double *dq, double *df)
{
  CwbWorld *world = world_of (ctx);
  apply_point_blocks (ctx, CWB_BLOCKS_STIFFNESS, body, dq, df);
  CwbWorldBody *b = body_at (world, body);
  if (b->mapping->geometric_stiffness_apply == NULL || world->contacts.stiffness->len == 0)
    return;
  g_array_set_size (world->scratch_weights, 0);
  const GArray *forces = world->contacts.forces;
  for (guint k = 0; k < forces->len; k++)
    {
      const CwbPointWeight *f = &g_array_index (forces, CwbPointWeight, k);
      if (f->geometry == body)
        g_array_append_val (world->scratch_weights, *f);
    }
  if (world->scratch_weights->len > 0)
    b->mapping->geometric_stiffness_apply (b->mapping_self, world->q_detect + b->slot.q_offset,
                                           (const CwbPointWeight *) world->scratch_weights->data,
                                           world->scratch_weights->len, dq, df);
}

/* df = J^T (K J dq + B J dv) over the blocks from other bodies' points to `body`'s. */
static void
ctx_contact_coupling_apply (CwbStepContext *ctx, uint32_t body, const double *dq,
                            const double *dv, double *df)
{
  CwbWorld *world = world_of (ctx);
  CwbWorldBody *b = body_at (world, body);
  memset (df, 0, b->slot.nv * sizeof (double));
  g_array_set_size (world->scratch_weights, 0);
  gather_blocks (world, CWB_BLOCKS_STIFFNESS, body, dq, TRUE);
  if (dv != NULL && world->contacts.damping != NULL)
    gather_blocks (world, CWB_BLOCKS_DAMPING, body, dv, TRUE);
  if (world->scratch_weights->len > 0)
    b->mapping->apply_jt (b->mapping_self, world->q_detect + b->slot.q_offset,
                          (const CwbPointWeight *) world->scratch_weights->data,
                          world->scratch_weights->len, df);
}

static void
ctx_contact_damping_apply (CwbStepContext *ctx, uint32_t body, const double *dv, double *df)
{
  apply_point_blocks (ctx, CWB_BLOCKS_DAMPING, body, dv, df);
}

/* A stage the solver reports, captured for phase stepping (only while an observer is set:
 * the context has no stage_done otherwise). */
static void
ctx_stage_done (CwbStepContext *ctx, uint32_t stage, const double *q, const double *v)
{
  CwbWorld *world = world_of (ctx);
  size_t n = 0;
  const CwbSolverStage *stages = cwb_world_solver_stages (world, &n);
  if (world->stage_observer == NULL || stage >= n)
    return;
  world->stage_observer (cwb_snapshot_capture_stage (world, NULL, &stages[stage], stage, q, v),
                         world->stage_observer_data);
}

void
cwb_world_set_stage_observer (CwbWorld *world, CwbStageObserver observe, gpointer data)
{
  world->stage_observer = observe;
  world->stage_observer_data = data;
  world->ctx.stage_done = observe != NULL ? ctx_stage_done : NULL;
}

const CwbSolverStage *
cwb_world_solver_stages (const CwbWorld *world, size_t *n)
{
  const CwbSolverVTable *vt = world->solver.desc != NULL ? world->solver.desc->vtable : NULL;
  if (vt == NULL || !CWB_STRUCT_HAS (vt, CwbSolverVTable, n_stages) || vt->stages == NULL)
    {
      *n = 0;
      return NULL;
    }
  *n = vt->n_stages;
  return vt->stages;
}

void
cwb_world_init_step_context (CwbWorld *world)
{
  CwbStepContext *ctx = &world->ctx;
  memset (ctx, 0, sizeof *ctx);
  ctx->struct_size = sizeof *ctx;
  ctx->host_data = world;
  ctx->free_motion = ctx_free_motion;
  ctx->integrate_position = ctx_integrate_position;
  ctx->compliance_apply = ctx_compliance_apply;
  ctx->compliance_diagonal = ctx_compliance_diagonal;
  ctx->detect = ctx_detect;
  ctx->dof_rows = ctx_dof_rows;
  ctx->point_forces_to_dofs = ctx_point_forces_to_dofs;
  ctx->geometries = ctx_geometries;
  ctx->report_solve = ctx_report_solve;
  ctx->contact_stiffness_apply = ctx_contact_stiffness_apply;
  ctx->contact_damping_apply = ctx_contact_damping_apply;
  ctx->contact_coupling_apply = ctx_contact_coupling_apply;
  ctx->free_motion_damped = ctx_free_motion_damped;
  ctx->report_stabilization = ctx_report_stabilization;
  ctx->report_solve_limits = ctx_report_solve_limits;
  ctx->body_driven = ctx_body_driven;
  ctx->map_geometries = ctx_map_geometries;
  ctx->report_derived = ctx_report_derived;
}

/* Editing a running world, for the GUI: putting back a state from its history, carrying the
 * state of unchanged bodies into a rebuilt world, and the mouse spring. */
#include "world_private.h"

/* After the state arrays were written from outside a step: the state before the step, the
 * configuration of the last detection and the mapped geometries all describe the new state,
 * and no contact of the state left behind is shown or used (H is rebuilt at the next
 * detection). */
static void
state_replaced (CwbWorld *world)
{
  world->edits++;
  memcpy (world->q_prev, world->q, world->nq * sizeof (double));
  memcpy (world->v_prev, world->v, world->nv * sizeof (double));
  memcpy (world->q_detect, world->q, world->nq * sizeof (double));
  world->q_detect_serial++;
  cwb_contact_set_clear (&world->contacts);
  cwb_inspection_clear (&world->inspection);
  world->contacts_fresh = FALSE;
  world->dof_rows_valid = FALSE;
  cwb_contact_blocks_invalidate (world->contact_blocks);
  cwb_world_map_geometries (world, world->q, world->v);
}

gboolean
cwb_world_restore_state (CwbWorld *world, const double *q, size_t nq, const double *v,
                         size_t nv, double time, guint64 steps, GBytes *contact_state,
                         GError **error)
{
  if (nq != world->nq || nv != world->nv)
    {
      g_set_error (error, CWB_WORLD_ERROR, CWB_WORLD_ERROR_EDIT,
                   "cannot restore a state of %zu positions and %zu velocities into a world "
                   "of %zu and %zu (a state of another scene?)", nq, nv, world->nq, world->nv);
      return FALSE;
    }
  /* First, as it is the one part that can fail (the plugin may refuse), so that a failure
   * leaves the world as it was. */
  if (!cwb_world_renew_contact_model (world, error))
    return FALSE;
  if (contact_state != NULL && world->contact.desc != NULL)
    {
      const CwbContactModelVTable *vt = world->contact.desc->vtable;
      g_autoptr (GError) refused = NULL;
      if (CWB_STRUCT_HAS (vt, CwbContactModelVTable, restore_state) && vt->restore_state != NULL
          && !vt->restore_state (world->contact.self, contact_state, &refused))
        {
          /* The bodies are still put back: the run goes on, only without the old memory, as
           * after a swap. */
          g_message ("contact model %s: its saved memory was refused (%s); going on without",
                     world->contact.desc->name, refused->message);
          if (!cwb_world_renew_contact_model (world, error))
            return FALSE;
        }
    }
  memcpy (world->q, q, nq * sizeof (double));
  memcpy (world->v, v, nv * sizeof (double));
  world->time = time;
  world->steps = steps;
  state_replaced (world);
  return TRUE;
}

GBytes *
cwb_world_save_contact_state (CwbWorld *world)
{
  if (world->contact.desc == NULL)
    return NULL;
  const CwbContactModelVTable *vt = world->contact.desc->vtable;
  if (!CWB_STRUCT_HAS (vt, CwbContactModelVTable, save_state) || vt->save_state == NULL)
    return NULL;
  return vt->save_state (world->contact.self);
}

void
cwb_world_carry_state (CwbWorld *world, const CwbWorld *from, const char *const *except,
                       const char *const *renamed)
{
  /* By name: the two worlds come from different scenes, so body indices do not match. */
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint j = 0; j < from->bodies->len; j++)
    g_hash_table_insert (by_name, g_array_index (from->bodies, CwbWorldBody, j).name,
                         GUINT_TO_POINTER (j + 1));   /* + 1: NULL means absent */

  for (guint i = 0; i < world->bodies->len; i++)
    {
      const CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, i);
      if (except != NULL && g_strv_contains (except, b->name))
        continue;
      const char *name_in_from = b->name;
      for (size_t k = 0; renamed != NULL && renamed[k] != NULL && renamed[k + 1] != NULL; k += 2)
        if (strcmp (renamed[k + 1], b->name) == 0)
          name_in_from = renamed[k];
      guint j = GPOINTER_TO_UINT (g_hash_table_lookup (by_name, name_in_from));
      if (j == 0)
        continue;
      const CwbWorldBody *fb = &g_array_index (from->bodies, CwbWorldBody, j - 1);
      /* The same model by name, not by description pointer, so worlds of two registries
       * compare too; then the same DOF counts, since a model's layout may depend on its
       * description (a deformable body's mesh). */
      if (strcmp (b->model_desc->name, fb->model_desc->name) != 0 || b->slot.nq != fb->slot.nq
          || b->slot.nv != fb->slot.nv)
        continue;
      memcpy (world->q + b->slot.q_offset, from->q + fb->slot.q_offset,
              b->slot.nq * sizeof (double));
      memcpy (world->v + b->slot.v_offset, from->v + fb->slot.v_offset,
              b->slot.nv * sizeof (double));
    }
  world->time = from->time;
  world->steps = from->steps;
  state_replaced (world);
}

/* ---- the mouse spring ---------------------------------------------------------------- */

void
cwb_world_set_grab (CwbWorld *world, const CwbGrab *grab)
{
  if (grab == NULL)
    {
      world->grabbing = FALSE;
      return;
    }
  g_return_if_fail (grab->body < world->bodies->len);
  const CwbGeometry *g = &world->geometries[grab->body];   /* one geometry per body */
  for (int k = 0; k < 3; k++)
    g_return_if_fail (grab->weights[k] == 0 || grab->points[k] < g->n_points);
  world->grab = *grab;
  world->grabbing = TRUE;
}

/* Position and velocity of the grabbed point, from the geometries as last mapped. Points of
 * weight 0 are unused and their indices need not be valid. */
static void
grabbed_point (const CwbWorld *world, double p[3], double v_p[3])
{
  const CwbGrab *grab = &world->grab;
  const CwbGeometry *g = &world->geometries[grab->body];
  cwb_v3_set (p, 0, 0, 0);
  cwb_v3_set (v_p, 0, 0, 0);
  for (int k = 0; k < 3; k++)
    if (grab->weights[k] != 0)
      {
        cwb_v3_axpy (p, grab->weights[k], &g->positions[3 * grab->points[k]]);
        cwb_v3_axpy (v_p, grab->weights[k], &g->velocities[3 * grab->points[k]]);
      }
}

/* The geometries are mapped at the current state by everything that changes it through the
 * world (building, a step, a restore, a carry); a direct write through cwb_world_q shows at
 * the next step, which maps again before it evaluates the spring. */
gboolean
cwb_world_grab_point (const CwbWorld *world, double p[3])
{
  if (!world->grabbing)
    return FALSE;
  double v_p[3];
  grabbed_point (world, p, v_p);
  return TRUE;
}

void
cwb_world_grab_begin_step (CwbWorld *world)
{
  world->grab_in_step = FALSE;
  if (!world->grabbing)
    return;
  const CwbGrab *grab = &world->grab;
  const CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, grab->body);
  if (b->slot.fixed)
    return;   /* a fixed body never moves: the spring has nothing to pull */

  /* Mapped here rather than trusted: q and v are writable between steps (cwb_world_q). */
  cwb_world_map_geometries (world, world->q, world->v);
  double p[3], v_p[3], f[3];
  grabbed_point (world, p, v_p);
  /* f = stiffness (target - p) - damping v_p */
  cwb_v3_sub (f, grab->target, p);
  cwb_v3_scale (f, f, grab->stiffness);
  cwb_v3_axpy (f, -grab->damping, v_p);

  /* The point is a barycentric combination of geometry points, so the force splits over them
   * with the same weights; the mapping's J^T takes it into the body's nv space. */
  CwbPointWeight items[3];
  size_t n = 0;
  for (int k = 0; k < 3; k++)
    if (grab->weights[k] != 0)
      {
        items[n] = (CwbPointWeight){ .geometry = grab->body, .point = grab->points[k] };
        cwb_v3_scale (items[n].w, f, grab->weights[k]);
        n++;
      }
  g_array_set_size (world->grab_dofs, (guint) b->slot.nv);
  double *r = (double *) world->grab_dofs->data;
  memset (r, 0, b->slot.nv * sizeof (double));
  b->mapping->apply_jt (b->mapping_self, world->q + b->slot.q_offset, items, n, r);
  world->grab_in_step = TRUE;
}

/* y = other x + scale J^T J x, J the grabbed point's Jacobian (the weighted combination of
 * its geometry points' rows) at the state the step started from. */
static void
grab_derivative_apply (void *data, const double *x, double *y)
{
  CwbGrabDerivative *d = data;
  CwbWorld *world = d->world;
  const CwbGrab *grab = &world->grab;
  const CwbWorldBody *b = &g_array_index (world->bodies, CwbWorldBody, grab->body);
  const double *q = world->q + b->slot.q_offset;
  if (d->other != NULL)
    d->other->apply (d->other->data, x, y);
  else
    memset (y, 0, b->slot.nv * sizeof (double));
  double dp[3] = { 0, 0, 0 };
  for (int k = 0; k < 3; k++)
    if (grab->weights[k] != 0)
      {
        double dp_k[3];
        cwb_mapping_j_point (b->mapping, b->mapping_self, q, x, grab->points[k], dp_k,
                             world->grab_scratch);
        cwb_v3_axpy (dp, grab->weights[k], dp_k);
      }
  CwbPointWeight items[3];
  size_t n = 0;
  for (int k = 0; k < 3; k++)
    if (grab->weights[k] != 0)
      {
        items[n] = (CwbPointWeight){ .geometry = grab->body, .point = grab->points[k] };
        cwb_v3_scale (items[n].w, dp, d->scale * grab->weights[k]);
        n++;
      }
  b->mapping->apply_jt (b->mapping_self, q, items, n, y);
}

void
cwb_world_grab_free_motion (CwbWorld *world, uint32_t body, CwbFreeMotion *args)
{
  if (!world->grab_in_step || body != world->grab.body)
    return;
  size_t nv = world->slots[body].nv;
  g_array_set_size (world->grab_f_ext, (guint) nv);
  double *sum = (double *) world->grab_f_ext->data;
  const double *grab = (const double *) world->grab_dofs->data;
  for (size_t d = 0; d < nv; d++)
    sum[d] = (args->f_ext != NULL ? args->f_ext[d] : 0) + grab[d];
  args->f_ext = sum;

  /* f = stiffness (target - p(q)) - damping J v: d f / dq = -stiffness J^T J (the mapping's
   * own curvature, K_geo, left out: it is not definite, and without it the implicit step of
   * a positive spring stays dissipative) and d f / dv = -damping J^T J. */
  world->grab_k = (CwbGrabDerivative){ .world = world, .scale = -world->grab.stiffness,
                                       .other = args->k_ext };
  world->grab_k.op = (CwbLinearOperator){ grab_derivative_apply, &world->grab_k };
  args->k_ext = &world->grab_k.op;
  if (world->grab.damping != 0 || args->b_ext != NULL)
    {
      world->grab_b = (CwbGrabDerivative){ .world = world, .scale = -world->grab.damping,
                                           .other = args->b_ext };
      world->grab_b.op = (CwbLinearOperator){ grab_derivative_apply, &world->grab_b };
      args->b_ext = &world->grab_b.op;
    }
}

/* Snapshots of the world after a step: what the GUI draws, inspects and keeps in its
 * history while the worker steps on (snapshot.h). */
#include "snapshot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "world_private.h"

typedef struct SnapshotBox {
  CwbSnapshot snapshot;
  gatomicrefcount refs;
} SnapshotBox;

static GArray *
array_copy (const GArray *from, size_t element_size)
{
  GArray *to = g_array_sized_new (FALSE, FALSE, (guint) element_size, from != NULL ? from->len : 0);
  if (from != NULL && from->len > 0)
    g_array_append_vals (to, from->data, from->len);
  return to;
}

static double *
doubles_copy (const double *from, size_t n)
{
  return n > 0 ? g_memdup2 (from, n * sizeof (double)) : NULL;
}

/* The topology of body i, shared with `share` when it is of the same world (topology is
 * fixed after a world's build), copied otherwise. */
static void
body_topology (CwbSnapshotBody *body, const CwbGeometry *g, const CwbSnapshot *share, size_t i)
{
  if (share != NULL && i < share->n_bodies)
    {
      const CwbSnapshotBody *s = &share->bodies[i];
      body->triangles = s->triangles != NULL ? g_bytes_ref (s->triangles) : NULL;
      body->radii = s->radii != NULL ? g_bytes_ref (s->radii) : NULL;
      return;
    }
  if (g->kind == CWB_GEOMETRY_SURFACE && g->n_triangles > 0)
    body->triangles = g_bytes_new (g->triangles, 3 * g->n_triangles * sizeof (uint32_t));
  if (g->kind == CWB_GEOMETRY_PARTICLES && g->radii != NULL)
    body->radii = g_bytes_new (g->radii, g->n_points * sizeof (double));
}

/* The elements of body i as its model sees them at the world's state (ABI 1.12). */
static void
body_elements (CwbSnapshotBody *body, const double *q, const CwbWorldBody *wb,
               const CwbSnapshot *share, size_t i)
{
  if (!CWB_STRUCT_HAS (wb->model, CwbBodyModelVTable, inspect_elements)
      || wb->model->inspect_elements == NULL)
    return;
  CwbBodyInfo info = { .struct_size = sizeof info };
  wb->model->get_info (wb->model_self, &info);
  if (info.n_tetrahedra == 0 || info.tetrahedra == NULL || info.n_nodes == 0)
    return;
  if (share != NULL && i < share->n_bodies && share->bodies[i].tetrahedra != NULL)
    body->tetrahedra = g_bytes_ref (share->bodies[i].tetrahedra);
  else
    body->tetrahedra = g_bytes_new (info.tetrahedra, 4 * info.n_tetrahedra * sizeof (uint32_t));
  body->n_tetrahedra = info.n_tetrahedra;
  body->n_nodes = info.n_nodes;
  body->nodes = g_new (double, 3 * info.n_nodes);
  body->element_strain = g_new (double, 6 * info.n_tetrahedra);
  body->element_rotation = g_new (double, info.n_tetrahedra);
  CwbElementInspection out = {
    .struct_size = sizeof out,
    .nodes = body->nodes,
    .strain = body->element_strain,
    .rotation = body->element_rotation,
  };
  wb->model->inspect_elements (wb->model_self, q + wb->slot.q_offset, &out);
}

static double *
nans_new (size_t n)
{
  double *values = g_new (double, n);
  for (size_t k = 0; k < n; k++)
    values[k] = NAN;
  return values;
}

/* The nodes' fields of body i as its model gives them at the world's state (ABI 1.22). */
static void
body_node_values (CwbSnapshotBody *body, const double *q, const double *v,
                  const CwbWorldBody *wb)
{
  if (!CWB_STRUCT_HAS (wb->model, CwbBodyModelVTable, inspect_nodes)
      || wb->model->inspect_nodes == NULL)
    return;
  CwbBodyInfo info = { .struct_size = sizeof info };
  wb->model->get_info (wb->model_self, &info);
  if (info.n_nodes == 0)
    return;
  body->n_node_values = info.n_nodes;
  body->node_density_error = nans_new (info.n_nodes);
  body->node_pressure = nans_new (info.n_nodes);
  body->node_speed = nans_new (info.n_nodes);
  CwbNodeInspection out = {
    .struct_size = sizeof out,
    .density_error = body->node_density_error,
    .pressure = body->node_pressure,
    .speed = body->node_speed,
  };
  wb->model->inspect_nodes (wb->model_self, q + wb->slot.q_offset, v + wb->slot.v_offset,
                            &out);
}

/* The world's state with q, v in place of its own (a stage's), geometries mapped at them. */
static CwbSnapshot *
capture_state (CwbWorld *world, const CwbSnapshot *share, const double *q, const double *v)
{
  SnapshotBox *box = g_new0 (SnapshotBox, 1);
  g_atomic_ref_count_init (&box->refs);
  CwbSnapshot *s = &box->snapshot;
  s->world_serial = cwb_world_serial (world);
  if (share != NULL && share->world_serial != s->world_serial)
    share = NULL;
  s->time = world->time;
  s->dt = world->h;
  s->steps = world->steps;
  s->stats = world->stats;
  s->contacts_detected = cwb_world_contacts_detected (world);
  s->residuals = array_copy (world->residual_history, sizeof (double));
  s->contact_model = g_strdup (cwb_world_contact_model_name (world));
  s->contact_state = cwb_world_save_contact_state (world);
  s->solver = g_strdup (cwb_world_solver_name (world));
  s->nq = world->nq;
  s->nv = world->nv;
  s->q = doubles_copy (q, world->nq);
  s->v = doubles_copy (v, world->nv);

  /* The geometries are current: a step, a restore or a carried state maps them at the state
   * it leaves. */
  s->n_bodies = world->bodies->len;
  s->bodies = g_new0 (CwbSnapshotBody, MAX (s->n_bodies, 1));
  for (size_t i = 0; i < s->n_bodies; i++)
    {
      const CwbWorldBody *wb = &g_array_index (world->bodies, CwbWorldBody, i);
      const CwbGeometry *g = &world->geometries[i];
      CwbSnapshotBody *b = &s->bodies[i];
      b->name = g_strdup (wb->name);
      b->model = g_strdup (wb->model_desc->name);
      b->fixed = wb->slot.fixed;
      cwb_world_body_summary_at (world, i, q, v, &b->summary);
      b->kind = g->kind;
      b->n_points = g->n_points;
      b->positions = doubles_copy (g->positions, 3 * g->n_points);
      b->velocities = doubles_copy (g->velocities, 3 * g->n_points);
      b->n_triangles = g->kind == CWB_GEOMETRY_SURFACE ? g->n_triangles : 0;
      body_topology (b, g, share, i);
      body_elements (b, q, wb, share, i);
      body_node_values (b, q, v, wb);
      b->q_offset = wb->slot.q_offset;
      b->nq = wb->slot.nq;
      b->v_offset = wb->slot.v_offset;
      b->nv = wb->slot.nv;
    }

  const CwbContactSet *contacts = cwb_world_contacts (world);
  s->frames = array_copy (contacts->frames, sizeof (CwbContactFrame));
  s->friction_law = contacts->friction_law;
  s->intersection_volume = contacts->intersection_volume;
  s->max_penetration = contacts->max_penetration;
  const CwbInspection *in = cwb_world_inspection (world);
  s->inspection.struct_size = sizeof s->inspection;
  s->inspection.spans = array_copy (in->spans, sizeof (CwbInspectSpan));
  s->inspection.voxels = array_copy (in->voxels, sizeof (CwbInspectVoxel));
  s->inspection.cells = array_copy (in->cells, sizeof (CwbInspectCell));
  s->inspection.vectors = array_copy (in->vectors, sizeof (CwbInspectVector));
  s->inspection.derived = array_copy (in->derived, sizeof (CwbDerivedParam));
  s->solver_derived = array_copy (cwb_world_solver_derived (world), sizeof (CwbDerivedParam));
  return s;
}

CwbSnapshot *
cwb_snapshot_capture (CwbWorld *world, const CwbSnapshot *share)
{
  CwbSnapshot *s = capture_state (world, share, world->q, world->v);
  s->stage = -1;
  return s;
}

CwbSnapshot *
cwb_snapshot_capture_stage (CwbWorld *world, const CwbSnapshot *share,
                            const CwbSolverStage *stage, uint32_t index, const double *q,
                            const double *v)
{
  /* The geometries as the stage leaves them, then as the solver had them: it may read them
   * after this (CwbStepContext.geometries), and the step must go on exactly as without. */
  size_t n = world->bodies->len;
  g_autoptr (GPtrArray) saved = g_ptr_array_new_with_free_func (g_free);
  for (size_t i = 0; i < n; i++)
    {
      const CwbGeometry *g = &world->geometries[i];
      g_ptr_array_add (saved, doubles_copy (g->positions, 3 * g->n_points));
      g_ptr_array_add (saved, doubles_copy (g->velocities, 3 * g->n_points));
    }
  cwb_world_map_geometries (world, q, v);
  CwbSnapshot *s = capture_state (world, share, q, v);
  for (size_t i = 0; i < n; i++)
    {
      CwbGeometry *g = &world->geometries[i];
      if (g->n_points == 0)
        continue;
      memcpy (g->positions, saved->pdata[2 * i], 3 * g->n_points * sizeof (double));
      memcpy (g->velocities, saved->pdata[2 * i + 1], 3 * g->n_points * sizeof (double));
    }
  /* Mid-step: the state is the one the step's end time is predicted at. */
  s->time = world->time + world->h;
  s->steps = world->steps + 1;
  s->stage = (int) index;
  s->stage_name = g_strdup (stage->name);
  s->stage_caption = g_strdup (stage->caption);
  if (!(stage->flags & CWB_STAGE_CONTACTS))
    {
      /* The set still holds the last step's contacts: none of this step's yet. */
      g_array_set_size (s->frames, 0);
      cwb_inspection_clear (&s->inspection);
      s->contacts_detected = FALSE;
    }
  else if (!(stage->flags & CWB_STAGE_FORCES))
    for (guint f = 0; f < s->frames->len; f++)
      {
        CwbContactFrame *frame = &g_array_index (s->frames, CwbContactFrame, f);
        memset (frame->force, 0, sizeof frame->force);
        frame->state = CWB_CONTACT_OPEN;
      }
  else
    {
      /* The rows' multipliers as frame forces (what the step's end does to the set), on the
       * snapshot's copy of the frames. */
      CwbContactSet view = *cwb_world_contacts (world);
      view.frames = s->frames;
      cwb_contact_results_fill (&view, world->geometries);
    }
  if (stage->flags & CWB_STAGE_CONTACTS)
    s->contacts_detected = TRUE;
  return s;
}

CwbSnapshot *
cwb_snapshot_ref (CwbSnapshot *snapshot)
{
  g_return_val_if_fail (snapshot != NULL, NULL);
  g_atomic_ref_count_inc (&((SnapshotBox *) snapshot)->refs);
  return snapshot;
}

void
cwb_snapshot_unref (CwbSnapshot *snapshot)
{
  if (snapshot == NULL)
    return;
  SnapshotBox *box = (SnapshotBox *) snapshot;
  if (!g_atomic_ref_count_dec (&box->refs))
    return;
  for (size_t i = 0; i < snapshot->n_bodies; i++)
    {
      CwbSnapshotBody *b = &snapshot->bodies[i];
      g_free (b->name);
      g_free (b->model);
      g_free (b->positions);
      g_free (b->velocities);
      g_clear_pointer (&b->triangles, g_bytes_unref);
      g_clear_pointer (&b->radii, g_bytes_unref);
      g_clear_pointer (&b->tetrahedra, g_bytes_unref);
      g_free (b->nodes);
      g_free (b->element_strain);
      g_free (b->element_rotation);
      g_free (b->node_density_error);
      g_free (b->node_pressure);
      g_free (b->node_speed);
    }
  g_free (snapshot->bodies);
  g_array_unref (snapshot->residuals);
  g_free (snapshot->contact_model);
  g_clear_pointer (&snapshot->contact_state, g_bytes_unref);
  g_free (snapshot->solver);
  g_free (snapshot->q);
  g_free (snapshot->v);
  g_array_unref (snapshot->frames);
  cwb_inspection_destroy (&snapshot->inspection);
  g_clear_pointer (&snapshot->solver_derived, g_array_unref);
  g_free (snapshot->stage_name);
  g_free (snapshot->stage_caption);
  g_free (box);
}

static size_t
array_bytes (const GArray *a)
{
  return a != NULL ? a->len * g_array_get_element_size ((GArray *) a) : 0;
}

size_t
cwb_snapshot_bytes (const CwbSnapshot *s)
{
  size_t bytes = sizeof (SnapshotBox) + (s->nq + s->nv) * sizeof (double)
                 + s->n_bodies * sizeof (CwbSnapshotBody);
  for (size_t i = 0; i < s->n_bodies; i++)
    bytes += (6 * s->bodies[i].n_points + 3 * s->bodies[i].n_nodes
              + 7 * s->bodies[i].n_tetrahedra + 3 * s->bodies[i].n_node_values)
               * sizeof (double) + 64;
  bytes += array_bytes (s->residuals) + array_bytes (s->frames);
  bytes += s->contact_state != NULL ? g_bytes_get_size (s->contact_state) : 0;
  bytes += array_bytes (s->inspection.spans) + array_bytes (s->inspection.voxels)
           + array_bytes (s->inspection.cells) + array_bytes (s->inspection.vectors);
  return bytes;
}

gboolean
cwb_snapshot_body_bounds (const CwbSnapshotBody *b, double lo[3], double hi[3])
{
  for (int k = 0; k < 3; k++)
    {
      lo[k] = INFINITY;
      hi[k] = -INFINITY;
    }
  for (size_t p = 0; p < b->n_points; p++)
    for (int k = 0; k < 3; k++)
      {
        lo[k] = MIN (lo[k], b->positions[3 * p + k]);
        hi[k] = MAX (hi[k], b->positions[3 * p + k]);
      }
  return b->n_points > 0;
}

gboolean
cwb_snapshot_bounds (const CwbSnapshot *s, gboolean moving_only, double lo[3], double hi[3])
{
  gboolean any_moving = FALSE;
  for (size_t i = 0; i < s->n_bodies; i++)
    any_moving |= !s->bodies[i].fixed && s->bodies[i].n_points > 0;
  gboolean found = FALSE;
  for (int k = 0; k < 3; k++)
    {
      lo[k] = INFINITY;
      hi[k] = -INFINITY;
    }
  for (size_t i = 0; i < s->n_bodies; i++)
    {
      double body_lo[3], body_hi[3];
      if ((moving_only && any_moving && s->bodies[i].fixed)
          || !cwb_snapshot_body_bounds (&s->bodies[i], body_lo, body_hi))
        continue;
      for (int k = 0; k < 3; k++)
        {
          lo[k] = MIN (lo[k], body_lo[k]);
          hi[k] = MAX (hi[k], body_hi[k]);
        }
      found = TRUE;
    }
  return found;
}

guint64
cwb_snapshot_state_hash (const CwbSnapshot *s)
{
  return cwb_state_hash (s->q, s->nq, s->v, s->nv);
}

static int
compare_doubles (const void *x, const void *y)
{
  double a = *(const double *) x, b = *(const double *) y;
  return (a > b) - (a < b);
}

double
cwb_snapshot_median_moving_size (const CwbSnapshot *snapshot)
{
  g_autofree double *sizes = g_new (double, MAX (snapshot->n_bodies, 1));
  size_t n = 0;
  for (size_t i = 0; i < snapshot->n_bodies; i++)
    {
      const CwbSnapshotBody *b = &snapshot->bodies[i];
      double lo[3], hi[3];
      if (b->fixed || !cwb_snapshot_body_bounds (b, lo, hi))
        continue;
      double size = MAX (hi[0] - lo[0], MAX (hi[1] - lo[1], hi[2] - lo[2]));
      if (isfinite (size) && size > 0)
        sizes[n++] = size;
    }
  if (n == 0)
    return 0;
  qsort (sizes, n, sizeof (double), compare_doubles);
  return sizes[n / 2];
}

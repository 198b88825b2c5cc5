/* Sleeping bodies and their wake rule (see the header). */
#include "sleep.h"

/* The automatic speed limit's two parts. A resting body's end-of-step speed is what the
 * solve leaves, tolerance / h (1e-8 m/s at the defaults); a falling or sliding one gains g h
 * per step. 1 % of g h (1 mm/s for dt 0.01) is far above the first and far below any motion
 * gravity drives. The second keeps a small body from sleeping while it creeps: over the time
 * it must stay still it may move at most 1e-3 of its size. */
#define SLEEP_GRAVITY_SHARE 0.01
#define SLEEP_SIZE_SHARE 1e-3

struct Sleep {
  GArray *asleep;         /* gboolean per body */
  GArray *still;          /* double per body: seconds below its speed limit */
  GArray *island_still;   /* double per island: the least of its bodies' */
  ContactIslands islands; /* the last velocity pass's */
  size_t n_asleep;
  uint64_t edits;
  gboolean edits_known;
};

Sleep *
sleep_new (void)
{
  Sleep *sleep = g_new0 (Sleep, 1);
  sleep->asleep = g_array_new (FALSE, TRUE, sizeof (gboolean));
  sleep->still = g_array_new (FALSE, TRUE, sizeof (double));
  sleep->island_still = g_array_new (FALSE, TRUE, sizeof (double));
  contact_islands_init (&sleep->islands);
  return sleep;
}

void
sleep_free (Sleep *sleep)
{
  if (sleep == NULL)
    return;
  g_array_unref (sleep->asleep);
  g_array_unref (sleep->still);
  g_array_unref (sleep->island_still);
  contact_islands_clear (&sleep->islands);
  g_free (sleep);
}

void
sleep_wake_all (Sleep *sleep)
{
  if (sleep->asleep->len > 0)
    memset (sleep->asleep->data, 0, sleep->asleep->len * sizeof (gboolean));
  if (sleep->still->len > 0)
    memset (sleep->still->data, 0, sleep->still->len * sizeof (double));
  sleep->n_asleep = 0;
  sleep->islands.n_islands = 0;
  g_array_set_size (sleep->islands.body_island, 0);
}

static void
wake (Sleep *sleep, uint32_t body)
{
  gboolean *asleep = (gboolean *) sleep->asleep->data;
  if (!asleep[body])
    return;
  asleep[body] = FALSE;
  g_array_index (sleep->still, double, body) = 0;
  sleep->n_asleep--;
}

void
sleep_begin_step (Sleep *sleep, CwbStepContext *ctx)
{
  if (sleep->asleep->len != ctx->n_bodies)
    {
      g_array_set_size (sleep->asleep, (guint) ctx->n_bodies);
      g_array_set_size (sleep->still, (guint) ctx->n_bodies);
      sleep_wake_all (sleep);
    }
  if (CWB_STRUCT_HAS (ctx, CwbStepContext, edits))
    {
      if (sleep->edits_known && ctx->edits != sleep->edits)
        sleep_wake_all (sleep);
      sleep->edits = ctx->edits;
      sleep->edits_known = TRUE;
    }
  if (sleep->n_asleep == 0 || !CWB_STRUCT_HAS (ctx, CwbStepContext, body_driven)
      || ctx->body_driven == NULL)
    return;
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    if (g_array_index (sleep->asleep, gboolean, b) && ctx->body_driven (ctx, b))
      wake (sleep, b);
}

const gboolean *
sleep_asleep (const Sleep *sleep)
{
  return sleep->n_asleep > 0 ? (const gboolean *) sleep->asleep->data : NULL;
}

gboolean
sleep_wake_touched (Sleep *sleep, CwbStepContext *ctx, const CwbContactSet *set)
{
  contact_islands_build (&sleep->islands, ctx->n_bodies, set, ctx->dof_rows (ctx));
  if (sleep->n_asleep == 0)
    return FALSE;
  size_t n = sleep->islands.n_islands;
  const uint32_t *body_island = (const uint32_t *) sleep->islands.body_island->data;
  const gboolean *asleep = (const gboolean *) sleep->asleep->data;
  /* Per island: bit 1, it holds a sleeping body; bit 2, an awake one. */
  g_autofree guint8 *holds = g_new0 (guint8, MAX (n, 1));
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    if (body_island[b] != CONTACT_ISLAND_NONE)
      holds[body_island[b]] |= asleep[b] ? 1 : 2;
  gboolean woke = FALSE;
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    if (asleep[b] && body_island[b] != CONTACT_ISLAND_NONE && holds[body_island[b]] == 3)
      {
        wake (sleep, b);
        woke = TRUE;
      }
  return woke;
}

gboolean
sleep_frame_asleep (const Sleep *sleep, const CwbContactFrame *frame)
{
  if (sleep->n_asleep == 0)
    return FALSE;
  const gboolean *asleep = (const gboolean *) sleep->asleep->data;
  guint n = sleep->asleep->len;
  return (frame->body_a < n && asleep[frame->body_a])
         || (frame->body_b < n && asleep[frame->body_b]);
}

double
sleep_speed_limit (const CwbStepContext *ctx, const SleepParams *params, double size)
{
  if (params->speed > 0)
    return params->speed;
  double g = cwb_v3_norm (ctx->gravity);
  return MIN (SLEEP_GRAVITY_SHARE * g * ctx->h, SLEEP_SIZE_SHARE * size / params->time);
}

/* The largest point speed of geometry g and its largest extent. */
static void
geometry_motion (const CwbGeometry *g, double *speed, double *size)
{
  double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
  double top = 0;
  for (size_t i = 0; i < g->n_points; i++)
    {
      const double *p = &g->positions[3 * i];
      for (int k = 0; k < 3; k++)
        {
          lo[k] = MIN (lo[k], p[k]);
          hi[k] = MAX (hi[k], p[k]);
        }
      if (g->velocities != NULL)
        top = MAX (top, cwb_v3_norm (&g->velocities[3 * i]));
    }
  *speed = top;
  *size = g->n_points > 0 ? MAX (hi[0] - lo[0], MAX (hi[1] - lo[1], hi[2] - lo[2])) : 0;
}

void
sleep_end_step (Sleep *sleep, CwbStepContext *ctx, const SleepParams *params)
{
  if (!CWB_STRUCT_HAS (ctx, CwbStepContext, map_geometries) || ctx->map_geometries == NULL)
    return;   /* an older host: no measure of the final speeds, so nothing sleeps */
  ctx->map_geometries (ctx, ctx->q, ctx->v);
  size_t n_geometries = 0;
  const CwbGeometry *geometries = ctx->geometries (ctx, &n_geometries);
  gboolean *asleep = (gboolean *) sleep->asleep->data;
  double *still = (double *) sleep->still->data;
  for (size_t k = 0; k < n_geometries; k++)
    {
      uint32_t b = geometries[k].body;
      if (b >= ctx->n_bodies || asleep[b] || ctx->bodies[b].fixed)
        continue;
      double speed, size;
      geometry_motion (&geometries[k], &speed, &size);
      still[b] = speed < sleep_speed_limit (ctx, params, size) ? still[b] + ctx->h : 0;
    }

  /* An island sleeps when the least still of its bodies has been still long enough. Bodies
   * the last detection left without contacts are islands of their own. */
  size_t n = sleep->islands.n_islands;
  gboolean known = sleep->islands.body_island->len == ctx->n_bodies;
  const uint32_t *body_island = known ? (const uint32_t *) sleep->islands.body_island->data
                                      : NULL;
  g_array_set_size (sleep->island_still, (guint) MAX (n, 1));
  double *island_still = (double *) sleep->island_still->data;
  for (size_t i = 0; i < n; i++)
    island_still[i] = INFINITY;
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    if (body_island != NULL && body_island[b] != CONTACT_ISLAND_NONE && !ctx->bodies[b].fixed)
      island_still[body_island[b]] = MIN (island_still[body_island[b]], still[b]);
  /* Half a step of slack: still[] sums h, which need not reach time exactly. */
  double needed = params->time - 0.5 * ctx->h;
  for (uint32_t b = 0; b < ctx->n_bodies; b++)
    {
      const CwbBodySlot *slot = &ctx->bodies[b];
      if (asleep[b] || slot->fixed)
        continue;
      uint32_t island = body_island != NULL ? body_island[b] : CONTACT_ISLAND_NONE;
      double least = island != CONTACT_ISLAND_NONE ? island_still[island] : still[b];
      if (least < needed)
        continue;
      asleep[b] = TRUE;
      sleep->n_asleep++;
      memset (ctx->v + slot->v_offset, 0, slot->nv * sizeof (double));
    }
}

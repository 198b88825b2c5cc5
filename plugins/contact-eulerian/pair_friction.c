/* Pair friction as a bounded tangential spring (see the header). */
#include "pair_friction.h"

#include <math.h>

typedef struct PairSpring {
  guint64 id;
  double u[3];
  double twist;                      /* the spring's turn about the normal, rad */
  double stiffness, twist_stiffness; /* k_t and k_theta it was given */
  guint32 first_anchor, n_anchors;   /* its anchors in the same detection's anchor array */
} PairSpring;

/* A material point under the pair's contact at the detection that stored it: the spring
 * measures the next detection's displacement from it. */
typedef struct PairAnchor {
  guint32 geometry, point;
  double share;          /* the point's signed share of the pair's velocity */
  double twist[3];       /* its signed coefficient of the pair's spin about the normal */
  double position[3];
} PairAnchor;

#define SAVED_MAGIC 0x45554652u   /* "EUFR": springs (with their twist) and anchors */

struct PairFriction {
  GArray *last, *last_anchors;   /* PairSpring, PairAnchor: the last detection's */
  GArray *next, *next_anchors;   /* this detection's */
  GHashTable *index;             /* id -> position in last + 1 */
};

PairFriction *
pair_friction_new (void)
{
  PairFriction *f = g_new0 (PairFriction, 1);
  f->last = g_array_new (FALSE, FALSE, sizeof (PairSpring));
  f->next = g_array_new (FALSE, FALSE, sizeof (PairSpring));
  f->last_anchors = g_array_new (FALSE, FALSE, sizeof (PairAnchor));
  f->next_anchors = g_array_new (FALSE, FALSE, sizeof (PairAnchor));
  f->index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return f;
}

void
pair_friction_free (PairFriction *f)
{
  if (f == NULL)
    return;
  g_array_unref (f->last);
  g_array_unref (f->next);
  g_array_unref (f->last_anchors);
  g_array_unref (f->next_anchors);
  g_hash_table_unref (f->index);
  g_free (f);
}

static void
index_last (PairFriction *f)
{
  g_hash_table_remove_all (f->index);
  for (guint k = 0; k < f->last->len; k++)
    {
      gint64 *key = g_new (gint64, 1);
      *key = (gint64) g_array_index (f->last, PairSpring, k).id;
      g_hash_table_insert (f->index, key, GUINT_TO_POINTER (k + 1));
    }
}

void
pair_friction_begin (PairFriction *f)
{
  g_array_set_size (f->next, 0);
  g_array_set_size (f->next_anchors, 0);
  index_last (f);
}

void
pair_friction_end (PairFriction *f)
{
  GArray *swap = f->last;
  f->last = f->next;
  f->next = swap;
  g_array_set_size (f->next, 0);
  swap = f->last_anchors;
  f->last_anchors = f->next_anchors;
  f->next_anchors = swap;
  g_array_set_size (f->next_anchors, 0);
  g_hash_table_remove_all (f->index);
}

/* How far the spring's anchors moved since they were stored, the signed shares' sum of
 * their points' displacements, and how far they turned about the normal, their twist
 * coefficients' sum; FALSE when a point is no longer there (the scene changed). */
static gboolean
anchors_moved (const PairFriction *f, const PairSpring *spring, const CwbGeometry *geometries,
               size_t n_geometries, double moved[3], double *turned)
{
  moved[0] = moved[1] = moved[2] = 0;
  *turned = 0;
  for (guint32 k = 0; k < spring->n_anchors; k++)
    {
      const PairAnchor *anchor = &g_array_index (f->last_anchors, PairAnchor,
                                                 spring->first_anchor + k);
      if (anchor->geometry >= n_geometries
          || anchor->point >= geometries[anchor->geometry].n_points)
        return FALSE;
      const double *p = geometries[anchor->geometry].positions + 3 * (size_t) anchor->point;
      for (int c = 0; c < 3; c++)
        {
          moved[c] += anchor->share * (p[c] - anchor->position[c]);
          *turned += anchor->twist[c] * (p[c] - anchor->position[c]);
        }
    }
  return TRUE;
}

/* The factor on a stored stretch when its spring's stiffness goes from `last` to `now`:
 * 1/2 k u^2 does not grow. */
static double
passive_stretch (double last, double now)
{
  return now > last && now > 0 ? last / now : 1;
}

/* The velocity derivative handed to an implicit step for a slipping contact's force of size
 * `bound` at the slip speed `speed`: the secant bound / speed, a dashpot through the origin
 * and through the bound at the predicted velocity, at most `stick` (h k + c, the sticking
 * spring's). Taken as constant over the step instead (no derivative), a bound that stops a
 * light body's slip within the step pushes it back, and the derivative jumps from
 * h k + c to none as the contact starts slipping (docs/plugins/eulerian.md). */
static double
slip_dashpot (double bound, double speed, double stick)
{
  return speed * stick > bound ? bound / speed : stick;
}

/* The twist's torque, T = -k theta - c spin, bounded by mu F_n R: on the bound the spring
 * holds what the dashpot does not give. TRUE when it slips. */
static gboolean
twist_torque (PairSpring *spring, PairTwist *twist, double mu, double normal_force)
{
  twist->torque = -twist->stiffness * spring->twist - twist->damping * twist->spin;
  double bound = mu * MAX (normal_force, 0) * twist->radius;
  twist->slips = fabs (twist->torque) > bound;
  if (twist->slips)
    {
      twist->torque = copysign (bound, twist->torque);
      spring->twist = twist->stiffness > 0
                        ? -(twist->torque + twist->damping * twist->spin) / twist->stiffness
                        : 0;
    }
  return twist->slips;
}

gboolean
pair_friction_force (PairFriction *f, guint64 id, const CwbGeometry *geometries,
                     size_t n_geometries, const double normal[3], double normal_force,
                     double mu, const double velocity[3], double stiffness, double damping,
                     double h, double force[3], double *derivative, PairTwist *twist)
{
  PairSpring spring = { .id = id, .first_anchor = f->next_anchors->len,
                        .stiffness = stiffness, .twist_stiffness = twist->stiffness };
  gint64 key = (gint64) id;
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (f->index, &key));
  double vt[3], moved[3], turned;
  cwb_v3_copy (vt, velocity);
  cwb_v3_reject (vt, normal);
  const PairSpring *last = at > 0 ? &g_array_index (f->last, PairSpring, at - 1) : NULL;
  if (last != NULL && anchors_moved (f, last, geometries, n_geometries, moved, &turned))
    {
      /* A stiffer spring keeps the force it had, a softer one its stretch: neither puts
       * energy into it when the contact's points (and so k) change. */
      double keep = passive_stretch (last->stiffness, stiffness);
      spring.twist = last->twist * passive_stretch (last->twist_stiffness, twist->stiffness)
                     + turned;
      /* The last displacement, turned into this tangent plane with its length kept, and
       * the anchors' tangential motion since. */
      double length = cwb_v3_norm (last->u);
      cwb_v3_copy (spring.u, last->u);
      cwb_v3_reject (spring.u, normal);
      double projected = cwb_v3_norm (spring.u);
      if (projected > 0)
        cwb_v3_scale (spring.u, spring.u, keep * length / projected);
      cwb_v3_reject (moved, normal);
      cwb_v3_add (spring.u, spring.u, moved);
    }
  else
    {
      cwb_v3_scale (spring.u, vt, h);   /* a new contact: this step's slip and turn */
      spring.twist = h * twist->spin;
    }
  twist_torque (&spring, twist, mu, normal_force);
  for (int c = 0; c < 3; c++)
    force[c] = -stiffness * spring.u[c] - damping * vt[c];
  double magnitude = cwb_v3_norm (force), bound = mu * MAX (normal_force, 0);
  gboolean slips = magnitude > bound;
  if (slips)
    {
      /* On the cone: the spring holds what the dashpot does not give. */
      double scale = magnitude > 0 ? bound / magnitude : 0;
      cwb_v3_scale (force, force, scale);
      for (int c = 0; c < 3; c++)
        spring.u[c] = stiffness > 0 ? -(force[c] + damping * vt[c]) / stiffness : 0;
    }
  /* The step's derivatives: h k + c sticking, slip_dashpot's slipping. */
  double stick = h * stiffness + damping;
  *derivative = slips ? slip_dashpot (bound, cwb_v3_norm (vt), stick) : stick;
  stick = h * twist->stiffness + twist->damping;
  twist->derivative = twist->slips
                        ? slip_dashpot (fabs (twist->torque), fabs (twist->spin), stick)
                        : stick;
  g_array_append_val (f->next, spring);
  return slips;
}

void
pair_friction_anchor (PairFriction *f, const CwbGeometry *geometries,
                      const CwbPointWeight *shares, const double *twists, size_t n_shares,
                      double sign)
{
  g_return_if_fail (f->next->len > 0);
  PairSpring *spring = &g_array_index (f->next, PairSpring, f->next->len - 1);
  for (size_t k = 0; k < n_shares; k++)
    {
      const CwbPointWeight *share = &shares[k];
      PairAnchor anchor = { .geometry = share->geometry, .point = share->point,
                            .share = sign * share->w[0] };
      cwb_v3_scale (anchor.twist, twists + 3 * k, sign);
      cwb_v3_copy (anchor.position,
                   geometries[share->geometry].positions + 3 * (size_t) share->point);
      g_array_append_val (f->next_anchors, anchor);
      spring->n_anchors++;
    }
}

typedef struct SavedHeader {
  guint32 magic;
  guint32 spring_size, anchor_size;
  guint32 n_springs, n_anchors;
} SavedHeader;

GBytes *
pair_friction_save (const PairFriction *f)
{
  SavedHeader header = { .magic = SAVED_MAGIC, .spring_size = sizeof (PairSpring),
                         .anchor_size = sizeof (PairAnchor), .n_springs = f->last->len,
                         .n_anchors = f->last_anchors->len };
  size_t springs = f->last->len * sizeof (PairSpring);
  size_t anchors = f->last_anchors->len * sizeof (PairAnchor);
  guint8 *data = g_malloc (sizeof header + springs + anchors);
  memcpy (data, &header, sizeof header);
  if (springs > 0)
    memcpy (data + sizeof header, f->last->data, springs);
  if (anchors > 0)
    memcpy (data + sizeof header + springs, f->last_anchors->data, anchors);
  return g_bytes_new_take (data, sizeof header + springs + anchors);
}

gboolean
pair_friction_restore (PairFriction *f, GBytes *bytes, GError **error)
{
  size_t size = 0;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  SavedHeader header = { 0 };
  if (size >= sizeof header)
    memcpy (&header, data, sizeof header);
  size_t springs = (size_t) header.n_springs * sizeof (PairSpring);
  size_t anchors = (size_t) header.n_anchors * sizeof (PairAnchor);
  gboolean valid = size >= sizeof header && header.magic == SAVED_MAGIC
                   && header.spring_size == sizeof (PairSpring)
                   && header.anchor_size == sizeof (PairAnchor)
                   && size == sizeof header + springs + anchors;
  const PairSpring *saved = (const PairSpring *) (data + sizeof header);
  for (guint32 k = 0; valid && k < header.n_springs; k++)
    {
      PairSpring spring;
      memcpy (&spring, saved + k, sizeof spring);
      valid = (guint64) spring.first_anchor + spring.n_anchors <= header.n_anchors;
    }
  if (!valid)
    {
      g_set_error (error, g_quark_from_static_string ("eulerian"), 0,
                   "friction memory: %zu bytes are not a state this build of the eulerian "
                   "model saved", size);
      return FALSE;
    }
  g_array_set_size (f->last, header.n_springs);
  g_array_set_size (f->last_anchors, header.n_anchors);
  if (springs > 0)
    memcpy (f->last->data, data + sizeof header, springs);
  if (anchors > 0)
    memcpy (f->last_anchors->data, data + sizeof header + springs, anchors);
  g_array_set_size (f->next, 0);
  g_array_set_size (f->next_anchors, 0);
  return TRUE;
}

/* The constraint response by cells (see the header). */
#include "cell_constraints.h"

#include <math.h>
#include <string.h>

/* A grid point's densities must change along its contact normal by at least this share of
 * the steeper of its two gradients for a constraint (cell_constraints_add). */
#define MIN_RATE_SHARE 0.1
/* Marks the hash key of a cell's contact of points apart. */
#define MARGIN_KEY G_GUINT64_CONSTANT (0x5bd1e9955bd1e995)
/* Post-stabilization passes the constraint response asks for (CwbContactSet). */
#define STABILIZATION_PASSES 3

/* One cell's constraint: the mean, weighted by each grid point's weight (its overlap
 * rho_bar, or for a point apart how far it is into the margin's band, cell_constraints_add),
 * of its points' constraints, accumulated point by point. */
typedef struct RowContact {
  uint32_t a, b;          /* geometries */
  guint64 id;
  gboolean margin;        /* of the cell's points apart, within the margin */
  guint sibling;          /* the same cell's other contact (points overlapping, or within
                           * the margin), + 1 (0: none) */
  double mu;
  double weight;          /* sum of the points' weights */
  double origin[3];       /* sum of weight r */
  double normal[3];       /* sum of weight n (n unit, from b towards a) */
  double gap;             /* sum of weight times the point's gap */
  double closest;         /* the smallest of its points' gaps */
  double volume;          /* sum of rho_bar V */
  guint first_entry;      /* its CellEntry list, + 1 (0: none) */
  guint last_entry;
} RowContact;

/* One geometry point's share of a cell's constraint: weight w on it (w its affine weight,
 * with the sign of its body: + for a, - for b) and weight w n, linked cell by cell. */
typedef struct CellEntry {
  uint32_t geometry, point;
  double share;
  double along[3];
  guint next;             /* the cell's next entry, + 1 (0: the last) */
} CellEntry;

/* A grid point where both bodies' closest surface points are on faces far from opposite
 * (contact_normal): kept until the pair's end, whose normal chooses between the faces. */
typedef struct CrossedPoint {
  uint32_t a, b;
  double mu;
  GridPoint moves[2];
  double r[3];
  DensitySample sample[2];
  double excess, margin, volume;
} CrossedPoint;

struct CellConstraints {
  double step;
  int cell_points;        /* constraint_cell */
  int pair_cell_points;   /* the pair's (cell_constraints_begin_pair) */
  GArray *contacts;      /* RowContact */
  GArray *entries;       /* CellEntry */
  GHashTable *cells;     /* a pair's cell identity -> its contact + 1 */
  GArray *crossed;       /* CrossedPoint: the pair's, until its end */
  double pair_normal[3]; /* the pair's normals where they are sure, summed by their weights */
};

CellConstraints *
cell_constraints_new (void)
{
  CellConstraints *c = g_new0 (CellConstraints, 1);
  c->contacts = g_array_new (FALSE, FALSE, sizeof (RowContact));
  c->entries = g_array_new (FALSE, FALSE, sizeof (CellEntry));
  c->cells = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  c->crossed = g_array_new (FALSE, FALSE, sizeof (CrossedPoint));
  return c;
}

void
cell_constraints_free (CellConstraints *c)
{
  if (c == NULL)
    return;
  g_array_unref (c->contacts);
  g_array_unref (c->entries);
  g_hash_table_unref (c->cells);
  g_array_unref (c->crossed);
  g_free (c);
}

void
cell_constraints_begin (CellConstraints *c, double step, int cell_points)
{
  c->step = step;
  c->cell_points = MAX (cell_points, 1);
  g_array_set_size (c->contacts, 0);
  g_array_set_size (c->entries, 0);
  g_hash_table_remove_all (c->cells);
}

void
cell_constraints_begin_pair (CellConstraints *c, int cell_points)
{
  c->pair_cell_points = CLAMP (cell_points, 1, c->cell_points);
  g_hash_table_remove_all (c->cells);
  g_array_set_size (c->crossed, 0);
  cwb_v3_set (c->pair_normal, 0, 0, 0);
}

/* What a grid point's densities say of its contact's normal (contact_normal). */
typedef enum PointNormal {
  NORMAL_NONE,      /* no normal can be taken */
  NORMAL_AVERAGED,  /* the averaged gradient, the two gradients near opposite */
  NORMAL_FACE,      /* one body's face, under the other's edge or vertex */
  NORMAL_CROSSED,   /* both on faces far from opposite: the pair's normal chooses */
  NORMAL_UNSURE,    /* the averaged gradient, neither on a face nor near opposite */
} PointNormal;

/* The contact's normal at a grid point, from b towards a (density_contact_kind): sec. 4.3's
 * averaged gradient g = grad rho_a - grad rho_b, unless the point is on one body's face
 * alone: then that face's gradient. Averaged there, the edge's sideways gradient turned the
 * normals of the points beside a box's edge resting on a face by up to 45 degrees, and in a
 * step whose free motion sank the box by g h^2 those points held it against sliding down a
 * slope steeper than its friction angle (a box stuck at 1.3 atan (mu)). A point on two
 * faces (NORMAL_CROSSED) waits for cell_constraints_end_pair. */
static PointNormal
contact_normal (const DensitySample sample[2], const gboolean on_face[2], double normal[3])
{
  const double *ga = sample[0].gradient, *gb = sample[1].gradient;
  DensityContact kind = density_contact_kind (&sample[0], &sample[1], on_face);
  switch (kind)
    {
    case DENSITY_CONTACT_FACE_A:
      cwb_v3_scale (normal, ga, 1 / cwb_v3_norm (ga));
      return NORMAL_FACE;
    case DENSITY_CONTACT_FACE_B:
      cwb_v3_scale (normal, gb, -1 / cwb_v3_norm (gb));
      return NORMAL_FACE;
    case DENSITY_CONTACT_CROSSED:
      return NORMAL_CROSSED;
    default:
      break;
    }
  double g[3];
  cwb_v3_sub (g, ga, gb);
  double length = cwb_v3_norm (g);
  if (!(length > 0))
    return NORMAL_NONE;
  cwb_v3_scale (normal, g, 1 / length);
  return kind == DENSITY_CONTACT_AVERAGED ? NORMAL_AVERAGED : NORMAL_UNSURE;
}

/* The point's constraint along `normal` into its cell's; `sure` where the normal is a
 * face's or the near-opposite gradients' average, counted in the pair's normal. */
static void
add_point (CellConstraints *self, uint32_t a, uint32_t b, double mu, const GridPoint moves[2],
           const double r[3], const DensitySample sample[2], const double normal[3],
           gboolean sure, double excess, double margin, double volume)
{
  /* Moving the bodies apart along n by s, half each way, changes rho_bar by
   * -(grad rho_a - grad rho_b) . n s / 2. */
  double rate = 0.5 * (cwb_v3_dot (sample[0].gradient, normal)
                       - cwb_v3_dot (sample[1].gradient, normal));
  /* A normal along which the densities barely change (the gradients nearly parallel, or at
   * the ends of both transitions) measures no depth: such a point is left out rather than
   * given a gap of metres. What it could hold is at most the two transitions' span. */
  double strongest = MAX (cwb_v3_norm (sample[0].gradient), cwb_v3_norm (sample[1].gradient));
  if (!(rate > MIN_RATE_SHARE * strongest))
    return;
  /* The gap: each density read back as the signed distance to its body's surface that the
   * profile gives it (density_distance), summed: for two faces s apart (overlapping: -s)
   * the sum is s at every point between them, whatever their transitions' shapes, where
   * -excess / rate, the first order, took the profiles' flattening near their ends for
   * room and let a body resting on another fall through the margin in one step of two.
   * It asks to clear at most the two transitions' span a step: deeper, the densities no
   * longer measure the depth (sec. 4.3: "resolving a deeper intersection would require
   * several iterations"). */
  double h = self->step;
  double gap = MAX (h * (density_distance (sample[0].rho) + density_distance (sample[1].rho)),
                    -2 * h);
  gboolean apart = !(excess > 0);
  if (apart && !(gap < margin))
    return;
  /* The point's weight in its cell: its overlap rho_bar, or for a point apart how far it is
   * into the margin's band (in steps), 0 at the band's edge, so that a point enters and
   * leaves the cell's mean continuously. */
  double overlap = apart ? 0 : excess;
  double weight = apart ? (margin - gap) / h : excess;
  /* The cell of the lattice holding the point (the pair's cell points a side): the pair
   * keeps one constraint per cell, the mean of its points' weighted as above (a
   * point entering or leaving the contact does so with no weight, so the constraint moves
   * continuously), and the cell names it, so that it keeps its identity (and the solver its
   * warm start) while the cell stays in contact. */
  guint64 id = cwb_contact_id_mix (((guint64) a << 32) | b);
  for (int c = 0; c < 3; c++)
    {
      gint64 index = (gint64) llround (r[c] / self->step), side = self->pair_cell_points;
      id = cwb_contact_id_mix (id ^ (guint64) (index >= 0 ? index / side
                                                        : -((-index + side - 1) / side)));
    }
  /* A cell keeps its overlapping points and its points apart in two contacts of the same
   * identity; the second counts only where the first has none (cell_constraints_write):
   * mixed in, the points apart pulled a resting contact's normal and gap towards the rim of
   * the region, and a ball kept rolling. */
  guint64 key_of[2] = { id, id ^ MARGIN_KEY };
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (self->cells, &key_of[apart]));
  if (at == 0)
    {
      RowContact fresh = { .a = a, .b = b, .id = id, .mu = mu, .margin = apart,
                           .closest = INFINITY };
      guint sibling = GPOINTER_TO_UINT (g_hash_table_lookup (self->cells, &key_of[!apart]));
      fresh.sibling = sibling;
      g_array_append_val (self->contacts, fresh);
      at = self->contacts->len;
      if (sibling > 0)
        g_array_index (self->contacts, RowContact, sibling - 1).sibling = at;
      guint64 *key = g_new (guint64, 1);
      *key = key_of[apart];
      g_hash_table_insert (self->cells, key, GUINT_TO_POINTER (at));
    }
  if (sure)
    cwb_v3_axpy (self->pair_normal, weight, normal);
  RowContact *row = &g_array_index (self->contacts, RowContact, at - 1);
  row->weight += weight;
  cwb_v3_axpy (row->origin, weight, r);
  cwb_v3_axpy (row->normal, weight, normal);
  row->gap += weight * gap;
  row->closest = MIN (row->closest, gap);
  row->volume += overlap * volume;
  for (int side = 0; side < 2; side++)
    for (int m = 0; m < GRID_POINT_TERMS; m++)
      {
        double w = (side == 0 ? 1 : -1) * moves[side].weight[m];
        if (w == 0)
          continue;
        CellEntry entry = {
          .geometry = side == 0 ? a : b, .point = moves[side].point[m],
          .share = weight * w,
        };
        cwb_v3_scale (entry.along, normal, weight * w);
        g_array_append_val (self->entries, entry);
        guint index = self->entries->len;
        if (row->last_entry > 0)
          g_array_index (self->entries, CellEntry, row->last_entry - 1).next = index;
        else
          row->first_entry = index;
        row->last_entry = index;
      }
}

void
cell_constraints_add (CellConstraints *self, uint32_t a, uint32_t b, double mu,
                      const GridPoint moves[2], const double r[3],
                      const DensitySample sample[2], const gboolean on_face[2], double excess,
                      double margin, double volume)
{
  double normal[3];
  PointNormal kind = contact_normal (sample, on_face, normal);
  if (kind == NORMAL_NONE)
    return;
  if (kind == NORMAL_CROSSED)
    {
      CrossedPoint point = { .a = a, .b = b, .mu = mu, .excess = excess, .margin = margin,
                             .volume = volume };
      memcpy (point.moves, moves, sizeof point.moves);
      memcpy (point.sample, sample, sizeof point.sample);
      cwb_v3_copy (point.r, r);
      g_array_append_val (self->crossed, point);
      return;
    }
  add_point (self, a, b, mu, moves, r, sample, normal,
             kind == NORMAL_AVERAGED || kind == NORMAL_FACE, excess, margin, volume);
}

/* The pair's points on crossed faces: each takes the face of the two whose normal is
 * closer to the pair's (its sure points' normals, weighted as in their cells): beside a
 * box's edge pressed into a bar, the bar's face, along which the rest of the side presses,
 * not the box's top face across the edge (averaged, the two turned the normals at the
 * box's edges by 45 degrees, and the position passes, unable to part a box wider than its
 * clamp, slid it along them out of the clamp). Without sure points, the averaged
 * gradient. */
void
cell_constraints_end_pair (CellConstraints *self)
{
  for (guint k = 0; k < self->crossed->len; k++)
    {
      const CrossedPoint *p = &g_array_index (self->crossed, CrossedPoint, k);
      const double *ga = p->sample[0].gradient, *gb = p->sample[1].gradient;
      double normal[3];
      switch (density_crossed_face (&p->sample[0], &p->sample[1], self->pair_normal))
        {
        case 0:
          cwb_v3_scale (normal, ga, 1 / cwb_v3_norm (ga));
          break;
        case 1:
          cwb_v3_scale (normal, gb, -1 / cwb_v3_norm (gb));
          break;
        default:
          cwb_v3_sub (normal, ga, gb);
          cwb_v3_scale (normal, normal, 1 / cwb_v3_norm (normal));
        }
      add_point (self, p->a, p->b, p->mu, p->moves, p->r, p->sample, normal, FALSE, p->excess,
                 p->margin, p->volume);
    }
  g_array_set_size (self->crossed, 0);
  cwb_v3_set (self->pair_normal, 0, 0, 0);
}

static int
compare_entries (const void *x, const void *y)
{
  const CellEntry *a = x, *b = y;
  if (a->geometry != b->geometry)
    return a->geometry < b->geometry ? -1 : 1;
  return (a->point > b->point) - (a->point < b->point);
}

/* A cell's entries with each geometry point once (shares and vectors summed), divided by
 * the cell's weight, into `merged`. */
static void
merge_entries (const CellConstraints *self, const RowContact *c, GArray *merged)
{
  g_array_set_size (merged, 0);
  for (guint k = c->first_entry; k > 0;)
    {
      const CellEntry *entry = &g_array_index (self->entries, CellEntry, k - 1);
      g_array_append_val (merged, *entry);
      k = entry->next;
    }
  qsort (merged->data, merged->len, sizeof (CellEntry), compare_entries);
  CellEntry *e = (CellEntry *) merged->data;
  guint out = 0;
  for (guint k = 0; k < merged->len; k++)
    {
      if (out > 0 && e[out - 1].geometry == e[k].geometry && e[out - 1].point == e[k].point)
        {
          e[out - 1].share += e[k].share;
          cwb_v3_add (e[out - 1].along, e[out - 1].along, e[k].along);
          continue;
        }
      e[out++] = e[k];
    }
  g_array_set_size (merged, out);
  for (guint k = 0; k < out; k++)
    {
      e[k].share /= c->weight;
      cwb_v3_scale (e[k].along, e[k].along, 1 / c->weight);
    }
}

/* One row of a cell: the normal row's weights are the points' mean w n (the Jacobian of
 * the mean gap), a tangent row's the mean w along the cell's tangent. */
static void
add_row (CwbContactSet *set, const GArray *merged, CwbRowKind kind, uint32_t frame,
         double gap, const double *tangent)
{
  CwbConstraintRow row = {
    .kind = kind, .frame = frame, .first_weight = set->weights->len,
    .violation = kind == CWB_ROW_NORMAL ? gap : 0,
  };
  for (guint k = 0; k < merged->len; k++)
    {
      const CellEntry *e = &g_array_index (merged, CellEntry, k);
      CwbPointWeight w = { .geometry = e->geometry, .point = e->point };
      if (tangent != NULL)
        cwb_v3_scale (w.w, tangent, e->share);
      else
        cwb_v3_copy (w.w, e->along);
      g_array_append_val (set->weights, w);
    }
  row.n_weights = set->weights->len - row.first_weight;
  g_array_append_val (set->rows, row);
}

/* The constraint response: a frame per cell in contact, its normal row and, in the velocity
 * pass where the pair has friction, its two tangent rows. */
void
cell_constraints_write (const CellConstraints *self, const CwbContactQuery *query,
                        CwbContactSet *set)
{
  double volume = 0, deepest = 0;
  g_autoptr (GArray) merged = g_array_new (FALSE, FALSE, sizeof (CellEntry));
  for (guint k = 0; k < self->contacts->len; k++)
    {
      const RowContact *c = &g_array_index (self->contacts, RowContact, k);
      double length = cwb_v3_norm (c->normal);
      if (!(c->weight > 0) || !(length > 0))
        continue;
      if (c->margin && c->sibling > 0
          && g_array_index (self->contacts, RowContact, c->sibling - 1).weight > 0)
        continue;
      const CwbGeometry *ga = &query->geometries[c->a], *gb = &query->geometries[c->b];
      gboolean friction = c->mu > 0 && query->pass == CWB_CONTACT_PASS_VELOCITY;
      CwbContactFrame frame = {
        .mu = c->mu, .body_a = ga->body, .body_b = gb->body, .first_row = set->rows->len,
        .n_rows = friction ? 3 : 1, .volume = c->volume,
        /* Overlapping points: their mean gap, weighted by their overlaps. Points apart: the
         * closest one's, the gap the bodies have before they touch (their mean read a
         * cell touching at one point as open by half the margin, and a body resting on
         * another dropped through it every other step). */
        .gap = c->margin ? c->closest : c->gap / c->weight,
      };
      cwb_v3_scale (frame.origin, c->origin, 1 / c->weight);
      cwb_v3_scale (frame.normal, c->normal, 1 / length);
      cwb_v3_tangents (frame.normal, frame.t1, frame.t2);
      merge_entries (self, c, merged);
      uint32_t index = set->frames->len;
      g_array_append_val (set->frames, frame);
      cwb_contact_set_add_id (set, c->id);
      add_row (set, merged, CWB_ROW_NORMAL, index, frame.gap, NULL);
      if (friction)
        {
          add_row (set, merged, CWB_ROW_TANGENT, index, 0, frame.t1);
          add_row (set, merged, CWB_ROW_TANGENT, index, 0, frame.t2);
        }
      volume += c->volume;
      deepest = MAX (deepest, -frame.gap);
    }
  set->intersection_volume = volume;
  set->max_penetration = deepest;
  /* The gap is linear in the bodies' positions only where the densities' gradients do not
   * change across the move (a ramp over a flat face); over the smooth step and curved
   * surfaces a stabilization pass leaves part of a deep overlap, which the next takes. */
  if (CWB_STRUCT_HAS (set, CwbContactSet, stabilization_passes))
    set->stabilization_passes = STABILIZATION_PASSES;
}


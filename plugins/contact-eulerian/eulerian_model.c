/* The Eulerian contact model `eulerian` (Faure, Allard and Nesme 2007): bodies meet in a
 * common regular grid of points, each body sampled there as a spatial density, and contact
 * is wherever two densities sum to more than one (sec. 4.1). Nothing in it names a pair of
 * body kinds: it reads geometries (closed triangle surfaces, whatever body model and mapping
 * made them) and returns forces on their points.
 *
 * One detection, for each two geometries of different bodies, not both fixed, whose boxes
 * overlap:
 *   1. the grid box over the overlap of their bounding boxes (widened by two steps), the
 *      only place where both can be present: densities are computed nowhere else (the
 *      hierarchy of sec. 6 reduced to its root, the bodies' boxes, and one fine level);
 *   2. both densities sampled over it (density_grid.h: scan conversion, a ramp of one step
 *      across the surface) with their central-difference gradients;
 *   3. at each point where rho_bar = rho_a + rho_b - 1 > 0, the penalty force of eq. 2,
 *      +F on body a and -F on body b (Newton's third law at every point), with a damping
 *      force proportional to eq. 3's first term (below), each mapped to its body through
 *      the kinematic coefficients dr/dq of sec. 5.2: the point moves with the closest point
 *      of the body's surface, so its force goes to that triangle's vertices by their
 *      barycentric weights (Q = dr/dq^T f, sec. 5.1);
 *   4. the forces' stiffness (eq. 3, appendix B's middle term) between those vertices, for
 *      solvers that integrate contact implicitly.
 *
 * The model is frictionless, as the paper's penalty is ("a force orthogonal to the repulsion
 * direction can be applied to model friction"); the frames carry the pair's combined mu for
 * display only. Automatic parameters are derived from the scene: the step from the smallest
 * moving body's size, the stiffness of a pair from its more mobile body's response over a
 * step (measured through the host's point_response) so that the explicit corrector stays
 * stable, and the damping time from the step (docs/plugins/eulerian.md). */
#include <cwb/cwb.h>

#include "density_grid.h"
#include "density_penalty.h"

/* Automatic step: this share of the smallest moving geometry's size (16 points across). */
#define STEP_OF_SIZE (1.0 / 16)
/* A pair's grid box holds at most this many points; a pair past it is refused with a
 * message naming the step to raise (a step far too small for the bodies' overlap). */
#define MAX_BOX_POINTS (8u << 20)
/* The automatic stiffness makes a contact patch as large as the body's size squared (area
 * L^2: stiffness k L^2 / h) move the body, over one step, by this share of the force's
 * static displacement: (k L^2 / h) x mobility = STIFFNESS_SHARE, where mobility is the
 * displacement a newton makes at a vertex over one step (dt^2 / m for a particle). Explicit
 * integration of a spring is stable up to 4 on this scale; a smaller patch is softer. */
#define STIFFNESS_SHARE 2.0

#define EULERIAN_ERROR (g_quark_from_static_string ("eulerian"))

typedef struct PairContact {
  uint32_t a, b;        /* geometries */
  double force[3];      /* the resultant on a */
  double center[3];     /* where it acts: the points weighted by their force */
  double weight;
  double deepest;       /* the largest rho_bar */
  double volume;        /* sum rho_bar V */
  double stiffness;     /* k of the pair, Pa */
} PairContact;

typedef struct Eulerian {
  double step_param;        /* 0: automatic */
  double stiffness_param;   /* 0: automatic */
  double damping_param;     /* < 0: automatic (the time step) */
  gboolean stiffness_blocks;
  double step;              /* this detection's */
  BodyDensity *density[2];
  GArray *mobility;         /* double per geometry: displacement per newton over a step at
                             * its first vertex; < 0 not yet measured, 0 fixed */
  GArray *pairs;            /* PairContact */
  GArray *forces;           /* CwbPointWeight */
  GArray *stiffness;        /* CwbPointStiffness */
  GArray *voxels;           /* CwbInspectVoxel, the overlap points */
  GArray *vectors;          /* CwbInspectVector, the density gradients */
} Eulerian;

static const CwbParamSpec eulerian_params[] = {
  { "cell_size", CWB_PARAM_DOUBLE, "m", "0", 0, 100, NULL,
    "The grid step h: bodies are sampled as densities at the points k h. 0: automatic, "
    "1/16 of the smallest moving body's size (the report shows the value used)" },
  { "stiffness", CWB_PARAM_DOUBLE, "Pa", "0", 0, 1e15, NULL,
    "k of the penalty energy 1/2 k V rho_bar^2 (Faure 2007 sec. 4.2). 0: automatic, per "
    "pair, from its more mobile body's response over a step, as stiff as an explicit step "
    "allows" },
  { "damping", CWB_PARAM_DOUBLE, "s", "-1", -1, 10, NULL,
    "beta of the damping force beta dF/dd v_rel (the penalty's stiffness along the density "
    "gradient times the bodies' relative velocity): a stiffness-proportional damping. "
    "Negative: automatic, the time step" },
  { "stiffness_blocks", CWB_PARAM_BOOL, "", "true", 1, 0, NULL,
    "Hand the forces' stiffness (Faure 2007 eq. 3) to the solver for implicit integration" },
};

static void
read_params (Eulerian *self, const CwbParamSet *params)
{
  self->step_param = cwb_param_double (params, "cell_size", 0);
  self->stiffness_param = cwb_param_double (params, "stiffness", 0);
  self->damping_param = cwb_param_double (params, "damping", -1);
  self->stiffness_blocks = cwb_param_bool (params, "stiffness_blocks", TRUE);
}

static void *
eulerian_create (const CwbContactModelCreateInfo *info, const CwbHostServices *host,
                 GError **error)
{
  (void) host;
  (void) error;
  Eulerian *self = g_new0 (Eulerian, 1);
  read_params (self, info->params);
  self->density[0] = body_density_new ();
  self->density[1] = body_density_new ();
  self->mobility = g_array_new (FALSE, FALSE, sizeof (double));
  self->pairs = g_array_new (FALSE, FALSE, sizeof (PairContact));
  self->forces = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  self->stiffness = g_array_new (FALSE, FALSE, sizeof (CwbPointStiffness));
  self->voxels = g_array_new (FALSE, FALSE, sizeof (CwbInspectVoxel));
  self->vectors = g_array_new (FALSE, FALSE, sizeof (CwbInspectVector));
  return self;
}

static void
eulerian_destroy (void *data)
{
  Eulerian *self = data;
  body_density_free (self->density[0]);
  body_density_free (self->density[1]);
  g_array_unref (self->mobility);
  g_array_unref (self->pairs);
  g_array_unref (self->forces);
  g_array_unref (self->stiffness);
  g_array_unref (self->voxels);
  g_array_unref (self->vectors);
  g_free (self);
}

static void
eulerian_params_changed (void *self, const CwbParamSet *params)
{
  read_params (self, params);
}

/* Closed triangle surfaces only: a density needs an inside. */
static gboolean
eulerian_attach (void *data, const CwbContactQuery *query, GError **error)
{
  Eulerian *self = data;
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      const CwbGeometry *g = &query->geometries[k];
      if (g->kind == CWB_GEOMETRY_SURFACE && g->closed)
        continue;
      g_set_error (error, EULERIAN_ERROR, 0,
                   "eulerian: body %u: %s; the Eulerian model samples closed triangle "
                   "surfaces into densities (volume particles are not sampled yet)",
                   g->body,
                   g->kind == CWB_GEOMETRY_SURFACE ? "its surface is not closed"
                                                   : "its geometry is volume particles");
      return FALSE;
    }
  g_array_set_size (self->mobility, (guint) query->n_geometries);
  for (size_t k = 0; k < query->n_geometries; k++)
    g_array_index (self->mobility, double, k) = -1;
  return TRUE;
}

static gboolean
geometry_fixed (const CwbContactQuery *query, const CwbGeometry *g)
{
  return CWB_STRUCT_HAS (query, CwbContactQuery, body_fixed) && query->body_fixed != NULL
         && g->body < query->n_bodies && query->body_fixed[g->body];
}

static void
bounds (const CwbGeometry *g, double lo[3], double hi[3])
{
  for (int c = 0; c < 3; c++)
    lo[c] = hi[c] = g->n_points > 0 ? g->positions[c] : 0;
  for (size_t i = 1; i < g->n_points; i++)
    for (int c = 0; c < 3; c++)
      {
        lo[c] = MIN (lo[c], g->positions[3 * i + c]);
        hi[c] = MAX (hi[c], g->positions[3 * i + c]);
      }
}

/* The step this detection uses: the parameter, or STEP_OF_SIZE of the smallest moving
 * geometry (of any geometry when none moves). */
static double
resolve_step (const Eulerian *self, const CwbContactQuery *query)
{
  if (self->step_param > 0)
    return self->step_param;
  double smallest = INFINITY, smallest_any = INFINITY;
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      double size = cwb_geometry_size (&query->geometries[k]);
      if (!(size > 0) || !isfinite (size))
        continue;
      smallest_any = MIN (smallest_any, size);
      if (!geometry_fixed (query, &query->geometries[k]))
        smallest = MIN (smallest, size);
    }
  double size = isfinite (smallest) ? smallest : smallest_any;
  return isfinite (size) ? STEP_OF_SIZE * size : 1;
}

/* Every geometry's mobility: the displacement of its first vertex over one step per newton
 * pushed there (along z), measured for all of them in one point_response call the first
 * time it is needed; 0 for a fixed body. Without point_response (a host before ABI 1.1),
 * a body of 1 kg: h^2. */
static void
measure_mobility (Eulerian *self, const CwbContactQuery *query)
{
  double *mobility = (double *) self->mobility->data;
  gboolean missing = FALSE;
  for (size_t k = 0; k < query->n_geometries; k++)
    missing |= mobility[k] < 0;
  if (!missing)
    return;
  gboolean response = CWB_STRUCT_HAS (query, CwbContactQuery, point_response)
                      && query->point_response != NULL;
  g_autoptr (GArray) probe = g_array_new (FALSE, FALSE, sizeof (CwbPointWeight));
  for (size_t k = 0; k < query->n_geometries; k++)
    {
      const CwbGeometry *g = &query->geometries[k];
      if (mobility[k] >= 0)
        continue;
      if (geometry_fixed (query, g) || g->n_points == 0)
        mobility[k] = 0;
      else if (!response)
        mobility[k] = query->h * query->h;
      else
        {
          CwbPointWeight p = { .geometry = (uint32_t) k, .point = 0, .w = { 0, 0, 1 } };
          g_array_append_val (probe, p);
        }
    }
  if (probe->len == 0)
    return;
  g_autofree double *dp = g_new0 (double, 3 * probe->len);
  const CwbPointWeight *p = (const CwbPointWeight *) probe->data;
  query->point_response (query->host_data, p, probe->len, p, probe->len, dp);
  for (guint n = 0; n < probe->len; n++)
    mobility[p[n].geometry] = MAX (dp[3 * n + 2], 0);
}

/* The pair's k: the parameter, or the stiffness that makes a patch of its more mobile
 * geometry's size squared move it by STIFFNESS_SHARE of the force over a step. */
static double
pair_stiffness (const Eulerian *self, const CwbContactQuery *query, uint32_t a, uint32_t b)
{
  if (self->stiffness_param > 0)
    return self->stiffness_param;
  const double *mobility = (const double *) self->mobility->data;
  uint32_t m = mobility[a] >= mobility[b] ? a : b;
  double size = cwb_geometry_size (&query->geometries[m]);
  if (!(mobility[m] > 0) || !(size > 0))
    return 0;
  return STIFFNESS_SHARE * self->step / (size * size * mobility[m]);
}

/* The velocity a geometry carries a grid point at: its points' velocities by the weights. */
static void
point_velocity (const CwbGeometry *g, const uint32_t point[4], const double w[4], double v[3])
{
  cwb_v3_set (v, 0, 0, 0);
  if (g->velocities == NULL)
    return;
  for (int m = 0; m < 4; m++)
    cwb_v3_axpy (v, w[m], &g->velocities[3 * point[m]]);
}

/* The closest point of a geometry's surface to r by a search of every triangle: for a point
 * deeper in the body than the sampled distances reach (a deep overlap). */
static void
closest_surface_point (const CwbGeometry *g, const double r[3], uint32_t *triangle,
                       double bary[3])
{
  double best = INFINITY;
  for (size_t t = 0; t < g->n_triangles; t++)
    {
      const double *v[3];
      for (int m = 0; m < 3; m++)
        v[m] = &g->positions[3 * g->triangles[3 * t + m]];
      double w[3], q[3] = { 0, 0, 0 }, d[3];
      cwb_triangle_closest_point (r, v[0], v[1], v[2], w);
      for (int m = 0; m < 3; m++)
        cwb_v3_axpy (q, w[m], v[m]);
      cwb_v3_sub (d, r, q);
      double dist = cwb_v3_dot (d, d);
      if (dist < best)
        {
          best = dist;
          *triangle = (uint32_t) t;
          cwb_v3_copy (bary, w);
        }
    }
}

/* The vertex of the geometry farthest from triangle t's plane on its inner side: with the
 * triangle, the tetrahedron a grid point's affine coordinates are taken in. */
static uint32_t
apex_of (const CwbGeometry *g, uint32_t t)
{
  const uint32_t *v = &g->triangles[3 * t];
  double ab[3], ac[3], n[3];
  cwb_v3_sub (ab, &g->positions[3 * v[1]], &g->positions[3 * v[0]]);
  cwb_v3_sub (ac, &g->positions[3 * v[2]], &g->positions[3 * v[0]]);
  cwb_v3_cross (n, ab, ac);
  uint32_t apex = v[0];
  double deepest = 0;
  for (size_t k = 0; k < g->n_points; k++)
    {
      double d[3];
      cwb_v3_sub (d, &g->positions[3 * k], &g->positions[3 * v[0]]);
      double depth = -cwb_v3_dot (d, n);
      if (depth > deepest)
        {
          deepest = depth;
          apex = (uint32_t) k;
        }
    }
  return apex;
}

static double
det3 (const double m[9])
{
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
         + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* The point r as an affine combination of the closest triangle's vertices and the apex:
 * r = sum w_m x_m, sum w_m = 1. Moving with those four points as an affine map moves r
 * exactly as a rigid body carries it (sec. 5.3: v + w x (r - o)), and as the linear
 * interpolation of a deformable body's surface motion; the closest point of the surface
 * alone (sec. 5.2's interpolation) would carry it at the surface, which changes the force's
 * lever arm and lets the averaged forces pump energy into a resting ball's rolling. FALSE
 * for a flat geometry (no apex off the plane): then the closest point's weights. */
static gboolean
affine_weights (const CwbGeometry *g, uint32_t t, uint32_t apex, const double r[3],
                double w[4])
{
  const uint32_t *v = &g->triangles[3 * t];
  const double *a = &g->positions[3 * v[0]];
  double m[9], rhs[3], e[3][3];
  for (int c = 0; c < 3; c++)
    {
      e[0][c] = g->positions[3 * v[1] + c] - a[c];
      e[1][c] = g->positions[3 * v[2] + c] - a[c];
      e[2][c] = g->positions[3 * apex + c] - a[c];
      rhs[c] = r[c] - a[c];
    }
  for (int row = 0; row < 3; row++)
    for (int col = 0; col < 3; col++)
      m[3 * row + col] = e[col][row];
  double det = det3 (m);
  double scale = cwb_v3_norm (e[0]) * cwb_v3_norm (e[1]) * cwb_v3_norm (e[2]);
  if (!(fabs (det) > 1e-9 * scale))
    return FALSE;
  /* Cramer's rule. */
  double x[3];
  for (int col = 0; col < 3; col++)
    {
      double mc[9];
      memcpy (mc, m, sizeof mc);
      for (int row = 0; row < 3; row++)
        mc[3 * row + col] = rhs[row];
      x[col] = det3 (mc) / det;
    }
  w[0] = 1 - x[0] - x[1] - x[2];
  w[1] = x[0];
  w[2] = x[1];
  w[3] = x[2];
  return TRUE;
}

/* The point's sample of one body, with the points its force goes to and their weights. */
static void
sample_at (const BodyDensity *d, const CwbGeometry *g, int i, int j, int k,
           DensitySample *sample, uint32_t point[4], double weight[4])
{
  size_t p = grid_box_index (&d->box, i, j, k);
  sample->rho = g_array_index (d->rho, double, p);
  body_density_gradient (d, i, j, k, sample->gradient);
  body_density_hessian (d, i, j, k, sample->hessian);
  uint32_t triangle = g_array_index (d->triangle, uint32_t, p);
  double bary[3], r[3];
  grid_box_point (&d->box, i, j, k, r);
  if (triangle != G_MAXUINT32)
    cwb_v3_copy (bary, &g_array_index (d->bary, double, 3 * p));
  else
    closest_surface_point (g, r, &triangle, bary);
  for (int m = 0; m < 3; m++)
    point[m] = g->triangles[3 * triangle + m];
  point[3] = apex_of (g, triangle);
  if (!affine_weights (g, triangle, point[3], r, weight))
    {
      cwb_v3_copy (weight, bary);
      weight[3] = 0;
    }
}

/* The point forces of one grid point: w_m F on a's points, -w_m F on b's. */
static void
add_point_forces (Eulerian *self, const uint32_t geometry[2], const uint32_t point[2][4],
                  const double weight[2][4], const double force[3])
{
  for (int s = 0; s < 2; s++)
    for (int m = 0; m < 4; m++)
      {
        if (weight[s][m] == 0)
          continue;
        CwbPointWeight f = { .geometry = geometry[s], .point = point[s][m] };
        cwb_v3_scale (f.w, force, (s == 0 ? 1 : -1) * weight[s][m]);
        g_array_append_val (self->forces, f);
      }
}

/* Eq. 3 between the point's eight points: the force on a's point x is +w_x F, on b's
 * -w_x F, and a's point y moving by dp moves the grid point with body a by w_y dp (b's by
 * -w_y dp in the relative displacement), so block (x, y) is s_x s_y w_x w_y dF/dd. */
static void
add_point_stiffness (Eulerian *self, const uint32_t geometry[2], const uint32_t point[2][4],
                     const double weight[2][4], const double k[9])
{
  for (int sx = 0; sx < 2; sx++)
    for (int mx = 0; mx < 4; mx++)
      for (int sy = 0; sy < 2; sy++)
        for (int my = 0; my < 4; my++)
          {
            double scale = (sx == sy ? 1 : -1) * weight[sx][mx] * weight[sy][my];
            if (scale == 0)
              continue;
            CwbPointStiffness block = {
              .geometry_a = geometry[sx],
              .point_a = point[sx][mx],
              .geometry_b = geometry[sy],
              .point_b = point[sy][my],
            };
            for (int e = 0; e < 9; e++)
              block.k[e] = scale * k[e];
            g_array_append_val (self->stiffness, block);
          }
}

/* One pair: its box, both densities, the forces at every overlapping point. FALSE (with a
 * message) when the box would be too large. */
static gboolean
detect_pair (Eulerian *self, const CwbContactQuery *query, uint32_t a, uint32_t b,
             GError **error)
{
  const uint32_t geometry[2] = { a, b };
  const CwbGeometry *g[2] = { &query->geometries[a], &query->geometries[b] };
  double lo[2][3], hi[2][3], min[3], max[3];
  bounds (g[0], lo[0], hi[0]);
  bounds (g[1], lo[1], hi[1]);
  double reach = self->step;
  for (int c = 0; c < 3; c++)
    {
      min[c] = MAX (lo[0][c], lo[1][c]) - reach;
      max[c] = MIN (hi[0][c], hi[1][c]) + reach;
      if (min[c] > max[c])
        return TRUE;
    }
  GridBox box;
  if (!grid_box_cover (&box, self->step, min, max, 2, MAX_BOX_POINTS))
    {
      g_set_error (error, EULERIAN_ERROR, 0,
                   "eulerian: bodies %u and %u overlap over more than %u grid points at the "
                   "step %g m; raise cell_size",
                   g[0]->body, g[1]->body, MAX_BOX_POINTS, self->step);
      return FALSE;
    }
  for (int s = 0; s < 2; s++)
    body_density_sample_surface (self->density[s], &box, g[s]->positions, g[s]->triangles,
                                 g[s]->n_triangles);
  double stiffness = pair_stiffness (self, query, a, b);
  double volume = box.step * box.step * box.step;
  double kv = stiffness * volume;
  double beta = self->damping_param >= 0 ? self->damping_param : query->h;
  PairContact pair = { .a = a, .b = b, .stiffness = stiffness };
  for (int k = 0; k < box.n[2]; k++)
    for (int j = 0; j < box.n[1]; j++)
      for (int i = 0; i < box.n[0]; i++)
        {
          size_t p = grid_box_index (&box, i, j, k);
          double rho_a = g_array_index (self->density[0]->rho, double, p);
          double rho_b = g_array_index (self->density[1]->rho, double, p);
          if (!(rho_a + rho_b > 1))
            continue;
          DensitySample sample[2];
          uint32_t point[2][4];
          double weight[2][4];
          for (int s = 0; s < 2; s++)
            sample_at (self->density[s], g[s], i, j, k, &sample[s], point[s], weight[s]);
          double overlap = density_overlap (&sample[0], &sample[1]);
          double r[3];
          grid_box_point (&box, i, j, k, r);
          pair.volume += overlap * volume;
          pair.deepest = MAX (pair.deepest, overlap);
          CwbInspectVoxel voxel = {
            .kind = CWB_VOXEL_INTERSECTION, .body_a = g[0]->body, .body_b = g[1]->body,
            .center = { r[0], r[1], r[2] }, .size = { box.step, box.step, box.step },
            .value = overlap,
          };
          g_array_append_val (self->voxels, voxel);
          double force[3], k3[9], va[3], vb[3], rel[3], damping[3];
          density_penalty_force (kv, &sample[0], &sample[1], force);
          density_penalty_stiffness (kv, &sample[0], &sample[1], k3);
          if (cwb_v3_dot (force, force) == 0)
            continue;
          /* Damping: beta times the magnitude of eq. 3's first term, k V / 4 |g|^2, on the
           * whole relative velocity: the lattice turns the densities' gradients a little
           * off the normal (density_grid.h), and a damping along them alone leaves the
           * sideways motion that turn makes undamped on a frictionless contact. */
          point_velocity (g[0], point[0], weight[0], va);
          point_velocity (g[1], point[1], weight[1], vb);
          cwb_v3_sub (rel, va, vb);
          double gradient[3];
          cwb_v3_sub (gradient, sample[0].gradient, sample[1].gradient);
          cwb_v3_scale (damping, rel, -0.25 * kv * beta * cwb_v3_dot (gradient, gradient));
          cwb_v3_add (force, force, damping);
          add_point_forces (self, geometry, (const uint32_t (*)[4]) point,
                            (const double (*)[4]) weight, force);
          if (self->stiffness_blocks)
            add_point_stiffness (self, geometry, (const uint32_t (*)[4]) point,
                                 (const double (*)[4]) weight, k3);
          CwbInspectVector arrow = {
            .kind = CWB_VECTOR_DENSITY_GRADIENT, .geometry = a, .point = point[0][0],
            .origin = { r[0], r[1], r[2] },
          };
          cwb_v3_scale (arrow.vector, gradient, box.step);
          g_array_append_val (self->vectors, arrow);
          double magnitude = cwb_v3_norm (force);
          cwb_v3_add (pair.force, pair.force, force);
          cwb_v3_axpy (pair.center, magnitude, r);
          pair.weight += magnitude;
        }
  if (pair.weight > 0)
    {
      cwb_v3_scale (pair.center, pair.center, 1 / pair.weight);
      g_array_append_val (self->pairs, pair);
    }
  return TRUE;
}

static gboolean
eulerian_detect (void *data, const CwbContactQuery *query, GError **error)
{
  Eulerian *self = data;
  self->step = resolve_step (self, query);
  g_array_set_size (self->pairs, 0);
  g_array_set_size (self->forces, 0);
  g_array_set_size (self->stiffness, 0);
  g_array_set_size (self->voxels, 0);
  g_array_set_size (self->vectors, 0);
  if (self->mobility->len != query->n_geometries)
    {
      g_array_set_size (self->mobility, (guint) query->n_geometries);
      for (size_t k = 0; k < query->n_geometries; k++)
        g_array_index (self->mobility, double, k) = -1;
    }
  measure_mobility (self, query);
  for (uint32_t a = 0; a < query->n_geometries; a++)
    for (uint32_t b = a + 1; b < query->n_geometries; b++)
      {
        const CwbGeometry *ga = &query->geometries[a], *gb = &query->geometries[b];
        if (ga->body == gb->body || (geometry_fixed (query, ga) && geometry_fixed (query, gb)))
          continue;
        if (!detect_pair (self, query, a, b, error))
          return FALSE;
      }
  return TRUE;
}

/* One frame per pair: the resultant, along its own direction, at the points' force-weighted
 * centre; its gap is minus the largest rho_bar times the step (how far the densities'
 * ramps overlap at the deepest point), its volume sum rho_bar V. */
static gboolean
eulerian_model (void *data, const CwbContactQuery *query, CwbContactSet *set,
                CwbInspection *inspection, GError **error)
{
  (void) error;
  Eulerian *self = data;
  double total_volume = 0, deepest = 0, smallest_stiffness = INFINITY;
  for (guint k = 0; k < self->pairs->len; k++)
    {
      const PairContact *pair = &g_array_index (self->pairs, PairContact, k);
      const CwbGeometry *ga = &query->geometries[pair->a], *gb = &query->geometries[pair->b];
      CwbContactFrame frame = {
        .mu = cwb_friction_combine (ga->body < query->n_bodies ? query->friction[ga->body] : 0,
                                    gb->body < query->n_bodies ? query->friction[gb->body] : 0),
        .body_a = ga->body,
        .body_b = gb->body,
        .gap = -pair->deepest * self->step,
        .volume = pair->volume,
        .state = CWB_CONTACT_STICK,
      };
      cwb_v3_copy (frame.origin, pair->center);
      double magnitude = cwb_v3_norm (pair->force);
      if (magnitude > 0)
        cwb_v3_scale (frame.normal, pair->force, 1 / magnitude);
      else
        cwb_v3_set (frame.normal, 0, 0, 1);
      cwb_v3_tangents (frame.normal, frame.t1, frame.t2);
      frame.force[0] = magnitude;
      g_array_append_val (set->frames, frame);
      cwb_contact_set_add_id (set, cwb_contact_id_mix (((guint64) pair->a << 32) | pair->b));
      total_volume += pair->volume;
      deepest = MAX (deepest, pair->deepest * self->step);
      smallest_stiffness = MIN (smallest_stiffness, pair->stiffness);
    }
  g_array_append_vals (set->forces, self->forces->data, self->forces->len);
  if (set->stiffness != NULL)
    g_array_append_vals (set->stiffness, self->stiffness->data, self->stiffness->len);
  set->intersection_volume = total_volume;
  set->max_penetration = deepest;
  g_array_append_vals (inspection->voxels, self->voxels->data, self->voxels->len);
  g_array_append_vals (inspection->vectors, self->vectors->data, self->vectors->len);
  if (!(self->step_param > 0))
    cwb_inspection_add_derived (inspection, "cell_size", self->step);
  if (!(self->stiffness_param > 0) && isfinite (smallest_stiffness))
    cwb_inspection_add_derived (inspection, "stiffness", smallest_stiffness);
  return TRUE;
}

/* Penalty forces with their stiffness: any solver that integrates forces. */
static uint32_t
eulerian_outputs (void *self)
{
  (void) self;
  return CWB_CONTACT_OUTPUT_FORCES;
}

static const CwbContactModelVTable eulerian_vtable = {
  .struct_size = sizeof (CwbContactModelVTable),
  .create = eulerian_create,
  .destroy = eulerian_destroy,
  .attach = eulerian_attach,
  .detect = eulerian_detect,
  .model = eulerian_model,
  .params_changed = eulerian_params_changed,
  .outputs = eulerian_outputs,
};

static const CwbPluginDesc eulerian_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_CONTACT_MODEL,
  .name = "eulerian",
  .version = "0.1.0",
  .summary = "Eulerian density-grid contact: bodies sampled as densities in a common grid, "
             "penalty forces where they overlap (Faure 2007)",
  .params = eulerian_params,
  .n_params = G_N_ELEMENTS (eulerian_params),
  .vtable = &eulerian_vtable,
};

CWB_DEFINE_PLUGIN (eulerian_desc)

/* The `ldi` model's normal row chained to the DOFs by the host (Saupin 2008's H = dg/dq, the
 * step context's dof_rows; Allard 2010 sec. 3.2: dV/dq = dV/dp dp/dq) against central finite
 * differences of the intersection volume V(q), for a rigid body (the rigid mapping: three
 * translations, three rotations) and a deformable one (the fem model through the barycentric
 * mapping: node coordinates). The row is g = -V / A with weights -dV/dp_k / A
 * (volume_constraint.c), so dV/dq = -A H.
 *
 * The model runs with `gradient: axis`, Allard's eq. 12-14, whose entries are exact
 * derivatives of the images' volumes (the default `gradient: normal` estimates the same
 * surface integral along the surfaces' normals and is checked against closed forms in
 * test_ldi_gradient.c). Component c of dV/dp_k comes from the image along axis c alone. A
 * move of the DOFs that moves every surface vertex along c only changes depths in that
 * image, not which pixels the triangles cover, so that image's volume V_c is linear in it
 * while no two depths of a ray swap, and its central difference equals the row's entry up
 * to rounding: rigid translations, and every node coordinate of the barycentric mapping (p
 * = sum w_k q_k moves along the node's axis). V_c is read from the model's spans (sum of
 * lengths times h^2, one image each). A rotation moves vertices across every axis: the mean
 * V follows the row only up to the other images' coverage changes (pixel noise) and the
 * curvature of V over the step, with the tolerance measured below. */
#include <math.h>

#include "world_fixture.h"
#include "world_private.h"

#define PIXEL 0.002
/* Exact differences: the step is far below the depth gaps of any ray (no swap), far above
 * the rounding of V (a sum of ~1e5 interval lengths: ~1e-15 of V ~ 1e-4 m^3): the quotient
 * carries 1e-19 / 1e-6 = 1e-13 m^2 of rounding, 4e-11 of the largest entries (~3e-3 m^2). */
#define FD_STEP 1e-6
/* ... so 1e-8 of the largest entry leaves two orders of margin (largest seen: 7e-11), and a
 * wrong entry, vertex or sign in the chain is off by the entry itself. */
#define FD_RTOL 1e-8
/* H against the row's weights chained by hand: the same sums in another order, 1e-12. */
#define CHAIN_RTOL 1e-12
/* Rotations: 0.03 rad moves the deepest corner (0.17 m from the centre of mass) by 5 mm,
 * 2.6 pixels, so the coverage changes of the images across the motion average over the
 * footprint's outline. Measured against the row, relative to the largest rotation entry:
 * 2.1e-3 about x, 1.7e-3 about y, 3e-5 about z (which leaves V unchanged); with steps of
 * 0.012 and 0.12 rad, 3e-3 (pixel noise) and 3e-2 (the curvature of V(theta)). */
#define ROTATION_STEP 0.03
#define ROTATION_RTOL 1e-2

/* What the model measured at the world's current state. */
typedef struct Probe {
  guint n_frames;
  double volume, area;    /* the first frame's */
  double axis_volume[3];  /* per image, from the spans */
} Probe;

static void
probe_at (CwbWorld *world, const double *q, Probe *out)
{
  memcpy (world->q, q, world->nq * sizeof (double));
  const CwbContactSet *set = fixture_detect (world, CWB_CONTACT_PASS_POSITION);
  const CwbInspection *inspection = cwb_world_inspection (world);
  *out = (Probe) { .n_frames = set->frames->len };
  if (set->frames->len > 0)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, 0);
      out->volume = frame->volume;
      out->area = frame->area;
    }
  for (guint s = 0; s < inspection->spans->len; s++)
    {
      const CwbInspectSpan *span = &g_array_index (inspection->spans, CwbInspectSpan, s);
      out->axis_volume[span->axis] += span->length * span->pixel_size * span->pixel_size;
    }
}

/* q0 with DOF `dof` (nv space) of `body` moved by s, as the body model integrates it: a
 * translation, a rotation about a world axis through the centre of mass (the exponential
 * map, as the rigid mapping's J assumes), a node coordinate. */
static void
perturbed (CwbWorld *world, const double *q0, uint32_t body, size_t dof, double s, double *q)
{
  memcpy (q, q0, world->nq * sizeof (double));
  const CwbBodySlot *slot = &world->slots[body];
  g_autofree double *dv = g_new0 (double, slot->nv);
  dv[dof] = s;
  world->ctx.integrate_position (&world->ctx, body, q0 + slot->q_offset, dv, 1.0,
                                 q + slot->q_offset);
}

/* Central differences of the volume along DOF `dof`: of image c's (c >= 0) or of the mean. */
static double
difference (CwbWorld *world, const double *q0, uint32_t body, size_t dof, double s, int c)
{
  g_autofree double *q = g_new (double, world->nq);
  Probe plus, minus;
  perturbed (world, q0, body, dof, s, q);
  probe_at (world, q, &plus);
  perturbed (world, q0, body, dof, -s, q);
  probe_at (world, q, &minus);
  memcpy (world->q, q0, world->nq * sizeof (double));
  g_assert_cmpuint (plus.n_frames, ==, 1);
  g_assert_cmpuint (minus.n_frames, ==, 1);
  if (c >= 0)
    return (plus.axis_volume[c] - minus.axis_volume[c]) / (2 * s);
  return (plus.volume - minus.volume) / (2 * s);
}

/* The single contact at q0, and dV/dq = -A H of its normal row on `body` (nv entries). The
 * row has entries on that body alone: the other one is fixed. */
static const CwbContactFrame *
row_gradient (CwbWorld *world, const double *q0, uint32_t body, double *grad)
{
  Probe p;
  probe_at (world, q0, &p);
  g_assert_cmpuint (p.n_frames, ==, 1);
  const CwbContactSet *set = cwb_world_contacts (world);
  const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, 0);
  const CwbDofRows *h = world->ctx.dof_rows (&world->ctx);
  g_assert_cmpuint (h->n_rows, ==, set->rows->len);
  memset (grad, 0, world->slots[body].nv * sizeof (double));
  g_assert_cmpuint (h->row_start[frame->first_row + 1], >, h->row_start[frame->first_row]);
  for (size_t e = h->row_start[frame->first_row]; e < h->row_start[frame->first_row + 1]; e++)
    {
      const CwbDofEntry *entry = &h->entries[e];
      g_assert_cmpuint (entry->body, ==, body);
      grad[entry->dof] = -frame->area * entry->value;
    }
  g_test_message ("V = %.6g m^3, A = %.6g m^2", frame->volume, frame->area);
  return frame;
}

static double
largest_magnitude (const double *x, size_t n)
{
  double m = 0;
  for (size_t k = 0; k < n; k++)
    m = MAX (m, fabs (x[k]));
  return m;
}

/* Both scenes: no gravity, the model with eq. 12-14's gradient, the fixed ground as body 0. */
#define GROUND_SCENE \
  "world: { dt: 0.005, gravity: [0, 0, 0] }\n" \
  "contact: { model: ldi, pixel_size: 0.002, threads: 1, gradient: axis, multi_volume: false }\n" \
  "solver: { name: constraint }\n" \
  "bodies:\n" \
  "  - name: ground\n" \
  "    shape: { type: ground, size: [2, 2, 0.5] }\n" \
  "    fixed: true\n"

/* ---- Rigid ------------------------------------------------------------------------------ */

/* A box of 0.2 m turned so that one corner is lowest (about x by 0.3 rad, then y by 0.4),
 * that corner 3 cm into the fixed ground: V = 4.6e-5 m^3 over a triangular footprint of
 * A = 4.6e-3 m^2 (45 x 45 pixels). */
static const char *rigid_yaml =
  GROUND_SCENE
  "  - name: box\n"
  "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
  "    pose: { position: [0.013, -0.021, 0.5], orientation: [0.9589, 0.1417, 0.1963, 0.1440] }\n";

static void
test_rigid (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, rigid_yaml);
  size_t n;
  const CwbGeometry *geometries = cwb_world_geometries (world, &n);
  double lowest = INFINITY;
  for (size_t p = 0; p < geometries[1].n_points; p++)
    lowest = MIN (lowest, geometries[1].positions[3 * p + 2]);
  world->q[world->slots[1].q_offset + 2] -= lowest + 0.03;
  g_autofree double *q0 = g_memdup2 (world->q, world->nq * sizeof (double));

  double grad[6];
  const CwbContactFrame *frame = row_gradient (world, q0, 1, grad);
  double area = frame->area, scale = largest_magnitude (grad, 6);

  /* H is J^T of the row's weights: sum w_k and sum a_k x w_k, a_k = p_k - x the arm from the
   * centre of mass, chained here by hand. */
  const CwbContactSet *set = cwb_world_contacts (world);
  const CwbConstraintRow *row = &g_array_index (set->rows, CwbConstraintRow, frame->first_row);
  double chained[6] = { 0, 0, 0, 0, 0, 0 };
  const double *x = q0 + world->slots[1].q_offset;
  for (uint32_t k = 0; k < row->n_weights; k++)
    {
      const CwbPointWeight *w = &g_array_index (set->weights, CwbPointWeight,
                                                row->first_weight + k);
      if (w->geometry != 1)
        continue;
      double arm[3], torque[3];
      cwb_v3_sub (arm, &geometries[1].positions[3 * w->point], x);
      cwb_v3_cross (torque, arm, w->w);
      cwb_v3_axpy (chained, -area, w->w);
      cwb_v3_axpy (chained + 3, -area, torque);
    }
  for (int d = 0; d < 6; d++)
    g_assert_cmpfloat (fabs (chained[d] - grad[d]), <=, CHAIN_RTOL * scale);

  /* The ground is a plane: V(z) = the integral of the box's cross-sections below it, so
   * dV/dz = -(the cross-section at the plane) = -A (the footprint, eq. 20's positive A_k),
   * and sliding along the plane changes nothing. */
  g_assert_cmpfloat (fabs (grad[2] + area), <=, FD_RTOL * scale);
  for (int d = 0; d < 3; d++)
    {
      double fd = difference (world, q0, 1, (size_t) d, FD_STEP, d);
      g_test_message ("translation %c: image difference %.12g, row %.12g", "xyz"[d], fd, grad[d]);
      g_assert_cmpfloat (fabs (fd - grad[d]), <=, FD_RTOL * scale);
    }
  double rotation_scale = largest_magnitude (grad + 3, 3);
  for (int d = 3; d < 6; d++)
    {
      double fd = difference (world, q0, 1, (size_t) d, ROTATION_STEP, -1);
      g_test_message ("rotation about %c: mean difference %.8g, row %.8g (%.2e of the largest)",
                      "xyz"[d - 3], fd, grad[d], fabs (fd - grad[d]) / rotation_scale);
      g_assert_cmpfloat (fabs (fd - grad[d]), <=, ROTATION_RTOL * rotation_scale);
    }
}

/* ---- FEM -------------------------------------------------------------------------------- */

/* A deformable ball (R = 0.1, resolution 24: 552 triangles embedded in a grid of 3 cells
 * across) 2 cm into the fixed ground. */
static const char *fem_yaml =
  GROUND_SCENE
  "  - name: ball\n"
  "    model: fem\n"
  "    mapping: barycentric\n"
  "    shape: { type: sphere, radius: 0.1, resolution: 24 }\n"
  "    pose: { position: [0.013, -0.021, 0.08] }\n"
  "    model_params: { resolution: 3, warped_compliance: false, compliance_cache: false }\n";

/* Node coordinates checked: the largest entries, and the two smallest above 1e-6 of the
 * largest (nodes far from the contact get entries of 1e-22: rounding of their weights). */
#define FEM_LARGEST 6
#define FEM_SMALLEST 2
#define FEM_SMALLEST_RTOL 1e-6

static int
compare_magnitude (gconstpointer a, gconstpointer b, gpointer data)
{
  const double *grad = data;
  double x = fabs (grad[*(const size_t *) a]), y = fabs (grad[*(const size_t *) b]);
  return (x < y) - (x > y);   /* decreasing */
}

static void
test_fem (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autoptr (CwbWorld) world = fixture_world (registry, fem_yaml);
  g_autofree double *q0 = g_memdup2 (world->q, world->nq * sizeof (double));
  size_t nv = world->slots[1].nv;
  g_autofree double *grad = g_new (double, nv);
  const CwbContactFrame *frame = row_gradient (world, q0, 1, grad);
  double area = frame->area, scale = largest_magnitude (grad, nv);

  /* The barycentric weights of every vertex sum to 1: moving all nodes by t moves the
   * surface by t, so the entries of one axis sum to the rigid translation's: -A along z
   * (the plane, as for the box) and 0 across. */
  double sum[3] = { 0, 0, 0 };
  for (size_t d = 0; d < nv; d++)
    sum[d % 3] += grad[d];
  g_test_message ("node entries summed per axis: %.3g %.3g %.12g (A = %.12g)", sum[0], sum[1],
                  sum[2], area);
  g_assert_cmpfloat (fabs (sum[0]), <=, FD_RTOL * scale);
  g_assert_cmpfloat (fabs (sum[1]), <=, FD_RTOL * scale);
  g_assert_cmpfloat (fabs (sum[2] + area), <=, FD_RTOL * scale);

  g_autoptr (GArray) dofs = g_array_new (FALSE, FALSE, sizeof (size_t));
  for (size_t d = 0; d < nv; d++)
    if (fabs (grad[d]) > FEM_SMALLEST_RTOL * scale)
      g_array_append_val (dofs, d);
  g_array_sort_with_data (dofs, compare_magnitude, grad);
  g_assert_cmpuint (dofs->len, >, FEM_LARGEST + FEM_SMALLEST);
  for (guint k = 0; k < dofs->len; k++)
    {
      if (k == FEM_LARGEST)
        k = dofs->len - FEM_SMALLEST;
      size_t d = g_array_index (dofs, size_t, k);
      double fd = difference (world, q0, 1, d, FD_STEP, (int) (d % 3));
      g_test_message ("node %zu, %c: image difference %.12g, row %.12g", d / 3, "xyz"[d % 3],
                      fd, grad[d]);
      g_assert_cmpfloat (fabs (fd - grad[d]), <=, FD_RTOL * scale);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ldi/dof-gradient/rigid", test_rigid);
  g_test_add_func ("/ldi/dof-gradient/fem", test_fem);
  return g_test_run ();
}

/* The rigid body model: six DOFs, uniform density, mass properties from the closed surface.
 *
 * State (MuJoCo layout, see body_model.h):
 *   q = [x (centre of mass, world, 3), orientation quaternion w, x, y, z (4)]     nq = 7
 *   v = [linear velocity of the centre of mass (3), angular velocity omega, world (3)]  nv = 6
 * The body frame has its origin at the centre of mass and the axes of the mesh frame, so the
 * inertia tensor I is constant in it and I_w = R I R^T in the world. The mass matrix in v
 * space is M = diag(m I3, I_w).
 *
 * Free motion (Saupin 2008 eq. 11-12 with no internal forces):
 *   linear   symplectic Euler:  v+ = e^{-c_l h} (v + h (g + f/m)),  x+ = x + h v+
 *   angular  see angular_step(): world angular momentum L = I_w omega gets the torque impulse,
 *            L' = e^{-c_a h} (L + h tau), then the torque-free (gyroscopic) drift is the
 *            implicit midpoint rule on Euler's equations in the body frame, realised as an
 *            exact rotation, which conserves L and the kinetic energy to solver round-off.
 * When the caller supplies external stiffness/damping operators (penalty contact), the step
 * is the linearised backward Euler of Saupin 2008 eq. 10 instead (free_motion_implicit()). */
#include <float.h>

#include <lapacke.h>

#include <cwb/body_model.h>
#include <cwb/vecmath.h>

#include "mass_properties.h"
#include "rigid_placement.h"

#define RIGID_NQ 7
#define RIGID_NV 6

/* Newton on the implicit midpoint equation stops when the step is below this fraction of
 * |L|: a few ulps, the round-off floor of the residual m - L - h/2 m x (I^-1 m). */
#define MIDPOINT_STEP_TOLERANCE (4.0 * DBL_EPSILON)
/* Newton converges quadratically from m = L for h |omega| < 1; more iterations than this
 * mean the step is far too large for the spin, which is worth a warning, not a failure. */
#define MIDPOINT_MAX_ITERATIONS 30

typedef struct RigidBody {
  char *name;
  gboolean fixed;
  double mass, inv_mass;     /* 0 and 0 for a fixed body (infinite mass, see get_info) */
  double com_mesh[3];        /* centre of mass in the mesh frame */
  double inertia[9];         /* I about the centre of mass, body axes */
  double inertia_inv[9];
  /* Creation pose and velocities, for init_state. */
  double position[3], orientation[4], linear_velocity[3], angular_velocity[3];
  /* Parameters. */
  double linear_damping, angular_damping;
  gboolean gyroscopic;
  /* The reference surface: the mesh with the centre of mass subtracted (owned). */
  double *ref_vertices;
  uint32_t *ref_triangles;
  char *ref_source;
  CwbSurfaceMesh reference;
} RigidBody;

static void
rigid_body_free (RigidBody *body)
{
  g_free (body->name);
  g_free (body->ref_vertices);
  g_free (body->ref_triangles);
  g_free (body->ref_source);
  g_free (body);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RigidBody, rigid_body_free)

static const CwbParamSpec rigid_params[] = {
  { "linear_damping", CWB_PARAM_DOUBLE, "1/s", "0", 0, DBL_MAX, NULL,
    "Viscous damping of the linear velocity: it decays as exp(-c h) per step." },
  { "angular_damping", CWB_PARAM_DOUBLE, "1/s", "0", 0, DBL_MAX, NULL,
    "Viscous damping of the angular momentum: it decays as exp(-c h) per step." },
  { "gyroscopic", CWB_PARAM_BOOL, "", "true", 1, 0, NULL,
    "Include the gyroscopic term omega x I omega (off: omega stays constant when torque-free)." },
};

static void
params_read (RigidBody *body, const CwbParamSet *params)
{
  body->linear_damping = cwb_param_double (params, "linear_damping", 0.0);
  body->angular_damping = cwb_param_double (params, "angular_damping", 0.0);
  body->gyroscopic = cwb_param_bool (params, "gyroscopic", TRUE);
}

static void *
rigid_create (const CwbBodyCreateInfo *info, const CwbHostServices *host, GError **error)
{
  g_return_val_if_fail (info != NULL && info->surface != NULL, NULL);
  const CwbSurfaceMesh *surface = info->surface;
  const char *name = info->name != NULL ? info->name : "(unnamed)";

  g_autoptr (RigidBody) body = g_new0 (RigidBody, 1);
  body->name = g_strdup (name);
  body->fixed = info->fixed;
  params_read (body, info->params);

  RigidMassProperties props;
  if (!body->fixed)
    {
      if (!rigid_mass_properties_compute (surface, info->density, name, &props, error))
        return NULL;
      body->mass = props.mass;
      body->inv_mass = 1.0 / props.mass;
      cwb_v3_copy (body->com_mesh, props.com);
      memcpy (body->inertia, props.inertia, sizeof body->inertia);
      if (cwb_m3_inverse (body->inertia_inv, body->inertia) <= 0)
        {
          g_set_error (error, RIGID_ERROR, RIGID_ERROR_VOLUME,
                       "body '%s': surface '%s' has a singular inertia tensor (flat shape?)",
                       name, surface->source != NULL ? surface->source : "(unnamed surface)");
          return NULL;
        }
      g_debug ("body '%s': V = %g m^3, m = %g kg, com = (%g, %g, %g), I diag = (%g, %g, %g)",
               name, props.volume, props.mass, props.com[0], props.com[1], props.com[2],
               props.inertia[0], props.inertia[4], props.inertia[8]);
    }
  else if (surface->closed
           && rigid_mass_properties_compute (surface, 1.0, name, &props, NULL))
    {
      /* A fixed body needs no mass, but its frame still sits at the centroid when there is
       * one, so that its summary reports the same point a free body would. */
      cwb_v3_copy (body->com_mesh, props.com);
    }

  body->ref_vertices = g_new (double, 3 * surface->n_vertices);
  for (size_t k = 0; k < surface->n_vertices; k++)
    cwb_v3_sub (&body->ref_vertices[3 * k], &surface->vertices[3 * k], body->com_mesh);
  body->ref_triangles = g_memdup2 (surface->triangles,
                                   3 * surface->n_triangles * sizeof (uint32_t));
  body->ref_source = g_strdup (surface->source);
  body->reference = (CwbSurfaceMesh) {
    .struct_size = sizeof (CwbSurfaceMesh),
    .vertices = body->ref_vertices,
    .n_vertices = surface->n_vertices,
    .triangles = body->ref_triangles,
    .n_triangles = surface->n_triangles,
    .closed = surface->closed,
    .manifold = surface->manifold,
    .source = body->ref_source,
  };

  rigid_placement_pose (info, body->position, body->orientation, body->linear_velocity,
                        body->angular_velocity);
  return g_steal_pointer (&body);
}

static void
rigid_destroy (void *self)
{
  rigid_body_free (self);
}

static void
rigid_get_info (void *self, CwbBodyInfo *info)
{
  RigidBody *body = self;
  *info = (CwbBodyInfo) {
    .struct_size = sizeof (CwbBodyInfo),
    .nq = RIGID_NQ,
    .nv = RIGID_NV,
    /* 0 stands for "infinite" on a fixed body: nothing moves it, its compliance is zero. */
    .mass = body->mass,
    .fixed = body->fixed,
    .reference_surface = &body->reference,
  };
  cwb_v3_copy (info->center_of_mass, body->com_mesh);
  memcpy (info->inertia, body->inertia, sizeof info->inertia);
}

static void
rigid_init_state (void *self, double *q, double *v)
{
  RigidBody *body = self;
  /* The pose places the mesh frame: the centre of mass is at position + R com_mesh. */
  double offset[3];
  cwb_quat_rotate (offset, body->orientation, body->com_mesh);
  cwb_v3_add (q, body->position, offset);
  memcpy (q + 3, body->orientation, 4 * sizeof (double));
  memset (v, 0, RIGID_NV * sizeof (double));
  if (!body->fixed)
    {
      cwb_v3_copy (v, body->linear_velocity);
      cwb_v3_copy (v + 3, body->angular_velocity);
    }
}

/* I_w = R I R^T and its inverse at orientation quat. */
static void
inertia_world (const RigidBody *body, const double quat[4], double iw[9], double iw_inv[9])
{
  double rot[9];
  cwb_quat_to_m3 (rot, quat);
  if (iw != NULL)
    cwb_m3_rotate_tensor (iw, rot, body->inertia);
  if (iw_inv != NULL)
    cwb_m3_rotate_tensor (iw_inv, rot, body->inertia_inv);
}

/* quat_out = exp(theta) quat for a world-frame rotation vector theta (left multiplication),
 * renormalised so the quaternion stays on the unit sphere over long runs. */
static void
quat_rotate_world (double quat_out[4], const double quat[4], const double theta[3])
{
  double dq[4];
  cwb_quat_from_rotvec (dq, theta);
  cwb_quat_mul (quat_out, dq, quat);
  cwb_quat_normalize (quat_out);
}

/* Torque-free gyroscopic drift over h of the body-frame angular momentum lb, by the implicit
 * midpoint rule on Euler's equations dL_b/dt = L_b x omega_b, omega_b = I^-1 L_b:
 *
 *   L_b+ = L_b + h (m x I^-1 m),  m = (L_b + L_b+) / 2.
 *
 * Why this scheme: the midpoint rule conserves every quadratic invariant of the flow
 * exactly, and both |L_b|^2 and the kinetic energy T = 1/2 L_b . I^-1 L_b are quadratic.
 * Moreover, with omega_m = I^-1 m fixed, the update is linear in L_b:
 * (I3 + h/2 [omega_m]x) L_b+ = (I3 - h/2 [omega_m]x) L_b, i.e. L_b+ = Q^T L_b with Q the
 * Cayley rotation about omega_m by the angle 2 atan(h |omega_m| / 2). Turning the body by
 * that same Q (R+ = R Q) keeps the world momentum R+ L_b+ = R L_b exactly. So the step
 * conserves world L and T to the Newton tolerance, for any h, near the unstable intermediate
 * axis too, where explicit schemes gain energy and symplectic Euler drifts. It is second
 * order and time-reversible. An explicit or linearised-implicit gyroscopic update would
 * instead drift (gain or lose) energy by O(h) per period.
 *
 * Solves F(m) = m - L_b - h/2 m x I^-1 m = 0 by Newton with the exact Jacobian
 * dF/dm = I3 - h/2 ([m]x I^-1 - [I^-1 m]x), each 3x3 system through LAPACKE dgesv.
 * Writes the body-frame rotation vector of Q (axis * angle) to theta_b. */
static void
gyroscopic_drift (const RigidBody *body, const double lb[3], double h, double theta_b[3])
{
  double lnorm = cwb_v3_norm (lb);
  cwb_v3_set (theta_b, 0, 0, 0);
  if (lnorm == 0)
    return;

  double m[3], w[3];
  cwb_v3_copy (m, lb);
  int it = 0;
  for (; it < MIDPOINT_MAX_ITERATIONS; it++)
    {
      double mxw[3], f[3];
      cwb_m3_mul_v3 (w, body->inertia_inv, m);
      cwb_v3_cross (mxw, m, w);
      for (int i = 0; i < 3; i++)
        f[i] = -(m[i] - lb[i] - 0.5 * h * mxw[i]);   /* right-hand side: -F(m) */

      double sm[9], sw[9], sm_iinv[9], jac[9];
      cwb_m3_skew (sm, m);
      cwb_m3_skew (sw, w);
      cwb_m3_mul (sm_iinv, sm, body->inertia_inv);
      for (int i = 0; i < 9; i++)
        jac[i] = (i % 4 == 0 ? 1.0 : 0.0) - 0.5 * h * (sm_iinv[i] - sw[i]);
      lapack_int ipiv[3];
      if (LAPACKE_dgesv (LAPACK_ROW_MAJOR, 3, 1, jac, 3, ipiv, f, 1) != 0)
        break;   /* singular only for h |omega| ~ 2, far outside any stable step */
      cwb_v3_add (m, m, f);
      if (cwb_v3_norm (f) <= MIDPOINT_STEP_TOLERANCE * lnorm)
        break;
    }
  if (it == MIDPOINT_MAX_ITERATIONS)
    g_debug ("body '%s': midpoint Newton did not converge in %d iterations (h |omega| = %g)",
             body->name, MIDPOINT_MAX_ITERATIONS, h * cwb_v3_norm (w));

  cwb_m3_mul_v3 (w, body->inertia_inv, m);
  double wn = cwb_v3_norm (w);
  if (wn > 0)
    cwb_v3_scale (theta_b, w, 2.0 * atan (0.5 * h * wn) / wn);
}

/* Angular part of the explicit free motion: omega (world) at the start, torque tau (world);
 * writes the new quaternion and omega. */
static void
angular_step (const RigidBody *body, const double quat[4], const double omega[3],
              const double tau[3], double h, double quat_out[4], double omega_out[3])
{
  double decay = exp (-body->angular_damping * h);
  if (!body->gyroscopic)
    {
      /* Without the gyroscopic term, I_w d(omega)/dt = tau: symplectic Euler as for the
       * linear part, with the rotation by the exponential map of h omega+. */
      double iw_inv[9], alpha[3], theta[3];
      inertia_world (body, quat, NULL, iw_inv);
      cwb_m3_mul_v3 (alpha, iw_inv, tau);
      cwb_v3_copy (omega_out, omega);
      cwb_v3_axpy (omega_out, h, alpha);
      cwb_v3_scale (omega_out, omega_out, decay);
      cwb_v3_scale (theta, omega_out, h);
      quat_rotate_world (quat_out, quat, theta);
      return;
    }

  /* Torque kick on the world momentum (exact when tau = 0), then damping. */
  double rot[9], iw[9], l[3], lb[3], theta_b[3], theta[3];
  cwb_quat_to_m3 (rot, quat);
  cwb_m3_rotate_tensor (iw, rot, body->inertia);
  cwb_m3_mul_v3 (l, iw, omega);
  cwb_v3_axpy (l, h, tau);
  cwb_v3_scale (l, l, decay);

  /* Drift: R+ = R Q, i.e. the world rotation vector R theta_b applied on the left. */
  cwb_m3t_mul_v3 (lb, rot, l);
  gyroscopic_drift (body, lb, h, theta_b);
  cwb_m3_mul_v3 (theta, rot, theta_b);
  quat_rotate_world (quat_out, quat, theta);

  /* omega+ = I_w(R+)^-1 L: the velocity that carries exactly the conserved momentum. */
  double iw_inv[9];
  inertia_world (body, quat_out, NULL, iw_inv);
  cwb_m3_mul_v3 (omega_out, iw_inv, l);
}

/* y = M(q) x for the free body (no fixed check). */
static void
mass_apply_free (const RigidBody *body, const double *q, const double *x, double *y)
{
  double iw[9];
  inertia_world (body, q + 3, iw, NULL);
  cwb_v3_scale (y, x, body->mass);
  cwb_m3_mul_v3 (y + 3, iw, x + 3);
}

/* Linearised backward Euler with external stiffness K = df/dq and damping B = df/dv
 * (Saupin 2008 eq. 10-11, Allard 2010 eq. 2-3), used when a penalty contact supplies them:
 * M (v+ - v) = h f(q+, v+) with f(q+, v+) ~ f + K h v+ + B (v+ - v) gives
 *
 *   (M - h B - h^2 K) dv = h (f + h K v),   f = f_ext + [m g, 0] - [0, omega x I_w omega].
 *
 * The 6x6 matrix is built column by column by applying the operators to unit vectors and
 * solved with LAPACKE dgesv. The gyroscopic term is explicit here (the implicit contact
 * stiffness is what matters in this path); torque-free momentum conservation is the job of
 * the explicit path above. Then x+ = x + h v+, quat+ = exp(h omega+) quat. */
static void
free_motion_implicit (const RigidBody *body, const CwbFreeMotion *a)
{
  const double h = a->h;
  double amat[36], rhs[6] = { 0 }, col[6], unit[6];

  for (int j = 0; j < 6; j++)
    {
      memset (unit, 0, sizeof unit);
      unit[j] = 1;
      mass_apply_free (body, a->q, unit, col);
      for (int i = 0; i < 6; i++)
        amat[6 * i + j] = col[i];
      if (a->b_ext != NULL)
        {
          a->b_ext->apply (a->b_ext->data, unit, col);
          for (int i = 0; i < 6; i++)
            amat[6 * i + j] -= h * col[i];
        }
      if (a->k_ext != NULL)
        {
          a->k_ext->apply (a->k_ext->data, unit, col);
          for (int i = 0; i < 6; i++)
            amat[6 * i + j] -= h * h * col[i];
        }
    }

  if (a->f_ext != NULL)
    memcpy (rhs, a->f_ext, sizeof rhs);
  cwb_v3_axpy (rhs, body->mass, a->gravity);
  if (body->gyroscopic)
    {
      double iw[9], lw[3], gyro[3];
      inertia_world (body, a->q + 3, iw, NULL);
      cwb_m3_mul_v3 (lw, iw, a->v + 3);
      cwb_v3_cross (gyro, a->v + 3, lw);
      cwb_v3_axpy (rhs + 3, -1.0, gyro);
    }
  if (a->k_ext != NULL)
    {
      double kv[6];
      a->k_ext->apply (a->k_ext->data, a->v, kv);
      for (int i = 0; i < 6; i++)
        rhs[i] += h * kv[i];
    }
  for (int i = 0; i < 6; i++)
    rhs[i] *= h;

  lapack_int ipiv[6];
  lapack_int info = LAPACKE_dgesv (LAPACK_ROW_MAJOR, 6, 1, amat, 6, ipiv, rhs, 1);
  if (info != 0)
    {
      /* M - hB - h^2K is singular only for an unstable (negative-definite) K larger than
       * M/h^2: keep the velocity rather than produce NaN, and say so. */
      g_warning ("body '%s': implicit free-motion matrix is singular (dgesv info %d); "
                 "external stiffness ignored for this step", body->name, (int) info);
      memset (rhs, 0, sizeof rhs);
    }

  for (int i = 0; i < 6; i++)
    a->v_free[i] = a->v[i] + rhs[i];
  cwb_v3_scale (a->v_free, a->v_free, exp (-body->linear_damping * h));
  cwb_v3_scale (a->v_free + 3, a->v_free + 3, exp (-body->angular_damping * h));

  double theta[3];
  cwb_v3_copy (a->q_free, a->q);
  cwb_v3_axpy (a->q_free, h, a->v_free);
  cwb_v3_scale (theta, a->v_free + 3, h);
  quat_rotate_world (a->q_free + 3, a->q + 3, theta);
}

static void
rigid_free_motion (void *self, const CwbFreeMotion *a)
{
  RigidBody *body = self;
  const double h = a->h;

  if (body->fixed)
    {
      memcpy (a->q_free, a->q, RIGID_NQ * sizeof (double));
      memset (a->v_free, 0, RIGID_NV * sizeof (double));
      return;
    }
  if (a->k_ext != NULL || a->b_ext != NULL)
    {
      free_motion_implicit (body, a);
      return;
    }

  /* Linear: symplectic Euler, v+ = e^{-c h} (v + h (g + f / m)), x+ = x + h v+. */
  double acc[3];
  cwb_v3_copy (acc, a->gravity);
  if (a->f_ext != NULL)
    cwb_v3_axpy (acc, body->inv_mass, a->f_ext);
  cwb_v3_copy (a->v_free, a->v);
  cwb_v3_axpy (a->v_free, h, acc);
  cwb_v3_scale (a->v_free, a->v_free, exp (-body->linear_damping * h));
  cwb_v3_copy (a->q_free, a->q);
  cwb_v3_axpy (a->q_free, h, a->v_free);

  double tau[3] = { 0, 0, 0 };
  if (a->f_ext != NULL)
    cwb_v3_copy (tau, a->f_ext + 3);
  angular_step (body, a->q + 3, a->v + 3, tau, h, a->q_free + 3, a->v_free + 3);
}

static void
rigid_integrate_position (void *self, const double *q, const double *dv, double h,
                          double *q_out)
{
  RigidBody *body = self;
  if (body->fixed)
    {
      if (q_out != q)
        memcpy (q_out, q, RIGID_NQ * sizeof (double));
      return;
    }
  double x[3], quat[4], theta[3];
  cwb_v3_copy (x, q);
  cwb_v3_axpy (x, h, dv);
  cwb_v3_scale (theta, dv + 3, h);
  memcpy (quat, q + 3, sizeof quat);
  quat_rotate_world (q_out + 3, quat, theta);
  cwb_v3_copy (q_out, x);
}

/* C = (M / h^2)^-1 = h^2 M^-1 (Saupin 2008 eq. 14 with dF/dq = dF/dv = 0): a rigid body
 * has no internal forces, so the exact and warped compliances coincide. */
static void
rigid_compliance_apply (void *self, const double *q, double h, CwbCompliance kind,
                        const double *r, double *dq)
{
  RigidBody *body = self;
  if (body->fixed)
    {
      memset (dq, 0, RIGID_NV * sizeof (double));
      return;
    }
  double iw_inv[9];
  inertia_world (body, q + 3, NULL, iw_inv);
  cwb_v3_scale (dq, r, h * h * body->inv_mass);
  cwb_m3_mul_v3 (dq + 3, iw_inv, r + 3);
  cwb_v3_scale (dq + 3, dq + 3, h * h);
}

static void
rigid_mass_apply (void *self, const double *q, const double *x, double *y)
{
  RigidBody *body = self;
  if (body->fixed)
    {
      memset (y, 0, RIGID_NV * sizeof (double));   /* mass 0 stands for infinite */
      return;
    }
  mass_apply_free (body, q, x, y);
}

static void
rigid_summary (void *self, const double *q, const double *v, CwbBodySummary *out)
{
  RigidBody *body = self;
  *out = (CwbBodySummary) { .struct_size = sizeof (CwbBodySummary), .mass = body->mass };
  cwb_v3_copy (out->centroid, q);
  memcpy (out->orientation, q + 3, sizeof out->orientation);
  cwb_v3_copy (out->linear_velocity, v);
  cwb_v3_copy (out->angular_velocity, v + 3);
  if (body->fixed)
    return;
  double mv[6];
  mass_apply_free (body, q, v, mv);
  cwb_v3_copy (out->linear_momentum, mv);
  cwb_v3_copy (out->angular_momentum, mv + 3);
  out->kinetic_energy = 0.5 * (cwb_v3_dot (v, mv) + cwb_v3_dot (v + 3, mv + 3));
}

static void
rigid_params_changed (void *self, const CwbParamSet *params)
{
  params_read (self, params);
}

static const CwbBodyModelVTable rigid_vtable = {
  .struct_size = sizeof (CwbBodyModelVTable),
  .create = rigid_create,
  .destroy = rigid_destroy,
  .get_info = rigid_get_info,
  .init_state = rigid_init_state,
  .free_motion = rigid_free_motion,
  .integrate_position = rigid_integrate_position,
  .compliance_apply = rigid_compliance_apply,
  .mass_apply = rigid_mass_apply,
  .summary = rigid_summary,
  .params_changed = rigid_params_changed,
};

static const CwbPluginDesc rigid_desc = {
  .struct_size = sizeof (CwbPluginDesc),
  .abi_major = CWB_ABI_MAJOR,
  .abi_minor = CWB_ABI_MINOR,
  .kind = CWB_PLUGIN_BODY_MODEL,
  .name = "rigid",
  .version = "1.0.0",
  .summary = "Rigid body: 6 DOFs, exact polyhedral mass properties, momentum-conserving rotation",
  .params = rigid_params,
  .n_params = G_N_ELEMENTS (rigid_params),
  .vtable = &rigid_vtable,
};

CWB_DEFINE_PLUGIN (rigid_desc)

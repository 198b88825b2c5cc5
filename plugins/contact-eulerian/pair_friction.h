/* Coulomb friction between two bodies in contact through the Eulerian grid. Faure 2007's
 * penalty is frictionless ("a force orthogonal to the repulsion direction can be applied to
 * model friction", sec. 4.2); this adds it per pair of bodies (per friction cell of their
 * contact, eulerian_model.c), as a tangential spring and dashpot bounded by Coulomb's cone
 * (a Cundall-Strack contact, as discrete-element codes use):
 *   u  <- u projected on the tangent plane (length kept) + d_t,
 *   F_t = -k_t u - c_t v_t, and where |F_t| > mu F_n: F_t scaled onto the cone and u set so
 *         that the spring and dashpot give it (the spring slips),
 * with u the pair's relative tangential displacement while it sticks, d_t the tangential
 * part of how far the material under the contact moved since the last detection (the
 * points that carried the pair's load then, by their shares of it: its anchors; h v_t for
 * a new pair), v_t the relative tangential velocity at the contact (the load-weighted mean
 * of the grid points'), n and F_n the pair's normal and normal force. The displacement is
 * the material's, not h v_t: a solver that detects at a predicted state (the
 * predictor-corrector) hands velocities that include the free motion's, which the contact
 * then cancels; grown by those, u crept at rest wherever the free motion has a tangential
 * part (an FEM block's bottom spreading under its weight) and rang the body on its spring.
 * The spring is what makes static friction: a tangential load below mu F_n is held by a
 * displacement of F / k_t, not by a creep at the speed a dashpot alone would allow.
 * A force at the contact's centre resists no turn about the normal, so the pair also has a
 * twist, the same spring and dashpot about the normal (a torsional Cundall-Strack
 * contact): theta grows by the anchors' turn (their twist coefficients, the spin's per
 * point velocity), T = -k_theta theta - c_theta spin, bounded by mu F_n R, R the contact's
 * mean lever arm (Coulomb's torsional limit for a pressure spread over the patch: 2/3 mu
 * F_n a on a disc of radius a). The memory (u and theta per pair, by its identity, with its
 * anchors) lasts while the pair is in contact. */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

typedef struct PairFriction PairFriction;

PairFriction *pair_friction_new (void);
void pair_friction_free (PairFriction *friction);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PairFriction, pair_friction_free)

/* A detection's pairs replace the last one's: pairs not met again are forgotten at the end. */
void pair_friction_begin (PairFriction *friction);
void pair_friction_end (PairFriction *friction);

/* The pair's twist about its normal: in, the relative spin of a against b about the normal
 * (rad/s), the spring k_theta (N m/rad), the dashpot c_theta (N m s/rad) and the mean lever
 * arm R (m); out, the torque on a about the normal (opposite on b), whether it slips and
 * the torque's derivative by the spin for an implicit step (N m s/rad, as the force's). */
typedef struct PairTwist {
  double spin, stiffness, damping, radius;
  double torque;
  gboolean slips;
  double derivative;
} PairTwist;

/* One pair's friction force on body a (F_t, opposite on b) and its twist (`twist`); TRUE
 * when the force slips (on the cone). `geometries` the query's (the anchors' points now),
 * `normal` unit from b towards a, `normal_force` >= 0, `velocity` v_a - v_b at the contact,
 * `stiffness` k_t (N/m), `damping` c_t (N s/m), `h` the step. `derivative`: -dF_t/dv_t
 * for an implicit step (N s/m, a multiple of the tangent plane's projection): h k_t + c_t
 * sticking, slipping the secant mu F_n / |v_t| (at most h k_t + c_t). Where k_t (or
 * k_theta) grows from the last detection's the spring keeps its force, where it falls its
 * stretch: 1/2 k u^2 does not grow by it. */
gboolean pair_friction_force (PairFriction *friction, guint64 id, const CwbGeometry *geometries,
                              size_t n_geometries, const double normal[3],
                              double normal_force, double mu, const double velocity[3],
                              double stiffness, double damping, double h, double force[3],
                              double *derivative, PairTwist *twist);

/* The anchors of the pair just given to pair_friction_force: one side's points with their
 * shares of the pair's velocity (w[0]) and their twist coefficients (3 a point: the pair's
 * spin is sum_x t_x . v_x over both sides), `sign` +1 for body a's side, -1 for b's. A side
 * that does not move needs none. */
void pair_friction_anchor (PairFriction *friction, const CwbGeometry *geometries,
                           const CwbPointWeight *shares, const double *twists,
                           size_t n_shares, double sign);

/* The memory as bytes for the host's history (the model's save_state), and back. */
GBytes *pair_friction_save (const PairFriction *friction);
gboolean pair_friction_restore (PairFriction *friction, GBytes *bytes, GError **error);

G_END_DECLS

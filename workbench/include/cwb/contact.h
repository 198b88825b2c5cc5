/* The contact set: what a contact model hands a solver. Either constraint rows (Jacobian
 * blocks per geometry point, violation, frame, friction) for a constraint solver, or point
 * forces and their stiffness for penalty integration; a model may produce both.
 *
 * Sign convention: a constraint row's value is g(q) with Jacobian dg/dp = the row's point
 * weights; g >= 0 is admissible. A multiplier lambda >= 0 applies the force J^T lambda, which
 * increases g. A point contact with normal n (pointing from body b to body a) has weights +n
 * on a's point and -n on b's. A volume contact (Allard 2010 sec. 4.1, g = -V with weights
 * -dV/dp_k and a pressure for multiplier) may divide its rows by its contact area A, as the
 * ldi model does: g = -V / A is then a mean depth in metres and the multiplier a force. */
#pragma once

#include <math.h>

#include <cwb/coulomb.h>
#include <cwb/geometry.h>

G_BEGIN_DECLS

#define CWB_NO_BODY UINT32_MAX

typedef enum CwbRowKind {
  CWB_ROW_NORMAL = 0,     /* unilateral: 0 <= g  perp  lambda >= 0 */
  CWB_ROW_TANGENT = 1,    /* friction direction, bounded by the frame's mu times its normal */
  CWB_ROW_BILATERAL = 2,  /* g = 0, lambda free */
} CwbRowKind;

typedef enum CwbContactState {
  CWB_CONTACT_OPEN = 0,   /* no force: separating or just touching */
  CWB_CONTACT_STICK = 1,  /* force strictly inside the friction set (cone or pyramid) */
  CWB_CONTACT_SLIP = 2,   /* force on the set's boundary, opposing the slip */
} CwbContactState;

/* One contact: a point contact, or one volume (mono- or one cell of multi-volume). Its rows
 * are consecutive: the normal row first, then the tangent rows along t1 and t2. */
typedef struct CwbContactFrame {
  double origin[3];
  double normal[3];        /* unit, from body_b towards body_a */
  double t1[3], t2[3];     /* unit tangents, (normal, t1, t2) right-handed */
  double mu;               /* Coulomb coefficient for this contact */
  uint32_t body_a, body_b; /* CWB_NO_BODY for the static environment */
  uint32_t first_row, n_rows;
  double gap;              /* signed distance (< 0: penetration); for a volume contact
                            * -V / A, minus its mean depth */
  double volume;           /* intersection volume of a volume contact, 0 otherwise */
  double area;             /* contact area estimate (Allard 2010 eq. 20), 0 for points */
  /* Results, filled after the solve (constraint models) or by the model itself (penalty):
   * force on body_a in frame coordinates (normal, t1, t2), in newtons; and its state. */
  double force[3];
  CwbContactState state;
} CwbContactFrame;

typedef struct CwbConstraintRow {
  CwbRowKind kind;
  uint32_t frame;
  uint32_t first_weight, n_weights;   /* into CwbContactSet.weights */
  double violation;   /* g at the configuration the set was built at (normal rows), 0 else */
  double tolerance;   /* admissible violation: g >= -tolerance is satisfied (Allard's eps_V) */
  double lambda;      /* the solver's multiplier, written back after the solve */
} CwbConstraintRow;

/* d f_a / d p_b between two geometry points: the 3x3 stiffness block a penalty force
 * contributes for implicit integration (row-major). */
typedef struct CwbPointStiffness {
  uint32_t geometry_a, point_a;
  uint32_t geometry_b, point_b;
  double k[9];
} CwbPointStiffness;

/* What a contact set holds, for the host to pair contact models with the solvers that can
 * solve them (ABI 1.9): a model declares what it returns (CwbContactModelVTable.outputs), a
 * solver what it solves (CwbSolverVTable.solves), and a pair that does not meet is refused
 * before it runs. */
typedef enum CwbContactOutput {
  CWB_CONTACT_OUTPUT_ROWS = 1u << 0,     /* constraint rows (Signorini, Coulomb) */
  CWB_CONTACT_OUTPUT_FORCES = 1u << 1,   /* penalty forces on points, with their stiffness */
  /* ABI 1.19: a hint, not a kind of output (the pairing check ignores it): where the model
   * returns forces, their stiffness is sized for an implicit step, which an explicit one
   * cannot carry (Faure 2007's penalty); a solver that integrates forces either way does so
   * implicitly by default (CwbSolverVTable.contact_outputs_changed). */
  CWB_CONTACT_OUTPUT_IMPLICIT_FORCES = 1u << 2,
} CwbContactOutput;

typedef struct CwbContactSet {
  size_t struct_size;
  GArray *frames;      /* CwbContactFrame */
  GArray *rows;        /* CwbConstraintRow */
  GArray *weights;     /* CwbPointWeight: the rows' Jacobian blocks */
  GArray *forces;      /* CwbPointWeight: penalty forces on geometry points (w = force, N) */
  GArray *stiffness;   /* CwbPointStiffness: their derivatives, optional */
  /* Scalars for the report; NAN where they do not apply to the model. */
  double intersection_volume;
  double max_penetration;
  /* ABI 1.3 (check struct_size): the friction set the solver bounded the tangential forces
   * by (coulomb.h), which the host judges each frame's stick or slip against. Every detection
   * resets it to CWB_FRICTION_CONE; a solver that enforces another set writes it. */
  CwbFrictionLaw friction_law;
  /* ABI 1.6 (check struct_size): one identity per frame (guint64), or none (empty) when the
   * model gives none. An identity stays the same from step to step while the contact lasts
   * (a feature pair, an LDI cell, a nearest-point pair) and is unique within the set; 0 is
   * "no identity" for a single frame. Solvers warm-start a contact from the multipliers the
   * same identity had in the last step; the GUI follows a contact over time. Every
   * detection clears it; a model that fills it appends exactly one per frame. */
  GArray *contact_ids;
  /* ABI 1.10 (check struct_size): the post-stabilization passes (Allard 2010 Algorithm 1,
   * lines 4-9) the model's rows need in a step to bring a deep overlap within their
   * tolerances: 1 for rows linear in the positions near contact (a point's gap), more for
   * rows that are not (an intersection volume, which a Newton step on it only halves on a
   * curved cap, sec. 4.4). A solver whose own count is automatic makes up to this many; 0
   * states no need. Every detection resets it to 0. */
  uint32_t stabilization_passes;
  /* ABI 1.11 (check struct_size): the separation (m) within which the detection found every
   * pair, its margin: a pair of points missing from the set was at least this far apart at
   * the detected positions. A solver may then measure a motion that moves no point by more
   * than half of it through the set's rows (sum_k w_k . dp_k, the first order of a point's
   * gap), without another detection. 0, what every detection resets it to, states nothing;
   * a model whose rows are not linear in the points near contact (an intersection volume)
   * leaves it 0 or asks for more than one stabilization pass. */
  double reach;
  /* ABI 1.15 (check struct_size; NULL in a set a solver made for itself): d f_a / d v_b
   * between two geometry points, the penalty forces' velocity derivatives (their damping)
   * as CwbPointStiffness blocks, for solvers that integrate the forces implicitly
   * (CwbStepContext.contact_damping_apply within a body; between two bodies,
   * contact_coupling_apply, ABI 1.17). Every detection clears it; optional. */
  GArray *damping;
} CwbContactSet;

/* The identity of frame f of a set, 0 when the model gave none (an older model, or an older
 * host whose set has no contact_ids). */
static inline guint64
cwb_contact_set_id (const CwbContactSet *set, guint f)
{
  if (!CWB_STRUCT_HAS (set, CwbContactSet, contact_ids) || set->contact_ids == NULL
      || set->contact_ids->len != set->frames->len || f >= set->contact_ids->len)
    return 0;
  return g_array_index (set->contact_ids, guint64, f);
}

/* A 64-bit mix for building identities from features and for hashing them: xor-shifts and
 * odd multiplications spread every input bit over the word (the finaliser of the splitmix64
 * generator, Steele, Lea and Flood 2014). Chain it to combine features:
 * h = cwb_contact_id_mix (h ^ feature). */
static inline guint64
cwb_contact_id_mix (guint64 x)
{
  x ^= x >> 30;
  x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

/* Appends the identity of the frame just appended, when the set can hold identities. */
static inline void
cwb_contact_set_add_id (CwbContactSet *set, guint64 id)
{
  if (CWB_STRUCT_HAS (set, CwbContactSet, contact_ids) && set->contact_ids != NULL)
    g_array_append_val (set->contact_ids, id);
}

/* Friction between two materials: the geometric mean, so that equal coefficients give that
 * coefficient and a frictionless material makes the pair frictionless. */
static inline double
cwb_friction_combine (double mu_a, double mu_b)
{
  return sqrt (mu_a * mu_b);
}

G_END_DECLS

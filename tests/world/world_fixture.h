/* Shared set-up for the world tests: a registry with the build tree's plugins and the
 * test-only plugins, and worlds built from scene text. */
#pragma once

#include "registry.h"
#include "scene.h"
#include "world.h"

/* Two boxes on the test half-space: one resting (contact rows with friction every step), one
 * tumbling in flight (rotation in the state). The half-space keeps no memory between steps,
 * so a restored state replays exactly. */
extern const char *const fixture_two_boxes_yaml;

/* The bodies of a three-box stack on a ground slab: boxes of 1, 0.8 and 0.6 m (density
 * 1000, friction 0.6), each 1 mm above the one below and a few centimetres off centre. A YAML
 * fragment for after a scene's "bodies:" line, as a string literal, so a format can hold it. */
#define FIXTURE_THREE_BOX_STACK_BODIES                                                     \
"  - name: ground\n" \
"    shape: { type: ground, size: [10, 10, 1] }\n" \
"    fixed: true\n" \
"    material: { friction: 0.6 }\n" \
"  - name: box-0\n" \
"    shape: { type: box, size: [1, 1, 1] }\n" \
"    pose: { position: [0, 0, 0.501] }\n" \
"    material: { density: 1000, friction: 0.6 }\n" \
"  - name: box-1\n" \
"    shape: { type: box, size: [0.8, 0.8, 0.8] }\n" \
"    pose: { position: [0.05, 0.03, 1.402] }\n" \
"    material: { density: 1000, friction: 0.6 }\n" \
"  - name: box-2\n" \
"    shape: { type: box, size: [0.6, 0.6, 0.6] }\n" \
"    pose: { position: [0.02, -0.04, 2.103] }\n" \
"    material: { density: 1000, friction: 0.6 }\n"

/* A registry with the default folders (the build tree's plugins) and the test plugins. */
CwbRegistry *fixture_registry (void);

/* A world from YAML text; fails the test with the error's message if it does not build. */
CwbWorld *fixture_world (CwbRegistry *registry, const char *yaml);

/* A world from a scene file of the source tree (path relative to CWB_SOURCE_DIR) with --set
 * style overrides ("KEY=VALUE", NULL-terminated, may be NULL); fails the test on an error.
 * The registry must outlive the world. */
CwbWorld *fixture_world_from_file (CwbRegistry *registry, const char *relative_path,
                                   const char *const *sets);

/* A parameter list as a scene section holds one (for cwb_world_set_plugin_params): NAME,
 * TEXT pairs, each TEXT parsed as a scene value, NULL-terminated. */
GPtrArray *fixture_params (const char *first_name, ...) G_GNUC_NULL_TERMINATED;

/* Steps n times, failing the test on the first error. */
void fixture_step (CwbWorld *world, int n);

/* Detects at the world's current state as a solver does, through the step context: maps
 * every body, runs the contact model's detect and model for `pass` and returns the world's
 * contact set (the step context's H, dof_rows, then belongs to it). Replaces the set and
 * inspection of the last step until the next step or detection; fails the test on an
 * error. */
const CwbContactSet *fixture_detect (CwbWorld *world, CwbContactPass pass);

/* The contacts a step leaves, measured afresh by the contact model itself (a position pass
 * through fixture_detect, as a post-stabilization's detections): returns the largest
 * penetration -gap among the frames (for volume contacts the mean depth V / A), 0 with no
 * contact; their number into *n_frames if not NULL. The world's contact set is then this
 * one until the next step. */
double fixture_deepest_contact (CwbWorld *world, size_t *n_frames);

/* Velocity of `body` along the downhill direction (cos a, 0, -sin a) of a plane turned by
 * `angle` about y. */
double fixture_downhill_velocity (CwbWorld *world, size_t body, double angle);

/* The mean downhill acceleration of `body` over `steps` steps, after `settle` steps that the
 * first contact's transient may take. */
double fixture_downhill_acceleration (CwbWorld *world, size_t body, double angle, int settle,
                                      int steps);

/* Every contact frame that carries a normal force is sliding (on its cone). */
void fixture_assert_loaded_frames_slip (CwbWorld *world);

/* A frame's force on body_a in world coordinates: force[0] n + force[1] t1 + force[2] t2. */
void fixture_frame_force (const CwbContactFrame *frame, double out[3]);

/* The height of the lowest corner of `body`, a box of side `side` centred on its centre of
 * mass, from its centroid and orientation. */
double fixture_box_lowest_corner (CwbWorld *world, size_t body, double side);

/* A fixed ground slab (6 x 2 x 0.5 m, friction mu) and a box of side `side` (density 500,
 * friction mu) resting on it, both turned by `angle` about y: the slab's top face is the
 * plane through the origin with normal (sin a, 0, cos a). `contact` and `solver` are the
 * contents of those mappings ("model: proximity", "name: constraint, iterations: 500"). */
char *fixture_incline_scene (double angle, double side, double mu, double dt,
                             const char *contact, const char *solver);

/* The box pyramid of bench/make_pyramid.py: `rows` rows of 1 m boxes (density 1000,
 * friction mu) on a fixed ground, row r holding rows - r boxes centred over the joints of the
 * row below; `gap` between the boxes of a row and between rows (0: flush), each row shifted
 * by `offset` along x and y. Bodies: the ground, then the boxes row by row. */
char *fixture_pyramid_scene (int rows, double gap, double offset, double mu, double dt,
                             const char *contact, const char *solver);

/* How a sphere primitive of `radius` and `resolution` (workbench/core/primitives.c: a ring
 * of `resolution` vertices at longitudes 2 pi k / resolution from x, resolution / 2
 * latitude bands) rests on a facet: the orientation (w, x, y, z) that turns the quad between
 * its first two rings above the lower pole, longitudes 0 to one step, to face straight down,
 * and that facet's distance from the centre. Resting on the pole vertex is a polyhedron's unstable equilibrium, which every
 * model leaves sooner or later (it tips by half a band); on a facet it is stable. */
void fixture_sphere_facet_down (double radius, int resolution, double orientation[4],
                                double *facet_distance);

/* A scene's `pose:` line (6 spaces of indent, its newline) for that sphere resting on the
 * facet with its centre over (x, y), the facet `above` over the height `base`: the centre at
 * base + facet + above. The facet's distance from the centre into *facet_distance. */
char *fixture_sphere_facet_down_pose (double radius, int resolution, double x, double y,
                                      double base, double above, double *facet_distance);

/* The height of the lowest point of body `body`'s geometries (its surfaces as mapped now). */
double fixture_body_lowest_point (CwbWorld *world, size_t body);

/* The largest distance of a pyramid box (bodies 1 ..) from where it stands at rest: its
 * initial x and y, and the height of its row when the rows rest on each other (the gaps
 * closed). */
double fixture_pyramid_drift (CwbWorld *world, int rows, double gap, double offset);

/* The positions (3 per point) of a body whose DOFs are points (a fluid's particles), and
 * their count into *n. */
const double *fixture_body_points (CwbWorld *world, size_t body, size_t *n);

/* How many of n points of this radius lie wholly outside the open box [lo, hi], i.e. through
 * a wall or the floor. The box has no top: with hi[2] > lo[2] (the walls' top) a point above
 * hi[2] is spray over the walls, not a leak, and is not counted; with hi[2] <= lo[2] the
 * walls have no height and every point counts. */
size_t fixture_points_escaped (const double *x, size_t n, double radius, const double lo[3],
                               const double hi[3]);

/* The value of the automatic parameter `name` in `derived` (CwbDerivedParam: a contact
 * model's inspection or the solver's), NAN when it holds none. */
double fixture_derived (const GArray *derived, const char *name);

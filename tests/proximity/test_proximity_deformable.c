/* A deformable body on a rigid one through the whole pipeline with the proximity model: the
 * `fem` body model and `barycentric` mapping (a jelly cube) dropped on a fixed rigid slab,
 * the `constraint` solver with the exact compliance. The rows' weights sit on the cube's
 * surface points, the host chains them through the barycentric mapping into node space
 * (Saupin 2008 eq. 16-18), and W = H C H^T comes from the FEM compliance: the same case as
 * tests/fem/test_fem_world.c, with a mesh support in place of the test half-space. */
#include <math.h>

#include "world_fixture.h"

#define G 9.81
#define DT 0.005
/* The weight is carried to 1e-3 (test_fem_world.c's bound for the exact compliance: what is
 * left of the landing's vibration after 3 s of Rayleigh damping is far smaller). */
#define FORCE_RELATIVE_TOLERANCE 1e-3
/* No creep: the centre of mass moves less than 1e-7 m over the last 0.5 s, against 2 cm of
 * fall (the Gauss-Seidel residual, not a drift). */
#define CREEP_TOLERANCE 1e-7
/* The surface's lowest points are on the slab at the end of a step: above -1e-9 m (the
 * solver's tolerance is 1e-12 m; the rest is the free motion's round-off, as for the
 * half-space). */
#define PENETRATION_BOUND 1e-9

static void
test_jelly_on_slab (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: %g, gravity: [0, 0, %g] }\n"
    "contact: { model: proximity }\n"
    "solver: { name: constraint, iterations: 2000, tolerance: 1.0e-12 }\n"
    "bodies:\n"
    "  - name: slab\n"
    "    shape: { type: box, size: [1, 1, 0.2] }\n"
    "    pose: { position: [0, 0, -0.1] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.5 }\n"
    "  - name: jelly\n"
    "    model: fem\n"
    "    mapping: barycentric\n"
    "    shape: { type: box, size: [0.2, 0.2, 0.2] }\n"
    "    pose: { position: [0.05, 0.03, 0.12] }\n"
    "    material: { density: 500, friction: 0.5 }\n"
    "    model_params: { young_modulus: 5.0e4, resolution: 4, rayleigh_stiffness: 0.02,\n"
    "                    compliance_cache: false }\n", DT, -G);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 600);
  CwbBodySummary before, after;
  cwb_world_body_summary (world, 1, &before);
  fixture_step (world, 100);
  cwb_world_body_summary (world, 1, &after);

  /* The points of the cube's bottom face, each pushing the jelly up out of the slab: the
   * box primitive's surface refined by the mapping to the 4-cell grid (0.05 m), the face's
   * two triangles halved twice and their long sides once more, 5 x 5 grid points and the
   * 16 cells' centres. */
  const CwbContactSet *set = cwb_world_contacts (world);
  g_assert_cmpuint (set->frames->len, ==, 41);
  double total = 0;
  for (guint i = 0; i < set->frames->len; i++)
    {
      const CwbContactFrame *frame = &g_array_index (set->frames, CwbContactFrame, i);
      g_assert_cmpuint (frame->body_a, ==, 1);
      g_assert_cmpuint (frame->body_b, ==, 0);
      g_assert_cmpfloat (frame->normal[2], >, 1 - 1e-9);
      g_assert_cmpfloat (frame->force[0], >=, 0);
      total += frame->force[0];
    }
  double weight = after.mass * G, drift[3];
  cwb_v3_sub (drift, after.centroid, before.centroid);
  g_test_message ("sum f_n = %g N for m g = %g N, drift %g m", total, weight,
                  cwb_v3_norm (drift));
  g_assert_cmpfloat (fabs (total / weight - 1), <, FORCE_RELATIVE_TOLERANCE);
  g_assert_cmpfloat (cwb_v3_norm (drift), <, CREEP_TOLERANCE);

  /* The surface as mapped after the step (the world maps the geometries again at the end of
   * every step): its lowest points on the slab. */
  size_t n_geometries;
  const CwbGeometry *geometry = cwb_world_geometries (world, &n_geometries);
  double lowest = INFINITY;
  for (size_t k = 0; k < geometry[1].n_points; k++)
    lowest = fmin (lowest, geometry[1].positions[3 * k + 2]);
  g_test_message ("lowest surface point %g m", lowest);
  g_assert_cmpfloat (lowest, >, -PENETRATION_BOUND);
}

/* The eulerian mixed stack's lower half under proximity: a soft FEM block (2e5 Pa) turned by
 * 10 degrees and dropped 3 mm onto a rigid box, two of its corners within 1 mm of the box's
 * sides. With its surface the box's eight corners, its faces bend by 1e-3 to 2e-3 of its
 * radius, so it was a polytope only within convex_polytope.c's deformed tolerance; taken by
 * the point detection instead, a corner was pushed out over the box's side, the box's edge
 * crossed the block's face unseen, and the block sank 8 cm into the box (centre at 0.30 m
 * after 1.5 s). Its surface refined to the grid (the mapping's default), the deformed block
 * is the point detection's, whose points along the face now bear on the box's edge. It
 * rests on the top face: the centre within 5 mm of 0.38 m (the block's sag under its weight
 * is 2.4 mm) and the kinetic energy below 1e-6 J (measured 1e-20 J and below: the landing's
 * vibration damped out). */
static void
test_block_on_box_edge (void)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  const char *yaml =
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: proximity }\n"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1.5, 1.5, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0.6 }\n"
    "  - name: rigid-box\n"
    "    shape: { type: box, size: [0.3, 0.3, 0.3] }\n"
    "    pose: { position: [0, 0, 0.152] }\n"
    "    material: { density: 600, friction: 0.6 }\n"
    "  - name: soft-block\n"
    "    model: fem\n"
    "    mapping: barycentric\n"
    "    shape: { type: box, size: [0.24, 0.24, 0.16] }\n"
    "    pose: { position: [0.01, -0.01, 0.385], orientation: [0.9961947, 0, 0, 0.0871557] }\n"
    "    material: { density: 400, friction: 0.6 }\n"
    "    model_params: { young_modulus: 2.0e5, poisson_ratio: 0.3, resolution: 4,\n"
    "                    rayleigh_stiffness: 0.01 }\n";
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 300);
  CwbBodySummary block = { .struct_size = sizeof block };
  cwb_world_body_summary (world, 2, &block);
  g_test_message ("soft block after 1.5 s: centre at %.4f m, kinetic energy %.3g J",
                  block.centroid[2], block.kinetic_energy);
  g_assert_cmpfloat (fabs (block.centroid[2] - 0.38), <, 5e-3);
  g_assert_cmpfloat (block.kinetic_energy, <, 1e-6);
}

/* A heavy soft block (0.24 x 0.24 x 0.16 m, 2 137 kg/m^3, E 2e6 Pa, nu 0.3) resting on a
 * frictionless ground sinks under its own weight as a column in uniaxial stress,
 * sigma_zz = -rho g (L - z): its centre of mass drops by rho g L^2 / (3 E) = 0.0894 mm
 * (the mean over the height of u_z = -(rho g / E)(L z - z^2 / 2)). The ground keeps the
 * base flat where the free column's base would curve by nu rho g r^2 / (2 E); the FEM
 * results below extrapolate to within 0.5 % of the closed form, so that changes the mean
 * little. Linear tetrahedra are too stiff by a share first order in the cell: measured
 * 4.4 % short at 4 cells, 2.3 % at 8; bounds 6 % and 3.5 %, and the finer grid closer.
 * The block's surface is the box primitive's 8 corners, refined by the barycentric mapping
 * to the grid (its default): with the corners alone every contact model held the block by
 * its four bottom corner nodes and it dropped 1.26 mm, 14 times the continuum. */
static double
self_weight_drop (int cells)
{
  g_autoptr (CwbRegistry) registry = fixture_registry ();
  g_autofree char *yaml = g_strdup_printf (
    "world: { dt: 0.005, gravity: [0, 0, -9.81] }\n"
    "contact: { model: proximity }\n"
    "solver: { name: constraint }\n"
    "bodies:\n"
    "  - name: ground\n"
    "    shape: { type: ground, size: [1.5, 1.5, 0.2] }\n"
    "    fixed: true\n"
    "    material: { friction: 0 }\n"
    "  - name: block\n"
    "    model: fem\n"
    "    mapping: barycentric\n"
    "    shape: { type: box, size: [0.24, 0.24, 0.16] }\n"
    "    pose: { position: [0, 0, 0.08] }\n"
    "    material: { density: 2137, friction: 0 }\n"
    "    model_params: { young_modulus: 2.0e6, poisson_ratio: 0.3, resolution: %d,\n"
    "                    rayleigh_stiffness: 0.01 }\n", cells);
  g_autoptr (CwbWorld) world = fixture_world (registry, yaml);
  fixture_step (world, 100);
  CwbBodySummary block = { .struct_size = sizeof block };
  cwb_world_body_summary (world, 1, &block);
  double continuum = 2137 * 9.81 * 0.16 * 0.16 / (3 * 2.0e6);
  double drop = 0.08 - block.centroid[2];
  g_test_message ("%d cells: the centre dropped %.4g mm (continuum %.4g mm, %.2f %% short), "
                  "kinetic energy %.2g J", cells, 1e3 * drop, 1e3 * continuum,
                  100 * (1 - drop / continuum), block.kinetic_energy);
  /* At rest: the landing's vibration damped (measured 1e-19 J and below). */
  g_assert_cmpfloat (block.kinetic_energy, <, 1e-12);
  g_assert_cmpfloat (drop, <, continuum);
  return 1 - drop / continuum;
}

static void
test_self_weight (void)
{
  double coarse = self_weight_drop (4), fine = self_weight_drop (8);
  g_assert_cmpfloat (coarse, <, 0.06);
  g_assert_cmpfloat (fine, <, 0.035);
  g_assert_cmpfloat (fine, <, coarse);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proximity/deformable/jelly-on-slab", test_jelly_on_slab);
  g_test_add_func ("/proximity/deformable/block-on-box-edge", test_block_on_box_edge);
  g_test_add_func ("/proximity/deformable/self-weight", test_self_weight);
  return g_test_run ();
}

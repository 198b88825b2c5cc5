/* Mesh import: formats, welding, topology checks, volume, and error reporting. */
#include <string.h>

#include <glib/gstdio.h>

#include "mesh.h"

/* Unit-cube coordinates are small integers, exact in float and double; the divergence sum
 * over 12 triangles rounds at most a few ulps. */
#define CUBE_VOLUME_TOLERANCE 1e-12

static char *
source_path (const char *relative)
{
  return g_build_filename (g_getenv ("CWB_SOURCE_DIR"), relative, NULL);
}

static void
test_cube (gconstpointer data)
{
  g_autofree char *path = source_path (data);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_mesh_n_vertices (mesh), ==, 8);
  g_assert_cmpuint (cwb_mesh_n_triangles (mesh), ==, 12);
  g_assert_true (mesh->closed);
  g_assert_cmpuint (mesh->inconsistent_edges, ==, 0);
  g_assert_null (cwb_mesh_describe_problems (mesh));
  g_assert_cmpfloat_with_epsilon (cwb_mesh_volume (mesh), 1.0, CUBE_VOLUME_TOLERANCE);
  double min[3], max[3];
  cwb_mesh_bounds (mesh, min, max);
  g_assert_cmpfloat (min[0], ==, 0);
  g_assert_cmpfloat (max[2], ==, 1);
}

static void
test_cube_scaled (void)
{
  g_autofree char *path = source_path ("tests/data/cube.obj");
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 2.0, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (cwb_mesh_volume (mesh), 8.0, 8 * CUBE_VOLUME_TOLERANCE);
}

static void
test_suzanne_open (void)
{
  g_autofree char *path = source_path ("data/meshes/suzanne.obj");
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, &error);
  g_assert_no_error (error);
  g_assert_false (mesh->closed);
  /* data/meshes/README.md: 42 boundary edges, the rims of the two open eyes. */
  g_assert_cmpuint (mesh->boundary_edges, ==, 42);
  g_autofree char *problems = cwb_mesh_describe_problems (mesh);
  g_assert_true (g_str_has_prefix (problems, "open: 42 boundary edges"));
  CwbSurfaceMesh surface;
  cwb_mesh_as_surface (mesh, &surface);
  g_assert_false (surface.closed);
  g_assert_false (surface.manifold);
}

typedef struct ClosedCase {
  const char *file;
  size_t vertices, triangles;   /* from data/meshes/README.md */
} ClosedCase;

static const ClosedCase closed_cases[] = {
  { "data/meshes/spot.obj", 2930, 5856 },
  { "data/meshes/cow.obj", 2903, 5804 },
  { "data/meshes/rocker-arm.obj", 10044, 20088 },
};

static void
test_closed (gconstpointer data)
{
  const ClosedCase *c = data;
  g_autofree char *path = source_path (c->file);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, &error);
  g_assert_no_error (error);
  g_autofree char *problems = cwb_mesh_describe_problems (mesh);
  g_test_message ("%s: %zu vertices, %zu triangles, %s", c->file, cwb_mesh_n_vertices (mesh),
                  cwb_mesh_n_triangles (mesh), problems != NULL ? problems : "closed");
  g_assert_true (mesh->closed);
  g_assert_cmpuint (mesh->inconsistent_edges, ==, 0);
  g_assert_cmpuint (cwb_mesh_n_vertices (mesh), ==, c->vertices);
  g_assert_cmpuint (cwb_mesh_n_triangles (mesh), ==, c->triangles);
  g_assert_cmpfloat (cwb_mesh_volume (mesh), >, 0);
  /* No Euler characteristic check: cow.obj has V - E + F = 1 with every edge shared by two
   * triangles, i.e. a non-manifold (pinched) vertex, which an edge map does not see. */
  CwbSurfaceMesh surface;
  cwb_mesh_as_surface (mesh, &surface);
  g_assert_true (surface.manifold);
  g_assert_cmpuint (surface.n_triangles, ==, c->triangles);
}

static void
test_bunny_open (void)
{
  const char *dir = g_getenv ("CWB_SHARED_MESHES");
  g_autofree char *path = dir != NULL ? g_build_filename (dir, "stanford-bunny.obj", NULL) : NULL;
  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("CWB_SHARED_MESHES/stanford-bunny.obj not available");
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, &error);
  g_assert_no_error (error);
  g_test_message ("bunny: %zu boundary edges", mesh->boundary_edges);
  g_assert_false (mesh->closed);
  /* The shared README: 223 boundary edges (holes at the base). */
  g_assert_cmpuint (mesh->boundary_edges, ==, 223);
}

static void
test_missing_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load ("/nonexistent-cwb/x.obj", 1.0, &error);
  g_assert_null (mesh);
  g_assert_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent-cwb/x.obj"));
}

static void
test_bad_format (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cwb-mesh-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "garbage.xyzq", NULL);
  g_assert_true (g_file_set_contents (path, "this is not a mesh\n", -1, &error));
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, &error);
  g_assert_null (mesh);
  g_assert_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Assimp writes nothing to stdout while importing. */
static void
test_quiet (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = source_path ("data/meshes/suzanne.obj");
      g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, NULL);
      g_assert_nonnull (mesh);
      g_autoptr (CwbMesh) none = cwb_mesh_load ("/nonexistent-cwb/x.obj", 1.0, NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("");
}

/* Two triangles of a square, the shared edge's vertices duplicated 1e-12 apart; a third
 * triangle collapses onto an edge once welded. */
static void
test_weld (void)
{
  g_autoptr (CwbMesh) mesh = cwb_mesh_new ("weld");
  const double v[] = {
    0, 0, 0,   1, 0, 0,   1, 1, 0,
    0, 0, 1e-12,   1, 1, 1e-12,   0, 1, 0,
    0.5, 0.5, 0,   0.5, 0.5, 1e-13,
  };
  const uint32_t t[] = { 0, 1, 2,  3, 4, 5,  6, 7, 0 };
  g_array_append_vals (mesh->vertices, v, G_N_ELEMENTS (v));
  g_array_append_vals (mesh->triangles, t, G_N_ELEMENTS (t));
  cwb_mesh_weld (mesh, 1e-9);
  g_assert_cmpuint (cwb_mesh_n_vertices (mesh), ==, 4);
  g_assert_cmpuint (cwb_mesh_n_triangles (mesh), ==, 2);
  cwb_mesh_check (mesh);
  g_assert_cmpuint (mesh->boundary_edges, ==, 4);
  g_assert_cmpuint (mesh->inconsistent_edges, ==, 0);
  g_assert_false (mesh->closed);
}

/* A flipped triangle is counted as an inconsistently oriented edge pair. */
static void
test_inconsistent (void)
{
  g_autoptr (CwbMesh) mesh = cwb_mesh_new ("tetra");
  const double v[] = { 0, 0, 0,  1, 0, 0,  0, 1, 0,  0, 0, 1 };
  const uint32_t t[] = { 0, 2, 1,  0, 1, 3,  1, 2, 3,  0, 2, 3 /* flipped: 0 3 2 */ };
  g_array_append_vals (mesh->vertices, v, G_N_ELEMENTS (v));
  g_array_append_vals (mesh->triangles, t, G_N_ELEMENTS (t));
  cwb_mesh_check (mesh);
  g_assert_true (mesh->closed);
  g_assert_cmpuint (mesh->inconsistent_edges, ==, 3);
  g_autofree char *problems = cwb_mesh_describe_problems (mesh);
  g_assert_cmpstr (problems, ==, "3 inconsistently oriented edges");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/mesh/load/cube-obj", "tests/data/cube.obj", test_cube);
  g_test_add_data_func ("/mesh/load/cube-ply", "tests/data/cube.ply", test_cube);
  g_test_add_data_func ("/mesh/load/cube-stl", "tests/data/cube.stl", test_cube);
  g_test_add_func ("/mesh/load/cube-scaled", test_cube_scaled);
  g_test_add_func ("/mesh/load/suzanne-open", test_suzanne_open);
  for (size_t i = 0; i < G_N_ELEMENTS (closed_cases); i++)
    {
      g_autofree char *base = g_path_get_basename (closed_cases[i].file);
      g_autofree char *path = g_strconcat ("/mesh/load/closed/", base, NULL);
      g_test_add_data_func (path, &closed_cases[i], test_closed);
    }
  g_test_add_func ("/mesh/load/bunny-open", test_bunny_open);
  g_test_add_func ("/mesh/load/missing-file", test_missing_file);
  g_test_add_func ("/mesh/load/bad-format", test_bad_format);
  g_test_add_func ("/mesh/load/quiet", test_quiet);
  g_test_add_func ("/mesh/topology/weld", test_weld);
  g_test_add_func ("/mesh/topology/inconsistent", test_inconsistent);
  return g_test_run ();
}

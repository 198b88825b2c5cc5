/* Mesh files that crashed or hung the import (issue 17, item 4), each built here from the
 * issue's reproducer, and what must still load beside them. Every bad file is refused with
 * a CWB_MESH_ERROR naming it and what is wrong, promptly (a hang would hit the test's
 * timeout) and, under the sanitizers, with no memory error or undefined behaviour. */
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include <gio/gio.h>

#include "mesh.h"

static char *folder;

static char *
write_file (const char *name, const void *data, gsize length)
{
  char *path = g_build_filename (folder, name, NULL);
  g_assert_true (g_file_set_contents (path, data, (gssize) length, NULL));
  return path;
}

static void
expect_refusal (const char *path, CwbMeshError code, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, &error);
  g_assert_null (mesh);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_error (error, CWB_MESH_ERROR, (gint) code);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, needle));
}

static const char tet_faces[] = "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

/* A face naming vertex 7 of 3: the importer's later steps crashed on it. */
static void
test_face_index_out_of_range (void)
{
  const char ply[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                     "property float y\nproperty float z\nelement face 1\n"
                     "property list uchar int vertex_indices\nend_header\n"
                     "0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n";
  g_autofree char *path = write_file ("index.ply", ply, sizeof ply - 1);
  expect_refusal (path, CWB_MESH_ERROR_FORMAT, "out of range");
}

/* 83 bytes cut off in the header ("property fl"): Assimp 5.2.5's reader looped forever. */
static void
test_ply_header_cut (void)
{
  const char ply[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                     "property float y\nproperty fl";
  g_assert_cmpuint (sizeof ply - 1, ==, 83);
  g_autofree char *path = write_file ("cut.ply", ply, sizeof ply - 1);
  expect_refusal (path, CWB_MESH_ERROR_FORMAT, "no end_header");
}

/* A header claiming 1e7 faces in a file of a few hundred bytes: 1.27 GB and 12 s before. */
static void
test_ply_counts_beyond_file (void)
{
  const char header[] = "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
                        "property float x\nproperty float y\nproperty float z\n"
                        "element face 10000000\nproperty list uchar int vertex_indices\n"
                        "end_header\n";
  GString *file = g_string_new_len (header, sizeof header - 1);
  for (int k = 0; k < 36; k++)
    g_string_append_c (file, '\0');
  g_autofree char *path = write_file ("claim.ply", file->str, file->len);
  g_string_free (file, TRUE);
  expect_refusal (path, CWB_MESH_ERROR_FORMAT, "counts larger than the file holds");
}

/* A binary PLY whose counts fit loads (the header check reads binary sizes right). */
static void
test_ply_binary_loads (void)
{
  const char header[] = "ply\nformat binary_little_endian 1.0\ncomment a tetrahedron\n"
                        "element vertex 4\nproperty float x\nproperty float y\n"
                        "property float z\nelement face 4\n"
                        "property list uchar int vertex_indices\nend_header\n";
  const float vertices[12] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  const int faces[4][3] = { { 0, 2, 1 }, { 0, 1, 3 }, { 0, 3, 2 }, { 1, 2, 3 } };
  GString *file = g_string_new_len (header, sizeof header - 1);
  g_string_append_len (file, (const char *) vertices, sizeof vertices);
  for (int f = 0; f < 4; f++)
    {
      g_string_append_c (file, 3);
      g_string_append_len (file, (const char *) faces[f], sizeof faces[f]);
    }
  g_autofree char *path = write_file ("tet.ply", file->str, file->len);
  g_string_free (file, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_mesh_n_triangles (mesh), ==, 4);
  g_assert_true (mesh->closed);
}

/* A FIFO as the mesh blocked forever; one named by an OBJ's mtllib too. The first is
 * refused, the second reads as a missing material (the mesh loads). */
static void
test_fifos (void)
{
  g_autofree char *fifo = g_build_filename (folder, "pipe.obj", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  expect_refusal (fifo, CWB_MESH_ERROR_IO, "FIFO");

  g_autofree char *material = g_build_filename (folder, "pipe.mtl", NULL);
  g_assert_cmpint (mkfifo (material, 0600), ==, 0);
  g_autofree char *obj = g_strconcat ("mtllib pipe.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n",
                                      tet_faces, NULL);
  g_autofree char *path = write_file ("material.obj", obj, strlen (obj));
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (path, 1.0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_mesh_n_triangles (mesh), ==, 4);
}

/* NaN, and coordinates beyond single precision (the importer's), are refused; far but
 * finite coordinates weld without overflowing the cell numbers (undefined behaviour in
 * mesh.c's welding before: floor (1e30 / 1e19) does not fit in 64 bits). */
static void
test_coordinates (void)
{
  g_autofree char *nan_obj = g_strconcat ("v nan 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n", tet_faces,
                                          NULL);
  g_autofree char *nan_path = write_file ("nan.obj", nan_obj, strlen (nan_obj));
  expect_refusal (nan_path, CWB_MESH_ERROR_FORMAT, "expected finite coordinates");

  g_autofree char *huge = g_strconcat ("v 1e39 0 0\nv -1e39 0 0\nv 0 1 0\nv 0 0 1\n", tet_faces,
                                       NULL);
  g_autofree char *huge_path = write_file ("huge.obj", huge, strlen (huge));
  expect_refusal (huge_path, CWB_MESH_ERROR_FORMAT, "single precision");

  g_autofree char *far = g_strconcat ("v 1e30 0 0\nv 1.0001e30 0 0\nv 1e30 1e26 0\n"
                                      "v 1e30 0 1e26\n", tet_faces, NULL);
  g_autofree char *far_path = write_file ("far.obj", far, strlen (far));
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load (far_path, 1.0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_mesh_n_triangles (mesh), ==, 4);
  g_assert_true (mesh->closed);
}

/* What the mesh fuzzer found in Assimp 5.2.5 (docs/validation.md), refused before it reaches
 * the importer: text after end_header on its line and a first line that is not "ply" alone
 * (endless loops in its reader), bytes that are not text in an ASCII body, an element name
 * that starts with digits (read as a huge count), and faces with no vertex (an assertion
 * that aborts its triangulation). */
static void
test_fuzzer_findings (void)
{
  const char tail[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                      "property float y\nproperty float z\nelement face 1\n"
                      "property list uchar int vertex_indices\nend_header\xa4\xa4\n"
                      "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
  g_autofree char *tail_path = write_file ("tail.ply", tail, sizeof tail - 1);
  expect_refusal (tail_path, CWB_MESH_ERROR_FORMAT, "\"end_header\" alone on its line");

  const char first[] = "plyPPPP\nformat ascii 1.0\nend_header\n";
  g_autofree char *first_path = write_file ("first.ply", first, sizeof first - 1);
  expect_refusal (first_path, CWB_MESH_ERROR_FORMAT, "\"ply\" alone on the first line");

  const char bytes[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                       "property float y\nproperty float z\nend_header\n"
                       "0 0 0\n1 \xa4 0\n0 1 0\n";
  g_autofree char *bytes_path = write_file ("bytes.ply", bytes, sizeof bytes - 1);
  expect_refusal (bytes_path, CWB_MESH_ERROR_FORMAT, "byte 0xa4");

  /* Assimp read the leading digits of the name as a count and asked for 80 GB. */
  const char digits[] = "ply\nformat ascii 1.0\nelement 1111111111111111vertex 3\n"
                        "property float x\nproperty float y\nproperty float z\nend_header\n"
                        "0 0 0\n1 0 0\n0 1 0\n";
  g_autofree char *digits_path = write_file ("digits.ply", digits, sizeof digits - 1);
  expect_refusal (digits_path, CWB_MESH_ERROR_FORMAT, "starts with a letter");

  const char header[] = "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
                        "property float x\nproperty float y\nproperty float z\n"
                        "element face 2\nproperty list uchar int vertex_indices\nend_header\n";
  const float vertices[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
  GString *file = g_string_new_len (header, sizeof header - 1);
  g_string_append_len (file, (const char *) vertices, sizeof vertices);
  g_string_append_c (file, 0);   /* two faces of no vertex */
  g_string_append_c (file, 0);
  g_autofree char *empty_path = write_file ("empty-faces.ply", file->str, file->len);
  g_string_free (file, TRUE);
  expect_refusal (empty_path, CWB_MESH_ERROR_FORMAT, "has no vertices");
}

/* A grid of n x n squares (2 n^2 triangles, an open sheet) as OBJ text: a file large enough
 * that its import takes a while. */
static char *
write_grid (const char *name, int n)
{
  GString *obj = g_string_new (NULL);
  for (int i = 0; i <= n; i++)
    for (int j = 0; j <= n; j++)
      g_string_append_printf (obj, "v %d %d 0\n", i, j);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      {
        int a = i * (n + 1) + j + 1, b = a + 1, c = a + n + 1, d = c + 1;
        g_string_append_printf (obj, "f %d %d %d\nf %d %d %d\n", a, c, b, b, c, d);
      }
  char *path = write_file (name, obj->str, obj->len);
  g_string_free (obj, TRUE);
  return path;
}

typedef struct Reports {
  int calls, cancel_at;
  double last;
  gboolean monotone;
} Reports;

static gboolean
record_report (const char *what, double fraction, void *data)
{
  Reports *r = data;
  r->calls++;
  g_assert_nonnull (strstr (what, "importing"));
  g_assert_cmpfloat (fraction, >=, 0);
  g_assert_cmpfloat (fraction, <=, 1);
  r->monotone = r->monotone && fraction >= r->last;
  r->last = fraction;
  return r->calls != r->cancel_at;
}

/* A long import reports how far it got and can be cancelled (issue 17: long builds show
 * progress and stop on Ctrl-C or Cancel). Without a cancel it loads the whole mesh; a
 * cancel at the first report returns at once; one later, while the importer runs on its
 * thread, returns without waiting for it (if the importer finished first, the mesh is
 * whole: the test cannot make the importer slower). */
static void
test_import_progress_and_cancel (void)
{
  g_autofree char *path = write_grid ("grid.obj", 300);
  Reports all = { .cancel_at = -1, .monotone = TRUE };
  CwbMeshProgress progress = { record_report, &all };
  g_autoptr (GError) error = NULL;
  g_autoptr (CwbMesh) mesh = cwb_mesh_load_with_progress (path, 1.0, &progress, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cwb_mesh_n_triangles (mesh), ==, 2 * 300 * 300);
  g_assert_cmpint (all.calls, >=, 1);
  g_assert_true (all.monotone);

  Reports first = { .cancel_at = 1, .monotone = TRUE };
  progress.data = &first;
  g_autoptr (CwbMesh) none = cwb_mesh_load_with_progress (path, 1.0, &progress, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  Reports later = { .cancel_at = 2, .monotone = TRUE };
  progress.data = &later;
  g_autoptr (CwbMesh) maybe = cwb_mesh_load_with_progress (path, 1.0, &progress, &error);
  if (maybe == NULL)
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  else
    g_assert_cmpuint (cwb_mesh_n_triangles (maybe), ==, 2 * 300 * 300);
  g_test_message ("cancel at the second report: %s after %d reports",
                  maybe == NULL ? "cancelled" : "the import had finished", later.calls);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autoptr (GError) error = NULL;
  folder = g_dir_make_tmp ("cwb-mesh-hostile-XXXXXX", &error);
  g_assert_no_error (error);
  g_test_add_func ("/mesh/hostile/face-index-out-of-range", test_face_index_out_of_range);
  g_test_add_func ("/mesh/hostile/ply-header-cut", test_ply_header_cut);
  g_test_add_func ("/mesh/hostile/ply-counts-beyond-file", test_ply_counts_beyond_file);
  g_test_add_func ("/mesh/hostile/ply-binary-loads", test_ply_binary_loads);
  g_test_add_func ("/mesh/hostile/fifos", test_fifos);
  g_test_add_func ("/mesh/hostile/coordinates", test_coordinates);
  g_test_add_func ("/mesh/hostile/fuzzer-findings", test_fuzzer_findings);
  g_test_add_func ("/mesh/import/progress-and-cancel", test_import_progress_and_cancel);
  int status = g_test_run ();
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_unlink (path);
    }
  g_rmdir (folder);
  g_free (folder);
  return status;
}

/* libFuzzer target: mesh import (cwb_mesh_load: mesh_guard.c, then Assimp). The first byte
 * picks the format by the file's extension (OBJ, PLY, STL; Assimp reads by extension and
 * content), the rest is the file. Either a mesh loads, with every triangle naming one of its
 * vertices and every vertex finite, or it is refused with a CWB_MESH_ERROR. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "mesh.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *folder;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  folder = g_dir_make_tmp ("cwb-fuzz-mesh-XXXXXX", NULL);
  return folder != NULL ? 0 : 1;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char *const extensions[] = { "obj", "ply", "stl" };
  if (size < 1)
    return 0;
  char name[32];
  g_snprintf (name, sizeof name, "input.%s", extensions[data[0] % 3]);
  char *path = g_build_filename (folder, name, NULL);
  if (!g_file_set_contents (path, (const char *) data + 1, (gssize) size - 1, NULL))
    abort ();
  GError *error = NULL;
  CwbMesh *mesh = cwb_mesh_load (path, 1.0, &error);
  if (mesh == NULL)
    {
      if (error == NULL || error->domain != CWB_MESH_ERROR)
        abort ();
      g_error_free (error);
    }
  else
    {
      size_t n = cwb_mesh_n_vertices (mesh);
      for (size_t k = 0; k < mesh->triangles->len; k++)
        if (g_array_index (mesh->triangles, uint32_t, k) >= n)
          abort ();
      for (size_t k = 0; k < mesh->vertices->len; k++)
        if (!isfinite (g_array_index (mesh->vertices, double, k)))
          abort ();
      cwb_mesh_free (mesh);
    }
  g_unlink (path);
  g_free (path);
  return 0;
}

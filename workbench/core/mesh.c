/* Triangle meshes: import through Assimp's C API, welding, topology checks (edge map),
 * volume by the divergence theorem, and the borrowed view the plugin ABI uses. */
#include "mesh.h"
#include "mesh_guard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cwb/vecmath.h>

G_DEFINE_QUARK (cwb-mesh-error-quark, cwb_mesh_error)

CwbMesh *
cwb_mesh_new (const char *source)
{
  CwbMesh *mesh = g_new0 (CwbMesh, 1);
  mesh->vertices = g_array_new (FALSE, FALSE, sizeof (double));
  mesh->triangles = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  mesh->source = g_strdup (source != NULL ? source : "mesh");
  return mesh;
}

void
cwb_mesh_free (CwbMesh *mesh)
{
  if (mesh == NULL)
    return;
  g_array_unref (mesh->vertices);
  g_array_unref (mesh->triangles);
  g_free (mesh->source);
  g_free (mesh);
}

static const double *
mesh_vertex (const CwbMesh *mesh, size_t i)
{
  return &g_array_index (mesh->vertices, double, 3 * i);
}

void
cwb_mesh_bounds (const CwbMesh *mesh, double min[3], double max[3])
{
  size_t n = cwb_mesh_n_vertices (mesh);
  for (int k = 0; k < 3; k++)
    {
      min[k] = n > 0 ? INFINITY : 0;
      max[k] = n > 0 ? -INFINITY : 0;
    }
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      {
        double x = mesh_vertex (mesh, i)[k];
        min[k] = fmin (min[k], x);
        max[k] = fmax (max[k], x);
      }
}

/* ---- welding -------------------------------------------------------------------------- */

typedef struct CellKey {
  gint64 c[3];
} CellKey;

static guint
cell_hash (gconstpointer p)
{
  const CellKey *k = p;
  guint64 h = (guint64) k->c[0] * 73856093u ^ (guint64) k->c[1] * 19349663u
              ^ (guint64) k->c[2] * 83492791u;
  return (guint) (h ^ (h >> 32));
}

static gboolean
cell_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (CellKey)) == 0;
}

/* The cell of p among cells of side `tolerance` from `origin` (the mesh's lowest corner, so
 * that the cell numbers stay below extent / tolerance whatever the coordinates' size). */
static CellKey
cell_of (const double p[3], const double origin[3], double tolerance)
{
  CellKey key;
  for (int k = 0; k < 3; k++)
    {
      if (tolerance > 0)
        key.c[k] = (gint64) floor ((p[k] - origin[k]) / tolerance);
      else
        {
          double x = p[k] + 0.0;   /* -0.0 and 0.0 are one point */
          memcpy (&key.c[k], &x, sizeof x);
        }
    }
  return key;
}

void
cwb_mesh_weld (CwbMesh *mesh, double tolerance)
{
  size_t n = cwb_mesh_n_vertices (mesh);
  /* Representatives are bucketed by cells of size tolerance, so any vertex within
   * tolerance of one lies in the 27 cells around its own. Chains per cell: head in the
   * table (index + 1), the rest in next[]. */
  double origin[3], top[3];
  cwb_mesh_bounds (mesh, origin, top);
  /* Cell numbers are extent / tolerance at most; past 2^52 (a tolerance far below the
   * coordinates' resolution) cells stop meaning anything, so weld exact duplicates only. */
  for (int k = 0; k < 3; k++)
    if (!(top[k] - origin[k] < 0x1p52 * tolerance))
      tolerance = 0;
  GHashTable *cells = g_hash_table_new_full (cell_hash, cell_equal, g_free, NULL);
  g_autofree uint32_t *remap = g_new (uint32_t, n > 0 ? n : 1);
  g_autofree uint32_t *next = g_new (uint32_t, n > 0 ? n : 1);
  GArray *welded = g_array_sized_new (FALSE, FALSE, sizeof (double), 3 * (guint) n);
  uint32_t n_welded = 0;
  int reach = tolerance > 0 ? 1 : 0;

  for (size_t i = 0; i < n; i++)
    {
      const double *p = mesh_vertex (mesh, i);
      CellKey home = cell_of (p, origin, tolerance);
      uint32_t found = UINT32_MAX;
      for (int dx = -reach; dx <= reach && found == UINT32_MAX; dx++)
        for (int dy = -reach; dy <= reach && found == UINT32_MAX; dy++)
          for (int dz = -reach; dz <= reach && found == UINT32_MAX; dz++)
            {
              CellKey key = { { home.c[0] + dx, home.c[1] + dy, home.c[2] + dz } };
              guint head = GPOINTER_TO_UINT (g_hash_table_lookup (cells, &key));
              for (uint32_t j = head; j != 0; j = next[j - 1])
                {
                  double d[3];
                  cwb_v3_sub (d, p, &g_array_index (welded, double, 3 * (j - 1)));
                  if (cwb_v3_norm (d) <= tolerance)
                    {
                      found = j - 1;
                      break;
                    }
                }
            }
      if (found == UINT32_MAX)
        {
          found = n_welded++;
          g_array_append_vals (welded, p, 3);
          CellKey *key = g_memdup2 (&home, sizeof home);
          next[found] = GPOINTER_TO_UINT (g_hash_table_lookup (cells, key));
          g_hash_table_replace (cells, key, GUINT_TO_POINTER (found + 1));
        }
      remap[i] = found;
    }
  g_hash_table_unref (cells);

  /* Triangles that lost a vertex to the merge, then vertices no triangle uses. */
  GArray *triangles = g_array_sized_new (FALSE, FALSE, sizeof (uint32_t), mesh->triangles->len);
  g_autofree uint32_t *used = g_new0 (uint32_t, n_welded > 0 ? n_welded : 1);
  for (size_t t = 0; t < cwb_mesh_n_triangles (mesh); t++)
    {
      const uint32_t *tri = &g_array_index (mesh->triangles, uint32_t, 3 * t);
      uint32_t a = remap[tri[0]], b = remap[tri[1]], c = remap[tri[2]];
      if (a == b || b == c || c == a)
        continue;
      uint32_t v[3] = { a, b, c };
      g_array_append_vals (triangles, v, 3);
      used[a] = used[b] = used[c] = 1;
    }
  GArray *vertices = g_array_sized_new (FALSE, FALSE, sizeof (double), 3 * n_welded);
  uint32_t n_kept = 0;
  for (uint32_t v = 0; v < n_welded; v++)
    if (used[v])
      {
        g_array_append_vals (vertices, &g_array_index (welded, double, 3 * v), 3);
        used[v] = ++n_kept;   /* new index + 1 */
      }
  for (guint k = 0; k < triangles->len; k++)
    g_array_index (triangles, uint32_t, k) = used[g_array_index (triangles, uint32_t, k)] - 1;
  g_array_unref (welded);

  g_array_unref (mesh->vertices);
  g_array_unref (mesh->triangles);
  mesh->vertices = vertices;
  mesh->triangles = triangles;
}

/* ---- topology ------------------------------------------------------------------------- */

/* One directed triangle edge, keyed by its undirected vertex pair. */
typedef struct HalfEdge {
  guint64 key;   /* min << 32 | max */
  int forward;   /* +1 when the triangle runs min -> max, -1 otherwise */
} HalfEdge;

static int
half_edge_compare (const void *a, const void *b)
{
  guint64 ka = ((const HalfEdge *) a)->key, kb = ((const HalfEdge *) b)->key;
  return ka < kb ? -1 : ka > kb;
}

void
cwb_mesh_check (CwbMesh *mesh)
{
  size_t n_tri = cwb_mesh_n_triangles (mesh);
  g_autofree HalfEdge *edges = g_new (HalfEdge, 3 * n_tri + 1);
  for (size_t t = 0; t < n_tri; t++)
    for (int e = 0; e < 3; e++)
      {
        uint32_t a = g_array_index (mesh->triangles, uint32_t, 3 * t + e);
        uint32_t b = g_array_index (mesh->triangles, uint32_t, 3 * t + (e + 1) % 3);
        edges[3 * t + e].key = (guint64) MIN (a, b) << 32 | MAX (a, b);
        edges[3 * t + e].forward = a < b ? 1 : -1;
      }
  qsort (edges, 3 * n_tri, sizeof (HalfEdge), half_edge_compare);

  mesh->boundary_edges = mesh->nonmanifold_edges = mesh->inconsistent_edges = 0;
  for (size_t i = 0; i < 3 * n_tri;)
    {
      size_t j = i;
      int sum = 0;
      while (j < 3 * n_tri && edges[j].key == edges[i].key)
        sum += edges[j++].forward;
      size_t uses = j - i;
      if (uses == 1)
        mesh->boundary_edges++;
      else if (uses > 2)
        mesh->nonmanifold_edges++;
      else if (sum != 0)   /* both triangles run the edge the same way */
        mesh->inconsistent_edges++;
      i = j;
    }
  mesh->closed = mesh->boundary_edges == 0 && mesh->nonmanifold_edges == 0;
}

char *
cwb_mesh_describe_problems (const CwbMesh *mesh)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  if (mesh->boundary_edges > 0)
    g_ptr_array_add (parts, g_strdup_printf ("open: %zu boundary edges", mesh->boundary_edges));
  if (mesh->nonmanifold_edges > 0)
    g_ptr_array_add (parts, g_strdup_printf ("%zu non-manifold edges",
                                             mesh->nonmanifold_edges));
  if (mesh->inconsistent_edges > 0)
    g_ptr_array_add (parts, g_strdup_printf ("%zu inconsistently oriented edges",
                                             mesh->inconsistent_edges));
  if (parts->len == 0)
    return NULL;
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (", ", (char **) parts->pdata);
}

double
cwb_mesh_volume (const CwbMesh *mesh)
{
  /* Divergence theorem: V = 1/6 sum over triangles of a . (b x c), taken about the bounding
   * box centre rather than the origin so a mesh far from the origin keeps its precision
   * (the sum is translation invariant for a closed surface). */
  double min[3], max[3], c[3];
  cwb_mesh_bounds (mesh, min, max);
  cwb_v3_add (c, min, max);
  cwb_v3_scale (c, c, 0.5);
  double sum = 0;
  for (size_t t = 0; t < cwb_mesh_n_triangles (mesh); t++)
    {
      const uint32_t *tri = &g_array_index (mesh->triangles, uint32_t, 3 * t);
      double a[3], b[3], d[3], bxd[3];
      cwb_v3_sub (a, mesh_vertex (mesh, tri[0]), c);
      cwb_v3_sub (b, mesh_vertex (mesh, tri[1]), c);
      cwb_v3_sub (d, mesh_vertex (mesh, tri[2]), c);
      cwb_v3_cross (bxd, b, d);
      sum += cwb_v3_dot (a, bxd);
    }
  return sum / 6.0;
}

void
cwb_mesh_as_surface (const CwbMesh *mesh, CwbSurfaceMesh *surface)
{
  memset (surface, 0, sizeof *surface);
  surface->struct_size = sizeof *surface;
  surface->vertices = (const double *) (void *) mesh->vertices->data;
  surface->n_vertices = cwb_mesh_n_vertices (mesh);
  surface->triangles = (const uint32_t *) (void *) mesh->triangles->data;
  surface->n_triangles = cwb_mesh_n_triangles (mesh);
  surface->closed = mesh->closed;
  surface->manifold = mesh->closed && mesh->inconsistent_edges == 0;
  surface->source = mesh->source;
}

/* ---- import --------------------------------------------------------------------------- */

/* The triangles of a node and its children, transformed into the file's frame; FALSE, with
 * the error set, when a face names a vertex its mesh does not have (the importer's own
 * validation catches that first; this keeps the copy in bounds whatever it lets through). */
static gboolean
append_node (CwbMesh *mesh, const struct aiScene *scene, const struct aiNode *node,
             struct aiMatrix4x4 parent, const char *path, int depth, GError **error)
{
  if (depth > CWB_SCENE_MAX_DEPTH)
    {
      g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT,
                   "%s: nodes nest deeper than %d levels", path, CWB_SCENE_MAX_DEPTH);
      return FALSE;
    }
  struct aiMatrix4x4 transform = parent;
  aiMultiplyMatrix4 (&transform, &node->mTransformation);
  for (unsigned m = 0; m < node->mNumMeshes; m++)
    {
      if (node->mMeshes[m] >= scene->mNumMeshes)
        {
          g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT,
                       "%s: a node names mesh %u of %u", path, node->mMeshes[m],
                       scene->mNumMeshes);
          return FALSE;
        }
      const struct aiMesh *am = scene->mMeshes[node->mMeshes[m]];
      uint32_t base = (uint32_t) cwb_mesh_n_vertices (mesh);
      for (unsigned v = 0; v < am->mNumVertices; v++)
        {
          struct aiVector3D p = am->mVertices[v];
          aiTransformVecByMatrix4 (&p, &transform);
          double x[3] = { p.x, p.y, p.z };
          g_array_append_vals (mesh->vertices, x, 3);
        }
      for (unsigned f = 0; f < am->mNumFaces; f++)
        {
          const struct aiFace *face = &am->mFaces[f];
          if (face->mNumIndices != 3)   /* points and lines: not part of a surface */
            continue;
          for (int k = 0; k < 3; k++)
            if (face->mIndices[k] >= am->mNumVertices)
              {
                g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT,
                             "%s: face %u names vertex %u, but its mesh has %u", path, f,
                             face->mIndices[k], am->mNumVertices);
                return FALSE;
              }
          uint32_t tri[3] = { base + face->mIndices[0], base + face->mIndices[1],
                              base + face->mIndices[2] };
          g_array_append_vals (mesh->triangles, tri, 3);
        }
    }
  for (unsigned c = 0; c < node->mNumChildren; c++)
    if (!append_node (mesh, scene, node->mChildren[c], transform, path, depth + 1, error))
      return FALSE;
  return TRUE;
}

/* FALSE, with the error set, when a face of the scene has no vertex. */
static gboolean
faces_have_vertices (const struct aiScene *scene, const char *path, GError **error)
{
  for (unsigned m = 0; m < scene->mNumMeshes; m++)
    for (unsigned f = 0; f < scene->mMeshes[m]->mNumFaces; f++)
      if (scene->mMeshes[m]->mFaces[f].mNumIndices == 0)
        {
          g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT,
                       "%s: face %u of mesh %u has no vertices", path, f, m);
          return FALSE;
        }
  return TRUE;
}

/* FALSE, with the error set, when a vertex is not finite or the mesh's extent overflows. */
static gboolean
check_finite (const CwbMesh *mesh, const char *path, GError **error)
{
  for (size_t i = 0; i < cwb_mesh_n_vertices (mesh); i++)
    {
      const double *x = mesh_vertex (mesh, i);
      if (!isfinite (x[0]) || !isfinite (x[1]) || !isfinite (x[2]))
        {
          g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT,
                       "%s: vertex %zu is (%g, %g, %g), expected finite coordinates (the "
                       "importer reads them in single precision: up to 3.4e38 in size)", path,
                       i, x[0], x[1], x[2]);
          return FALSE;
        }
    }
  double min[3], max[3], diagonal[3];
  cwb_mesh_bounds (mesh, min, max);
  cwb_v3_sub (diagonal, max, min);
  if (!isfinite (cwb_v3_norm (diagonal)))
    {
      g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT,
                   "%s: the mesh spans more than a double can hold (from %g to %g along x)",
                   path, min[0], max[0]);
      return FALSE;
    }
  return TRUE;
}

static void
mesh_flip (CwbMesh *mesh)
{
  for (size_t t = 0; t < cwb_mesh_n_triangles (mesh); t++)
    {
      uint32_t *tri = &g_array_index (mesh->triangles, uint32_t, 3 * t);
      uint32_t s = tri[1];
      tri[1] = tri[2];
      tri[2] = s;
    }
}

/* The import proper, after the guards: Assimp, then our copy, checks and weld. Counts the
 * bytes the importer reads into *bytes_read (may be NULL). */
static CwbMesh *
import_mesh (const char *path, double scale, gint64 *bytes_read, GError **error)
{
  /* The C API logs nothing unless a log stream is attached (aiAttachLogStream), and we
   * attach none: Assimp stays quiet on stdout; its problems reach the user through
   * aiGetErrorString in our GError. Its own validation runs first (faces naming missing
   * vertices crashed its later steps), and every file it opens goes through the guard. */
  struct aiFileIO io;
  cwb_mesh_guard_file_io (&io, bytes_read);
  const struct aiScene *scene = aiImportFileEx (path, aiProcess_ValidateDataStructure, &io);
  if (scene == NULL)
    {
      g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT, "%s: cannot import: %s", path,
                   aiGetErrorString ());
      return NULL;
    }
  /* Faces without vertices pass the validation but abort the triangulation (an assertion
   * in Assimp 5.2.5's TriangulateProcess.cpp:238, compiled in by Debian): refused before
   * the remaining steps run on the validated scene. */
  if (!faces_have_vertices (scene, path, error))
    {
      aiReleaseImport (scene);
      return NULL;
    }
  scene = aiApplyPostProcessing (scene, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices);
  if (scene == NULL)
    {
      g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT, "%s: cannot import: %s", path,
                   aiGetErrorString ());
      return NULL;
    }
  g_autoptr (CwbMesh) mesh = cwb_mesh_new (path);
  struct aiMatrix4x4 identity;
  aiIdentityMatrix4 (&identity);
  gboolean ok = scene->mRootNode == NULL
                || append_node (mesh, scene, scene->mRootNode, identity, path, 0, error);
  aiReleaseImport (scene);
  if (!ok)
    return NULL;

  for (guint k = 0; k < mesh->vertices->len; k++)
    g_array_index (mesh->vertices, double, k) *= scale;
  if (!check_finite (mesh, path, error))
    return NULL;
  double min[3], max[3], diagonal[3];
  cwb_mesh_bounds (mesh, min, max);
  cwb_v3_sub (diagonal, max, min);
  cwb_mesh_weld (mesh, CWB_MESH_WELD_TOLERANCE * cwb_v3_norm (diagonal));
  if (cwb_mesh_n_triangles (mesh) == 0)
    {
      g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_EMPTY, "%s: no triangles", path);
      return NULL;
    }
  cwb_mesh_check (mesh);
  if (mesh->closed && mesh->inconsistent_edges == 0 && cwb_mesh_volume (mesh) < 0)
    mesh_flip (mesh);
  return g_steal_pointer (&mesh);
}

/* The checks before any import: a regular, readable file, a PLY header that holds. */
static gboolean
guard_file (const char *path, GError **error)
{
  if (!cwb_mesh_guard_regular_file (path, error) || !cwb_mesh_guard_ply_header (path, error))
    return FALSE;
  if (g_access (path, R_OK) != 0)
    {
      g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_IO, "%s: cannot read the file", path);
      return FALSE;
    }
  return TRUE;
}

CwbMesh *
cwb_mesh_load (const char *path, double scale, GError **error)
{
  return guard_file (path, error) ? import_mesh (path, scale, NULL, error) : NULL;
}

/* ---- import on a thread of its own, for progress and cancel --------------------------- */

/* Shared by the importing thread and the one waiting: the last to let go frees it. */
typedef struct ImportJob {
  gint refs;
  GMutex lock;
  GCond done_cond;
  gboolean done;
  char *path;
  double scale;
  gint64 bytes_read;
  CwbMesh *mesh;
  GError *error;
} ImportJob;

/* Reports this often while the import runs. */
#define IMPORT_REPORT_US (G_USEC_PER_SEC / 10)

static void
import_job_unref (ImportJob *job)
{
  if (!g_atomic_int_dec_and_test (&job->refs))
    return;
  cwb_mesh_free (job->mesh);
  g_clear_error (&job->error);
  g_free (job->path);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->done_cond);
  g_free (job);
}

static gpointer
import_thread (gpointer data)
{
  ImportJob *job = data;
  GError *error = NULL;
  CwbMesh *mesh = import_mesh (job->path, job->scale, &job->bytes_read, &error);
  g_mutex_lock (&job->lock);
  job->mesh = mesh;
  job->error = error;
  job->done = TRUE;
  g_cond_signal (&job->done_cond);
  g_mutex_unlock (&job->lock);
  import_job_unref (job);
  return NULL;
}

CwbMesh *
cwb_mesh_load_with_progress (const char *path, double scale, const CwbMeshProgress *progress,
                             GError **error)
{
  if (progress == NULL || progress->report == NULL)
    return cwb_mesh_load (path, scale, error);
  if (!guard_file (path, error))
    return NULL;
  GStatBuf st;
  double size = g_stat (path, &st) == 0 && st.st_size > 0 ? (double) st.st_size : 1;
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *what = g_strdup_printf ("importing %s", base);
  if (!progress->report (what, 0, progress->data))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: import cancelled", path);
      return NULL;
    }
  ImportJob *job = g_new0 (ImportJob, 1);
  job->refs = 2;
  g_mutex_init (&job->lock);
  g_cond_init (&job->done_cond);
  job->path = g_strdup (path);
  job->scale = scale;
  g_thread_unref (g_thread_new ("mesh-import", import_thread, job));

  CwbMesh *mesh = NULL;
  g_mutex_lock (&job->lock);
  while (!job->done)
    {
      gint64 until = g_get_monotonic_time () + IMPORT_REPORT_US;
      if (g_cond_wait_until (&job->done_cond, &job->lock, until) || job->done)
        continue;
      double read = MIN ((double) __atomic_load_n (&job->bytes_read, __ATOMIC_RELAXED) / size,
                         1.0);
      g_mutex_unlock (&job->lock);
      /* Assimp reads most files whole before it parses them: the fraction is the file read,
       * and the words say which part runs. */
      g_autofree char *doing = g_strdup_printf ("%s (%s)", what, read < 1 ? "reading" : "parsing");
      gboolean go_on = progress->report (doing, read, progress->data);
      g_mutex_lock (&job->lock);
      if (!go_on && !job->done)
        {
          /* The importer cannot be stopped: it finishes on its thread, which frees what it
           * made when it lets go of the job. */
          g_mutex_unlock (&job->lock);
          import_job_unref (job);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: import cancelled", path);
          return NULL;
        }
    }
  mesh = g_steal_pointer (&job->mesh);
  if (mesh == NULL)
    g_propagate_error (error, g_steal_pointer (&job->error));
  g_mutex_unlock (&job->lock);
  import_job_unref (job);
  return mesh;
}

/* The rest compliance C0, its cache and its warping (rest_compliance.h). */
#include <errno.h>
#include <string.h>

#include <cblas.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "linear_solve.h"
#include "rest_compliance.h"

#define FEM_ERROR (g_quark_from_string ("fem"))

/* The cache file: this header, then C0 row-major in doubles. The header is 64 bytes so the
 * matrix stays aligned for vector loads when the file is mapped. */
#define CACHE_MAGIC "CWB-C0\0\1"
#define CACHE_VERSION 1
typedef struct CacheHeader {
  char magic[8];
  guint64 version;
  guint64 n;           /* C0 is n x n */
  guint64 reserved;
  guint8 digest[32];   /* SHA-256 of the key, against a file renamed by hand */
} CacheHeader;
G_STATIC_ASSERT (sizeof (CacheHeader) == 64);

/* Identity columns solved per CHOLMOD call: enough to use its blocked triangular solves,
 * few enough that progress updates come several times a second on large meshes. */
#define COLUMNS_PER_SOLVE 48

struct RestCompliance {
  size_t n;
  double h;
  const double *c0;       /* n x n, row-major (symmetric) */
  double *owned;          /* when computed without a cache */
  GMappedFile *mapped;    /* when read from (or just written to) the cache */
  gboolean from_cache;
};

void
rest_compliance_free (RestCompliance *c0)
{
  if (c0 == NULL)
    return;
  g_free (c0->owned);
  if (c0->mapped != NULL)
    g_mapped_file_unref (c0->mapped);
  g_free (c0);
}

double
rest_compliance_h (const RestCompliance *c0)
{
  return c0->h;
}

gboolean
rest_compliance_from_cache (const RestCompliance *c0)
{
  return c0->from_cache;
}

double
rest_compliance_entry (const RestCompliance *c0, size_t i, size_t j)
{
  return c0->c0[i * c0->n + j];
}

static void
key_digest (GBytes *key, guint8 digest[32])
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize size;
  const guint8 *data = g_bytes_get_data (key, &size);
  g_checksum_update (sum, data, (gssize) size);
  gsize len = 32;
  g_checksum_get_digest (sum, digest, &len);
}

static char *
cache_path (const RestComplianceSource *source, const guint8 digest[32])
{
  if (!source->use_cache || source->host == NULL || source->host->cache_dir == NULL)
    return NULL;
  const char *dir = source->host->cache_dir (source->host->host_data);
  if (dir == NULL)
    return NULL;
  g_autoptr (GString) name = g_string_new ("fem-c0-");
  for (int k = 0; k < 32; k++)
    g_string_append_printf (name, "%02x", digest[k]);
  g_string_append (name, ".bin");
  return g_build_filename (dir, name->str, NULL);
}

/* The cached C0 when the file exists and is whole and ours; NULL otherwise (a damaged file
 * is recomputed and replaced, never trusted). */
static GMappedFile *
cache_open (const char *path, size_t n, const guint8 digest[32])
{
  g_autoptr (GError) error = NULL;
  GMappedFile *file = g_mapped_file_new (path, FALSE, &error);
  if (file == NULL)
    return NULL;
  const CacheHeader *header = (const CacheHeader *) g_mapped_file_get_contents (file);
  gsize size = g_mapped_file_get_length (file);
  if (size != sizeof (CacheHeader) + n * n * sizeof (double)
      || memcmp (header->magic, CACHE_MAGIC, 8) != 0 || header->version != CACHE_VERSION
      || header->n != n || memcmp (header->digest, digest, 32) != 0)
    {
      g_message ("%s: not a usable compliance cache for this body; recomputing", path);
      g_mapped_file_unref (file);
      return NULL;
    }
  return file;
}

/* Writes the cache atomically (a temporary file renamed over the name), so a crash or a
 * full disk never leaves a half-written file under the final name. Failure only costs the
 * next load its speed: it is reported and the run goes on. */
static void
cache_store (const char *path, const double *c0, size_t n, const guint8 digest[32])
{
  gsize size = sizeof (CacheHeader) + n * n * sizeof (double);
  g_autofree guint8 *data = g_malloc (size);
  CacheHeader header = { .version = CACHE_VERSION, .n = n };
  memcpy (header.magic, CACHE_MAGIC, 8);
  memcpy (header.digest, digest, 32);
  memcpy (data, &header, sizeof header);
  memcpy (data + sizeof header, c0, n * n * sizeof (double));
  g_autoptr (GError) error = NULL;
  if (!g_file_set_contents_full (path, (const char *) data, (gssize) size,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    g_warning ("compliance cache %s not written: %s", path, error->message);
}

static gboolean
report_progress (const RestComplianceSource *source, double fraction)
{
  if (source->host == NULL || source->host->progress == NULL)
    return TRUE;
  return source->host->progress (source->host->host_data, source->what, fraction);
}

static void
set_cancelled (const RestComplianceSource *source, GError **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s: cancelled", source->what);
}

/* C0 = h^2 A0^-1, column chunk by column chunk. */
static double *
compute (const RestComplianceSource *source, GError **error)
{
  size_t n = 3 * source->a0->n;
  if (!report_progress (source, 0))
    {
      set_cancelled (source, error);
      return NULL;
    }
  g_autoptr (BlockCholesky) ch = block_cholesky_new (source->a0);
  if (!block_cholesky_factor (ch, source->a0, error))
    return NULL;
  g_autofree double *c0 = g_new (double, n * n);
  g_autofree double *rhs = g_new0 (double, n * COLUMNS_PER_SOLVE);
  for (size_t first = 0; first < n; first += COLUMNS_PER_SOLVE)
    {
      size_t count = MIN (COLUMNS_PER_SOLVE, n - first);
      memset (rhs, 0, n * count * sizeof (double));
      for (size_t c = 0; c < count; c++)
        rhs[c * n + first + c] = 1;
      /* Columns first .. first + count - 1 of A0^-1, which by symmetry are also its rows:
       * stored straight into the row-major C0. */
      block_cholesky_solve (ch, rhs, c0 + first * n, count);
      if (!report_progress (source, (double) (first + count) / n))
        {
          set_cancelled (source, error);
          return NULL;
        }
    }
  double h2 = source->h * source->h;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      {
        gboolean fixed = source->fixed[i / 3] || source->fixed[j / 3];
        c0[i * n + j] = fixed ? 0 : h2 * c0[i * n + j];
      }
  return g_steal_pointer (&c0);
}

RestCompliance *
rest_compliance_new (const RestComplianceSource *source, GError **error)
{
  size_t n = 3 * source->a0->n;
  guint8 digest[32];
  key_digest (source->key, digest);
  g_autofree char *path = cache_path (source, digest);

  g_autoptr (RestCompliance) c0 = g_new0 (RestCompliance, 1);
  c0->n = n;
  c0->h = source->h;
  if (path != NULL && (c0->mapped = cache_open (path, n, digest)) != NULL)
    {
      c0->c0 = (const double *) (g_mapped_file_get_contents (c0->mapped)
                                 + sizeof (CacheHeader));
      c0->from_cache = TRUE;
      report_progress (source, 1);
      return g_steal_pointer (&c0);
    }

  c0->owned = compute (source, error);
  if (c0->owned == NULL)
    return NULL;
  c0->c0 = c0->owned;
  if (path != NULL)
    {
      cache_store (path, c0->owned, n, digest);
      /* Map the file just written and drop the private copy, so that other bodies loading
       * the same C0 share these pages. */
      GMappedFile *mapped = cache_open (path, n, digest);
      if (mapped != NULL)
        {
          c0->mapped = mapped;
          c0->c0 = (const double *) (g_mapped_file_get_contents (mapped) + sizeof (CacheHeader));
          g_clear_pointer (&c0->owned, g_free);
        }
    }
  return g_steal_pointer (&c0);
}

/* y = R x for one node's 3-vector (transpose: y = R^T x). */
static void
rotate (const double *r, const double *x, double *y, gboolean transpose)
{
  for (int a = 0; a < 3; a++)
    y[a] = transpose ? r[a] * x[0] + r[3 + a] * x[1] + r[6 + a] * x[2]
                     : r[3 * a] * x[0] + r[3 * a + 1] * x[1] + r[3 * a + 2] * x[2];
}

void
rest_compliance_apply (const RestCompliance *c0, const double *node_rotations,
                       const double *r, double *dq)
{
  size_t n = c0->n;
  memset (dq, 0, n * sizeof (double));
  for (size_t node = 0; node < n / 3; node++)
    {
      const double *ri = &r[3 * node];
      if (ri[0] == 0 && ri[1] == 0 && ri[2] == 0)
        continue;
      /* Step 1 of sec. 3.2: the force in the rest frame, r0 = R^T r. */
      double r0[3];
      if (node_rotations != NULL)
        rotate (&node_rotations[9 * node], ri, r0, TRUE);
      else
        memcpy (r0, ri, sizeof r0);
      /* Step 2: dx0 += C0 r0, through this node's three rows (C0 is symmetric), gathered in
       * dq itself. */
      for (int a = 0; a < 3; a++)
        if (r0[a] != 0)
          cblas_daxpy ((int) n, r0[a], &c0->c0[(3 * node + a) * n], 1, dq, 1);
    }
  /* Step 3: back to the current frame, dx = R dx0, node by node in place. */
  if (node_rotations != NULL)
    for (size_t node = 0; node < n / 3; node++)
      {
        double dx0[3];
        memcpy (dx0, &dq[3 * node], sizeof dx0);
        rotate (&node_rotations[9 * node], dx0, &dq[3 * node], FALSE);
      }
}

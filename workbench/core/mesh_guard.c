/* Checks around mesh import (see the header). */
#include "mesh_guard.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

/* A PLY header longer than this is not one (real headers take a few hundred bytes). */
#define PLY_HEADER_MAX 65536

gboolean
cwb_mesh_guard_regular_file (const char *path, GError **error)
{
  GStatBuf st;
  if (g_stat (path, &st) != 0)
    {
      int err = errno;
      g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_IO, "%s: %s", path,
                   err == ENOENT ? "no such file" : g_strerror (err));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      const char *what = S_ISDIR (st.st_mode)    ? "a folder"
                         : S_ISFIFO (st.st_mode) ? "a FIFO (named pipe)"
                         : S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode) ? "a device"
                         : S_ISSOCK (st.st_mode) ? "a socket"
                                                 : "not a regular file";
      g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_IO,
                   "%s: cannot read a mesh from %s, expected a regular file", path, what);
      return FALSE;
    }
  return TRUE;
}

/* ---- PLY headers ------------------------------------------------------------------------- */

/* Bytes of a PLY scalar type in a binary file; 0 for an unknown type. */
static int
ply_type_size (const char *type)
{
  static const struct { const char *name; int size; } types[] = {
    { "char", 1 }, { "uchar", 1 }, { "int8", 1 }, { "uint8", 1 },
    { "short", 2 }, { "ushort", 2 }, { "int16", 2 }, { "uint16", 2 },
    { "int", 4 }, { "uint", 4 }, { "int32", 4 }, { "uint32", 4 }, { "float", 4 },
    { "float32", 4 }, { "double", 8 }, { "float64", 8 },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (types); k++)
    if (strcmp (type, types[k].name) == 0)
      return types[k].size;
  return 0;
}

/* A PLY element or property name: letters, digits and _, starting with a letter (Assimp
 * 5.2.5 read the leading digits of "111...vertex" as a count and asked for 80 GB). */
static gboolean
ply_name (const char *name)
{
  if (!g_ascii_isalpha (name[0]) && name[0] != '_')
    return FALSE;
  for (const char *c = name; *c != '\0'; c++)
    if (!g_ascii_isalnum (*c) && *c != '_')
      return FALSE;
  return TRUE;
}

static gboolean
ply_fail (GError **error, const char *path, int line, const char *what)
{
  g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT, "%s:%d: PLY header: %s", path,
               line, what);
  return FALSE;
}

/* An ASCII PLY body is ASCII text (Assimp 5.2.5's reader hung on other bytes in it). */
static gboolean
ascii_text (const char *path, long from, GError **error)
{
  FILE *file = fopen (path, "rb");
  if (file == NULL || fseek (file, from, SEEK_SET) != 0)
    {
      if (file != NULL)
        fclose (file);
      return TRUE;
    }
  int c, line = 0;
  long at = from;
  gboolean ok = TRUE;
  while ((c = getc (file)) != EOF)
    {
      if (c == '\n')
        line++;
      else if (!(c == '\t' || c == '\r' || c == '\f' || c == '\v' || (c >= 0x20 && c < 0x7f)))
        {
          g_set_error (error, CWB_MESH_ERROR, CWB_MESH_ERROR_FORMAT,
                       "%s: ASCII PLY: byte 0x%02x at offset %ld (line %d after the header), "
                       "expected text", path, (unsigned) c, at, line + 1);
          ok = FALSE;
          break;
        }
      at++;
    }
  fclose (file);
  return ok;
}

gboolean
cwb_mesh_guard_ply_header (const char *path, GError **error)
{
  FILE *file = fopen (path, "rb");
  if (file == NULL)
    return TRUE;   /* the importer says why it cannot read it */
  g_autofree char *head = g_malloc (PLY_HEADER_MAX + 1);
  size_t got = fread (head, 1, PLY_HEADER_MAX, file);
  fseek (file, 0, SEEK_END);
  long size = ftell (file);
  fclose (file);
  head[got] = '\0';
  /* Assimp takes a file for PLY by its extension or its first bytes; either way its header
   * must be one (it looped on "plyPPP..." as a first line). */
  gboolean named_ply = g_str_has_suffix (path, ".ply") || g_str_has_suffix (path, ".PLY");
  if (!named_ply && (got < 3 || strncmp (head, "ply", 3) != 0))
    return TRUE;   /* not PLY */
  if (got < 4 || strncmp (head, "ply", 3) != 0
      || !(head[3] == '\n' || (head[3] == '\r' && got > 4 && head[4] == '\n')))
    return ply_fail (error, path, 1, "expected \"ply\" alone on the first line");

  /* A NUL ends the search: a binary body may follow end_header, but the header is text. */
  char *end = strstr (head, "\nend_header");
  if (end == NULL)
    {
      int lines = 1;
      for (size_t k = 0; k < got; k++)
        lines += head[k] == '\n';
      return ply_fail (error, path, lines,
                       "no end_header line (cut off?), expected the header to end within "
                       "64 KiB");
    }
  /* The line is "end_header" alone: Assimp 5.2.5's reader looped on text after it. */
  const char *after = end + strlen ("\nend_header");
  if (*after == '\r')
    after++;
  if (*after != '\n' && *after != '\0')
    {
      int line = 2;
      for (const char *c = head; c < end; c++)
        line += *c == '\n';
      return ply_fail (error, path, line, "expected \"end_header\" alone on its line");
    }
  long header_bytes = *after == '\n' ? (long) (after + 1 - head) : (long) got;
  end[1] = '\0';   /* the header's lines, end_header left out */

  g_auto (GStrv) lines = g_strsplit (head, "\n", -1);
  gboolean binary = FALSE;
  guint64 need = 0;         /* bytes the elements take at least */
  guint64 count = 0;        /* items of the element being declared */
  guint64 item_bytes = 0;   /* its least bytes per item */
  g_autofree char *element = NULL;
  for (int l = 1; lines[l] != NULL; l++)
    {
      g_strchomp (lines[l]);
      g_auto (GStrv) w = g_strsplit_set (lines[l], " \t", -1);
      guint n = 0;
      for (guint k = 0; w[k] != NULL; k++)
        if (w[k][0] != '\0')
          w[n++] = w[k];
        else
          g_free (w[k]);
      w[n] = NULL;
      int line = l + 1;
      if (n == 0 || strcmp (w[0], "comment") == 0 || strcmp (w[0], "obj_info") == 0)
        continue;
      if (strcmp (w[0], "format") == 0 && n >= 2)
        binary = strcmp (w[1], "ascii") != 0;
      else if (strcmp (w[0], "element") == 0)
        {
          guint64 c;
          if (n != 3 || !ply_name (w[1])
              || !g_ascii_string_to_unsigned (w[2], 10, 0, G_MAXINT32, &c, NULL))
            return ply_fail (error, path, line,
                             "expected \"element NAME COUNT\" with a name of letters, digits "
                             "and _ that starts with a letter, and a count up to 2^31 - 1");
          need += count * item_bytes;
          g_free (element);
          element = g_strdup (w[1]);
          count = c;
          item_bytes = 0;
        }
      else if (strcmp (w[0], "property") == 0)
        {
          gboolean list = n >= 2 && strcmp (w[1], "list") == 0;
          if (element == NULL || n != (list ? 5u : 3u)
              || ply_type_size (w[list ? 2 : 1]) == 0
              || (list && ply_type_size (w[3]) == 0) || !ply_name (w[n - 1]))
            return ply_fail (error, path, line,
                             "expected \"property TYPE NAME\" or \"property list TYPE TYPE "
                             "NAME\" with PLY types (char, uchar, short, ushort, int, uint, "
                             "float, double) after an element");
          /* Binary: the scalar, or a list's count; ASCII: a digit and a separator. */
          item_bytes += binary ? (guint64) ply_type_size (w[list ? 2 : 1]) : 2;
        }
      else
        {
          g_autofree char *what = g_strdup_printf ("unknown line \"%s\"", w[0]);
          return ply_fail (error, path, line, what);
        }
    }
  need += count * item_bytes;
  guint64 body = size > header_bytes ? (guint64) (size - header_bytes) : 0;
  if (!binary && !ascii_text (path, header_bytes, error))
    return FALSE;
  /* An ASCII file's last value may go without its separator: one byte of slack. */
  if (need > body + 1)
    {
      g_autofree char *what = g_strdup_printf (
        "its elements take at least %" G_GUINT64_FORMAT " bytes, but the file has %"
        G_GUINT64_FORMAT " after its header (counts larger than the file holds)", need, body);
      return ply_fail (error, path, 1, what);
    }
  return TRUE;
}

/* ---- file access for the importer ------------------------------------------------------ */

/* What an importer's file holds (its UserData). */
typedef struct GuardedFile {
  FILE *stream;
  gint64 *bytes_read;   /* shared with the aiFileIO; may be NULL */
} GuardedFile;

static FILE *
stream (struct aiFile *file)
{
  return ((GuardedFile *) (void *) file->UserData)->stream;
}

static size_t
file_read (struct aiFile *file, char *buffer, size_t size, size_t count)
{
  size_t n = fread (buffer, size, count, stream (file));
  gint64 *bytes_read = ((GuardedFile *) (void *) file->UserData)->bytes_read;
  if (bytes_read != NULL)
    __atomic_fetch_add (bytes_read, (gint64) (n * size), __ATOMIC_RELAXED);
  return n;
}

static size_t
file_write (struct aiFile *file, const char *buffer, size_t size, size_t count)
{
  return 0;   /* import only reads */
}

static size_t
file_tell (struct aiFile *file)
{
  long at = ftell (stream (file));
  return at < 0 ? 0 : (size_t) at;
}

static size_t
file_size (struct aiFile *file)
{
  FILE *f = stream (file);
  long at = ftell (f);
  fseek (f, 0, SEEK_END);
  long size = ftell (f);
  fseek (f, at, SEEK_SET);
  return size < 0 ? 0 : (size_t) size;
}

static enum aiReturn
file_seek (struct aiFile *file, size_t offset, enum aiOrigin origin)
{
  int whence = origin == aiOrigin_CUR ? SEEK_CUR : origin == aiOrigin_END ? SEEK_END : SEEK_SET;
  return fseek (stream (file), (long) offset, whence) == 0 ? aiReturn_SUCCESS
                                                                      : aiReturn_FAILURE;
}

static void
file_flush (struct aiFile *file)
{
}

static struct aiFile *
file_open (struct aiFileIO *io, const char *path, const char *mode)
{
  /* Anything but a regular file reads as missing: the importer's open of a FIFO (a mesh,
   * or a material file an OBJ names) would block forever. */
  if (!cwb_mesh_guard_regular_file (path, NULL) || strchr (mode, 'w') != NULL)
    return NULL;
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return NULL;
  GuardedFile *guarded = g_new0 (GuardedFile, 1);
  guarded->stream = f;
  guarded->bytes_read = (gint64 *) (void *) io->UserData;
  struct aiFile *file = g_new0 (struct aiFile, 1);
  file->ReadProc = file_read;
  file->WriteProc = file_write;
  file->TellProc = file_tell;
  file->FileSizeProc = file_size;
  file->SeekProc = file_seek;
  file->FlushProc = file_flush;
  file->UserData = (aiUserData) guarded;
  return file;
}

static void
file_close (struct aiFileIO *io, struct aiFile *file)
{
  if (file == NULL)
    return;
  fclose (stream (file));
  g_free (file->UserData);
  g_free (file);
}

void
cwb_mesh_guard_file_io (struct aiFileIO *io, gint64 *bytes_read)
{
  *io = (struct aiFileIO) { .OpenProc = file_open, .CloseProc = file_close,
                            .UserData = (aiUserData) (void *) bytes_read };
}

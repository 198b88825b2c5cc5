/* Replacing a file's contents atomically, keeping what the file is (see the header). */
#include "file_replace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* As the kernel's own limit on nested links. */
#define MAX_LINKS_FOLLOWED 40
/* Attempts at a free name for the temporary before giving up. */
#define NAME_ATTEMPTS 100

static gboolean
fail (GError **error, const char *path, int err, const char *what)
{
  g_set_error (error, G_FILE_ERROR, err != 0 ? g_file_error_from_errno (err) : G_FILE_ERROR_FAILED,
               "%s: not saved: %s%s%s", path, what, err != 0 ? ": " : "",
               err != 0 ? g_strerror (err) : "");
  return FALSE;
}

/* The file `path` names once its symbolic links are followed (a dangling link names its
 * missing target, which the save then creates); NULL with *err set on a loop. */
static char *
resolve_links (const char *path, int *err)
{
  char *current = g_strdup (path);
  for (int k = 0; k < MAX_LINKS_FOLLOWED; k++)
    {
      GStatBuf st;
      if (g_lstat (current, &st) != 0 || !S_ISLNK (st.st_mode))
        return current;
      char *target = g_file_read_link (current, NULL);
      if (target == NULL)
        {
          *err = errno != 0 ? errno : EIO;
          g_free (current);
          return NULL;
        }
      char *next = target;
      if (!g_path_is_absolute (target))
        {
          g_autofree char *dir = g_path_get_dirname (current);
          next = g_build_filename (dir, target, NULL);
          g_free (target);
        }
      g_free (current);
      current = next;
    }
  g_free (current);
  *err = ELOOP;
  return NULL;
}

static gboolean
write_all (int fd, const char *data, gsize length)
{
  while (length > 0)
    {
      ssize_t n = write (fd, data, length);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* Gives the unnamed temporary `fd` a free name beside the target; returns it, or NULL with
 * errno set. */
static char *
name_unnamed (int fd, const char *dir, const char *base)
{
  char proc[64];
  g_snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  for (int attempt = 0; attempt < NAME_ATTEMPTS; attempt++)
    {
      char *name = g_strdup_printf ("%s/.%s%s%06x", dir, base, CWB_FILE_REPLACE_TEMP_MARK,
                                    g_random_int () & 0xffffffu);
      if (linkat (AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
        return name;
      int err = errno;
      g_free (name);
      if (err != EEXIST)
        {
          errno = err;
          return NULL;
        }
    }
  errno = EEXIST;
  return NULL;
}

/* Removes the temporaries that saves of this file killed between naming and renaming left
 * in its folder (the only moment a named one exists on a file system with O_TMPFILE). */
static void
remove_leftovers (const char *dir, const char *base)
{
  g_autoptr (GDir) folder = g_dir_open (dir, 0, NULL);
  if (folder == NULL)
    return;
  g_autofree char *prefix = g_strconcat (".", base, CWB_FILE_REPLACE_TEMP_MARK, NULL);
  const char *name;
  while ((name = g_dir_read_name (folder)) != NULL)
    if (g_str_has_prefix (name, prefix) && strlen (name) == strlen (prefix) + 6)
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);
        g_unlink (path);
      }
}

/* The target's folder flushed, so that the rename itself survives a crash. */
static void
sync_folder (const char *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

gboolean
cwb_file_replace (const char *path, const char *data, gsize length, GError **error)
{
  int err = 0;
  g_autofree char *target = resolve_links (path, &err);
  if (target == NULL)
    return fail (error, path, err, "its symbolic links cannot be followed");
  GStatBuf st;
  gboolean exists = g_stat (target, &st) == 0;
  if (!exists && errno != ENOENT)
    return fail (error, path, errno, "cannot inspect it");
  if (exists)
    {
      g_autofree char *what = NULL;
      if (!S_ISREG (st.st_mode))
        return fail (error, path, 0, "not a regular file");
      if ((st.st_mode & S_IWUSR) == 0)
        {
          what = g_strdup_printf ("it is read-only (mode %04o): make it writable, or save "
                                  "under another name", (unsigned) (st.st_mode & 07777));
          return fail (error, path, 0, what);
        }
      if (st.st_nlink > 1)
        {
          what = g_strdup_printf ("it has %lu hard links, which replacing it would break: "
                                  "save under another name", (unsigned long) st.st_nlink);
          return fail (error, path, 0, what);
        }
    }

  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  char *temp = NULL;
  int fd = open (dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      /* No unnamed files here (some file systems): a named one, removed on failure. */
      temp = g_strdup_printf ("%s/.%s%sXXXXXX", dir, base, CWB_FILE_REPLACE_TEMP_MARK);
      fd = g_mkstemp_full (temp, O_WRONLY | O_CLOEXEC, 0666);
      if (fd < 0)
        {
          err = errno;
          g_free (temp);
          return fail (error, path, err, "cannot create a temporary file in its folder");
        }
    }
  const char *what = NULL;
  if (!write_all (fd, data, length) || fsync (fd) != 0)
    what = "cannot write the new text";
  else if (exists && fchmod (fd, st.st_mode & 07777) != 0)
    what = "cannot give the new file the old one's mode";
  else if (exists && (st.st_uid != geteuid () || st.st_gid != getegid ())
           && fchown (fd, st.st_uid, st.st_gid) != 0)
    what = "it belongs to another user or group, whom the new file cannot be given to";
  else if (temp == NULL && (temp = name_unnamed (fd, dir, base)) == NULL)
    what = "cannot name the new file";
  err = errno;
  close (fd);
  if (what == NULL && rename (temp, target) != 0)
    {
      what = "cannot move the new file into place";
      err = errno;
    }
  if (what != NULL)
    {
      if (temp != NULL)
        g_unlink (temp);
      g_free (temp);
      return fail (error, path, err, what);
    }
  g_free (temp);
  sync_folder (dir);
  remove_leftovers (dir, base);
  return TRUE;
}

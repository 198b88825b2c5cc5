/* Replacing a file's contents without ever losing them (issue 17: a save could leave a
 * truncated scene, make a private file world-readable, replace a symlink by a copy, break
 * hard links, overwrite a read-only file, and leave temporaries behind when killed).
 *
 * The new text goes to an unnamed temporary file in the target's folder (O_TMPFILE, which
 * vanishes if the process is killed while writing; a named one where the file system lacks
 * it), is flushed to disk, given the old file's mode and owner, then named and renamed over
 * the target in one step, and the folder is flushed: a reader or a crash sees the old
 * contents or the new, never a mix. A symlink is followed, so the link stays and its target
 * gets the text. The file is refused, unchanged, when replacing it would change what it
 * is: not a regular file, read-only (no owner write bit), hard-linked elsewhere (a rename
 * would break the links), or owned by another user whom the new file cannot be given to. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The prefix of the named temporaries (".NAME" + this + six random characters), so that a
 * folder's leftovers from a killed save can be told from the user's files. */
#define CWB_FILE_REPLACE_TEMP_MARK ".cwb-save-"

/* Replaces the contents of `path` (created when missing, with mode 0666 less the umask) by
 * `length` bytes of `data`. On failure the file is as it was and no temporary is left; the
 * error (G_FILE_ERROR) names the file and the reason. */
gboolean cwb_file_replace (const char *path, const char *data, gsize length, GError **error);

G_END_DECLS

/* What mesh import checks before and around Assimp (issue 17, item 4), where Assimp 5.2.5
 * (Debian 12) crashes or hangs on bad input:
 *   - only regular files are read, by the importer's every open (the mesh and what it names,
 *     such as an OBJ's mtllib): a FIFO or a device blocked the import forever;
 *   - a PLY header is read first: cut off before end_header (83 bytes, "property fl") it sent
 *     Assimp's reader into an endless loop, and element counts that the file is too short
 *     to hold (1e7 faces in 353 bytes) made it allocate 1.3 GB before failing.
 * Each refusal is a CWB_MESH_ERROR with the file, and the line or the count at fault. */
#pragma once

#include <assimp/cfileio.h>

#include "mesh.h"

G_BEGIN_DECLS

/* TRUE when `path` is a regular file; else the error says what it is. */
gboolean cwb_mesh_guard_regular_file (const char *path, GError **error);

/* Checks a PLY file's header (files that do not start with "ply" pass): it ends, names
 * known property types, and its element counts fit in the file's size. */
gboolean cwb_mesh_guard_ply_header (const char *path, GError **error);

/* File access for aiImportFileEx that opens regular files only (others read as missing);
 * with `bytes_read` (may be NULL), every byte read is added to it (atomically: another thread
 * reads it for progress). */
void cwb_mesh_guard_file_io (struct aiFileIO *io, gint64 *bytes_read);

G_END_DECLS

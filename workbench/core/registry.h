/* The plugin registry: finds plugin libraries in the configured folders, opens them with
 * GModule (local binding), checks their descriptions and keeps every file's status so the
 * GUI and --list-plugins can show what loaded and why the rest was refused.
 *
 * Search order (first found wins; a later plugin of the same kind and name is refused):
 *   1. the build tree's plugins/ folder, when the running program is in the build tree
 *   2. the install folder (LIBDIR/contact-workbench/plugins)
 *   3. the folders of CWB_PLUGIN_PATH (':'-separated)
 *   4. folders added with cwb_registry_add_dir (--plugin-path), in the order given */
#pragma once

#include <stdio.h>

#include <cwb/abi.h>
#include <cwb/params.h>

G_BEGIN_DECLS

typedef enum CwbPluginStatus {
  CWB_PLUGIN_STATUS_LOADED,
  CWB_PLUGIN_STATUS_REFUSED,
} CwbPluginStatus;

typedef struct CwbPluginFile {
  char *path;
  CwbPluginStatus status;
  char *reason;                 /* REFUSED: one line, e.g. "ABI major 2, host has 1" */
  const CwbPluginDesc *desc;    /* LOADED only */
} CwbPluginFile;

typedef struct CwbRegistry CwbRegistry;

CwbRegistry *cwb_registry_new (void);
void cwb_registry_free (CwbRegistry *registry);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbRegistry, cwb_registry_free)

/* Adds the folders 1-3 of the search order. */
void cwb_registry_add_default_dirs (CwbRegistry *registry);
/* Appends one folder to the search order. */
void cwb_registry_add_dir (CwbRegistry *registry, const char *dir);
/* Opens every plugin library of the folders, in order. Refusals never stop the scan; each
 * is logged with g_warning as "PATH: REASON" and kept in the file list. */
void cwb_registry_scan (CwbRegistry *registry);

const CwbPluginDesc *cwb_registry_find (const CwbRegistry *registry, CwbPluginKind kind,
                                        const char *name);
size_t cwb_registry_n_files (const CwbRegistry *registry);
const CwbPluginFile *cwb_registry_file (const CwbRegistry *registry, size_t index);
/* The loaded plugins of one kind, in load order (borrowed descriptions). */
GPtrArray *cwb_registry_list (const CwbRegistry *registry, CwbPluginKind kind);

/* The schema's words for a parameter type ("bool", "int", "double", "enum", "string",
 * "vec3"; "?" for a value that is no type), as --list-plugins and the plugins window show. */
const char *cwb_param_type_name (CwbParamType type);
/* A parameter's admissible values as text: "[min, max]" for a bounded INT or DOUBLE, "each in
 * [min, max]" for a bounded VEC3 (the largest double, which schemas use for "no bound on this
 * side", reads "inf"), the '|'-separated choices of an ENUM; NULL when there is no range (min >
 * max, BOOL, STRING, an ENUM without choices). Free with g_free. */
char *cwb_param_spec_range_text (const CwbParamSpec *spec);

/* Prints every loaded plugin (name, kind, version, ABI, file, summary, parameter schema)
 * and every refused file with its reason: the output of --list-plugins. */
void cwb_registry_print (const CwbRegistry *registry, FILE *out);

/* `text` with its control characters escaped (\n, \t, \xNN) and backslashes doubled, for
 * one line of a listing: a file name with a newline must not forge lines. */
char *cwb_printable (const char *text);

G_END_DECLS

/* The plugin registry (registry.h; docs/plugin-loading.md): finds plugin libraries in the
 * configured folders, opens each with GModule, checks what its entry symbol returns, and keeps
 * one CwbPluginFile per library found, loaded or refused with a one-line reason.
 *
 * A refusal is a user-visible fact, not an error of the scan: it is logged with g_warning as
 * "PATH: REASON", kept in the file list for --list-plugins and the GUI, and the scan goes on. */
#include "registry.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gmodule.h>

#include <cwb/body_model.h>
#include <cwb/contact_model.h>
#include <cwb/mapping.h>
#include <cwb/solver.h>

#include "param_bind.h"
#include "param_parse.h"
#include "scene.h"

/* The suffix of loadable modules. GModule's G_MODULE_SUFFIX is deprecated (GLib 2.76) and
 * Meson's shared_module uses ".so" on every Unix, macOS included. */
#if defined(_WIN32)
#define MODULE_SUFFIX ".dll"
#else
#define MODULE_SUFFIX ".so"
#endif

/* Size of a structure up to and including `member`: the size a structure had in the ABI
 * version whose last field was `member`. Written this way so that the constants below keep
 * meaning "ABI 1.0" when a minor version appends fields. */
#define END_OF(type, member) (offsetof (type, member) + sizeof (((type *) NULL)->member))

/* What a plugin built against ABI 1.0 provides. The host reads optional vtable entries
 * (feedback, params_changed, element_*) without checking struct_size, so a vtable must be at
 * least as large as ABI 1.0's, not only large enough for the required operations. */
#define DESC_SIZE_1_0 END_OF (CwbPluginDesc, vtable)
/* Enough of the description to read its ABI version: the prefix every major keeps. */
#define DESC_VERSION_PREFIX END_OF (CwbPluginDesc, abi_minor)
#define BODY_MODEL_VTABLE_SIZE_1_0 END_OF (CwbBodyModelVTable, element_force)
#define MAPPING_VTABLE_SIZE_1_0 END_OF (CwbMappingVTable, params_changed)
#define CONTACT_MODEL_VTABLE_SIZE_1_0 END_OF (CwbContactModelVTable, params_changed)
#define SOLVER_VTABLE_SIZE_1_0 END_OF (CwbSolverVTable, params_changed)

/* Where a search folder came from: decides whether it is scanned recursively (the build tree
 * nests plugins by kind) and whether its absence is worth a warning (only folders the user
 * named are: the install folder is usually absent in a build tree, and the reverse). */
typedef enum DirOrigin {
  DIR_BUILD,
  DIR_INSTALL,
  DIR_ENV,
  DIR_ADDED,
} DirOrigin;

typedef struct SearchDir {
  char *path;
  DirOrigin origin;
  gboolean scanned;
  gboolean missing;
} SearchDir;

/* One library found. `pub` is what registry.h exposes; `module` stays open while the
 * description (static storage in the library) is in use, i.e. for the registry's lifetime. */
typedef struct FileEntry {
  CwbPluginFile pub;
  GModule *module;
} FileEntry;

struct CwbRegistry {
  GPtrArray *dirs;      /* SearchDir*, in search order */
  GPtrArray *files;     /* FileEntry*, in the order found */
  GHashTable *opened;   /* realpaths already considered: one file reached twice opens once */
};

static void
search_dir_free (SearchDir *dir)
{
  g_free (dir->path);
  g_free (dir);
}

/* Frees the entry's strings, then closes its library: nothing of the library's (the
 * description, its strings) is read after this. */
static void
file_entry_free (FileEntry *entry)
{
  g_free (entry->pub.path);
  g_free (entry->pub.reason);
  entry->pub.desc = NULL;
  if (entry->module != NULL)
    g_module_close (entry->module);
  g_free (entry);
}

CwbRegistry *
cwb_registry_new (void)
{
  CwbRegistry *registry = g_new0 (CwbRegistry, 1);
  registry->dirs = g_ptr_array_new_with_free_func ((GDestroyNotify) search_dir_free);
  registry->files = g_ptr_array_new ();
  registry->opened = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return registry;
}

void
cwb_registry_free (CwbRegistry *registry)
{
  if (registry == NULL)
    return;
  /* Last loaded first, the reverse of opening. */
  for (guint i = registry->files->len; i > 0; i--)
    file_entry_free (g_ptr_array_index (registry->files, i - 1));
  g_ptr_array_free (registry->files, TRUE);
  g_ptr_array_free (registry->dirs, TRUE);
  g_hash_table_destroy (registry->opened);
  g_free (registry);
}

/* ---- folders ---------------------------------------------------------------------------- */

/* The canonical path (symbolic links and ".." resolved), or NULL when it does not exist. */
static char *
canonical_path (const char *path)
{
  char *resolved = realpath (path, NULL);
  if (resolved == NULL)
    return NULL;
  char *copy = g_strdup (resolved);
  free (resolved);
  return copy;
}

/* TRUE when the running program is inside the build tree (the parent of the build's plugin
 * folder), so that a build's own plugins are found without installing, and an installed
 * program never picks up a build tree's plugins by accident. */
static gboolean
running_in_build_tree (void)
{
  g_autofree char *exe = canonical_path ("/proc/self/exe");
  g_autofree char *plugin_dir = g_path_get_dirname (CWB_BUILD_PLUGIN_DIR);
  g_autofree char *build_root = canonical_path (plugin_dir);
  if (exe == NULL || build_root == NULL)
    return FALSE;
  g_autofree char *prefix = g_str_has_suffix (build_root, G_DIR_SEPARATOR_S)
                              ? g_strdup (build_root)
                              : g_strconcat (build_root, G_DIR_SEPARATOR_S, NULL);
  return g_str_has_prefix (exe, prefix);
}

static void
add_search_dir (CwbRegistry *registry, const char *path, DirOrigin origin)
{
  SearchDir *dir = g_new0 (SearchDir, 1);
  /* Absolute (against the current folder, symbolic links kept), so that the file paths the
   * list and the messages show stay meaningful wherever they are read. */
  dir->path = g_canonicalize_filename (path, NULL);
  dir->origin = origin;
  g_ptr_array_add (registry->dirs, dir);
}

void
cwb_registry_add_default_dirs (CwbRegistry *registry)
{
  g_return_if_fail (registry != NULL);
  if (running_in_build_tree ())
    add_search_dir (registry, CWB_BUILD_PLUGIN_DIR, DIR_BUILD);
  add_search_dir (registry, CWB_INSTALL_PLUGIN_DIR, DIR_INSTALL);
  const char *env = g_getenv ("CWB_PLUGIN_PATH");
  if (env != NULL)
    {
      g_auto (GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
      /* An empty component ("a::b", a trailing ':') is no folder, not the current one. */
      for (char **p = parts; *p != NULL; p++)
        if (**p != '\0')
          add_search_dir (registry, *p, DIR_ENV);
    }
}

void
cwb_registry_add_dir (CwbRegistry *registry, const char *dir)
{
  g_return_if_fail (registry != NULL);
  g_return_if_fail (dir != NULL);
  add_search_dir (registry, dir, DIR_ADDED);
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Why a directory entry named like a library is no library file, or NULL when it is a
 * regular file (after following its links). */
static char *
not_a_library_file (const char *path)
{
  struct stat st;
  if (stat (path, &st) == 0)
    {
      if (S_ISREG (st.st_mode))
        return NULL;
      return g_strdup (S_ISDIR (st.st_mode)    ? "a folder named like a library"
                       : S_ISFIFO (st.st_mode) ? "a FIFO (named pipe), not a library file"
                                               : "not a regular file");
    }
  int err = errno;
  if (err == ELOOP)
    return g_strdup ("a loop of symbolic links");
  g_autofree char *target = g_file_read_link (path, NULL);
  if (err == ENOENT && target != NULL)
    return g_strdup_printf ("a dangling symbolic link (to %s)", target);
  return g_strdup_printf ("cannot inspect: %s", g_strerror (err));
}

/* Appends the module files of `folder` to `out`, and the entries named like modules that
 * are not (a dangling link, a loop, a FIFO, a folder "x.so") with why to `refused` ("path",
 * "reason" pairs), so that none is skipped in silence; with `recursive`, of its sub-folders
 * too (not through symbolic links to folders, which could loop). Meson's "NAME.so.p" object
 * folders are not named like modules. */
static void
collect_module_files (const char *folder, gboolean recursive, GPtrArray *out,
                      GPtrArray *refused)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) dir = g_dir_open (folder, 0, &error);
  if (dir == NULL)
    {
      g_warning ("%s: cannot read plugin folder: %s", folder, error->message);
      return;
    }
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);
      if (g_str_has_suffix (name, MODULE_SUFFIX))
        {
          char *why = not_a_library_file (path);
          if (why == NULL)
            g_ptr_array_add (out, g_steal_pointer (&path));
          else
            {
              g_ptr_array_add (refused, g_steal_pointer (&path));
              g_ptr_array_add (refused, why);
            }
        }
      else if (recursive && !g_file_test (path, G_FILE_TEST_IS_SYMLINK)
               && g_file_test (path, G_FILE_TEST_IS_DIR))
        collect_module_files (path, TRUE, out, refused);
    }
}

/* ---- a library's file, before the loader maps it ----------------------------------------- */

/* Why the ELF file at `path` cannot be handed to the loader safely, or NULL. The loader maps
 * the segments its program headers describe; one that ends past the end of a truncated file
 * faults (SIGBUS) on first touch, inside dlopen, where no error can be returned. */
static char *
truncated_elf (const char *path)
{
  g_autoptr (GMappedFile) mapped = g_mapped_file_new (path, FALSE, NULL);
  if (mapped == NULL)
    return NULL;   /* the loader says why it cannot open it */
  gsize size = g_mapped_file_get_length (mapped);
  const unsigned char *data = (const unsigned char *) g_mapped_file_get_contents (mapped);
  if (size < EI_NIDENT || memcmp (data, ELFMAG, SELFMAG) != 0)
    return NULL;   /* not ELF: the loader refuses it with its own words */
  if (data[EI_CLASS] != ELFCLASS64 || size < sizeof (Elf64_Ehdr))
    return g_strdup_printf ("truncated or foreign: %zu bytes, no 64-bit ELF header",
                            (size_t) size);
  Elf64_Ehdr header;
  memcpy (&header, data, sizeof header);
  guint64 end = (guint64) header.e_phoff + (guint64) header.e_phnum * header.e_phentsize;
  if (header.e_phentsize != sizeof (Elf64_Phdr) || end > size)
    return g_strdup_printf ("truncated: its program headers end at byte %" G_GUINT64_FORMAT
                            ", the file has %zu", end, (size_t) size);
  for (guint k = 0; k < header.e_phnum; k++)
    {
      Elf64_Phdr segment;
      memcpy (&segment, data + header.e_phoff + (guint64) k * sizeof segment, sizeof segment);
      guint64 segment_end = segment.p_offset + segment.p_filesz;
      if (segment.p_type == PT_LOAD && (segment_end < segment.p_offset || segment_end > size))
        return g_strdup_printf ("truncated: a segment ends at byte %" G_GUINT64_FORMAT ", the "
                                "file has %zu", segment_end, (size_t) size);
    }
  return NULL;
}

/* ---- checking a description ------------------------------------------------------------- */

static gboolean
valid_plugin_name (const char *name)
{
  if (name == NULL || !g_ascii_islower (name[0]))
    return FALSE;
  for (const char *c = name + 1; *c != '\0'; c++)
    if (!g_ascii_islower (*c) && !g_ascii_isdigit (*c) && *c != '_' && *c != '-')
      return FALSE;
  return TRUE;
}

/* The required operations of each kind's vtable (the rest may be NULL), with the ABI 1.0
 * size. Offsets rather than a switch on typed structures, so that one loop checks them all. */
typedef struct RequiredOp {
  const char *name;
  size_t offset;
} RequiredOp;

#define OP(type, member) { #member, offsetof (type, member) }

static const RequiredOp body_model_ops[] = {
  OP (CwbBodyModelVTable, create),
  OP (CwbBodyModelVTable, destroy),
  OP (CwbBodyModelVTable, get_info),
  OP (CwbBodyModelVTable, init_state),
  OP (CwbBodyModelVTable, free_motion),
  OP (CwbBodyModelVTable, integrate_position),
  OP (CwbBodyModelVTable, compliance_apply),
  OP (CwbBodyModelVTable, mass_apply),
  OP (CwbBodyModelVTable, summary),
};
static const RequiredOp mapping_ops[] = {
  OP (CwbMappingVTable, create),
  OP (CwbMappingVTable, destroy),
  OP (CwbMappingVTable, get_layout),
  OP (CwbMappingVTable, apply),
  OP (CwbMappingVTable, apply_j),
  OP (CwbMappingVTable, apply_jt),
};
static const RequiredOp contact_model_ops[] = {
  OP (CwbContactModelVTable, create),
  OP (CwbContactModelVTable, destroy),
  OP (CwbContactModelVTable, attach),
  OP (CwbContactModelVTable, detect),
  OP (CwbContactModelVTable, model),
};
static const RequiredOp solver_ops[] = {
  OP (CwbSolverVTable, create),
  OP (CwbSolverVTable, destroy),
  OP (CwbSolverVTable, step),
};

#undef OP

typedef struct VTableRules {
  size_t size_1_0;
  const RequiredOp *ops;
  size_t n_ops;
} VTableRules;

static VTableRules
vtable_rules (CwbPluginKind kind)
{
  switch (kind)
    {
    case CWB_PLUGIN_BODY_MODEL:
      return (VTableRules) { BODY_MODEL_VTABLE_SIZE_1_0, body_model_ops,
                             G_N_ELEMENTS (body_model_ops) };
    case CWB_PLUGIN_MAPPING:
      return (VTableRules) { MAPPING_VTABLE_SIZE_1_0, mapping_ops, G_N_ELEMENTS (mapping_ops) };
    case CWB_PLUGIN_CONTACT_MODEL:
      return (VTableRules) { CONTACT_MODEL_VTABLE_SIZE_1_0, contact_model_ops,
                             G_N_ELEMENTS (contact_model_ops) };
    case CWB_PLUGIN_SOLVER:
      return (VTableRules) { SOLVER_VTABLE_SIZE_1_0, solver_ops, G_N_ELEMENTS (solver_ops) };
    default:
      return (VTableRules) { 0, NULL, 0 };
    }
}

static char *
check_vtable (const CwbPluginDesc *desc)
{
  const char *kind = cwb_plugin_kind_name (desc->kind);
  if (desc->vtable == NULL)
    return g_strdup_printf ("%s has no vtable", kind);
  VTableRules rules = vtable_rules (desc->kind);
  /* Every vtable starts with its size_t struct_size. */
  size_t size;
  memcpy (&size, desc->vtable, sizeof size);
  if (size < rules.size_1_0)
    return g_strdup_printf ("%s vtable struct_size %zu is smaller than ABI %d.0's %zu", kind,
                            size, CWB_ABI_MAJOR, rules.size_1_0);
  for (size_t k = 0; k < rules.n_ops; k++)
    {
      void (*op) (void);
      memcpy (&op, (const char *) desc->vtable + rules.ops[k].offset, sizeof op);
      if (op == NULL)
        return g_strdup_printf ("%s vtable lacks required operation '%s'", kind,
                                rules.ops[k].name);
    }
  return NULL;
}

/* The location given to a default's parse as a scene value, so that the scene error's
 * "WHERE: FIELD: " prefix is known and can be taken off: the reason names the parameter. */
#define DEFAULT_LOC_FILE "default"

/* A default must read the same both ways it is ever read: as the text the scene binding
 * fills absent values with (cwb_param_parse_text, which param_bind.c expects never to fail
 * for a loaded plugin), and as a value written in a scene file or with --set (the YAML node,
 * then the spec's checks), so that saving and reloading a scene keeps it. */
static char *
check_default (const CwbParamSpec *spec)
{
  g_autofree char *why = NULL;
  CwbParamValue value = { 0 };
  if (cwb_param_parse_text (spec, spec->default_value, &value, &why))
    {
      const CwbSourceLoc loc = { DEFAULT_LOC_FILE, 0, 0 };
      g_autoptr (GError) error = NULL;
      g_autoptr (CwbSceneNode) node = cwb_scene_node_parse (spec->default_value, &loc, &error);
      if (node != NULL && cwb_param_value_from_node (spec, node, spec->name, &value, &error))
        return NULL;
      g_autofree char *prefix = g_strdup_printf ("%s: %s: ", DEFAULT_LOC_FILE, spec->name);
      const char *message = error != NULL ? error->message : "invalid value";
      if (g_str_has_prefix (message, prefix))
        message += strlen (prefix);
      why = g_strdup_printf ("as a scene value: %s", message);
    }
  return g_strdup_printf ("parameter '%s': default '%s' is invalid: %s", spec->name,
                          spec->default_value, why != NULL ? why : "invalid value");
}

static char *
check_params (const CwbPluginDesc *desc)
{
  if (desc->n_params > 0 && desc->params == NULL)
    return g_strdup_printf ("n_params is %zu but params is NULL", desc->n_params);
  for (size_t k = 0; k < desc->n_params; k++)
    {
      const CwbParamSpec *spec = &desc->params[k];
      if (!valid_plugin_name (spec->name))
        return g_strdup_printf ("parameter %zu: invalid name '%s' (must match [a-z][a-z0-9_-]*)",
                                k, spec->name != NULL ? spec->name : "(null)");
      for (size_t j = 0; j < k; j++)
        if (strcmp (desc->params[j].name, spec->name) == 0)
          return g_strdup_printf ("parameter '%s' is declared twice", spec->name);
      if (spec->type < CWB_PARAM_BOOL || spec->type > CWB_PARAM_VEC3)
        return g_strdup_printf ("parameter '%s': unknown type %d", spec->name, (int) spec->type);
      if (spec->type == CWB_PARAM_ENUM && (spec->choices == NULL || spec->choices[0] == '\0'))
        return g_strdup_printf ("parameter '%s': enum without choices", spec->name);
      if (spec->default_value == NULL)
        return g_strdup_printf ("parameter '%s': no default", spec->name);
      char *why = check_default (spec);
      if (why != NULL)
        return why;
    }
  return NULL;
}

/* NULL when the description is acceptable, else the reason. The order matters: nothing past
 * the ABI version is read before the description is known to be ABI 1.x and large enough. */
static char *
check_desc (const CwbPluginDesc *desc)
{
  if (desc == NULL)
    return g_strdup (CWB_PLUGIN_ENTRY_SYMBOL " returned NULL");
  if (desc->struct_size < DESC_VERSION_PREFIX)
    return g_strdup_printf ("description struct_size %zu is too small to hold an ABI version",
                            desc->struct_size);
  if (desc->abi_major != CWB_ABI_MAJOR)
    return g_strdup_printf ("ABI major %u, host has %d", desc->abi_major, CWB_ABI_MAJOR);
  if (desc->struct_size < DESC_SIZE_1_0)
    return g_strdup_printf ("description struct_size %zu is smaller than ABI %d.0's %zu",
                            desc->struct_size, CWB_ABI_MAJOR, (size_t) DESC_SIZE_1_0);
  if (cwb_plugin_kind_name (desc->kind) == NULL)
    return g_strdup_printf ("unknown kind %d", (int) desc->kind);
  if (desc->name == NULL)
    return g_strdup ("no name");
  if (!valid_plugin_name (desc->name))
    return g_strdup_printf ("invalid name '%s' (must match [a-z][a-z0-9_-]*)", desc->name);
  char *why = check_vtable (desc);
  if (why == NULL)
    why = check_params (desc);
  return why;
}

/* ---- opening ---------------------------------------------------------------------------- */

/* TRUE when `path` and `other` are one file: same canonical path, or same device and inode
 * (a hard link, which the dynamic loader also treats as the library already loaded). */
static gboolean
same_file (const char *path, const char *other)
{
  g_autofree char *a = canonical_path (path);
  g_autofree char *b = canonical_path (other);
  if (a != NULL && b != NULL && strcmp (a, b) == 0)
    return TRUE;
  struct stat sa, sb;
  return stat (path, &sa) == 0 && stat (other, &sb) == 0 && sa.st_dev == sb.st_dev
         && sa.st_ino == sb.st_ino;
}

/* Opens the library and returns its description, or NULL with the reason in *why (the
 * module, when it opened, is returned in *module_out either way, for the caller to close).
 *
 * Local binding: the plugins' symbols never resolve each other's or the host's, so two
 * plugins may use the same internal names. No lazy binding: a library with an unresolved
 * symbol fails here, with the loader's message, instead of crashing at its first call. */
static const CwbPluginDesc *
open_plugin (const char *path, GModule **module_out, char **why)
{
  *module_out = NULL;
  *why = truncated_elf (path);
  if (*why != NULL)
    return NULL;
  *module_out = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (*module_out == NULL)
    {
      /* The loader's message usually starts with the path, which the reason's line names
       * already. */
      const char *text = g_module_error ();
      g_autofree char *prefix = g_strconcat (path, ": ", NULL);
      if (text == NULL)
        text = "unknown error";
      else if (g_str_has_prefix (text, prefix))
        text += strlen (prefix);
      *why = g_strdup_printf ("cannot open: %s", text);
      return NULL;
    }

  CwbPluginEntryFunc entry = NULL;
  if (!g_module_symbol (*module_out, CWB_PLUGIN_ENTRY_SYMBOL, (gpointer *) &entry)
      || entry == NULL)
    {
      *why = g_strdup ("no entry symbol '" CWB_PLUGIN_ENTRY_SYMBOL "'");
      return NULL;
    }

  /* dlsym on a library's handle also searches the libraries it depends on: a library without
   * an entry of its own that links against a plugin library would hand out that library's
   * entry, and the same plugin would load twice under two files (a bug SOFA shipped). The
   * entry must be defined in the very file opened. */
  Dl_info info = { 0 };
  if (dladdr ((const void *) entry, &info) == 0 || info.dli_fname == NULL)
    {
      *why = g_strdup ("cannot tell which library defines entry symbol '"
                       CWB_PLUGIN_ENTRY_SYMBOL "'");
      return NULL;
    }
  if (!same_file (path, info.dli_fname))
    {
      *why = g_strdup_printf ("entry symbol '" CWB_PLUGIN_ENTRY_SYMBOL "' belongs to another "
                              "library: %s", info.dli_fname);
      return NULL;
    }

  const CwbPluginDesc *desc = entry ();
  *why = check_desc (desc);
  return *why == NULL ? desc : NULL;
}

static const FileEntry *
find_loaded (const CwbRegistry *registry, CwbPluginKind kind, const char *name)
{
  for (guint i = 0; i < registry->files->len; i++)
    {
      const FileEntry *e = g_ptr_array_index (registry->files, i);
      if (e->pub.status == CWB_PLUGIN_STATUS_LOADED && e->pub.desc->kind == kind
          && strcmp (e->pub.desc->name, name) == 0)
        return e;
    }
  return NULL;
}

/* Lists a file refused before any attempt to open it; takes `why`. */
static void
refuse_file (CwbRegistry *registry, const char *path, char *why)
{
  FileEntry *entry = g_new0 (FileEntry, 1);
  entry->pub.path = g_strdup (path);
  entry->pub.status = CWB_PLUGIN_STATUS_REFUSED;
  entry->pub.reason = why;
  g_ptr_array_add (registry->files, entry);
  g_autofree char *shown = cwb_printable (path);
  g_warning ("%s: %s", shown, why);
}

static void
load_file (CwbRegistry *registry, const char *path)
{
  g_autofree char *real = canonical_path (path);
  if (real == NULL)
    real = g_strdup (path);
  if (g_hash_table_contains (registry->opened, real))
    {
      g_debug ("%s: skipped, the same file as %s was considered already", path, real);
      return;
    }
  g_hash_table_add (registry->opened, g_strdup (real));

  FileEntry *entry = g_new0 (FileEntry, 1);
  entry->pub.path = g_strdup (path);

  GModule *module = NULL;
  char *why = NULL;
  const CwbPluginDesc *desc = open_plugin (path, &module, &why);
  if (desc != NULL)
    {
      /* First found wins (the search order is the user's priority order). */
      const FileEntry *first = find_loaded (registry, desc->kind, desc->name);
      if (first != NULL)
        why = g_strdup_printf ("duplicate: %s '%s' already loaded from %s",
                               cwb_plugin_kind_name (desc->kind), desc->name, first->pub.path);
    }
  /* Listed only now, complete: find_loaded above must not see it half filled in. */
  g_ptr_array_add (registry->files, entry);

  if (why != NULL)
    {
      entry->pub.status = CWB_PLUGIN_STATUS_REFUSED;
      entry->pub.reason = why;
      /* The reason is our own copy, so nothing of the library's is kept: close it now. */
      if (module != NULL)
        g_module_close (module);
      g_autofree char *shown = cwb_printable (path);
      g_warning ("%s: %s", shown, why);
      return;
    }
  entry->pub.status = CWB_PLUGIN_STATUS_LOADED;
  entry->pub.desc = desc;
  entry->module = module;
  g_debug ("%s: loaded %s '%s' %s (ABI %u.%u)", path, cwb_plugin_kind_name (desc->kind),
           desc->name, desc->version != NULL ? desc->version : "", desc->abi_major,
           desc->abi_minor);
}

void
cwb_registry_scan (CwbRegistry *registry)
{
  g_return_if_fail (registry != NULL);
  /* Only the folders not scanned yet, so that a folder added later can be scanned alone. */
  for (guint i = 0; i < registry->dirs->len; i++)
    {
      SearchDir *dir = g_ptr_array_index (registry->dirs, i);
      if (dir->scanned)
        continue;
      dir->scanned = TRUE;
      if (!g_file_test (dir->path, G_FILE_TEST_IS_DIR))
        {
          dir->missing = TRUE;
          /* The build and install folders are absent in each other's setting: only a folder
           * the user named is worth a warning. */
          if (dir->origin == DIR_ENV || dir->origin == DIR_ADDED)
            g_warning ("%s: plugin folder not found (%s)", dir->path,
                       dir->origin == DIR_ENV ? "CWB_PLUGIN_PATH" : "--plugin-path");
          continue;
        }
      g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) refused = g_ptr_array_new_with_free_func (g_free);
      collect_module_files (dir->path, dir->origin == DIR_BUILD, paths, refused);
      for (guint k = 0; k + 1 < refused->len; k += 2)
        refuse_file (registry, g_ptr_array_index (refused, k),
                     g_strdup (g_ptr_array_index (refused, k + 1)));
      /* Sorted by path, bytewise: the load order, hence which of two duplicates wins, does
       * not depend on the file system or the locale. */
      g_ptr_array_sort (paths, compare_paths);
      for (guint k = 0; k < paths->len; k++)
        load_file (registry, g_ptr_array_index (paths, k));
    }
}

/* ---- queries ---------------------------------------------------------------------------- */

const CwbPluginDesc *
cwb_registry_find (const CwbRegistry *registry, CwbPluginKind kind, const char *name)
{
  g_return_val_if_fail (registry != NULL, NULL);
  if (name == NULL)
    return NULL;
  const FileEntry *e = find_loaded (registry, kind, name);
  return e != NULL ? e->pub.desc : NULL;
}

size_t
cwb_registry_n_files (const CwbRegistry *registry)
{
  g_return_val_if_fail (registry != NULL, 0);
  return registry->files->len;
}

const CwbPluginFile *
cwb_registry_file (const CwbRegistry *registry, size_t index)
{
  g_return_val_if_fail (registry != NULL, NULL);
  g_return_val_if_fail (index < registry->files->len, NULL);
  const FileEntry *e = g_ptr_array_index (registry->files, index);
  return &e->pub;
}

GPtrArray *
cwb_registry_list (const CwbRegistry *registry, CwbPluginKind kind)
{
  g_return_val_if_fail (registry != NULL, NULL);
  GPtrArray *list = g_ptr_array_new ();
  for (guint i = 0; i < registry->files->len; i++)
    {
      const FileEntry *e = g_ptr_array_index (registry->files, i);
      if (e->pub.status == CWB_PLUGIN_STATUS_LOADED && e->pub.desc->kind == kind)
        g_ptr_array_add (list, (gpointer) e->pub.desc);
    }
  return list;
}

/* ---- printing --------------------------------------------------------------------------- */

const char *
cwb_param_type_name (CwbParamType type)
{
  switch (type)
    {
    case CWB_PARAM_BOOL: return "bool";
    case CWB_PARAM_INT: return "int";
    case CWB_PARAM_DOUBLE: return "double";
    case CWB_PARAM_ENUM: return "enum";
    case CWB_PARAM_STRING: return "string";
    case CWB_PARAM_VEC3: return "vec3";
    default: return "?";
    }
}

static const char *
or_dash (const char *text)
{
  return text != NULL && text[0] != '\0' ? text : "-";
}

/* A bound as text; the largest double, which schemas use for "no bound on this side", as
 * "inf" so that the column stays short. */
static void
format_bound (char buf[G_ASCII_DTOSTR_BUF_SIZE], double value)
{
  if (value >= G_MAXDOUBLE || value <= -G_MAXDOUBLE)
    g_strlcpy (buf, value > 0 ? "inf" : "-inf", G_ASCII_DTOSTR_BUF_SIZE);
  else
    g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%g", value);
}

char *
cwb_param_spec_range_text (const CwbParamSpec *spec)
{
  g_return_val_if_fail (spec != NULL, NULL);
  if (spec->type == CWB_PARAM_ENUM)
    return spec->choices != NULL && spec->choices[0] != '\0' ? g_strdup (spec->choices) : NULL;
  if ((spec->type == CWB_PARAM_INT || spec->type == CWB_PARAM_DOUBLE
       || spec->type == CWB_PARAM_VEC3)
      && spec->min <= spec->max)
    {
      char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
      format_bound (lo, spec->min);
      format_bound (hi, spec->max);
      return g_strdup_printf ("%s[%s, %s]", spec->type == CWB_PARAM_VEC3 ? "each in " : "", lo,
                              hi);
    }
  return NULL;
}

/* The range column of --list-plugins: "-" where there is no range. */
static char *
param_range_cell (const CwbParamSpec *spec)
{
  char *range = cwb_param_spec_range_text (spec);
  return range != NULL ? range : g_strdup ("-");
}

/* Column widths of one table, at least the header's. */
static int
column_width (const char *header, GPtrArray *cells)
{
  size_t width = strlen (header);
  for (guint i = 0; i < cells->len; i++)
    width = MAX (width, strlen (g_ptr_array_index (cells, i)));
  return (int) width;
}

static void
print_params (const CwbPluginDesc *desc, FILE *out)
{
  if (desc->n_params == 0)
    {
      fprintf (out, "  parameters: none\n");
      return;
    }
  /* Columns: name, type, unit, default, range or choices; the help text last, unaligned. */
  static const char *const headers[] = { "parameter", "type", "unit", "default", "range" };
  enum { N_COLUMNS = G_N_ELEMENTS (headers) };
  GPtrArray *cells[N_COLUMNS];
  for (int c = 0; c < N_COLUMNS; c++)
    cells[c] = g_ptr_array_new_with_free_func (g_free);
  for (size_t k = 0; k < desc->n_params; k++)
    {
      const CwbParamSpec *spec = &desc->params[k];
      g_ptr_array_add (cells[0], g_strdup (spec->name));
      g_ptr_array_add (cells[1], g_strdup (cwb_param_type_name (spec->type)));
      g_ptr_array_add (cells[2], g_strdup (or_dash (spec->unit)));
      g_ptr_array_add (cells[3], g_strdup (or_dash (spec->default_value)));
      g_ptr_array_add (cells[4], param_range_cell (spec));
    }
  int width[N_COLUMNS];
  for (int c = 0; c < N_COLUMNS; c++)
    width[c] = column_width (headers[c], cells[c]);

  fprintf (out, "   ");
  for (int c = 0; c < N_COLUMNS; c++)
    fprintf (out, " %-*s ", width[c], headers[c]);
  fprintf (out, " help\n");
  for (size_t k = 0; k < desc->n_params; k++)
    {
      fprintf (out, "   ");
      for (int c = 0; c < N_COLUMNS; c++)
        fprintf (out, " %-*s ", width[c], (const char *) g_ptr_array_index (cells[c], k));
      fprintf (out, " %s\n", or_dash (desc->params[k].help));
    }
  for (int c = 0; c < N_COLUMNS; c++)
    g_ptr_array_free (cells[c], TRUE);
}

char *
cwb_printable (const char *text)
{
  GString *out = g_string_new (NULL);
  for (const unsigned char *c = (const unsigned char *) text; *c != '\0'; c++)
    {
      if (*c == '\n')
        g_string_append (out, "\\n");
      else if (*c == '\t')
        g_string_append (out, "\\t");
      else if (*c == '\\')
        g_string_append (out, "\\\\");
      else if (*c < 0x20 || *c == 0x7f)
        g_string_append_printf (out, "\\x%02x", *c);
      else
        g_string_append_c (out, (char) *c);
    }
  return g_string_free (out, FALSE);
}

static const char *
dir_origin_text (DirOrigin origin)
{
  switch (origin)
    {
    case DIR_BUILD: return "build tree";
    case DIR_INSTALL: return "install";
    case DIR_ENV: return "CWB_PLUGIN_PATH";
    case DIR_ADDED: return "--plugin-path";
    default: return "?";
    }
}

void
cwb_registry_print (const CwbRegistry *registry, FILE *out)
{
  g_return_if_fail (registry != NULL);
  g_return_if_fail (out != NULL);

  fprintf (out, "plugin folders (host ABI %d.%d):\n", CWB_ABI_MAJOR, CWB_ABI_MINOR);
  if (registry->dirs->len == 0)
    fprintf (out, "  none\n");
  for (guint i = 0; i < registry->dirs->len; i++)
    {
      const SearchDir *dir = g_ptr_array_index (registry->dirs, i);
      g_autofree char *folder = cwb_printable (dir->path);
      fprintf (out, "  %s  (%s%s)\n", folder, dir_origin_text (dir->origin),
               dir->missing ? ", not found" : !dir->scanned ? ", not scanned" : "");
    }

  /* Loaded plugins grouped by kind, in load order within a kind. */
  int name_width = 0;
  guint n_loaded = 0;
  for (guint i = 0; i < registry->files->len; i++)
    {
      const FileEntry *e = g_ptr_array_index (registry->files, i);
      if (e->pub.status != CWB_PLUGIN_STATUS_LOADED)
        continue;
      name_width = MAX (name_width, (int) strlen (e->pub.desc->name));
      n_loaded++;
    }
  fprintf (out, "\nloaded: %u\n", n_loaded);
  for (int kind = 1; kind <= CWB_PLUGIN_KIND_COUNT; kind++)
    for (guint i = 0; i < registry->files->len; i++)
      {
        const FileEntry *e = g_ptr_array_index (registry->files, i);
        if (e->pub.status != CWB_PLUGIN_STATUS_LOADED || (int) e->pub.desc->kind != kind)
          continue;
        const CwbPluginDesc *d = e->pub.desc;
        fprintf (out, "\n%-*s  %-13s  version %s  ABI %u.%u\n", name_width, d->name,
                 cwb_plugin_kind_name (d->kind), or_dash (d->version), d->abi_major,
                 d->abi_minor);
        fprintf (out, "  %s\n", or_dash (d->summary));
        g_autofree char *file = cwb_printable (e->pub.path);
        fprintf (out, "  file: %s\n", file);
        print_params (d, out);
      }

  guint n_refused = registry->files->len - n_loaded;
  fprintf (out, "\nrefused: %u\n", n_refused);
  for (guint i = 0; i < registry->files->len; i++)
    {
      const FileEntry *e = g_ptr_array_index (registry->files, i);
      if (e->pub.status == CWB_PLUGIN_STATUS_REFUSED)
        {
          g_autofree char *file = cwb_printable (e->pub.path);
          g_autofree char *reason = cwb_printable (e->pub.reason);
          fprintf (out, "  %s: %s\n", file, reason);
        }
    }
}

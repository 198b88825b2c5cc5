/* The table of services the host hands a plugin at creation. A plugin links against GLib
 * and its own dependencies only, never the host: everything it needs from the host is here. */
#pragma once

#include <cwb/abi.h>

G_BEGIN_DECLS

typedef struct CwbHostServices {
  size_t struct_size;
  uint32_t abi_major, abi_minor;   /* the host's ABI version */
  void *host_data;                 /* opaque; pass back to the functions below */

  /* Logging routed to the host's log (terminal, GUI log panel). `domain` is the plugin's
   * G_LOG_DOMAIN; plain g_log() works too and lands in the same place. */
  void (*log) (void *host_data, const char *domain, GLogLevelFlags level, const char *message);

  /* Progress of a long operation (a compliance precomputation, a mesh voxelisation):
   * `what` a short phrase naming the body and the work ("body 'beam': compliance", shown as
   * it is), fraction in [0, 1].
   * Returns FALSE when the user cancelled; the plugin then stops, frees what it made and
   * fails its call with G_IO_ERROR_CANCELLED (cwb_host_set_cancelled below). Call it from the
   * thread the host called the plugin on (the GUI builds worlds on a worker thread), a few
   * times a second or more: it is also how a cancel gets through. */
  gboolean (*progress) (void *host_data, const char *what, double fraction);

  /* A folder where the plugin may keep caches between runs (created on demand), e.g. a
   * precomputed compliance keyed by mesh, grid and material. May return NULL: no cache. */
  const char *(*cache_dir) (void *host_data);

  /* Allocation the host can account for (the GUI shows per-plugin memory). Memory from
   * alloc is released with free; g_malloc is equally valid for private data. */
  void *(*alloc) (void *host_data, size_t size);
  void (*free) (void *host_data, void *ptr);
} CwbHostServices;

/* G_IO_ERROR_CANCELLED, which a plugin sets when progress() returned FALSE. Plugins need not
 * link GIO for it: the quark's name and the code are fixed parts of GLib's ABI (the host's
 * tests check them against its own G_IO_ERROR). g_quark_from_string, not _static_string:
 * GLib would keep a pointer into the plugin's library, which the host may unload. */
#define CWB_HOST_ERROR_QUARK_NAME "g-io-error-quark"
#define CWB_HOST_ERROR_CANCELLED 19

static inline void
cwb_host_set_cancelled (GError **error, const char *message)
{
  g_set_error_literal (error, g_quark_from_string (CWB_HOST_ERROR_QUARK_NAME),
                       CWB_HOST_ERROR_CANCELLED, message);
}

G_END_DECLS

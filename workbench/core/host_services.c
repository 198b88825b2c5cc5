/* The host services a world hands its plugins (cwb/host.h): logging, progress with
 * cancellation, the cache folder and accounted allocation. Progress goes to the sink of the
 * world's build options; a plugin calls it on the thread that called the plugin, which is the
 * one building the world or changing it, so nothing here needs a lock. */
#include <errno.h>

#include <glib/gstdio.h>

#include "world_private.h"

/* The code plugins set through cwb_host_set_cancelled is GIO's (the quark's name is checked
 * in tests/world/test_progress.c). */
G_STATIC_ASSERT (CWB_HOST_ERROR_CANCELLED == G_IO_ERROR_CANCELLED);

static void
service_log (void *host_data, const char *domain, GLogLevelFlags level, const char *message)
{
  g_log (domain, level, "%s", message);
}

static gboolean
service_progress (void *host_data, const char *what, double fraction)
{
  CwbWorld *world = host_data;
  /* A plugin's rounding may overshoot [0, 1] a little; NaN says nothing done yet. */
  double f = isnan (fraction) ? 0 : CLAMP (fraction, 0, 1);
  /* As the plugin words it: it names its body ("body 'beam': compliance"), the host only
   * knows which one to name in a cancel's message. */
  const char *text = what != NULL && what[0] != '\0' ? what : "working";
  g_debug ("%s: %.0f %%", text, 100 * f);
  if (world->build.progress != NULL)
    world->build.progress (text, f, world->build.user_data);
  /* After the sink, so that a sink that cancels (the terminal's, on Ctrl-C) stops the plugin
   * at this very report. */
  return !cwb_world_cancelled (world);
}

static const char *
service_cache_dir (void *host_data)
{
  CwbWorld *world = host_data;
  if (world->cache_dir == NULL)
    {
      world->cache_dir = g_build_filename (g_get_user_cache_dir (), "contact-workbench", NULL);
      if (g_mkdir_with_parents (world->cache_dir, 0755) != 0)
        {
          g_warning ("cache folder %s: %s; plugins run without a cache", world->cache_dir,
                     g_strerror (errno));
          world->cache_dir[0] = '\0';
        }
    }
  return world->cache_dir[0] != '\0' ? world->cache_dir : NULL;
}

static void *
service_alloc (void *host_data, size_t size)
{
  return g_malloc (size);
}

static void
service_free (void *host_data, void *ptr)
{
  g_free (ptr);
}

void
cwb_world_init_services (CwbWorld *world)
{
  world->services = (CwbHostServices){
    .struct_size = sizeof (CwbHostServices),
    .abi_major = CWB_ABI_MAJOR,
    .abi_minor = CWB_ABI_MINOR,
    .host_data = world,
    .log = service_log,
    .progress = service_progress,
    .cache_dir = service_cache_dir,
    .alloc = service_alloc,
    .free = service_free,
  };
}

void
cwb_world_set_build_options (CwbWorld *world, const CwbWorldBuildOptions *options)
{
  g_clear_object (&world->build.cancellable);
  world->build = options != NULL ? *options : (CwbWorldBuildOptions){ 0 };
  if (world->build.cancellable != NULL)
    g_object_ref (world->build.cancellable);
}

gboolean
cwb_world_cancelled (const CwbWorld *world)
{
  return g_cancellable_is_cancelled (world->build.cancellable);
}

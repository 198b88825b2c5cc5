/* No entry symbol of its own, but linked against a library that has one (provider/): dlsym
 * on this library's handle would find the provider's entry through the dependency. The
 * reference below makes the link real (the linker drops unused dependencies). */
#include <cwb/cwb.h>

const CwbPluginDesc *cwb_plugin_entry (void);
const CwbPluginDesc *foreign_entry_wraps (void);

const CwbPluginDesc *
foreign_entry_wraps (void)
{
  return cwb_plugin_entry ();
}

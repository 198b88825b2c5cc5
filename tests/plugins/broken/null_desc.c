/* An entry symbol that returns no description. */
#include <cwb/cwb.h>

CWB_PLUGIN_EXPORT const CwbPluginDesc *cwb_plugin_entry (void);

CWB_PLUGIN_EXPORT const CwbPluginDesc *
cwb_plugin_entry (void)
{
  return NULL;
}

/* The workbench's version string, for --version and reports. */
#include "version.h"

const char *
cwb_version (void)
{
  return CWB_VERSION;
}

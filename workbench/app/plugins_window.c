#include "plugins_window.h"

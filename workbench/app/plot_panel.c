#include "plot_panel.h"

#include "property_editor.h"

/* Contact Workbench plugin ABI: the whole contract between the host and its plugins. */
#pragma once

#include <cwb/abi.h>
#include <cwb/params.h>
#include <cwb/host.h>
#include <cwb/geometry.h>
#include <cwb/body_model.h>
#include <cwb/mapping.h>
#include <cwb/contact.h>
#include <cwb/inspection.h>
#include <cwb/contact_model.h>
#include <cwb/solver.h>
#include <cwb/vecmath.h>
#include <cwb/coulomb.h>

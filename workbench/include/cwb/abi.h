/* Contact Workbench plugin ABI: versioning, plugin kinds and the entry symbol.
 *
 * A plugin library exports exactly one symbol, CWB_PLUGIN_ENTRY_SYMBOL, returning a
 * CwbPluginDesc. Everything else in the library is hidden (-fvisibility=hidden). The host
 * refuses a library whose entry symbol is missing, whose ABI major differs from
 * CWB_ABI_MAJOR, whose kind is unknown or whose name collides with a loaded plugin.
 *
 * Compatibility rules: a minor bump only appends fields at the end of structures (each one
 * carries its own struct_size, so both sides can tell what the other knows) or appends
 * optional (nullable) vtable entries; anything else is a major bump. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

G_BEGIN_DECLS

#define CWB_ABI_MAJOR 1
/* 1.1: CwbContactQuery.point_response (with host_data), CwbMappingVTable.apply_j_points,
 * CwbStepContext.contact_stiffness_apply.
 * 1.2: CwbContactModelVTable.save_state and restore_state.
 * 1.3: CwbBodyCreateInfo.dt, CwbContactSet.friction_law.
 * 1.4: CwbContactQuery.body_fixed.
 * 1.5: CwbStepContext.report_stabilization.
 * 1.6: CwbContactSet.contact_ids, CwbStepContext.report_solve_limits,
 *      CwbContactQuery.gravity, CwbInspection.derived, CwbStepContext.body_driven,
 *      map_geometries and edits.
 * 1.7: CWB_DEFINE_ERROR_QUARK.
 * 1.8: CwbStepContext.report_derived.
 * 1.9: CwbContactOutput, CwbContactModelVTable.outputs, CwbSolverVTable.solves.
 * 1.10: CwbContactSet.stabilization_passes.
 * 1.11: CwbContactSet.reach.
 * 1.12: CwbBodyModelVTable.inspect_elements (CwbElementInspection).
 * 1.13: CwbSolverVTable.stages (CwbSolverStage), CwbStepContext.stage_done.
 * 1.14: CwbContactQuery.solves; cwb_contact_query_geometry_fixed, cwb_geometry_bounds.
 * 1.15: CwbContactSet.damping, CwbStepContext.contact_damping_apply and
 *       free_motion_damped.
 * 1.16: CwbInspectCell with body_b CWB_NO_BODY: a coarse cell one body alone is in.
 * 1.17: CwbStepContext.contact_coupling_apply.
 * 1.18: CwbSolverVTable.contact_forces_implicit, CwbContactQuery.forces_implicit and
 *       body_mass; cwb_v3_reject.
 * 1.19: CWB_CONTACT_OUTPUT_IMPLICIT_FORCES, CwbSolverVTable.contact_outputs_changed.
 * 1.20: CwbBodyInfo.node_radii and node_masses (bodies whose nodes are particles),
 *       CwbBodyModelVTable.compliance_diagonal, CwbStepContext.compliance_diagonal,
 *       CwbMappingVTable.point_dofs.
 * 1.21: CwbContactQuery.points_apart.
 * 1.22: CwbBodyModelVTable.inspect_nodes (CwbNodeInspection).
 * 1.23: cwb_contact_query_points_apart. */
#define CWB_ABI_MINOR 23

#define CWB_PLUGIN_ENTRY_SYMBOL "cwb_plugin_entry"

#if defined(_WIN32)
#define CWB_PLUGIN_EXPORT __declspec(dllexport)
#else
#define CWB_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

typedef enum CwbPluginKind {
  CWB_PLUGIN_BODY_MODEL = 1,
  CWB_PLUGIN_MAPPING = 2,
  CWB_PLUGIN_CONTACT_MODEL = 3,
  CWB_PLUGIN_SOLVER = 4,
} CwbPluginKind;

/* Number of kinds, for iteration: kinds are 1 .. CWB_PLUGIN_KIND_COUNT. */
#define CWB_PLUGIN_KIND_COUNT 4

/* TRUE when a structure the other side filled (its struct_size says how much) reaches
 * `member`: how either side tests for a field a later minor version appended. */
#define CWB_STRUCT_HAS(ptr, type, member)                                                    \
  ((ptr)->struct_size >= offsetof (type, member) + sizeof (((type *) NULL)->member))

/* A plugin's error domain (1.7): defines GQuark q_n##_quark (void), as G_DEFINE_QUARK does,
 * but registers a copy of the name (g_quark_from_string). GLib keeps quark names for the
 * life of the process; G_DEFINE_QUARK's (and g_quark_from_static_string's) would point into
 * the plugin's own data, unmapped once the host closes the library (a refused plugin, a
 * registry freed), after which any quark lookup that meets that name reads freed memory.
 * Declare the function in a header, as for G_DEFINE_QUARK. */
#define CWB_DEFINE_ERROR_QUARK(QN, q_n)                                                      \
  GQuark q_n##_quark (void)                                                                  \
  {                                                                                          \
    static GQuark q;                                                                         \
    if (G_UNLIKELY (q == 0))                                                                 \
      q = g_quark_from_string (#QN);                                                         \
    return q;                                                                                \
  }

typedef struct CwbParamSpec CwbParamSpec;

/* What the entry symbol returns. Static storage in the plugin; the host never frees it. */
typedef struct CwbPluginDesc {
  size_t struct_size;        /* sizeof (CwbPluginDesc) as the plugin was compiled */
  uint32_t abi_major;        /* CWB_ABI_MAJOR the plugin was built against */
  uint32_t abi_minor;        /* CWB_ABI_MINOR the plugin was built against */
  CwbPluginKind kind;
  const char *name;          /* scene-facing name: "rigid", "ldi", "constraint" ... */
  const char *version;       /* the plugin's own version, free form ("1.0.0") */
  const char *summary;       /* one line for --list-plugins and the GUI */
  const CwbParamSpec *params;/* parameter schema, n_params entries */
  size_t n_params;
  const void *vtable;        /* CwbBodyModelVTable, CwbMappingVTable, CwbContactModelVTable
                              * or CwbSolverVTable according to kind */
} CwbPluginDesc;

typedef const CwbPluginDesc *(*CwbPluginEntryFunc)(void);

/* Defines the entry symbol; use once per plugin library:
 *   CWB_DEFINE_PLUGIN (my_desc)   where my_desc is a static const CwbPluginDesc. */
#define CWB_DEFINE_PLUGIN(desc)                                              \
  CWB_PLUGIN_EXPORT const CwbPluginDesc *cwb_plugin_entry (void);           \
  CWB_PLUGIN_EXPORT const CwbPluginDesc *cwb_plugin_entry (void) { return &(desc); }

/* Scene and command-line name of a kind; NULL for a value that is no kind. */
static inline const char *
cwb_plugin_kind_name (CwbPluginKind kind)
{
  switch (kind)
    {
    case CWB_PLUGIN_BODY_MODEL: return "body-model";
    case CWB_PLUGIN_MAPPING: return "mapping";
    case CWB_PLUGIN_CONTACT_MODEL: return "contact-model";
    case CWB_PLUGIN_SOLVER: return "solver";
    default: return NULL;
    }
}

G_END_DECLS

/* Inspection data: what makes a contact model visible. Plugins never draw; they append to
 * these host-defined arrays and the renderer draws them, whatever model produced them.
 * Contact frames with their forces and states live in the contact set (contact.h). */
#pragma once

#include <cwb/abi.h>

G_BEGIN_DECLS

/* One interval of an intersection volume along an LDI axis (Allard 2010 fig. 1, 3). */
typedef struct CwbInspectSpan {
  uint32_t body_a, body_b;
  uint32_t axis;            /* 0, 1, 2: the LDI viewing direction */
  double start[3];          /* where the interval enters, world */
  double length;            /* along the axis */
  double pixel_size;        /* side of the pixel the span stands on */
} CwbInspectSpan;

typedef enum CwbVoxelKind {
  CWB_VOXEL_INTERSECTION = 0,  /* part of an intersection volume */
  CWB_VOXEL_DENSITY = 1,       /* Eulerian density sample (Faure 2007) */
} CwbVoxelKind;

typedef struct CwbInspectVoxel {
  CwbVoxelKind kind;
  uint32_t body_a, body_b;  /* density voxels: body_a is the body, body_b CWB_NO_BODY */
  double center[3];
  double size[3];
  double value;             /* occupied fraction or density */
} CwbInspectVoxel;

/* A multi-volume grid cell (Allard 2010 sec. 5) with its own volume and contact, or a cell
 * of a grid's hierarchy refined where body_a and body_b meet (Faure 2007 sec. 6). With
 * body_b CWB_NO_BODY (UINT32_MAX; ABI 1.16), a coarse cell that body_a alone is in and the
 * model did not refine (sec. 6's root level): drawn apart from the others. */
typedef struct CwbInspectCell {
  uint32_t body_a, body_b;
  double min[3], max[3];
  double volume;
  uint32_t frame;           /* its contact frame in the contact set, or UINT32_MAX */
} CwbInspectCell;

typedef enum CwbVectorKind {
  CWB_VECTOR_VOLUME_GRADIENT = 0,  /* dV/dp_k (Allard 2010 eq. 13-14) */
  CWB_VECTOR_DEPTH = 1,            /* penetration depth vector d_i (Spillmann 2007) */
  CWB_VECTOR_DENSITY_GRADIENT = 2, /* Faure 2007 */
  CWB_VECTOR_FORCE = 3,
} CwbVectorKind;

typedef struct CwbInspectVector {
  CwbVectorKind kind;
  uint32_t geometry, point;
  double origin[3];
  double vector[3];
} CwbInspectVector;

/* The value an automatic parameter (one the user left to the plugin, such as a margin
 * derived from gravity, the step and the bodies' size) resolved to in this detection, so the
 * report and the property editor can show it. `name` is the parameter's schema name. */
#define CWB_DERIVED_NAME_SIZE 48
typedef struct CwbDerivedParam {
  char name[CWB_DERIVED_NAME_SIZE];
  double value;
} CwbDerivedParam;

typedef struct CwbInspection {
  size_t struct_size;
  GArray *spans;     /* CwbInspectSpan */
  GArray *voxels;    /* CwbInspectVoxel */
  GArray *cells;     /* CwbInspectCell */
  GArray *vectors;   /* CwbInspectVector */
  GArray *derived;   /* ABI 1.6 (check struct_size): CwbDerivedParam */
} CwbInspection;

/* Publishes the value automatic parameter `name` resolved to (ignored by an older host). */
static inline void
cwb_inspection_add_derived (CwbInspection *inspection, const char *name, double value)
{
  if (!CWB_STRUCT_HAS (inspection, CwbInspection, derived) || inspection->derived == NULL)
    return;
  CwbDerivedParam d = { .value = value };
  g_strlcpy (d.name, name, sizeof d.name);
  g_array_append_val (inspection->derived, d);
}

G_END_DECLS

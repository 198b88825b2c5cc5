/* Overlay geometry: what the viewport draws over the bodies, built on the CPU from the
 * plugin ABI's inspection structures (contact frames of the contact set, CwbInspection),
 * whatever contact model produced them. Kept apart from GL so that tests can count what
 * would be drawn. */
#pragma once

#include "snapshot.h"

G_BEGIN_DECLS

/* What the element overlay colours each tetrahedron by, from CwbSnapshotBody's element
 * strain tensor e and rotation. */
typedef enum CwbElementField {
  CWB_ELEMENT_STRAIN = 0,     /* equivalent (von Mises) strain sqrt(2/3 dev e : dev e):
                               * white none, red the scale */
  CWB_ELEMENT_VOLUME = 1,     /* volumetric strain tr e: blue compressed, red expanded */
  CWB_ELEMENT_ROTATION = 2,   /* rotation from rest (rad): white none, purple the scale */
} CwbElementField;
#define CWB_RENDER_ELEMENT_FIELD_COUNT 3
/* "strain", "volume", "rotation": the View panel's and --view's names of the fields. */
extern const char *const cwb_render_element_field_names[CWB_RENDER_ELEMENT_FIELD_COUNT];

/* What the element overlay colours a particle body's particles by, from CwbSnapshotBody's
 * node values (ABI 1.22 inspect_nodes): particle_fields.h. */
typedef enum CwbParticleField {
  CWB_PARTICLE_DENSITY = 0,   /* density error rho / rho_0 - 1: blue rarefied, white at rest
                               * density, red compressed */
  CWB_PARTICLE_PRESSURE = 1,  /* pressure (Pa): white none, red the scale */
  CWB_PARTICLE_SPEED = 2,     /* speed (m/s): white at rest, blue the scale */
} CwbParticleField;
#define CWB_RENDER_PARTICLE_FIELD_COUNT 3
/* "density", "pressure", "speed": the View panel's and --view's names of the fields. */
extern const char *const cwb_render_particle_field_names[CWB_RENDER_PARTICLE_FIELD_COUNT];

/* How a particle body is drawn: each particle as an octahedron of its radius (the lattice it
 * is made of), or the surface around them all (fluid_surfaces.h: a fluid's free surface). */
typedef enum CwbParticleStyle {
  CWB_PARTICLES_OCTAHEDRA = 0,
  CWB_PARTICLES_SURFACE = 1,
} CwbParticleStyle;
#define CWB_RENDER_PARTICLE_STYLE_COUNT 2
/* "particles", "surface": the View panel's and --view's names of the styles. */
extern const char *const cwb_render_particle_style_names[CWB_RENDER_PARTICLE_STYLE_COUNT];

typedef enum CwbSectionAxis {
  CWB_SECTION_NONE = 0,
  CWB_SECTION_X, CWB_SECTION_Y, CWB_SECTION_Z,
  CWB_SECTION_VIEW,   /* facing the camera: the near half removed */
} CwbSectionAxis;
#define CWB_RENDER_SECTION_COUNT 5
/* "none", "x", "y", "z", "view": the View panel's and --view's names. */
extern const char *const cwb_render_section_names[CWB_RENDER_SECTION_COUNT];

typedef struct CwbOverlayOptions {
  gboolean grid;            /* the ground grid at z = 0 */
  gboolean contacts;        /* contact normals and force arrows, coloured by state */
  gboolean cones;           /* friction cones at each contact */
  gboolean depth_vectors;   /* penetration depth vectors (Spillmann 2007) */
  gboolean gradients;       /* volume and density gradients (Allard 2010, Faure 2007) */
  gboolean spans;           /* LDI intersection spans */
  gboolean cells;           /* multi-volume grid cells */
  gboolean voxels;          /* intersection and density voxels */
  gboolean wireframe;       /* triangle edges of every body */
  gboolean aabbs;           /* each body's axis-aligned bounding box */
  gboolean elements;        /* deformable bodies' tetrahedra, coloured by element_field, and
                             * the particles of bodies that report node values, coloured by
                             * particle_field */
  CwbElementField element_field;
  double element_scale;     /* the |value| drawn at full colour (strain, or rad); 0:
                             * automatic, the largest in the frame (cwb_render_element_scale) */
  CwbParticleField particle_field;
  double particle_scale;    /* the value drawn at full colour (1, Pa or m/s); 0: automatic
                             * (cwb_render_particle_scale) */
  CwbParticleStyle particle_style;
  double force_scale;       /* m per N: force arrows and cone heights; 0: automatic
                             * (cwb_render_overlay_force_scale) */
  double vector_scale;      /* length factor of inspection vectors */
  /* How bodies are drawn, by name (NULL-terminated lists borrowed for the frame, or NULL):
   * hidden bodies are not drawn (nor their wireframe, box and elements), translucent ones at
   * xray_opacity, and when isolated_bodies names any, only those. X-ray draws every body at
   * xray_opacity, so what lies inside (spans, cells, voxels, elements) shows through. */
  const char *const *hidden_bodies;
  const char *const *translucent_bodies;
  const char *const *isolated_bodies;
  gboolean xray;
  double xray_opacity;
  /* A section plane cutting the bodies (not the overlays): normal along x, y or z, or the
   * view direction (CWB_SECTION_*), through the centre of the moving bodies' box moved by
   * section_offset (m) along the normal; the half the normal points to is removed. */
  CwbSectionAxis section;
  double section_offset;
  /* Text over the frame (annotations.h): the legend of the active overlays, the bodies'
   * names, and the largest contacts' normal forces. */
  gboolean legend, body_labels, contact_labels;
  /* Highlights the GUI asks for (all off when zeroed): a selected body's outline, a picked
   * contact, and the mouse spring from the grabbed point to its target. */
  gboolean highlight_body, highlight_contact;
  size_t selected_body, picked_contact;
  gboolean grab;
  double grab_point[3], grab_target[3];
  /* A body being dragged to a new pose: its edges drawn where the drag puts it, turned by the
   * rotation vector ghost_rotation about ghost_pivot, then moved by ghost_translation. */
  gboolean ghost;
  size_t ghost_body;
  double ghost_pivot[3], ghost_rotation[3], ghost_translation[3];
} CwbOverlayOptions;

/* The overlays by name, as the View menu's actions (win.overlay-NAME) and --overlays name
 * them: grid, contacts, cones, depth, gradients, spans, cells, voxels, wireframe, aabbs,
 * elements. */
#define CWB_RENDER_OVERLAY_COUNT 11
extern const char *const cwb_render_overlay_names[CWB_RENDER_OVERLAY_COUNT];
/* The flag of the overlay `name` in `options`, or NULL for an unknown name. */
gboolean *cwb_render_overlay_flag (CwbOverlayOptions *options, const char *name);
/* Sets the overlays from a comma-separated list of names ("all": every one, "none" or "":
 * none); FALSE with the unknown name in the error, `options` then unchanged. */
gboolean cwb_render_overlay_parse (CwbOverlayOptions *options, const char *list,
                                   GError **error);

/* The force scale (m per N) the overlays draw with: options->force_scale, or, when it is 0
 * (automatic), one that draws the weight of the heaviest moving body (m times standard
 * gravity, as a reference force) half as long as the median moving body is large: 1 cm per
 * newton suits 0.2 m boxes of 8 kg and would draw a 1 m box of a tonne's resting contacts
 * 25 m tall. 0.01 when no body moves. With the automatic scale, arrows and cones are cut
 * at 1.5 times the median moving body's size (an impact's force, many weights, stays in the
 * scene), a cut arrow ending in a bar across its tip. */
double cwb_render_overlay_force_scale (const CwbSnapshot *snapshot,
                                       const CwbOverlayOptions *options);

/* The value of `field` for element e of `body` (which has elements). */
double cwb_render_element_value (CwbElementField field, const CwbSnapshotBody *body, size_t e);

/* The scale the element overlay colours with: options->element_scale, or, when it is 0, the
 * largest |value| of the field over the snapshot's elements, at least 0.1 % strain or 1
 * degree (a body at rest then shows pale, not its round-off at full colour). */
double cwb_render_element_scale (const CwbSnapshot *snapshot, const CwbOverlayOptions *options);

/* The element overlay's colour of `value` at `scale` (RGBA): from white (0) to red (+scale),
 * to blue (-scale) for the volumetric strain, to purple for the rotation. */
void cwb_render_element_color (CwbElementField field, double value, double scale, float rgba[4]);

/* The opacity a body of this name is drawn with (0: hidden, 1: opaque), from the options'
 * lists and x-ray. */
double cwb_render_body_opacity (const CwbOverlayOptions *options, const char *name);

/* FALSE, naming it, when a name in the options' body lists is no body of the snapshot's. */
gboolean cwb_render_body_names_check (const CwbOverlayOptions *options,
                                      const CwbSnapshot *snapshot, GError **error);

/* Sets a view setting by the name the View panel and --view use: force_scale, vector_scale,
 * element_field (strain, volume, rotation), element_scale, particle_field (density,
 * pressure, speed), particle_scale, particle_style (particles, surface), xray (true/false),
 * xray_opacity (0 to 1), section (none, x, y, z, view), section_offset (m), legend, labels,
 * contact_labels (true/false). FALSE with a
 * message naming what was expected; `options` then unchanged. */
gboolean cwb_render_view_set (CwbOverlayOptions *options, const char *key, const char *value,
                              GError **error);

/* Grid, contacts and cones on, with the legend; the rest off; automatic force scale. */
void cwb_render_overlay_options_default (CwbOverlayOptions *options);
/* Every overlay on. */
void cwb_render_overlay_options_all (CwbOverlayOptions *options);

typedef struct CwbOverlayVertex {
  float position[3];
  float color[4];
} CwbOverlayVertex;

typedef struct CwbOverlayGeometry {
  GArray *lines;       /* CwbOverlayVertex, two per segment */
  GArray *triangles;   /* CwbOverlayVertex, three per triangle, translucent */
  /* What was drawn, for tests and the status bar. */
  size_t n_force_arrows, n_cones, n_vectors, n_spans, n_cells, n_voxels, n_aabbs, n_ghost_edges;
  size_t n_elements;
  size_t n_particles;  /* particles coloured by particle_field */
  size_t n_root_cells; /* cells one body alone is in (a hierarchy's coarse level) */
  size_t n_clipped;    /* arrows and cones cut to the automatic scale's longest */
  /* The scales the frame was drawn with (for legends): m per N, the element field's and
   * the particle field's. */
  double force_scale, element_scale, particle_scale;
} CwbOverlayGeometry;

void cwb_render_overlay_init (CwbOverlayGeometry *geometry);
void cwb_render_overlay_destroy (CwbOverlayGeometry *geometry);
/* Rebuilds the geometry from a snapshot's contact frames, inspection and geometries. */
void cwb_render_overlay_build (CwbOverlayGeometry *geometry, const CwbSnapshot *snapshot,
                               const CwbOverlayOptions *options);

/* The summed length of the line segments (m): what the overlay scales act on, for tests. */
double cwb_render_overlay_line_length (const CwbOverlayGeometry *geometry);

/* Colour of a contact state (RGBA): stick green, slip red, open grey. */
void cwb_render_state_color (CwbContactState state, float rgba[4]);

G_END_DECLS

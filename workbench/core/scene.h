/* The scene: the world's description on disk (YAML), read-only while stepping.
 *
 * Loading is in two stages. scene_yaml.c parses the file into a small node tree that keeps
 * each value's file, line and column, and decodes the fixed structure (world, contact,
 * solver, bodies) into CwbScene. Plugin parameters stay as nodes (CwbSceneParam) because
 * only the plugin registry knows their schema: world.c validates them when it builds a world,
 * with the same file:line:column in its messages. Saving writes the same format back. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CWB_SCENE_ERROR (cwb_scene_error_quark ())
GQuark cwb_scene_error_quark (void);

typedef enum CwbSceneError {
  CWB_SCENE_ERROR_IO,             /* file cannot be read or written */
  CWB_SCENE_ERROR_SYNTAX,         /* not YAML */
  CWB_SCENE_ERROR_UNKNOWN_FIELD,  /* a key the format does not have */
  CWB_SCENE_ERROR_TYPE,           /* a value of the wrong type */
  CWB_SCENE_ERROR_RANGE,          /* a value outside its allowed range */
  CWB_SCENE_ERROR_MISSING,        /* a required field is absent */
  CWB_SCENE_ERROR_UNKNOWN_PLUGIN, /* names no loaded plugin of the needed kind */
  CWB_SCENE_ERROR_MESH,           /* mesh file missing, unreadable or unusable */
  CWB_SCENE_ERROR_DUPLICATE,      /* two bodies with one name */
  CWB_SCENE_ERROR_REFUSED,        /* a plugin refused its part of the scene (says why) */
  CWB_SCENE_ERROR_LIMIT,          /* past one of the format's limits (nesting, aliases) */
} CwbSceneError;

/* The scene format's limits (docs/scene-format.md): how deep values may nest, and how many
 * values a scene may hold once its aliases are expanded (each alias copies what its anchor
 * names). Beyond either, parsing stops with CWB_SCENE_ERROR_LIMIT at the value that crossed
 * it; every walk of a parsed tree may then recurse without running out of stack. */
#define CWB_SCENE_MAX_DEPTH 64
#define CWB_SCENE_MAX_VALUES 1000000
/* The most triangles a primitive shape may be made of (about 200 MB of mesh and its
 * topology): a sphere up to resolution 1415, a torus up to 1000. */
#define CWB_SCENE_MAX_PRIMITIVE_TRIANGLES 2000000

/* Where a value came from: a scene file (line and column from 1), or a --set override
 * (file is "--set", line 0). `file` is an interned string. */
typedef struct CwbSourceLoc {
  const char *file;
  int line, column;
} CwbSourceLoc;

/* "FILE:LINE:COLUMN" or "--set"; newly allocated. */
char *cwb_source_loc_format (const CwbSourceLoc *loc);

/* Sets *error to "FILE:LINE:COL: FIELD: MESSAGE" in CWB_SCENE_ERROR. */
void cwb_scene_set_error (GError **error, CwbSceneError code, const CwbSourceLoc *loc,
                          const char *field, const char *format, ...) G_GNUC_PRINTF (5, 6);

typedef enum CwbNodeKind {
  CWB_NODE_SCALAR,
  CWB_NODE_SEQUENCE,
  CWB_NODE_MAPPING,
} CwbNodeKind;

/* A YAML value with its position. MAPPING items alternate key, value. */
typedef struct CwbSceneNode CwbSceneNode;
struct CwbSceneNode {
  CwbNodeKind kind;
  char *scalar;          /* SCALAR */
  gboolean quoted;       /* SCALAR written in quotes: always a string */
  GPtrArray *items;      /* SEQUENCE, MAPPING: CwbSceneNode*, owned */
  CwbSourceLoc loc;
};

CwbSceneNode *cwb_scene_node_new_scalar (const char *text, const CwbSourceLoc *loc);
/* An empty SEQUENCE or MAPPING. */
CwbSceneNode *cwb_scene_node_new_container (CwbNodeKind kind, const CwbSourceLoc *loc);
/* TRUE when both trees hold the same kinds, texts and quoting (locations are ignored). */
gboolean cwb_scene_node_equal (const CwbSceneNode *a, const CwbSceneNode *b);
CwbSceneNode *cwb_scene_node_copy (const CwbSceneNode *node);
void cwb_scene_node_free (CwbSceneNode *node);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbSceneNode, cwb_scene_node_free)

/* Parses a YAML value as written on a command line or in a file ("0.5", "[0, 0, -9.81]",
 * "true", "secant"); NULL with CWB_SCENE_ERROR_SYNTAX on bad syntax. */
CwbSceneNode *cwb_scene_node_parse (const char *text, const CwbSourceLoc *loc, GError **error);

/* The shortest decimal text that reads back (g_ascii_strtod) as the same double, as scene
 * files write numbers ("0.1", "1e-09", "123456.789"); written into buf, which it returns. */
char *cwb_scene_format_double (char buf[G_ASCII_DTOSTR_BUF_SIZE], double value);

/* Typed reading of nodes, with messages naming loc and field. */
gboolean cwb_scene_node_get_double (const CwbSceneNode *node, const char *field, double *out,
                                    GError **error);
gboolean cwb_scene_node_get_int (const CwbSceneNode *node, const char *field, gint64 *out,
                                 GError **error);
gboolean cwb_scene_node_get_bool (const CwbSceneNode *node, const char *field, gboolean *out,
                                  GError **error);
/* Any scalar (quoted or not) as text; the string stays owned by the node. */
gboolean cwb_scene_node_get_string (const CwbSceneNode *node, const char *field,
                                    const char **out, GError **error);
/* A sequence of exactly n numbers. */
gboolean cwb_scene_node_get_vec (const CwbSceneNode *node, const char *field, double *out,
                                 size_t n, GError **error);

/* One plugin parameter as written in the scene (validated later against the schema). */
typedef struct CwbSceneParam {
  char *name;
  CwbSceneNode *value;
  CwbSourceLoc key_loc;
} CwbSceneParam;

typedef enum CwbShapeKind {
  CWB_SHAPE_BOX,
  CWB_SHAPE_SPHERE,
  CWB_SHAPE_CYLINDER,   /* axis along the body's z */
  CWB_SHAPE_CAPSULE,    /* axis along z; height is the cylinder part between the caps */
  CWB_SHAPE_TORUS,      /* in the xy plane, around z */
  CWB_SHAPE_GROUND,     /* static ground: a large slab whose top face is the body's z = 0 */
  CWB_SHAPE_MESH,       /* OBJ, PLY or STL file */
  CWB_SHAPE_RECTANGLE,  /* open and flat, in the xy plane, normal +z (cloth) */
} CwbShapeKind;

typedef struct CwbShapeDesc {
  CwbShapeKind kind;
  double size[3];          /* BOX: full extents; GROUND: extents of the slab; RECTANGLE:
                            * [x, y] extents, size[2] = 0 */
  double radius;           /* SPHERE, CYLINDER, CAPSULE */
  double height;           /* CYLINDER, CAPSULE */
  double major_radius;     /* TORUS: centre of the tube to the axis */
  double minor_radius;     /* TORUS: tube radius */
  int resolution;          /* tessellation: segments around a circle; RECTANGLE: grid cells
                            * along the longer side */
  char *mesh_file;         /* MESH: as written, relative to the scene file's folder */
  double scale;            /* MESH: uniform scale applied at load */
  CwbSourceLoc loc;        /* of the shape mapping */
  CwbSourceLoc file_loc;   /* of the mesh file value, for missing-file messages */
  char *field;             /* dotted path of the shape ("bodies.box.shape") for messages;
                            * NULL reads as "shape" */
} CwbShapeDesc;

typedef struct CwbBodyDesc {
  char *name;
  char *model;             /* body-model plugin name */
  char *mapping;           /* mapping plugin name */
  CwbShapeDesc shape;
  double position[3];
  double orientation[4];   /* unit quaternion w, x, y, z */
  double linear_velocity[3];
  double angular_velocity[3];
  double density;          /* kg/m^3 */
  double friction;         /* Coulomb coefficient of the material */
  gboolean fixed;
  GPtrArray *model_params;   /* CwbSceneParam*, the body model's parameters */
  GPtrArray *mapping_params; /* CwbSceneParam*, the mapping's parameters */
  CwbSourceLoc loc, model_loc, mapping_loc;
} CwbBodyDesc;

/* The solver of a scene that names none (docs/scene-format.md). */
#define CWB_SCENE_DEFAULT_SOLVER "constraint"

typedef struct CwbScene {
  char *path;              /* file it was loaded from or last saved to; NULL if none */
  double dt;
  double gravity[3];
  char *contact_model;     /* contact-model plugin name */
  GPtrArray *contact_params;
  char *solver;            /* solver plugin name */
  GPtrArray *solver_params;
  /* The parameters of the plugins not in use, kept for when they come back (the sections'
   * other_models): CwbSceneParam* named after the plugin, each value a MAPPING node of its
   * parameters. Never given to the plugin in use. */
  GPtrArray *contact_kept, *solver_kept;
  GPtrArray *bodies;       /* CwbBodyDesc* */
  CwbSourceLoc contact_model_loc, solver_loc;
} CwbScene;

CwbScene *cwb_scene_new (void);
void cwb_scene_free (CwbScene *scene);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbScene, cwb_scene_free)

/* A deep copy (locations kept), e.g. for a world built on another thread while the original
 * may be edited. */
CwbScene *cwb_scene_copy (const CwbScene *scene);
CwbScene *cwb_scene_load (const char *path, GError **error);
/* `name` stands for the file in messages. */
CwbScene *cwb_scene_load_from_data (const char *data, gssize length, const char *name,
                                    GError **error);
/* The YAML text of a scene, in the format cwb_scene_load reads. */
char *cwb_scene_to_yaml (const CwbScene *scene);
/* Writes the scene's text after reading it back as the same scene, through
 * cwb_file_replace (file_replace.h): atomically, keeping the file's mode, owner and
 * symlinks, refusing a read-only or hard-linked file; a scene holding text that is not
 * UTF-8 is refused. A failed save leaves the previous file intact and no temporary. */
gboolean cwb_scene_save (const CwbScene *scene, const char *path, GError **error);

CwbBodyDesc *cwb_scene_find_body (const CwbScene *scene, const char *name);

/* A body with the format's defaults (model and mapping "rigid", identity pose, zero velocity,
 * density 1000, friction 0.5, not fixed, a unit box) and no name; cwb_scene_body_free frees
 * it and everything it holds. */
CwbBodyDesc *cwb_scene_body_new (void);
void cwb_scene_body_free (CwbBodyDesc *body);
/* A deep copy: its own strings and parameter arrays (nodes copied, locations kept). */
CwbBodyDesc *cwb_scene_body_copy (const CwbBodyDesc *body);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbBodyDesc, cwb_scene_body_free)

/* TRUE when both scenes describe the same world: every field bit-identical, plugin parameters
 * equal as nodes in the same order (locations and `path` are ignored). */
gboolean cwb_scene_equal (const CwbScene *a, const CwbScene *b);

/* Applies one --set KEY=VALUE override to the structure (world.dt, world.gravity,
 * contact.model, contact.PARAM, solver.name, solver.PARAM, bodies.NAME.FIELD). Fixed fields
 * are type-checked here; plugin parameters are stored and checked against their schema when
 * the world is built. bodies.NAME.FIELD with a FIELD the format does not have is stored as a
 * parameter of the body model, which the world moves to the mapping's parameters when only
 * the mapping's schema has it (see cwb_scene_params_move). */
gboolean cwb_scene_apply_set (CwbScene *scene, const char *key, const char *value,
                              GError **error);
/* cwb_scene_apply_set without a word on stderr: *note gets what cwb_scene_choose_plugin moved
 * (or NULL), for the caller to show. cwb_scene_apply_set prints it as a message. */
gboolean cwb_scene_apply_set_noted (CwbScene *scene, const char *key, const char *value,
                                    char **note, GError **error);
/* One "KEY=VALUE" override, as --set and --at take it: cwb_scene_apply_set_noted on its parts,
 * SYNTAX ("--set TEXT: expected KEY=VALUE") when there is no KEY=. */
gboolean cwb_scene_apply_assignment (CwbScene *scene, const char *set, char **note,
                                     GError **error);
/* Applies "KEY=VALUE" overrides (NULL-terminated; may be NULL): those choosing a plugin
 * (contact.model, solver.name) first, then the others in their order, so that a parameter
 * given beside a new plugin is that plugin's. Stops at the first that fails. */
gboolean cwb_scene_apply_sets (CwbScene *scene, char *const *sets, GError **error);

/* Makes `name` the contact model (`contact`; NULL: none) or the solver. The parameters of the
 * plugin in use are kept under its name (other_models) and those kept for `name` come back, so
 * that no plugin is given another's parameters and none are lost; `loc` becomes the name's
 * location. Choosing the plugin in use changes nothing. Returns what moved, for a note to the
 * user ("the parameters of ldi (pixel_size) are kept for it; those of penalty (stiffness) are
 * back"), or NULL when nothing did. */
char *cwb_scene_choose_plugin (CwbScene *scene, gboolean contact, const char *name,
                               const CwbSourceLoc *loc);
/* The parameters kept for plugin `name` of the section (a new CwbSceneParam array), or NULL
 * when none are: what cwb_scene_choose_plugin would bring back. */
GPtrArray *cwb_scene_kept_params (const CwbScene *scene, gboolean contact, const char *name);

/* Finds a parameter by name in a CwbSceneParam array; NULL if absent. */
CwbSceneParam *cwb_scene_params_find (GPtrArray *params, const char *name);
/* Adds or replaces a parameter (the node is taken). A replaced parameter keeps its place. */
void cwb_scene_params_set (GPtrArray *params, const char *name, CwbSceneNode *value,
                           const CwbSourceLoc *loc);
/* A new array of CwbSceneParam* that frees its elements. */
GPtrArray *cwb_scene_params_new (void);
void cwb_scene_param_free (CwbSceneParam *param);

/* Moves the parameter `name` from one array to the other (replacing one of that name there);
 * FALSE when `from` has none. The world uses it to resolve --set overrides: the scene
 * stores every bodies.NAME.PARAM override as a body-model parameter (its key_loc.file is
 * "--set"); when the body model's schema has no such name but the mapping's has, the world
 * moves it with cwb_scene_params_move (body->model_params, body->mapping_params, name). */
gboolean cwb_scene_params_move (GPtrArray *from, GPtrArray *to, const char *name);

G_END_DECLS

/* Scene files: YAML text to node trees (libyaml's event parser) and scenes back to YAML text
 * (libyaml's emitter). Decoding the tree into a CwbScene is scene_decode.c's. */
#include <string.h>
#include <yaml.h>

#include "file_replace.h"
#include "scene.h"
#include "scene_private.h"

/* ---- parsing -------------------------------------------------------------------------- */

typedef struct Parse {
  const char *file;              /* interned */
  const CwbSourceLoc *fixed_loc;
  GPtrArray *stack;              /* open containers, borrowed from the tree */
  GHashTable *anchors;           /* anchor name -> node, borrowed */
  CwbSceneNode *root;
  gboolean have_document;
  size_t values;                 /* nodes made so far, alias copies included */
} Parse;

static CwbSourceLoc
parse_loc (const Parse *p, yaml_mark_t mark)
{
  if (p->fixed_loc != NULL)
    return *p->fixed_loc;
  /* libyaml counts lines and columns from 0; messages count from 1 like compilers do. */
  return (CwbSourceLoc) { p->file, (int) mark.line + 1, (int) mark.column + 1 };
}

static gboolean
parse_fail (const Parse *p, CwbSceneError code, yaml_mark_t mark, GError **error,
            const char *what)
{
  CwbSourceLoc loc = parse_loc (p, mark);
  g_autofree char *where = cwb_source_loc_format (&loc);
  g_set_error (error, CWB_SCENE_ERROR, code, "%s: %s", where, what);
  return FALSE;
}

/* Attaches a finished node to the open container (or makes it the root); takes node. */
static gboolean
parse_attach (Parse *p, CwbSceneNode *node, yaml_mark_t mark, GError **error)
{
  if (p->stack->len == 0)
    {
      if (p->root != NULL)
        {
          cwb_scene_node_free (node);
          return parse_fail (p, CWB_SCENE_ERROR_SYNTAX, mark, error,
                             "more than one YAML document, expected one");
        }
      p->root = node;
      return TRUE;
    }
  CwbSceneNode *parent = p->stack->pdata[p->stack->len - 1];
  if (parent->kind == CWB_NODE_MAPPING && parent->items->len % 2 == 0)
    {
      /* node is a key */
      if (node->kind != CWB_NODE_SCALAR)
        {
          cwb_scene_node_free (node);
          return parse_fail (p, CWB_SCENE_ERROR_SYNTAX, mark, error,
                             "a mapping key must be a plain name, not a list or mapping");
        }
      for (guint i = 0; i < parent->items->len; i += 2)
        {
          const CwbSceneNode *key = parent->items->pdata[i];
          if (strcmp (key->scalar, node->scalar) == 0)
            {
              g_autofree char *first = cwb_source_loc_format (&key->loc);
              g_autofree char *msg = g_strdup_printf ("%s: duplicate key, first at %s",
                                                      node->scalar, first);
              cwb_scene_node_free (node);
              return parse_fail (p, CWB_SCENE_ERROR_DUPLICATE, mark, error, msg);
            }
        }
    }
  g_ptr_array_add (parent->items, node);
  return TRUE;
}

/* Counts a new value of `height` levels and `count` nodes made at the open container's
 * depth; FALSE, with the error set, when it crosses a limit of the format. */
static gboolean
parse_count (Parse *p, size_t count, size_t height, yaml_mark_t mark, GError **error)
{
  if (p->stack->len + height > CWB_SCENE_MAX_DEPTH)
    {
      g_autofree char *what = g_strdup_printf ("values nest deeper than %d levels (the scene "
                                               "format's limit)", CWB_SCENE_MAX_DEPTH);
      return parse_fail (p, CWB_SCENE_ERROR_LIMIT, mark, error, what);
    }
  if (count > CWB_SCENE_MAX_VALUES - p->values)
    {
      g_autofree char *what = g_strdup_printf ("the scene holds more than %d values with its "
                                               "aliases expanded (the scene format's limit)",
                                               CWB_SCENE_MAX_VALUES);
      return parse_fail (p, CWB_SCENE_ERROR_LIMIT, mark, error, what);
    }
  p->values += count;
  return TRUE;
}

/* The number of nodes of a tree and its height (1 for a scalar); trees built here are at
 * most CWB_SCENE_MAX_DEPTH deep, so the recursion is bounded. */
static size_t
tree_size (const CwbSceneNode *node, size_t *height)
{
  size_t count = 1, below = 0;
  for (guint i = 0; node->items != NULL && i < node->items->len; i++)
    {
      size_t h = 0;
      count += tree_size (node->items->pdata[i], &h);
      below = MAX (below, h);
    }
  *height = below + 1;
  return count;
}

static void
parse_remember_anchor (Parse *p, const yaml_char_t *anchor, CwbSceneNode *node)
{
  if (anchor != NULL)
    g_hash_table_replace (p->anchors, g_strdup ((const char *) anchor), node);
}

static gboolean
parse_event (Parse *p, const yaml_event_t *event, GError **error)
{
  CwbSourceLoc loc = parse_loc (p, event->start_mark);
  switch (event->type)
    {
    case YAML_DOCUMENT_START_EVENT:
      if (p->have_document)
        return parse_fail (p, CWB_SCENE_ERROR_SYNTAX, event->start_mark, error,
                           "more than one YAML document, expected one");
      p->have_document = TRUE;
      return TRUE;
    case YAML_SCALAR_EVENT:
      {
        if (!parse_count (p, 1, 1, event->start_mark, error))
          return FALSE;
        /* "\0" in a quoted scalar: C strings would end there, so "a\0b" and "a\0c" would
         * be one name. */
        if (memchr (event->data.scalar.value, 0, event->data.scalar.length) != NULL)
          return parse_fail (p, CWB_SCENE_ERROR_SYNTAX, event->start_mark, error,
                             "a NUL character (\\0) in a value, expected text without it");
        CwbSceneNode *node = cwb_scene_node_new_scalar ((const char *) event->data.scalar.value,
                                                        &loc);
        node->quoted = event->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE
                       || event->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE
                       || event->data.scalar.style == YAML_LITERAL_SCALAR_STYLE
                       || event->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
        parse_remember_anchor (p, event->data.scalar.anchor, node);
        return parse_attach (p, node, event->start_mark, error);
      }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      {
        gboolean seq = event->type == YAML_SEQUENCE_START_EVENT;
        if (!parse_count (p, 1, 1, event->start_mark, error))
          return FALSE;
        CwbSceneNode *node = cwb_scene_node_new_container (seq ? CWB_NODE_SEQUENCE
                                                               : CWB_NODE_MAPPING, &loc);
        parse_remember_anchor (p, seq ? event->data.sequence_start.anchor
                                      : event->data.mapping_start.anchor, node);
        if (!parse_attach (p, node, event->start_mark, error))
          return FALSE;
        g_ptr_array_add (p->stack, node);
        return TRUE;
      }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      g_ptr_array_remove_index (p->stack, p->stack->len - 1);
      return TRUE;
    case YAML_ALIAS_EVENT:
      {
        /* An alias repeats its anchored value: copy it, so the tree stays a tree. */
        const CwbSceneNode *target = g_hash_table_lookup (p->anchors,
                                                          event->data.alias.anchor);
        if (target == NULL)
          return parse_fail (p, CWB_SCENE_ERROR_SYNTAX, event->start_mark, error,
                             "alias of an unknown anchor");
        /* Counted before it is copied: an anchor that names itself, or aliases of aliases,
         * double the scene with each level ("billion laughs"). */
        size_t height;
        size_t count = tree_size (target, &height);
        if (!parse_count (p, count, height, event->start_mark, error))
          return FALSE;
        CwbSceneNode *copy = cwb_scene_node_copy (target);
        return parse_attach (p, copy, event->start_mark, error);
      }
    case YAML_NO_EVENT:
    case YAML_STREAM_START_EVENT:
    case YAML_STREAM_END_EVENT:
    case YAML_DOCUMENT_END_EVENT:
    default:
      return TRUE;
    }
}

/* The line and column (from 0, as libyaml counts) of a byte offset in the text. */
static yaml_mark_t
mark_at_offset (const char *data, size_t length, size_t offset)
{
  yaml_mark_t mark = { .index = offset };
  for (size_t k = 0; k < offset && k < length; k++)
    {
      if (data[k] == '\n')
        {
          mark.line++;
          mark.column = 0;
        }
      else if (((unsigned char) data[k] & 0xc0u) != 0x80u)
        mark.column++;   /* a character starts here (not a UTF-8 continuation byte) */
    }
  return mark;
}

CwbSceneNode *
cwb_scene_yaml_parse (const char *data, gssize length, const char *file,
                      const CwbSourceLoc *fixed_loc, GError **error)
{
  if (length < 0)
    length = (gssize) strlen (data);
  Parse p = {
    .file = g_intern_string (file != NULL ? file : "<string>"),
    .fixed_loc = fixed_loc,
    .stack = g_ptr_array_new (),
    .anchors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
  };
  yaml_parser_t parser;
  yaml_parser_initialize (&parser);
  yaml_parser_set_input_string (&parser, (const unsigned char *) data, (size_t) length);

  gboolean ok = TRUE, done = FALSE;
  while (ok && !done)
    {
      yaml_event_t event;
      if (!yaml_parser_parse (&parser, &event))
        {
          /* libyaml's own words, at the mark where it noticed the problem. */
          g_autofree char *what = NULL;
          if (parser.context != NULL && fixed_loc == NULL)
            what = g_strdup_printf ("syntax error: %s %s started at %d:%d", parser.problem,
                                    parser.context, (int) parser.context_mark.line + 1,
                                    (int) parser.context_mark.column + 1);
          else if (parser.context != NULL)
            what = g_strdup_printf ("syntax error: %s %s", parser.problem, parser.context);
          else
            what = g_strdup_printf ("syntax error: %s", parser.problem);
          yaml_mark_t mark = parser.problem != NULL ? parser.problem_mark : parser.mark;
          /* The reader's errors (text that is not UTF-8) have an offset, not a mark. */
          if (parser.error == YAML_READER_ERROR)
            {
              mark = mark_at_offset (data, (size_t) length, parser.problem_offset);
              g_free (what);
              what = g_strdup_printf ("not UTF-8 text: %s (byte 0x%02x)", parser.problem,
                                      (unsigned) parser.problem_value & 0xffu);
            }
          ok = parse_fail (&p, CWB_SCENE_ERROR_SYNTAX, mark, error, what);
          break;
        }
      ok = parse_event (&p, &event, error);
      done = event.type == YAML_STREAM_END_EVENT;
      yaml_event_delete (&event);
    }
  yaml_parser_delete (&parser);
  g_ptr_array_unref (p.stack);
  g_hash_table_unref (p.anchors);

  if (!ok)
    {
      cwb_scene_node_free (p.root);
      return NULL;
    }
  if (p.root == NULL)
    {
      CwbSourceLoc loc = fixed_loc != NULL ? *fixed_loc : (CwbSourceLoc) { p.file, 1, 1 };
      p.root = cwb_scene_node_new_scalar ("", &loc);
    }
  return p.root;
}

gboolean
cwb_scene_node_is_null (const CwbSceneNode *node)
{
  if (node->kind != CWB_NODE_SCALAR || node->quoted)
    return FALSE;
  const char *s = node->scalar;
  return s[0] == '\0' || strcmp (s, "~") == 0 || strcmp (s, "null") == 0
         || strcmp (s, "Null") == 0 || strcmp (s, "NULL") == 0;
}

CwbSceneNode *
cwb_scene_node_parse (const char *text, const CwbSourceLoc *loc, GError **error)
{
  g_return_val_if_fail (text != NULL, NULL);
  CwbSourceLoc fixed = loc != NULL ? *loc : (CwbSourceLoc) { "<value>", 0, 0 };
  fixed.file = g_intern_string (fixed.file != NULL ? fixed.file : "<value>");
  return cwb_scene_yaml_parse (text, -1, fixed.file, &fixed, error);
}

CwbScene *
cwb_scene_load_from_data (const char *data, gssize length, const char *name, GError **error)
{
  g_autoptr (CwbSceneNode) root = cwb_scene_yaml_parse (data, length, name, NULL, error);
  if (root == NULL)
    return NULL;
  g_autoptr (CwbScene) scene = cwb_scene_new ();
  if (!cwb_scene_decode (scene, root, error))
    return NULL;
  return g_steal_pointer (&scene);
}

CwbScene *
cwb_scene_load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr (GError) io_error = NULL;
  if (!g_file_get_contents (path, &data, &length, &io_error))
    {
      g_set_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO, "%s: cannot read: %s", path,
                   io_error->message);
      return NULL;
    }
  CwbScene *scene = cwb_scene_load_from_data (data, (gssize) length, path, error);
  if (scene != NULL)
    scene->path = g_strdup (path);
  return scene;
}

/* ---- emitting ------------------------------------------------------------------------- */

typedef struct Emit {
  yaml_emitter_t emitter;
  GString *out;
  gboolean ok;
  char *invalid;   /* the first text that was not UTF-8, escaped; emitted made valid */
} Emit;

static int
emit_write (void *data, unsigned char *buffer, size_t size)
{
  g_string_append_len (data, (const char *) buffer, (gssize) size);
  return 1;
}

static void
emit_event (Emit *e, yaml_event_t *event)
{
  /* yaml_emitter_emit takes the event even when it fails; an emitter error here is a bug
   * (we only build well-formed event sequences), never a user error. */
  if (e->ok && !yaml_emitter_emit (&e->emitter, event))
    {
      g_critical ("YAML emitter: %s", e->emitter.problem);
      e->ok = FALSE;
    }
  else if (!e->ok)
    yaml_event_delete (event);
}

static void
emit_scalar_styled (Emit *e, const char *text, yaml_scalar_style_t style)
{
  /* libyaml refuses text that is not UTF-8 (a file name from a non-UTF-8 folder): its
   * event would be left uninitialised. Such text is noted, for a save to refuse, and
   * emitted with U+FFFD in place of the bad bytes, so that the text stays well formed. */
  g_autofree char *valid = NULL;
  if (!g_utf8_validate (text, -1, NULL))
    {
      if (e->invalid == NULL)
        e->invalid = g_strescape (text, NULL);
      text = valid = g_utf8_make_valid (text, -1);
    }
  yaml_event_t event;
  if (!yaml_scalar_event_initialize (&event, NULL, NULL, (const yaml_char_t *) text,
                                     (int) strlen (text), 1, 1, style))
    {
      g_critical ("YAML emitter: a scalar event could not be made");
      e->ok = FALSE;
      return;
    }
  emit_event (e, &event);
}

static void
emit_string (Emit *e, const char *text)
{
  emit_scalar_styled (e, text, YAML_ANY_SCALAR_STYLE);
}

/* Lossless round trips without printing 0.01 as 0.010000000000000000208: %.17g always reads
 * back, so the loop ends there at the latest. */
char *
cwb_scene_format_double (char buf[G_ASCII_DTOSTR_BUF_SIZE], double value)
{
  static const char *const formats[] = { "%.15g", "%.16g", "%.17g" };
  for (size_t i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, formats[i], value);
      if (g_ascii_strtod (buf, NULL) == value)   /* "-0" keeps the sign of -0.0 */
        break;
    }
  return buf;
}

static void
emit_double (Emit *e, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  cwb_scene_format_double (buf, value);
  emit_scalar_styled (e, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void
emit_int (Emit *e, gint64 value)
{
  char buf[32];
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, value);
  emit_scalar_styled (e, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void
emit_bool (Emit *e, gboolean value)
{
  emit_scalar_styled (e, value ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
}

static void
emit_mapping_start (Emit *e, yaml_mapping_style_t style)
{
  yaml_event_t event;
  yaml_mapping_start_event_initialize (&event, NULL, NULL, 1, style);
  emit_event (e, &event);
}

static void
emit_mapping_end (Emit *e)
{
  yaml_event_t event;
  yaml_mapping_end_event_initialize (&event);
  emit_event (e, &event);
}

static void
emit_sequence_start (Emit *e, yaml_sequence_style_t style)
{
  yaml_event_t event;
  yaml_sequence_start_event_initialize (&event, NULL, NULL, 1, style);
  emit_event (e, &event);
}

static void
emit_sequence_end (Emit *e)
{
  yaml_event_t event;
  yaml_sequence_end_event_initialize (&event);
  emit_event (e, &event);
}

/* Numeric vectors in flow style: [0, 0, -9.81]. */
static void
emit_vec (Emit *e, const double *v, size_t n)
{
  emit_sequence_start (e, YAML_FLOW_SEQUENCE_STYLE);
  for (size_t i = 0; i < n; i++)
    emit_double (e, v[i]);
  emit_sequence_end (e);
}

static gboolean
node_is_flat (const CwbSceneNode *node)
{
  for (guint i = 0; i < node->items->len; i++)
    if (((const CwbSceneNode *) node->items->pdata[i])->kind != CWB_NODE_SCALAR)
      return FALSE;
  return TRUE;
}

/* A plugin parameter's value as it was written: scalars keep their text and quoting (so a
 * quoted "1" stays a string), lists of scalars go in flow style. */
static void
emit_node (Emit *e, const CwbSceneNode *node)
{
  switch (node->kind)
    {
    case CWB_NODE_SCALAR:
      /* An empty plain scalar is YAML's null; libyaml cannot write it plain and would quote
       * it, making it an empty string: "~" is the null it reads back. */
      emit_scalar_styled (e, !node->quoted && node->scalar[0] == '\0' ? "~" : node->scalar,
                          node->quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                       : YAML_PLAIN_SCALAR_STYLE);
      break;
    case CWB_NODE_SEQUENCE:
      emit_sequence_start (e, node_is_flat (node) ? YAML_FLOW_SEQUENCE_STYLE
                                                  : YAML_BLOCK_SEQUENCE_STYLE);
      for (guint i = 0; i < node->items->len; i++)
        emit_node (e, node->items->pdata[i]);
      emit_sequence_end (e);
      break;
    case CWB_NODE_MAPPING:
      emit_mapping_start (e, node->items->len == 0 ? YAML_FLOW_MAPPING_STYLE
                                                   : YAML_BLOCK_MAPPING_STYLE);
      for (guint i = 0; i < node->items->len; i++)
        emit_node (e, node->items->pdata[i]);
      emit_mapping_end (e);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
emit_params (Emit *e, GPtrArray *params)
{
  for (guint i = 0; i < params->len; i++)
    {
      const CwbSceneParam *param = params->pdata[i];
      emit_string (e, param->name);
      emit_node (e, param->value);
    }
}

static void
emit_params_mapping (Emit *e, const char *key, GPtrArray *params)
{
  emit_string (e, key);
  emit_mapping_start (e, params->len == 0 ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
  emit_params (e, params);
  emit_mapping_end (e);
}

static const char *const shape_type_names[] = {
  [CWB_SHAPE_BOX] = "box", [CWB_SHAPE_SPHERE] = "sphere", [CWB_SHAPE_CYLINDER] = "cylinder",
  [CWB_SHAPE_CAPSULE] = "capsule", [CWB_SHAPE_TORUS] = "torus", [CWB_SHAPE_GROUND] = "ground",
  [CWB_SHAPE_MESH] = "mesh", [CWB_SHAPE_RECTANGLE] = "rectangle",
};

static void
emit_shape (Emit *e, const CwbShapeDesc *s)
{
  emit_string (e, "shape");
  emit_mapping_start (e, YAML_FLOW_MAPPING_STYLE);
  emit_string (e, "type");
  emit_string (e, shape_type_names[s->kind]);
  switch (s->kind)
    {
    case CWB_SHAPE_BOX:
    case CWB_SHAPE_GROUND:
      emit_string (e, "size");
      emit_vec (e, s->size, 3);
      break;
    case CWB_SHAPE_RECTANGLE:
      emit_string (e, "size");
      emit_vec (e, s->size, 2);
      break;
    case CWB_SHAPE_SPHERE:
      emit_string (e, "radius");
      emit_double (e, s->radius);
      break;
    case CWB_SHAPE_CYLINDER:
    case CWB_SHAPE_CAPSULE:
      emit_string (e, "radius");
      emit_double (e, s->radius);
      emit_string (e, "height");
      emit_double (e, s->height);
      break;
    case CWB_SHAPE_TORUS:
      emit_string (e, "major_radius");
      emit_double (e, s->major_radius);
      emit_string (e, "minor_radius");
      emit_double (e, s->minor_radius);
      break;
    case CWB_SHAPE_MESH:
      emit_string (e, "file");
      emit_string (e, s->mesh_file != NULL ? s->mesh_file : "");
      emit_string (e, "scale");
      emit_double (e, s->scale);
      break;
    default:
      g_assert_not_reached ();
    }
  if (s->kind == CWB_SHAPE_SPHERE || s->kind == CWB_SHAPE_CYLINDER
      || s->kind == CWB_SHAPE_CAPSULE || s->kind == CWB_SHAPE_TORUS
      || s->kind == CWB_SHAPE_RECTANGLE)
    {
      emit_string (e, "resolution");
      emit_int (e, s->resolution);
    }
  emit_mapping_end (e);
}

static void
emit_body (Emit *e, const CwbBodyDesc *b)
{
  emit_mapping_start (e, YAML_BLOCK_MAPPING_STYLE);
  emit_string (e, "name");
  emit_string (e, b->name != NULL ? b->name : "");
  emit_string (e, "model");
  emit_string (e, b->model);
  emit_string (e, "mapping");
  emit_string (e, b->mapping);
  emit_shape (e, &b->shape);

  emit_string (e, "pose");
  emit_mapping_start (e, YAML_FLOW_MAPPING_STYLE);
  emit_string (e, "position");
  emit_vec (e, b->position, 3);
  emit_string (e, "orientation");
  emit_vec (e, b->orientation, 4);
  emit_mapping_end (e);

  emit_string (e, "velocity");
  emit_mapping_start (e, YAML_FLOW_MAPPING_STYLE);
  emit_string (e, "linear");
  emit_vec (e, b->linear_velocity, 3);
  emit_string (e, "angular");
  emit_vec (e, b->angular_velocity, 3);
  emit_mapping_end (e);

  emit_string (e, "material");
  emit_mapping_start (e, YAML_FLOW_MAPPING_STYLE);
  emit_string (e, "density");
  emit_double (e, b->density);
  emit_string (e, "friction");
  emit_double (e, b->friction);
  emit_mapping_end (e);

  emit_string (e, "fixed");
  emit_bool (e, b->fixed);
  emit_params_mapping (e, "model_params", b->model_params);
  emit_params_mapping (e, "mapping_params", b->mapping_params);
  emit_mapping_end (e);
}

static void
emit_section (Emit *e, const char *section, const char *name_key, const char *name,
              GPtrArray *params, GPtrArray *kept)
{
  if (name == NULL && params->len == 0 && kept->len == 0)
    return;   /* "host default": leave the section out, as a hand-written scene would */
  emit_string (e, section);
  emit_mapping_start (e, YAML_BLOCK_MAPPING_STYLE);
  if (name != NULL)
    {
      emit_string (e, name_key);
      emit_string (e, name);
    }
  emit_params (e, params);
  if (kept->len > 0)
    emit_params_mapping (e, "other_models", kept);
  emit_mapping_end (e);
}

/* The scene's text; *invalid gets the first of its texts that was not UTF-8 (escaped), or
 * NULL. */
static char *
scene_emit (const CwbScene *scene, char **invalid)
{
  Emit e = { .out = g_string_new (NULL), .ok = TRUE };
  yaml_emitter_initialize (&e.emitter);
  yaml_emitter_set_output (&e.emitter, emit_write, e.out);
  yaml_emitter_set_unicode (&e.emitter, 1);
  yaml_emitter_set_width (&e.emitter, 100);

  yaml_event_t event;
  yaml_stream_start_event_initialize (&event, YAML_UTF8_ENCODING);
  emit_event (&e, &event);
  yaml_document_start_event_initialize (&event, NULL, NULL, NULL, 1);
  emit_event (&e, &event);
  emit_mapping_start (&e, YAML_BLOCK_MAPPING_STYLE);

  emit_string (&e, "world");
  emit_mapping_start (&e, YAML_BLOCK_MAPPING_STYLE);
  emit_string (&e, "dt");
  emit_double (&e, scene->dt);
  emit_string (&e, "gravity");
  emit_vec (&e, scene->gravity, 3);
  emit_mapping_end (&e);

  emit_section (&e, "contact", "model", scene->contact_model, scene->contact_params,
                scene->contact_kept);
  emit_section (&e, "solver", "name", scene->solver, scene->solver_params, scene->solver_kept);

  emit_string (&e, "bodies");
  emit_sequence_start (&e, scene->bodies->len == 0 ? YAML_FLOW_SEQUENCE_STYLE
                                                   : YAML_BLOCK_SEQUENCE_STYLE);
  for (guint i = 0; i < scene->bodies->len; i++)
    emit_body (&e, scene->bodies->pdata[i]);
  emit_sequence_end (&e);

  emit_mapping_end (&e);
  yaml_document_end_event_initialize (&event, 1);
  emit_event (&e, &event);
  yaml_stream_end_event_initialize (&event);
  emit_event (&e, &event);
  yaml_emitter_flush (&e.emitter);
  yaml_emitter_delete (&e.emitter);
  *invalid = e.invalid;
  return g_string_free (e.out, FALSE);
}

char *
cwb_scene_to_yaml (const CwbScene *scene)
{
  g_autofree char *invalid = NULL;
  return scene_emit (scene, &invalid);
}

gboolean
cwb_scene_save (const CwbScene *scene, const char *path, GError **error)
{
  g_autofree char *invalid = NULL;
  g_autofree char *text = scene_emit (scene, &invalid);
  if (invalid != NULL)
    {
      g_set_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO,
                   "%s: not saved: the scene holds text that is not UTF-8 (\"%s\"), and a "
                   "scene file is UTF-8 text: rename the file or body it names", path, invalid);
      return FALSE;
    }
  /* What is written must read back as this scene; a text that does not (a cut-off
   * emission, a value the format cannot hold) is never put in place of the old file. */
  g_autoptr (GError) back_error = NULL;
  g_autoptr (CwbScene) back = cwb_scene_load_from_data (text, -1, path, &back_error);
  if (back == NULL || !cwb_scene_equal (scene, back))
    {
      g_set_error (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO,
                   "%s: not saved: the text made for the scene does not read back as the same "
                   "scene (%s); the file is unchanged", path,
                   back_error != NULL ? back_error->message : "a value differs");
      return FALSE;
    }
  g_autoptr (GError) io_error = NULL;
  if (!cwb_file_replace (path, text, strlen (text), &io_error))
    {
      g_set_error_literal (error, CWB_SCENE_ERROR, CWB_SCENE_ERROR_IO, io_error->message);
      return FALSE;
    }
  return TRUE;
}

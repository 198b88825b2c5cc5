/* The identity of an LDI contact (CwbContactSet.contact_ids, ABI 1.6): what stays the same
 * from step to step while the contact lasts. A mono-volume contact is its body pair; a
 * multi-volume contact its pair and its cell, whose integer coordinates on the world grid of
 * side cell_size (the regions' boxes start on that grid) stay put while the bodies move. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* The identity of the volume of bodies a < b, in the world cell `cell` (NULL: the pair's
 * whole volume). Never 0. Pairs are packed exactly (distinct pairs, distinct ids); cells are
 * packed exactly while a, b < 2^CONTACT_ID_CELL_BODY_BITS and every coordinate fits in
 * CONTACT_ID_CELL_BITS signed bits, and hashed beyond (see contact_id.c). */
guint64 contact_id (uint32_t body_a, uint32_t body_b, const int64_t *cell);

/* The identity of the part at vertex `point` of body `split_body` (a or b) of a pair's whole
 * volume split at that body's vertices (patch_split.h): a hashed id of the form above, which
 * no cell's packed id meets. */
guint64 contact_id_part (uint32_t body_a, uint32_t body_b, uint32_t split_body,
                         uint32_t point);

#define CONTACT_ID_CELL_BODY_BITS 11
#define CONTACT_ID_CELL_BITS 13

G_END_DECLS

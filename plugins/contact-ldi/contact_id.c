/* LDI contact identities (contact_id.h).
 *
 * The top two bits tell the three forms apart, so that ids of different forms never meet:
 *   00  a pair: body_a in bits 31-61, body_b in bits 0-30 (bodies below 2^31);
 *   01  a cell, packed: body_a and body_b in 11 bits each, then the cell's x, y, z in 13
 *       bits each, two's complement (61 bits): 2 048 bodies, cells within 4 096 of the
 *       world origin on each axis (205 m with 5 cm cells);
 *   1x  a cell beyond that: a 63-bit hash of (a, b, x, y, z). Two such ids of one set
 *       coincide with probability about n^2 / 2^64 for n of them (1e-13 for a million).
 * A pair id is never 0 since body_a < body_b. A part of a split patch (contact_id_part) takes
 * the hashed form, its body and vertex in place of a cell far outside the packed range. */
#include "contact_id.h"

#include <cwb/contact.h>

#define TAG_CELL (G_GUINT64_CONSTANT (1) << 62)
#define TAG_HASH (G_GUINT64_CONSTANT (1) << 63)

guint64
contact_id (uint32_t body_a, uint32_t body_b, const int64_t *cell)
{
  if (cell == NULL)
    return ((guint64) (body_a & 0x7fffffffu) << 31) | (body_b & 0x7fffffffu);
  const int64_t half = (int64_t) 1 << (CONTACT_ID_CELL_BITS - 1);
  gboolean fits = body_a < (1u << CONTACT_ID_CELL_BODY_BITS)
                  && body_b < (1u << CONTACT_ID_CELL_BODY_BITS);
  for (int k = 0; k < 3; k++)
    fits = fits && cell[k] >= -half && cell[k] < half;
  if (fits)
    {
      guint64 id = TAG_CELL | ((guint64) body_a << (CONTACT_ID_CELL_BODY_BITS
                                                    + 3 * CONTACT_ID_CELL_BITS))
                   | ((guint64) body_b << (3 * CONTACT_ID_CELL_BITS));
      const guint64 mask = (G_GUINT64_CONSTANT (1) << CONTACT_ID_CELL_BITS) - 1;
      for (int k = 0; k < 3; k++)
        id |= ((guint64) cell[k] & mask) << ((2 - k) * CONTACT_ID_CELL_BITS);
      return id;
    }
  guint64 h = cwb_contact_id_mix (((guint64) body_a << 32) | body_b);
  for (int k = 0; k < 3; k++)
    h = cwb_contact_id_mix (h ^ (guint64) cell[k]);
  return TAG_HASH | (h >> 1);
}

guint64
contact_id_part (uint32_t body_a, uint32_t body_b, uint32_t split_body, uint32_t point)
{
  const int64_t cell[3] = { G_MININT64, split_body, point };
  return contact_id (body_a, body_b, cell);
}

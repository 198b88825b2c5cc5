/* Contact islands by union-find over the bodies of each frame's rows (see the header). */
#include "contact_islands.h"

void
contact_islands_init (ContactIslands *islands)
{
  islands->parent = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  islands->body_island = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  islands->frame_island = g_array_new (FALSE, FALSE, sizeof (uint32_t));
  islands->n_islands = 0;
}

void
contact_islands_clear (ContactIslands *islands)
{
  g_clear_pointer (&islands->parent, g_array_unref);
  g_clear_pointer (&islands->body_island, g_array_unref);
  g_clear_pointer (&islands->frame_island, g_array_unref);
}

/* The root of body b, halving the path on the way. */
static uint32_t
find (uint32_t *parent, uint32_t b)
{
  while (parent[b] != b)
    {
      parent[b] = parent[parent[b]];
      b = parent[b];
    }
  return b;
}

/* The first body the frame's rows act on, CWB_NO_BODY when none moves; joins every other
 * body they act on to it. */
static uint32_t
join_frame (uint32_t *parent, const CwbContactFrame *frame, const CwbDofRows *h)
{
  uint32_t first = CWB_NO_BODY, last = CWB_NO_BODY;
  for (size_t i = frame->first_row; i < (size_t) frame->first_row + frame->n_rows; i++)
    for (size_t e = h->row_start[i]; e < h->row_start[i + 1]; e++)
      {
        /* A row's entries come in one run per body (a rigid body's six DOFs): join a body
         * once per run, not once per entry. */
        uint32_t body = h->entries[e].body;
        if (body == last)
          continue;
        last = body;
        if (first == CWB_NO_BODY)
          {
            first = body;
            continue;
          }
        if (body == first)
          continue;
        uint32_t a = find (parent, first), b = find (parent, body);
        if (a != b)
          parent[MAX (a, b)] = MIN (a, b);
      }
  return first;
}

void
contact_islands_build (ContactIslands *islands, size_t n_bodies, const CwbContactSet *set,
                       const CwbDofRows *h)
{
  size_t n_frames = set->frames->len;
  g_array_set_size (islands->parent, MAX (n_bodies, 1));
  g_array_set_size (islands->body_island, MAX (n_bodies, 1));
  g_array_set_size (islands->frame_island, MAX (n_frames, 1));
  uint32_t *parent = (uint32_t *) islands->parent->data;
  uint32_t *body_island = (uint32_t *) islands->body_island->data;
  uint32_t *frame_island = (uint32_t *) islands->frame_island->data;
  for (size_t b = 0; b < n_bodies; b++)
    {
      parent[b] = (uint32_t) b;
      body_island[b] = CONTACT_ISLAND_NONE;
    }
  const CwbContactFrame *frames = (const CwbContactFrame *) set->frames->data;
  /* frame_island holds each frame's first body until the numbering below. */
  for (size_t k = 0; k < n_frames; k++)
    {
      const CwbContactFrame *frame = &frames[k];
      frame_island[k] = frame->first_row + frame->n_rows <= h->n_rows
                          ? join_frame (parent, frame, h) : CWB_NO_BODY;
    }
  islands->n_islands = 0;
  for (size_t k = 0; k < n_frames; k++)
    {
      if (frame_island[k] == CWB_NO_BODY)
        {
          frame_island[k] = CONTACT_ISLAND_NONE;
          continue;
        }
      uint32_t root = find (parent, frame_island[k]);
      if (body_island[root] == CONTACT_ISLAND_NONE)
        body_island[root] = (uint32_t) islands->n_islands++;
      frame_island[k] = body_island[root];
    }
  for (size_t b = 0; b < n_bodies; b++)
    if (body_island[b] == CONTACT_ISLAND_NONE)
      {
        uint32_t root = find (parent, (uint32_t) b);
        body_island[b] = root == b ? CONTACT_ISLAND_NONE : body_island[root];
      }
}

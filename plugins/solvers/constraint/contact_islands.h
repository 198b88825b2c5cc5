/* Contact islands: the bodies partitioned into sets connected through contact frames, fixed
 * bodies not connecting (a fixed body takes any force, so two stacks on one ground are
 * independent). Frames of two islands share no moving body, so the contact MLCP falls apart
 * into one independent problem per island (solved one after the other by bgs_solve), and an
 * island is the unit that falls asleep and wakes (sleep.h). */
#pragma once

#include <cwb/cwb.h>

G_BEGIN_DECLS

#define CONTACT_ISLAND_NONE UINT32_MAX

typedef struct ContactIslands {
  GArray *parent;        /* uint32_t per body: union-find forest */
  GArray *body_island;   /* uint32_t per body: its island, CONTACT_ISLAND_NONE for a fixed
                          * body or one that touches nothing moving */
  GArray *frame_island;  /* uint32_t per frame: the island of its bodies, CONTACT_ISLAND_NONE
                          * for a frame whose rows touch no moving body */
  size_t n_islands;
} ContactIslands;

void contact_islands_init (ContactIslands *islands);
void contact_islands_clear (ContactIslands *islands);

/* Partitions the bodies through the frames of `set`: the bodies a frame's rows act on are
 * those of their entries in H (which leaves fixed bodies out). Islands are numbered in the
 * order of their first frame, so the numbering is deterministic. A moving body without a
 * frame gets no island. */
void contact_islands_build (ContactIslands *islands, size_t n_bodies, const CwbContactSet *set,
                            const CwbDofRows *h);

G_END_DECLS

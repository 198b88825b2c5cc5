/* The history: the most recent snapshots, bounded by count and by memory, so the user can go
 * back and forth through them and resume from any (as MuJoCo's simulate does). The oldest
 * snapshots go first when a bound is reached; the latest one is always kept. Not thread-safe:
 * the simulation guards it. */
#pragma once

#include "snapshot.h"

G_BEGIN_DECLS

typedef struct CwbHistory CwbHistory;

CwbHistory *cwb_history_new (size_t max_states, size_t max_bytes);
void cwb_history_free (CwbHistory *history);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CwbHistory, cwb_history_free)

/* Appends a snapshot (takes a reference) and drops the oldest past the bounds. */
void cwb_history_push (CwbHistory *history, CwbSnapshot *snapshot);
size_t cwb_history_len (const CwbHistory *history);
/* Index 0 is the oldest kept; borrowed. */
CwbSnapshot *cwb_history_get (const CwbHistory *history, size_t index);
/* Keeps the first `len` snapshots (the user resumed from snapshot len - 1). */
void cwb_history_truncate (CwbHistory *history, size_t len);
void cwb_history_clear (CwbHistory *history);
size_t cwb_history_bytes (const CwbHistory *history);

G_END_DECLS

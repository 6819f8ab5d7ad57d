// The pool of parked namespaces of retrospective ids: when a session ends, each
// namespace it holds goes here with its starts (backfill_allocator.hpp), and the next session
// of the same id space adopts it instead of leasing a new one. So id space is spent when rows
// need it (many ids on one timestamp), not per session.
//
// Why adoption never repeats a (namespace, offset) pair of one key (so never an id):
// - Invariant of a parked namespace: every (key, offset) any earlier holder handed out in it
//   has offset < starts[start_bucket(key)].
// - Parking keeps it: starts[b] = max(the adopted starts (or 0 for a fresh lease), the
//   session's floor clamped to the namespace, the clamped next position of every key of
//   bucket b still in the session's table). A key the session handed out in this namespace is
//   either in its table (its next is above all its positions) or was forgotten (then all its
//   positions are below the floor: the existing forget rule); a key the session never
//   touched here is covered by the adopted starts. Clamping to the namespace keeps offsets.
// - Adoption keeps it: a key enters an adopted namespace at its bucket's start or above and
//   only counts upwards there (backfill_allocator.cpp, settle), so it gets only offsets the
//   invariant says are unused.
// - One holder at a time: a namespace is in at most one place, the pool or one session (taken
//   out and put in under the pool's lock); a namespace is leased once (durable counter).
// - Losing a parked namespace (pool full, crash, failover) only spends it: the lease counter
//   never goes back, so it is never handed out again.
// A table that overflows folds its evicted keys into the per-bucket starts, so a namespace's
// id space wears out at about one offset per bucket per distinct timestamp used once: with
// kStartBuckets buckets, per_namespace x 4,096 such timestamps before it is spent.
//
// Pure logic on caller memory; the caller locks (the server: SharedState.pool_lock).
#pragma once

#include <cstdint>

#include "core/backfill/backfill_allocator.hpp"

namespace idgen::backfill {

// For mutation tests only: parking that forgets a part of what the session used.
enum class Parking { exact, without_floor, without_table };

// The starts the session behind `a` leaves in its namespace of session index `index` (held).
// False when every bucket is full: the namespace is spent and is not worth parking.
bool park_starts(const Allocator *a, uint64_t index, uint32_t *starts,
                 Parking mode = Parking::exact) noexcept;

// An id space, as the caller names it (two opaque words).
struct SpaceId {
    uint64_t hi, lo;
    bool operator==(const SpaceId &o) const { return hi == o.hi && lo == o.lo; }
};

struct PoolSlot {
    bool used;
    SpaceId space;
    uint64_t per_namespace;  // the layout it was parked under
    uint64_t ns;
    uint64_t fill;  // sum of starts: how much of it is used
    uint32_t starts[kStartBuckets];
};

void pool_init(PoolSlot *slots, uint32_t count) noexcept;

enum class Parked { kept, replaced_fuller, evicted_other, dropped };

// For mutation tests only: a full pool that gives up its fullest namespace whatever its space.
enum class Eviction { most_parked_space, fullest_anywhere };

// Puts namespace `ns` of `space` into a free slot. With none free, the space with the most
// parked namespaces (`ns` counted in its space) gives up its fullest (which is spent): `ns`
// itself when that is it. So no space is left without a parked namespace by a park while the
// pool has at least as many slots as there are spaces: a full pool and `ns` are one namespace
// more than there are spaces, so the space giving one up has two (pigeonhole).
Parked pool_park(PoolSlot *slots, uint32_t count, SpaceId space, uint64_t per_namespace, uint64_t ns,
                 const uint32_t *starts, Eviction mode = Eviction::most_parked_space) noexcept;

// Takes the least used parked namespace of `space` (and `per_namespace`) out of the pool into
// *ns and `starts`; false when there is none. Parked namespaces of `space` under another
// per_namespace (a sequencer defined again with another layout) are dropped: spent.
// `use_starts` false is for mutation tests only (the starts are zeroed).
bool pool_adopt(PoolSlot *slots, uint32_t count, SpaceId space, uint64_t per_namespace, uint64_t *ns,
                uint32_t *starts, bool use_starts = true) noexcept;

// Parked namespaces of `space`.
uint32_t pool_count(const PoolSlot *slots, uint32_t count, SpaceId space) noexcept;

}  // namespace idgen::backfill

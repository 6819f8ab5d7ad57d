// Folder src/core/backfill: retrospective ids - the per-session counters, parked namespaces,
// lease spaces and their durable table, the version-1 mapping, the wait during subscriptions.
//
// Retrospective ids: many rows per timestamp, timestamps in any order, memory bounded whatever
// their number, and never an id twice. The retrospective UUID design for backfills keeps a
// counter for every timestamp; this keeps counters for a bounded number of them and makes
// forgetting safe.
//
// Each session counts per timestamp ("key") in positions 0, 1, 2, ... Position p lies in the
// session's namespace number p / per_namespace at offset p % per_namespace. A namespace is a
// part of the id space that a durable lease gave to this session alone (the caller leases
// them; a lease is never handed out twice), so ids from different namespaces never meet, and
// within one namespace an id is fixed by (key, offset).
//
// Bounded memory: the counters live in a table that starts small (a short session's few keys
// cost a few KiB) and grows by doubling up to its bound. When it is full it is cleared, and the
// floor (where keys not in the table start) is raised to one past the highest position handed
// out so far. A forgotten key so starts above every position it may have used, so every
// (key, position) pair, and so every id, is handed out at most once. Namespaces below the
// floor are no longer reachable and are dropped from the held window.
//
// Adoption: a namespace another session used can be taken over, together with its
// *starts*: kStartBuckets offsets, one per hash bucket of keys, each at or above the next
// offset of every key of its bucket that any earlier holder used in that namespace. A key
// enters an adopted namespace at its bucket's start or above (checked when a key is inserted
// and whenever its positions cross into another namespace), so it never meets an offset an
// earlier holder used for it: the floor rule, kept per bucket. backfill_pool.hpp makes starts
// when a session ends and keeps them between sessions; the argument is written out there.
//
// Everything lives in memory the caller provides; nothing here allocates.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"

namespace idgen::backfill {

constexpr int64_t kEmptyKey = INT64_MIN;  // never a valid key: callers reject such times first

// Buckets of an adopted namespace's starts, and how many adopted namespaces one allocator keeps
// starts for at once (further namespaces of the session are leased fresh).
constexpr uint32_t kStartBuckets = 4096;
constexpr uint32_t kMaxAdopted = 4;

// The bucket of `key` in a namespace's starts.
uint32_t start_bucket(int64_t key) noexcept;

struct Entry {
    int64_t key;    // kEmptyKey when the cell is free
    uint64_t next;  // the key's next position
};

struct Allocator {
    // Configuration, set by init().
    Entry *table;
    uint32_t table_mask;     // cells - 1 (cells a power of two; grow() raises it)
    uint32_t max_keys;       // keys remembered before the table is cleared
    uint64_t per_namespace;  // positions (ids per key) in one namespace
    uint64_t *held;          // ring: the namespace of session index n at held[n % held_capacity]
    uint32_t held_capacity;
    // State.
    uint32_t keys;        // keys in the table
    uint64_t floor;       // where keys not in the table start
    uint64_t high;        // one past the highest position handed out
    uint64_t held_base;   // session index of the oldest namespace held
    uint64_t held_count;  // namespaces held: indexes held_base .. held_base + held_count - 1
    uint64_t clears;      // how often the table was cleared (for statistics and tests)
    // Adopted namespaces: session index adopted_index[j] (UINT64_MAX: the cell is free) has
    // its starts at adopted_starts + j * kStartBuckets (caller's memory, kMaxAdopted arrays;
    // nullptr: this allocator never adopts).
    uint32_t *adopted_starts;
    uint64_t adopted_index[kMaxAdopted];
};

// Cells needed to remember `max_keys` keys (a power of two, at most half full).
uint32_t cells_for(uint32_t max_keys) noexcept;

// The cells a table starts with: cells_for(max_keys), or fewer when that is large (grow()).
uint32_t first_cells(uint32_t max_keys) noexcept;

// Prepares `a` over the caller's memory: `table` of first_cells(max_keys) entries and `held`
// of held_capacity words.
void init(Allocator *a, Entry *table, uint32_t max_keys, uint64_t per_namespace, uint64_t *held,
          uint32_t held_capacity) noexcept;

// The cells the table should grow to before the next take (twice its cells), or 0 when it has
// room or is at its bound. A caller that does not grow it only forgets sooner (always safe).
uint32_t cells_wanted(const Allocator *a) noexcept;

// Moves the keys into `bigger`, of cells_wanted(a) entries; the old table is the caller's to free.
void grow(Allocator *a, Entry *bigger) noexcept;

// Lets `a` adopt namespaces: `starts` holds kMaxAdopted * kStartBuckets offsets.
void enable_adoption(Allocator *a, uint32_t *starts) noexcept;

struct Take {
    uint64_t index;   // the session's namespace number
    uint64_t offset;  // 0 .. per_namespace - 1
};

// The next position for `key`. It is used up whether or not an id is made from it. For an
// allocator that never adopts (its namespaces are all fresh).
Take take(Allocator *a, int64_t key) noexcept;

// The next position for `key`, honouring adopted starts; false (nothing used up, though the
// table may have been cleared) when it lies in a namespace not held yet: the caller then holds
// one more (hold or hold_adopted) and calls again.
bool try_take(Allocator *a, int64_t key, Take *out) noexcept;

// Whether hold_adopted has room for one more adopted namespace.
bool can_adopt(const Allocator *a) noexcept;

// The adopted starts of session index `index`, or nullptr when that namespace was leased fresh.
const uint32_t *starts_of(const Allocator *a, uint64_t index) noexcept;

// The namespace held for session index `index`; false when it must be leased first.
bool held_namespace(const Allocator *a, uint64_t index, uint64_t *ns) noexcept;

// Records a freshly leased namespace as the next session index (held_base + held_count): the
// caller leases and holds until take()'s index is held. Errc::exhausted when the window of
// held namespaces is full (one key used more than held_capacity namespaces' worth of positions).
Status hold(Allocator *a, uint64_t ns) noexcept;

// The same for a namespace taken over from an earlier session, with its starts (copied).
// Call only when can_adopt().
Status hold_adopted(Allocator *a, uint64_t ns, const uint32_t *starts) noexcept;

}  // namespace idgen::backfill

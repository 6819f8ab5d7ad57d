// Retrospective ids (seed 000): many rows per timestamp, timestamps in any order, memory
// bounded whatever their number, and never an id twice. Seed 000 kept a counter for every
// timestamp; this keeps counters for a bounded number of them and makes forgetting safe.
//
// Each session counts per timestamp ("key") in positions 0, 1, 2, ... Position p lies in the
// session's namespace number p / per_namespace at offset p % per_namespace. A namespace is a
// part of the id space that a durable lease gave to this session alone (the caller leases
// them; a lease is never handed out twice), so ids from different namespaces never meet, and
// within one namespace an id is fixed by (key, offset).
//
// Bounded memory: the counters live in a fixed table. When it is full it is cleared, and the
// floor (where keys not in the table start) is raised to one past the highest position handed
// out so far. A forgotten key so starts above every position it may have used, so every
// (key, position) pair, and so every id, is handed out at most once. Namespaces below the
// floor are no longer reachable and are dropped from the held window.
//
// Everything lives in memory the caller provides; nothing here allocates.
#pragma once

#include <cstdint>

#include "status.hpp"

namespace idgen::backfill {

constexpr int64_t kEmptyKey = INT64_MIN;  // never a valid key: callers reject such times first

struct Entry {
    int64_t key;    // kEmptyKey when the cell is free
    uint64_t next;  // the key's next position
};

struct Allocator {
    // Configuration, set by init().
    Entry *table;
    uint32_t table_mask;        // cells - 1 (cells a power of two)
    uint32_t max_keys;          // keys remembered before the table is cleared
    uint64_t per_namespace;     // positions (ids per key) in one namespace
    uint64_t *held;             // ring: the namespace of session index n at held[n % held_capacity]
    uint32_t held_capacity;
    // State.
    uint32_t keys;              // keys in the table
    uint64_t floor;             // where keys not in the table start
    uint64_t high;              // one past the highest position handed out
    uint64_t held_base;         // session index of the oldest namespace held
    uint64_t held_count;        // namespaces held: indexes held_base .. held_base + held_count - 1
    uint64_t clears;            // how often the table was cleared (for statistics and tests)
};

// Cells needed to remember `max_keys` keys (a power of two, at most half full).
uint32_t cells_for(uint32_t max_keys) noexcept;

// Prepares `a` over the caller's memory: `table` of cells_for(max_keys) entries and `held` of
// held_capacity words.
void init(Allocator *a, Entry *table, uint32_t max_keys, uint64_t per_namespace, uint64_t *held,
          uint32_t held_capacity) noexcept;

struct Take {
    uint64_t index;   // the session's namespace number
    uint64_t offset;  // 0 .. per_namespace - 1
};

// The next position for `key`. It is used up whether or not an id is made from it.
Take take(Allocator *a, int64_t key) noexcept;

// The namespace held for session index `index`; false when it must be leased first.
bool held_namespace(const Allocator *a, uint64_t index, uint64_t *ns) noexcept;

// Records a freshly leased namespace as the next session index (held_base + held_count): the
// caller leases and holds until take()'s index is held. Errc::exhausted when the window of
// held namespaces is full (one key used more than held_capacity namespaces' worth of positions).
Status hold(Allocator *a, uint64_t ns) noexcept;

}  // namespace idgen::backfill

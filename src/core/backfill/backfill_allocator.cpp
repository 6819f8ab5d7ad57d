// The per-session counter table of retrospective ids: open addressing with linear probing,
// cleared (and the floor raised) when full.
#include "core/backfill/backfill_allocator.hpp"

#include <cstring>

namespace idgen::backfill {

uint32_t cells_for(uint32_t max_keys) noexcept {
    uint32_t cells = 16;
    while (cells < 2 * static_cast<uint64_t>(max_keys) && cells < (uint32_t{1} << 31)) cells <<= 1;
    return cells;
}

// A short session's table: 512 keys in 16 KiB (growing from there costs one rehash per
// doubling, less than the clearing of a large table it replaces).
constexpr uint32_t kFirstCells = 1024;

uint32_t first_cells(uint32_t max_keys) noexcept {
    const uint32_t full = cells_for(max_keys);
    return full < kFirstCells ? full : kFirstCells;
}

// Keys the current table holds before it must grow or be cleared.
static uint32_t room(const Allocator *a) noexcept {
    const uint32_t half = (a->table_mask + 1) / 2;
    return half < a->max_keys ? half : a->max_keys;
}

static void clear_table(Allocator *a) noexcept {
    for (uint64_t i = 0; i <= a->table_mask; i++) a->table[i] = Entry{kEmptyKey, 0};
    a->keys = 0;
}

void init(Allocator *a, Entry *table, uint32_t max_keys, uint64_t per_namespace, uint64_t *held,
          uint32_t held_capacity) noexcept {
    std::memset(a, 0, sizeof *a);
    a->table = table;
    a->table_mask = first_cells(max_keys) - 1;
    a->max_keys = max_keys;
    a->per_namespace = per_namespace;
    a->held = held;
    a->held_capacity = held_capacity;
    for (uint64_t &index : a->adopted_index) index = UINT64_MAX;
    clear_table(a);
}

void enable_adoption(Allocator *a, uint32_t *starts) noexcept {
    a->adopted_starts = starts;
}

static_assert(kStartBuckets == 4096, "start_bucket takes the top 12 bits");

uint32_t start_bucket(int64_t key) noexcept {
    return static_cast<uint32_t>(static_cast<uint64_t>(key) * 0xD6E8FEB86659FD93ull >> 52);
}

// Fibonacci hashing: consecutive times spread over the whole table.
static uint64_t cell_of(const Allocator *a, int64_t key) noexcept {
    return (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull >> 32) & a->table_mask;
}

uint32_t cells_wanted(const Allocator *a) noexcept {
    const uint32_t cells = a->table_mask + 1;
    return a->keys == room(a) && cells < cells_for(a->max_keys) ? 2 * cells : 0;
}

void grow(Allocator *a, Entry *bigger) noexcept {
    const Entry *old = a->table;
    const uint64_t old_cells = uint64_t{a->table_mask} + 1;
    a->table = bigger;
    a->table_mask = static_cast<uint32_t>(2 * old_cells - 1);
    const uint32_t keys = a->keys;
    clear_table(a);
    for (uint64_t j = 0; j < old_cells; j++) {
        if (old[j].key == kEmptyKey) continue;
        uint64_t i = cell_of(a, old[j].key);
        while (a->table[i].key != kEmptyKey) i = (i + 1) & a->table_mask;
        a->table[i] = old[j];
    }
    a->keys = keys;
}

// Forgets every key. Keys start again at the floor, above every position handed out, and the
// namespaces below the floor's are no longer reachable.
static void forget_keys(Allocator *a) noexcept {
    clear_table(a);
    a->floor = a->high;
    const uint64_t base = a->floor / a->per_namespace;
    const uint64_t end = a->held_base + a->held_count;
    if (base > a->held_base) {
        a->held_count = base < end ? end - base : 0;
        a->held_base = base;
    }
    a->clears++;
}

Take take(Allocator *a, int64_t key) noexcept {
    uint64_t i = cell_of(a, key);
    while (a->table[i].key != key && a->table[i].key != kEmptyKey) i = (i + 1) & a->table_mask;
    if (a->table[i].key == kEmptyKey) {
        if (a->keys == room(a)) {
            forget_keys(a);
            i = cell_of(a, key);
        }
        a->table[i] = Entry{key, a->floor};
        a->keys++;
    }
    const uint64_t p = a->table[i].next++;
    if (p + 1 > a->high) a->high = p + 1;
    return Take{p / a->per_namespace, p % a->per_namespace};
}

const uint32_t *starts_of(const Allocator *a, uint64_t index) noexcept {
    if (a->adopted_starts == nullptr) return nullptr;
    for (uint32_t j = 0; j < kMaxAdopted; j++)
        if (a->adopted_index[j] == index) return a->adopted_starts + j * kStartBuckets;
    return nullptr;
}

// Moves position *p of `key` up to where the key may be in that namespace: at or above the
// key's start there, when the namespace was adopted. False when the namespace is not held yet.
static bool settle(const Allocator *a, int64_t key, uint64_t *p) noexcept {
    const uint64_t n = a->per_namespace;
    for (;;) {
        const uint64_t index = *p / n;
        if (index >= a->held_base + a->held_count) return false;
        const uint32_t *starts = starts_of(a, index);
        const uint64_t start = starts == nullptr ? 0 : starts[start_bucket(key)];
        if (*p % n >= start) return true;
        if (start < n) {
            *p = index * n + start;
            return true;
        }
        *p = (index + 1) * n;  // the key's bucket is full here: on to the next namespace
    }
}

bool try_take(Allocator *a, int64_t key, Take *out) noexcept {
    uint64_t i = cell_of(a, key);
    while (a->table[i].key != key && a->table[i].key != kEmptyKey) i = (i + 1) & a->table_mask;
    const bool fresh = a->table[i].key == kEmptyKey;
    if (fresh && a->keys == room(a)) {
        forget_keys(a);
        i = cell_of(a, key);
    }
    uint64_t p = fresh ? a->floor : a->table[i].next;
    // A key's start applies where it enters a namespace: when it is new (at the floor) and when
    // its positions cross into the next namespace. In between it only counts upwards.
    if ((fresh || p % a->per_namespace == 0) && !settle(a, key, &p)) return false;
    if (fresh) {
        a->table[i].key = key;
        a->keys++;
    }
    a->table[i].next = p + 1;
    if (p + 1 > a->high) a->high = p + 1;
    *out = Take{p / a->per_namespace, p % a->per_namespace};
    return true;
}

bool can_adopt(const Allocator *a) noexcept {
    if (a->adopted_starts == nullptr) return false;
    for (const uint64_t index : a->adopted_index)
        if (index == UINT64_MAX || index < a->held_base) return true;
    return false;
}

Status hold_adopted(Allocator *a, uint64_t ns, const uint32_t *starts) noexcept {
    for (uint32_t j = 0; j < kMaxAdopted; j++) {
        uint64_t &index = a->adopted_index[j];
        if (index != UINT64_MAX && index >= a->held_base) continue;  // still in the window
        const Status held = hold(a, ns);
        if (!held.ok()) return held;
        index = a->held_base + a->held_count - 1;
        std::memcpy(a->adopted_starts + j * kStartBuckets, starts, sizeof(uint32_t) * kStartBuckets);
        return held;
    }
    return Status::error(Errc::exhausted, "no room for another adopted namespace");
}

bool held_namespace(const Allocator *a, uint64_t index, uint64_t *ns) noexcept {
    if (index < a->held_base || index >= a->held_base + a->held_count) return false;
    *ns = a->held[index % a->held_capacity];
    return true;
}

Status hold(Allocator *a, uint64_t ns) noexcept {
    if (a->held_count == a->held_capacity)
        return Status::error(Errc::exhausted, "one timestamp needs more than %u namespaces in this session",
                             a->held_capacity);
    a->held[(a->held_base + a->held_count) % a->held_capacity] = ns;
    a->held_count++;
    return Status::success();
}

}  // namespace idgen::backfill

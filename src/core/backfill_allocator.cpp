// The per-session counter table of retrospective ids: open addressing with linear probing,
// cleared (and the floor raised) when full.
#include "backfill_allocator.hpp"

#include <cstring>

namespace idgen::backfill {

uint32_t cells_for(uint32_t max_keys) noexcept {
    uint32_t cells = 16;
    while (cells < 2 * static_cast<uint64_t>(max_keys) && cells < (uint32_t{1} << 31)) cells <<= 1;
    return cells;
}

static void clear_table(Allocator *a) noexcept {
    for (uint64_t i = 0; i <= a->table_mask; i++) a->table[i] = Entry{kEmptyKey, 0};
    a->keys = 0;
}

void init(Allocator *a, Entry *table, uint32_t max_keys, uint64_t per_namespace, uint64_t *held,
          uint32_t held_capacity) noexcept {
    std::memset(a, 0, sizeof *a);
    a->table = table;
    a->table_mask = cells_for(max_keys) - 1;
    a->max_keys = max_keys;
    a->per_namespace = per_namespace;
    a->held = held;
    a->held_capacity = held_capacity;
    clear_table(a);
}

// Fibonacci hashing: consecutive times spread over the whole table.
static uint64_t cell_of(const Allocator *a, int64_t key) noexcept {
    return (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull >> 32) & a->table_mask;
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
        if (a->keys == a->max_keys) {
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

bool held_namespace(const Allocator *a, uint64_t index, uint64_t *ns) noexcept {
    if (index < a->held_base || index >= a->held_base + a->held_count) return false;
    *ns = a->held[index % a->held_capacity];
    return true;
}

Status hold(Allocator *a, uint64_t ns) noexcept {
    if (a->held_count == a->held_capacity)
        return Status::error(Errc::exhausted,
                             "one timestamp needs more than %u namespaces in this session",
                             a->held_capacity);
    a->held[(a->held_base + a->held_count) % a->held_capacity] = ns;
    a->held_count++;
    return Status::success();
}

}  // namespace idgen::backfill

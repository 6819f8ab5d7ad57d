// Parking, adopting and choosing parked namespaces of retrospective ids (backfill_pool.hpp
// has the safety argument).
#include "core/backfill/backfill_pool.hpp"

#include <cstring>

namespace idgen::backfill {

bool park_starts(const Allocator *a, uint64_t index, uint32_t *starts, Parking mode) noexcept {
    const uint64_t n = a->per_namespace;
    const uint64_t base = index * n;
    // A session position as an offset of this namespace: below it 0, above it n (full).
    auto clamp = [&](uint64_t p) -> uint32_t {
        if (p <= base) return 0;
        return static_cast<uint32_t>(p - base >= n ? n : p - base);
    };
    const uint32_t *adopted = starts_of(a, index);
    const uint32_t floor = mode == Parking::without_floor ? 0 : clamp(a->floor);
    for (uint32_t b = 0; b < kStartBuckets; b++) {
        const uint32_t before = adopted == nullptr ? 0 : adopted[b];
        starts[b] = before > floor ? before : floor;
    }
    if (mode != Parking::without_table) {
        for (uint64_t i = 0; i <= a->table_mask; i++) {
            const Entry &e = a->table[i];
            if (e.key == kEmptyKey) continue;
            const uint32_t next = clamp(e.next);
            uint32_t &start = starts[start_bucket(e.key)];
            if (next > start) start = next;
        }
    }
    for (uint32_t b = 0; b < kStartBuckets; b++)
        if (starts[b] < n) return true;
    return false;
}

static uint64_t fill_of(const uint32_t *starts) noexcept {
    uint64_t sum = 0;
    for (uint32_t b = 0; b < kStartBuckets; b++) sum += starts[b];
    return sum;
}

void pool_init(PoolSlot *slots, uint32_t count) noexcept {
    for (uint32_t i = 0; i < count; i++) slots[i].used = false;
}

// Parked namespaces of `space` in the pool.
static uint32_t parked_of(const PoolSlot *slots, uint32_t count, SpaceId space) noexcept {
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        if (slots[i].used && slots[i].space == space) n++;
    return n;
}

// The fullest parked namespace of `space` (it has one).
static PoolSlot *fullest_of(PoolSlot *slots, uint32_t count, SpaceId space) noexcept {
    PoolSlot *fullest = nullptr;
    for (uint32_t i = 0; i < count; i++)
        if (slots[i].used && slots[i].space == space && (fullest == nullptr || slots[i].fill > fullest->fill))
            fullest = &slots[i];
    return fullest;
}

static void put(PoolSlot *slot, SpaceId space, uint64_t per_namespace, uint64_t ns, uint64_t fill,
                const uint32_t *starts) noexcept {
    slot->used = true;
    slot->space = space;
    slot->per_namespace = per_namespace;
    slot->ns = ns;
    slot->fill = fill;
    std::memcpy(slot->starts, starts, sizeof slot->starts);
}

Parked pool_park(PoolSlot *slots, uint32_t count, SpaceId space, uint64_t per_namespace, uint64_t ns,
                 const uint32_t *starts, Eviction mode) noexcept {
    const uint64_t fill = fill_of(starts);
    for (uint32_t i = 0; i < count; i++)
        if (!slots[i].used) {
            put(&slots[i], space, per_namespace, ns, fill, starts);
            return Parked::kept;
        }
    // Full: the space with the most parked namespaces (the incoming one counted in its space's)
    // gives up its fullest. Ties go to the incoming space, so a space never displaces another
    // with as many parked as itself.
    const uint32_t own = parked_of(slots, count, space) + 1;
    SpaceId victim = space;
    uint32_t most = own;
    PoolSlot *fullest = nullptr;
    for (uint32_t i = 0; i < count; i++) {
        if (mode == Eviction::fullest_anywhere) {
            if (fullest == nullptr || slots[i].fill > fullest->fill) fullest = &slots[i];
            continue;
        }
        const uint32_t n = parked_of(slots, count, slots[i].space);
        if (n > most) {
            most = n;
            victim = slots[i].space;
        }
    }
    if (fullest == nullptr) fullest = fullest_of(slots, count, victim);
    if (victim == space && (fullest == nullptr || fullest->fill <= fill)) return Parked::dropped;
    const bool own_space = fullest->space == space;
    put(fullest, space, per_namespace, ns, fill, starts);
    return own_space ? Parked::replaced_fuller : Parked::evicted_other;
}

bool pool_adopt(PoolSlot *slots, uint32_t count, SpaceId space, uint64_t per_namespace, uint64_t *ns,
                uint32_t *starts, bool use_starts) noexcept {
    PoolSlot *best = nullptr;
    for (uint32_t i = 0; i < count; i++) {
        PoolSlot &s = slots[i];
        if (!s.used || !(s.space == space)) continue;
        if (s.per_namespace != per_namespace) {
            s.used = false;  // another layout's: its offsets mean nothing here
            continue;
        }
        if (best == nullptr || s.fill < best->fill) best = &s;
    }
    if (best == nullptr) return false;
    *ns = best->ns;
    if (use_starts)
        std::memcpy(starts, best->starts, sizeof best->starts);
    else
        std::memset(starts, 0, sizeof best->starts);
    best->used = false;
    return true;
}

uint32_t pool_count(const PoolSlot *slots, uint32_t count, SpaceId space) noexcept {
    return parked_of(slots, count, space);
}

}  // namespace idgen::backfill

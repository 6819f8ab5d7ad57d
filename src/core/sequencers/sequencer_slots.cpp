// Binding, finding and retiring Snowflake sequencer slots (sequencer_slots.hpp).
#include "core/sequencers/sequencer_slots.hpp"

#include "core/base/atomic_word.hpp"

namespace idgen::snowflake {

static uint32_t remembered(const DroppedKeys &dropped) noexcept {
    return dropped.count < kDroppedRemembered ? dropped.count : kDroppedRemembered;
}

bool was_dropped(const DroppedKeys &dropped, const SequencerKey &key) noexcept {
    for (uint32_t i = 0; i < remembered(dropped); i++)
        if (dropped.keys[i] == key) return true;
    return false;
}

void forget_dropped(DroppedKeys *dropped, const SequencerKey &key) noexcept {
    for (uint32_t i = 0; i < remembered(*dropped); i++)
        if (dropped->keys[i] == key) dropped->keys[i] = kNoSequencer;
}

static bool same_layout(const Layout &a, const Layout &b) noexcept {
    return a.epoch_unix_ms == b.epoch_unix_ms && a.node_bits == b.node_bits && a.backfill_nodes == b.backfill_nodes &&
           a.kind == b.kind;
}

static uint32_t remembered(const AbortedDefinitions &aborted) noexcept {
    return aborted.count < kAbortedRemembered ? aborted.count : kAbortedRemembered;
}

void remember_aborted(AbortedDefinitions *aborted, uint32_t database, uint64_t name_hash,
                      const Layout &layout) noexcept {
    for (uint32_t i = 0; i < remembered(*aborted); i++) {
        const AbortedDefinition &e = aborted->entries[i];
        if (e.database == database && e.name_hash == name_hash && same_layout(e.layout, layout)) return;
    }
    aborted->entries[aborted->count++ % kAbortedRemembered] = AbortedDefinition{database, name_hash, layout};
}

bool add_aborted(const AbortedDefinitions &aborted, uint32_t database, uint64_t name_hash, const Layout &current,
                 Layout *earlier, int *count) noexcept {
    bool differs = false;
    for (uint32_t i = 0; i < remembered(aborted); i++) {
        const AbortedDefinition &e = aborted.entries[i];
        if (e.database != database || e.name_hash != name_hash) continue;
        differs |= !same_layout(e.layout, current);
        int k = 0;
        while (k < *count && earlier[k].kind != e.layout.kind) k++;
        if (k == *count) earlier[(*count)++] = e.layout;
        else if (e.layout.epoch_unix_ms < earlier[k].epoch_unix_ms) earlier[k] = e.layout;
    }
    return differs;
}

SequencerSlot *find_slot(SequencerSlot *slots, int count, const SequencerKey &key) noexcept {
    for (int i = 0; i < count; i++)
        if (slots[i].key == key) return &slots[i];
    return nullptr;
}

bool start_position(const Layout &layout, int64_t bound_unix_us, const SlotFloors &floors,
                    uint64_t *position) noexcept {
    uint64_t start = position_after(layout, bound_unix_us);
    for (int i = 0; i < floors.earlier_count; i++) {
        const int64_t above = above_earlier_unix_us(floors.earlier[i], bound_unix_us, layout);
        if (above == INT64_MAX) return false;
        if (above != INT64_MIN && position_after(layout, above) > start) start = position_after(layout, above);
    }
    *position = start;
    return true;
}

SequencerSlot *bind_slot(SequencerSlot *slots, int count, const DroppedKeys &dropped, const SequencerKey &key,
                         const Layout &layout, const SlotFloors &floors, Bound *outcome) noexcept {
    if (SequencerSlot *held = find_slot(slots, count, key)) {
        *outcome = Bound::held;
        return held;
    }
    if (was_dropped(dropped, key)) {
        *outcome = Bound::dropped;
        return nullptr;
    }
    SequencerSlot *slot = nullptr;
    for (int i = 0; i < count && slot == nullptr; i++)
        if (slots[i].key.none()) slot = &slots[i];
    if (slot == nullptr) {
        *outcome = Bound::full;
        return nullptr;
    }
    // Above every id handed out before the server started (or recovered, or adopted a moved
    // database's state) and every id of the sequencers dropped since.
    const int64_t bound = floors.start_floor_us > floors.released_bound_us ? floors.start_floor_us
                                                                             : floors.released_bound_us;
    uint64_t start = 0;
    if (!start_position(layout, bound, floors, &start)) {
        *outcome = Bound::too_far;
        return nullptr;
    }
    slot->layout = layout;
    slot->clock.next_free = 0;
    raise_to(&slot->clock, start);
    slot->last_unix_ms = 0;
    slot->key = key;
    atomic_fetch_add(&slot->generation, 1);
    *outcome = Bound::bound;
    return slot;
}

void release_slot(SequencerSlot *slots, int count, DroppedKeys *dropped, const SequencerKey &key,
                  int64_t *released_bound_us) noexcept {
    dropped->keys[dropped->count++ % kDroppedRemembered] = key;
    retire_slot(slots, count, key, released_bound_us);
}

void retire_slot(SequencerSlot *slots, int count, const SequencerKey &key, int64_t *released_bound_us) noexcept {
    if (SequencerSlot *slot = find_slot(slots, count, key)) {
        // retire() changes the generation before it takes the bound, so a draw in flight in
        // another process either lies within the bound or is dropped by that process's check
        // after its draw (the argument is in snowflake.cpp).
        const int64_t bound = retire(&slot->clock, &slot->generation, slot->layout);
        if (bound > *released_bound_us) *released_bound_us = bound;
        slot->key = kNoSequencer;
    }
}

void raise_slots(SequencerSlot *slots, int count, int64_t floor_unix_us) noexcept {
    for (int i = 0; i < count; i++)
        if (!slots[i].key.none()) raise_to(&slots[i].clock, position_after(slots[i].layout, floor_unix_us));
}

}  // namespace idgen::snowflake

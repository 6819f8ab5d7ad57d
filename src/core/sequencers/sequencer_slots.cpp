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

static void remember_dropped(DroppedKeys *dropped, const SequencerKey &key) noexcept {
    dropped->keys[dropped->count++ % kDroppedRemembered] = key;
}

void forget_dropped(DroppedKeys *dropped, const SequencerKey &key) noexcept {
    for (uint32_t i = 0; i < remembered(*dropped); i++)
        if (dropped->keys[i] == key) dropped->keys[i] = kNoSequencer;
}

static bool same_layout(const Layout &a, const Layout &b) noexcept {
    return a.epoch_unix_ms == b.epoch_unix_ms && a.node_bits == b.node_bits &&
           a.backfill_nodes == b.backfill_nodes && a.kind == b.kind;
}

void merge_earlier(EarlierDefinition *earlier, int *count, const EarlierDefinition &e) noexcept {
    int k = 0;
    while (k < *count && earlier[k].layout.kind != e.layout.kind) k++;
    if (k == *count) {
        earlier[(*count)++] = e;
        return;
    }
    if (e.layout.epoch_unix_ms < earlier[k].layout.epoch_unix_ms) earlier[k].layout = e.layout;
    if (e.bound_us > earlier[k].bound_us) earlier[k].bound_us = e.bound_us;
}

static uint32_t remembered(const GoneDefinitions &gone) noexcept {
    return gone.count < kGoneRemembered ? gone.count : kGoneRemembered;
}

void remember_gone(GoneDefinitions *gone, const GoneDefinition &d) noexcept {
    for (uint32_t i = 0; i < remembered(*gone); i++) {
        GoneDefinition &e = gone->entries[i];
        if (e.database == d.database && e.name_hash == d.name_hash && same_layout(e.layout, d.layout)) {
            if (d.bound_us > e.bound_us) e.bound_us = d.bound_us;
            return;
        }
    }
    gone->entries[gone->count++ % kGoneRemembered] = d;
}

bool add_gone(const GoneDefinitions &gone, uint32_t database, uint64_t name_hash, const Layout &current,
              EarlierDefinition *earlier, int *count) noexcept {
    bool differs = false;
    for (uint32_t i = 0; i < remembered(gone); i++) {
        const GoneDefinition &e = gone.entries[i];
        if (e.database != database || e.name_hash != name_hash) continue;
        differs |= !same_layout(e.layout, current);
        merge_earlier(earlier, count, EarlierDefinition{e.layout, e.bound_us});
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
        const EarlierDefinition &e = floors.earlier[i];
        const int64_t above =
            above_earlier_unix_us(e.layout, e.bound_us > bound_unix_us ? e.bound_us : bound_unix_us, layout);
        if (above == INT64_MAX) return false;
        if (above != INT64_MIN && position_after(layout, above) > start)
            start = position_after(layout, above);
    }
    *position = start;
    return true;
}

SequencerSlot *bind_slot(SequencerSlot *slots, int count, const DroppedKeys &dropped, const SequencerKey &key,
                         uint64_t name_hash, const Layout &layout, const SlotFloors &floors,
                         Bound *outcome) noexcept {
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
    const int64_t bound =
        floors.start_floor_us > floors.released_bound_us ? floors.start_floor_us : floors.released_bound_us;
    uint64_t start = 0;
    if (!start_position(layout, bound, floors, &start)) {
        *outcome = Bound::too_far;
        return nullptr;
    }
    slot->layout = layout;
    slot->name_hash = name_hash;
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
    remember_dropped(dropped, key);
    if (SequencerSlot *slot = find_slot(slots, count, key)) {
        // retire() changes the generation before it takes the bound, so a draw in flight in
        // another process either lies within the bound or is dropped by that process's check
        // after its draw (the argument is in snowflake.cpp).
        const int64_t bound = retire(&slot->clock, &slot->generation, slot->layout);
        if (bound > *released_bound_us) *released_bound_us = bound;
        slot->key = kNoSequencer;
    }
}

void release_gone_slot(SequencerSlot *slots, int count, DroppedKeys *dropped, GoneDefinitions *gone,
                       const SequencerKey &key) noexcept {
    if (dropped != nullptr) remember_dropped(dropped, key);
    if (SequencerSlot *slot = find_slot(slots, count, key)) {
        // As in retire_slot: the generation changes before the bound is read.
        const int64_t bound = retire(&slot->clock, &slot->generation, slot->layout);
        remember_gone(gone, GoneDefinition{key.database, slot->name_hash, slot->layout, bound});
        slot->key = kNoSequencer;
    }
}

void raise_slots(SequencerSlot *slots, int count, int64_t floor_unix_us) noexcept {
    for (int i = 0; i < count; i++)
        if (!slots[i].key.none()) raise_to(&slots[i].clock, position_after(slots[i].layout, floor_unix_us));
}

}  // namespace idgen::snowflake

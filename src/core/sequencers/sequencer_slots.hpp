// Folder src/core/sequencers: the Snowflake sequencers' table of slots.
//
// The table of Snowflake sequencer slots: which sequencer holds which slot, giving a free slot to
// a sequencer so that it starts above every id it must stay above, retiring the slot of a dropped
// one, and the ring of recently dropped keys. Pure logic on caller memory (the server keeps the
// table in shared memory, src/pg/shared_memory/shared_state.hpp). Every function here runs under the caller's
// lock of the table (the server: SharedState.slot_lock), exclusive for those that change
// anything; drawing from a slot's clock takes no lock (snowflake.hpp, next_in_generation).
#pragma once

#include <cstdint>

#include "core/clocks/logical_clock.hpp"
#include "core/layouts/snowflake.hpp"

namespace idgen::snowflake {

// Which sequencer: a definition row's id, unique only within one incarnation of its table, so
// the table and its database are part of the key. A key is never reused.
struct SequencerKey {
    uint32_t database;  // 0: no sequencer
    uint32_t table;
    int64_t definition_id;

    bool operator==(const SequencerKey &o) const {
        return database == o.database && table == o.table && definition_id == o.definition_id;
    }
    bool none() const { return database == 0; }
};

constexpr SequencerKey kNoSequencer{0, 0, 0};

struct SequencerSlot {
    uint64_t generation;  // atomic; changed (under the table's lock) at every binding and retirement
    SequencerKey key;     // the table's lock; which sequencer holds the slot, kNoSequencer when free
    Layout layout;        // the table's lock; of the sequencer holding the slot
    // Atomic (the draw), set under the table's lock when the slot is bound; a line of its own.
    alignas(kCacheLine) LogicalClock clock;
    // Atomic store by a drawer when its id's millisecond differs from the last it stored: the
    // time field of a recent id (statistics); a line of its own.
    alignas(kCacheLine) uint64_t last_unix_ms;
};

// The last kDroppedRemembered sequencers dropped, a ring: a dropped definition may still be
// visible to an older snapshot, and binding it again would hold a slot for nothing. An older
// drop is forgotten: if its definition is bound again, that wastes a slot, never repeats an id
// (a new slot starts above the released bound).
constexpr uint32_t kDroppedRemembered = 256;

struct DroppedKeys {
    uint32_t count;  // drops ever remembered; the ring holds the last kDroppedRemembered
    SequencerKey keys[kDroppedRemembered];
};

bool was_dropped(const DroppedKeys &dropped, const SequencerKey &key) noexcept;

// The layouts of the last kAbortedRemembered definitions whose creation aborted (or was prepared)
// after they bound a slot, by database and name: their ids may have been handed out, and no table
// can keep them (the aborted transaction's rows are gone with it), so a definition of the name
// made later must start above them as above the dropped ones (above_earlier_unix_us). Kept in
// memory only: after a restart they are forgotten, and a name defined again then with an epoch
// later by more than the time since the aborted draws can meet them (the docs say so).
constexpr uint32_t kAbortedRemembered = 64;

struct AbortedDefinition {
    uint32_t database;
    uint64_t name_hash;
    Layout layout;
};

struct AbortedDefinitions {
    uint32_t count;  // definitions ever remembered; the ring holds the last kAbortedRemembered
    AbortedDefinition entries[kAbortedRemembered];
};

// Remembers an aborted definition of (database, name_hash) unless the same layout is remembered.
void remember_aborted(AbortedDefinitions *aborted, uint32_t database, uint64_t name_hash,
                      const Layout &layout) noexcept;

// Adds the layouts of the aborted definitions of (database, name_hash) to `earlier` (`*count` of
// them, room for one per kind), an earlier epoch replacing a later one of the same kind: what
// start_position needs of them. True when one of them differs from `current` in any way
// (epoch, node bits, backfill nodes, kind).
bool add_aborted(const AbortedDefinitions &aborted, uint32_t database, uint64_t name_hash, const Layout &current,
                 Layout *earlier, int *count) noexcept;

// Forgets `key` as dropped (its drop was undone after all).
void forget_dropped(DroppedKeys *dropped, const SequencerKey &key) noexcept;

// The slot `key` holds among `count` slots; nullptr when it holds none.
SequencerSlot *find_slot(SequencerSlot *slots, int count, const SequencerKey &key) noexcept;

enum class Bound { held, bound, dropped, full, too_far };

// What a new slot must start above, besides the ids of every slot held when it is bound.
struct SlotFloors {
    int64_t start_floor_us;     // every id before the last server start, recovery or adoption
    int64_t released_bound_us;  // every id of the slots released since
    // The layouts of earlier definitions of the key's name (dropped since): the new slot's ids lie
    // above every id they issued before the time bound the other floors make (above_earlier_unix_us).
    const Layout *earlier = nullptr;
    int earlier_count = 0;
};

// The slot of `key`: the one it holds (held), or else a free one given to it (bound): its clock
// starts above every id before the floors, and its generation changes. nullptr when `key` was
// dropped (dropped), no slot is free (full), or an earlier definition's ids run past the end of
// the layout's time field (too_far).
SequencerSlot *bind_slot(SequencerSlot *slots, int count, const DroppedKeys &dropped, const SequencerKey &key,
                         const Layout &layout, const SlotFloors &floors, Bound *outcome) noexcept;

// The clock position from which `layout` issues only ids above every id before `bound_unix_us`
// and above every id the earlier definitions in `floors` issued before it; false when an earlier
// one's ids run past the end of the layout's time field.
bool start_position(const Layout &layout, int64_t bound_unix_us, const SlotFloors &floors,
                    uint64_t *position) noexcept;

// The slot of `key`, if it holds one, is retired (snowflake.hpp, retire: its generation changes
// before its bound is read) and freed; *released_bound_us is raised to cover every id the slot
// handed out or still will. The key may bind a fresh slot later (above that bound).
void retire_slot(SequencerSlot *slots, int count, const SequencerKey &key, int64_t *released_bound_us) noexcept;

// `key` was dropped: it is remembered as dropped, and its slot is retired (retire_slot).
void release_slot(SequencerSlot *slots, int count, DroppedKeys *dropped, const SequencerKey &key,
                  int64_t *released_bound_us) noexcept;

// Raises every slot in use to start above `floor_unix_us`.
void raise_slots(SequencerSlot *slots, int count, int64_t floor_unix_us) noexcept;

}  // namespace idgen::snowflake

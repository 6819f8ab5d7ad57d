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
    uint64_t name_hash;   // the table's lock; of the sequencer's name (its key names a definition)
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

// Forgets `key` as dropped (its drop was undone after all).
void forget_dropped(DroppedKeys *dropped, const SequencerKey &key) noexcept;

// The slot `key` holds among `count` slots; nullptr when it holds none.
SequencerSlot *find_slot(SequencerSlot *slots, int count, const SequencerKey &key) noexcept;

enum class Bound { held, bound, dropped, full, too_far };

// An earlier definition of a name, which a definition of the name made later must start above:
// its layout (what lies below its ids depends on its epoch and kind, not on its node bits) and a
// time at or after the end of every id it issued, INT64_MIN where the new slot's own time bound
// covers them (a definition whose drop committed: its slot's ids are in the released bound).
struct EarlierDefinition {
    Layout layout;
    int64_t bound_us;
};

// Adds `e` to the `*count` entries of `earlier` (room for one per kind): of two of one kind, the
// one with the earlier epoch and the later bound stands for both (it lies above both's ids).
void merge_earlier(EarlierDefinition *earlier, int *count, const EarlierDefinition &e) noexcept;

// Definitions gone with no row of theirs kept: those whose creation aborted (or was prepared) after
// they bound a slot, and those whose database or definitions table was dropped with their slots
// still held. Their ids may have been handed out, so a definition of their name made later must
// start above them; they are kept here, by database and name, each with the bound of its ids,
// rather than in the released bound, which every new slot starts above (they would push every
// other sequencer ahead of the clock, behind a bulk load of theirs). The last kGoneRemembered;
// memory only: after a restart they are forgotten, and a name defined again then with an epoch
// later by more than the time since their last ids could meet them (the docs say so).
constexpr uint32_t kGoneRemembered = 256;

struct GoneDefinition {
    uint32_t database;
    uint64_t name_hash;
    Layout layout;
    int64_t bound_us;
};

struct GoneDefinitions {
    uint32_t count;  // definitions ever remembered; the ring holds the last kGoneRemembered
    GoneDefinition entries[kGoneRemembered];
};

// Remembers a gone definition; one of the same database, name and layout remembered already
// keeps the later of the two bounds.
void remember_gone(GoneDefinitions *gone, const GoneDefinition &definition) noexcept;

// Adds the gone definitions of (database, name_hash) to `earlier` (merge_earlier). True when one
// of them differs from `current` in any way (epoch, node bits, backfill nodes, kind).
bool add_gone(const GoneDefinitions &gone, uint32_t database, uint64_t name_hash, const Layout &current,
              EarlierDefinition *earlier, int *count) noexcept;

// What a new slot must start above.
struct SlotFloors {
    int64_t start_floor_us;     // every id before the last server start, recovery or adoption
    int64_t released_bound_us;  // every id of the slots released since
    // The earlier definitions of the key's name: the new slot's ids lie above every id they issued
    // (above_earlier_unix_us, at the later of their own bound and the one the floors above make).
    const EarlierDefinition *earlier = nullptr;
    int earlier_count = 0;
};

// The slot of `key`: the one it holds (held), or else a free one given to it (bound): its clock
// starts above every id before the floors, and its generation changes. nullptr when `key` was
// dropped (dropped), no slot is free (full), or an earlier definition's ids run past the end of
// the layout's time field (too_far).
SequencerSlot *bind_slot(SequencerSlot *slots, int count, const DroppedKeys &dropped, const SequencerKey &key,
                         uint64_t name_hash, const Layout &layout, const SlotFloors &floors,
                         Bound *outcome) noexcept;

// The clock position from which `layout` issues only ids above every id before `bound_unix_us`
// and above every id the earlier definitions in `floors` issued before it; false when an earlier
// one's ids run past the end of the layout's time field.
bool start_position(const Layout &layout, int64_t bound_unix_us, const SlotFloors &floors,
                    uint64_t *position) noexcept;

// `key` was dropped: it is remembered as dropped, and its slot, if it holds one, is retired
// (snowflake.hpp, retire: its generation changes before its bound is read) and freed;
// *released_bound_us is raised to cover every id the slot handed out or still will.
void release_slot(SequencerSlot *slots, int count, DroppedKeys *dropped, const SequencerKey &key,
                  int64_t *released_bound_us) noexcept;

// `key`'s definition is gone with no row kept (see GoneDefinitions): its slot, if it holds one, is
// retired and freed and remembered in `gone` with the bound of its ids, not in the released bound;
// with `dropped`, the key is also remembered as dropped (a creation that aborted, a dropped table
// or database), without (nullptr) it may bind again (a prepared creation that COMMIT PREPARED
// may make).
void release_gone_slot(SequencerSlot *slots, int count, DroppedKeys *dropped, GoneDefinitions *gone,
                       const SequencerKey &key) noexcept;

// Raises every slot in use to start above `floor_unix_us`.
void raise_slots(SequencerSlot *slots, int count, int64_t floor_unix_us) noexcept;

}  // namespace idgen::snowflake

// The state all backends share, in PostgreSQL shared memory (needs shared_preload_libraries):
// the durable horizon and one slot per Snowflake sequencer in use.
//
// Locking notes (after pg_stat_statements):
// - Drawing an id takes no lock: each slot's LogicalClock is advanced with compare-and-swap
//   (the only locked instruction per id), the horizon is read with an atomic load, and the
//   statistics are plain stores into cells that only one backend writes.
// - SharedState.lock (one LWLock) is taken exclusively only to move the horizon (rare: about
//   once per second of id time), to allocate or release a sequencer slot, and to lease a
//   namespace of retrospective ids (once per session and timestamp-table turnover); it is
//   taken shared to look a slot up when a backend first meets a sequencer.
// - A slot's `generation` changes at every allocation and release, so a backend that cached
//   a slot sees with one atomic load whether the slot is still the one it cached.
#pragma once

#include <cstdint>

#include "../core/horizon.hpp"
#include "../core/locality_clock.hpp"
#include "../core/logical_clock.hpp"
#include "../core/snowflake.hpp"
#include "backfill_leases.hpp"
#include "postgres_api.hpp"

extern "C" {
#include "storage/lwlock.h"
}

namespace idgen::pg {

// Which sequencer: ids of snowflake_definitions rows are unique only within one incarnation
// of the table (DROP EXTENSION and CREATE EXTENSION start them again), so the table's oid
// is part of the key.
struct SequencerKey {
    Oid database;  // InvalidOid: no sequencer
    Oid table;
    int64 definition_id;

    bool operator==(const SequencerKey &o) const {
        return database == o.database && table == o.table && definition_id == o.definition_id;
    }
};

struct SequencerSlot {
    uint64_t generation;  // changes at every allocation and release
    SequencerKey key;     // which sequencer holds the slot; database InvalidOid when free
    snowflake::Layout layout;  // of the sequencer holding the slot
    LogicalClock clock;
    uint64_t last_unix_ms;  // time field of the last id handed out
};

// How many ids one backend drew from one slot. Only that backend writes the cell, so no
// locked instruction is needed; the view sums a slot's cells. A cell counts for one slot
// generation and starts again from zero when the slot is given to another sequencer.
struct IssuedCount {
    uint64_t generation;
    uint64_t count;
};

constexpr int kDroppedRemembered = 256;

// The generators there is one of per server, each a logical clock started above the horizon.
struct LiveGenerators {
    LogicalClock uuid_v1;     // 100 ns ticks since 1582-10-15
    uint64_t uuid_node;       // idgen.uuid_node, resolved at start
    int32_t uuid_clock_seq;   // random at first start, kept in idgen.identity
    bool uuid_node_missing;   // idgen.uuid_node = 'mac', but no interface has an address
    bool identity_unreadable; // idgen.identity exists but cannot be trusted
    locality::State locality; // time field and counter sequence
    uint64_t locality_mac;    // idgen.locality_mac, resolved at start (zeros if none)
    LogicalClock unique_ts;   // units of 10^idgen.unique_timestamp_digits ns since 1970
};

struct SharedState {
    LWLock *lock;
    Horizon horizon;
    // Where a new sequencer slot may start: above the horizon as it was when the server started
    // (every id from before) and above every id of the slots released since (dropped
    // sequencers). Not above the moving horizon: each new slot would push it a second further.
    int64 startup_horizon_us;
    int64 released_bound_us;
    bool horizon_unreadable;  // the horizon file exists but cannot be trusted
    LiveGenerators live;
    // Namespaces of retrospective ids handed out so far (backfill_leases.hpp), under `lock`.
    LeaseTable leases;
    bool leases_unreadable;
    // Sequencers dropped since the server started, a ring: a dropped definition may still be
    // visible to an older snapshot, but it must never get a slot again.
    uint32 dropped_count;
    SequencerKey dropped[kDroppedRemembered];
    int slot_count;
    int backend_count;     // rows of the IssuedCount table that follows the slots
    SequencerSlot slots[FLEXIBLE_ARRAY_MEMBER];
};

// Counts one id drawn by this backend from slot `slot` in its generation `generation`.
void count_issued(SharedState *state, const SequencerSlot *slot, uint64_t generation);

// The ids drawn from a slot in its current generation, by all backends.
uint64_t issued_total(SharedState *state, const SequencerSlot *slot);

// Registers the shared-memory hooks; call from _PG_init while preloading.
void install_shared_state_hooks();

// The shared state, or an error (SQLSTATE 55000) naming `what` when idgen was not preloaded.
SharedState *require_shared_state(const char *what);

// The shared state, or nullptr when idgen was not preloaded.
SharedState *shared_state_or_null();

// Makes sure the durable horizon covers an id whose time ends at end_unix_us, moving it
// (and writing it to disk) first if it does not. Call before handing the id out.
void ensure_horizon(SharedState *state, int64_t end_unix_us, int64_t now_unix_us);

}  // namespace idgen::pg

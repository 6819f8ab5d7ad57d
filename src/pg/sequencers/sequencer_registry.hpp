// Folder src/pg/sequencers: Snowflake sequencer definitions and each backend's cache of them.
//
// Where Snowflake sequencers are found: their definitions in the extension's table
// snowflake_definitions (per database, dumped by pg_dump), the earlier definitions of their names
// in snowflake_retired (also dumped), and their running state in a shared-memory slot keyed by
// (database, table, definition id). A key is never reused, so a dropped and re-created sequencer
// gets a fresh slot, which starts above every id the name's earlier definitions handed out on this
// server (sequencer_slots.hpp, bind_slot). A slot follows the transaction that made its
// definition: one bound to a definition whose creation aborts is released at the abort.
#pragma once

#include <cstdint>

#include "core/layouts/snowflake.hpp"

#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// The kinds of layout, so the most earlier layouts a name's definition starts above: of the earlier
// definitions of one kind only the earliest epoch matters (above_earlier_unix_us depends on the
// epoch, the tick and the bits below the time field, which the kind fixes).
constexpr int kLayoutKinds = 4;

struct SequencerDefinition {
    SequencerKey key;
    int32 max_nodes;
    snowflake::Layout layout;
    char name[NAMEDATALEN];
    uint64 name_hash;      // keys the sequencer's lease space for snowflake_at (computed once)
    int32 backfill_owner;  // the node id of the one server that may run snowflake_at (-1: any)
    // The name's earlier definitions on this server (dropped: snowflake_retired; gone with no row,
    // as those whose creation aborted: shared memory's GoneDefinitions): the earliest epoch of each kind, and
    // whether any of them differs from this one (then snowflake_at refuses: its retrospective ids fall at
    // past times, where an earlier layout's ids may be the same bits).
    snowflake::EarlierDefinition earlier[kLayoutKinds];
    int earlier_count;
    bool redefined;
};

enum class NameUse { create, lookup };

// The length of a sequencer name, the one place its limit is checked: 1 to NAMEDATALEN - 1 bytes
// (a name is kept with its terminator in NAMEDATALEN bytes). Outside it: 22023 for a sequencer being created,
// 42704 at a lookup (no sequencer of that name can exist).
int sequencer_name_length(const text *name, NameUse use);

// Looks the name up in this database, in the table of the schema `schema` (the extension's,
// where the calling function lives); on a Citus worker whose node id is its group, a name it
// lacks is first taken from the coordinator (citus_sequencers.hpp); ERROR 42704 when there is no
// such sequencer.
// The key of a sequencer name's lease space (snowflake_at): a hash of the name's bytes, the same
// on every server and in every version (it is stored in lease files, WAL and carried rows).
uint64 sequencer_name_hash(const char *name, size_t len);

void find_sequencer_definition(Oid schema, const text *name, SequencerDefinition *out);

// The kind of a layout name: 'idgen' (also for nullptr: a schema before 0.6.0 has no layout),
// 'snowcast', 'sonyflake' or 'javascript'; anything else raises 22023.
snowflake::Kind layout_kind(const text *layout);
// A layout given explicitly (a finite epoch, max_nodes, the layout's name) rather than through a
// sequencer's definition, max_nodes 0 being the layout's own node count
// (snowflake::default_max_nodes): 22023 for an epoch that is not finite or a max_nodes outside
// the layout's node counts (snowflake::node_bits_for).
snowflake::Layout explicit_layout(TimestampTz epoch, int32 max_nodes, const text *layout_name);
// An epoch given explicitly as Unix milliseconds, rounded towards the past as every layout rounds
// times; 22023 for one that is not finite.
int64_t explicit_epoch_unix_ms(TimestampTz epoch);
// The name layout_kind reads for `kind` (the registry compares definitions by it).
const char *layout_name(snowflake::Kind kind);

// Validates a new definition for snowflake_create: returns max_nodes rounded up to a power of
// two, or raises 22023 (also for backfill_nodes outside 0 .. max_nodes - 1, or an unknown layout).
int32 check_sequencer_definition(const text *name, TimestampTz epoch, int32 max_nodes, int32 backfill_nodes,
                                 const text *layout);

// The slot of a definition, allocated on first use; *generation receives the slot's
// generation at binding time. ERROR 42704 if the sequencer was dropped, 53400 if no slot is free.
SequencerSlot *bind_sequencer_slot(SharedState *state, const SequencerDefinition &def, uint64_t *generation);

// The slot of a definition of this database's table `table` if one is allocated, without
// allocating (for statistics).
SequencerSlot *find_sequencer_slot(SharedState *state, Oid table, int64 definition_id);

// Frees the slot of a definition of this database's table `table` when the current
// (sub)transaction's changes commit at top level; nothing happens if the subtransaction
// aborts. A transaction that queued a release cannot be prepared (PREPARE raises 0A000).
void release_sequencer_at_commit(Oid table, int64 definition_id, const char *name);

// The definition `definition_id` of `table` was made in the current (sub)transaction: if that
// aborts, the slot it may have bound is released, its key is never bound again and its ids are
// remembered under its name (they may have been handed out: GoneDefinitions); if the transaction
// is prepared, the slot is released and its ids remembered, without forbidding the key (COMMIT
// PREPARED makes the definition, which then binds a fresh slot above them).
void release_sequencer_at_abort(Oid table, int64 definition_id);

// 55000 unless the definition `def` can start, now, within idgen.max_lead and idgen.max_wait of
// the clock above every id its name's earlier definitions issued (snowflake_create refuses a
// definition whose first snowflake_next could only fail).
void check_definition_reaches_above(SharedState *state, const SequencerDefinition &def);

// snowflake_create of `name` after its drop in the same transaction (cluster mode): the name is
// not destroyed cluster-wide at commit; the create registers it instead. If the create is then
// rolled back to a savepoint and the drop commits, the name stays registered in the cluster
// (not destroyed) until a later drop of it.
void keep_in_cluster_at_commit(const char *name);

// Registers the (sub)transaction callbacks behind release_sequencer_at_commit; from _PG_init.
void register_sequencer_callbacks();

}  // namespace idgen::pg

// This backend's cache of Snowflake sequencers: definition and shared-memory slot per name,
// so a statement finds its sequencer without SPI (a call site's fn_extra dies with each
// statement; this cache does not). snowflake_drop and snowflake_create send a relcache
// invalidation for the definitions table at commit; each backend then marks every entry stale at
// its next command. A create that aborts runs it in its own backend at once (PostgreSQL undoes a
// transaction's local invalidations at abort), so no binding of a definition that never was
// survives there. snowflake_next sees a drop sooner still, inside running statements, through the
// slot's generation.
#pragma once

#include "core/clocks/session_run.hpp"

#include "pg/cluster/cluster_shared.hpp"
#include "pg/sequencers/sequencer_registry.hpp"

namespace idgen::pg {

struct CachedSequencer {
    char name[NAMEDATALEN];  // the hash key
    uint64 version;          // the cache version the entry was filled in
    SequencerDefinition def;
    SequencerSlot *slot;  // nullptr until bound
    uint64_t generation;  // the slot's generation when bound
    // This backend's run of the slot's clock positions (idgen.ordering = 'session'): emptied
    // whenever the entry binds a slot, so that it only ever holds positions of the clock it is
    // bound to, in the generation it is bound to.
    PositionRun run;
    int64_t stored_unix_ms;  // the last value this backend stored into the slot's last_unix_ms
    Claim *claim;            // cluster mode: the sequencer's claim (cluster_shared.hpp), nullptr until used
};

// Changes whenever cached definitions may have become stale.
uint64 sequencer_cache_version();

// The entry for `name`, looked up in the definitions table of `schema` if it is not cached or
// stale; ERROR 42704 if there is no such sequencer. Entries are never freed, so the pointer
// stays valid; its content is current while sequencer_cache_version() is unchanged.
CachedSequencer *cached_sequencer(Oid schema, const text *name);

// Reads the definition again (after its slot was released: dropped, or dropped and created again).
void refresh_cached_sequencer(Oid schema, const text *name, CachedSequencer *entry);

// Tells every backend, when the current transaction commits, that definitions changed.
void invalidate_sequencer_caches(Oid definitions_table);

// Registers the relcache callback; from _PG_init.
void register_sequencer_cache_callback();

}  // namespace idgen::pg

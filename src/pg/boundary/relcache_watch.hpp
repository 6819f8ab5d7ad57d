// PostgreSQL keeps room for only ten relcache invalidation callbacks in a backend (inval.c), shared
// by every library it loads: Citus alone takes several, and a backend that registers one too many
// ends with FATAL "out of relcache_callback_list slots". So idgen registers one, and hands each
// invalidation to every part of it that caches something of a table (the sequencer cache, the
// carried state's table, the mask keys, the Citus group).
#pragma once

#include "pg/boundary/postgres_api.hpp"

namespace idgen::pg {

// Called for every relcache invalidation in this backend: `relid` the relation, InvalidOid for
// all of them.
using RelcacheWatcher = void (*)(Oid relid);

// Adds `watcher` (once; a watcher added again is not called twice). At most eight.
void watch_relcache(RelcacheWatcher watcher);

}  // namespace idgen::pg

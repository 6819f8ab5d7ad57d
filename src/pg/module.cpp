// The module's entry points: the magic block PostgreSQL checks when it loads idgen.so, and
// _PG_init, which defines the settings and, when idgen is preloaded, its shared memory and its
// WAL resource manager.
#include "pg/cluster/cluster_shared.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/sequencers/sequencer_cache.hpp"
#include "pg/sequencers/sequencer_registry.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/shared_memory/shared_state.hpp"
#include "pg/wal/state_wal.hpp"
#include "pg/moves/subscription_guard.hpp"

extern "C" {
IDGEN_MODULE_MAGIC;

void _PG_init(void);

void _PG_init(void) {
    idgen::pg::define_settings(process_shared_preload_libraries_in_progress);
    idgen::pg::register_sequencer_callbacks();
    idgen::pg::register_sequencer_cache_callback();
    if (process_shared_preload_libraries_in_progress) {
        idgen::pg::install_shared_state_hooks();
        idgen::pg::register_state_rmgr();
        idgen::pg::install_subscription_hook();
        if (idgen::pg::registry_configured()) idgen::pg::register_cluster_worker();
    }
}
}

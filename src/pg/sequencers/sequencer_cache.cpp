// The backend-local sequencer cache: a dynahash keyed by name in CacheMemoryContext, and
// the relcache callback that marks it stale.
#include "pg/sequencers/sequencer_cache.hpp"

#include "pg/boundary/relcache_watch.hpp"

extern "C" {
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
}

namespace idgen::pg {

static HTAB *cache = nullptr;
static uint64 cache_version = 1;
static Oid cached_table = InvalidOid;  // the definitions table the entries came from

uint64 sequencer_cache_version() {
    return cache_version;
}

static void on_relcache_invalidation(Oid relid) {
    if (relid == InvalidOid || relid == cached_table) cache_version++;
}

void register_sequencer_cache_callback() {
    watch_relcache(on_relcache_invalidation);
}

void invalidate_sequencer_caches(Oid definitions_table) {
    CacheInvalidateRelcacheByRelid(definitions_table);
}

void refresh_cached_sequencer(Oid schema, const text *name, CachedSequencer *entry) {
    // Stamped with the version from before the lookup: an invalidation that arrives while
    // SPI runs leaves the entry stale, to be read once more.
    const uint64 version = cache_version;
    entry->version = 0;  // stale until the lookup succeeds (it raises 42704 for a dropped name)
    find_sequencer_definition(schema, name, &entry->def);
    entry->slot = nullptr;
    entry->generation = 0;
    entry->claim = nullptr;
    entry->version = version;
    cached_table = entry->def.key.table;
}

CachedSequencer *cached_sequencer(Oid schema, const text *name) {
    const int len = sequencer_name_length(name, NameUse::lookup);
    char key[NAMEDATALEN] = {0};
    memcpy(key, VARDATA_ANY(name), len);

    if (cache == nullptr) {
        HASHCTL ctl;
        ctl.keysize = NAMEDATALEN;
        ctl.entrysize = sizeof(CachedSequencer);
        ctl.hcxt = CacheMemoryContext;
        cache = hash_create("idgen sequencers", 16, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
    }
    CachedSequencer *entry = static_cast<CachedSequencer *>(hash_search(cache, key, HASH_FIND, nullptr));
    if (entry != nullptr) {
        if (entry->version != cache_version) refresh_cached_sequencer(schema, name, entry);
        return entry;
    }
    // Only names that exist get an entry, so unknown names cannot grow the cache.
    const uint64 version = cache_version;
    SequencerDefinition def;
    find_sequencer_definition(schema, name, &def);
    entry = static_cast<CachedSequencer *>(hash_search(cache, key, HASH_ENTER, nullptr));
    entry->def = def;
    entry->slot = nullptr;
    entry->generation = 0;
    entry->claim = nullptr;
    entry->version = version;
    cached_table = def.key.table;
    return entry;
}

}  // namespace idgen::pg

// The Snowflake functions' call-site cache and cluster-mode definition (sequencer_call_site.hpp).
#include "pg/functions/sequencer_call_site.hpp"

#include "pg/boundary/extension_schema.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cluster/node_source.hpp"

extern "C" {
#include "utils/memutils.h"
}

namespace idgen::pg {

// What one call site (one function expression in one query) remembers between calls, so
// that the hot path looks nothing up: its cache entry, valid while the cache version holds.
struct CallSite {
    CachedSequencer *entry;
    uint64 version;
    size_t name_length;
};

CachedSequencer *sequencer_of(FunctionCallInfo fcinfo, const text *name) {
    CallSite *site = static_cast<CallSite *>(fcinfo->flinfo->fn_extra);
    const size_t len = VARSIZE_ANY_EXHDR(name);
    if (site != nullptr && site->version == sequencer_cache_version() && site->name_length == len &&
        memcmp(site->entry->name, VARDATA_ANY(name), len) == 0)
        return site->entry;
    CachedSequencer *entry = cached_sequencer(extension_schema(fcinfo), name);
    if (site == nullptr) {
        site = static_cast<CallSite *>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(CallSite)));
        fcinfo->flinfo->fn_extra = site;
    }
    site->entry = entry;
    site->version = entry->version;
    site->name_length = len;
    return entry;
}

bool still_bound(const CachedSequencer *e) {
    return e->slot != nullptr && atomic_load(&e->slot->generation) == e->generation;
}

void definition_text(int64_t epoch_unix_ms, int32 max_nodes, int32 backfill_nodes, snowflake::Kind kind,
                     char *out) {
    snprintf(out, kDefinitionText,
             "{\"backfill_nodes\":%d,\"epoch_ms\":%lld,\"layout\":\"%s\",\"max_nodes\":%d}", backfill_nodes,
             static_cast<long long>(epoch_unix_ms), layout_name(kind), max_nodes);
}

// The definition text of a cached sequencer.
void definition_text(const SequencerDefinition &def, char *out) {
    definition_text(def.layout.epoch_unix_ms, def.max_nodes, def.layout.backfill_nodes, def.layout.kind, out);
}

Claim *claim_of(ClusterShared *cluster, CachedSequencer *site) {
    if (site->claim == nullptr) {
        char definition[kDefinitionText];
        definition_text(site->def, definition);
        site->claim = cluster_claim(cluster, site->def.name, definition,
                                    site->def.max_nodes - site->def.layout.backfill_nodes);
    }
    return site->claim;
}

NodeSource sequencer_node(CachedSequencer *site) {
    NodeSource n;
    n.cluster = cluster_shared();
    if (n.cluster != nullptr) n.claim = claim_of(n.cluster, site);
    n.read("snowflake_next()");
    if (n.cluster == nullptr && !snowflake::node_fits(site->def.layout, n.node))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("Snowflake sequencer \"%s\" is detached on this server", site->def.name),
                        errdetail("%s is %d; the sequencer's live node ids are 0..%d.", n.origin(), n.node,
                                  site->def.max_nodes - site->def.layout.backfill_nodes - 1),
                        node_id_source == kNodeIdFromCitus
                            ? errhint("Create the sequencer with more max_nodes (up to 8192), or fewer "
                                      "backfill_nodes, so that every group of the Citus cluster fits.")
                            : errhint("Set idgen.node_id in postgresql.conf to this server's unique node id "
                                      "and restart.")));
    return n;
}

}  // namespace idgen::pg

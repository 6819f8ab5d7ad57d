// What the SQL functions of Snowflake sequencers share: the call site's cache of its sequencer,
// so that the hot path looks nothing up, and, in cluster mode, the sequencer's definition as the
// registry compares it and its claim of a node id.
#pragma once

#include "core/layouts/snowflake.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/cluster/node_source.hpp"
#include "pg/sequencers/sequencer_cache.hpp"

namespace idgen::pg {

// The cached sequencer named `name` (the first argument of the calling SQL function), kept in
// the call site (fn_extra) while the cache version holds.
CachedSequencer *sequencer_of(FunctionCallInfo fcinfo, const text *name);

// Whether the cached entry's slot still serves its sequencer (not released meanwhile).
bool still_bound(const CachedSequencer *e);

// A definition as the cluster registry compares it (cluster mode): canonical JSON, keys sorted,
// into out (kDefinitionText bytes).
void definition_text(int64_t epoch_unix_ms, int32 max_nodes, int32 backfill_nodes, snowflake::Kind kind,
                     char *out);
void definition_text(const SequencerDefinition &def, char *out);

// The sequencer's claim in cluster mode (registered and attached by its first draw:
// cluster_claim_node).
Claim *claim_of(ClusterShared *cluster, CachedSequencer *site);

// The node id snowflake_next draws with (and snowflake_at checks in cluster mode): the
// sequencer's claim in cluster mode, idgen.node_id otherwise (55000 when it does not fit the
// sequencer's live node ids).
NodeSource sequencer_node(CachedSequencer *site);

}  // namespace idgen::pg

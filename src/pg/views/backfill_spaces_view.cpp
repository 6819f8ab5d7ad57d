// _idgen_backfill_spaces(), behind the view idgen_backfill_spaces: per id space of
// retrospective ids, the namespaces leased (durable counter), parked in the pool, held by
// running sessions, and how many there are, so a DBA sees the end of an id space coming.
// Also _backfill_space_key(name), the key of a sequencer's lease space, for the view's join.
#include "core/backfill/uuid_v1_backfill.hpp"
#include "core/layouts/uuid_v7.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/leases/backfill_leases.hpp"
#include "pg/leases/backfill_pool.hpp"
#include "pg/sequencers/sequencer_registry.hpp"
#include "pg/shared_memory/shared_state.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/inet.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_backfill_spaces);
PG_FUNCTION_INFO_V1(idgen_backfill_space_key);
}

// (name text) -> bigint: the key of snowflake_at's lease space of that sequencer name.
Datum idgen_backfill_space_key(PG_FUNCTION_ARGS) {
    const text *name = PG_GETARG_TEXT_PP(0);
    const uint64 hash = sequencer_name_hash(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name));
    PG_RETURN_INT64(static_cast<int64>(hash));
}

// () -> setof (generator, database, space_key, node, namespaces, leased, pooled, in_use)
Datum idgen_backfill_spaces(PG_FUNCTION_ARGS) {
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    InitMaterializedSRF(fcinfo, 0);
    BackfillShared *s = backfill_shared();
    if (s == nullptr) PG_RETURN_VOID();
    const LeaseTable leases = lease_table(s);
    for (const LeaseTable::Cell &c : leases.cells) {
        if (c.space.kind == LeaseKind::free) continue;
        const SpaceCounts counts = space_counts(s, c.space);
        Datum values[8];
        bool nulls[8] = {};
        const bool snowflake = c.space.kind == LeaseKind::snowflake;
        values[0] = CStringGetTextDatum(snowflake                            ? "snowflake_at"
                                        : c.space.kind == LeaseKind::uuid_v7 ? "uuid_v7_at"
                                                                             : "uuid_v1_at");
        values[1] = ObjectIdGetDatum(c.space.database);
        nulls[1] = !snowflake;
        values[2] = Int64GetDatum(static_cast<int64>(c.space.key));
        nulls[2] = !snowflake;
        values[3] = PointerGetDatum(macaddr_from_node(c.space.key));
        nulls[3] = c.space.kind != LeaseKind::uuid_given;
        // The sequencer's limit is its backfill_nodes: the view takes it from the definition.
        const uint64_t limit = c.space.kind == LeaseKind::uuid_auto    ? uuid_v1::backfill::kAutoNamespaces
                               : c.space.kind == LeaseKind::uuid_given ? uuid_v1::backfill::kGivenNamespaces
                               : c.space.kind == LeaseKind::uuid_v7    ? uuid_v7::kNamespaces
                                                                       : counts.limit;
        values[4] = Int64GetDatum(static_cast<int64>(limit));
        nulls[4] = limit == 0;
        values[5] = Int64GetDatum(static_cast<int64>(c.state.next));
        values[6] = Int64GetDatum(static_cast<int64>(counts.pooled));
        values[7] = Int64GetDatum(static_cast<int64>(counts.in_use));
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    PG_RETURN_VOID();
}

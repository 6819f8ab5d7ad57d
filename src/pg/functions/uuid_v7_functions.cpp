// Version-7 UUIDs: uuid_v7() from the server's shared clock (strictly increasing across all
// sessions), uuid_v7_at(ts) for backfills (exactly ts, unique through leased namespaces), and
// the readers uuid_v7_timestamp(u) and uuid_v7_min(ts). Layout: src/core/layouts/uuid_v7.hpp.
#include "core/generators/uuid_v7_clock.hpp"
#include "core/layouts/uuid_v7.hpp"

#include "pg/backfill/backfill_sessions.hpp"
#include "pg/backfill/cluster_backfill.hpp"
#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/random_bits.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/functions/generate.hpp"
#include "pg/functions/ready_to_generate.hpp"
#include "pg/functions/uuid_v7_retrospective.hpp"
#include "pg/shared_memory/shared_state.hpp"

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_uuid_v7);
PG_FUNCTION_INFO_V1(idgen_uuid_v7_at);
PG_FUNCTION_INFO_V1(idgen_uuid_v7_timestamp);
PG_FUNCTION_INFO_V1(idgen_uuid_v7_min);
}

// Without a node id (idgen.node_id or the registry's) the node bits are random as well: unique
// across servers by chance then, as any version-7 UUID, instead of by construction.
Datum idgen_uuid_v7(PG_FUNCTION_ARGS) {
    SharedState *shared = ready_to_generate("uuid_v7()");
    const uint64_t random = random_u64();
    static PositionRun run;
    NodeSource node = server_node("uuid_v7()");
    const uuid_v7::Next n = draw_until_issued(
        shared, Generator::uuid_v7, "uuid_v7()",
        [&](int64_t now_ns, Status *error) {
            return uuid_v7::next(&shared->live.uuid_v7, now_ns, max_lead_ms, node.node, random, error,
                                 ordered_run(shared, &run, now_ns));
        },
        &node);
    PG_RETURN_UUID_P(datum_from_uuid(n.uuid));
}

namespace idgen::pg {

Uuid retrospective_uuid_v7(int64_t us, const char *what) {
    SharedState *shared = ready_to_generate(what);
    uuid_v7::Time t;
    check(uuid_v7::time_from_unix_micros(us, &t));
    const RetrospectiveNode id =
        retrospective_node(what, "Set idgen.node_id in postgresql.conf and restart.");
    const BackfillDraw d = draw_backfill(shared, LeaseSpace{LeaseKind::uuid_v7, InvalidOid, id.space_key},
                                         uuid_v7::kPerNamespace, uuid_v7::kNamespaces, 1, us, what);
    Uuid u;
    check(uuid_v7::make_retrospective(us, id.node_id, d.ns, d.offset, &u));
    return u;
}

}  // namespace idgen::pg

// (ts timestamptz) -> uuid; not STRICT: a NULL is an error, not a NULL id.
Datum idgen_uuid_v7_at(PG_FUNCTION_ARGS) {
    const char *what = "uuid_v7_at(ts)";
    refuse_null_arguments(fcinfo, what, {"ts"});
    PG_RETURN_UUID_P(
        datum_from_uuid(retrospective_uuid_v7(unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)), what)));
}

// (u uuid) -> timestamptz, NULL for other versions: the millisecond and the fraction after it,
// to the microsecond.
Datum idgen_uuid_v7_timestamp(PG_FUNCTION_ARGS) {
    uuid_v7::Time t;
    uint64_t rand_b;
    if (!uuid_v7::decode(uuid_from_datum(PG_GETARG_UUID_P(0)), &t, &rand_b)) PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(timestamptz_from_unix_micros(uuid_v7::unix_micros_of(t)));
}

// (ts timestamptz) -> uuid: the smallest version-7 UUID whose time is at or after ts.
Datum idgen_uuid_v7_min(PG_FUNCTION_ARGS) {
    Uuid u;
    check(uuid_v7::min_at(unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)), &u));
    PG_RETURN_UUID_P(datum_from_uuid(u));
}

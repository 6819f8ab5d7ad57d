// uuid_v1() and uuid_v6(): live version-1 UUIDs from the server's shared logical clock of
// 100 ns ticks, with the clock sequence and node of idgen.identity / idgen.uuid_node, and the
// same in version 6's layout. One clock for both, so a version-6 UUID converted to version 1
// never equals a uuid_v1() UUID of the same server, and the other way round.
#include "pg/functions/uuid_v1_live.hpp"

#include "core/generators/uuid_v1_clock.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/functions/generate.hpp"
#include "pg/functions/ready_to_generate.hpp"

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_uuid_v1);
PG_FUNCTION_INFO_V1(idgen_uuid_v6);
}

bool idgen::pg::live_uuid_node(const SharedState *shared, uint64_t *node) {
    if (shared->live.identity_unreadable)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("idgen identity file \"idgen.identity\" in the data directory is unreadable"),
                        errhint("Restore it from a backup, or remove it to make a new random node and "
                                "clock sequence, and restart the server.")));
    *node = shared->live.uuid_node;
    return !shared->live.uuid_node_missing;
}

// The next version-1 UUID of the server; `what` names the SQL function for its errors.
static Uuid draw_live_v1(const char *what) {
    SharedState *shared = ready_to_generate(what);
    LiveGenerators *live = &shared->live;
    uint64_t node = 0;
    if (!live_uuid_node(shared, &node))
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s: idgen.uuid_node is 'mac', but no network interface has a MAC address", what),
                 errhint("Set idgen.uuid_node to 'random' or to an explicit MAC address and restart.")));
    static PositionRun run;  // one clock for uuid_v1() and uuid_v6(), so one run
    const uuid_v1::Next n =
        draw_until_issued(shared, Generator::uuid_v1, what, [&](int64_t now_ns, Status *error) {
            return uuid_v1::next(&live->uuid_v1, now_ns, max_lead_ms, live->uuid_clock_seq, node, error,
                                 ordered_run(shared, &run, now_ns));
        });
    return n.uuid;
}

Datum idgen_uuid_v1(PG_FUNCTION_ARGS) {
    const Uuid u = draw_live_v1("uuid_v1()");
    PG_RETURN_UUID_P(datum_from_uuid(u));
}

Datum idgen_uuid_v6(PG_FUNCTION_ARGS) {
    const Uuid v1 = draw_live_v1("uuid_v6()");
    Uuid v6;
    uuid_v1::v1_to_v6(v1, &v6);
    PG_RETURN_UUID_P(datum_from_uuid(v6));
}

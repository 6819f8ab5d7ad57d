// uuid_v1_at(ts) and uuid_v1_at(ts, node): retrospective version-1 UUIDs whose time is exactly
// ts, from this session's allocator over durably leased namespaces (see uuid_v1_backfill.hpp).
#include "../core/uuid_v1_backfill.hpp"
#include "backfill_sessions.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "postgres_api.hpp"
#include "settings.hpp"
#include "shared_state.hpp"
#include "uuid_v1_live.hpp"

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_uuid_v1_at);
}

// (ts timestamptz [, node macaddr]) -> uuid; not STRICT: a NULL is an error, not a NULL id.
Datum idgen_uuid_v1_at(PG_FUNCTION_ARGS) {
    const bool given = PG_NARGS() > 1;
    const char *what = given ? "uuid_v1_at(ts, node)" : "uuid_v1_at(ts)";
    if (PG_ARGISNULL(0) || (given && PG_ARGISNULL(1)))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("%s: %s must not be NULL", what, PG_ARGISNULL(0) ? "ts" : "node")));
    SharedState *shared = require_shared_state(what);
    const int32_t live_cs = live_uuid_clock_seq(shared);
    const int64_t us = unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0));
    check(uuid_v1::backfill::check_time(us));

    Uuid u;
    if (given) {
        const uint64_t node = node_from_macaddr(PG_GETARG_MACADDR_P(1));
        if (uuid_v1::backfill::reserved_node(node))
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("%s: nodes 03:xx:xx:xx:xx:xx are reserved for uuid_v1_at(ts)", what),
                            errhint("Give another node, or call uuid_v1_at(ts) without one.")));
        const BackfillDraw d = draw_backfill(shared, LeaseSpace{LeaseKind::uuid_given, InvalidOid, node},
                                             uuid_v1::backfill::kGivenPerNamespace,
                                             uuid_v1::backfill::kGivenNamespaces, us, what);
        check(uuid_v1::backfill::make_given(us, node, d.ns, d.offset, live_cs, &u));
    } else {
        if (node_id < 0)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("%s needs idgen.node_id", what),
                            errdetail("Its nodes carry the node id, so that servers with distinct node "
                                      "ids never make the same UUID."),
                            errhint("Set idgen.node_id in postgresql.conf and restart, or give a node: "
                                    "uuid_v1_at(ts, node).")));
        const BackfillDraw d = draw_backfill(shared, LeaseSpace{LeaseKind::uuid_auto, InvalidOid, 0},
                                             uuid_v1::backfill::kAutoPerNamespace,
                                             uuid_v1::backfill::kAutoNamespaces, us, what);
        check(uuid_v1::backfill::make_auto(us, node_id, d.ns, d.offset, live_cs, &u));
    }
    PG_RETURN_UUID_P(datum_from_uuid(u));
}

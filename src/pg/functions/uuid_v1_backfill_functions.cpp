// uuid_v1_at(ts) and uuid_v1_at(ts, node): retrospective version-1 UUIDs whose time is exactly
// ts, from this session's allocator over durably leased namespaces (see uuid_v1_backfill.hpp);
// uuid_v6_at, the same UUIDs in version 6's layout.
#include "core/backfill/uuid_v1_backfill.hpp"
#include "core/layouts/uuid_v1.hpp"

#include "pg/backfill/backfill_sessions.hpp"
#include "pg/backfill/cluster_backfill.hpp"
#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/functions/ready_to_generate.hpp"
#include "pg/functions/uuid_v1_live.hpp"
#include "pg/shared_memory/shared_state.hpp"

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_uuid_v1_at);
PG_FUNCTION_INFO_V1(idgen_uuid_v6_at);
}

// 22023 when `node` is the node of this server's live uuid_v1(): the live UUIDs may use any clock
// sequence at any time, so no namespace of that node is free of them (uuid_v1_backfill.hpp).
static void refuse_live_node(const SharedState *shared, uint64_t node, const char *what) {
    uint64_t live = 0;
    if (live_uuid_node(shared, &live) && live == node)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("%s: node %02x:%02x:%02x:%02x:%02x:%02x is this server's own uuid_v1() node", what,
                        static_cast<unsigned>(node >> 40 & 0xff), static_cast<unsigned>(node >> 32 & 0xff),
                        static_cast<unsigned>(node >> 24 & 0xff), static_cast<unsigned>(node >> 16 & 0xff),
                        static_cast<unsigned>(node >> 8 & 0xff), static_cast<unsigned>(node & 0xff)),
                 errdetail("Live version-1 UUIDs of this server use every clock sequence of that node."),
                 errhint("Give another node, or call the function without one.")));
}

// The version-1 UUID for (ts timestamptz [, node macaddr]); not STRICT: a NULL is an error, not a
// NULL id. `what` names the SQL function for its errors.
static Uuid retrospective_v1(FunctionCallInfo fcinfo, const char *what) {
    const bool given = PG_NARGS() > 1;
    refuse_null_arguments(fcinfo, what, {"ts", "node"});
    SharedState *shared = ready_to_generate(what);
    const int64_t us = unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0));
    check(uuid_v1::backfill::check_time(us));

    Uuid u;
    if (given) {
        const uint64_t node = node_from_macaddr(PG_GETARG_MACADDR_P(1));
        check(uuid_v1::backfill::check_given_node(node), what,
              "Give another node, or call the function without one.");
        refuse_live_node(shared, node, what);
        const BackfillDraw d = draw_backfill(shared, LeaseSpace{LeaseKind::uuid_given, InvalidOid, node},
                                             uuid_v1::backfill::kGivenPerNamespace,
                                             uuid_v1::backfill::kGivenNamespaces, 1, us, what);
        check(uuid_v1::backfill::make_given(us, node, d.ns, d.offset, &u));
    } else {
        const RetrospectiveNode id =
            retrospective_node(what,
                               "Set idgen.node_id in postgresql.conf and restart, or "
                               "give a node as the second argument.");
        const BackfillDraw d = draw_backfill(
            shared, LeaseSpace{LeaseKind::uuid_auto, InvalidOid, id.space_key},
            uuid_v1::backfill::kAutoPerNamespace, uuid_v1::backfill::kAutoNamespaces, 1, us, what);
        check(uuid_v1::backfill::make_auto(us, id.node_id, d.ns, d.offset, &u));
    }
    return u;
}

Datum idgen_uuid_v1_at(PG_FUNCTION_ARGS) {
    const Uuid u = retrospective_v1(fcinfo, PG_NARGS() > 1 ? "uuid_v1_at(ts, node)" : "uuid_v1_at(ts)");
    PG_RETURN_UUID_P(datum_from_uuid(u));
}

// The same UUID in version 6's layout: it shares uuid_v1_at's namespaces, and the layouts map
// one to one, so no version-6 UUID made here equals another.
Datum idgen_uuid_v6_at(PG_FUNCTION_ARGS) {
    const Uuid v1 = retrospective_v1(fcinfo, PG_NARGS() > 1 ? "uuid_v6_at(ts, node)" : "uuid_v6_at(ts)");
    Uuid v6;
    uuid_v1::v1_to_v6(v1, &v6);
    PG_RETURN_UUID_P(datum_from_uuid(v6));
}

// The idgen_registry view: this server's lease in etcd as the registry worker last published it
// (cluster_shared.hpp), one row; state 'off' without cluster mode. The schema of 0.7.0 and before
// has the first eight columns only: the row is formed with the columns the caller's schema has.
#include "core/base/atomic_word.hpp"
#include "core/registry/registry_lease.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cluster/cluster_shared.hpp"

extern "C" {
#include "funcapi.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_registry);
}

static const char *state_name(bool forgotten, bool attached, int64_t attaches) {
    if (forgotten) return "forgotten";  // etcd lost what the registry held (generation_keeper.hpp)
    if (attached) return "attached";
    return attaches == 0 ? "attaching" : "detached";
}

// state, node_id, lease_id, lease_left, horizon, attaches, detaches, last_error, cluster, servers
Datum idgen_registry(PG_FUNCTION_ARGS) {
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        elog(ERROR, "idgen: _idgen_registry must return a record");
    desc = BlessTupleDesc(desc);
    Datum values[10] = {};
    bool nulls[10] = {false, true, true, true, true, false, false, true, true, true};
    ClusterShared *c = cluster_shared();
    if (c == nullptr) {
        values[0] = CStringGetTextDatum("off");
        values[5] = Int64GetDatum(0);
        values[6] = Int64GetDatum(0);
        PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
    }
    LWLockAcquire(c->lock, LW_SHARED);
    const int64_t lease_id = c->lease_id;
    const int64_t attaches = c->attaches;
    const int64_t detaches = c->detaches;
    const int32_t servers = c->servers;
    const bool forgotten = c->forgotten;
    char last_error[kErrorText];
    strlcpy(last_error, c->last_error, sizeof last_error);
    LWLockRelease(c->lock);
    values[8] = CStringGetTextDatum(registry_cluster);
    nulls[8] = false;
    if (servers >= 0) {
        values[9] = Int32GetDatum(servers);
        nulls[9] = false;
    }
    const ClaimWord server{atomic_load(&c->server_word)};
    const int64_t deadline = static_cast<int64_t>(atomic_load(&c->deadline_ns)), now = monotonic_ns();
    const bool attached = server.state() == ClaimState::attached && registry::within_deadline(deadline, now);
    values[0] = CStringGetTextDatum(state_name(forgotten, attached, attaches));
    if (attached) {
        values[1] = Int32GetDatum(server.node());
        nulls[1] = false;
        Interval *left = static_cast<Interval *>(palloc0(sizeof(Interval)));
        left->time = (deadline - now) / 1000;
        values[3] = IntervalPGetDatum(left);
        nulls[3] = false;
    }
    if (lease_id != 0) {
        char hex[24];
        snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(lease_id));
        values[2] = CStringGetTextDatum(hex);
        nulls[2] = false;
    }
    const int64_t horizon = static_cast<int64_t>(atomic_load(&c->horizon_us));
    if (horizon > 0) {
        values[4] = TimestampTzGetDatum(timestamptz_from_unix_micros(horizon));
        nulls[4] = false;
    }
    values[5] = Int64GetDatum(attaches);
    values[6] = Int64GetDatum(detaches);
    if (last_error[0] != '\0') {
        values[7] = CStringGetTextDatum(last_error);
        nulls[7] = false;
    }
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

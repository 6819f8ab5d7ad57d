// Unique nanosecond timestamps (after Chronicle's): unique_timestamp() from one shared 64-bit word,
// with idgen.node_id in its last idgen.unique_timestamp_digits decimal digits, and readers.
#include "core/layouts/unique_timestamp.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/functions/generate.hpp"
#include "pg/functions/ready_to_generate.hpp"

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_unique_timestamp);
PG_FUNCTION_INFO_V1(idgen_unique_timestamp_text);
PG_FUNCTION_INFO_V1(idgen_unique_timestamp_host);
PG_FUNCTION_INFO_V1(idgen_unique_timestamp_to_timestamptz);
}

static unique_ts::Layout layout() {
    return unique_ts::Layout{unique_timestamp_digits};
}

Datum idgen_unique_timestamp(PG_FUNCTION_ARGS) {
    SharedState *shared = ready_to_generate("unique_timestamp()");
    NodeSource node = server_node("unique_timestamp()");
    const Status fits = unique_ts::check_host(layout(), node.node);
    if (!fits.ok())
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("unique_timestamp(): %s %d does not fit in idgen.unique_timestamp_digits = %d digits",
                    node.origin(), node.node, unique_timestamp_digits),
             node.cluster != nullptr || node_id_source == kNodeIdFromCitus
                 ? errhint("The node id is not set by hand here (%s): set idgen.unique_timestamp_digits to 3 "
                           "for up to 1,000 nodes, and restart.",
                           node.origin())
                 : errhint("Set idgen.node_id to 0..%d, or idgen.unique_timestamp_digits to 3 for up to "
                           "1,000 servers, and restart.",
                           unique_ts::max_host(layout()))));
    static PositionRun run;
    const unique_ts::Next n = draw_until_issued(
        shared, Generator::unique_timestamp, "unique_timestamp()",
        [&](int64_t now_ns, Status *error) {
            return unique_ts::next(&shared->live.unique_ts, layout(), node.node, now_ns, max_lead_ms, error,
                                   ordered_run(shared, &run, now_ns));
        },
        &node);
    PG_RETURN_INT64(n.value);
}

Datum idgen_unique_timestamp_text(PG_FUNCTION_ARGS) {
    char buf[30];
    check(unique_ts::format(PG_GETARG_INT64(0), buf));
    PG_RETURN_TEXT_P(cstring_to_text(buf));
}

static int64_t nonnegative_arg(FunctionCallInfo fcinfo) {
    const int64_t value = PG_GETARG_INT64(0);
    if (value < 0)
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("a unique timestamp is never negative")));
    return value;
}

Datum idgen_unique_timestamp_host(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(unique_ts::host_of(layout(), nonnegative_arg(fcinfo)));
}

Datum idgen_unique_timestamp_to_timestamptz(PG_FUNCTION_ARGS) {
    PG_RETURN_TIMESTAMPTZ(timestamptz_from_unix_micros(nonnegative_arg(fcinfo) / 1000));
}

// The decoders of Snowflake ids (snowflake_timestamp, snowflake_node, snowflake_counter) and
// snowflake_min_id, under the layout of the sequencer they name; and snowflake_timestamp and
// snowflake_min_id under a layout given explicitly, which look nothing up and so are IMMUTABLE
// (generated columns, index expressions, partition bounds); and snowflake_runs_out, when a
// layout's time field ends.
#include "core/layouts/snowflake.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/functions/sequencer_call_site.hpp"
#include "pg/sequencers/sequencer_registry.hpp"

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_snowflake_timestamp);
PG_FUNCTION_INFO_V1(idgen_snowflake_node);
PG_FUNCTION_INFO_V1(idgen_snowflake_counter);
PG_FUNCTION_INFO_V1(idgen_snowflake_min_id);
PG_FUNCTION_INFO_V1(idgen_snowflake_timestamp_of);
PG_FUNCTION_INFO_V1(idgen_snowflake_min_id_of);
PG_FUNCTION_INFO_V1(idgen_snowflake_runs_out);
}

// The millisecond of an id as a timestamptz. A named sequencer's epoch lies between 1970 and its
// creation, so its ids' times always fit; a layout given explicitly may have an epoch within its
// time field's span (69.7 years; 174 in Sony's layout) of PostgreSQL's last timestamp (294276 AD),
// past which the time of an id is an error rather than a value PostgreSQL cannot hold. So may the
// end of that field (snowflake_runs_out).
static TimestampTz timestamptz_of_unix_ms(int64_t unix_ms) {
    // From Unix's epoch to PostgreSQL's in milliseconds first: PostgreSQL's last years overflow
    // an int64 of Unix microseconds, not one of its own.
    TimestampTz ts = 0;
    if (__builtin_mul_overflow(unix_ms - kPostgresEpochUnixMicros / 1000, int64_t{1000}, &ts) ||
        !IS_VALID_TIMESTAMP(ts))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    return ts;
}

static snowflake::Parts decode_arg(FunctionCallInfo fcinfo) {
    const CachedSequencer *site = sequencer_of(fcinfo, PG_GETARG_TEXT_PP(0));
    snowflake::Parts parts{};
    check(snowflake::decode(site->def.layout, PG_GETARG_INT64(1), &parts));
    return parts;
}

Datum idgen_snowflake_timestamp(PG_FUNCTION_ARGS) {
    PG_RETURN_TIMESTAMPTZ(timestamptz_of_unix_ms(decode_arg(fcinfo).unix_ms));
}

Datum idgen_snowflake_node(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(decode_arg(fcinfo).node);
}

Datum idgen_snowflake_counter(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(decode_arg(fcinfo).counter);
}

Datum idgen_snowflake_min_id(PG_FUNCTION_ARGS) {
    const CachedSequencer *site = sequencer_of(fcinfo, PG_GETARG_TEXT_PP(0));
    int64_t id = 0;
    check(snowflake::min_id(site->def.layout, unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(1)), &id));
    PG_RETURN_INT64(id);
}

// The layout given as (epoch, max_nodes, layout) from argument `first` on.
static snowflake::Layout layout_args(FunctionCallInfo fcinfo, int first) {
    return explicit_layout(PG_GETARG_TIMESTAMPTZ(first), PG_GETARG_INT32(first + 1),
                           PG_GETARG_TEXT_PP(first + 2));
}

// (id bigint, epoch, max_nodes, layout) -> timestamptz
Datum idgen_snowflake_timestamp_of(PG_FUNCTION_ARGS) {
    snowflake::Parts parts{};
    check(snowflake::decode(layout_args(fcinfo, 1), PG_GETARG_INT64(0), &parts));
    PG_RETURN_TIMESTAMPTZ(timestamptz_of_unix_ms(parts.unix_ms));
}

// (ts, epoch, max_nodes, layout) -> bigint
Datum idgen_snowflake_min_id_of(PG_FUNCTION_ARGS) {
    int64_t id = 0;
    check(snowflake::min_id(layout_args(fcinfo, 1), unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)),
                            &id));
    PG_RETURN_INT64(id);
}

// (epoch, layout) -> timestamptz: the first moment the layout's time field cannot hold.
Datum idgen_snowflake_runs_out(PG_FUNCTION_ARGS) {
    const snowflake::Layout layout{explicit_epoch_unix_ms(PG_GETARG_TIMESTAMPTZ(0)), 0, 0,
                                   layout_kind(PG_GETARG_TEXT_PP(1))};
    PG_RETURN_TIMESTAMPTZ(timestamptz_of_unix_ms(snowflake::runs_out_unix_ms(layout)));
}

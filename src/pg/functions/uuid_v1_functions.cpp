// SQL functions that build and read version-1 UUIDs from explicit fields: form_uuid_v1,
// uuid_v1_timestamp, uuid_v1_clock_seq, uuid_v1_node; version 6, the same fields sorted by time:
// uuid_v6_timestamp, uuid_v1_to_v6, uuid_v6_to_v1; and uuid_version for any UUID.
// Stateless, so they work without shared_preload_libraries.
#include "core/layouts/uuid_v1.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"

using namespace idgen;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_form_uuid_v1);
PG_FUNCTION_INFO_V1(idgen_uuid_v1_timestamp);
PG_FUNCTION_INFO_V1(idgen_uuid_v1_clock_seq);
PG_FUNCTION_INFO_V1(idgen_uuid_v1_node);
PG_FUNCTION_INFO_V1(idgen_uuid_version);
PG_FUNCTION_INFO_V1(idgen_uuid_v6_timestamp);
PG_FUNCTION_INFO_V1(idgen_uuid_v6_min);
PG_FUNCTION_INFO_V1(idgen_uuid_v1_to_v6);
PG_FUNCTION_INFO_V1(idgen_uuid_v6_to_v1);
}

Datum idgen_form_uuid_v1(PG_FUNCTION_ARGS) {
    const int64_t unix_micros = pg::unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0));
    const int32 clock_seq = PG_GETARG_INT32(1);
    const uint64_t node = pg::node_from_macaddr(PG_GETARG_MACADDR_P(2));

    uuid_v1::Fields fields{0, clock_seq, node};
    pg::check(uuid_v1::ticks_from_unix_micros(unix_micros, &fields.ticks));
    Uuid out;
    pg::check(uuid_v1::encode(fields, &out));
    PG_RETURN_UUID_P(pg::datum_from_uuid(out));
}

// Decodes argument 0 as a version-1 UUID; false (the caller returns NULL) when it is not one.
static bool decode_arg(FunctionCallInfo fcinfo, uuid_v1::Fields *fields) {
    return uuid_v1::decode(pg::uuid_from_datum(PG_GETARG_UUID_P(0)), fields);
}

Datum idgen_uuid_v1_timestamp(PG_FUNCTION_ARGS) {
    uuid_v1::Fields f;
    if (!decode_arg(fcinfo, &f)) PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(pg::timestamptz_from_unix_micros(uuid_v1::unix_micros_from_ticks(f.ticks)));
}

Datum idgen_uuid_v1_clock_seq(PG_FUNCTION_ARGS) {
    uuid_v1::Fields f;
    if (!decode_arg(fcinfo, &f)) PG_RETURN_NULL();
    PG_RETURN_INT32(f.clock_seq);
}

Datum idgen_uuid_v1_node(PG_FUNCTION_ARGS) {
    uuid_v1::Fields f;
    if (!decode_arg(fcinfo, &f)) PG_RETURN_NULL();
    PG_RETURN_MACADDR_P(pg::macaddr_from_node(f.node));
}

Datum idgen_uuid_version(PG_FUNCTION_ARGS) {
    const std::optional<int> version = uuid_version(pg::uuid_from_datum(PG_GETARG_UUID_P(0)));
    if (!version) PG_RETURN_NULL();
    PG_RETURN_INT16(static_cast<int16>(*version));
}

Datum idgen_uuid_v6_timestamp(PG_FUNCTION_ARGS) {
    uuid_v1::Fields f;
    if (!uuid_v1::decode_v6(pg::uuid_from_datum(PG_GETARG_UUID_P(0)), &f)) PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(pg::timestamptz_from_unix_micros(uuid_v1::unix_micros_from_ticks(f.ticks)));
}

// (ts timestamptz) -> uuid: the smallest version-6 UUID whose time is at or after ts.
Datum idgen_uuid_v6_min(PG_FUNCTION_ARGS) {
    Uuid out;
    pg::check(uuid_v1::v6_min_at(pg::unix_micros_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0)), &out));
    PG_RETURN_UUID_P(pg::datum_from_uuid(out));
}

Datum idgen_uuid_v1_to_v6(PG_FUNCTION_ARGS) {
    Uuid out;
    if (!uuid_v1::v1_to_v6(pg::uuid_from_datum(PG_GETARG_UUID_P(0)), &out)) PG_RETURN_NULL();
    PG_RETURN_UUID_P(pg::datum_from_uuid(out));
}

Datum idgen_uuid_v6_to_v1(PG_FUNCTION_ARGS) {
    Uuid out;
    if (!uuid_v1::v6_to_v1(pg::uuid_from_datum(PG_GETARG_UUID_P(0)), &out)) PG_RETURN_NULL();
    PG_RETURN_UUID_P(pg::datum_from_uuid(out));
}

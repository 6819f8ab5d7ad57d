// Ids as text people read, paste and move between systems: UUIDs as ULIDs (26 characters of
// Crockford's base32, upper case) and as TypeIDs (a type prefix and 26 lower-case characters),
// and Snowflake ids in 13 characters that sort as the ids do (core/text). The generators ulid(),
// ulid_at(ts), typeid(prefix) and typeid_at(prefix, ts) are SQL over these and idgen's version-7
// generators. A text that is not what it says raises 22P02, saying why.
#include "core/layouts/uuid_readings.hpp"
#include "core/layouts/uuid_v7.hpp"
#include "core/text/base32.hpp"
#include "core/text/typeid.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "funcapi.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_uuid_to_ulid);
PG_FUNCTION_INFO_V1(idgen_ulid_to_uuid);
PG_FUNCTION_INFO_V1(idgen_ulid_timestamp);
PG_FUNCTION_INFO_V1(idgen_typeid_text);
PG_FUNCTION_INFO_V1(idgen_typeid_parse);
PG_FUNCTION_INFO_V1(idgen_typeid_uuid);
PG_FUNCTION_INFO_V1(idgen_typeid_prefix);
PG_FUNCTION_INFO_V1(idgen_typeid_timestamp);
PG_FUNCTION_INFO_V1(idgen_snowflake_to_text);
PG_FUNCTION_INFO_V1(idgen_snowflake_from_text);
}

static text *text_of(const char *chars, size_t len) {
    return cstring_to_text_with_len(chars, static_cast<int>(len));
}

static Uuid ulid_uuid(const text *t) {
    Uuid u;
    const base32::Fault f =
        base32::decode_uuid(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), base32::Reading::either_case, &u);
    if (f != base32::Fault::none)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid ULID \"%s\": %s", text_to_cstring(t),
                               base32::reason(f, base32::kUuidChars))));
    return u;
}

// The prefix's length; the UUID into *u.
static size_t parsed_typeid(const text *t, Uuid *u) {
    size_t prefix_len = 0;
    const typeid_text::Fault f = typeid_text::parse(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &prefix_len, u);
    if (f != typeid_text::Fault::none)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid TypeID \"%s\": %s", text_to_cstring(t), typeid_text::reason(f))));
    return prefix_len;
}

// (u uuid) -> text: the ULID of the UUID's 128 bits.
Datum idgen_uuid_to_ulid(PG_FUNCTION_ARGS) {
    char out[base32::kUuidChars];
    base32::encode_uuid(uuid_from_datum(PG_GETARG_UUID_P(0)), base32::Letters::upper, out);
    PG_RETURN_TEXT_P(text_of(out, sizeof out));
}

// (t text) -> uuid: either case; 22P02 for another alphabet, length, or more than 128 bits.
Datum idgen_ulid_to_uuid(PG_FUNCTION_ARGS) {
    PG_RETURN_UUID_P(datum_from_uuid(ulid_uuid(PG_GETARG_TEXT_PP(0))));
}

// (t text) -> timestamptz: a ULID's time field, its first 48 bits as Unix milliseconds.
Datum idgen_ulid_timestamp(PG_FUNCTION_ARGS) {
    const int64_t ms = uuid_readings::unix_ms_field(ulid_uuid(PG_GETARG_TEXT_PP(0)));
    PG_RETURN_TIMESTAMPTZ(timestamptz_from_unix_micros(ms * 1000));
}

// (prefix text, u uuid) -> text: 22023 for a prefix a TypeID cannot have.
Datum idgen_typeid_text(PG_FUNCTION_ARGS) {
    const text *prefix = PG_GETARG_TEXT_PP(0);
    const size_t plen = VARSIZE_ANY_EXHDR(prefix);
    const typeid_text::Fault f = typeid_text::check_prefix(VARDATA_ANY(prefix), plen);
    if (f != typeid_text::Fault::none)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid TypeID prefix \"%s\": %s", text_to_cstring(prefix),
                               typeid_text::reason(f))));
    char out[typeid_text::kMaxChars];
    const size_t n =
        typeid_text::format(VARDATA_ANY(prefix), plen, uuid_from_datum(PG_GETARG_UUID_P(1)), out);
    PG_RETURN_TEXT_P(text_of(out, n));
}

// (t text) -> (prefix text, uuid uuid)
Datum idgen_typeid_parse(PG_FUNCTION_ARGS) {
    const text *t = PG_GETARG_TEXT_PP(0);
    Uuid u;
    const size_t plen = parsed_typeid(t, &u);
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        elog(ERROR, "idgen: typeid_parse must return a record");
    Datum values[2] = {PointerGetDatum(text_of(VARDATA_ANY(t), plen)), UUIDPGetDatum(datum_from_uuid(u))};
    bool nulls[2] = {false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

Datum idgen_typeid_uuid(PG_FUNCTION_ARGS) {
    Uuid u;
    (void)parsed_typeid(PG_GETARG_TEXT_PP(0), &u);
    PG_RETURN_UUID_P(datum_from_uuid(u));
}

Datum idgen_typeid_prefix(PG_FUNCTION_ARGS) {
    const text *t = PG_GETARG_TEXT_PP(0);
    Uuid u;
    PG_RETURN_TEXT_P(text_of(VARDATA_ANY(t), parsed_typeid(t, &u)));
}

// (t text) -> timestamptz: the time of the TypeID's version-7 UUID, to the microsecond (as
// uuid_v7_timestamp); NULL for a UUID of another version.
Datum idgen_typeid_timestamp(PG_FUNCTION_ARGS) {
    Uuid u;
    (void)parsed_typeid(PG_GETARG_TEXT_PP(0), &u);
    uuid_v7::Time t;
    uint64_t rand_b;
    if (!uuid_v7::decode(u, &t, &rand_b)) PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(timestamptz_from_unix_micros(uuid_v7::unix_micros_of(t)));
}

// (id bigint) -> text: the id's 64 bits, unsigned, in 13 lower-case characters.
Datum idgen_snowflake_to_text(PG_FUNCTION_ARGS) {
    char out[base32::kInt64Chars];
    base32::encode_u64(static_cast<uint64_t>(PG_GETARG_INT64(0)), out);
    PG_RETURN_TEXT_P(text_of(out, sizeof out));
}

Datum idgen_snowflake_from_text(PG_FUNCTION_ARGS) {
    const text *t = PG_GETARG_TEXT_PP(0);
    uint64_t v = 0;
    const base32::Fault f =
        base32::decode_u64(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), base32::Reading::either_case, &v);
    if (f != base32::Fault::none)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid Snowflake text \"%s\": %s", text_to_cstring(t),
                               base32::reason(f, base32::kInt64Chars))));
    PG_RETURN_INT64(static_cast<int64>(v));
}

// The SQL functions of keyed masking: id_mask and id_unmask (a bigint id of a width), uuid_mask
// and uuid_unmask (a version-7 UUID as a version-4 one), the random bytes of a new key, and the
// keys table's trigger that empties every backend's cache of keys (core/masking, pg/masking).
#include "core/masking/id_masks.hpp"

#include "pg/boundary/convert.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/masking/mask_keys.hpp"

extern "C" {
#include "commands/trigger.h"
}

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_id_mask);
PG_FUNCTION_INFO_V1(idgen_id_unmask);
PG_FUNCTION_INFO_V1(idgen_uuid_mask);
PG_FUNCTION_INFO_V1(idgen_uuid_unmask);
PG_FUNCTION_INFO_V1(idgen_mask_key_bytes);
PG_FUNCTION_INFO_V1(idgen_mask_keys_changed);
}

// (id bigint, key_name text, width integer) -> bigint
static Datum id_call(FunctionCallInfo fcinfo, masking::Direction dir) {
    const ff1::BlockCipher key = mask_key(fcinfo, PG_GETARG_TEXT_PP(1));
    int64_t out = 0;
    check(masking::transform_id(key, dir, PG_GETARG_INT32(2), PG_GETARG_INT64(0), &out),
          dir == masking::Direction::mask ? "id_mask" : "id_unmask");
    PG_RETURN_INT64(out);
}

// (u uuid, key_name text) -> uuid
static Datum uuid_call(FunctionCallInfo fcinfo, masking::Direction dir) {
    const ff1::BlockCipher key = mask_key(fcinfo, PG_GETARG_TEXT_PP(1));
    Uuid out;
    check(masking::transform_uuid(key, dir, uuid_from_datum(PG_GETARG_UUID_P(0)), &out),
          dir == masking::Direction::mask ? "uuid_mask" : "uuid_unmask");
    PG_RETURN_UUID_P(datum_from_uuid(out));
}

Datum idgen_id_mask(PG_FUNCTION_ARGS) {
    return id_call(fcinfo, masking::Direction::mask);
}

Datum idgen_id_unmask(PG_FUNCTION_ARGS) {
    return id_call(fcinfo, masking::Direction::unmask);
}

Datum idgen_uuid_mask(PG_FUNCTION_ARGS) {
    return uuid_call(fcinfo, masking::Direction::mask);
}

Datum idgen_uuid_unmask(PG_FUNCTION_ARGS) {
    return uuid_call(fcinfo, masking::Direction::unmask);
}

// (bytes integer) -> bytea: 16 or 32 bytes of PostgreSQL's strong random source, for a new key.
Datum idgen_mask_key_bytes(PG_FUNCTION_ARGS) {
    const int32 n = PG_GETARG_INT32(0);
    if (n != 16 && n != 32)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("id_mask_key_create: a key has 16 or 32 bytes, not %d", n)));
    bytea *key = static_cast<bytea *>(palloc(VARHDRSZ + n));
    SET_VARSIZE(key, VARHDRSZ + n);
    if (!pg_strong_random(VARDATA(key), n))
        ereport(ERROR,
                (errcode(ERRCODE_INTERNAL_ERROR), errmsg("id_mask_key_create: no strong random bytes")));
    PG_RETURN_BYTEA_P(key);
}

// AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ... FOR EACH STATEMENT on idgen_mask_keys.
Datum idgen_mask_keys_changed(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("idgen_internal._mask_keys_changed runs only as a trigger")));
    invalidate_mask_keys(RelationGetRelid(reinterpret_cast<TriggerData *>(fcinfo->context)->tg_relation));
    return PointerGetDatum(nullptr);
}

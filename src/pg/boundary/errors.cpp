// The mapping from core error classes to SQLSTATEs, in one table.
#include "pg/boundary/errors.hpp"

#include <type_traits>

#include "pg/boundary/postgres_api.hpp"

static_assert(std::is_trivially_destructible_v<idgen::Status>,
              "a Status may be alive when ereport longjmps; it must need no destructor");

namespace idgen::pg {

static int sqlstate_of(Errc code) {
    switch (code) {
        case Errc::timestamp_out_of_range:
            return ERRCODE_DATETIME_VALUE_OUT_OF_RANGE;  // 22008
        case Errc::value_out_of_range:
            return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;  // 22003
        case Errc::invalid_parameter:
            return ERRCODE_INVALID_PARAMETER_VALUE;  // 22023
        case Errc::not_attached:
            return ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;  // 55000
        case Errc::exhausted:
            return ERRCODE_PROGRAM_LIMIT_EXCEEDED;  // 54000
        case Errc::ok:
            break;
    }
    return ERRCODE_INTERNAL_ERROR;
}

void refuse_null_arguments(FunctionCallInfo fcinfo, const char *what,
                           std::initializer_list<const char *> names) {
    int i = 0;
    for (const char *name : names) {
        if (i < PG_NARGS() && PG_ARGISNULL(i))
            ereport(ERROR,
                    (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s: %s must not be NULL", what, name)));
        i++;
    }
}

void raise_error(const Status &status, const char *subject, const char *hint) {
    ereport(ERROR,
            (errcode(sqlstate_of(status.code)),
             subject != nullptr ? errmsg("%s: %s", subject, status.message) : errmsg("%s", status.message),
             hint != nullptr ? errhint("%s", hint) : 0));
    pg_unreachable();
}

}  // namespace idgen::pg

// The schema idgen's objects live in (CREATE EXTENSION idgen SCHEMA ...): where sequencer
// definitions and the carried state are looked up.
#pragma once

#include "pg/boundary/postgres_api.hpp"

namespace idgen::pg {

// Called from one of idgen's SQL functions (fcinfo): the schema that function was created in, a
// syscache lookup. Without fcinfo (hooks, callbacks): pg_extension's entry for idgen, or
// InvalidOid when idgen is not installed in this database.
Oid extension_schema(FunctionCallInfo fcinfo = nullptr);

}  // namespace idgen::pg

// Where idgen's objects live (extension_schema.hpp).
#include "pg/boundary/extension_schema.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

namespace idgen::pg {

Oid extension_schema(FunctionCallInfo fcinfo) {
    if (fcinfo != nullptr) return get_func_namespace(fcinfo->flinfo->fn_oid);
    const Oid ext = get_extension_oid("idgen", true);
    if (!OidIsValid(ext)) return InvalidOid;
    Relation rel = table_open(ExtensionRelationId, AccessShareLock);
    ScanKeyData key;
    ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(ext));
    SysScanDesc scan = systable_beginscan(rel, ExtensionOidIndexId, true, nullptr, 1, &key);
    HeapTuple tuple = systable_getnext(scan);
    const Oid schema = HeapTupleIsValid(tuple)
                           ? reinterpret_cast<Form_pg_extension>(GETSTRUCT(tuple))->extnamespace
                           : InvalidOid;
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return schema;
}

}  // namespace idgen::pg

// The text a DBA sees of idgen's WAL records in pg_walinspect and pg_waldump (rm_desc and
// rm_identify), kept apart from redo as PostgreSQL keeps its rmgrdesc files: describing a record
// never changes state, and must work on any record, also one that redo would refuse.
#include "core/records/state_records.hpp"

#include "pg/wal/state_wal.hpp"

extern "C" {
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
}

namespace idgen::pg {

void describe_state_record(StringInfo buf, XLogReaderState *record) {
    char text[160];
    appendStringInfoString(
        buf, records::describe_record(XLogRecGetInfo(record) & ~XLR_INFO_MASK, XLogRecGetData(record),
                                      XLogRecGetDataLen(record), text, sizeof text));
}

const char *identify_state_record(uint8 info) {
    return records::record_type_name(info & ~XLR_INFO_MASK);
}

}  // namespace idgen::pg

// Leasing namespaces from the durable table: find or add the space's cell, write the table with
// the number advanced, then hand the number out.
#include "backfill_leases.hpp"

#include "durable_record.hpp"
#include "shared_state.hpp"

namespace idgen::pg {

static const char kLeaseFile[] = "idgen.leases";
static const uint32_t kLeaseMagic = 0x1D6E4C31;  // "idgen leases", format 1
static_assert(sizeof(LeaseTable) <= kMaxRecordPayload, "the lease table must fit one durable record");

bool load_leases(LeaseTable *table) {
    return read_record(kLeaseFile, kLeaseMagic, table, sizeof *table) != RecordRead::unreadable;
}

static LeaseTable::Cell *cell_of(LeaseTable *table, const LeaseSpace &space) {
    LeaseTable::Cell *free_cell = nullptr;
    for (LeaseTable::Cell &c : table->cells) {
        if (c.space == space) return &c;
        if (free_cell == nullptr && c.space.kind == LeaseKind::free) free_cell = &c;
    }
    if (free_cell != nullptr) free_cell->space = space;  // next is 0 in a free cell
    return free_cell;
}

uint64_t lease_namespace(SharedState *s, const LeaseSpace &space, uint64_t limit, const char *what) {
    if (s->leases_unreadable)
        ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("idgen lease file \"%s\" in the data directory is unreadable", kLeaseFile),
                        errdetail("Without it idgen cannot know which namespaces %s handed out before.", what),
                        errhint("Restore it from a backup of this data directory and restart.")));
    LWLockAcquire(s->lock, LW_EXCLUSIVE);
    LeaseTable next_table = s->leases;
    LeaseTable::Cell *cell = cell_of(&next_table, space);
    if (cell == nullptr) {
        LWLockRelease(s->lock);
        ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                        errmsg("%s: idgen's lease table is full (%d id spaces)", what, kLeaseSpaces),
                        errdetail("Each given node of uuid_v1_at and each Snowflake sequencer name used "
                                  "with snowflake_at takes one entry, for good.")));
    }
    const uint64_t lease = cell->next;
    if (lease >= limit) {
        LWLockRelease(s->lock);
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("%s: no namespace left in this id space (all %llu are used)", what,
                               static_cast<unsigned long long>(limit)),
                        errdetail("A namespace is never handed out twice, so no more ids can be made "
                                  "here without risking a duplicate.")));
    }
    cell->next = lease + 1;
    write_record(kLeaseFile, kLeaseMagic, &next_table, sizeof next_table);  // durable before use
    s->leases = next_table;
    LWLockRelease(s->lock);
    return lease;
}

}  // namespace idgen::pg

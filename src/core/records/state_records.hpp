// Folder src/core/records: the durable records of the WAL resource manager.
//
// The records of idgen's WAL resource manager, byte for byte: the one place that says what a
// record holds, which layouts each idgen version wrote, and how a record is read and described.
// Kept apart from the server so that every layout, every length a record may have and every
// description can be tested without one; the server inserts the bytes, replays them and shows
// the descriptions (pg_walinspect, pg_waldump) through this code.
//
// Versions. A record's type is its info code; its version is its length. A layout, once some
// release wrote it, is never changed: a new layout of a type gets a new length (and, should two
// layouts ever have one length, a new info code), and every layout written before stays
// readable, because a standby or a restored backup replays WAL written by the version before it.
// A record whose type or length this code does not know cannot be replayed: the server stops
// recovery with a message that names the record, rather than guess at its content.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backfill/lease_spaces.hpp"

namespace idgen::records {

// The info codes (the high four bits of a record's xl_info, which belong to the resource manager).
constexpr uint8_t kHorizonInfo = 0x00;
constexpr uint8_t kLeaseInfo = 0x10;

// A move of the durable horizon (every version): no id handed out reaches past it.
struct HorizonRecord {
    int64_t horizon_unix_us;
};
static_assert(sizeof(HorizonRecord) == 8, "the horizon record's layout is fixed");

// A lease space's new state, as 0.6.0 and later write it: the next namespace never handed out
// and the durable offset bound with its step.
struct LeaseRecord {
    uint32_t kind;
    uint32_t database;
    uint64_t key;
    uint64_t next;
    uint32_t bound;
    uint32_t step;
};
static_assert(sizeof(LeaseRecord) == 32 && offsetof(LeaseRecord, next) == 16 &&
                  offsetof(LeaseRecord, step) == 28,
              "the lease record's layout of 0.6.0 is fixed");

// The same, as 0.5.0 wrote it: no offset bound yet (read as bound 0, step 0: nothing to raise).
struct LeaseRecordV1 {
    uint32_t kind;
    uint32_t database;
    uint64_t key;
    uint64_t next;
};
static_assert(sizeof(LeaseRecordV1) == 24 && offsetof(LeaseRecordV1, next) == 16,
              "the lease record's layout of 0.5.0 is fixed");

// A record read back: one of the two types.
struct StateRecord {
    uint8_t info;
    int64_t horizon_unix_us;     // kHorizonInfo
    backfill::LeaseSpace space;  // kLeaseInfo
    backfill::LeaseState state;  // kLeaseInfo
};

enum class Read { ok, unknown_type, unknown_length };

HorizonRecord horizon_record(int64_t horizon_unix_us);
LeaseRecord lease_record(const backfill::LeaseSpace &space, const backfill::LeaseState &state);

// Reads a record's data (`size` bytes, any alignment) of type `info` (already masked to the
// resource manager's bits) into *out.
Read read_record(uint8_t info, const void *data, size_t size, StateRecord *out);

// The record type's name ("HORIZON", "LEASE"), or nullptr for a type this code does not know.
const char *record_type_name(uint8_t info);

// What the record says, for a DBA reading WAL: written into buf (always terminated, cut at
// size), also for a record that cannot be read. Returns buf.
const char *describe_record(uint8_t info, const void *data, size_t size, char *buf, size_t buf_size);

}  // namespace idgen::records

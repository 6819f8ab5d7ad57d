// Folder src/pg/durability: what makes a step durable outside WAL - small checksummed files
// in the data directory, the host identity, and the wait for synchronous standbys.
//
// Small records idgen keeps in the data directory (the horizon, the UUID identity): written
// atomically (temporary file, fsync, durable rename) and checked by magic number and CRC
// when read, so a torn or foreign file is never taken for a valid one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace idgen::pg {

// The largest payload a record can have (the lease table is the largest).
constexpr size_t kMaxRecordPayload = 2048;

enum class RecordRead { missing, ok, unreadable };

RecordRead read_record(const char *path, uint32_t magic, void *payload, size_t size);

// Raises an ERROR if the record cannot be written and made durable.
void write_record(const char *path, uint32_t magic, const void *payload, size_t size);

}  // namespace idgen::pg

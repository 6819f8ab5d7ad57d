// Reading and writing durable records: [magic][payload][CRC-32C of both].
#include "pg/durability/durable_record.hpp"

#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include <fcntl.h>
#include <unistd.h>

#include "port/pg_crc32c.h"
#include "storage/fd.h"
}

namespace idgen::pg {

struct Record {
    uint32 magic;
    uint32 size;
    char payload[kMaxRecordPayload];
};

static pg_crc32c record_crc(const Record &r, size_t size) {
    pg_crc32c crc;
    INIT_CRC32C(crc);
    COMP_CRC32C(crc, &r, offsetof(Record, payload) + size);
    FIN_CRC32C(crc);
    return crc;
}

RecordRead read_record(const char *path, uint32_t magic, void *payload, size_t size) {
    Assert(size <= kMaxRecordPayload);
    const int fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
    if (fd < 0) return errno == ENOENT ? RecordRead::missing : RecordRead::unreadable;
    Record r{};
    pg_crc32c crc = 0;
    const size_t head = offsetof(Record, payload) + size;
    const bool complete = read(fd, &r, head) == static_cast<ssize_t>(head) &&
                          read(fd, &crc, sizeof crc) == static_cast<ssize_t>(sizeof crc);
    CloseTransientFile(fd);
    if (!complete || r.magic != magic || r.size != size || !EQ_CRC32C(crc, record_crc(r, size)))
        return RecordRead::unreadable;
    memcpy(payload, r.payload, size);
    return RecordRead::ok;
}

[[noreturn]] static void fail(const char *what, const char *path, int fd) {
    const int save_errno = errno;
    if (fd >= 0) CloseTransientFile(fd);
    errno = save_errno;
    ereport(ERROR, (errcode_for_file_access(), errmsg("could not %s idgen file \"%s\": %m", what, path)));
    pg_unreachable();
}

void write_record(const char *path, uint32_t magic, const void *payload, size_t size) {
    Assert(size <= kMaxRecordPayload);
    Record r{};
    r.magic = magic;
    r.size = static_cast<uint32>(size);
    memcpy(r.payload, payload, size);
    const pg_crc32c crc = record_crc(r, size);
    const size_t head = offsetof(Record, payload) + size;

    char temp[MAXPGPATH];
    snprintf(temp, sizeof temp, "%s.tmp", path);
    const int fd = OpenTransientFile(temp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0) fail("create", temp, -1);
    errno = 0;
    if (write(fd, &r, head) != static_cast<ssize_t>(head) ||
        write(fd, &crc, sizeof crc) != static_cast<ssize_t>(sizeof crc)) {
        if (errno == 0) errno = ENOSPC;
        fail("write", temp, fd);
    }
    if (pg_fsync(fd) != 0) fail("fsync", temp, fd);
    CloseTransientFile(fd);
    // Renames, then fsyncs the file and the data directory: durable once this returns.
    durable_rename(temp, path, ERROR);
}

}  // namespace idgen::pg

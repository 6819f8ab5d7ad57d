// Reading and writing $PGDATA/idgen.horizon.
#include "durable_horizon.hpp"

#include "postgres_api.hpp"

extern "C" {
#include <fcntl.h>
#include <unistd.h>

#include "port/pg_crc32c.h"
#include "storage/fd.h"
}

namespace idgen::pg {

static const char kPath[] = "idgen.horizon";
static const char kTempPath[] = "idgen.horizon.tmp";
static const uint32 kMagic = 0x1D6E4852;  // "idgen horizon", format 1

struct HorizonRecord {
    uint32 magic;
    uint32 pad;
    int64 unix_us;
    pg_crc32c crc;
};

static pg_crc32c record_crc(const HorizonRecord &r) {
    pg_crc32c crc;
    INIT_CRC32C(crc);
    COMP_CRC32C(crc, &r, offsetof(HorizonRecord, crc));
    FIN_CRC32C(crc);
    return crc;
}

HorizonRead read_horizon_file(int64_t *unix_us) {
    const int fd = OpenTransientFile(kPath, O_RDONLY | PG_BINARY);
    if (fd < 0) return errno == ENOENT ? HorizonRead::missing : HorizonRead::unreadable;
    HorizonRecord r;
    const ssize_t n = read(fd, &r, sizeof r);
    CloseTransientFile(fd);
    if (n != static_cast<ssize_t>(sizeof r) || r.magic != kMagic || !EQ_CRC32C(r.crc, record_crc(r)))
        return HorizonRead::unreadable;
    *unix_us = r.unix_us;
    return HorizonRead::ok;
}

void write_horizon_file(int64_t unix_us) {
    HorizonRecord r{};
    r.magic = kMagic;
    r.unix_us = unix_us;
    r.crc = record_crc(r);

    const int fd = OpenTransientFile(kTempPath, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0)
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not create idgen horizon file \"%s\": %m", kTempPath)));
    errno = 0;
    if (write(fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) {
        if (errno == 0) errno = ENOSPC;
        const int save_errno = errno;
        CloseTransientFile(fd);
        errno = save_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not write idgen horizon file \"%s\": %m", kTempPath)));
    }
    if (pg_fsync(fd) != 0) {
        const int save_errno = errno;
        CloseTransientFile(fd);
        errno = save_errno;
        ereport(ERROR, (errcode_for_file_access(),
                        errmsg("could not fsync idgen horizon file \"%s\": %m", kTempPath)));
    }
    CloseTransientFile(fd);
    // Renames, then fsyncs the file and the data directory: durable once this returns.
    durable_rename(kTempPath, kPath, ERROR);
}

}  // namespace idgen::pg

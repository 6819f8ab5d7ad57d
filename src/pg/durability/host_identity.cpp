// MAC addresses from /sys/class/net, and the identity file.
#include "pg/durability/host_identity.hpp"

#include <cstdio>
#include <cstring>

#include "core/base/mac_address.hpp"
#include "core/generators/uuid_v1_clock.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/durability/durable_record.hpp"

extern "C" {
#include <dirent.h>

#include "access/xlog.h"
#include "storage/fd.h"
}

namespace idgen::pg {

static const char kIdentityFile[] = "idgen.identity";
static const uint32_t kIdentityMagic = 0x1D6E4944;            // "idgen identity", format 1
static const uint32_t kIdentityWithSystemMagic = 0x1D6E4945;  // format 2: and whose system it is

// Format 2: the identity and the system identifier of the cluster it was made for. A standby, a
// restored backup and a promoted standby keep the primary's system identifier, so they go on
// with its identity (above the replayed horizon); pg_createsubscriber (PostgreSQL 17 and later)
// gives the copy it turns into an independent server a new system identifier, and then the copy
// must not go on making the publisher's uuid_v1() ids: it makes a new identity.
struct IdentityRecord {
    uint64_t random_node;
    int32_t clock_seq;
    int32_t unused;
    uint64_t system_identifier;
};

static bool read_line(const char *path, char *buf, size_t size) {
    FILE *f = AllocateFile(path, "r");
    if (f == nullptr) return false;
    const bool ok = fgets(buf, static_cast<int>(size), f) != nullptr;
    FreeFile(f);
    return ok;
}

bool first_mac_address(uint64_t *mac) {
    DIR *dir = AllocateDir("/sys/class/net");
    if (dir == nullptr) return false;
    char best_name[NAME_MAX + 1] = "";
    uint64_t best = 0;
    bool best_up = false;
    struct dirent *de;
    while ((de = ReadDir(dir, "/sys/class/net")) != nullptr) {
        if (de->d_name[0] == '.' || strcmp(de->d_name, "lo") == 0) continue;
        char path[MAXPGPATH], line[64];
        uint64_t candidate = 0;
        snprintf(path, sizeof path, "/sys/class/net/%s/address", de->d_name);
        if (!read_line(path, line, sizeof line) || !parse_mac(line, &candidate) || candidate == 0) continue;
        snprintf(path, sizeof path, "/sys/class/net/%s/operstate", de->d_name);
        const bool up = read_line(path, line, sizeof line) && strncmp(line, "up", 2) == 0;
        // Up interfaces first; among equals, the first name in byte order.
        if (best_name[0] == '\0' || (up && !best_up) ||
            (up == best_up && strcmp(de->d_name, best_name) < 0)) {
            strlcpy(best_name, de->d_name, sizeof best_name);
            best = candidate;
            best_up = up;
        }
    }
    FreeDir(dir);
    if (best_name[0] == '\0') return false;
    *mac = best;
    return true;
}

static void make_identity(IdentityRecord *r) {
    uint8_t random[8];
    if (!pg_strong_random(random, sizeof random))
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("idgen: could not generate random bytes")));
    const uuid_v1::RandomIdentity made = uuid_v1::random_identity(random);
    *r = IdentityRecord{made.node, made.clock_seq, 0, GetSystemIdentifier()};
}

bool load_uuid_identity(UuidIdentity *identity) {
    IdentityRecord r{};
    RecordRead read = read_record(kIdentityFile, kIdentityWithSystemMagic, &r, sizeof r);
    if (read == RecordRead::ok && r.system_identifier != GetSystemIdentifier()) {
        ereport(LOG, (errmsg("idgen: idgen.identity was made for database system " UINT64_FORMAT
                             ", this is " UINT64_FORMAT ": making a new identity for uuid_v1()",
                             r.system_identifier, GetSystemIdentifier())));
        make_identity(&r);
        write_record(kIdentityFile, kIdentityWithSystemMagic, &r, sizeof r);
    } else if (read == RecordRead::unreadable) {  // format 1 (before 0.9.3): this system's, rewritten as such
        UuidIdentity old{};
        if (read_record(kIdentityFile, kIdentityMagic, &old, sizeof old) != RecordRead::ok) return false;
        r = IdentityRecord{old.random_node, old.clock_seq, 0, GetSystemIdentifier()};
        write_record(kIdentityFile, kIdentityWithSystemMagic, &r, sizeof r);
    } else if (read == RecordRead::missing) {
        make_identity(&r);
        write_record(kIdentityFile, kIdentityWithSystemMagic, &r, sizeof r);
    }
    *identity = UuidIdentity{r.random_node, r.clock_seq};
    return true;
}

}  // namespace idgen::pg

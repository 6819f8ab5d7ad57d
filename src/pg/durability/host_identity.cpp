// MAC addresses from /sys/class/net, and the identity file.
#include "pg/durability/host_identity.hpp"

#include <cstdio>
#include <cstring>

#include "core/base/mac_address.hpp"
#include "core/generators/uuid_v1_clock.hpp"
#include "pg/durability/durable_record.hpp"
#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include <dirent.h>

#include "storage/fd.h"
}

namespace idgen::pg {

static const char kIdentityFile[] = "idgen.identity";
static const uint32_t kIdentityMagic = 0x1D6E4944;  // "idgen identity", format 1

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
        if (best_name[0] == '\0' || (up && !best_up) || (up == best_up && strcmp(de->d_name, best_name) < 0)) {
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

bool load_uuid_identity(UuidIdentity *identity) {
    switch (read_record(kIdentityFile, kIdentityMagic, identity, sizeof *identity)) {
        case RecordRead::ok:
            return true;
        case RecordRead::unreadable:
            return false;
        case RecordRead::missing:
            break;
    }
    uint8_t random[8];
    if (!pg_strong_random(random, sizeof random))
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("idgen: could not generate random bytes")));
    const uuid_v1::RandomIdentity made = uuid_v1::random_identity(random);
    identity->random_node = made.node;
    identity->clock_seq = made.clock_seq;
    write_record(kIdentityFile, kIdentityMagic, identity, sizeof *identity);
    return true;
}

}  // namespace idgen::pg

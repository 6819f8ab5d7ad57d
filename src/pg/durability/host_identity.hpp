// Who this server is, for the UUID layouts that carry a node: the MAC address of its first
// network interface, and the random version-1 node and clock sequence made once per data
// directory and kept in $PGDATA/idgen.identity (their layout is the core's,
// uuid_v1::random_identity).
#pragma once

#include <cstdint>

namespace idgen::pg {

// The MAC address of the first interface (by name, loopback and all-zero addresses skipped)
// that is up, else of the first such interface at all; false when there is none.
bool first_mac_address(uint64_t *mac);

struct UuidIdentity {
    uint64_t random_node;  // 47 random bits with the multicast bit set (RFC 4122 section 4.5)
    int32_t clock_seq;     // 14 random bits
};

// Reads $PGDATA/idgen.identity, creating it with fresh random values the first time, and again
// when it was made for another database system (host_identity.cpp says when that happens).
// Returns false if the file exists but is unreadable.
bool load_uuid_identity(UuidIdentity *identity);

}  // namespace idgen::pg

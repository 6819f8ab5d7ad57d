// The 16-byte UUID value and the two fields every UUID carries whatever its layout:
// the variant (which family of layouts) and, for the RFC 4122/9562 family, the version.
// Shared by every UUID codec in the core; knows nothing of PostgreSQL.
#pragma once

#include <cstdint>
#include <optional>

namespace idgen {

// Bytes in network order, exactly as PostgreSQL's uuid type and RFC 9562 lay them out.
struct Uuid {
    uint8_t bytes[16];
};

// What a UUID generator's draw issues (logical_clock.hpp's Drawn): the UUID, already laid out.
struct UuidFields {
    Uuid uuid;
};

enum class UuidVariant { ncs, rfc, microsoft, future };

UuidVariant uuid_variant(const Uuid &u) noexcept;

// The version nibble, or nothing when the variant is not RFC 4122/9562 (the nibble then
// belongs to another layout and means nothing).
std::optional<int> uuid_version(const Uuid &u) noexcept;

}  // namespace idgen

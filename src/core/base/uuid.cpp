// Variant and version of any UUID (RFC 9562 section 4.1 and 4.2).
#include "core/base/uuid.hpp"

namespace idgen {

UuidVariant uuid_variant(const Uuid &u) noexcept {
    const uint8_t b = u.bytes[8];
    if ((b & 0x80) == 0x00) return UuidVariant::ncs;
    if ((b & 0xC0) == 0x80) return UuidVariant::rfc;
    if ((b & 0xE0) == 0xC0) return UuidVariant::microsoft;
    return UuidVariant::future;
}

std::optional<int> uuid_version(const Uuid &u) noexcept {
    if (uuid_variant(u) != UuidVariant::rfc) return std::nullopt;
    return u.bytes[6] >> 4;
}

}  // namespace idgen

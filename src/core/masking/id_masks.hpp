// The ids idgen masks and the FF1 domain each one is (radix 2, no tweak, so the width alone
// tells domains apart: FF1 puts n in every round's input):
// - a bigint id of `width` bits (20 to 63): the values 0 .. 2^width - 1 onto themselves, so a
//   masked id is a positive bigint again, and below 2^53 for JavaScript when width is 53;
// - a version-7 UUID: its 122 bits other than the version and the variant, masked as one numeral
//   string of 122 bits, laid out again as a version-4 UUID (RFC 9562's variant), so that nothing
//   of the time is left to read; unmasking takes that version-4 UUID back to the version-7 one.
// 20 bits is SP 800-38G's smallest binary domain (2^20 >= 1,000,000 values).
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/base/uuid.hpp"
#include "core/masking/ff1.hpp"

namespace idgen::masking {

constexpr int kMinWidth = 20;
constexpr int kMaxWidth = 63;

enum class Direction { mask, unmask };

// invalid_parameter for a width outside kMinWidth..kMaxWidth.
Status check_width(int width) noexcept;

// value_out_of_range for an id outside 0 .. 2^width - 1; invalid_parameter for a bad width.
Status transform_id(const ff1::BlockCipher &cipher, Direction dir, int width, int64_t id,
                    int64_t *out) noexcept;

// invalid_parameter unless the UUID is version 7 (to mask) or version 4 (to unmask), of RFC
// 9562's variant.
Status transform_uuid(const ff1::BlockCipher &cipher, Direction dir, const Uuid &in, Uuid *out) noexcept;

}  // namespace idgen::masking

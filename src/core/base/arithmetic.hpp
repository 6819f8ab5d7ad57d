// Integer arithmetic the layouts share: times before 1970 are negative, and every layout
// rounds them towards the past, never towards zero.
#pragma once

#include <cstdint>

namespace idgen {

// a / b rounded towards minus infinity (b != 0).
constexpr int64_t floor_div(int64_t a, int64_t b) noexcept {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

}  // namespace idgen

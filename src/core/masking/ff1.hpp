// Folder src/core/masking: keyed, reversible masking of ids - FF1 format-preserving encryption
// (NIST SP 800-38G) and the ids it masks.
//
// FF1 itself, for any radix and length whose halves fit in 64 bits: a ten-round Feistel network
// whose round function is a CBC-MAC of a 128-bit block cipher (AES in idgen). The cipher is a
// parameter, so the core needs no cryptographic library: the PostgreSQL layer hands it
// OpenSSL's AES, the unit tests the same AES through their own adapter. A numeral string X of
// length n is held as its two halves' numbers, NUM_radix(X[1..u]) and NUM_radix(X[u+1..n])
// with u = floor(n/2): the rounds only ever use the halves as numbers, and for radix 2 they are
// simply the high and the low bits of an integer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/status.hpp"

namespace idgen::ff1 {

// One 16-byte block encrypted under the key (AES-128, -192 or -256).
struct BlockCipher {
    void (*encrypt)(const void *key_state, const uint8_t in[16], uint8_t out[16]) noexcept;
    const void *key_state;
};

// The numeral strings FF1 permutes: radix, length and tweak (the tweak is read, not copied).
struct Domain {
    uint32_t radix;
    uint32_t n;
    const uint8_t *tweak;
    uint32_t tweak_len;
};

struct Halves {
    uint64_t a;  // NUM_radix(X[1..u])
    uint64_t b;  // NUM_radix(X[u+1..n])
};

// invalid_parameter unless the radix is in 2..65536, the domain has at least the 1,000,000
// values SP 800-38G (revision 1) asks of it, and radix^(n - u) <= 2^64 (this implementation's
// bound: each half in a 64-bit number, so one AES block per round).
Status check_domain(const Domain &d) noexcept;

// FF1.Encrypt and FF1.Decrypt of SP 800-38G on a domain check_domain accepted, halves in range.
Halves encrypt(const BlockCipher &cipher, const Domain &d, Halves x) noexcept;
Halves decrypt(const BlockCipher &cipher, const Domain &d, Halves x) noexcept;

}  // namespace idgen::ff1

// FF1.Encrypt and FF1.Decrypt (NIST SP 800-38G, Algorithms 7 and 8) on the halves' numbers. The
// PRF's first blocks (P, and the tweak's whole blocks of Q) are the same in every round, so their
// CBC-MAC is computed once per call; each round then costs one block of the cipher.
#include "core/masking/ff1.hpp"

#include <cstring>

namespace idgen::ff1 {

namespace {

using u128 = unsigned __int128;

constexpr u128 kTwoTo64 = u128{1} << 64;
constexpr uint32_t kMinDomain = 1000000;  // radix^n, SP 800-38G revision 1
constexpr uint32_t kRounds = 10;

// radix^k, or cap + 1 as soon as it exceeds cap (cap <= 2^64, so nothing overflows). A power
// of two radix is a shift: radix 2 (every id idgen masks) would otherwise take up to 64
// multiplications per call.
u128 power_capped(uint32_t radix, uint32_t k, u128 cap) {
    if ((radix & (radix - 1)) == 0) {
        const uint64_t bits = uint64_t{static_cast<uint32_t>(__builtin_ctz(radix))} * k;
        return bits > 64 || (u128{1} << bits) > cap ? cap + 1 : u128{1} << bits;
    }
    u128 p = 1;
    for (uint32_t i = 0; i < k; i++) {
        p *= radix;
        if (p > cap) return cap + 1;
    }
    return p;
}

// y mod m, as a mask where m is a power of two (radix 2: every id idgen masks). The general
// 128-bit division is a call into the compiler's runtime (__umodti3), a tenth of a masking's time
// as the extension measured it.
u128 reduce(u128 y, u128 m) {
    return (m & (m - 1)) == 0 ? y & (m - 1) : y % m;
}

// A block as the 128-bit big-endian number SP 800-38G reads it, and back: whole words, since a
// block written byte by byte and then read whole stalls the CPU's store forwarding every round.
u128 block_number(const uint8_t block[16]) {
    uint64_t hi, lo;
    std::memcpy(&hi, block, 8);
    std::memcpy(&lo, block + 8, 8);
    return u128{__builtin_bswap64(hi)} << 64 | __builtin_bswap64(lo);
}

void number_block(u128 x, uint8_t block[16]) {
    const uint64_t hi = __builtin_bswap64(static_cast<uint64_t>(x >> 64));
    const uint64_t lo = __builtin_bswap64(static_cast<uint64_t>(x));
    std::memcpy(block, &hi, 8);
    std::memcpy(block + 8, &lo, 8);
}

// What every round of one call shares.
struct Rounds {
    const BlockCipher *cipher;
    u128 modulus_u;  // radix^u
    u128 modulus_v;  // radix^v
    uint32_t b;      // bytes of NUM_radix(B) in Q: ceil(ceil(v * log2(radix)) / 8)
    uint32_t d;      // bytes of the PRF's output used: 4 * ceil(b / 4) + 4 (at most 12)
    // Q's last block XOR the CBC-MAC of P and Q's blocks before it. Q's last b + 1 bytes, where
    // the round number and NUM_radix(B) go, are zero in Q (T and the padding come before them),
    // so each round's CBC-MAC input is this XOR those b + 1 bytes.
    u128 chained_last;
};

// Byte k of T || 0^pad, the part of Q before the round number.
uint8_t tweak_byte(const Domain &d, uint32_t k) {
    return k < d.tweak_len ? d.tweak[k] : 0;
}

void prepare(const BlockCipher &cipher, const Domain &d, Rounds *r) {
    const uint32_t u = d.n / 2, v = d.n - u;
    r->cipher = &cipher;
    r->modulus_u = power_capped(d.radix, u, kTwoTo64);
    r->modulus_v = power_capped(d.radix, v, kTwoTo64);
    // ceil(log2(x)) is the bit length of x - 1; radix^v - 1 fits in 64 bits (check_domain).
    const uint64_t top = static_cast<uint64_t>(r->modulus_v - 1);
    r->b = (64 - __builtin_clzll(top) + 7) / 8;
    r->d = 4 * ((r->b + 3) / 4) + 4;
    const uint32_t t = d.tweak_len;
    const uint8_t p[16] = {1,
                           2,
                           1,
                           static_cast<uint8_t>(d.radix >> 16),
                           static_cast<uint8_t>(d.radix >> 8),
                           static_cast<uint8_t>(d.radix),
                           10,
                           static_cast<uint8_t>(u),
                           static_cast<uint8_t>(d.n >> 24),
                           static_cast<uint8_t>(d.n >> 16),
                           static_cast<uint8_t>(d.n >> 8),
                           static_cast<uint8_t>(d.n),
                           static_cast<uint8_t>(t >> 24),
                           static_cast<uint8_t>(t >> 16),
                           static_cast<uint8_t>(t >> 8),
                           static_cast<uint8_t>(t)};
    uint8_t mac[16], block[16];
    cipher.encrypt(cipher.key_state, p, mac);
    const uint32_t pad = (16 - (t + r->b + 1) % 16) % 16;
    const uint32_t whole_blocks = (t + pad + 1 + r->b) / 16 - 1;
    for (uint32_t i = 0; i < whole_blocks; i++) {
        for (uint32_t j = 0; j < 16; j++) block[j] = mac[j] ^ tweak_byte(d, i * 16 + j);
        cipher.encrypt(cipher.key_state, block, mac);
    }
    for (uint32_t j = 0; j < 16; j++) block[j] = mac[j] ^ tweak_byte(d, whole_blocks * 16 + j);
    r->chained_last = block_number(block);
}

// y = NUM_2(S) of round i, with NUM_radix(B) = num_b: S is the PRF's first d bytes (d <= 16, so
// one block).
u128 round_value(const Rounds &r, uint8_t i, uint64_t num_b) {
    uint8_t block[16], out[16];
    number_block(r.chained_last ^ (u128{i} << (8 * r.b) | num_b), block);
    r.cipher->encrypt(r.cipher->key_state, block, out);
    return block_number(out) >> (8 * (16 - r.d));
}

}  // namespace

Status check_domain(const Domain &d) noexcept {
    if (d.radix < 2 || d.radix > 65536)
        return Status::error(Errc::invalid_parameter, "radix %u is outside 2..65536", d.radix);
    if (power_capped(d.radix, d.n, kMinDomain) < kMinDomain)
        return Status::error(Errc::invalid_parameter,
                             "%u numerals of radix %u make fewer than 1,000,000 values", d.n, d.radix);
    if (power_capped(d.radix, d.n - d.n / 2, kTwoTo64) > kTwoTo64)
        return Status::error(Errc::invalid_parameter,
                             "half of %u numerals of radix %u does not fit in 64 bits", d.n, d.radix);
    return Status::success();
}

Halves encrypt(const BlockCipher &cipher, const Domain &d, Halves x) noexcept {
    Rounds r;
    prepare(cipher, d, &r);
    for (uint32_t i = 0; i < kRounds; i++) {
        const u128 modulus = i % 2 == 0 ? r.modulus_u : r.modulus_v;
        const u128 y = reduce(round_value(r, static_cast<uint8_t>(i), x.b), modulus);
        const u128 c = reduce(x.a + y, modulus);
        x.a = x.b;
        x.b = static_cast<uint64_t>(c);
    }
    return x;
}

Halves decrypt(const BlockCipher &cipher, const Domain &d, Halves x) noexcept {
    Rounds r;
    prepare(cipher, d, &r);
    for (uint32_t i = kRounds; i-- > 0;) {
        const u128 modulus = i % 2 == 0 ? r.modulus_u : r.modulus_v;
        const u128 y = reduce(round_value(r, static_cast<uint8_t>(i), x.a), modulus);
        const u128 c = reduce(x.b + modulus - y, modulus);
        x.b = x.a;
        x.a = static_cast<uint64_t>(c);
    }
    return x;
}

}  // namespace idgen::ff1

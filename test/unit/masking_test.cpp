// Keyed masking (core/masking): FF1 against NIST SP 800-38G's nine sample vectors (radix 10 and
// 36, AES-128, -192 and -256, with and without tweaks: the radix-general arithmetic), fixed
// answers of radix 2 (its shortcuts), the domains FF1 refuses, every 20-bit value (a permutation), a million
// random round trips at the widths idgen names and ten thousand at every other, the avalanche of one flipped
// bit, and the UUID's version and variant. AES is OpenSSL's, as the module's.
#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <random>
#include <string>
#include <vector>

#include "core/masking/ff1.hpp"
#include "core/masking/id_masks.hpp"

using namespace idgen;

namespace {

std::vector<uint8_t> bytes_of_hex(const std::string &hex) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

// AES under one key through EVP, one ECB block at a time.
class Aes {
public:
    explicit Aes(const std::vector<uint8_t> &key) : ctx_(EVP_CIPHER_CTX_new()) {
        const EVP_CIPHER *kind = key.size() == 16   ? EVP_aes_128_ecb()
                                 : key.size() == 24 ? EVP_aes_192_ecb()
                                                    : EVP_aes_256_ecb();
        EVP_EncryptInit_ex(ctx_, kind, nullptr, key.data(), nullptr);
        EVP_CIPHER_CTX_set_padding(ctx_, 0);
    }
    ~Aes() { EVP_CIPHER_CTX_free(ctx_); }
    Aes(const Aes &) = delete;
    Aes &operator=(const Aes &) = delete;

    ff1::BlockCipher cipher() const { return ff1::BlockCipher{&block, ctx_}; }

private:
    static void block(const void *ctx, const uint8_t in[16], uint8_t out[16]) noexcept {
        int len = 0;
        EVP_EncryptUpdate(static_cast<EVP_CIPHER_CTX *>(const_cast<void *>(ctx)), out, &len, in, 16);
    }
    EVP_CIPHER_CTX *ctx_;
};

const char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";

// A numeral string of digits and letters as FF1's halves, and back.
ff1::Halves halves_of(const std::string &s, uint32_t radix) {
    const size_t u = s.size() / 2;
    ff1::Halves h{0, 0};
    for (size_t i = 0; i < s.size(); i++) {
        uint64_t &half = i < u ? h.a : h.b;
        half = half * radix + static_cast<uint64_t>(std::string(kDigits).find(s[i]));
    }
    return h;
}

std::string text_of(ff1::Halves h, uint32_t radix, size_t n) {
    std::string s(n, '0');
    const size_t u = n / 2;
    for (size_t i = n; i-- > u; h.b /= radix) s[i] = kDigits[h.b % radix];
    for (size_t i = u; i-- > 0; h.a /= radix) s[i] = kDigits[h.a % radix];
    return s;
}

struct Sample {
    const char *key, *tweak;
    uint32_t radix;
    const char *plain, *cipher;
};

const char kKey128[] = "2B7E151628AED2A6ABF7158809CF4F3C";
const char kKey192[] = "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F";
const char kKey256[] = "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94";
const char kTweak10[] = "39383736353433323130";
const char kTweak11[] = "3737373770717273373737";

// SP 800-38G's FF1 samples 1 to 9, in order.
const Sample kSamples[] = {
    {kKey128, "", 10, "0123456789", "2433477484"},
    {kKey128, kTweak10, 10, "0123456789", "6124200773"},
    {kKey128, kTweak11, 36, "0123456789abcdefghi", "a9tv40mll9kdu509eum"},
    {kKey192, "", 10, "0123456789", "2830668132"},
    {kKey192, kTweak10, 10, "0123456789", "2496655549"},
    {kKey192, kTweak11, 36, "0123456789abcdefghi", "xbj3kv35jrawxv32ysr"},
    {kKey256, "", 10, "0123456789", "6657667009"},
    {kKey256, kTweak10, 10, "0123456789", "1001623463"},
    {kKey256, kTweak11, 36, "0123456789abcdefghi", "xs8a0azh2avyalyzuwd"},
};

const Aes &test_key() {
    static const Aes aes(bytes_of_hex(kKey256));
    return aes;
}

int64_t masked(masking::Direction dir, int width, int64_t id) {
    int64_t out = -1;
    const Status s = masking::transform_id(test_key().cipher(), dir, width, id, &out);
    EXPECT_TRUE(s.ok()) << s.message;
    return out;
}

}  // namespace

TEST(MaskFf1, NistSampleVectors) {
    for (const Sample &sample : kSamples) {
        const Aes aes(bytes_of_hex(sample.key));
        const std::vector<uint8_t> tweak = bytes_of_hex(sample.tweak);
        const uint32_t n = static_cast<uint32_t>(std::string(sample.plain).size());
        const ff1::Domain d{sample.radix, n, tweak.data(), static_cast<uint32_t>(tweak.size())};
        ASSERT_TRUE(ff1::check_domain(d).ok());
        const ff1::Halves c = ff1::encrypt(aes.cipher(), d, halves_of(sample.plain, sample.radix));
        EXPECT_EQ(text_of(c, sample.radix, n), sample.cipher);
        EXPECT_EQ(text_of(ff1::decrypt(aes.cipher(), d, c), sample.radix, n), sample.plain);
    }
}

TEST(MaskFf1, DomainsRefused) {
    EXPECT_EQ(ff1::check_domain({1, 40, nullptr, 0}).code, Errc::invalid_parameter);
    EXPECT_EQ(ff1::check_domain({65537, 4, nullptr, 0}).code, Errc::invalid_parameter);
    EXPECT_EQ(ff1::check_domain({2, 19, nullptr, 0}).code, Errc::invalid_parameter);  // 524,288 values
    EXPECT_EQ(ff1::check_domain({10, 5, nullptr, 0}).code, Errc::invalid_parameter);
    EXPECT_TRUE(ff1::check_domain({2, 20, nullptr, 0}).ok());
    EXPECT_TRUE(ff1::check_domain({10, 6, nullptr, 0}).ok());
    EXPECT_TRUE(ff1::check_domain({2, 128, nullptr, 0}).ok());
    EXPECT_EQ(ff1::check_domain({2, 130, nullptr, 0}).code, Errc::invalid_parameter);  // 65-bit halves
}

TEST(MaskIds, EveryTwentyBitValueOnceAndBack) {
    const int width = masking::kMinWidth;
    std::vector<bool> seen(size_t{1} << width, false);
    int64_t fixed_points = 0;
    for (int64_t id = 0; id < (int64_t{1} << width); id++) {
        const int64_t m = masked(masking::Direction::mask, width, id);
        ASSERT_TRUE(m >= 0 && m < (int64_t{1} << width)) << id;
        ASSERT_FALSE(seen[static_cast<size_t>(m)]) << "two ids masked to " << m;
        seen[static_cast<size_t>(m)] = true;
        ASSERT_EQ(masked(masking::Direction::unmask, width, m), id);
        fixed_points += m == id;
    }
    EXPECT_LE(fixed_points, 8);  // a random permutation has one on average
}

TEST(MaskIds, RoundTripsAtEveryWidth) {
    std::mt19937_64 rng(20261203);
    for (int width = masking::kMinWidth; width <= masking::kMaxWidth; width++) {
        const bool named = width == 20 || width == 32 || width == 53 || width == 63;
        const int count = named ? 1000000 : 10000;
        const uint64_t top = (uint64_t{1} << width) - 1;
        for (int i = 0; i < count; i++) {
            const int64_t id = static_cast<int64_t>(rng() & top);
            const int64_t m = masked(masking::Direction::mask, width, id);
            ASSERT_TRUE(m >= 0 && static_cast<uint64_t>(m) <= top) << width << " " << id;
            ASSERT_EQ(masked(masking::Direction::unmask, width, m), id) << width;
        }
    }
}

TEST(MaskIds, OneFlippedBitChangesAboutHalfTheBits) {
    std::mt19937_64 rng(7);
    for (int width : {20, 53, 63}) {
        const uint64_t top = (uint64_t{1} << width) - 1;
        uint64_t changed = 0, flips = 0;
        double least = 1;  // the smallest average of any one input bit
        for (int bit = 0; bit < width; bit++) {
            uint64_t changed_by_bit = 0;
            for (int i = 0; i < 2000; i++) {
                const int64_t id = static_cast<int64_t>(rng() & top);
                const int64_t a = masked(masking::Direction::mask, width, id);
                const int64_t b = masked(masking::Direction::mask, width, id ^ (int64_t{1} << bit));
                changed_by_bit += static_cast<uint64_t>(__builtin_popcountll(static_cast<uint64_t>(a ^ b)));
            }
            least = std::min(least, changed_by_bit / (2000.0 * width));
            changed += changed_by_bit;
            flips += 2000;
        }
        const double mean = static_cast<double>(changed) / (static_cast<double>(flips) * width);
        std::printf("avalanche, width %d: %.4f of the bits change on average, %.4f for the least bit\n",
                    width, mean, least);
        EXPECT_NEAR(mean, 0.5, 0.01) << width;
        EXPECT_NEAR(least, 0.5, 0.05) << width;
    }
}

TEST(MaskIds, Refusals) {
    int64_t out = 0;
    const ff1::BlockCipher c = test_key().cipher();
    EXPECT_EQ(masking::transform_id(c, masking::Direction::mask, 19, 1, &out).code, Errc::invalid_parameter);
    EXPECT_EQ(masking::transform_id(c, masking::Direction::mask, 64, 1, &out).code, Errc::invalid_parameter);
    EXPECT_EQ(masking::transform_id(c, masking::Direction::mask, 63, -1, &out).code,
              Errc::value_out_of_range);
    EXPECT_EQ(masking::transform_id(c, masking::Direction::unmask, 53, int64_t{1} << 53, &out).code,
              Errc::value_out_of_range);
    EXPECT_TRUE(masking::transform_id(c, masking::Direction::unmask, 53, (int64_t{1} << 53) - 1, &out).ok());
}

namespace {

Uuid uuid_v7_of(std::mt19937_64 &rng) {
    Uuid u;
    for (int i = 0; i < 16; i += 8) {
        const uint64_t r = rng();
        for (int j = 0; j < 8; j++) u.bytes[i + j] = static_cast<uint8_t>(r >> (8 * j));
    }
    u.bytes[6] = static_cast<uint8_t>(0x70 | (u.bytes[6] & 0x0f));
    u.bytes[8] = static_cast<uint8_t>(0x80 | (u.bytes[8] & 0x3f));
    return u;
}

bool same(const Uuid &a, const Uuid &b) {
    return std::equal(a.bytes, a.bytes + 16, b.bytes);
}

}  // namespace

// Radix 2 takes shortcuts the samples (radix 10 and 36) never reach: powers of the radix by a
// shift, reductions by a mask. Its answers under the samples' AES-256 and AES-128 keys, ids and a
// UUID, as the module gave them before the shortcuts were written (sql/masking.sql has the same
// under the same keys) and as the plain-SQL edition, FF1 written again from the standard in
// PL/pgSQL, gives them (sql/hosted_differential.sql).
TEST(MaskFf1, FixedAnswersOfRadixTwo) {
    const Aes aes128(bytes_of_hex(kKey128));
    struct Answer {
        const Aes *aes;
        int width;
        int64_t id, masked;
    };
    const Answer answers[] = {
        {&test_key(), 63, 0, 4324959997293592711}, {&test_key(), 63, 1000000, 1574147086469802451},
        {&test_key(), 53, 1, 6956333498069844},    {&test_key(), 53, 9007199254740991, 6878303112220343},
        {&aes128, 63, 1, 967355656107369710},      {&aes128, 63, 9007199254740991, 6039067757583069814},
    };
    for (const Answer &a : answers) {
        int64_t m = -1, back = -1;
        ASSERT_TRUE(masking::transform_id(a.aes->cipher(), masking::Direction::mask, a.width, a.id, &m).ok());
        EXPECT_EQ(m, a.masked) << a.width << " " << a.id;
        ASSERT_TRUE(
            masking::transform_id(a.aes->cipher(), masking::Direction::unmask, a.width, m, &back).ok());
        EXPECT_EQ(back, a.id);
    }
    // 01890a5d-ac96-774b-bcce-b302099a8057 masks to dd38ef46-6935-485f-b124-cde0f35adf7c.
    const Uuid v7 = {
        {0x01, 0x89, 0x0a, 0x5d, 0xac, 0x96, 0x77, 0x4b, 0xbc, 0xce, 0xb3, 0x02, 0x09, 0x9a, 0x80, 0x57}};
    const Uuid v4 = {
        {0xdd, 0x38, 0xef, 0x46, 0x69, 0x35, 0x48, 0x5f, 0xb1, 0x24, 0xcd, 0xe0, 0xf3, 0x5a, 0xdf, 0x7c}};
    Uuid m;
    ASSERT_TRUE(masking::transform_uuid(test_key().cipher(), masking::Direction::mask, v7, &m).ok());
    EXPECT_TRUE(same(m, v4));
}

TEST(MaskUuids, VersionFourOutVersionSevenBack) {
    std::mt19937_64 rng(11);
    const ff1::BlockCipher c = test_key().cipher();
    uint64_t changed = 0;
    for (int i = 0; i < 1000000; i++) {
        const Uuid u = uuid_v7_of(rng);
        Uuid m, back;
        ASSERT_TRUE(masking::transform_uuid(c, masking::Direction::mask, u, &m).ok());
        ASSERT_EQ(uuid_version(m), 4);
        ASSERT_EQ(uuid_variant(m), UuidVariant::rfc);
        ASSERT_TRUE(masking::transform_uuid(c, masking::Direction::unmask, m, &back).ok());
        ASSERT_TRUE(same(back, u)) << i;
        if (i < 20000) {  // avalanche: one bit of the 48-bit time field flipped
            Uuid v = u, mv;
            v.bytes[5] ^= static_cast<uint8_t>(1 << (i % 8));
            ASSERT_TRUE(masking::transform_uuid(c, masking::Direction::mask, v, &mv).ok());
            for (int j = 0; j < 16; j++) changed += __builtin_popcount(m.bytes[j] ^ mv.bytes[j]);
        }
    }
    const double mean = static_cast<double>(changed) / (20000.0 * 122);
    std::printf("avalanche, UUID: %.4f of the 122 bits change on average\n", mean);
    EXPECT_NEAR(mean, 0.5, 0.01);
}

TEST(MaskUuids, OtherVersionsRefused) {
    std::mt19937_64 rng(12);
    const ff1::BlockCipher c = test_key().cipher();
    Uuid u = uuid_v7_of(rng), out;
    EXPECT_EQ(masking::transform_uuid(c, masking::Direction::unmask, u, &out).code, Errc::invalid_parameter);
    u.bytes[6] = static_cast<uint8_t>(0x40 | (u.bytes[6] & 0x0f));
    EXPECT_EQ(masking::transform_uuid(c, masking::Direction::mask, u, &out).code, Errc::invalid_parameter);
    u.bytes[6] = static_cast<uint8_t>(0x70 | (u.bytes[6] & 0x0f));
    u.bytes[8] = static_cast<uint8_t>(0xc0 | (u.bytes[8] & 0x3f));  // Microsoft's variant
    EXPECT_EQ(masking::transform_uuid(c, masking::Direction::mask, u, &out).code, Errc::invalid_parameter);
}

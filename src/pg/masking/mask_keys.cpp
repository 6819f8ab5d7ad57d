// The backend's cache of mask keys: one OpenSSL AES context per name in a dynahash, each call
// site's last key in its fn_extra, and the reading of idgen_mask_keys behind both.
#include "pg/masking/mask_keys.hpp"

#include <openssl/evp.h>

#include "pg/boundary/extension_schema.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/relcache_watch.hpp"

extern "C" {
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
}

namespace idgen::pg {

namespace {

constexpr const char *kKeysTable = "idgen_mask_keys";
constexpr int kNameColumn = 1, kKeyColumn = 2;  // schema/idgen.sql's order

struct CachedKey {
    char name[NAMEDATALEN];  // the hash key
    EVP_CIPHER_CTX *aes;
};

// A call site's last key, good while the cache's version is the one it was taken in.
struct CallSiteKey {
    uint64 version;
    int name_len;
    char name[NAMEDATALEN];
    EVP_CIPHER_CTX *aes;
};

HTAB *cache = nullptr;
uint64 cache_version = 1;  // raised by every invalidation of the keys table
uint64 cache_built = 0;    // the version the cache's entries belong to
Oid cached_table = InvalidOid;

void on_relcache_invalidation(Oid relid) {
    if (relid == InvalidOid || relid == cached_table) cache_version++;
}

void encrypt_block(const void *aes, const uint8_t in[16], uint8_t out[16]) noexcept {
    int len = 0;
    EVP_EncryptUpdate(static_cast<EVP_CIPHER_CTX *>(const_cast<void *>(aes)), out, &len, in, 16);
}

// Frees every entry (and its key schedule) once an invalidation has come since they were made.
void drop_stale_cache() {
    if (cache == nullptr || cache_built == cache_version) return;
    HASH_SEQ_STATUS seq;
    hash_seq_init(&seq, cache);
    while (CachedKey *e = static_cast<CachedKey *>(hash_seq_search(&seq))) EVP_CIPHER_CTX_free(e->aes);
    hash_destroy(cache);
    cache = nullptr;
}

[[noreturn]] void refuse_unknown(const char *name) {
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("mask key \"%s\" does not exist", name),
                    errhint("id_mask_key_create('%s') creates it.", name)));
    pg_unreachable();
}

// The key's bytes into key[] (16 or 32); 0 if the name has no row. Reads the table as the
// statement sees it, without a privilege check.
int read_key(FunctionCallInfo fcinfo, const char *name, int name_len, uint8_t key[32]) {
    const Oid relid = get_relname_relid(kKeysTable, extension_schema(fcinfo));
    if (!OidIsValid(relid))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("idgen's table %s is missing from the extension's schema", kKeysTable)));
    Relation rel = table_open(relid, AccessShareLock);
    cached_table = relid;
    TableScanDesc scan = table_beginscan(
        rel, ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot(), 0, nullptr);
    int key_len = 0;
    while (HeapTuple row = heap_getnext(scan, ForwardScanDirection)) {
        bool null_name = false, null_key = false;
        const text *n = DatumGetTextPP(heap_getattr(row, kNameColumn, RelationGetDescr(rel), &null_name));
        if (null_name || static_cast<int>(VARSIZE_ANY_EXHDR(n)) != name_len ||
            memcmp(VARDATA_ANY(n), name, name_len) != 0)
            continue;
        const Datum k = heap_getattr(row, kKeyColumn, RelationGetDescr(rel), &null_key);
        const bytea *b = null_key ? nullptr : DatumGetByteaPP(k);
        key_len = b == nullptr ? -1 : static_cast<int>(VARSIZE_ANY_EXHDR(b));
        if (key_len == 16 || key_len == 32) memcpy(key, VARDATA_ANY(b), key_len);
        break;
    }
    table_endscan(scan);
    table_close(rel, AccessShareLock);
    if (key_len != 0 && key_len != 16 && key_len != 32)
        ereport(ERROR,
                (errcode(ERRCODE_DATA_CORRUPTED), errmsg("mask key \"%s\" is not of 16 or 32 bytes", name)));
    return key_len;
}

EVP_CIPHER_CTX *key_schedule(const char *name, uint8_t key[32], int key_len) {
    EVP_CIPHER_CTX *aes = EVP_CIPHER_CTX_new();
    const bool ready = aes != nullptr &&
                       EVP_EncryptInit_ex(aes, key_len == 16 ? EVP_aes_128_ecb() : EVP_aes_256_ecb(), nullptr,
                                          key, nullptr) == 1 &&
                       EVP_CIPHER_CTX_set_padding(aes, 0) == 1;
    explicit_bzero(key, 32);
    if (!ready) {
        EVP_CIPHER_CTX_free(aes);
        ereport(ERROR,
                (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("could not set up AES for mask key \"%s\"", name)));
    }
    return aes;
}

EVP_CIPHER_CTX *cached_or_read(FunctionCallInfo fcinfo, const char *name, int name_len) {
    drop_stale_cache();
    if (cache != nullptr) {
        const CachedKey *e = static_cast<CachedKey *>(hash_search(cache, name, HASH_FIND, nullptr));
        if (e != nullptr) return e->aes;
    }
    uint8_t key[32];
    const int key_len = read_key(fcinfo, name, name_len, key);
    if (key_len == 0) refuse_unknown(name);
    EVP_CIPHER_CTX *aes = key_schedule(name, key, key_len);
    drop_stale_cache();  // an invalidation may have come while the table was opened
    if (cache == nullptr) {
        HASHCTL ctl;
        ctl.keysize = NAMEDATALEN;
        ctl.entrysize = sizeof(CachedKey);
        ctl.hcxt = TopMemoryContext;
        cache = hash_create("idgen mask keys", 8, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
        cache_built = cache_version;
    }
    CachedKey *e = static_cast<CachedKey *>(hash_search(cache, name, HASH_ENTER, nullptr));
    e->aes = aes;
    return aes;
}

}  // namespace

ff1::BlockCipher mask_key(FunctionCallInfo fcinfo, const text *name) {
    const int len = static_cast<int>(VARSIZE_ANY_EXHDR(name));
    CallSiteKey *site = static_cast<CallSiteKey *>(fcinfo->flinfo->fn_extra);
    if (site != nullptr && site->version == cache_version && site->name_len == len &&
        memcmp(site->name, VARDATA_ANY(name), len) == 0)
        return ff1::BlockCipher{encrypt_block, site->aes};
    if (len >= NAMEDATALEN) refuse_unknown(text_to_cstring(name));  // the table's names are shorter
    char key_name[NAMEDATALEN] = {0};
    memcpy(key_name, VARDATA_ANY(name), len);
    EVP_CIPHER_CTX *aes = cached_or_read(fcinfo, key_name, len);
    if (site == nullptr) {
        site = static_cast<CallSiteKey *>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(CallSiteKey)));
        fcinfo->flinfo->fn_extra = site;
    }
    site->version = cache_version;
    site->name_len = len;
    memcpy(site->name, key_name, sizeof site->name);
    site->aes = aes;
    return ff1::BlockCipher{encrypt_block, aes};
}

void invalidate_mask_keys(Oid keys_table) {
    CacheInvalidateRelcacheByRelid(keys_table);
}

void register_mask_key_callback() {
    watch_relcache(on_relcache_invalidation);
}

}  // namespace idgen::pg

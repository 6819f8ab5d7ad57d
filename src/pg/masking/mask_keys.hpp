// Folder src/pg/masking: the named keys that mask ids, as AES block ciphers.
//
// Each backend keeps the keys it used, as OpenSSL AES contexts, by name: idgen_mask_keys is read
// once per name (directly, not through SQL, so the caller needs no privilege on the table: the
// functions that mask may be granted to roles that must not read the keys). A key's bytes never
// change under its name (the table refuses UPDATE and DELETE), which is what lets id_unmask be
// IMMUTABLE; an insert's relcache invalidation, sent at its statement's end, and a dropped
// table's, empty every backend's cache, so a key created in a transaction that aborts is
// forgotten there too. No key byte is ever put in a message.
#pragma once

#include "core/masking/ff1.hpp"

#include "pg/boundary/postgres_api.hpp"

namespace idgen::pg {

// The key named `name`, from the table of the extension's schema (fcinfo's function's);
// ERROR 42704 if there is none. Valid until the next call into PostgreSQL that may process
// invalidations: use it and let it go within one call.
ff1::BlockCipher mask_key(FunctionCallInfo fcinfo, const text *name);

// Tells every backend at the end of the current command that the keys table changed.
void invalidate_mask_keys(Oid keys_table);

// Registers the relcache callback; from _PG_init.
void register_mask_key_callback();

}  // namespace idgen::pg

// Every difference between the PostgreSQL majors idgen builds for (15, 16, 17, 18) that its
// code meets, in one place; the rest of src/pg is written once against what they share.
// Tested on 15, 17 and 18; 16 builds by the same guards (each guard names the major that
// changed the API, from the release notes and the sources of 15, 17 and 18).
//
// What needed no guard, checked against 17 and 18: shmem_request_hook, RequestNamedLWLockTranche
// and GetNamedLWLockTranche, pg_atomic_*, InitMaterializedSRF (15+), generic WAL, the heap tuple
// header macros of carried_state.cpp, XLogRegisterData (const void * from 18: a char * still
// converts), WalSndCtl->lsn[mode], SyncRepStandbyNames, synchronous_commit, SyncRepWaitForLSN,
// and the size of the PGPROC array (MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts).
// idgen sets no setting renamed between majors (force_parallel_mode became
// debug_parallel_query in 16).
//
// postgres_api.hpp includes it after PostgreSQL's headers, so every file of src/pg sees it.
#pragma once

extern "C" {
#include "storage/proc.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"  // the varlena macros (VARDATA_ANY, ...): 16 moved them out of postgres.h
#endif
#if PG_VERSION_NUM >= 170000
#include "storage/procnumber.h"
#endif
}

// RegisterCustomRmgr takes a const RmgrData * from 16 (15: a non-const one), so the resource
// manager's table is const where it can be: static IDGEN_RMGR_CONST RmgrData rmgr = {...}.
#if PG_VERSION_NUM >= 160000
#define IDGEN_RMGR_CONST const
#else
#define IDGEN_RMGR_CONST
#endif

// The magic block. 18 can also carry the module's name and version (pg_get_loaded_modules()).
#if PG_VERSION_NUM >= 180000
#define IDGEN_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "idgen", .version = IDGEN_VERSION)
#else
#define IDGEN_MODULE_MAGIC PG_MODULE_MAGIC
#endif

// Whether an interval is ±infinity: 17 made intervals infinite (before, none is).
#if PG_VERSION_NUM >= 170000
#define IDGEN_INTERVAL_NOT_FINITE(i) INTERVAL_NOT_FINITE(i)
#else
#define IDGEN_INTERVAL_NOT_FINITE(i) ((void)(i), false)
#endif

// A subscription's password_required (16 added it; 15 has none: true, which the rule below
// ignores on 15).
#if PG_VERSION_NUM >= 160000
#define IDGEN_SUBSCRIPTION_PASSWORD_REQUIRED(sub) ((sub)->passwordrequired)
#else
#define IDGEN_SUBSCRIPTION_PASSWORD_REQUIRED(sub) true
#endif

namespace idgen::pg {

// This process's index in the PGPROC array: PGPROC.pgprocno up to 16; 17 removed that field
// for MyProcNumber (the same number, GetNumberFromPGProc(MyProc)).
inline int my_proc_number() {
#if PG_VERSION_NUM >= 170000
    return MyProcNumber;
#else
    return MyProc->pgprocno;
#endif
}

// Whether a subscription's connections must use a password, as PostgreSQL's apply worker
// decides: from 16, the subscription's password_required (`required`, true by default) unless
// its owner is a superuser; 15 has no such rule (only a superuser can create a subscription or
// be given one, and the apply worker connects however the publisher lets it in).
inline bool subscription_needs_password(bool required, bool owner_is_superuser) {
#if PG_VERSION_NUM >= 160000
    return required && !owner_is_superuser;
#else
    (void)required;
    (void)owner_is_superuser;
    return false;
#endif
}

}  // namespace idgen::pg

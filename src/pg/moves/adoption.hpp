// Taking over after an archive recovery (a promoted standby, a restored base backup, a
// point-in-time recovery): the WAL this server replayed may lack the last records of the server
// it takes over from, so everything resumes a margin above what it replayed. An explicit step
// with its own name, run by the resource manager at the end of redo and by the first caller that
// needs the state after recovery (ready_to_generate, a restore of carried state); never a side
// effect of the shared-memory gate.
#pragma once

namespace idgen::pg {

// Once per archive recovery (a no-op otherwise, and when idgen was not preloaded): every
// generator resumes above the replayed horizon plus idgen.failover_margin, and that margin may
// run ahead of the wall clock; with a margin, every lease space also skips one namespace and
// one step of its offset bound. Runs from the resource manager's cleanup at the end of redo or,
// when redo replayed no record (PostgreSQL then calls no cleanup), from the first call after
// recovery.
void adopt_after_archive_recovery();

}  // namespace idgen::pg

#!/usr/bin/python3
# Driver of test/tap/130_sequencer_histories.pl: a history checker of the Snowflake sequencers in
# the manner of Jepsen's Elle. Tests that walk the paths someone thought of let three bugs of
# 0.9.7 through (a create rolled back, then the name created again: ids made twice; rolled-back
# creates and conversions leaking every sequencer slot; a name dropped and defined again with a
# later epoch or another layout repeating the old ids), so this one thinks of paths itself: it
# keeps 3 or 4 sessions on one server and interleaves random operations of theirs, chosen by a
# PRNG from a printed seed (no sleeps): snowflake_create of 2 or 3 colliding names (new ones
# every NAMES_FOR histories) with random epochs (some later than the name's last definition, so
# the new ids' times overlap the old ones), layouts, node counts, presets and backfill nodes;
# snowflake_drop; snowflake_next in
# batches; snowflake_at; BEGIN, COMMIT, ROLLBACK, savepoints, an error inside a transaction,
# PREPARE TRANSACTION and COMMIT/ROLLBACK PREPARED from any session, snowflake_convert of a
# bigserial key, a session closed mid-transaction, and rarely an immediate restart of the server.
# A statement that waits on a lock is left pending while the other sessions go on.
#
# Every call is recorded (session, transaction, ids returned or SQLSTATE, the transaction's
# fate), and after each history the invariant is checked:
#   1. every id returned under a name, to any transaction (committed, rolled back, prepared,
#      lost in a crash), differs from every other id returned under that name in that database,
#      over every definition of the name and every history of the run;
#   2. each id decodes, under the definition the drawing statement saw, to a time between the
#      call's start (less 1 s) and its end plus idgen.max_lead plus 1 s (snowflake_at: exactly
#      the tick of its ts), and to the server's node id (snowflake_at: a reserved backfill node);
#   3. with every session gone and every name dropped, a new sequencer can still be created and
#      drawn from (no sequencer slot leaked).
# Of every three histories two run on the C extension (database named by --c-db) and one on the
# plain-SQL edition (--hosted-db, its schema on the search_path; no snowflake_at, no
# snowflake_convert), whose statements take about three times as long.
# Writes a JSON summary (--summary) for the TAP file; the shortest evidence of each violation is
# in it. Usage: see the arguments below.
import argparse
import json
import random
import select
import subprocess
import sys
import time
from datetime import datetime, timezone

import psycopg2
import psycopg2.extensions as ext

MS = 1000
US_PER_S = 1000000
YEAR_S = 365 * 86400
PRESETS = ('twitter', 'discord', 'sonyflake', 'javascript')
LAYOUT_NODES = {'idgen': [2 ** b for b in range(7, 14)], 'snowcast': [2 ** b for b in range(7, 14)],
                'sonyflake': [65536], 'javascript': [2 ** b for b in range(4, 10)]}
COUNTER_WIDTH = {'idgen': 22, 'snowcast': 23, 'javascript': 12}   # node + counter bits
SETTLE_S = 0.05   # how long a statement may take before it counts as waiting (on a lock)
NAMES_FOR = 8     # histories that share the names (see history())


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument('--host', required=True)
    p.add_argument('--port', required=True)
    p.add_argument('--c-db', required=True)
    p.add_argument('--hosted-db', required=True)
    p.add_argument('--hosted-user', required=True)
    p.add_argument('--hosted-schema', required=True)
    p.add_argument('--superuser', required=True)
    p.add_argument('--pg-ctl', required=True)
    p.add_argument('--data-dir', required=True)
    p.add_argument('--log-file', required=True)
    p.add_argument('--node-id', type=int, required=True)
    p.add_argument('--max-lead-s', type=float, default=5.0)
    p.add_argument('--max-sequencers', type=int, required=True)
    p.add_argument('--seed', type=int, required=True)
    p.add_argument('--histories', type=int, required=True)
    p.add_argument('--first', type=int, default=0, help='index of the first history (to replay one)')
    p.add_argument('--restart-one-in', type=int, default=75)
    p.add_argument('--summary', required=True)
    p.add_argument('--log', required=True, help='every history, operation by operation')
    return p.parse_args()


def now_us():
    return int(time.time() * US_PER_S)


def ts_text(us):
    """A Unix time in microseconds as timestamptz text (UTC)."""
    return datetime.fromtimestamp(us / US_PER_S, tz=timezone.utc).strftime('%Y-%m-%d %H:%M:%S.%f+00')


def sqlstate(e):
    if e.pgcode:
        return e.pgcode
    return 'conn'   # the connection is gone (a crash, a closed session)


class Edition:
    """What differs between the C extension and the plain-SQL edition."""

    def __init__(self, key, db, user, options, c):
        self.key, self.db, self.user, self.options, self.c = key, db, user, options, c
        # Which definition a statement saw: the C extension's has an id; the plain-SQL edition's
        # is its sequence.
        self.def_id = 'd.id::text' if c else 'd.serial::oid::text'
        self.names = ['a', 'b', 'c']


class Session:
    """One client connection, driven asynchronously so a statement that waits on a lock can be
    left pending while the others go on."""

    def __init__(self, run, index):
        self.run, self.index = run, index
        self.conn = None
        self.pending = None       # the op whose statement is in flight
        self.txn = None           # the open transaction block (a Txn), if any
        self.failed = False       # the open transaction hit an error (25P02 until rollback)
        self.savepoints = []      # (name, position in txn.ops)

    def connect(self):
        ed = self.run.edition
        self.conn = psycopg2.connect(host=self.run.args.host, port=self.run.args.port, dbname=ed.db,
                                     user=ed.user, options=ed.options, async_=1)
        wait_done(self.conn, None)
        self.pending, self.txn, self.failed, self.savepoints = None, None, False, []

    def close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except psycopg2.Error:
                pass
        self.conn = None


def wait_done(conn, timeout):
    """Polls an async connection until its statement is done (True) or timeout seconds pass
    (False; None: no limit). Raises the statement's error."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        state = conn.poll()
        if state == ext.POLL_OK:
            return True
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return False
        if state == ext.POLL_READ:
            select.select([conn.fileno()], [], [], left)
        elif state == ext.POLL_WRITE:
            select.select([], [conn.fileno()], [], left)


class Txn:
    def __init__(self, run, session, implicit):
        run.txn_count += 1
        self.id = f'{run.hist}.s{session}.t{run.txn_count}'
        self.session, self.implicit = session, implicit
        self.ops = []
        self.fate = None
        self.gid = None


class Run:
    def __init__(self, args):
        self.args = args
        self.editions = [
            Edition('c', args.c_db, args.superuser, '-c TimeZone=UTC -c lock_timeout=5s', True),
            Edition('hosted', args.hosted_db, args.hosted_user,
                    f'-c TimeZone=UTC -c lock_timeout=5s -c search_path={args.hosted_schema},public', False),
        ]
        self.admin = {}
        self.seen = {}            # (edition, name) -> {id: op}
        self.last_def = {}        # (edition, name) -> its last definition that drew ids, and its draws' times
        self.create_args = {}     # (edition, name) -> the arguments of its last creates
        self.violations = []
        self.slot_probe_failures = []
        self.slot_counts = []
        self.stats = {}
        self.ids_checked = 0
        self.documented_meetings = 0   # ids of the plain-SQL edition's documented hole (documented_hole)
        self.restarts = 0
        self.hist = None
        self.txn_count = 0
        self.log = open(args.log, 'w')

    # ---- connections of the checker itself ----------------------------------------------
    def admin_conn(self, ed):
        conn = self.admin.get(ed.key)
        if conn is None or conn.closed:
            conn = psycopg2.connect(host=self.args.host, port=self.args.port, dbname=ed.db,
                                    user=self.args.superuser if ed.c else ed.user, options=ed.options)
            conn.autocommit = True
            self.admin[ed.key] = conn
        return conn

    def admin_sql(self, ed, sql, params=None, fetch=False):
        for attempt in range(50):
            try:
                cur = self.admin_conn(ed).cursor()
            except psycopg2.OperationalError:   # the server restarts after a crash of its own
                time.sleep(0.2)
                continue
            try:
                cur.execute(sql, params)
                return cur.fetchall() if fetch else None
            except psycopg2.errors.DeadlockDetected:
                # A session of the history whose client left may still run its last statement (a
                # backend notices a closed client only when it answers), holding locks the
                # checker's statement meets in another order: the deadlock ends one; again.
                time.sleep(0.2)
                continue
            except (psycopg2.OperationalError, psycopg2.InterfaceError) as e:
                if e.pgcode or not self.admin[ed.key].closed:
                    raise
                self.admin.pop(ed.key)
                time.sleep(0.2)
        raise RuntimeError('the server did not come back')

    def install_helpers(self):
        """histories.definition(name): the name's definition as JSON, read with a fresh snapshot
        (VOLATILE), in each edition's database."""
        for ed in self.editions:
            self.admin_sql(ed, 'CREATE SCHEMA IF NOT EXISTS histories')
            self.admin_sql(ed, f'''CREATE OR REPLACE FUNCTION histories.definition(n text) RETURNS json
                LANGUAGE sql VOLATILE AS $$
                SELECT row_to_json(x) FROM (SELECT {ed.def_id} AS id, d.epoch::text AS epoch,
                    (extract(epoch FROM d.epoch) * 1000000)::bigint AS epoch_us, d.max_nodes, d.backfill_nodes,
                    d.layout FROM snowflake_definitions d WHERE d.name = n) x $$''')

    def stat(self, kind, outcome):
        self.stats.setdefault(kind, {}).setdefault(outcome, 0)
        self.stats[kind][outcome] += 1

    # ---- one history ----------------------------------------------------------------------
    def history(self, index):
        self.hist = index
        self.rng = rng = random.Random(f'{self.args.seed}:{index}')
        self.edition = ed = self.editions[1 if index % 3 == 2 else 0]   # two C histories, then a plain-SQL one
        self.ops = []
        self.txns = []
        self.prepared = {}        # gid -> Txn
        self.backfill_names = set()   # names created with backfill nodes in this history
        # The names change every NAMES_FOR histories: a name remembers its ids, and once some
        # definition of it has issued large ones every later definition whose ids would be
        # smaller is refused (55000), which would leave little to explore. snowflake_convert's
        # table and so its default sequencer (the sequence's name) change with them.
        group = index // NAMES_FOR
        self.names = [f'{n}{group}' for n in ed.names[:rng.choice([2, 3])]]
        self.conv = f'conv{group}'
        self.extra_names = [f'conv{group}_id_seq'] if ed.c else []
        self.conv_made = False
        self.sessions = [Session(self, i) for i in range(rng.choice([3, 4]))]
        for s in self.sessions:
            s.connect()
        steps = rng.randint(15, 40)
        restart_at = rng.randrange(steps) if rng.randrange(self.args.restart_one_in) == 0 else -1
        for step in range(steps):
            # Each step takes the same numbers from the schedule's PRNG whatever happened before
            # (an operation's own choices come from a PRNG seeded by it), so that a history
            # replayed alone makes the same choices as in the whole run, as far as the state
            # they depend on allows.
            leave, which = rng.random(), rng.random()
            self.r = random.Random(rng.getrandbits(64))
            self.collect()
            if step == restart_at:
                self.restart()
                continue
            waiting = [s for s in self.sessions if s.pending is not None]
            if waiting and leave < 0.05:
                self.op_disconnect(waiting[int(which * len(waiting))])   # a client that leaves while it waits
                continue
            s = self.pick_session(which)
            if s is None:
                continue
            self.step(s)
        self.end_history()

    def pick_session(self, which):
        """A session without a statement in flight; if every one waits, wait for one, and
        resolve a prepared transaction (one may hold the lock they wait for)."""
        for attempt in range(3):
            free = [s for s in self.sessions if s.pending is None]
            if free:
                return free[int(which * len(free))]
            ready = select.select([s.conn.fileno() for s in self.sessions], [], [], 1.0)[0]
            if ready:
                self.collect()
                continue
            if self.prepared:
                gid = self.r.choice(sorted(self.prepared))
                self.resolve_prepared_by_admin(gid, self.r.random() < 0.5)
            self.collect(timeout=1.0)
        return None

    def step(self, s):
        rng, ed = self.r, self.edition
        in_txn = s.txn is not None
        if s.failed:
            # An aborted transaction: mostly ended or rolled back to a savepoint, sometimes
            # tried on (25P02).
            choices = [('rollback', 10), ('commit', 4), ('prepare', 2), ('next', 2), ('create', 1), ('disconnect', 1)]
            if s.savepoints:
                choices += [('rollback_to', 12)]
            kinds, weights = zip(*choices)
            getattr(self, 'op_' + rng.choices(kinds, weights)[0])(s)
            return
        choices = [('create', 18), ('drop', 8), ('next', 26), ('error', 2), ('disconnect', 2)]
        if ed.c:
            choices += [('at', 6), ('convert', 2)]
        if in_txn:
            choices += [('commit', 8), ('rollback', 6), ('savepoint', 4), ('prepare', 3)]
            if s.savepoints:
                choices += [('rollback_to', 5), ('release', 6)]
        else:
            choices += [('begin', 14)]
        if self.prepared:
            choices += [('finish_prepared', 4)]
        kinds, weights = zip(*choices)
        getattr(self, 'op_' + rng.choices(kinds, weights)[0])(s)

    # ---- operations ------------------------------------------------------------------------
    def send(self, s, kind, sql, params=None, desc=None, **extra):
        """Sends one statement; returns the op (its outcome filled in when it is done)."""
        txn = s.txn
        if txn is None:
            txn = Txn(self, s.index, implicit=True)
            self.txns.append(txn)
        op = {'hist': self.hist, 'n': len(self.ops), 'session': s.index, 'txn': txn, 'kind': kind,
              'sql': desc or (s.conn.cursor().mogrify(sql, params).decode() if params is not None else sql),
              't0': now_us(), 'state': 'pending', 'edition': self.edition.key}
        op.update(extra)
        self.ops.append(op)
        txn.ops.append(op)
        s.cursor = s.conn.cursor()
        try:
            s.cursor.execute(sql, params)
        except psycopg2.Error as e:
            self.finish(s, op, error=e)
            return op
        s.pending = op
        self.wait(s, SETTLE_S)
        return op

    def wait(self, s, timeout):
        op = s.pending
        try:
            if not wait_done(s.conn, timeout):
                return False
        except psycopg2.Error as e:
            self.finish(s, op, error=e)
            return True
        self.finish(s, op)
        return True

    def collect(self, timeout=0.0):
        for s in self.sessions:
            if s.pending is not None:
                self.wait(s, timeout)

    def finish(self, s, op, error=None):
        s.pending = None
        op['t1'] = now_us()
        txn = op['txn']
        if s.conn is not None and s.conn.notices:
            del s.conn.notices[:]
        if error is not None:
            op['state'] = sqlstate(error)
            op['message'] = (error.pgerror or str(error)).strip().splitlines()[0][:200]
            self.stat(op['kind'], op['state'])
            if op['state'] == 'conn':
                self.lost(s)
                return
            if txn.implicit:
                txn.fate = 'aborted (its statement failed)'
            elif op['kind'] in ('commit', 'prepare'):
                # COMMIT or PREPARE failed: the transaction is gone, rolled back.
                txn.fate = 'rolled back (its ' + op['kind'].upper() + ' failed)'
                self.end_txn(s)
            else:
                s.failed = True
            return
        op['state'] = 'ok'
        self.stat(op['kind'], 'ok')
        status = s.cursor.statusmessage or ''
        handler = getattr(self, 'done_' + op['kind'], None)
        if handler:
            handler(s, op, status)
        if txn.implicit and txn.fate is None:
            txn.fate = 'committed'

    def lost(self, s):
        """The session's connection broke (the server crashed on its own: a finding in itself,
        counted as SQLSTATE 'conn'): its open transaction was aborted. It connects again once
        the server is back."""
        if s.txn is not None and s.txn.fate is None:
            s.txn.fate = 'aborted (its connection was lost)'
        s.close()
        for attempt in range(100):
            try:
                s.connect()
                return
            except psycopg2.OperationalError:
                time.sleep(0.1)
        raise RuntimeError('the server did not come back after a lost connection')

    def end_txn(self, s):
        s.txn, s.failed, s.savepoints = None, False, []

    def op_begin(self, s):
        txn = Txn(self, s.index, implicit=False)
        self.txns.append(txn)
        s.txn = txn
        self.send(s, 'begin', 'BEGIN')

    def op_commit(self, s):
        self.send(s, 'commit', 'COMMIT')

    def done_commit(self, s, op, status):
        op['txn'].fate = 'committed' if status.startswith('COMMIT') else 'rolled back (COMMIT of a failed transaction)'
        self.end_txn(s)

    def op_rollback(self, s):
        self.send(s, 'rollback', 'ROLLBACK')

    def done_rollback(self, s, op, status):
        op['txn'].fate = 'rolled back'
        self.end_txn(s)

    def op_savepoint(self, s):
        name = f'sp{len(s.savepoints)}'
        self.send(s, 'savepoint', f'SAVEPOINT {name}', sp=name, pos=len(s.txn.ops))

    def done_savepoint(self, s, op, status):
        s.savepoints.append((op['sp'], op['pos']))

    def op_rollback_to(self, s):
        i = self.r.randrange(len(s.savepoints))
        self.send(s, 'rollback_to', f'ROLLBACK TO SAVEPOINT {s.savepoints[i][0]}', sp_index=i)

    def done_rollback_to(self, s, op, status):
        name, pos = s.savepoints[op['sp_index']]
        for undone in op['txn'].ops[pos + 1:-1]:
            undone.setdefault('undone', f'ROLLBACK TO SAVEPOINT {name}')
        del s.savepoints[op['sp_index'] + 1:]
        s.failed = False

    def op_release(self, s):
        i = self.r.randrange(len(s.savepoints))
        self.send(s, 'release', f'RELEASE SAVEPOINT {s.savepoints[i][0]}', sp_index=i)

    def done_release(self, s, op, status):
        del s.savepoints[op['sp_index']:]

    def op_error(self, s):
        self.send(s, 'error', 'SELECT 1/0')

    def op_prepare(self, s):
        self.run_gid = getattr(self, 'run_gid', 0) + 1
        gid = f'h{self.hist}_{self.run_gid}'
        self.send(s, 'prepare', f"PREPARE TRANSACTION '{gid}'", gid=gid)

    def done_prepare(self, s, op, status):
        txn = op['txn']
        if status.startswith('PREPARE'):
            txn.gid = op['gid']
            txn.fate = 'prepared'
            self.prepared[op['gid']] = txn
        else:
            txn.fate = 'rolled back (PREPARE of a failed transaction)'
        self.end_txn(s)

    def op_finish_prepared(self, s):
        gid = self.r.choice(sorted(self.prepared))
        commit = self.r.random() < 0.5
        self.send(s, 'finish_prepared', f"{'COMMIT' if commit else 'ROLLBACK'} PREPARED '{gid}'", gid=gid,
                  commit=commit)

    def done_finish_prepared(self, s, op, status):
        txn = self.prepared.pop(op['gid'], None)
        if txn is not None:
            txn.fate = ('prepared, then COMMIT PREPARED' if op['commit'] else 'prepared, then ROLLBACK PREPARED') + \
                f' (session {op["session"]})'

    def resolve_prepared_by_admin(self, gid, commit):
        txn = self.prepared.pop(gid)
        try:
            self.admin_sql(self.edition, f"{'COMMIT' if commit else 'ROLLBACK'} PREPARED '{gid}'")
            txn.fate = 'prepared, then ' + ('COMMIT' if commit else 'ROLLBACK') + ' PREPARED (by the checker)'
        except psycopg2.Error as e:
            txn.fate = f'prepared, then {sqlstate(e)} at its end'
        self.stat('finish_prepared', 'by the checker')

    def op_disconnect(self, s):
        op = {'hist': self.hist, 'n': len(self.ops), 'session': s.index, 'txn': s.txn, 'kind': 'disconnect',
              'sql': '(the client closes its connection)', 't0': now_us(), 't1': now_us(), 'state': 'ok',
              'edition': self.edition.key}
        self.ops.append(op)
        if s.pending is not None:
            s.pending['state'] = 'unknown (the client left while it ran)'
            s.pending = None
        if s.txn is not None:
            s.txn.ops.append(op)
            s.txn.fate = 'aborted (the client disconnected)'
        self.stat('disconnect', 'ok')
        s.close()
        s.connect()

    def restart(self):
        """An immediate stop (a crash) and a start: every open transaction is aborted; prepared
        ones stay prepared."""
        self.ops.append({'hist': self.hist, 'n': len(self.ops), 'session': None, 'txn': None, 'kind': 'restart',
                         'sql': 'pg_ctl stop -m immediate; pg_ctl start', 't0': now_us(), 't1': now_us(),
                         'state': 'ok', 'edition': self.edition.key})
        self.server_restart()
        self.restarts += 1
        self.stat('restart', 'ok')
        for s in self.sessions:
            if s.pending is not None:
                s.pending['state'] = 'unknown (the server crashed while it ran)'
                s.pending = None
            if s.txn is not None and s.txn.fate is None:
                s.txn.fate = 'aborted (the server crashed)'
            s.close()
            s.connect()

    def server_restart(self):
        for conn in self.admin.values():
            conn.close()
        self.admin = {}
        pg_ctl = [self.args.pg_ctl, '-D', self.args.data_dir, '-w']
        subprocess.run(pg_ctl + ['-m', 'immediate', 'stop'], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(pg_ctl + ['-l', self.args.log_file, 'start'], check=True, stdout=subprocess.DEVNULL)

    # A draw reads the name's definition just before and just after its ids, each time with a
    # fresh snapshot as the generators' own lookups do (histories.definition, a VOLATILE
    # function: see install_helpers), so that the ids are decoded under the definition that
    # issued them; the two differ only when another session's change committed while it ran.
    DRAW = ('SELECT b.d, s.ids, histories.definition(%(n)s) '
            'FROM (SELECT histories.definition(%(n)s) AS d OFFSET 0) b CROSS JOIN LATERAL ({}) s')

    def op_next(self, s):
        rng = self.r
        name = self.pick_name()
        r = rng.random()
        k = rng.randint(1, 10) if r < 0.5 else rng.randint(11, 100) if r < 0.85 else rng.randint(101, 500)
        self.send(s, 'next', self.DRAW.format(
                      'SELECT array_agg(snowflake_next(%(n)s) ORDER BY g) AS ids '
                      'FROM generate_series(1, %(k)s + 0 * coalesce(length(b.d::text), 0)) g'),
                  {'n': name, 'k': k}, desc=f"SELECT snowflake_next('{name}') FROM generate_series(1, {k})",
                  name=name, k=k)

    def op_at(self, s):
        rng = self.r
        name = self.pick_name()
        if self.backfill_names and rng.random() < 0.85:
            name = rng.choice(sorted(self.backfill_names))
        elif not self.backfill_names and rng.random() < 0.7:
            return self.op_next(s)   # no name made with backfill nodes yet
        known = self.last_def.get((self.edition.key, name))
        now = now_us()
        if known and rng.random() < 0.8:
            low = max(known['epoch_us'], now - YEAR_S * US_PER_S)
        else:
            low = now - rng.randint(60, YEAR_S) * US_PER_S
        k = rng.randint(1, 50)
        same = rng.randint(low, now - US_PER_S)
        ts = [same if rng.random() < 0.3 else rng.randint(low, now - US_PER_S) for _ in range(k)]
        self.send(s, 'at', self.DRAW.format(
                      'SELECT array_agg(snowflake_at(%(n)s, t) ORDER BY o) AS ids '
                      'FROM unnest(%(ts)s::timestamptz[]) WITH ORDINALITY u (t, o) WHERE b.d IS NULL OR o > 0'),
                  {'n': name, 'ts': [ts_text(t) for t in ts]},
                  desc=f"SELECT snowflake_at('{name}', ts) for {k} times {ts_text(min(ts))[:19]} .. "
                       f"{ts_text(max(ts))[:19]}",
                  name=name, k=k, ts=ts)

    def done_next(self, s, op, status):
        before, ids, after = s.cursor.fetchone()
        op['ids'] = ids or []
        op['def'] = after or before
        if before != after:
            op['raced'] = [before, after]   # a change committed while it ran: decoded under neither
            self.stat(op['kind'], 'definition changed while it ran')
        if op['def'] is not None and op['ids']:
            key = (self.edition.key, op['name'])
            last = self.last_def.get(key)
            if last is None or last['def']['id'] != op['def']['id']:
                last = self.last_def[key] = {'def': op['def'], 'epoch_us': op['def']['epoch_us'], 'draws': []}
            if op['kind'] == 'next':
                last['draws'] = last['draws'][-9:] + [(op['t0'], op['t1'])]

    done_at = done_next

    def pick_name(self):
        ed = self.edition
        if self.extra_names and self.r.random() < 0.15:
            return self.r.choice(self.extra_names)
        return self.r.choice(self.names)

    def op_create(self, s):
        """Arguments as people give them: none (idgen's defaults), a preset, the arguments of an
        earlier create of the name again (a rolled-back one too), a layout with random node
        count and epoch; or an epoch later than the name's last definition that drew ids, by
        about the time since it drew them, with its layout: the new ids' times then fall on
        the old ones'."""
        rng = self.r
        name = self.pick_name()
        key = (self.edition.key, name)
        last = self.last_def.get(key)
        earlier = self.create_args.get(key)
        r = rng.random()
        if r < 0.15:
            args = {}
        elif r < 0.4 and earlier:
            args = dict(rng.choice(earlier))
        elif r < 0.65 and last is not None and last['draws']:
            args = {'epoch': self.later_epoch(last)}
            if rng.random() < 0.7:
                args.update(layout=last['def']['layout'], max_nodes=last['def']['max_nodes'])
            elif rng.random() < 0.5:
                args['preset'] = rng.choice(PRESETS)
        elif r < 0.75:
            args = {'preset': rng.choice(PRESETS)}
            if rng.random() < 0.3:
                args['epoch'] = self.random_epoch()
        else:
            args = {}
            layout = rng.choice(list(LAYOUT_NODES))
            if rng.random() < 0.85:
                args['layout'] = layout
            if rng.random() < 0.85:
                args['max_nodes'] = rng.choice(LAYOUT_NODES[args.get('layout', 'idgen')])
            elif rng.random() < 0.3:
                args['max_nodes'] = rng.choice([8, 100000, 96])   # refused (22023), or rounded up
            if rng.random() < 0.85:
                args['epoch'] = self.random_epoch()
        if r >= 0.15 and rng.random() < 0.35:
            args['backfill_nodes'] = rng.randint(1, 8)   # node id 5 stays live in 16 nodes
        self.create_args[key] = (earlier or [])[-4:] + [args]
        named = ', '.join(f'{k} => %({k})s' for k in args)
        self.send(s, 'create', f"SELECT snowflake_create(%(name)s{', ' + named if named else ''})",
                  dict(args, name=name), name=name, args=args)

    def later_epoch(self, last):
        """An epoch after the last definition's by the time since one of its draws, less 0 to
        60 ms (the new draws come a little later): the new ids' time fields then fall where
        that draw's did."""
        rng = self.r
        t0, t1 = rng.choice(last['draws'])
        drawn_at = rng.randint(t0, t1 + 5 * MS)
        now = now_us()
        us = min(last['epoch_us'] + (now - drawn_at) + rng.randint(0, 60) * MS, now - MS)
        return ts_text(us // 1000 * 1000)

    def random_epoch(self):
        """A whole millisecond from 1 s to 10 years ago (log-uniform), or idgen's default."""
        rng = self.r
        now = now_us()
        if rng.random() < 0.15:
            return '2020-01-01 00:00:00+00'
        us = now - int(10 ** rng.uniform(0, 8.5) * US_PER_S)
        return ts_text(us // 1000 * 1000)

    def done_create(self, s, op, status):
        if op['args'].get('backfill_nodes'):
            self.backfill_names.add(op['name'])

    def done_drop(self, s, op, status):
        self.backfill_names.discard(op['name'])

    def op_drop(self, s):
        name = self.pick_name()
        self.send(s, 'drop', 'SELECT snowflake_drop(%(n)s)', {'n': name}, name=name)

    def op_convert(self, s):
        rng = self.r
        if not self.conv_made:   # a small table with a bigserial key, made for the first conversion
            self.admin_sql(self.edition, f'DROP TABLE IF EXISTS {self.conv}; '
                                         f'CREATE TABLE {self.conv} (id bigserial PRIMARY KEY, v int); '
                                         f'INSERT INTO {self.conv} (v) VALUES (1), (2), (3)')
            self.conv_made = True
        if rng.random() < 0.7:
            name = rng.choice(self.names)
            self.send(s, 'convert', f"SELECT count(*) FROM snowflake_convert('{self.conv}', 'id', sequencer => %(n)s)",
                      {'n': name}, name=name)
        else:
            self.send(s, 'convert', f"SELECT count(*) FROM snowflake_convert('{self.conv}', 'id')",
                      name=self.extra_names[0])

    # ---- the end of a history ------------------------------------------------------------
    def end_history(self):
        ed = self.edition
        for s in self.sessions:
            if s.pending is not None:
                self.wait(s, 0.2)
        waited = any(s.pending is not None for s in self.sessions)
        for s in self.sessions:
            if s.pending is not None:
                s.pending['state'] = 'unknown (still running at the end of the history)'
            if s.txn is not None and s.txn.fate is None:
                s.txn.fate = 'aborted (the client disconnected at the end of the history)'
            s.close()
        # Sessions left behind a lock wait still hold their transactions: end them (the others
        # end theirs as they see their client gone).
        if waited:
            self.admin_sql(ed, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                               'WHERE datname = current_database() AND pid <> pg_backend_pid() '
                               "AND backend_type = 'client backend' AND state = 'active'", fetch=True)
        end = random.Random(f'{self.args.seed}:{self.hist}:end')
        for gid in sorted(self.prepared):
            self.resolve_prepared_by_admin(gid, end.random() < 0.5)
        for txn in self.txns:
            if txn.fate is None:
                txn.fate = 'unknown'
        self.check_history()
        if self.conv_made:
            self.admin_sql(ed, f'DROP TABLE IF EXISTS {self.conv}')
        try:
            self.admin_sql(ed, 'SELECT snowflake_drop(name) FROM snowflake_definitions')
        except psycopg2.Error:   # one at a time, to see which one cannot go
            for (name,) in self.admin_sql(ed, 'SELECT name FROM snowflake_definitions', fetch=True):
                self.admin_sql(ed, 'SELECT snowflake_drop(%s)', (name,))
        self.probe_slots()
        self.write_log()

    def probe_slots(self):
        """Every session gone, every name dropped: a new sequencer must still work."""
        ed = self.edition
        try:
            (ids,) = self.admin_sql(ed, "SELECT snowflake_create('probe', max_nodes => 128);"
                                        "SELECT array_agg(snowflake_next('probe')) FROM generate_series(1, 3)",
                                    fetch=True)[0]
            self.admin_sql(ed, "SELECT snowflake_drop('probe')")
            op = {'hist': self.hist, 'n': len(self.ops), 'session': 'checker', 'txn': None, 'kind': 'probe',
                  'sql': "snowflake_next('probe') after the history", 'state': 'ok', 'ids': ids,
                  'edition': ed.key, 'name': 'probe', 'def': None}
            self.check_unique([op])
        except psycopg2.Error as e:
            self.slot_probe_failures.append(
                f'history {self.hist} ({ed.key}): after every session left and every name was dropped, '
                f'a new sequencer failed: {sqlstate(e)} {(e.pgerror or str(e)).strip().splitlines()[0]}')
            try:
                self.admin_sql(ed, "SELECT snowflake_drop(name) FROM snowflake_definitions WHERE name = 'probe'")
            except psycopg2.Error:
                pass
            # Leaked slots are gone at a restart: the histories after it can find more.
            self.server_restart()
            self.stat('restart', 'after a slot leak')
        if ed.c and self.hist % 20 in (0, 1):
            self.count_slots('after a history')

    def count_slots(self, when):
        """How many of the server's sequencer slots are free now, with no sequencer defined (C
        extension): sequencers created and drawn from until 53400, then dropped. Told, not
        asserted: a leaked slot may be reclaimed when it is needed."""
        ed = self.editions[0]
        free = 0
        made = []
        try:
            for i in range(self.args.max_sequencers + 1):
                name = f'slot_count_{i}'
                self.admin_sql(ed, 'SELECT snowflake_create(%s, max_nodes => 128)', (name,))
                made.append(name)
                self.admin_sql(ed, 'SELECT snowflake_next(%s)', (name,))
                free += 1
        except psycopg2.Error as e:
            if sqlstate(e) != '53400':
                free = None
        for name in made:
            self.admin_sql(ed, 'SELECT snowflake_drop(%s)', (name,))
        self.slot_counts.append({'hist': self.hist, 'when': when, 'free': free,
                                 'in_use': None if free is None else self.args.max_sequencers - free})

    # ---- the invariant --------------------------------------------------------------------
    def check_history(self):
        draws = [op for op in self.ops if op['kind'] in ('next', 'at') and op.get('ids')]
        self.check_unique(draws)
        self.check_decoding(draws)

    def check_unique(self, draws):
        for op in draws:
            seen = self.seen.setdefault((op['edition'], op['name']), {})
            clashes = {}
            for i in op['ids']:
                first = seen.get(i)
                if first is None:
                    seen[i] = op
                elif first is not op:
                    clashes.setdefault(id(first), [first, []])[1].append(i)
                else:
                    clashes.setdefault(id(op), [op, []])[1].append(i)
            self.ids_checked += len(op['ids'])
            for first, ids in clashes.values():
                if self.documented_hole(first, op):
                    self.documented_meetings += len(ids)
                    continue
                self.violations.append({'type': 'duplicate', 'name': op['name'], 'edition': op['edition'],
                                        'hist': op['hist'], 'ops': [first, op], 'ids': ids})

    @staticmethod
    def documented_hole(first, later):
        """The one meeting docs/hosted.md documents: the plain-SQL edition keeps nothing of a
        transaction that did not commit, so ids drawn in the transaction that made a definition,
        when that transaction rolled back, can meet the ids of a definition of the name made later
        with another epoch, node count or layout. Counted, not failed; anything else is a failure."""
        txn, d1, d2 = first['txn'], first.get('def'), later.get('def')
        if first['edition'] != 'hosted' or txn is None or d1 is None or d2 is None:
            return False
        if txn.fate in (None, 'committed') or 'then COMMIT PREPARED' in txn.fate:
            return False
        made_here = any(o['kind'] == 'create' and o.get('name') == first['name'] and o['state'] == 'ok'
                        and o['n'] < first['n'] for o in txn.ops)
        other = (d1['epoch_us'], d1['max_nodes'], d1['layout']) != (d2['epoch_us'], d2['max_nodes'], d2['layout'])
        return made_here and other

    def check_decoding(self, draws):
        node_id = self.args.node_id
        lead_us = int(self.args.max_lead_s * US_PER_S) + US_PER_S
        rows = []
        for op in draws:
            d = op['def']
            if op.get('raced'):
                continue
            if d is None:
                self.violations.append({'type': 'no definition', 'hist': op['hist'], 'name': op['name'],
                                        'edition': op['edition'], 'ops': [op], 'ids': op['ids'][:1]})
                continue
            tick_us = 10000 if d['layout'] == 'sonyflake' else 1000
            for j, i in enumerate(op['ids']):
                if op['kind'] == 'next':
                    lo, hi, nodes = op['t0'] - US_PER_S, op['t1'] + lead_us, (node_id, node_id)
                else:
                    # the tick of ts, counted from the epoch
                    ts = op['ts'][j]
                    start = d['epoch_us'] + (ts - d['epoch_us']) // tick_us * tick_us
                    lo, hi = start, start
                    nodes = (d['max_nodes'] - d['backfill_nodes'], d['max_nodes'] - 1)
                node = decode_node(i, d['max_nodes'], d['layout'])
                if not nodes[0] <= node <= nodes[1] or (d['layout'] == 'javascript' and not 0 <= i < 2 ** 53):
                    want = (f'node {node_id}' if op['kind'] == 'next' else
                            f"a backfill node {nodes[0]}..{nodes[1]}" if d['backfill_nodes'] else
                            'no id at all (the definition reserves no backfill node)')
                    self.violations.append({'type': 'node', 'hist': op['hist'], 'name': op['name'],
                                            'edition': op['edition'], 'ops': [op], 'ids': [i],
                                            'detail': f'decodes to node {node}: expected {want}'})
                    break
                rows.append((i, d['epoch'], d['max_nodes'], d['layout'], lo, hi, op))
        if not rows:
            return
        ed = self.edition
        sql = ('SELECT o, snowflake_timestamp(id, ep, mn, ly)::text FROM unnest(%s::bigint[], %s::timestamptz[], '
               '%s::int[], %s::text[], %s::bigint[], %s::bigint[]) WITH ORDINALITY u (id, ep, mn, ly, lo, hi, o) '
               'WHERE NOT (extract(epoch FROM snowflake_timestamp(id, ep, mn, ly)) * 1000000)::bigint '
               'BETWEEN lo AND hi')
        cols = list(zip(*[r[:6] for r in rows]))
        try:
            bad = self.admin_sql(ed, sql, [list(c) for c in cols], fetch=True)
        except psycopg2.Error as e:
            bad = [(None, f'{sqlstate(e)} {e.pgerror.strip().splitlines()[0]}')]
        reported = set()
        for o, decoded in bad:
            r = rows[o - 1] if o is not None else rows[0]
            op = r[6]
            if id(op) in reported:
                continue
            reported.add(id(op))
            self.violations.append({'type': 'time', 'hist': op['hist'], 'name': op['name'], 'edition': op['edition'],
                                    'ops': [op], 'ids': [r[0]],
                                    'detail': f'decodes to {decoded}, outside {ts_text(r[4])} .. {ts_text(r[5])}'})

    # ---- output -----------------------------------------------------------------------------
    def write_log(self):
        print(f'history {self.hist} ({self.edition.key}, seed {self.args.seed}:{self.hist})', file=self.log)
        for op in self.ops:
            print('  ' + describe(op), file=self.log)

    def summary(self, seconds):
        evidence = []
        shown = {}
        for v in self.violations:
            # the first two of each edition and kind
            k = (v['edition'], v['type'])
            shown[k] = shown.get(k, 0) + 1
            if shown[k] > 2:
                continue
            first = min(op['hist'] for op in v['ops'])
            lines = [f"{v['type']}: history {v['hist']} (edition {v['edition']}; replay: IDGEN_HISTORY_SEED="
                     f"{self.args.seed} IDGEN_HISTORY_FIRST={first} IDGEN_HISTORIES={v['hist'] - first + 1}), "
                     f"name '{v['name']}': "
                     + (f"{len(v['ids'])} ids returned twice, the first {v['ids'][0]}" if v['type'] == 'duplicate'
                        else f"id {v['ids'][0]} {v.get('detail', 'drawn while no definition was visible')}")]
            lines += ['    ' + describe(op) for op in v['ops']]
            defs = {}
            for op in self.all_ops_of(v):
                if op['kind'] == 'create' and op.get('name') == v['name'] and op['state'] == 'ok':
                    defs[describe(op)] = 1
            if defs:
                lines.append("    the name's creates in those histories:")
                lines += ['      ' + d for d in defs]
            evidence.append('\n'.join(lines))
        kinds = {}
        for v in self.violations:
            kinds[v['type']] = kinds.get(v['type'], 0) + 1
        brief = [f"{v['type']}: history {v['hist']} ({v['edition']}), name '{v['name']}', ops "
                 + ', '.join(f"h{op['hist']} #{op['n']}" for op in v['ops']) for v in self.violations]
        return {'seconds': round(seconds, 1), 'histories': self.done, 'brief': brief, 'ids': self.ids_checked,
                'restarts': self.restarts, 'violations': len(self.violations), 'violation_kinds': kinds,
                'documented_meetings': self.documented_meetings,
                'evidence': evidence, 'slot_probe_failures': self.slot_probe_failures[:5],
                'slot_probe_failure_count': len(self.slot_probe_failures), 'slot_counts': self.slot_counts,
                'stats': self.stats}

    def all_ops_of(self, v):
        hists = {op['hist'] for op in v['ops']}
        return [op for h in sorted(hists) for op in self.history_ops.get(h, [])]


def decode_node(i, max_nodes, layout):
    bits = max_nodes.bit_length() - 1
    if layout == 'sonyflake':
        return i & 0xFFFF
    u = i % (1 << 64)
    return (u >> (COUNTER_WIDTH[layout] - bits)) & (max_nodes - 1)


def describe(op):
    txn = op.get('txn')
    who = 'the checker' if op['session'] in (None, 'checker') else f"session {op['session']}"
    where = f"txn {txn.id} ({txn.fate or 'open'})" if txn is not None else 'no transaction'
    out = f"h{op['hist']} #{op['n']} {who}, {where}: {op['sql'][:160]}"
    if op.get('undone'):
        out += f" [undone by {op['undone']}]"
    if op['state'] != 'ok':
        out += f" -> {op['state']}" + (f" ({op['message']})" if op.get('message') else '')
    elif 'ids' in op:
        ids = op['ids']
        out += f" -> {len(ids)} ids {ids[0]}..{ids[-1]}" if ids else ' -> no ids'
        d = op.get('def')
        if d:
            out += (f" under definition {d['id']} (epoch {d['epoch']}, {d['max_nodes']} nodes, {d['layout']}, "
                    f"backfill {d['backfill_nodes']})")
    if 't0' in op and 't1' in op:
        out += f" [{ts_text(op['t0'])[11:23]}..{ts_text(op['t1'])[11:23]}]"
    return out


def main():
    args = parse_args()
    run = Run(args)
    run.install_helpers()
    run.history_ops = {}
    run.done = 0
    started = time.monotonic()
    for index in range(args.first, args.first + args.histories):
        run.history(index)
        run.history_ops[index] = run.ops
        run.done += 1
        if run.done % 100 == 0:
            print(f'{run.done} histories, {run.ids_checked} ids, {len(run.violations)} violations, '
                  f'{time.monotonic() - started:.0f} s', file=sys.stderr, flush=True)
    run.count_slots('at the end of the run')
    with open(args.summary, 'w') as f:
        json.dump(run.summary(time.monotonic() - started), f, indent=1)


if __name__ == '__main__':
    main()

#!/usr/bin/python3
# Driver of test/tap/052_backfill_pool.pl: many short sessions, several at a time,
# each opening a connection, backfilling a handful of rows with snowflake_at on the named
# sequencers and uuid_v1_at(ts, node) into the tables got_s / got_u, committing and closing.
# A session that fails because the server went away (a crash in the middle) is run again;
# any other error is counted by SQLSTATE. Prints "sessions=N errors=STATE:COUNT,...".
# Usage: short_sessions.py CONNSTR SESSIONS WORKERS SEED SEQUENCER...
import random
import sys
import threading
import time

import psycopg2

conn_str, total, workers, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sequencers = sys.argv[5:]
YEAR_US = 365 * 86400 * 1000000
BASE = '2015-01-01 00:00:00+00'
lock = threading.Lock()
state = {'next': 0, 'done': 0, 'errors': {}}


def times(rng):
    """Five rows: most at random microseconds over a year, a third repeating the row before,
    one in ten on one of 1,000 shared microseconds (met by many sessions)."""
    out = []
    for i in range(5):
        r = rng.random()
        if i > 0 and r < 0.3:
            out.append(out[-1])
        elif r < 0.4:
            out.append(rng.randrange(1000) * 7919 * 1000 + 123)
        else:
            out.append(rng.randrange(YEAR_US))
    return out


def session(n):
    rng = random.Random(seed * 1000003 + n)
    offsets = times(rng)
    seq = sequencers[n % len(sequencers)]
    while True:
        try:
            conn = psycopg2.connect(conn_str)
            try:
                cur = conn.cursor()
                cur.execute(
                    "INSERT INTO got_s (seq, ts, id) SELECT %s, t, snowflake_at(%s, t) FROM "
                    "(SELECT %s::timestamptz + o * interval '1 microsecond' AS t FROM unnest(%s::bigint[]) o) x;"
                    "INSERT INTO got_u (ts, id) SELECT t, uuid_v1_at(t, '08:00:2b:01:02:03') FROM "
                    "(SELECT %s::timestamptz + o * interval '1 microsecond' AS t FROM unnest(%s::bigint[]) o) x",
                    (seq, seq, BASE, offsets, BASE, offsets))
                conn.commit()
                return None
            finally:
                conn.close()
        except psycopg2.Error as e:
            # No SQLSTATE: the connection broke (an OperationalError, or an InterfaceError when the
            # crash comes between statements): the server is away, run the session again.
            if e.pgcode is None:
                time.sleep(0.2)
                continue
            return e.pgcode


def worker():
    while True:
        with lock:
            n = state['next']
            if n >= total:
                return
            state['next'] += 1
        err = session(n)
        with lock:
            state['done'] += 1
            if err:
                state['errors'][err] = state['errors'].get(err, 0) + 1
            if state['done'] % 100 == 0:
                print('progress %d' % state['done'], flush=True)


threads = [threading.Thread(target=worker) for _ in range(workers)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print('sessions=%d errors=%s' % (state['done'], ','.join('%s:%d' % kv for kv in sorted(state['errors'].items()))),
      flush=True)

#!/usr/bin/python3
"""One client of the Patroni failover test (test/tap/070_patroni.pl).

Connects through libpq's multi-host string with target_session_attrs=read-write (so always to
the current leader), and in a loop runs one transaction: an INSERT ... RETURNING of ROWS rows,
each with a value of every generator (snowflake_next, uuid_v1, locality_uuid, unique_timestamp,
and the retrospective uuid_v1_at(ts) and snowflake_at(name, ts) on eight timestamps that every
client repeats over and over), then COMMIT, then a PAUSE in seconds. It keeps its own record of every id it received:
one CSV line per row with the transaction's outcome as the client saw it:

  committed  COMMIT returned success (the ids were acknowledged)
  failed     the server reported an error before or at COMMIT: rolled back for sure
  unknown    the connection was lost during COMMIT: it may or may not have committed

Connection loss (no SQLSTATE, class 08, 57P01..57P03) and the SQLSTATEs of a server that
refuses to write (55000, 25006) make it reconnect and go on; any other error is recorded
in the summary as an error (the test fails on it). It stops when STOP_FILE exists or after
MAX_SECONDS, and writes a JSON summary.

Usage: client.py CONNINFO CLIENT_NO ROWS PAUSE OUT_CSV SUMMARY_JSON STOP_FILE MAX_SECONDS
"""
import csv
import json
import os
import sys
import time

import psycopg2

conninfo, client, rows, pause, out_path, summary_path, stop_file, max_seconds = sys.argv[1:9]
client, rows, pause, max_seconds = int(client), int(rows), float(pause), float(max_seconds)

INSERT = """
INSERT INTO ids (client, txn, rowno, port, sf, v1, loc, ts, v1at, sfat)
SELECT %(client)s, %(txn)s, g, inet_server_port(),
       snowflake_next('s'), uuid_v1(), locality_uuid(), unique_timestamp(),
       uuid_v1_at(at), snowflake_at('s', at)
FROM (SELECT g, '2015-06-15 12:00:00+00'::timestamptz
                + floor(random() * 8) * interval '1001 microseconds' AS at
      FROM generate_series(1, %(rows)s) g) s
RETURNING rowno, port, sf, v1, loc, ts, v1at, sfat
"""

RETRY_STATES = {'55000', '25006'}
summary = {'client': client, 'committed': 0, 'failed': 0, 'unknown': 0, 'no_rows': 0,
           'connects': 0, 'connect_failures': 0, 'connection_losses': 0, 'refusals': {},
           'errors': []}


def kind(exc):
    """'connection', 'refused' or 'error' for an exception of psycopg2."""
    code = getattr(exc, 'pgcode', None)
    if code in RETRY_STATES:
        return 'refused'
    if isinstance(exc, (psycopg2.OperationalError, psycopg2.InterfaceError)) and \
            (code is None or code.startswith('08') or code in ('57P01', '57P02', '57P03')):
        return 'connection'
    return 'error'


def note(exc, where):
    k = kind(exc)
    if k == 'connection':
        summary['connection_losses'] += 1
    elif k == 'refused':
        summary['refusals'][exc.pgcode] = summary['refusals'].get(exc.pgcode, 0) + 1
    else:
        summary['errors'].append('%s: %s %s' % (where, getattr(exc, 'pgcode', None),
                                                str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__))
    return k


def drop(conn):
    if conn is not None:
        try:
            conn.close()
        except Exception:
            pass
    return None


deadline = time.time() + max_seconds
conn = None
txn = 0
with open(out_path, 'w', newline='') as out:
    w = csv.writer(out)
    while time.time() < deadline and not os.path.exists(stop_file):
        if conn is None:
            try:
                conn = psycopg2.connect(conninfo)
                summary['connects'] += 1
            except psycopg2.Error:
                summary['connect_failures'] += 1
                time.sleep(0.2)
                continue
        txn += 1
        try:
            cur = conn.cursor()
            cur.execute(INSERT, {'client': client, 'txn': txn, 'rows': rows})
            got = cur.fetchall()
        except psycopg2.Error as e:
            # Nothing received; the transaction did not commit (no COMMIT was sent).
            summary['no_rows'] += 1
            k = note(e, 'insert')
            if k == 'connection' or k == 'refused':
                conn = drop(conn)
                time.sleep(0.1)
            else:
                try:
                    conn.rollback()
                except psycopg2.Error:
                    conn = drop(conn)
            continue
        try:
            conn.commit()
            status = 'committed'
        except psycopg2.Error as e:
            status = 'unknown' if note(e, 'commit') == 'connection' else 'failed'
            conn = drop(conn)
        summary[status] += 1
        at = '%.6f' % time.time()
        for r in got:
            w.writerow([client, txn, r[0], status, r[1], at] + list(r[2:]))
        out.flush()
        time.sleep(pause)
drop(conn)
summary['transactions'] = txn
with open(summary_path, 'w') as f:
    json.dump(summary, f, indent=1)

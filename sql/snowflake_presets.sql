-- Layouts people already use: the presets (Twitter's, Discord's, Sony's Sonyflake, ids that a
-- JavaScript number holds exactly), Sony's and the javascript layout from live draws to
-- decoding, what a preset leaves to the caller, and the warning (or refusal) for a layout whose
-- time field runs out soon. idgen.node_id is 300.
CREATE EXTENSION idgen;
SET timezone = 'UTC';

SELECT name, epoch, max_nodes, layout FROM snowflake_presets ORDER BY name;
SELECT snowflake_create('tweets', preset => 'twitter');
SELECT snowflake_create('messages', preset => 'discord', backfill_nodes => 16);
SELECT snowflake_create('sony', preset => 'sonyflake');
SELECT snowflake_create('js', preset => 'javascript', max_nodes => 512);  -- 512 nodes: node 300 fits
SELECT snowflake_create('tweets', preset => 'twitter');  -- the same again: nothing
SELECT name, epoch, max_nodes, backfill_nodes, layout, node_bits, counter_bits, runs_out
FROM snowflake_sequencers ORDER BY name;

-- Discord's documentation decodes 175928847299117063: 2016-04-30 11:18:25.796 UTC, worker 1,
-- process 0 (node 1 << 5 | 0), increment 7.
SELECT snowflake_timestamp('messages', 175928847299117063) AS ts, snowflake_node('messages', 175928847299117063) AS node,
       snowflake_counter('messages', 175928847299117063) AS increment;
-- Sony's layout: ticks of 10 ms << 24 | sequence << 16 | machine id.
SELECT snowflake_timestamp('sony', (12345::bigint << 24) | (5 << 16) | 4660) AS ts,
       snowflake_node('sony', (12345::bigint << 24) | (5 << 16) | 4660) AS machine,
       snowflake_counter('sony', (12345::bigint << 24) | (5 << 16) | 4660) AS sequence;

-- Live ids: strictly increasing, of now, node 300 (Sony's machine id: the lowest 16 bits), each
-- layout's bits where its formula puts them; the javascript ones below 2^53; the named decoders
-- and the IMMUTABLE ones given the layout agree.
SELECT name, count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       bool_and(id > prev OR prev IS NULL) AS increasing,
       bool_and(snowflake_node(name, id) = 300) AS node_300,
       bool_and(snowflake_timestamp(name, id) BETWEEN now() - interval '1 minute'
                                                   AND clock_timestamp() + interval '6 seconds') AS time_near_clock,
       bool_and(CASE name WHEN 'sony' THEN id & 65535 = 300 AND (id >> 16) & 255 = snowflake_counter(name, id)
                          ELSE (id >> snowflake_counter_bits) & (max_nodes - 1) = 300 END) AS bits_in_place,
       bool_and(id < 9007199254740992) FILTER (WHERE layout = 'javascript') AS below_2_53,
       bool_and(snowflake_timestamp(name, id) = snowflake_timestamp(id, epoch, max_nodes, layout)) AS decoders_agree
FROM (SELECT d.name, d.epoch, d.max_nodes, d.layout, s.counter_bits AS snowflake_counter_bits, v.id,
             lag(v.id) OVER (PARTITION BY d.name ORDER BY v.n) AS prev
      FROM snowflake_definitions d JOIN snowflake_sequencers s USING (name),
           LATERAL (SELECT n, snowflake_next(d.name) AS id FROM generate_series(1, 3000) n) v) t
GROUP BY name ORDER BY name;

-- Given arguments win over the preset's; a layout alone brings its own node count; the default
-- epoch is idgen's. A NULL epoch, max_nodes or layout is one not given.
SELECT snowflake_create('js_2024', '2024-01-01 00:00:00+00', preset => 'javascript');
SELECT snowflake_create('sony_2020', layout => 'sonyflake');
SELECT snowflake_create('plain', NULL, NULL, 0, NULL);
SELECT name, epoch, max_nodes, layout FROM snowflake_definitions WHERE name IN ('js_2024', 'sony_2020', 'plain')
ORDER BY name;

\set VERBOSITY terse
-- A layout whose time field ends within warn_within_years (10 by default) warns; within
-- refuse_within_years it is refused (22023) and nothing is made.
SELECT snowflake_create('ends_soon', date_trunc('second', now()) - interval '65 years');
SELECT snowflake_create('ends_soon_quiet', date_trunc('second', now()) - interval '65 years', warn_within_years => NULL);
SELECT snowflake_create('ends_too_soon', date_trunc('second', now()) - interval '65 years', refuse_within_years => 10);
SELECT snowflake_create('tweets_for_60_years', preset => 'twitter', refuse_within_years => 60);
SELECT snowflake_create('sony_for_100_years', preset => 'sonyflake', refuse_within_years => 100);
SELECT name FROM snowflake_definitions WHERE name LIKE '%years' OR name LIKE 'ends%' ORDER BY name;

-- Errors (22023): a preset that does not exist, a node count the layout does not have, a node id
-- past the layout's (55000 from snowflake_next), an id past the javascript layout's 2^53 (22003).
SELECT snowflake_create('bad', preset => 'instagram');
SELECT snowflake_create('bad', preset => 'sonyflake', max_nodes => 8192);
SELECT snowflake_create('bad', layout => 'javascript', max_nodes => 1024);
SELECT snowflake_create('bad', layout => 'javascript', max_nodes => 8);
SELECT snowflake_create('js_small', preset => 'javascript');
SELECT snowflake_next('js_small');
SELECT snowflake_timestamp('js', 9007199254740992);
SELECT count(*) AS nothing_bad FROM snowflake_definitions WHERE name = 'bad';
DROP EXTENSION idgen;

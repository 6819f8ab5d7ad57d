-- idgen 0.7.1: the same schema; two catalog comments no longer name a document outside the
-- extension. (The library of 0.7.1 also reads 0.5.0's lease records in WAL by their own layout.)

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

COMMENT ON COLUMN @extschema@.snowflake_definitions.layout IS
    'idgen: 41 time bits, node and counter in 22, the sign bit 0; snowcast: snowcast''s own layout, node and counter in 23, all 64 bits';
COMMENT ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text) IS
    'Defines a Snowflake sequencer: 41 bits of milliseconds since epoch, log2(max_nodes) node bits (max_nodes a power of two, 128..8192), the rest a per-millisecond counter, in 63 bits (layout idgen: ids stay positive) or all 64 (layout snowcast, snowcast''s own: ids from 34.8 years after the epoch on are negative); the top backfill_nodes node ids are reserved for snowflake_at; does nothing if it exists with the same definition';

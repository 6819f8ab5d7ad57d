# bench/lib.sh: small helpers of bench/run (sourced after scripts/lib/common.sh, with PSQL,
# RUN_DIR and PORT set): reading the bench TSV files, running pgbench, recording failures and
# printing Markdown tables.

# The data rows of a bench TSV file: no comments, blank lines or header line; padded to NCOLS
# columns (editors drop trailing tabs) and with backslashes escaped for COPY's text format.
tsv_rows() {
    awk -F'\t' -v OFS='\t' -v ncols="$2" -v file="$1" '
        /^#/ || /^[[:space:]]*$/ { next }
        !header++ { next }
        NF > ncols { printf "%s:%d: %d columns, expected %d\n", file, FNR, NF, ncols > "/dev/stderr"; bad = 1; next }
        { for (i = 1; i <= ncols; i++) { f = $i; gsub(/\\/, "\\\\", f); $i = f }; print }
        END { exit bad }' "$1"
}

# Loads bench TSV FILE (NCOLS columns) into TABLE (COLUMNS, comma-separated).
load_tsv() {
    tsv_rows "$BENCH/$1" "$2" | "${PSQL[@]}" -c "\\copy $3 ($4) FROM STDIN"
}

# pgbench against the throwaway server. Prints the tps it reports without the initial
# connection time (all clients connect first, then start together; with -C, a new connection
# per transaction, the tps includes them); when pgbench fails, prints its first error line
# instead and returns 1.
pgbench_tps() {
    local out tps
    if ! out=$(pgbench -h "$RUN_DIR" -p "$PORT" -U postgres "$@" postgres 2>&1); then
        grep -m1 -o 'ERROR: .*' <<<"$out" || tail -n1 <<<"$out"
        return 1
    fi
    tps=$(sed -n 's/^tps = \([0-9.]*\) (\(without initial connection time\|including reconnection times\))$/\1/p' <<<"$out")
    [ -n "$tps" ] || { echo "no tps in the output of pgbench $*"; return 1; }
    echo "$tps"
}

# Before a pgbench run of the pgbench or latency section: the INSERT tables emptied and a
# checkpoint taken, so every run starts alike.
pgbench_reset() {
    "${PSQL[@]}" -o /dev/null -c 'SELECT bench_pgbench_reset()' -c 'CHECKPOINT'
}

# Records a failed measurement (SECTION, item NAME, MESSAGE) for the report, and says so.
record_error() {
    echo "    $2: FAILED: $3"
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" | tr -d '\\' |
        "${PSQL[@]}" -c '\copy bench_errors (section, name, message) FROM STDIN'
}

# Writes the rows of QUERY (columns: ord, name, script text) as pgbench scripts PREFIX-<ord>.sql
# in RUN_DIR, and fills the associative array named by NAMES (ord -> name) and the indexed
# array named by ORDS (the ords, in order).
write_scripts() {
    local prefix=$1 query=$2 ord name script
    local -n script_names=$3 script_ords=$4
    script_ords=()
    while IFS=$'\t' read -r ord name script; do
        printf '%s\n' "$script" >"$RUN_DIR/$prefix-$ord.sql"
        script_names[$ord]=$name
        script_ords+=("$ord")
    done < <("${PSQL[@]}" -At -F $'\t' -c "$query")
}

# ITEMS (numbers) in ascending order in odd rounds R and descending in even ones, so
# neighbours alternate which runs first. Usage: round_order R ITEMS...
round_order() {
    local r=$1
    shift
    if ((r % 2)); then printf '%s\n' "$@" | sort -n; else printf '%s\n' "$@" | sort -rn; fi
}

# A psql -A result (tab-separated, header line first) as an aligned Markdown table; ALIGN
# has one letter per column, l or r. Widths count characters, not bytes (UTF-8: a header's µ).
md_table() {
    awk -F'\t' -v align="$1" '
        function width(s) { gsub(/[\200-\277]/, "", s); return length(s) }
        { rows[NR] = $0; for (i = 1; i <= NF; i++) if (width($i) > w[i]) w[i] = width($i); if (NF > nf) nf = NF }
        END {
            for (r = 1; r <= NR; r++) {
                split(rows[r], f, "\t"); line = "|"
                for (i = 1; i <= nf; i++) {
                    fill = sprintf("%*s", w[i] - width(f[i]), "")
                    line = line " " (substr(align, i, 1) == "r" ? fill f[i] : f[i] fill) " |"
                }
                print line
                if (r > 1) continue
                line = "|"
                for (i = 1; i <= nf; i++) {
                    d = sprintf("%*s", w[i], ""); gsub(/ /, "-", d)
                    line = line (substr(align, i, 1) == "r" ? "-" d ":|" : ":" d "-|")
                }
                print line
            }
        }'
}

# A view of report.sql as a Markdown table (ALIGN as md_table); nothing when it has no rows.
md_view() {
    local out
    out=$("${PSQL[@]}" -A -F $'\t' -P footer=off -c "SELECT * FROM $1")
    if [ "$(wc -l <<<"$out")" -gt 1 ]; then md_table "$2" <<<"$out"; fi
}

# The checkout's commit, "+changes" if tracked files differ. GIT_OPTIONAL_LOCKS=0: read only,
# never refresh the index under someone working in the checkout.
idgen_revision() {
    local rev
    rev=$(GIT_OPTIONAL_LOCKS=0 git -C "$IDGEN_ROOT" rev-parse --short HEAD 2>/dev/null) || { echo "(not a git checkout)"; return; }
    [ -z "$(GIT_OPTIONAL_LOCKS=0 git -C "$IDGEN_ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ] || rev+="+changes"
    echo "$rev"
}

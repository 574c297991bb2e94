#!/usr/bin/env bash
# Checks shareq's C/C++ sources against the repository's .clang-format and .clang-tidy:
#   1. clang-format --dry-run --Werror over src/, plugins/, tools/, tests/ and bench/; fails naming
#      every file that is not formatted (fix: clang-format -i FILE);
#   2. clang-tidy (Debian 12's clang-tidy 14) over every translation unit of the project, in
#      parallel, with the compile database of a configure-only clang build tree (all options on,
#      so the fuzzers and benchmarks are checked too); fails on any finding, in a source file or in
#      one of the project's headers, that scripts/clang-tidy-baseline.txt does not list. Findings
#      in Slurm's headers (.cache/, included as system headers) and system headers do not count.
#      A translation unit whose preprocessed text, compile command, .clang-tidy and clang-tidy are
#      those of an earlier run is not checked again: its findings come from a cache in the build tree.
# The baseline has one "path:check" line per accepted finding (no line numbers, so unrelated edits
# do not break it); '#' starts a comment. With file arguments (scripts/check-style.sh FILE...), it
# checks those files only (for clang-tidy, those of them that are translation units). Environment:
#   SHAREQ_STYLE_BUILD_DIR  the build tree for the compile database (default build-style/)
#   SHAREQ_STYLE_CHECKS     which checks to run (default "format tidy")
#   SHAREQ_STYLE_JOBS       parallel processes (default nproc)
#   SHAREQ_STYLE_NO_CACHE   set to 1 to run clang-tidy on every translation unit
set -euo pipefail

# One clang-tidy run, for xargs: check-style.sh --tidy-one BUILD_DIR OUT_DIR KEY FILE.
if [[ "${1:-}" == "--tidy-one" ]]; then
  rc=0
  nice -n 10 clang-tidy -p "$2" --quiet "$5" >"$3/$4.log" 2>&1 || rc=$?
  echo "$rc" >"$3/$4.rc"
  exit 0
fi

caller=$PWD
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
build=${SHAREQ_STYLE_BUILD_DIR:-build-style}
checks=${SHAREQ_STYLE_CHECKS:-format tidy}
jobs=${SHAREQ_STYLE_JOBS:-$(nproc)}
baseline=scripts/clang-tidy-baseline.txt
dirs=(src plugins tools tests bench)
source_re='\.(c|cc|cpp|cxx|h|hh|hpp|hxx)$'
failed=0

for tool in clang-format clang-tidy; do
  command -v "$tool" >/dev/null ||
    { echo "check-style: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done

# The project's own C/C++ files: tracked or new (not ignored), so never .cache/ or build trees.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t sources < <(git ls-files --cached --others --exclude-standard -- "${dirs[@]}" |
    grep -E "$source_re" | while read -r f; do [[ -f "$f" ]] && echo "$f"; done | sort)
else
  mapfile -t sources < <(find "${dirs[@]}" -type f | grep -E "$source_re" | sort)
fi
only=()
if (($#)); then
  for f in "$@"; do
    [[ "$f" == /* ]] || f=$caller/$f
    f=$(realpath -m --relative-to="$repo" "$f")
    [[ " ${sources[*]} " == *" $f "* ]] || { echo "check-style: $f is not one of the project's C/C++ files" >&2; exit 1; }
    only+=("$f")
  done
  sources=("${only[@]}")
fi

if [[ " $checks " == *" format "* ]]; then
  start=$SECONDS
  unformatted=$(printf '%s\0' "${sources[@]}" |
    xargs -0 -n 16 -P "$jobs" clang-format --dry-run --Werror 2>&1 |
    sed -nE 's/^(.+):[0-9]+:[0-9]+: (error|warning): code should be clang-formatted.*/\1/p' |
    sort -u) || true
  if [[ -n "$unformatted" ]]; then
    echo "check-style: clang-format: these files are not formatted (run clang-format -i on them):"
    sed 's/^/  /' <<<"$unformatted"
    failed=1
  else
    echo "check-style: clang-format: ${#sources[@]} files formatted ($((SECONDS - start)) s)"
  fi
fi

if [[ " $checks " == *" tidy "* ]]; then
  start=$SECONDS
  # Configure only (no build): the compile database is all clang-tidy needs. Clang, so that the
  # flags are clang's; fuzzers and benchmarks on, so that their sources are checked as well.
  mkdir -p "$build"
  CC=clang CXX=clang++ cmake -S . -B "$build" -DSHAREQ_TESTS=ON -DSHAREQ_PLUGINS=ON \
    -DSHAREQ_FUZZ=ON -DSHAREQ_BENCH=ON >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; echo "check-style: configuring $build failed" >&2; exit 1; }
  cache=$build/clang-tidy-cache
  mkdir -p "$cache"
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT

  # "KEY FILE" for each of the project's translation units: KEY hashes what clang-tidy's answer
  # depends on (the preprocessed text, the compile command, .clang-tidy, clang-tidy's version).
  units=$(nice -n 10 python3 - "$build/compile_commands.json" "$repo" "$jobs" "${only[@]}" <<'EOF'
import concurrent.futures, hashlib, json, os, shlex, subprocess, sys
db, repo, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
only = {os.path.join(repo, f) for f in sys.argv[4:]}
own = tuple(os.path.join(repo, d) + os.sep for d in ("src", "plugins", "tools", "tests", "bench"))
common = hashlib.sha256()
common.update(open(os.path.join(repo, ".clang-tidy"), "rb").read())
common.update(subprocess.run(["clang-tidy", "--version"], capture_output=True).stdout)
units = {}
for entry in json.load(open(db)):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if only and path not in only:
        continue
    if path.startswith(own) and os.path.isfile(path) and path not in units:
        units[path] = entry  # clang-tidy -p takes a file's first compile command too

def key(path):
    entry = units[path]
    argv = entry.get("arguments") or shlex.split(entry["command"])
    cmd, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            cmd.append(a)
    h = common.copy()
    h.update(json.dumps([entry["directory"], argv]).encode())
    pre = subprocess.run(cmd + ["-E", "-o", "-"], cwd=entry["directory"], capture_output=True)
    h.update(pre.stdout if pre.returncode == 0 else os.urandom(16))  # no cache if it fails
    return h.hexdigest()

with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    for path, k in zip(sorted(units), pool.map(key, sorted(units))):
        print(k, path)
EOF
  )
  todo=()
  cached=0
  while read -r key file; do
    [[ -n "$key" ]] || continue
    if [[ "${SHAREQ_STYLE_NO_CACHE:-0}" != 1 && -f "$cache/$key.log" ]]; then
      cp "$cache/$key.log" "$cache/$key.rc" "$out/"
      cached=$((cached + 1))
    else
      todo+=("$key" "$file")
    fi
    echo "$file" >"$out/$key.file"
  done <<<"$units"
  if ((${#todo[@]})); then
    printf '%s\0' "${todo[@]}" | xargs -0 -n 2 -P "$jobs" "$0" --tidy-one "$build" "$out"
  fi

  # A clang-tidy that failed without reporting a single finding (a crash, a missing compile
  # command) is a failure of the check itself, and its answer is not cached.
  broken=()
  for rcfile in "$out"/*.rc; do
    base=${rcfile%.rc}
    key=${base##*/}
    if [[ "$(cat "$rcfile")" != 0 ]] && ! grep -qE ': (warning|error): .*\[' "$base.log"; then
      broken+=("$(cat "$base.file")")
      sed 's/^/    /' "$base.log" | tail -20
    else
      cp "$base.log" "$base.rc" "$cache/"
    fi
  done
  # The cache keeps the last full run's answers only.
  ((${#only[@]})) || find "$cache" -type f | while read -r f; do
    name=${f##*/}
    [[ -f "$out/${name%.*}.file" ]] || rm -f "$f"
  done

  # Findings as "path:line:col: check: message", paths relative to the repository, only the
  # project's own files; then as "path:check", the baseline's form.
  findings=$(cat "$out"/*.log |
    sed -nE 's/^(\/[^:]+):([0-9]+):([0-9]+): (warning|error): (.*) \[([^],]+)[],].*$/\1\t\2:\3: \6: \5/p' |
    awk -F'\t' -v repo="$repo/" '{
        path = $1
        while (sub(/\/[^\/]+\/\.\.\//, "/", path)) {}
        if (index(path, repo) == 1) print substr(path, length(repo) + 1) ":" $2
      }' |
    grep -E '^(src|plugins|tools|tests|bench)/' | sort -u) || true
  current=$(sed -nE 's/^([^:]+):[0-9]+:[0-9]+: ([^:]+): .*/\1:\2/p' <<<"$findings" | sort -u)
  accepted=$( (sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$baseline" 2>/dev/null || true) |
    grep -v '^$' | sort -u) || true
  new=$(comm -23 <(grep -v '^$' <<<"$current" || true) <(grep -v '^$' <<<"$accepted" || true))
  stale=$(comm -13 <(grep -v '^$' <<<"$current" || true) <(grep -v '^$' <<<"$accepted" || true))

  if ((${#broken[@]})); then
    echo "check-style: clang-tidy failed on: ${broken[*]}"
    failed=1
  fi
  if [[ -n "$new" ]]; then
    echo "check-style: clang-tidy: findings not in $baseline (fix them, or NOLINT(check) with a reason):"
    awk 'NR == FNR { new[$0]; next }
      { split($0, f, ":"); check = substr(f[4], 2); if ((f[1] ":" check) in new) print "  " $0 }' \
      <(printf '%s\n' "$new") <(printf '%s\n' "$findings")
    failed=1
  fi
  if [[ -n "$stale" && ${#only[@]} -eq 0 ]]; then
    echo "check-style: note: $baseline lists findings that no longer occur; delete these lines:"
    sed 's/^/  /' <<<"$stale"
  fi
  if [[ -z "$new" && ${#broken[@]} -eq 0 ]]; then
    echo "check-style: clang-tidy: $(grep -c . <<<"$units") translation units ($cached from the" \
      "cache), no findings outside the baseline ($((SECONDS - start)) s)"
  fi
fi

if ((failed)); then
  exit 1
fi
echo "check-style: ok"

#!/bin/bash
# scripts/check-deb.sh [DEBDIR]: installs the packages make-deb.sh built (default DEBDIR: dist/)
# into a scratch root with dpkg --root (the maintainer scripts run here with DPKG_ROOT set, as
# dpkg does for a root it cannot chroot into), and checks what a user and an operator meet:
# walkscape --version, every manual page rendered by man without a warning, Tab after
# `walkscape wa` in a real bash, the server started from the installed config and secret,
# systemd-analyze verify of the unit, lintian, and what dpkg -r and dpkg -P leave behind (listed).
# Nothing outside the scratch root is touched.
set -euo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
debs=${1:-$root_dir/dist}
version=$(dpkg-parsechangelog -l "$root_dir/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
walker="$debs/walkscape_${version}_${arch}.deb"
server="$debs/walkscape-server_${version}_${arch}.deb"
failures=0

say() { printf '%s\n' "$*"; }
pass() { say "ok   $*"; }
fail() { say "FAIL $*"; failures=$((failures + 1)); }

for deb in "$walker" "$server"; do
    [ -f "$deb" ] || { say "check-deb: $deb is missing (make deb builds it)"; exit 1; }
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/walkscape-root.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/var/lib/dpkg/info" "$scratch/var/lib/dpkg/updates" "$scratch/var/lib/dpkg/triggers"
: > "$scratch/var/lib/dpkg/status"
: > "$scratch/var/lib/dpkg/available"
before=$(cd "$scratch" && find . -mindepth 1 | sort)

# The scratch root holds neither libc nor the libraries (their packages are not installed
# there): --force-depends; the programs run with the machine's own libraries.
dpkg_root() { dpkg --root="$scratch" --force-script-chrootless --force-depends --log=/dev/null "$@"; }

say "== dpkg -i into $scratch"
if dpkg_root -i "$walker" "$server" > "$scratch.log" 2>&1; then
    pass "dpkg -i walkscape walkscape-server"
else
    fail "dpkg -i:"; cat "$scratch.log"
fi
rm -f "$scratch.log"

say "== walkscape --version"
if version_text=$("$scratch/usr/bin/walkscape" --version); then
    say "$version_text" | sed 's/^/     /'
    [[ "$version_text" == "walkscape ${version%-*} (commit "* ]] && pass "walkscape says ${version%-*}" \
        || fail "walkscape --version does not start with walkscape ${version%-*}"
else
    fail "walkscape --version exited $?"
fi
server_version=$("$scratch/usr/bin/walkscape-server" --version) && say "     $server_version"

say "== manual pages"
pages=0
while IFS= read -r page; do
    pages=$((pages + 1))
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null || echo "man exited $?")
    [ -z "$warnings" ] || fail "$page: $warnings"
    whatis=$(lexgrog "$page" 2>&1) || fail "$page has no NAME line man's index can read: $whatis"
done < <(find "$scratch/usr/share/man" -name '*.gz' | sort)
sections=$(find "$scratch/usr/share/man" -name '*.gz' | sed 's/.*\.\([0-9]\)\.gz$/\1/' | sort | uniq -c | xargs)
[ "$pages" -gt 0 ] && pass "$pages pages render without a warning (by section: $sections)"

say "== bash completion"
completion=$(PATH="$scratch/usr/bin:$PATH" bash --norc -c '
    source "$1/usr/share/bash-completion/completions/walkscape"
    COMP_WORDS=(walkscape wa); COMP_CWORD=1; COMP_LINE="walkscape wa"; COMP_POINT=${#COMP_LINE}
    _walkscape walkscape wa walkscape
    printf "%s\n" "${COMPREPLY[@]}"' _ "$scratch")
[ "$completion" = walk ] && pass "walkscape wa<Tab> gives walk" || fail "walkscape wa<Tab> gave: $completion"
for shell in zsh/vendor-completions/_walkscape fish/vendor_completions.d/walkscape.fish; do
    [ -s "$scratch/usr/share/$shell" ] && pass "/usr/share/$shell" || fail "/usr/share/$shell is missing"
done

say "== walkscape-server as installed"
secret="$scratch/etc/walkscape-server/secret"
if [ -f "$secret" ]; then
    mode=$(stat -c '%a %U' "$secret")
    group_name=$(stat -c '%g' "$secret")
    [ "$mode" = "640 root" ] && pass "secret: mode 0640, owner root, group id $group_name" \
        || fail "secret: $mode"
    grep -q "^walkscape-server:[^:]*:$group_name:" "$scratch/etc/group" && pass "secret's group is walkscape-server" \
        || fail "secret's group $group_name is not walkscape-server"
    grep -q '^walkscape-server:' "$scratch/etc/passwd" && pass "user walkscape-server made" \
        || fail "no walkscape-server user"
else
    fail "no secret at /etc/walkscape-server/secret"
fi
[ -L "$scratch/etc/systemd/system/multi-user.target.wants/walkscape-server.service" ] \
    && pass "unit enabled (multi-user.target.wants)" || fail "unit not enabled"
mkdir -p "$scratch/srv-data"
"$scratch/usr/bin/walkscape-server" serve --config "$scratch/etc/walkscape-server/server.conf" \
    --data "$scratch/srv-data" --secret-file "$secret" --port 0 "$root_dir/tours" \
    > "$scratch/server.out" 2> "$scratch/server.err" &
server_pid=$!
for _ in $(seq 100); do [ -s "$scratch/server.out" ] && break; sleep 0.1; done
base=$(head -n 1 "$scratch/server.out")
if [ -n "$base" ] && curl -sf "$base/health" > /dev/null; then
    pass "serves with the installed config and secret ($base)"
else
    fail "the server did not start: $(cat "$scratch/server.err")"
fi
kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true
secret_hex=$(tr -d '\n' < "$secret")
if grep -q "$secret_hex" "$scratch/server.out" "$scratch/server.err"; then fail "the secret was printed"; else pass "the secret is never printed"; fi
rm -rf "$scratch/srv-data" "$scratch/server.out" "$scratch/server.err"

say "== systemd-analyze verify"
# verify --root reads every unit from the root: the targets the unit is ordered with and the
# programs it runs come from this machine for the check, and go again after it.
borrowed=()
for unit in sysinit.target basic.target multi-user.target shutdown.target network.target sockets.target \
    paths.target timers.target slices.target local-fs.target swap.target; do
    if [ -e "/lib/systemd/system/$unit" ] && [ ! -e "$scratch/lib/systemd/system/$unit" ]; then
        cp "/lib/systemd/system/$unit" "$scratch/lib/systemd/system/$unit"
        borrowed+=("$scratch/lib/systemd/system/$unit")
    fi
done
[ -e "$scratch/bin/kill" ] || { mkdir -p "$scratch/bin"; cp /bin/kill "$scratch/bin/kill"; borrowed+=("$scratch/bin/kill" "$scratch/bin"); }
if out=$(MANPATH="$scratch/usr/share/man" systemd-analyze verify --root="$scratch" walkscape-server.service 2>&1) \
    && [ -z "$out" ]; then
    pass "walkscape-server.service verifies clean (its man: pages found too)"
else
    fail "systemd-analyze verify: $out"
fi
for file in "${borrowed[@]}"; do rm -f "$file" 2>/dev/null || rmdir "$file"; done

say "== lintian"
if lint=$(lintian --fail-on error --display-info "$walker" "$server" 2>&1); then
    pass "lintian: no error"
else
    fail "lintian reports errors"
fi
[ -z "$lint" ] || say "$lint" | sed 's/^/     /'

say "== dpkg -r"
# The walker's package first, alone: it has no conffile and makes nothing, so nothing may stay.
with_walker=$(cd "$scratch" && find . -mindepth 1 -not -path './var/lib/dpkg*' | sort)
dpkg_root -r walkscape > /dev/null 2>&1 || fail "dpkg -r walkscape"
after_walker=$(cd "$scratch" && find . -mindepth 1 -not -path './var/lib/dpkg*' | sort)
removed=$(comm -23 <(echo "$with_walker") <(echo "$after_walker") | wc -l)
walker_left=$(comm -13 <(echo "$before") <(echo "$after_walker") | grep -E 'walkscape($|[^-])|walkscape-(tour|config)|_walkscape$' || true)
if [ -z "$walker_left" ]; then
    pass "dpkg -r walkscape removed its $removed files and folders and left nothing of its own"
else
    fail "dpkg -r walkscape left: $walker_left"
fi
dpkg_root -r walkscape-server > /dev/null 2>&1 || fail "dpkg -r walkscape-server"
left=$(comm -13 <(echo "$before") <(cd "$scratch" && find . -mindepth 1 -not -path './var/lib/dpkg*' | sort))
say "left after dpkg -r walkscape-server (its conffile, secret and state, kept until purge; the account):"
say "$left" | sed 's/^/     /'
grep -q '^./usr/' <<< "$left" && fail "files under /usr left after dpkg -r" || pass "no program, page, completion or unit left"
grep -q '^./lib/systemd/system/walkscape' <<< "$left" && fail "the unit file is left after dpkg -r"

say "== dpkg -P"
dpkg_root -P walkscape walkscape-server > /dev/null 2>&1 || fail "dpkg -P"
left=$(comm -13 <(echo "$before") <(cd "$scratch" && find . -mindepth 1 -not -path './var/lib/dpkg*' | sort))
say "left after dpkg -P:"
say "${left:-     (nothing)}" | sed 's/^/     /'
unexpected=$(grep -v -E '^\./(etc|etc/\.pwd\.lock|etc/passwd-?|etc/group-?|etc/shadow-?|etc/gshadow-?|var|var/lib|var/lib/systemd|var/lib/systemd/deb-systemd-helper-enabled|var/lib/systemd/deb-systemd-helper-masked|etc/systemd|etc/systemd/system|etc/systemd/system/multi-user.target.wants|lib|lib/systemd|lib/systemd/system|usr|usr/lib|usr/lib/sysusers.d)$' <<< "$left" || true)
if [ -z "$unexpected" ]; then
    pass "purge leaves only the user's account lines and empty folders"
else
    fail "purge left: $unexpected"
fi

for deb in "$walker" "$server"; do
    say "$(basename "$deb"): $(stat -c %s "$deb") bytes, installed size $(dpkg-deb -f "$deb" Installed-Size) KiB"
done
if [ "$failures" -gt 0 ]; then say "$failures check(s) failed"; exit 1; fi
say "all checks passed"

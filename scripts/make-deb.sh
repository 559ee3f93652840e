#!/bin/bash
# scripts/make-deb.sh [OUTDIR]: builds walkscape_<version>_<arch>.deb and
# walkscape-server_<version>_<arch>.deb (default OUTDIR: dist/) from the static release build.
#
# The packages are put together the way debhelper would, by hand, with dpkg's own tools:
# dpkg-parsechangelog gives the version (debian/changelog, its one place), dpkg-shlibdeps the
# Depends from the shared libraries the binaries link (and from those walkscape loads with dlopen,
# FFmpeg's, through a stub linked against them), dpkg-gencontrol the control files, dpkg-deb the
# archives (owned by root without being root: --root-owner-group). Manual pages come from the
# commands themselves (swift-argument-parser's generate-manual) plus man/*.5 and man/*.7;
# completions from the programs (--generate-completion-script).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
cd "$root"

say() { printf 'make-deb: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

for tool in dpkg-deb dpkg-shlibdeps dpkg-gencontrol dpkg-parsechangelog cc strip gzip; do
    command -v "$tool" >/dev/null || die "$tool is missing (make deps-deb installs it)"
done

# The Makefile's release flags (RELEASE_FLAGS), so make deb reuses make install's and make bench's build.
read -r -a release <<< "${RELEASE_FLAGS:--c release --static-swift-stdlib}"
for product in walkscape walkscape-server generate-manual; do
    say "building $product (release)"
    swift build "${release[@]}" --product "$product" >&2
done
bin=$(swift build "${release[@]}" --show-bin-path)

version=$(dpkg-parsechangelog -l debian/changelog -S Version)
arch=$(dpkg --print-architecture)
export SOURCE_DATE_EPOCH=$(date -u -d "$(dpkg-parsechangelog -l debian/changelog -S Date)" +%s)

work=$(mktemp -d "${TMPDIR:-/tmp}/walkscape-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
# dpkg-shlibdeps and dpkg-gencontrol expect the packages' trees as debian/<package>.
rm -rf debian/walkscape debian/walkscape-server debian/files debian/*.substvars

# --- The copyright file against what the linker was given -----------------------------------
# Each object the linker read lives in .build/.../<Module>.build/; a module belongs to the
# checkout holding a folder of its name. Every checkout linked into a binary must have a stanza
# saying "Built into" that binary, and every stanza must be linked where it says.
linked_packages() {  # $1: product
    local list="$bin/$1.product/Objects.LinkFileList"
    [ -f "$list" ] || die "$list is missing: the release build of $1 did not link"
    python3 - "$list" "$root" <<'PY' || die "cannot tell where every module of $1 comes from"
import glob, json, os, re, sys
listing, root = sys.argv[1], sys.argv[2]
checkout = re.compile(re.escape(root) + r"/\.build/checkouts/([^/]+)/")
modules = set()
for line in open(listing):
    parts = line.strip().strip("'").split("/")
    built = [p for p in parts if p.endswith(".build")]
    if built:
        modules.add(line.strip().strip("'").split("/" + built[-1] + "/")[0] + "/" + built[-1])
packages = set()
for folder in sorted(modules):
    # A Swift module's sources are the keys of its output file map; a C module's are in its .d files.
    texts = []
    mapping = os.path.join(folder, "output-file-map.json")
    if os.path.exists(mapping):
        texts.append(" ".join(json.load(open(mapping)).keys()))
    else:
        for d in glob.glob(os.path.join(folder, "**", "*.d"), recursive=True)[:3]:
            texts.append(open(d, errors="replace").read())
    text = " ".join(texts)
    found = checkout.search(text)
    if found:
        packages.add(found.group(1))
    elif (root + "/Sources/") not in text and (root + "/.build/") not in text:
        sys.exit(f"make-deb: no sources found for {os.path.basename(folder)}")
print("\n".join(sorted(packages)))
PY
}
declared_in() {  # $1: checkout name; prints the binaries its stanza names
    awk -v files="Files: .build/checkouts/$1/*" '
        $0 == files { inside = 1; next }
        inside && /^Files:/ { exit }
        inside && /^Comment: Built into / { sub(/^Comment: Built into /, ""); sub(/\.$/, ""); print; exit }
    ' debian/copyright | tr -d ' ' | tr ',' '\n' | sort
}
declare -A built_into=()
for product in walkscape walkscape-server; do
    for package in $(linked_packages "$product"); do
        built_into[$package]="${built_into[$package]:-}$product "
    done
done
for package in "${!built_into[@]}"; do
    want=$(echo "${built_into[$package]}" | tr ' ' '\n' | sed '/^$/d' | sort)
    have=$(declared_in "$package")
    [ -n "$have" ] || die "debian/copyright has no stanza for .build/checkouts/$package (linked into ${built_into[$package]})"
    [ "$want" = "$have" ] || die "debian/copyright says $package is built into $(echo $have), the linker put it into $(echo $want)"
done
for package in $(sed -n 's|^Files: \.build/checkouts/\([^/]*\)/\*$|\1|p' debian/copyright); do
    [ -n "${built_into[$package]:-}" ] || die "debian/copyright lists $package, which neither binary links"
done
say "debian/copyright matches the ${#built_into[@]} packages linked"

# --- The two trees ---------------------------------------------------------------------------
stage() {  # $1: package
    local tree="debian/$1"
    install -d "$tree/DEBIAN" "$tree/usr/bin" "$tree/usr/share/doc/$1"
    install -m 0755 "$bin/$1" "$tree/usr/bin/$1"
    strip --remove-section=.comment --remove-section=.note --strip-unneeded "$tree/usr/bin/$1"
    scripts/install-extras.sh "$bin" "$tree" /usr "$1"
    install -m 0644 debian/copyright "$tree/usr/share/doc/$1/copyright"
    gzip -9n -c debian/changelog > "$tree/usr/share/doc/$1/changelog.Debian.gz"
}

stage walkscape
stage walkscape-server
server=debian/walkscape-server
install -d "$server/lib/systemd/system" "$server/usr/lib/sysusers.d" "$server/etc/walkscape-server"
install -m 0644 debian/walkscape-server.service "$server/lib/systemd/system/walkscape-server.service"
install -m 0644 debian/walkscape-server.sysusers "$server/usr/lib/sysusers.d/walkscape-server.conf"
install -m 0644 debian/server.conf "$server/etc/walkscape-server/server.conf"
echo /etc/walkscape-server/server.conf > "$server/DEBIAN/conffiles"
for package in walkscape walkscape-server; do
    install -d "debian/$package/usr/share/lintian/overrides"
    install -m 0644 "debian/$package.lintian-overrides" "debian/$package/usr/share/lintian/overrides/$package"
done
for script in postinst prerm postrm; do
    install -m 0755 "debian/walkscape-server.$script" "$server/DEBIAN/$script"
done

# --- Depends, from what the binaries link and load --------------------------------------------
# walkscape loads FFmpeg's libraries with dlopen (shim.h names the same sonames): a stub linked
# against them lets dpkg-shlibdeps compute those dependencies as it does the linked ones.
cat > "$work/ffmpeg-stub.c" <<'C'
int main(void) { return 0; }
C
cc -o "$work/ffmpeg-stub" "$work/ffmpeg-stub.c" -Wl,--no-as-needed \
    $(pkg-config --libs libavformat libavcodec libswresample libavutil)
# (The stub uses none of their symbols, which dpkg-shlibdeps remarks on; that is the point of it.)
dpkg-shlibdeps -Tdebian/walkscape.substvars -e debian/walkscape/usr/bin/walkscape -e "$work/ffmpeg-stub" 2>&1 \
    | { grep -v -e 'binaries to analyze should already be installed' -e "$work/ffmpeg-stub was not linked" || true; } >&2
dpkg-shlibdeps -Tdebian/walkscape-server.substvars -e debian/walkscape-server/usr/bin/walkscape-server 2>&1 \
    | { grep -v 'binaries to analyze should already be installed' || true; } >&2

# Nothing beyond the libraries: deb-systemd-helper and deb-systemd-invoke (init-system-helpers)
# are essential in Debian 12, as debhelper assumes.
for package in walkscape walkscape-server; do echo "misc:Depends=" >> "debian/$package.substvars"; done

mkdir -p "$out"
for package in walkscape walkscape-server; do
    tree="debian/$package"
    (cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z \
        | xargs -0 md5sum) > "$tree/DEBIAN/md5sums"
    dpkg-gencontrol -p"$package" -P"$tree" -Tdebian/$package.substvars -fdebian/files
    find "$tree" -type d -exec chmod 0755 {} +
    dpkg-deb --root-owner-group -Zxz --build "$tree" "$out/${package}_${version}_${arch}.deb" >&2
done
rm -rf debian/walkscape debian/walkscape-server debian/files debian/*.substvars

for deb in "$out/walkscape_${version}_${arch}.deb" "$out/walkscape-server_${version}_${arch}.deb"; do
    size=$(stat -c %s "$deb")
    installed=$(dpkg-deb -f "$deb" Installed-Size)
    printf '%s: %s bytes, installed %s KiB; Depends: %s\n' "$deb" "$size" "$installed" \
        "$(dpkg-deb -f "$deb" Depends)"
done

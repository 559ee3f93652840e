#!/bin/bash
# scripts/install-extras.sh BINDIR DESTDIR PREFIX PROGRAM...: installs each program's manual pages
# (generated from its commands by swift-argument-parser's generate-manual, one page per command)
# and its bash, zsh and fish completions where each shell looks under PREFIX; for walkscape also
# the hand-written pages man/walkscape-tour.5 and man/walkscape-config.7. Pages are gzipped
# reproducibly (dated by debian/changelog). Used by make install and make deb alike.
set -euo pipefail
bin=$1 dest=$2 prefix=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
date=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Date 2>/dev/null || date -R)
day=$(date -u -d "$date" +%Y-%m-%d)
version=$(sh "$root/scripts/build-info.sh" --version "$root")
share="$dest$prefix/share"
# Debian's zsh reads packages' functions from vendor-completions, the local admin's from site-functions.
if [ "$prefix" = /usr ]; then zsh_dir="$share/zsh/vendor-completions"; else zsh_dir="$share/zsh/site-functions"; fi
tool="$bin/generate-manual"
[ -x "$tool" ] || { echo "install-extras: $tool is missing (swift build --product generate-manual)" >&2; exit 1; }
pages=$(mktemp -d)
trap 'rm -rf "$pages"' EXIT

for program in "$@"; do
    install -d "$share/man/man1" "$share/bash-completion/completions" "$zsh_dir" "$share/fish/vendor_completions.d"
    mkdir -p "$pages/$program"
    "$tool" "$bin/$program" --multi-page --date "$day" --section 1 --authors "walkscape developers" \
        --output-directory "$pages/$program" >&2
    python3 "$root/scripts/tidy-manual.py" "$pages/$program"/*.1
    for page in "$pages/$program"/*.1; do
        gzip -9n -c "$page" > "$share/man/man1/$(basename "$page").gz"
        chmod 0644 "$share/man/man1/$(basename "$page").gz"
    done
    # bash-completion sources the file; a #! line in it would only say it is a program.
    "$bin/$program" --generate-completion-script bash | sed '1{/^#!/d}' > "$share/bash-completion/completions/$program"
    "$bin/$program" --generate-completion-script zsh > "$zsh_dir/_$program"
    "$bin/$program" --generate-completion-script fish > "$share/fish/vendor_completions.d/$program.fish"
    chmod 0644 "$share/bash-completion/completions/$program" "$zsh_dir/_$program" \
        "$share/fish/vendor_completions.d/$program.fish"
    if [ "$program" = walkscape ]; then
        for page in "$root"/man/*.[57]; do
            section=${page##*.}
            install -d "$share/man/man$section"
            # The version and date come from debian/changelog, the version's one place.
            sed -e "s/@VERSION@/$version/g" -e "s/@DATE@/$day/g" "$page" | gzip -9n -c \
                > "$share/man/man$section/$(basename "$page").gz"
            chmod 0644 "$share/man/man$section/$(basename "$page").gz"
        done
    fi
done

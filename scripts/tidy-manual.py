#!/usr/bin/env python3
"""scripts/tidy-manual.py PAGE...: mends the mdoc pages swift-argument-parser's generate-manual writes,
in place, so man renders them without a warning and man's index can read them:
- a subcommand's NAME is `walkscape.walk` (the page's name; man-db's index cannot read a name with
  a space), while its SYNOPSIS still says `walkscape walk` as it is typed;
- `.Nd` loses its quotes, which the index would keep;
- a blank line in a command's discussion becomes a paragraph break (.Pp) instead of an empty input
  line, and lines indented by two spaces (the examples) become a literal display.
"""
import re
import sys

for path in sys.argv[1:]:
    lines = open(path).read().rstrip("\n").split("\n")
    out = []
    name = None
    section = None
    literal = False
    for line in lines:
        if line.startswith(".Sh "):
            section = line[4:]
        m = re.match(r'^\.Nm "(.+)"$', line)
        if m and section == "NAME":
            name = m.group(1)
            line = ".Nm " + name.replace(" ", ".")
        elif line == ".Nm" and section == "SYNOPSIS" and name:
            line = '.Nm "%s"' % name
        d = re.match(r'^\.Nd "(.*)"$', line)
        if d:
            line = ".Nd " + d.group(1)
        if line.startswith("  ") and not line.startswith("."):
            if not literal:
                out.append(".Bd -literal -offset indent")
                literal = True
            out.append(line[2:])
            continue
        if literal:
            out.append(".Ed")
            literal = False
        if line == "" and section is not None:
            line = ".Pp"
        out.append(line)
    if literal:
        out.append(".Ed")
    open(path, "w").write("\n".join(out) + "\n")

#!/usr/bin/env python3
"""Fails when a folder of Sources/Sift uses something declared in a folder above it.

The stack, bottom to top (README.md, Layout): Core <- Query <- Binding <- Interface <- FullText. A file may use
what its own folder and the folders below declare, never what a folder above declares.

What counts as a use, read from the sources (comments and string literals removed):
- a top-level type, protocol or typealias declared above, named anywhere in the file;
- a member (func, var, let) that a folder above declares, in its types or in extensions, called as `.name` or
  `name(`, unless a folder at or below the file's also declares a member of that name, or the name is one the
  standard library uses everywhere (a text scan cannot tell those apart).

Usage: scripts/check-layers.py [--verbose]   (exit status 1 on a violation)
"""
import os
import re
import sys

LAYERS = ["Core", "Query", "Binding", "Interface", "FullText"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "Sift")

TYPE_DECL = re.compile(r"^\s*(?:(?:public|internal|fileprivate|private|package|final|indirect|open|@\w+(?:\([^)]*\))?)\s+)*"
                       r"(class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)")
MEMBER_DECL = re.compile(r"^\s*(?:(?:public|internal|fileprivate|private|package|final|static|class|override|mutating|"
                         r"nonmutating|open|lazy|weak|unowned|nonisolated|@\w+(?:\([^)]*\))?)\s+)*"
                         r"(func|var|let)\s+([A-Za-z_]\w*)")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def strip(source):
    """Removes comments and string literals (keeping line structure) so that only code is scanned."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            chunk = source[i:n if j < 0 else j + 2]
            out.append("\n" * chunk.count("\n"))
            i = n if j < 0 else j + 2
        elif source.startswith('"""', i):
            j = source.find('"""', i + 3)
            chunk = source[i:n if j < 0 else j + 3]
            out.append('""' + "\n" * chunk.count("\n"))
            i = n if j < 0 else j + 3
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] != '"' and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


CASE_DECL = re.compile(r"^\s*(?:indirect\s+)?case\s+([A-Za-z_]\w*(?:\s*(?:\([^)]*\))?\s*(?:=[^,]*)?,\s*[A-Za-z_]\w*)*)\s*(?:\(|=|,|$)")


def declarations(path):
    """What a file declares: top-level types, protocols and typealiases (brace depth 0); members, that is funcs,
    vars and lets at depth 1 (in types and extensions alike) and at depth 2 in a type nested in one, and enum cases
    at any depth (reached as `.name`)."""
    types, members, depth, nested = set(), set(), 0, False
    for line in strip(open(path, encoding="utf-8").read()).split("\n"):
        # A type nested in a type (depth 1): its members are at depth 2.
        if depth == 1 and TYPE_DECL.match(line):
            nested = True
        elif depth == 1 and MEMBER_DECL.match(line):
            nested = False
        if depth == 0:
            m = TYPE_DECL.match(line)
            if m:
                types.add(m.group(2))
        elif depth == 1 or (depth == 2 and nested):
            m = MEMBER_DECL.match(line)
            if m:
                members.add(m.group(2))
        m = CASE_DECL.match(line)
        if m and depth >= 1:
            members.update(IDENTIFIER.findall(re.sub(r"\([^)]*\)|=[^,]*", "", m.group(1))))
        depth += line.count("{") - line.count("}")
    return types, members


# Names the standard library's collections and coders use everywhere: a text scan cannot tell them from Sift's.
STANDARD = {"count", "insert", "filter", "first", "last", "contains", "append", "remove", "map", "values", "keys",
            "min", "max", "decode", "encode", "description", "index", "isEmpty", "reduce", "sorted", "joined",
            "rawValue", "container", "singleValueContainer", "unkeyedContainer", "nestedContainer", "encodeNil", "decodeNil",
            "codingPath", "userInfo", "allKeys", "load", "resume", "stride",  # resume: every continuation's; stride: the stdlib's stride(from:to:by:)
            "success", "failure", "prefix"}  # Result's cases; Sequence.prefix


def main():
    verbose = "--verbose" in sys.argv
    files = {}
    for layer in LAYERS:
        # A layer's subfolders (FullText/ScoreBounds) belong to it.
        for folder, _, names in sorted(os.walk(os.path.join(ROOT, layer))):
            for name in sorted(names):
                if name.endswith(".swift"):
                    files[os.path.join(folder, name)] = layer
    others = sorted({d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d)) and not d.endswith(".docc")}
                    - set(LAYERS))  # a DocC catalog holds no code
    if others:
        print(f"check-layers: folders outside the stack: {', '.join(others)} (add them to LAYERS)")
        return 1

    type_layer, member_layers = {}, {}
    for path, layer in files.items():
        types, members = declarations(path)
        for t in types:
            type_layer.setdefault(t, set()).add(layer)
        for m in members:
            member_layers.setdefault(m, set()).add(layer)

    violations = []
    for path, layer in files.items():
        level = LAYERS.index(layer)
        code = strip(open(path, encoding="utf-8").read())
        for number, line in enumerate(code.split("\n"), 1):
            for match in IDENTIFIER.finditer(line):
                word = match.group(0)
                declared = type_layer.get(word)
                if declared and min(LAYERS.index(l) for l in declared) > level:
                    violations.append((path, number, layer, word, sorted(declared)))
                    continue
                layers = member_layers.get(word)
                if not layers or word in STANDARD or any(LAYERS.index(l) <= level for l in layers):
                    continue
                before = line[:match.start()]
                after = line[match.end():]
                if before.endswith(".") or after.startswith("("):
                    violations.append((path, number, layer, word, sorted(layers)))

    pairs = {}
    for path, number, layer, word, declared in violations:
        for target in declared:
            pairs.setdefault((layer, target), []).append(f"{os.path.relpath(path, ROOT)}:{number} uses {word}")
    for (layer, target), uses in sorted(pairs.items()):
        print(f"{layer} -> {target} (above it): {len(uses)} use(s)")
        for use in uses if verbose else uses[:5]:
            print(f"    {use}")
    if pairs:
        print("check-layers: a folder uses one above it; the stack is " + " <- ".join(LAYERS))
        return 1
    print("check-layers: ok (" + " <- ".join(LAYERS) + f", {len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

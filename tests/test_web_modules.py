"""The web page's ES modules, read as text (no browser): their imports form no cycle,
every name imported is exported by the module it comes from, and every module says
at its top why it exists. A refactor that breaks one of these fails here in a second,
not minutes later in the browser tests."""

import re
from pathlib import Path

import pytest

import dicelab.web

JS = Path(dicelab.web.__file__).parent / "static" / "js"

#: `import ... from "./x.js"` and `export ... from "./x.js"`, over several lines if need
#: be (statements start a line; the page's modules put them at the top).
FROM = re.compile(
    r"^(?P<kind>import|export)\s*"
    r"(?P<what>(?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s*as\s+[\w$]+)?)|[\w$]+)"
    r"\s*from\s*[\"'](?P<src>[^\"']+)[\"']",
    re.M,
)
#: `import "./x.js"`: a module run for its effects, no name taken.
BARE = re.compile(r"^import\s*[\"'](?P<src>[^\"']+)[\"']", re.M)
#: The names a module declares as exported.
DECLARED = re.compile(
    r"^export\s+(?:async\s+)?(?:function\s*\*?|const|let|var|class)\s+(?P<name>[\w$]+)", re.M
)
LISTED = re.compile(r"^export\s*\{(?P<names>[^}]*)\}", re.M)
DEFAULT = re.compile(r"^export\s+default\b", re.M)


def _without_comments(text):
    """The text with its line comments and block comments blanked (lines kept), strings
    and template literals left as they are (a "//" in a string is no comment)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in "\"'`":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _names(listed):
    """``a, b as c`` -> [(a, a), (b, c)]: each name as it is there, and as it is here."""
    pairs = []
    for part in listed.split(","):
        words = part.split()
        if not words:
            continue
        if len(words) == 3 and words[1] == "as":
            pairs.append((words[0], words[2]))
        elif len(words) == 1:
            pairs.append((words[0], words[0]))
        else:
            raise ValueError(f"cannot read the names {part.strip()!r}")
    return pairs


def parse_module(text):
    """What a module's text imports and exports.

    Returns (imports, exports, stars): imports maps each local module's file name to the
    names taken from it ("*" for a namespace, "default" for a default import); exports
    is the set of names the module itself exports; stars the modules it re-exports
    whole (``export * from``).
    """
    code = _without_comments(text)
    imports = {}
    exports = set()
    stars = []
    for m in FROM.finditer(code):
        src = m.group("src")
        what = m.group("what").strip()
        taken = imports.setdefault(src, set()) if src.startswith("./") else set()
        if m.group("kind") == "export":
            if what.startswith("*"):
                if what == "*":
                    stars.append(src)
                else:  # export * as ns from
                    exports.add(what.split()[-1])
                taken.add("*")
                continue
            for there, here in _names(what.strip("{} \n")):
                taken.add(there)
                exports.add(here)
            continue
        if what.startswith("*"):
            taken.add("*")
            continue
        braces = re.search(r"\{(?P<names>[^}]*)\}", what)
        if braces:
            taken.update(there for there, _ in _names(braces.group("names")))
        if re.match(r"[\w$]+", what) and not what.startswith("{"):
            taken.add("default")
    for m in BARE.finditer(code):
        if m.group("src").startswith("./"):
            imports.setdefault(m.group("src"), set())
    exports.update(m.group("name") for m in DECLARED.finditer(code))
    for m in LISTED.finditer(code):
        exports.update(here for _, here in _names(m.group("names")))
    if DEFAULT.search(code):
        exports.add("default")
    return {src[2:]: names for src, names in imports.items()}, exports, [s[2:] for s in stars]


def read_modules():
    """Every module of the page: name -> (imports, exports, stars)."""
    return {p.name: parse_module(p.read_text(encoding="utf-8")) for p in sorted(JS.glob("*.js"))}


def find_cycles(graph):
    """For each group of modules that reach each other through their imports: one
    cycle in it (a list of modules, the first again at its end) and the whole group;
    nothing for a graph without a cycle."""
    index = {}
    low = {}
    stack = []
    on_stack = set()
    groups = []
    counter = [0]

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1 or v in graph.get(v, ()):
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    cycles = []
    for group in sorted(groups, key=min):
        start = min(group)
        # the shortest way back to the start, inside the group
        back = {start: None}
        queue = [start]
        found = None
        while queue and found is None:
            v = queue.pop(0)
            for w in sorted(graph.get(v, ())):
                if w == start:
                    found = v
                    break
                if w in group and w not in back:
                    back[w] = v
                    queue.append(w)
        path = [start]
        v = found
        while v is not None and v != start:
            path.append(v)
            v = back[v]
        cycles.append(([start, *reversed(path[1:]), start], sorted(group)))
    return cycles


def test_the_parser_reads_every_form_of_import_and_export():
    text = """// a module
import { a, b as c } from "./one.js";
import {
  d,
  e,
} from "./two.js";
import * as ns from "./three.js";
import dflt, { f } from "./four.js";
import "./five.js";
// import { g } from "./commented.js";
/* import { h } from "./blocked.js"; */
const url = "http://x//y";  // a string with slashes is no comment
export { i, j as k } from "./six.js";
export * from "./seven.js";
export const l = 1;
export let m = 2;
export function n() {}
export async function o() {}
export class P {}
const q = 3;
export { q, q as r };
export default q;
"""
    imports, exports, stars = parse_module(text)
    assert imports == {
        "one.js": {"a", "b"},
        "two.js": {"d", "e"},
        "three.js": {"*"},
        "four.js": {"default", "f"},
        "five.js": set(),
        "six.js": {"i", "j"},
        "seven.js": {"*"},
    }
    assert exports == {"i", "k", "l", "m", "n", "o", "P", "q", "r", "default"}
    assert stars == ["seven.js"]


def test_the_cycle_finder_names_each_cycle():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [(["a", "c", "a"], ["a", "b", "c"])]
    assert find_cycles({"a": {"a"}}) == [(["a", "a"], ["a"])]
    two = find_cycles({"a": {"b"}, "b": {"a"}, "x": {"y"}, "y": {"x"}})
    assert two == [(["a", "b", "a"], ["a", "b"]), (["x", "y", "x"], ["x", "y"])]


def test_the_modules_import_each_other_without_a_cycle():
    modules = read_modules()
    assert "main.js" in modules and "state.js" in modules
    graph = {name: set(imports) for name, (imports, _, _) in modules.items()}
    cycles = find_cycles(graph)
    if cycles:
        pytest.fail(
            "the page's modules import each other in a circle:\n"
            + "\n".join(
                f"{' -> '.join(cycle)} (one of the cycles among {', '.join(group)})"
                for cycle, group in cycles
            )
        )


def test_the_play_view_is_drawn_on_a_change_not_by_an_import():
    # the modules that change the state say so (hub.js); main.js alone subscribes the
    # drawing, so none of them depends on it
    modules = read_modules()
    importers = sorted(name for name, (imports, _, _) in modules.items() if "draw.js" in imports)
    assert importers == ["main.js"], importers
    assert modules["hub.js"][0] == {} and modules["state.js"][0] == {}


def test_every_name_imported_is_exported_by_its_module():
    modules = read_modules()

    def exported(name, seen=()):
        if name not in modules or name in seen:
            return set()
        _, exports, stars = modules[name]
        out = set(exports)
        for s in stars:
            out |= exported(s, (*seen, name)) - {"default"}
        return out

    wrong = []
    for name, (imports, _, _) in modules.items():
        for src, names in sorted(imports.items()):
            if src not in modules:
                wrong.append(f"{name} imports {src}, which is not there")
                continue
            missing = sorted(names - {"*"} - exported(src))
            if missing:
                wrong.append(
                    f"{name} imports {', '.join(missing)} from {src}, which does not export it"
                )
    assert not wrong, "\n".join(wrong)


def test_each_module_says_at_its_top_why_it_exists():
    for path in sorted(JS.glob("*.js")):
        first = path.read_text(encoding="utf-8").lstrip("\ufeff").split("\n", 1)[0]
        assert first.startswith("// ") and len(first) > 10, f"{path.name} starts without a comment"

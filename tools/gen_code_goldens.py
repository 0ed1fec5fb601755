#!/usr/bin/env python3
"""gen_code_goldens.py: the reference definitions of source files, from tree-sitter.

For each file it lists the top-level definitions tree-sitter's grammar finds -- functions,
classes, structs, unions, enums, interfaces, traits, impls, modules (and a Go method, a
JavaScript `const f = () => ...`) -- with their name and first and last line (1-based), one per
line: `name<TAB>kind<TAB>first<TAB>last`. "Top-level" sees through what holds definitions without
being one: C/C++ preprocessor conditionals, `extern "C" {}`, C++ namespaces and templates, `export`
statements and TypeScript ambient declarations. A definition's span is its node's (a Python
decorator, a C++ template header and a JavaScript `export` included; Rust attributes and doc
comments, separate nodes, not).

    python3 -m venv build/venv
    build/venv/bin/pip install tree-sitter tree-sitter-python tree-sitter-c tree-sitter-cpp \\
        tree-sitter-go tree-sitter-javascript tree-sitter-typescript tree-sitter-rust \\
        tree-sitter-java tree-sitter-bash
    build/venv/bin/python tools/gen_code_goldens.py            # regenerates tests/data/code/*.defs

tests/test_code.c compares hyrax's definitions with the .defs files; tools/code_agreement.py uses
definitions() below on hundreds of files.
"""
import os
import re
import sys

from tree_sitter import Language, Parser

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "code")


def _grammar(ext):
    if ext in ("py",):
        import tree_sitter_python as m
        return m.language()
    if ext in ("c", "h"):
        import tree_sitter_c as m
        return m.language()
    if ext in ("cc", "cpp", "cxx", "hpp", "hh", "hxx"):
        import tree_sitter_cpp as m
        return m.language()
    if ext == "go":
        import tree_sitter_go as m
        return m.language()
    if ext in ("js", "mjs", "cjs", "jsx"):
        import tree_sitter_javascript as m
        return m.language()
    if ext in ("ts", "mts", "cts"):
        import tree_sitter_typescript as m
        return m.language_typescript()
    if ext == "tsx":
        import tree_sitter_typescript as m
        return m.language_tsx()
    if ext == "rs":
        import tree_sitter_rust as m
        return m.language()
    if ext == "java":
        import tree_sitter_java as m
        return m.language()
    if ext in ("sh", "bash"):
        import tree_sitter_bash as m
        return m.language()
    return None


def _text(node):
    return node.text.decode("utf-8", "replace")


def _simple(name):
    """The last path segment without template arguments and references: `&'a mut a::B<T>` -> `B`;
    a type that is no path (`[T]`, `()`) as written."""
    name = re.sub(r"^(\s*(&|'\w+|mut\b|dyn\b|const\b))*\s*", "", name.strip())
    if not re.match(r"[A-Za-z_$~]", name):
        return re.sub(r"\s+", " ", name)
    name = re.sub(r"<.*", "", name, flags=re.S)
    return re.split(r"\s", name.split("::")[-1].split(".")[-1].strip())[0]


def _declarator_name(node):
    """The name a C/C++ declarator declares (through pointers, functions, qualified names)."""
    while node is not None:
        if node.type in ("identifier", "field_identifier", "type_identifier", "destructor_name", "operator_name"):
            return _text(node)
        if node.type == "qualified_identifier":
            node = node.child_by_field_name("name")
            continue
        if node.type == "template_function":
            node = node.child_by_field_name("name")
            continue
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            for c in node.named_children:
                if c.type in ("identifier", "field_identifier", "qualified_identifier", "destructor_name",
                              "operator_name", "function_declarator", "pointer_declarator",
                              "reference_declarator", "parenthesized_declarator"):
                    nxt = c
                    break
        node = nxt
    return None


C_CONTAINERS = {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef",
                "linkage_specification", "declaration_list", "namespace_definition"}
C_TYPES = {"struct_specifier": "struct", "union_specifier": "union", "enum_specifier": "enum",
           "class_specifier": "class"}


def _c_defs(node, out, span=None):
    for child in node.named_children:
        s = span or child
        t = child.type
        if t in C_CONTAINERS:
            body = child.child_by_field_name("body")
            _c_defs(body if body is not None and t != "declaration_list" else child, out)
        elif t == "template_declaration":
            _c_defs(child, out, span=s)
        elif t == "function_definition":
            name = _declarator_name(child.child_by_field_name("declarator"))
            if name:
                out.append((name, "function", s))
        elif t in C_TYPES and child.child_by_field_name("body") is not None:
            n = child.child_by_field_name("name")
            if n is not None:
                out.append((_text(n), C_TYPES[t], s))
        elif t in ("type_definition", "declaration"):
            ty = child.child_by_field_name("type")
            if ty is None or ty.type not in C_TYPES or ty.child_by_field_name("body") is None:
                continue
            if t == "type_definition":
                name = _declarator_name(child.child_by_field_name("declarator"))
            else:
                n = ty.child_by_field_name("name")
                name = _text(n) if n is not None and child.child_by_field_name("declarator") is None else None
            if name:
                out.append((name, C_TYPES[ty.type], s))


def _py_defs(root, out):
    for child in root.named_children:
        d = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if d is not None and d.type in ("function_definition", "class_definition"):
            out.append((_text(d.child_by_field_name("name")), "class" if "class" in d.type else "function", child))


def _go_defs(root, out):
    for child in root.named_children:
        if child.type in ("function_declaration", "method_declaration"):
            out.append((_text(child.child_by_field_name("name")), "function", child))
        elif child.type == "type_declaration":
            specs = [c for c in child.named_children if c.type == "type_spec"]
            for spec in specs:
                ty = spec.child_by_field_name("type")
                if ty is not None and ty.type in ("struct_type", "interface_type"):
                    out.append((_text(spec.child_by_field_name("name")), ty.type.split("_")[0],
                                child if len(specs) == 1 else spec))


JS_DEFS = {"function_declaration": "function", "generator_function_declaration": "function",
           "class_declaration": "class", "abstract_class_declaration": "class",
           "interface_declaration": "interface", "enum_declaration": "enum"}


def _js_defs(node, out, span=None):
    for child in node.named_children:
        s = span or child
        t = child.type
        if t == "export_statement":
            d = child.child_by_field_name("declaration")
            if d is not None:
                _js_defs_one(d, out, s)
        elif t in ("ambient_declaration",):
            _js_defs(child, out, span=s)
        elif t == "expression_statement" and child.named_children and \
                child.named_children[0].type in ("internal_module", "module"):
            body = child.named_children[0].child_by_field_name("body")
            if body is not None:
                _js_defs(body, out)
        elif t in ("internal_module", "module"):
            body = child.child_by_field_name("body")
            if body is not None:
                _js_defs(body, out)
        else:
            _js_defs_one(child, out, s)


def _js_defs_one(d, out, span):
    if d.type in JS_DEFS:
        n = d.child_by_field_name("name")
        if n is not None:
            out.append((_text(n), JS_DEFS[d.type], span))
    elif d.type in ("lexical_declaration", "variable_declaration"):
        decls = [c for c in d.named_children if c.type == "variable_declarator"]
        if len(decls) == 1:
            v = decls[0].child_by_field_name("value")
            n = decls[0].child_by_field_name("name")
            if v is not None and n is not None and n.type == "identifier" and \
                    v.type in ("arrow_function", "function_expression", "function"):
                out.append((_text(n), "function", span))


RUST_DEFS = {"function_item": "function", "struct_item": "struct", "enum_item": "enum", "union_item": "union",
             "trait_item": "trait", "impl_item": "impl", "mod_item": "module"}


def _rust_defs(root, out):
    for child in root.named_children:
        if child.type not in RUST_DEFS:
            continue
        if child.type == "mod_item" and child.child_by_field_name("body") is None:
            continue
        if child.type == "impl_item":
            name = _simple(_text(child.child_by_field_name("type")))
        else:
            name = _text(child.child_by_field_name("name"))
        out.append((name, RUST_DEFS[child.type], child))


JAVA_DEFS = {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
             "record_declaration": "record", "annotation_type_declaration": "interface"}


def _java_defs(root, out):
    for child in root.named_children:
        if child.type in JAVA_DEFS:
            out.append((_text(child.child_by_field_name("name")), JAVA_DEFS[child.type], child))


def _bash_defs(root, out):
    for child in root.named_children:
        if child.type == "function_definition":
            out.append((_text(child.child_by_field_name("name")), "function", child))


FINDERS = {"py": _py_defs, "c": _c_defs, "h": _c_defs, "cc": _c_defs, "cpp": _c_defs, "cxx": _c_defs,
           "hpp": _c_defs, "hh": _c_defs, "hxx": _c_defs, "go": _go_defs, "js": _js_defs, "mjs": _js_defs,
           "cjs": _js_defs, "jsx": _js_defs, "ts": _js_defs, "mts": _js_defs, "cts": _js_defs,
           "tsx": _js_defs, "rs": _rust_defs, "java": _java_defs, "sh": _bash_defs, "bash": _bash_defs}


def language_of(path):
    ext = path.rsplit(".", 1)[-1].lower() if "." in os.path.basename(path) else ""
    return ext if ext in FINDERS else None


def definitions(path, data=None):
    """[(name, kind, first_line, last_line)] of the file's top-level definitions, or None when
    tree-sitter cannot parse it cleanly (a file with syntax errors is no reference)."""
    ext = language_of(path)
    if ext is None:
        return None
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
    parser = Parser(Language(_grammar(ext)))
    tree = parser.parse(data)
    if tree.root_node.has_error:
        return None
    out = []
    FINDERS[ext](tree.root_node, out)
    res = []
    for name, kind, node in out:
        end = node.end_point[0] + 1
        if node.end_point[1] == 0 and end > node.start_point[0] + 1:
            end -= 1   # a node ending at a line's start ends on the line before
        res.append((_simple(name) if not name.startswith("operator") else name, kind, node.start_point[0] + 1, end))
    return res


def main():
    files = sorted(f for f in os.listdir(FIXTURES) if language_of(f))
    for f in files:
        defs = definitions(os.path.join(FIXTURES, f))
        if defs is None:
            print(f"{f}: tree-sitter reports a syntax error; not a fixture", file=sys.stderr)
            continue
        with open(os.path.join(FIXTURES, f + ".defs"), "w") as out:
            out.write(f"# {f}: top-level definitions by tree-sitter (tools/gen_code_goldens.py)\n")
            for name, kind, first, last in defs:
                out.write(f"{name}\t{kind}\t{first}\t{last}\n")
        print(f"{f}: {len(defs)} definitions")


if __name__ == "__main__":
    main()

"""Definitions (functions, classes, methods, types) of a file by tree-sitter: kind, name, lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cursorish.apply.syntax import parse

_DEFINITION_KINDS = frozenset(
    {
        "function_definition",
        "class_definition",
        "decorated_definition",
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "method_definition",
        "method_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "type_declaration",
        "struct_item",
        "enum_item",
        "impl_item",
        "trait_item",
        "function_item",
        "mod_item",
        "constructor_declaration",
        "record_declaration",
        "struct_declaration",
        "namespace_declaration",
        "class_specifier",
        "struct_specifier",
        "method",
        "singleton_method",
        "class",
        "module",
        "trait_declaration",
        "lexical_declaration",
        "var_declaration",
        "const_declaration",
    }
)
_MAX_DEPTH = 3


_CONTAINER_PARTS = (
    "body",
    "block",
    "declaration_list",
    "export",
    "program",
    "module",
    "translation_unit",
    "source_file",
    "namespace",
    "template_declaration",
    "type_spec",
    "variable_declarator",
)


def _is_container(kind: str) -> bool:
    """Nodes that may hold definitions (class bodies, exports, namespaces), not code bodies."""
    return any(part in kind for part in _CONTAINER_PARTS)


@dataclass(frozen=True)
class Definition:
    kind: str
    name: str
    start: int  # 0-based first line
    end: int  # 0-based last line
    depth: int  # 0 for top level


def _name(node: Any) -> str:
    named = node.child_by_field_name("name")
    if named is None and node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return _name(inner) if inner is not None else ""
    if named is None:
        # C-like declarators, Go type specs, JS `const x = ...`: the first identifier inside.
        stack = list(node.named_children)
        while stack:
            child = stack.pop(0)
            if child.type in ("identifier", "type_identifier", "field_identifier", "constant"):
                named = child
                break
            if child.type.endswith(("declarator", "spec", "specifier")):
                stack = list(child.named_children) + stack
    if named is None or named.text is None:
        return ""
    return str(named.text.decode("utf-8", "surrogateescape"))


def definitions(text: str, lang: str) -> list[Definition]:
    """Named definitions down to a small depth; empty where there is no grammar."""
    tree = parse(text, lang)
    if tree is None:
        return []
    found: list[Definition] = []
    stack: list[tuple[Any, int]] = [(child, 0) for child in tree.root_node.named_children]
    while stack:
        node, depth = stack.pop()
        kind = node.type
        if kind in _DEFINITION_KINDS:
            name = _name(node)
            if name:
                found.append(Definition(kind, name, node.start_point[0], node.end_point[0], depth))
            depth += 1
        if depth < _MAX_DEPTH and (kind in _DEFINITION_KINDS or _is_container(kind)):
            stack.extend((child, depth) for child in node.named_children)
    found.sort(key=lambda d: (d.start, -d.end))
    return found

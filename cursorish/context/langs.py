"""Which language a file is in, and the tree-sitter tags queries that find its symbols.

The queries follow the convention of tree-sitter's `tags.scm` files: `@def.KIND` captures the
name of a definition, `@ref.KIND` the name at a reference (a call, a type use). The grammars
come from tree-sitter-language-pack; the queries are ours (the pack ships none for these).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from cursorish.apply.languages import EXTENSIONS as FILE_LANGUAGES

# Text formats worth full-text search even without symbols.
TEXT_EXTENSIONS = frozenset(
    [
        ".md",
        ".rst",
        ".txt",
        ".toml",
        ".yaml",
        ".yml",
        ".json",
        ".cfg",
        ".ini",
        ".sh",
        ".html",
        ".css",
        ".scss",
        ".sql",
        ".kt",
        ".swift",
        ".cs",
        ".php",
        ".scala",
        ".lua",
        ".ex",
        ".exs",
        ".erl",
        ".hs",
        ".ml",
        ".vue",
        ".svelte",
        ".dart",
        ".zig",
        ".nim",
        ".pl",
        ".r",
        ".jl",
    ]
)

_JS_COMMON = """
(function_declaration name: (identifier) @def.function)
(generator_function_declaration name: (identifier) @def.function)
(class_declaration name: (_) @def.class)
(method_definition name: (property_identifier) @def.method)
(variable_declarator name: (identifier) @def.variable
  value: [(arrow_function) (function_expression) (class)])
(lexical_declaration (variable_declarator name: (identifier) @def.constant))
(call_expression function: (identifier) @ref.call)
(call_expression function: (member_expression property: (property_identifier) @ref.call))
(new_expression constructor: (identifier) @ref.class)
"""

_TS_EXTRA = """
(interface_declaration name: (type_identifier) @def.interface)
(type_alias_declaration name: (type_identifier) @def.type)
(enum_declaration name: (identifier) @def.enum)
(abstract_class_declaration name: (type_identifier) @def.class)
(function_signature name: (identifier) @def.function)
(method_signature name: (property_identifier) @def.method)
(type_identifier) @ref.type
"""

QUERIES: dict[str, str] = {
    "python": """
(function_definition name: (identifier) @def.function)
(class_definition name: (identifier) @def.class)
(module (expression_statement (assignment left: (identifier) @def.constant)))
(call function: (identifier) @ref.call)
(call function: (attribute attribute: (identifier) @ref.call))
(class_definition superclasses: (argument_list (identifier) @ref.class))
(type (identifier) @ref.type)
(raise_statement (call function: (identifier) @ref.class))
(except_clause (identifier) @ref.class)
""",
    "javascript": _JS_COMMON,
    "typescript": _JS_COMMON + _TS_EXTRA,
    "tsx": _JS_COMMON + _TS_EXTRA,
    "go": """
(function_declaration name: (identifier) @def.function)
(method_declaration name: (field_identifier) @def.method)
(type_spec name: (type_identifier) @def.type)
(const_spec name: (identifier) @def.constant)
(source_file (var_declaration (var_spec name: (identifier) @def.variable)))
(call_expression function: (identifier) @ref.call)
(call_expression function: (selector_expression field: (field_identifier) @ref.call))
(type_identifier) @ref.type
""",
    "rust": """
(function_item name: (identifier) @def.function)
(function_signature_item name: (identifier) @def.function)
(struct_item name: (type_identifier) @def.struct)
(enum_item name: (type_identifier) @def.enum)
(trait_item name: (type_identifier) @def.trait)
(type_item name: (type_identifier) @def.type)
(mod_item name: (identifier) @def.module)
(macro_definition name: (identifier) @def.macro)
(const_item name: (identifier) @def.constant)
(static_item name: (identifier) @def.constant)
(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression field: (field_identifier) @ref.call))
(call_expression function: (scoped_identifier name: (identifier) @ref.call))
(macro_invocation macro: (identifier) @ref.macro)
(type_identifier) @ref.type
""",
    "java": """
(class_declaration name: (identifier) @def.class)
(interface_declaration name: (identifier) @def.interface)
(enum_declaration name: (identifier) @def.enum)
(record_declaration name: (identifier) @def.class)
(method_declaration name: (identifier) @def.method)
(constructor_declaration name: (identifier) @def.method)
(method_invocation name: (identifier) @ref.call)
(object_creation_expression type: (type_identifier) @ref.class)
(type_identifier) @ref.type
""",
    "c": """
(function_definition declarator: (function_declarator declarator: (identifier) @def.function))
(declaration declarator: (function_declarator declarator: (identifier) @def.function))
(struct_specifier name: (type_identifier) @def.struct body: (_))
(enum_specifier name: (type_identifier) @def.enum body: (_))
(type_definition declarator: (type_identifier) @def.type)
(preproc_def name: (identifier) @def.macro)
(preproc_function_def name: (identifier) @def.macro)
(call_expression function: (identifier) @ref.call)
(type_identifier) @ref.type
""",
    "cpp": """
(function_definition declarator: (function_declarator declarator: (identifier) @def.function))
(function_definition declarator: (function_declarator declarator: (field_identifier) @def.method))
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier name: (identifier) @def.method)))
(class_specifier name: (type_identifier) @def.class body: (_))
(struct_specifier name: (type_identifier) @def.struct body: (_))
(enum_specifier name: (type_identifier) @def.enum body: (_))
(type_definition declarator: (type_identifier) @def.type)
(namespace_definition name: (namespace_identifier) @def.module)
(preproc_def name: (identifier) @def.macro)
(call_expression function: (identifier) @ref.call)
(call_expression function: (field_expression field: (field_identifier) @ref.call))
(type_identifier) @ref.type
""",
    "ruby": """
(method name: (_) @def.method)
(singleton_method name: (_) @def.method)
(class name: (constant) @def.class)
(module name: (constant) @def.module)
(call method: (identifier) @ref.call)
(superclass (constant) @ref.class)
(scope_resolution name: (constant) @ref.class)
""",
}

# The apply engine's extension map, limited to the languages we have tags queries for (the
# others are indexed as text when TEXT_EXTENSIONS lists them).
EXTENSIONS: dict[str, str] = {ext: lang for ext, lang in FILE_LANGUAGES.items() if lang in QUERIES}

# Node types that open a scope: the enclosing one's name becomes a symbol's `scope`.
SCOPE_TYPES = frozenset(
    {
        "class_definition",
        "function_definition",
        "class_declaration",
        "interface_declaration",
        "abstract_class_declaration",
        "impl_item",
        "trait_item",
        "mod_item",
        "struct_item",
        "enum_item",
        "class_specifier",
        "struct_specifier",
        "namespace_definition",
        "class",
        "module",
        "method_declaration",
        "function_declaration",
        "function_item",
        "method_definition",
        "method",
        "enum_declaration",
        "record_declaration",
        "type_declaration",
    }
)


def language_of(path: str) -> str | None:
    """The language of a path by its extension, or None for one we have no grammar for."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return EXTENSIONS.get(path[dot:].lower())


def is_text_path(path: str) -> bool:
    """Whether a file without a grammar is still worth full-text indexing."""
    if language_of(path) is not None:
        return True
    dot = path.rfind(".")
    name = path.rsplit("/", 1)[-1]
    return (dot >= 0 and path[dot:].lower() in TEXT_EXTENSIONS) or name in {
        "Makefile",
        "Dockerfile",
        "README",
    }


@cache
def parser_and_query(lang: str) -> tuple[Any, Any] | None:
    """The tree-sitter parser and compiled tags query of `lang`, or None when unavailable."""
    try:
        from tree_sitter import Query
        from tree_sitter_language_pack import get_language, get_parser

        language = get_language(lang)  # type: ignore[arg-type]
        return get_parser(lang), Query(language, QUERIES[lang])  # type: ignore[arg-type]
    except Exception:  # a grammar or query the installed pack cannot load: path-only
        return None

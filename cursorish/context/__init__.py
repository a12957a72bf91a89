"""Repository context for agents: file listing and text search (tree-sitter index later)."""

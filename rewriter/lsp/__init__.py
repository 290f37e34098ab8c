"""`phiml-rewrite lsp`: diagnostics and quick fixes in the editor, from the same engine and config as the CLI.

`document` is what the server knows about one buffer (no LSP types), `textedits` turns a rewrite
into minimal edits, `suppress` writes suppression comments, `protocol` converts to LSP types and
`server` is the pygls server.
"""

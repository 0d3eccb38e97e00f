"""BibTeX in and out, one part per module, each imported only where it is used.

- `writer`: a publication as an entry, as plain text (every page that lists papers).
- `parser`: a file into the records of `entries`, with bibtexparser (imports only).
- `tex`: TeX markup to text, pylatexenc behind tables for the common words.
- `fields`: what an entry's fields mean for a publication record.
- `entries`: those records, plain data the import names without the parser.
- `names`: printed names in parts, text folded for comparing.

Nothing is imported here, so that pylatexenc loads only where BibTeX is read.
"""

"""BibTeX import, step by step: match authors, venues and records, plan, write.

`publications.services.publication_import_bibtex` is the entry point; these modules
are its parts. Other apps reach the few they share (`Members`, `Venues`) through
`publications.services`.
"""

"""BibTeX import, step by step: match authors, venues and records, plan, write.

`publications.services.publication_import_bibtex` is the entry point; these modules
are its parts and are not meant to be called on their own.
"""

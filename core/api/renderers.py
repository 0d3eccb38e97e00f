from rest_framework.renderers import BaseRenderer, JSONRenderer


class BibTeXRenderer(BaseRenderer):
    """Publications as BibTeX; the view hands over finished text."""

    media_type = "application/x-bibtex"
    format = "bibtex"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if isinstance(data, str):
            return data.encode(self.charset)
        # Errors keep their JSON shape whatever format was asked for.
        return JSONRenderer().render(data)


class CSLJSONRenderer(JSONRenderer):
    """Publications as CSL-JSON, the citation format of Zotero and citeproc."""

    media_type = "application/vnd.citationstyles.csl+json"
    format = "csl"

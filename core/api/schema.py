from drf_spectacular.openapi import AutoSchema


class DirectorySchema(AutoSchema):
    """Say in the schema what the permissions do: anyone may read."""

    def get_auth(self) -> list[dict]:
        auth = super().get_auth()
        if self.method in ("GET", "HEAD", "OPTIONS") and {} not in auth:
            auth.append({})
        return auth

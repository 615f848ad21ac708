"""Build-time code of the site: MkDocs hooks and the figures they draw from the package."""

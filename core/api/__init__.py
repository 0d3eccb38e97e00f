"""What every API endpoint shares: paging, errors, throttles, renderers, facets."""

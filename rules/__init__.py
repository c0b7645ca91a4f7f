"""Rule files: ``HLxxx-<slug>.yaml`` (metadata, then examples) and ``rule.schema.json``.

Installed as the ``hooklint.rules`` package so that the catalog ships with hooklint."""

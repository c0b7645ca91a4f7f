"""Reporters: one ``render(result, ...) -> str`` function per output format."""

FORMATS = ("text", "json", "sarif", "github", "gitlab")

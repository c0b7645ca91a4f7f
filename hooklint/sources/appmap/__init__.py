"""The application map: ..."""

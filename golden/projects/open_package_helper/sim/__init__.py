"""A package others install."""

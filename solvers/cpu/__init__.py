"""The CPU backend: a compiled (numba) scalar double-dummy search, one problem a thread."""

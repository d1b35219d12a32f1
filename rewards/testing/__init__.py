"""Test seams that must be importable by worker processes (fault injection).

Not used in production; nothing in the product imports it.
"""

"""Table Companion: the rules, the table model and the session, in pure Python."""

__version__ = "0.1.0"

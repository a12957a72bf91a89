"""The Textual front end (terminal UI). Only this package may import textual."""

"""Metric classes and score functions (TER here; see DESIGN.md "Layout")."""

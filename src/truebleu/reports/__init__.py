"""Turning scores into text: sacreBLEU's formats, and truebleu's own."""

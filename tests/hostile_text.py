"""The security corpus: hostile text for every field a user controls.

Markup, script URLs, template syntax, bidi overrides, lone surrogates and control
characters; each payload tries to run ``PWN`` (set ``window.__pwned``) or to change the
page. The viewer's browser tests put them in every text of a report; the comparison
reports (text, LaTeX, JSON, TSV) put them in metric and system names.
"""

from __future__ import annotations

PWN = "window.__pwned=1;alert(1)"

# Each payload tries to run PWN or to change the page; the list is the segments' text.
PAYLOADS = [
    f"<script>{PWN}</script>",
    f'<img src=x onerror="{PWN}">',
    f"<img src=x onerror={PWN}>",
    f"javascript:{PWN}",
    f'<a href="javascript:{PWN}">click</a>',
    f"</script><script>{PWN}</script>",
    f'"><svg onload={PWN}>',
    f"'><svg/onload={PWN}>",
    f'" onmouseover="{PWN}" x="',
    f"' autofocus onfocus='{PWN}' x='",
    '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
    '<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example/">',
    '<style>*{display:none!important}</style><link rel=stylesheet href="https://evil.example/x.css">',
    "{{7*7}} ${7*7} <%= 7*7 %> #{7*7}",
    "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#x3C;img&#x3E; %3Cscript%3E",
    "<!-- --> <![CDATA[ ]]> ]]> </textarea></title></style></noscript>",
    "abc\u202egnp.exe \u2066isolate\u2069 \u200bzero\u200dwidth\ufeffbom",
    "lone \ud800 high \udfff low \udbff end",
    "nul\x00bell\x07esc\x1b[31mred del\x7f c1\x85\x9b",
    "plain words: the cat sat on the mat",
]

NAMES = [f"<img src=x onerror={PWN}>", f'"><svg onload={PWN}>', "sys\u202e\x00</script>"]

# What a LaTeX table must not run or break on: commands, and every special character.
LATEX = [r"\input{/etc/passwd}\immediate\write18{rm -rf ~}", "50% & $x^2$ #1 _a ~b {c} \\"]

"""Who may talk to the local server: the address it binds, the Host names it answers, its token.

- It binds a loopback address unless the user asks, by name, for more (``allow_remote``;
  ``--allow-remote`` on the command line): a report and the CPU behind its tests are not
  for whoever can reach the machine.
- It answers only requests whose ``Host`` header names its address (a page from another site
  cannot reach it through DNS rebinding).
- Bound to any other address, it also asks every request for a random access token, printed
  at start-up in the page's URL (``?token=...``, as Jupyter does); the first page load turns it
  into a cookie (``HttpOnly``, ``SameSite=Strict``) that the page's own requests then carry,
  so the token is never written into the page, whose bytes (and so its CSP hashes) stay the
  same for everyone.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from http.cookies import CookieError, SimpleCookie
from typing import Optional, Sequence
from urllib.parse import parse_qs

__all__ = ["RemoteAccessRefused", "allowed_host_headers", "check_bind_address", "is_loopback",
           "new_access_token", "presented_token", "token_cookie", "token_matches"]

_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


class RemoteAccessRefused(ValueError):
    """A non-loopback address to bind without the explicit permission to."""


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and the loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind_address(host: str, allow_remote: bool, switch: str = "allow_remote=True") -> None:
    """Refuse to bind ``host`` when other machines may reach it and ``allow_remote`` is false.

    ``switch`` is how the caller's user grants it (``--allow-remote`` on the command line).
    """
    if is_loopback(host) or allow_remote:
        return
    shown = host or "'' (every address)"
    raise RemoteAccessRefused(
        f"{shown} is not a loopback address: other machines could read the report and make this "
        f"one compute; pass {switch} to serve it to them (every request must then carry the "
        "access token printed at start-up)")


def host_header_value(host: str) -> str:
    """How a browser writes ``host`` in a Host header (IPv6 in brackets, lower case)."""
    host = host.lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def allowed_host_headers(host: str, port: int, extra: Sequence[str] = ()) -> frozenset[str]:
    """The Host header values the server answers: its bound address and the loopback names.

    A wildcard bind (``0.0.0.0``, ``::``) also accepts this machine's host name;
    ``extra`` adds names (e.g. a LAN address users type).
    """
    names = set(_LOOPBACK_NAMES) | {host_header_value(host)} | {host_header_value(h) for h in extra}
    if host in ("0.0.0.0", "::", ""):
        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    values = {f"{name}:{port}" for name in names}
    if port == 80:
        values |= names
    return frozenset(values)


def new_access_token() -> str:
    """A random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def token_cookie(port: int) -> str:
    """The cookie's name: one per port, as cookies are shared by every port of a host."""
    return f"truebleu-token-{port}"


def presented_token(query: str, cookie_headers: Sequence[str], port: int) -> tuple[Optional[str], bool]:
    """The token a request carries, and whether it came in the URL (then to be set as a cookie).

    The URL's ``token`` wins over the cookie (a new token after a restart replaces the old
    cookie); a malformed cookie header counts as no cookie.
    """
    from_url = parse_qs(query, keep_blank_values=True).get("token")
    if from_url:
        return from_url[-1], True
    cookies: SimpleCookie = SimpleCookie()
    try:
        cookies.load("; ".join(cookie_headers))
    except CookieError:
        return None, False
    morsel = cookies.get(token_cookie(port))
    return (morsel.value if morsel is not None else None), False


def token_matches(given: Optional[str], token: str) -> bool:
    """``given == token`` in constant time (a timing difference would leak the token)."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode("ascii"))

"""A real SMTP server for tests, run as its own process: ``python -m tests.support.smtp_sink``.

    --port P        listen on 127.0.0.1:P
    --dir D         write each accepted message to D/<n>.eml and each refusal to D/refused.log
    --refuse N      answer the first N messages "451 4.3.0 Try again later" (a temporary refusal)
    --reject        answer every message "550 5.1.1 Mailbox unavailable" (a permanent one)
    --user U:PW     offer AUTH (without TLS, on localhost) and accept only U with PW

aiosmtpd (Apache-2.0) is a test dependency only.
"""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, folder: Path, refuse: int, reject: bool) -> None:
        self.folder, self.refuse, self.reject = folder, refuse, reject
        self.count = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.count += 1
        if self.reject or self.count <= self.refuse:
            reply = "550 5.1.1 Mailbox unavailable" if self.reject else "451 4.3.0 Try again later"
            with (self.folder / "refused.log").open("a", encoding="utf-8") as log:
                log.write(reply + "\n")
            return reply
        accepted = len(list(self.folder.glob("*.eml"))) + 1
        (self.folder / f"{accepted}.eml").write_bytes(envelope.original_content)
        with (self.folder / "envelope.log").open("a", encoding="utf-8") as log:
            log.write(f"{envelope.mail_from} -> {','.join(envelope.rcpt_tos)} auth={session.auth_data!r}\n")
        return "250 OK"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--refuse", type=int, default=0)
    parser.add_argument("--reject", action="store_true")
    parser.add_argument("--user", default="")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {}
    if args.user:
        user, _, password = args.user.partition(":")

        def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
            ok = (
                isinstance(data, LoginPassword)
                and data.login.decode() == user
                and data.password.decode() == password
            )
            return AuthResult(success=ok, auth_data=user if ok else None)

        options = {"authenticator": authenticator, "auth_require_tls": False}
    controller = Controller(
        Sink(args.dir, args.refuse, args.reject), hostname="127.0.0.1", port=args.port, **options
    )
    controller.start()
    (args.dir / "ready").write_text("ready")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()

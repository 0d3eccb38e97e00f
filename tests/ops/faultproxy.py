"""A TCP proxy on loopback that a test (or a benchmark) can cut and restore.

Put it between the site and a service (PostgreSQL, Redis) and point the site's URL
at `proxy.port`. `cut("refuse")` drops every open connection and refuses new ones,
as a stopped server does; `cut("hang")` keeps connections open but forwards nothing,
as a cut network does (clients see timeouts); `restore()` forwards again.
bench/serve.py uses it too (Redis cut in the middle of a load run).
"""

import socket
import threading

REFUSE = "refuse"
HANG = "hang"


class FaultProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.mode: str | None = None  # None: forwarding
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._listener = self._listen(0)
        self.port = self._listener.getsockname()[1]
        self._start(self._accept_loop, self._listener)

    def __enter__(self) -> "FaultProxy":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def url(self, scheme_and_rest: str) -> str:
        """`scheme_and_rest` with {port} replaced, e.g. 'redis://127.0.0.1:{port}/0'."""
        return scheme_and_rest.format(port=self.port)

    def cut(self, mode: str = REFUSE) -> None:
        if mode not in (REFUSE, HANG):
            raise ValueError(f"mode must be {REFUSE!r} or {HANG!r}")
        with self._lock:
            self.mode = mode
            if mode == REFUSE:
                self._stop_listening()
        if mode == REFUSE:
            self._drop_all()

    def restore(self) -> None:
        with self._lock:
            was, self.mode = self.mode, None
        self._drop_all()  # a hung connection has lost bytes: it cannot go on
        if was == REFUSE:
            self._listener = self._listen(self.port)
            self._start(self._accept_loop, self._listener)

    def close(self) -> None:
        with self._lock:
            self.mode = REFUSE
            self._stop_listening()
        self._drop_all()

    def _stop_listening(self) -> None:
        # shutdown() wakes the thread blocked in accept(), which frees the port.
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()

    @staticmethod
    def _listen(port: int) -> socket.socket:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
        return listener

    @staticmethod
    def _start(target, *args) -> None:
        threading.Thread(target=target, args=args, daemon=True).start()

    def _accept_loop(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed by cut() or close()
            self._track(client)
            if self.mode == HANG:
                continue  # accepted, never answered
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                self._drop(client)
                continue
            upstream.settimeout(None)
            self._track(upstream)
            self._start(self._pump, client, upstream)
            self._start(self._pump, upstream, client)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                if self.mode is None:
                    sink.sendall(data)
        except OSError:
            pass
        self._drop(source)
        self._drop(sink)

    def _track(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.add(sock)

    def _drop(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

    def _drop_all(self) -> None:
        with self._lock:
            sockets = list(self._open)
        for sock in sockets:
            self._drop(sock)

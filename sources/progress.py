"""A one-line progress bar for long runs, shown only on a terminal."""

from typing import TextIO

from jobs.registry import Progress

WIDTH = 30


def terminal_progress(stream: TextIO) -> Progress | None:
    """A progress callback that draws on `stream` if it is a terminal, else None."""
    if not getattr(stream, "isatty", lambda: False)():
        return None

    def show(done: int, total: int, message: str) -> None:
        filled = WIDTH * done // total if total else WIDTH
        bar = "#" * filled + "." * (WIDTH - filled)
        stream.write(f"\r[{bar}] {done}/{total} {message[:40]:<40}")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show

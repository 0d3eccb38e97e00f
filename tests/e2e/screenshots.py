"""`make screenshots`: the main pages of the demo lab at three widths, as PNGs.

Serves the demo lab from a throw-away database with the development server and
photographs each page in Debian's Chromium. Look at the pictures before calling a
change to a page done; `docs/*.png` (shown in the README) are refreshed from them.
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from PIL import Image

BASE_DIR = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTHS = {"wide": 1280, "tablet": 768, "phone": 375}
PAGES = {
    "home": "/",
    "people": "/people/",
    "people-search": "/people/?q=KV+cache",
    "publications": "/publications/",
    "events": "/events/",
    "profile": "/people/jingwei-zuo/",
    "profile-zhou": "/people/zhongzhu-zhou/",
    "publication": "/publications/duoattention/",
    "publication-unplaced-author": "/publications/kitty/",
    "event": "/events/2026-07-09-i-dlm-squeeze-evolve-colm/",
    "search": "/search/?q=attention",
    "topic": "/topics/quantization/",
    "topics": "/topics/",
    "network": "/people/network/",
}
# The pictures the README shows, from the wide screenshots.
README_PICTURES = {
    "home": "home.png",
    "profile": "profile.png",
    "people-search": "search.png",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BASE_DIR / "docs" / "screenshots")
    parser.add_argument(
        "--no-readme", action="store_true", help="leave docs/*.png as they are"
    )
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing: apt-get install chromium fonts-noto-cjk")
    if not list(Path("/usr/share/fonts").rglob("*CJK*")):
        sys.stderr.write(
            "no CJK font (apt-get install fonts-noto-cjk): 祝磊 draws as boxes\n"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, _server(Path(tmp)) as base_url:
        shots = _photograph(base_url, args.out)
    if not args.no_readme:
        for name, picture in README_PICTURES.items():
            _top(args.out / f"{name}-wide.png", BASE_DIR / "docs" / picture)
    sys.stdout.write("".join(f"{path.relative_to(BASE_DIR)}\n" for path in shots))


class _server:
    """The demo lab served by `runserver` on a free loopback port."""

    def __init__(self, tmp: Path) -> None:
        self.env = {
            **os.environ,
            "DEBUG": "1",
            "DATABASE_URL": f"sqlite:///{tmp / 'screenshots.sqlite3'}",
            "MEDIA_ROOT": str(tmp / "media"),
        }
        for name in ("DJANGO_SETTINGS_MODULE", "CACHE_URL"):
            self.env.pop(name, None)

    def __enter__(self) -> str:
        for command in (["migrate", "--noinput", "-v0"], ["load_demo", "-v0"]):
            self._manage(*command, check=True)
        port = _free_port()
        self.process = self._manage(
            "runserver", f"127.0.0.1:{port}", "--noreload", check=False
        )
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(url + "/", timeout=2)
                return url
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the development server did not start")

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

    def _manage(self, *args: str, check: bool):
        command = [sys.executable, "manage.py", *args]
        if check:
            return subprocess.run(command, cwd=BASE_DIR, env=self.env, check=True)
        return subprocess.Popen(
            command,
            cwd=BASE_DIR,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def _photograph(base_url: str, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    shots = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for label, width in WIDTHS.items():
            context = browser.new_context(
                base_url=base_url, viewport={"width": width, "height": 900}
            )
            page = context.new_page()
            for name, path in PAGES.items():
                page.goto(path)
                page.wait_for_load_state("networkidle")
                target = out / f"{name}-{label}.png"
                page.screenshot(path=str(target), full_page=True)
                shots.append(target)
            context.close()
        browser.close()
    return shots


def _top(source: Path, target: Path, height: int = 1000) -> None:
    """The first screenful of a full-page picture, for the README."""
    with Image.open(source) as image:
        image.crop((0, 0, image.width, min(height, image.height))).save(target)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


if __name__ == "__main__":
    main()

"""Known vulnerabilities in the installed, pinned requirements (pip-audit).

Fails when any dependency has a known vulnerability. When the advisory service
(PyPI's JSON API) cannot be reached, pip-audit skips every dependency instead of
auditing it: that is reported loudly, not passed off as a clean audit.
"""

import json
import subprocess
import sys

command = [sys.executable, "-m", "pip_audit", "--progress-spinner", "off"]
done = subprocess.run([*command, "--format", "json"], capture_output=True, text=True)
try:
    report = json.loads(done.stdout)
except json.JSONDecodeError:
    print(done.stdout, done.stderr, sep="\n")
    sys.exit(done.returncode or 1)

dependencies = report["dependencies"]
vulnerable = [d for d in dependencies if d.get("vulns")]
skipped = [d for d in dependencies if "skip_reason" in d]
audited = len(dependencies) - len(skipped)
for dep in vulnerable:
    for vuln in dep["vulns"]:
        fixes = ", ".join(vuln.get("fix_versions", [])) or "no fix yet"
        print(f"{dep['name']} {dep['version']}: {vuln['id']} (fixed in {fixes})")
if vulnerable:
    sys.exit(1)
if audited == 0 and skipped:
    print(
        f"pip-audit: the advisory service was unreachable; none of the "
        f"{len(skipped)} installed packages could be audited "
        f"(first reason: {skipped[0]['skip_reason']})."
    )
else:
    print(
        f"pip-audit: no known vulnerability in {audited} packages"
        + (f" ({len(skipped)} not on PyPI, not audited)" if skipped else "")
    )
